"""Scoring mistakes, for every rule set and player count (hypothesis): a slip planted
in a real hand's claimed score is found, and every explanation is a smallest one."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from buraco.analysis.slips import SLIPS, UNEXPLAINED, cause_text, scoring_findings, side_slips
from buraco.notation import Result, dumps, loads
from buraco.replay import replay_hand, verify
from buraco.selfplay import play_match

from ..records import EVERY_PAIR, per_pair

SETTINGS = per_pair(40)


@EVERY_PAIR
@SETTINGS
@given(seed=st.integers(0, 100_000))
def test_a_planted_slip_is_found_with_its_cause(case: tuple[str, int], seed: int) -> None:
    variant, players = case
    record = loads(dumps(play_match(variant, players=players, hands=2, seed=seed, mistakes=1.0)))
    report = verify(record)
    findings = scoring_findings(record, report)
    assert not [f for f in findings if f.cause == "total-not-sum"]  # the players summed their own scores
    for number, (hand, hand_report) in enumerate(zip(record.hands, report.hands), start=1):
        planted = dict(hand.extra)["x-planted"]  # every finished hand allows some slip
        _, side, slip = str(planted).split()
        assert slip in SLIPS
        assert hand.result is not None and hand_report.scores is not None
        difference = hand.result.scores[int(side) - 1] - hand_report.scores[int(side) - 1]
        found = [f for f in findings if (f.hand, f.side) == (number, int(side)) and f.cause != "wrong-winner"]
        assert len(found) == 1, found
        assert (slip,) in found[0].causes, (planted, found[0].message)
        assert found[0].points == abs(difference) > 0
        others = [f for f in findings if f.hand == number and f.side != int(side) and f.cause != "wrong-winner"]
        assert others == []  # one side's claim was changed: no other side is reported


@EVERY_PAIR
@SETTINGS
@given(seed=st.integers(0, 100_000), count=st.integers(1, 3))
def test_planted_slips_are_explained_by_no_more_slips(case: tuple[str, int], seed: int, count: int) -> None:
    """Plant ``count`` slips on one side (as the table allows them); the analysis
    explains the difference with at most that many, and names exactly the planted
    ones among its explanations when it needs that many."""
    variant, players = case
    record = play_match(variant, players=players, hands=1, seed=seed)
    state = replay_hand(record, 0)
    computed = verify(record).hands[0]
    assert computed.parts is not None and computed.scores is not None
    rng = random.Random(seed)
    options = rng.choice(side_slips(state, computed.parts))
    chosen: list[str] = []
    effect = 0
    used: Counter[object] = Counter()
    for _ in range(count):
        free = [s for s in options.slips if used[s.resource] < options.capacity[s.resource]]
        if not free:
            break
        slip = rng.choice(free)
        used[slip.resource] += 1
        chosen.append(slip.id)
        effect += slip.effect
    scores = list(computed.scores)
    scores[options.side] += effect
    claimed = replace(record, hands=(replace(record.hands[0], result=Result(tuple(scores))),))
    findings = scoring_findings(claimed, verify(claimed))
    if effect == 0:  # slips that cancel out leave a right score
        assert findings == []
        return
    assert [f.side for f in findings] == [options.side + 1]
    finding = findings[0]
    assert finding.cause != UNEXPLAINED
    sizes = {len(c) for c in finding.causes}
    assert len(sizes) == 1 and sizes.pop() <= len(chosen)  # all smallest, none longer than what was planted
    if len(finding.causes[0]) == len(chosen):
        planted = sorted(chosen, key=SLIPS.index)
        hand_slips = [sorted(c, key=SLIPS.index) for c in finding.causes]
        assert planted in hand_slips
    assert finding.cause == cause_text(finding.causes)


@EVERY_PAIR
@SETTINGS
@given(seed=st.integers(0, 100_000))
def test_right_claims_give_no_scoring_mistake(case: tuple[str, int], seed: int) -> None:
    variant, players = case
    record = play_match(variant, players=players, hands=2, seed=seed)
    assert scoring_findings(record, verify(record)) == []

"""A take passed over is searched only when some play could use its card as the pick-up
rule asks (``buraco.analysis.search.may_use_take``). The skip must never drop a take the
engine would accept: over self-play turns of the rule sets with an obligation, every take
the analysis finds no use for is one the engine refuses."""

from __future__ import annotations

import pytest

from buraco.analysis.search import SearchContext, Walk, may_use_take, obligation_plays
from buraco.analysis.turns import _HandJudge, played_turns
from buraco.errors import IllegalActionError
from buraco.rules import VARIANTS
from buraco.selfplay import play_match

WITH_OBLIGATION = sorted(v for v, rules in VARIANTS.items() if rules.pickup in ("use-top", "dig"))


@pytest.mark.parametrize("variant", WITH_OBLIGATION)
def test_a_take_with_no_use_found_is_one_the_engine_refuses(variant: str) -> None:
    record = play_match(variant, players=2, hands=2, seed=11)
    context = SearchContext(record.rules)
    skipped = kept = 0
    for index in range(len(record.hands)):
        played = played_turns(record, index)
        judge = _HandJudge(record, index, played, context)
        for turn in played.turns:
            for start, take in judge.takes(turn):
                if may_use_take(start, context):
                    kept += 1
                    continue
                skipped += 1
                trial = turn.before_draw.copy(log=False)
                with pytest.raises(IllegalActionError):
                    trial.apply(take)
    assert skipped and kept  # both sides of the test were reached


@pytest.mark.parametrize("variant", WITH_OBLIGATION)
def test_the_count_test_refuses_only_takes_whose_card_no_play_holds(variant: str) -> None:
    """``Walk.may_meet_obligation`` asks the hand's counts first (``card_may_be_held``) and
    generates the plays meeting the obligation only where the card might be held: every
    take the count test refuses has no such play, and it refuses some (or it spares
    nothing)."""
    record = play_match(variant, players=2, hands=2, seed=11)
    context = SearchContext(record.rules)
    refused = 0
    for index in range(len(record.hands)):
        played = played_turns(record, index)
        judge = _HandJudge(record, index, played, context)
        for turn in played.turns:
            for start, take in judge.takes(turn):
                walk = Walk(start, context)  # a fresh walk: nothing worked out on it yet
                if start.obligation is None or walk._obligation_card_may_be_held():
                    continue
                refused += 1
                assert next(obligation_plays(walk), None) is None, (variant, turn.draw_ply, take.text)
    assert refused

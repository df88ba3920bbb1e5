"""Self-play's claimed scores against a scorer written apart from the engine's
(tests/engine/independent_scoring.py, from the rules' tables), for every rule set and
player count (hypothesis draws the seeds). Self-play writes its claims with the same
``score_hand`` that verify uses, so checking it against verify alone checks nothing."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from buraco.replay import verify
from buraco.selfplay import play_match

from .independent_scoring import hand_scores
from .records import VARIANT_PLAYERS


@pytest.mark.parametrize(("variant", "players"), VARIANT_PLAYERS)
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 100_000))
def test_self_play_claims_the_scores_the_rules_tables_give(variant: str, players: int, seed: int) -> None:
    record = play_match(variant, players=players, hands=2, seed=seed)
    running = [0] * len(record.sides)
    for index, hand in enumerate(record.hands):
        expected = hand_scores(record, index)
        assert hand.result is not None
        assert list(hand.result.scores) == expected, (variant, players, seed, index)
        running = [t + s for t, s in zip(running, expected)]
        assert hand.result.totals is not None and list(hand.result.totals) == running
    assert verify(record).totals == running  # the match's totals: every hand's scores, summed

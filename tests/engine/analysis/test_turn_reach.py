"""A turn's reach (every card a draw choice of it could give the player) bounds each of
its draw choices: the bound from card counts there is at least the bound at the turn as
played and at every take passed over, and going out's quick test fails there only where it
fails at all of them. So the analysis, which stops at the reach where those fail, finds
what it finds without that stop."""

from __future__ import annotations

import pytest

from buraco.analysis import turns as turns_module
from buraco.analysis.search import SearchContext, Start
from buraco.analysis.turns import Turn, played_turns, turn_findings
from buraco.cards import CARD_KINDS
from buraco.rules import VARIANTS, Variant
from buraco.selfplay import play_match


@pytest.mark.parametrize("variant", list(VARIANTS.values()), ids=lambda v: v.id)
def test_the_reach_bounds_every_draw_choice_of_the_turn(variant: Variant) -> None:
    record = play_match(variant.id, players=2, hands=2, seed=5)
    context = SearchContext(variant)
    compared = stopped = turns = 0
    for index in range(len(record.hands)):
        played = played_turns(record, index, context)
        judge = turns_module._HandJudge(record, index, played, context)
        for turn in played.turns:
            reach = turn.reach().counted(context)
            starts = [turn.start(), *(start for start, _ in judge.takes(turn))]
            for start in starts:
                table = start.counted(context)
                assert all(a >= b for a, b in zip(turn.reach().hand, start.hand))
                assert reach.bonus_bound() >= table.bonus_bound()
                assert reach.may_qualify() or not table.may_qualify()
                compared += 1
            stopped += reach.bonus_bound() <= turn.end_bonus
            turns += 1
        context.forget_hand()
    assert compared >= 100 and 0 < stopped < turns  # the stop is taken, and not on every turn


@pytest.mark.interpreted  # replaces a search's method: the compiled searches would not see it
@pytest.mark.parametrize("variant_id,seed", [("brasil", 3), ("brasil", 8), ("abierto", 2), ("burraco", 4), ("cerrado-sucio", 1)])
def test_the_findings_are_those_found_without_stopping_at_the_reach(variant_id: str, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    record = play_match(variant_id, players=2, hands=3, seed=seed)
    stopped = [turn_findings(record, index, [], SearchContext(record.rules)) for index in range(len(record.hands))]

    def everything(turn: Turn) -> Start:  # every card twice: no bound ever fails here
        return Start.holding(turn.before_draw, (2,) * CARD_KINDS)

    monkeypatch.setattr(Turn, "reach", everything)
    unstopped = [turn_findings(record, index, [], SearchContext(record.rules)) for index in range(len(record.hands))]
    assert stopped == unstopped
    assert any(stopped)

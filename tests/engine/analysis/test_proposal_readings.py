"""A table of plays the proposals share between hands by what the generator reads of them
(:func:`~buraco.analysis.proposals.lay_off_reading` for lay-offs, the projection capped
for new melds) holds the very plays, in the very order, that judging the asking hand
afresh gives: in all nine rule sets, at every table the searches of self-play hands ask."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import pytest

from buraco.analysis.proposals import LayOffTable, MeldTable, Proposals
from buraco.melds import Shape
from buraco.moves import rank_set_melds, suit_run_melds
from buraco.rules import VARIANTS

from .builders import search_self_play


@pytest.mark.interpreted  # replaces the proposals' methods: the compiled searches would not see it
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_table_shared_by_reading_holds_the_asking_hands_own_plays(variant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: Counter[str] = Counter()
    lay_offs, run_melds, set_melds = Proposals.lay_offs, Proposals.run_melds, Proposals.set_melds

    def checked_lay_offs(proposals: Proposals, shape: Shape, hand: Sequence[int]) -> LayOffTable:
        projections, readings = len(proposals._lay_offs), len(proposals._lay_offs_read)
        table = lay_offs(proposals, shape, hand)
        own = Proposals(proposals.variant)._judge_lay_offs(shape, hand)
        assert table.plays == own.plays, (variant, shape, list(hand))
        seen["lay-off tables"] += 1
        # A projection not seen before, whose reading was: the table judged for another hand.
        seen["lay-off tables shared by reading"] += len(proposals._lay_offs) > projections and len(proposals._lay_offs_read) == readings
        return table

    def checked_runs(proposals: Proposals, suit: int, hand: Sequence[int]) -> MeldTable:
        projections, readings = len(proposals._runs), len(proposals._melds_read)
        table = run_melds(proposals, suit, hand)
        assert table.plays == Proposals(proposals.variant)._judge_melds(suit_run_melds(hand, suit)).plays, (variant, suit)
        seen["run tables shared by reading"] += len(proposals._runs) > projections and len(proposals._melds_read) == readings
        return table

    def checked_sets(proposals: Proposals, rank: int, hand: Sequence[int]) -> MeldTable:
        table = set_melds(proposals, rank, hand)
        own = Proposals(proposals.variant)._judge_melds(rank_set_melds(proposals.variant, hand, rank))
        assert table.plays == own.plays, (variant, rank)
        seen["set tables"] += 1
        return table

    monkeypatch.setattr(Proposals, "lay_offs", checked_lay_offs)
    monkeypatch.setattr(Proposals, "run_melds", checked_runs)
    monkeypatch.setattr(Proposals, "set_melds", checked_sets)
    search_self_play(variant, (3, 4))
    assert seen["lay-off tables"], f"no search of {variant} asked for lay-offs"
    assert seen["lay-off tables shared by reading"], f"no lay-off table of {variant} was shared by its reading"
    if variant == "brasil":  # two copies of a card held are common there: elsewhere these hands may share none
        assert seen["run tables shared by reading"], "no run table of brasil was shared by its reading"
    if VARIANTS[variant].sets:
        assert seen["set tables"], f"no search of {variant} asked for sets"

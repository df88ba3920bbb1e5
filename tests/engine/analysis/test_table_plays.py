"""The plays an exit search reads at a table reached by a play are those it would read at
that table afresh: ``_TablePlays.after`` keeps only the tables of plays the play left as
they were (the proposals' tables for a meld, a suit or a rank whose projection of the hand
did not change), in all nine rule sets."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import compress

import pytest

from buraco.analysis.exits import _TablePlays
from buraco.analysis.search import Walk
from buraco.cards import CARD_KINDS
from buraco.melds import IS_WILD_KIND
from buraco.rules import VARIANTS

from .builders import search_self_play


def _reading(plays: _TablePlays, hand: Sequence[int]) -> list[object]:
    """Everything a search reads of a table's plays, card by card, in plain values."""
    read: list[object] = []
    for card in compress(range(CARD_KINDS), hand):
        read.append([dict(table) for table in plays.new_meld_tables(card)])
        read.append(sorted(plays.fitting(card)))
        read.append([(index, dict(plays.lay_off_table(index)), plays.lay_offs(index).natural) for index in sorted(plays.fitting(card))])
        read.append((plays.holds(card), plays.new_meld_count(card)))
        if not IS_WILD_KIND[card]:
            read.append(plays.placed_naturally(card))
    return read


@pytest.mark.interpreted  # replaces a search's method: the compiled searches would not see it
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_the_plays_handed_on_after_a_play_are_the_tables_own(variant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: Counter[str] = Counter()
    original = _TablePlays.after

    def after(plays: _TablePlays, walk: Walk, laid: Sequence[int]) -> _TablePlays:
        handed = original(plays, walk, laid)
        kept = sum(table is not None for table in handed._run_tables) + len(handed._lay_off_tables)
        assert _reading(handed, walk.hand) == _reading(_TablePlays(walk), walk.hand), (variant, list(laid))
        seen["compared"] += 1
        seen["kept tables"] += kept
        return handed

    monkeypatch.setattr(_TablePlays, "after", after)
    search_self_play(variant, (3, 4, 5, 6))
    assert seen["compared"], f"no exit search of {variant} walked past a play"
    assert seen["kept tables"], f"no table of plays was handed on in {variant}"

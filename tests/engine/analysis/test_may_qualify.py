"""A walk asks first the meld that answered ``may_qualify`` last (a search asks it table
after table, and mostly the same meld answers): the answer is still whether any meld, or
a new canasta, could let the player go out, at every table the exit searches ask it of,
in all nine rule sets."""

from __future__ import annotations

from collections import Counter

import pytest

from buraco.analysis.search import Walk
from buraco.melds import CLEAN, DIRTY, canasta_bonus
from buraco.rules import VARIANTS

from .builders import search_self_play


def _any_meld_qualifies(walk: Walk) -> bool:
    """may_qualify read afresh, meld by meld in table order."""
    variant = walk.variant
    need = canasta_bonus(CLEAN if variant.out_needs_clean else DIRTY, variant)
    counts = (walk._suits, walk._ranks, walk._wilds)
    return any(walk._qualifies(meld, need, counts) for meld in walk.melds) or walk.new_bound(counts, single=True) >= need


@pytest.mark.interpreted  # replaces a search's method: the compiled searches would not see it
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_the_meld_asked_first_does_not_change_the_answer(variant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    answers: Counter[tuple[bool, bool]] = Counter()
    original = Walk.may_qualify

    def may_qualify(walk: Walk) -> bool:
        asked_first = walk._qualified_by
        answer = original(walk)
        assert answer == _any_meld_qualifies(walk), (variant, [action.text for action in walk.line])
        answers[answer, asked_first == walk._qualified_by] += 1
        return answer

    monkeypatch.setattr(Walk, "may_qualify", may_qualify)
    search_self_play(variant, (3, 4))
    assert answers[True, True], f"no table of {variant} was answered by the meld that answered last"

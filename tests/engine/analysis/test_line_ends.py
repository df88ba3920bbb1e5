"""A canasta line that leaves the hand empty, or one card to discard, is refused before
the engine replays it where the hand may not be emptied then (``Walk.may_empty_hand``):
every line so refused is one the engine refuses, and such lines are met (brasil and
cerrado: a dirty canasta made, one card kept, where going out needs a clean one)."""

from __future__ import annotations

from collections import Counter

import pytest

from buraco.analysis.search import _CanastaSearch, ended_line
from buraco.rules import VARIANTS

from .builders import search_self_play

# Where the two seeds' hands below offer lines the test refuses, and lines it lets through
# to the engine, which accepts them.
REFUSES = ("brasil", "cerrado", "cerrado-stcl")
LETS_THROUGH = ("abierto", "cerrado-stcl", "fechado-stbl")


@pytest.mark.interpreted  # replaces a search's method: the compiled searches would not see it
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_line_refused_before_its_replay_is_one_the_engine_refuses(variant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    verdicts: Counter[tuple[bool, bool]] = Counter()
    original = _CanastaSearch.end_here

    def end_here(search: _CanastaSearch) -> None:
        walk = search.walk
        if walk.size <= 1:
            allowed = walk.may_empty_hand(direct=walk.size == 0)
            accepted = ended_line(walk.start, walk.line, search.prefer) is not None
            assert allowed or not accepted, (variant, [action.text for action in walk.line])
            verdicts[allowed, accepted] += 1
        original(search)

    monkeypatch.setattr(_CanastaSearch, "end_here", end_here)
    search_self_play(variant, (11, 12))
    if variant in REFUSES:
        assert verdicts[False, False]
    if variant in LETS_THROUGH:
        assert verdicts[True, True]

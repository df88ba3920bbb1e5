"""A canasta search the context remembers is recalled, not walked again, and only when it
would have gone the same way: on self-play tables a recalled answer is the line a search
in a fresh context finds, and a remembered search whose lines the engine now judges
otherwise is searched again."""

from __future__ import annotations

import pytest

from buraco.analysis import search
from buraco.analysis.search import SearchContext, Start, best_canasta_line

from .builders import play_steps


@pytest.mark.parametrize("variant_id,seed", [("brasil", 1), ("brasil", 3), ("abierto", 2), ("burraco-106", 4)])
def test_a_recalled_search_is_the_search(variant_id: str, seed: int) -> None:
    tables = play_steps(variant_id, seed)
    context = SearchContext(tables[0].variant)
    recalled = 0
    for table in tables:
        first = best_canasta_line(Start.after(table), None, -1, context)
        nodes = context.nodes
        again = best_canasta_line(Start.after(table), None, -1, context)
        fresh = best_canasta_line(Start.after(table), None, -1, SearchContext(table.variant))
        if fresh is None:
            assert first is None and again is None
            continue
        assert first is not None and again is not None
        assert (again.actions, again.bonus) == (first.actions, first.bonus) == (fresh.actions, fresh.bonus)
        assert again.state is not first.state  # replayed on its own table
        recalled += context.nodes == nodes
    assert recalled > 0  # a table asked again, with a line to find, was answered from memory


def test_a_search_the_engine_would_judge_otherwise_is_walked_again() -> None:
    table = next(t for t in play_steps("brasil", 1) if best_canasta_line(Start.after(t), None, -1, SearchContext(t.variant)) is not None)
    context = SearchContext(table.variant)
    found = best_canasta_line(Start.after(table), None, -1, context)
    assert found is not None
    # Tamper with what was remembered: the engine's verdict on the line kept now differs.
    [(key, remembered)] = context.canasta_lines.items()
    offers = tuple((line, None) for line, _ in remembered.offers)
    context.canasta_lines[key] = search._RememberedLines(offers, -1)
    assert search._recall_lines(Start.after(table), None, -1, context.canasta_lines[key]) is None
    nodes = context.nodes
    again = best_canasta_line(Start.after(table), None, -1, context)
    assert context.nodes > nodes  # searched, not recalled
    assert again is not None and (again.actions, again.bonus) == (found.actions, found.bonus)

"""The move generator (buraco/moves.py): what it yields is legal, what was legally
played is among what it yields, and looking ahead on a copy leaves the table alone."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from buraco.actions import ADD, MELD
from buraco.moves import candidate_lay_offs, counts_of, lay_off_plays, legal_plays, meld_plays
from buraco.notation import Record
from buraco.replay import deal_hand
from buraco.selfplay import play_match
from buraco.state import LaidOff, Melded

from .helpers import V, act, cards, deal, meld_shape, play
from .records import EVERY_PAIR, per_pair

SETTINGS = per_pair(25)


def _played(record: Record) -> list[tuple[object, object]]:
    """(state before, action) for every meld and lay-off of the record's first hand."""
    state = deal_hand(record, 0)
    pairs = []
    for action in record.hands[0].parsed:
        if action.verb in (MELD, ADD):
            pairs.append((state.copy(), action))
        state.apply(action)
    return pairs


@EVERY_PAIR
@SETTINGS
@given(seed=st.integers(0, 5000))
def test_every_meld_and_lay_off_played_is_among_the_generated_plays(case: tuple[str, int], seed: int) -> None:
    variant, players = case
    record = play_match(variant, players=players, hands=1, seed=seed)
    for before, action in _played(record):
        operation = before.copy().apply(action)
        assert isinstance(operation, (Melded, LaidOff))
        plays = meld_plays(before) if action.verb == MELD else lay_off_plays(before, melds=[action.meld])
        laid = Counter(t.card for t in action.tokens)
        matching = [p for p in plays if p.shape == operation.shape and (action.verb == ADD or Counter(p.cards) == laid)]
        assert matching, f"{action.text} is missing from the generated plays"


@EVERY_PAIR
@SETTINGS
@given(seed=st.integers(0, 5000), pick=st.integers(0, 10_000))
def test_every_generated_play_is_legal_and_working_on_a_copy_leaves_the_original_alone(
    case: tuple[str, int], seed: int, pick: int
) -> None:
    variant, players = case
    record = play_match(variant, players=players, hands=1, seed=seed)
    state = deal_hand(record, 0)
    actions = record.hands[0].parsed
    for action in actions[: pick % len(actions)]:
        state.apply(action)
    assume(not state.is_over)  # counted: hypothesis fails the pair if no drawn case is left
    snapshot = (state.to_json(), [list(h) for h in state.hands], list(state.operations), state.obligation)
    for generated in list(legal_plays(state))[:40]:
        trial = state.copy()
        trial.apply(generated)  # legal: apply raises otherwise
        assert trial.ply == state.ply + 1
    assert (state.to_json(), [list(h) for h in state.hands], list(state.operations), state.obligation) == snapshot


def test_a_meld_is_offered_in_every_window_the_hand_fills() -> None:
    state = deal("cerrado", ["5h 6h 7h 8h JK"], stock="Kc")
    act(state, "p1 draw")
    texts = {p.action.text for p in meld_plays(state, substitutes=False)}
    assert {"p1 meld 5h 6h 7h", "p1 meld 6h 7h 8h", "p1 meld 5h 6h 7h 8h"} <= texts
    assert "p1 meld 5h 6h 7h 8h JK=9h" in texts and "p1 meld JK=4h 5h 6h 7h 8h" in texts


def test_lay_offs_offer_each_end_for_a_displaced_wild_where_the_rule_set_leaves_the_choice() -> None:
    """fechado-stbl (`either-end`): J-2-K + Q moves the 2 low or high."""
    shape = meld_shape("fechado-stbl", "Jh 2c Kh")
    options = {" ".join(map(str, t)) for t in candidate_lay_offs(V("fechado-stbl"), shape, counts_of(cards("Qh")))}
    assert {"Qh", "Qh 2c>low", "Qh 2c>high"} <= options


def test_lay_offs_fill_a_gap_with_the_displaced_wild() -> None:
    """m1 `7c 2h=8c 9c`, 8c and Jc in hand: `add m1 8c Jc` moves the 2h to Tc."""
    state = deal("cerrado", ["7c 2h 9c 8c Jc"], stock="Kd")
    play(state, "p1 draw", "p1 meld 7c 2h 9c")
    shapes = {p.shape.text(): sorted(map(str, p.cards)) for p in lay_off_plays(state)}
    assert shapes.get("7c 8c 9c 2h Jc") == ["8c", "Jc"]


def test_no_play_holds_a_card_of_another_suit_or_rank() -> None:
    state = deal("cerrado-stcl", ["3h 4h 5h 9c Kd"], stock="Ks")
    act(state, "p1 draw")
    melds = list(meld_plays(state, containing=cards("9c")[0]))
    assert melds == []
    assert [p.action.text for p in meld_plays(state, containing=cards("4h")[0], substitutes=False)] == ["p1 meld 3h 4h 5h"]


@pytest.mark.parametrize("variant_id", ["cerrado", "brasil"])
def test_sets_are_offered_with_and_without_a_wild(variant_id: str) -> None:
    state = deal(variant_id, ["7c 7d 7h JK"], stock="Ks")
    act(state, "p1 draw")
    texts = {p.action.text for p in meld_plays(state, containing=cards("7c")[0])}
    assert "p1 meld 7c 7d 7h" in texts and "p1 meld 7c 7d JK" in texts

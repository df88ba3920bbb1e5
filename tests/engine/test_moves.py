"""The move generator (buraco/moves.py): what it yields is legal, what was legally
played is among what it yields, and looking ahead on a copy leaves the table alone."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from buraco.actions import ADD, MELD
from buraco.cards import Card
from buraco.errors import IllegalActionError
from buraco.moves import candidate_lay_offs, counts_of, lay_off_plays, legal_plays, meld_plays, plays_using
from buraco.notation import Record
from buraco.replay import deal_hand
from buraco.selfplay import play_match
from buraco.state import HandState, LaidOff, Melded

from .helpers import V, act, build, cards, deal, meld_shape, play
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


def test_a_copy_and_its_table_count_the_cards_they_draw_apart_where_the_stock_is_unrecorded() -> None:
    """A copy shares what has been seen only where no card is hidden (HandState.copy): with
    an unrecorded stock, each draw names a card that one table sees and the other does not."""
    deal_ = build("cerrado", ["5h 6h 7h", ""])
    state = HandState.deal(deal_.variant, 2, deal_.dealer, deal_.dealt, deal_.dead, deal_.discard, None)
    assert state.hidden
    seen = list(state.seen)
    trial = state.copy(log=False)
    ks = Card.parse("Ks")
    act(trial, "p1 draw Ks")
    assert state.seen == seen and trial.seen[ks] == seen[ks] + 1
    act(state, "p1 draw Ks")
    act(state, "p1 discard Ks")
    act(state, "p2 draw Ks")
    assert trial.seen[ks] == seen[ks] + 1 and state.seen[ks] == seen[ks] + 2
    recorded = deal_.state()
    assert not recorded.hidden and recorded.copy().seen is recorded.seen  # nothing a draw could change


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


# --- held gaps and the take-time check ----------------------------------------------------

_PLACE_NAMES = {1: "A", 10: "T", 11: "J", 12: "Q", 13: "K", 14: "A"}


def _heart(place: int) -> str:
    return _PLACE_NAMES.get(place, str(place)) + "h"


def _taken_with_a_wild_run(variant_id: str, rng: random.Random, dig: bool) -> tuple[HandState, int, Card] | None:
    """p2 has laid a hearts run holding a wild, holds hearts around it, and is to draw
    facing a heart or a 2 (``dig``: cerrado under ``dig``, that card at the pile's bottom).
    The table, the count to take and the card the take must use; None for a deal the
    builder or the rules refuse."""
    length = rng.randint(3, 12)
    low = rng.randint(1, 15 - length)
    high = low + length - 1
    wild_at = rng.randint(low, high)
    wild = rng.choice(["2d", "JK", "2h", "2c"])
    tokens = [f"{wild}={_heart(p)}" if p == wild_at else _heart(p) + (">low" if p == 1 else "") for p in range(low, high + 1)]
    outside = [p for p in range(1, 15) if not low <= p <= high]
    held = [_heart(p) for p in outside if rng.random() < 0.45]
    if rng.random() < 0.7:
        held.append(_heart(wild_at))  # the card displacing the wild
    top = rng.choice([*map(_heart, outside), _heart(wild_at), "2h"])
    p2 = [t.split("=")[0].split(">")[0] for t in tokens] + held
    if len(p2) >= V(variant_id).hand_size:
        return None
    try:
        deal_ = build(variant_id, [top, " ".join(p2)], stock="Ks Qd Kd")
        variant = V(variant_id).override(pickup="dig") if dig else V(variant_id)
        state = HandState.deal(variant, 2, deal_.dealer, deal_.dealt, deal_.dead, deal_.discard, deal_.stock)
        first, last = ("p1 discard " + top, "p1 discard Kd") if dig else ("p1 discard Ks", "p1 discard " + top)
        play(state, "p1 draw", first, "p2 draw", "p2 meld " + " ".join(tokens), "p2 discard Qd", "p1 draw", last)
    except (ValueError, IllegalActionError):
        return None
    count = len(state.discard_pile) if dig else 0
    return state, count, cards(top)[0]


@pytest.mark.parametrize("dig", [False, True], ids=["use-top", "dig"])
def test_held_gaps_never_decide_whether_a_taken_card_can_be_used(dig: bool) -> None:
    """The bots read plays without ``held_gaps``, and so never see a lay-off leaving a gap
    at a place whose natural the hand holds, for the run's own wild; the take-time check
    (rules.md 4, ``use-top`` and ``dig``) sees them. Neither verdict needs them: whenever
    such a lay-off uses the taken card, so does the same lay-off with the held natural
    filling the gap and the wild staying put, or (the taken card being the one displacing
    the wild) that card alone, the wild going to an end (buraco/moves.py says why). On
    random tables with a wild in a run and hearts around it: held gaps often add plays
    using the taken card, never the first one, and the engine's take agrees with both."""
    rng = random.Random(20240 + dig)
    variant_ids = ("cerrado",) if dig else ("cerrado", "cerrado-stcl", "cerrado-sucio", "burraco", "fechado-stbl")
    tables = more_plays = 0
    while tables < 400:
        built = _taken_with_a_wild_run(rng.choice(variant_ids), rng, dig)
        if built is None:
            continue
        state, count, card = built
        tables += 1
        trial = state.copy()
        trial._take(2, count)  # as the take-time check does, whether or not the take is legal
        plain = {p.action.text for p in plays_using(trial, card)}
        complete = {p.action.text for p in plays_using(trial, card, held_gaps=True)}
        assert plain <= complete
        assert bool(plain) == bool(complete), (state.melds[0].shape.text(), sorted(map(str, trial.hand_of(2))), card)
        assert state.can_take(2, count) == bool(complete)
        more_plays += plain != complete
    assert more_plays >= 20  # the held gaps were there to find

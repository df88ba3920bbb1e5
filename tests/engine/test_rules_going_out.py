"""rules.md section 2 "Going out" and "End of a hand", the empty-hand rule of
section 1 and the going-out fine points of section 4."""

from __future__ import annotations

import pytest

from buraco.errors import IllegalActionError
from buraco.state import DEAD_DIRECT_STEP, DEAD_INDIRECT_STEP, OUT, STOCK

from .helpers import ALL_IDS, WITH_DEAD, V, act, build, burn_stock, empty_by_discard, pass_turn, play

NEEDS_CLEAN = {
    "abierto": True,
    "abierto-sucio": False,
    "cerrado": True,
    "cerrado-stcl": True,
    "cerrado-sucio": False,
    "burraco": False,
    "fechado-stbl": True,
    "brasil": True,
    "burraco-106": False,
}
BY_MELD = {v: v not in ("abierto-sucio", "brasil", "burraco-106") for v in ALL_IDS}

PILE_1 = "3d 4d 5d 6d 7d 9c Tc Jc Jh Qh Kh"
PILE_1_MELDS = ["3d 4d 5d 6d 7d", "9c Tc Jc", "Jh Qh Kh"]
PILE_1_MELDS_WITH_8D = ["3d 4d 5d 6d 7d 8d", "9c Tc Jc", "Jh Qh Kh"]
CLEAN_CANASTA = "3c 4c 5c 6c 7c 8c 9c"


def dirty_canasta(variant_id: str) -> str:
    return "3c 4c 5c 6c 7c 8c " + ("2d" if variant_id == "abierto" else "JK")


def first_melds(variant_id: str, canasta: str) -> list[str]:
    """p1's dealt hand: a canasta plus runs, melded out on p1's first turn."""
    if V(variant_id).hand_size == 13:
        return [canasta, "9d Td Jd", "5s 6s 7s"]
    return [canasta, "9d Td Jd Qd"]


def after_dead(variant_id: str, *, dirty: bool = False, players: int = 2):  # noqa: ANN201
    """p1 melds out a canasta and more, discards the last card and takes dead pile 1;
    the others pass. p1 is to draw 8d, holding the pile: 3d..7d, 9c Tc Jc, Jh Qh Kh."""
    canasta = dirty_canasta(variant_id) if dirty else CLEAN_CANASTA
    melds = first_melds(variant_id, canasta)
    deal = build(variant_id, [" ".join(melds)] + [""] * (players - 1), dead=[PILE_1],
                 stock="Kc " + "Qs " * (players - 1) + "8d Ks")
    state = deal.state()
    empty_by_discard(state, 1, melds)
    assert state.step == DEAD_INDIRECT_STEP  # a canasta, but no dead pile yet: no going out
    act(state, "p1 dead")
    for _ in range(players - 1):
        pass_turn(state)
    assert state.turn == 1 and state.stock[-1] == state.stock[-1].parse("8d")
    return state


def go_out_by_discard(state) -> None:  # noqa: ANN001
    act(state, "p1 draw")
    for meld in PILE_1_MELDS:
        act(state, f"p1 meld {meld}")
    act(state, "p1 discard 8d")


def go_out_by_meld(state) -> None:  # noqa: ANN001
    act(state, "p1 draw")
    for meld in PILE_1_MELDS_WITH_8D:
        act(state, f"p1 meld {meld}")


# --- conditions per rule set -----------------------------------------------------------


@pytest.mark.parametrize("variant_id", WITH_DEAD)
def test_going_out_needs_the_dead_pile_taken(variant_id: str) -> None:
    # after_dead asserts that emptying the hand with a clean canasta but no dead
    # pile taken led to the dead pile, not out of the hand
    state = after_dead(variant_id)
    assert not state.is_over and state.dead_taken[0]


@pytest.mark.parametrize("variant_id", WITH_DEAD)
def test_going_out_by_discard_with_a_clean_canasta(variant_id: str) -> None:
    state = after_dead(variant_id)
    go_out_by_discard(state)
    assert state.is_over and state.ended_by == OUT and state.out_by == 1


@pytest.mark.parametrize("variant_id", WITH_DEAD)
def test_going_out_with_a_dirty_canasta_per_rule_set(variant_id: str) -> None:
    state = after_dead(variant_id, dirty=True)
    assert state.melds[0].kind(state.variant) == "dirty"
    if NEEDS_CLEAN[variant_id]:
        with pytest.raises(IllegalActionError, match="cannot discard the last card"):
            go_out_by_discard(state)
    else:
        go_out_by_discard(state)
        assert state.is_over and state.ended_by == OUT


@pytest.mark.parametrize("variant_id", WITH_DEAD)
def test_going_out_by_melding_the_last_card_per_rule_set(variant_id: str) -> None:
    state = after_dead(variant_id)
    if BY_MELD[variant_id]:
        go_out_by_meld(state)
        assert state.is_over and state.ended_by == OUT and state.out_by == 1
        assert state.hand_sizes[1] == 0
    else:
        with pytest.raises(IllegalActionError, match="goes out by discarding"):
            go_out_by_meld(state)


@pytest.mark.parametrize("variant_id", [v for v in WITH_DEAD if BY_MELD[v]])
def test_laying_off_the_last_card_counts_as_melding_it_for_going_out(variant_id: str) -> None:
    state = after_dead(variant_id)
    act(state, "p1 draw")
    for meld in PILE_1_MELDS:
        act(state, f"p1 meld {meld}")
    run = next(m.number for m in state.melds if m.shape.text() == "3d 4d 5d 6d 7d")
    act(state, f"p1 add m{run} 8d")
    assert state.is_over and state.ended_by == OUT


def test_abierto_sucio_goes_out_by_discard_only() -> None:
    state = after_dead("abierto-sucio", dirty=True)
    with pytest.raises(IllegalActionError, match="goes out by discarding"):
        go_out_by_meld(state)


def test_burraco_106_goes_out_by_discard_only_with_any_burraco() -> None:
    state = after_dead("burraco-106", dirty=True)
    with pytest.raises(IllegalActionError, match="goes out by discarding"):
        go_out_by_meld(state)
    state = after_dead("burraco-106", dirty=True)
    go_out_by_discard(state)
    assert state.ended_by == OUT


def test_burraco_goes_out_with_any_burraco_by_meld() -> None:
    state = after_dead("burraco", dirty=True)
    go_out_by_meld(state)
    assert state.ended_by == OUT


@pytest.mark.parametrize("variant_id", [v for v in WITH_DEAD if 4 in V(v).player_counts])
def test_dead_pile_taken_for_going_out_is_per_side(variant_id: str) -> None:
    """p3 takes the side's dead pile; p1 then goes out with a clean canasta."""
    size = V(variant_id).hand_size
    p3 = ["3h 4h 5h 6h 7h", "9s Ts Js", "5d 6d 7d"] if size == 11 else ["3h 4h 5h 6h 7h", "9s Ts Js Qs", "5d 6d 7d 8d"]
    melds = first_melds(variant_id, CLEAN_CANASTA)
    state = build(variant_id, [" ".join(melds), "", " ".join(p3), ""], stock="Kc Kc Ah Ah Ad Ad").state()
    pass_turn(state)  # p1
    pass_turn(state)  # p2
    empty_by_discard(state, 3, p3)
    act(state, "p3 dead")
    pass_turn(state)  # p4
    empty_by_discard(state, 1, melds)
    assert state.is_over and state.ended_by == OUT and state.out_by == 1


def test_dead_pile_taken_is_waived_when_no_dead_pile_is_left() -> None:
    """cerrado: the dead piles went into the stock; p2 goes out with a clean canasta
    though p2's side never took a dead pile."""
    p2 = ["3h 4h 5h 6h 7h 8h 9h", "9s Ts Js Qs"]
    state = build("cerrado", ["", " ".join(p2)]).state()
    burn_stock(state)
    assert state.dead == [] and state.stock_count == 22
    if state.turn == 1:
        pass_turn(state)
    empty_by_discard(state, 2, p2)
    assert state.is_over and state.ended_by == OUT and state.out_by == 2


# --- brasil --------------------------------------------------------------------------------


def test_brasil_goes_out_by_discard_with_a_clean_canasta() -> None:
    melds = [CLEAN_CANASTA, "9d Td Jd Qd"]
    state = build("brasil", [" ".join(melds), ""], stock="Kc").state()
    empty_by_discard(state, 1, melds)
    assert state.is_over and state.ended_by == OUT and state.out_by == 1


def test_brasil_dirty_canasta_does_not_allow_going_out() -> None:
    melds = [dirty_canasta("brasil"), "9d Td Jd Qd"]
    state = build("brasil", [" ".join(melds), ""], stock="Kc").state()
    with pytest.raises(IllegalActionError, match="cannot discard the last card"):
        empty_by_discard(state, 1, melds)


def test_brasil_never_goes_out_by_melding_the_last_card() -> None:
    state = build("brasil", [CLEAN_CANASTA + " 9d Td Jd Qd", ""], stock="Kd").state()
    act(state, "p1 draw")
    act(state, f"p1 meld {CLEAN_CANASTA}")
    with pytest.raises(IllegalActionError):
        act(state, "p1 meld 9d Td Jd Qd Kd")


def test_brasil_going_out_needs_a_canasta_of_ones_own() -> None:
    """p1 turns p2's six-card run into a canasta; it is p2's, so p1 may not go out on it."""
    p1 = "9d Td Jd Qd 5s 6s 7s 3c 4c 5c 9h"
    state = build("brasil", [p1, "3h 4h 5h 6h 7h 8h"], stock="Kc Kc Ks").state()
    pass_turn(state)  # p1
    play(state, "p2 draw", "p2 meld 3h 4h 5h 6h 7h 8h", "p2 discard Kc")
    play(state, "p1 draw", "p1 meld 9d Td Jd Qd", "p1 meld 5s 6s 7s", "p1 meld 3c 4c 5c", "p1 add m1 9h")
    assert state.melds[0].kind(state.variant) == "clean" and state.melds[0].owner == 2
    with pytest.raises(IllegalActionError, match="cannot discard the last card"):
        act(state, "p1 discard Ks")


# --- the empty hand; going out is not optional ----------------------------------------------


@pytest.mark.parametrize("variant_id", ALL_IDS)
def test_emptying_the_hand_when_neither_going_out_nor_dead_pile_is_allowed_is_illegal(variant_id: str) -> None:
    """No canasta on the table, and no dead pile to take (brasil) or the side has taken it."""
    size = V(variant_id).hand_size
    melds = ["3c 4c 5c 6c 7c 8c", "9d Td Jd Qd Kd"] if size == 11 else ["3c 4c 5c 6c 7c", "9d Td Jd Qd", "5s 6s 7s 8s"]
    if variant_id == "brasil":
        state = build("brasil", [" ".join(melds), ""], stock="Kc").state()
        with pytest.raises(IllegalActionError, match="cannot discard the last card"):
            empty_by_discard(state, 1, melds)
        return
    state = build(variant_id, [" ".join(melds), ""], dead=[PILE_1], stock="Kc Qs 8d").state()
    empty_by_discard(state, 1, melds)
    act(state, "p1 dead")
    pass_turn(state)
    act(state, "p1 draw")
    for meld in PILE_1_MELDS:
        act(state, f"p1 meld {meld}")
    with pytest.raises(IllegalActionError, match="cannot discard the last card"):
        act(state, "p1 discard 8d")
    run = next(m.number for m in state.melds if m.shape.text() == "3d 4d 5d 6d 7d")
    with pytest.raises(IllegalActionError, match="cannot play the last card"):
        act(state, f"p1 add m{run} 8d")


@pytest.mark.parametrize("variant_id", WITH_DEAD)
def test_going_out_is_not_optional_the_hand_is_over(variant_id: str) -> None:
    state = after_dead(variant_id)
    go_out_by_discard(state)
    assert state.is_over
    with pytest.raises(IllegalActionError, match="hand is over"):
        act(state, "p1 dead")
    with pytest.raises(IllegalActionError, match="hand is over"):
        act(state, "p2 draw")


@pytest.mark.parametrize("variant_id", [v for v in WITH_DEAD if BY_MELD[v]])
def test_going_out_by_meld_needs_no_discard(variant_id: str) -> None:
    state = after_dead(variant_id)
    go_out_by_meld(state)
    with pytest.raises(IllegalActionError, match="hand is over"):
        act(state, "p1 discard 8d")
    assert state.is_over and state.step == "over"


def test_direct_pick_up_is_not_going_out_even_with_a_clean_canasta() -> None:
    """cerrado: p1 melds out everything including a clean canasta with no dead pile
    taken: that is a direct pick-up, and the turn goes on."""
    melds = [CLEAN_CANASTA, "9d Td Jd Qd"]
    state = build("cerrado", [" ".join(melds), ""], stock="Kd").state()
    act(state, "p1 draw")
    act(state, f"p1 meld {melds[0]}")
    act(state, "p1 meld 9d Td Jd Qd Kd")
    assert state.step == DEAD_DIRECT_STEP and not state.is_over


# --- end of a hand by the stock --------------------------------------------------------------


def test_hand_ends_when_the_player_to_draw_finds_the_stock_empty_and_cannot_take() -> None:
    """burraco (dead piles stay out of the stock): p1 draws the last card and
    discards 9h, which p2 cannot use: the hand is over, with no going-out bonus."""
    p2 = "3c 6c Qc 4d 7d Td 5s 8s Js As Kd Ks 3s"  # no heart, no 9: nothing for 9h
    state = build("burraco", ["9h", p2]).state()
    while state.stock_count > 1:
        pass_turn(state)
    assert state.turn == 1
    play(state, "p1 draw", "p1 discard 9h")
    assert state.is_over and state.ended_by == STOCK and state.out_by == 0
    assert not state.dead_taken[0] and len(state.dead) == 2


@pytest.mark.parametrize("variant_id", ("abierto", "abierto-sucio", "burraco-106"))
def test_open_pile_may_still_be_taken_when_the_stock_is_empty(variant_id: str) -> None:
    state = build(variant_id, [[], []]).state()
    burn_stock(state, through_dead=True)
    assert state.stock_count == 0 and not state.is_over
    seat = state.turn
    act(state, f"p{seat} take")
    assert state.discard_pile == []
    act(state, f"p{seat} discard {state.hand_of(seat)[0]}")
    with pytest.raises(IllegalActionError, match="stock is empty"):
        act(state, f"p{state.turn} draw")

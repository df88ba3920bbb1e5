"""rules.md 4, `use-top` as sharpened: a 2 used as a wild is not a use of the top card,
and the take-time check counts every legal lay-off (wilds displaced, 2s going home,
bridges through pile cards). notation.md: a draw names its card once the dead piles
have moved into an unrecorded stock."""

from __future__ import annotations

import pytest

from buraco.cards import Card
from buraco.errors import IllegalActionError
from buraco.replay import verify
from buraco.rules import VARIANTS
from buraco.state import DeadToStock, Discarded, Drew, HandEnded, HandState

from .helpers import act, actions_of, build, burn_stock, deal, load_record, play
from .test_rules_going_out import after_dead, go_out_by_discard, go_out_by_meld
from .test_rules_pickup import USE_TOP, facing, inert, size


@pytest.mark.parametrize("variant_id", USE_TOP)
def test_use_top_two_laid_off_on_a_run_holding_its_natural_two_is_a_wild_and_not_a_use(variant_id: str) -> None:
    """`meld 2h 3h 4h`, later 2h on top: `add m1 2h` lays it as a wild, so the take is
    illegal when nothing else could use the 2h."""
    state = facing(variant_id, "2h", "", p2_meld="2h 3h 4h")
    assert state.melds[0].shape.text() == "2h 3h 4h"
    with pytest.raises(IllegalActionError, match="top card 2h"):
        act(state, "p2 take")


@pytest.mark.parametrize("variant_id", USE_TOP)
def test_use_top_two_laid_off_as_a_wild_beside_its_natural_two_leaves_the_turn_unable_to_end(variant_id: str) -> None:
    """The take is legal (7c 8c could hold the 2h as a wild), but `add m1 2h` on the run
    that holds its natural 2 does not use the top card."""
    state = facing(variant_id, "2h", "7c 8c", p2_meld="2h 3h 4h")
    act(state, "p2 take")
    act(state, "p2 add m1 2h")
    with pytest.raises(IllegalActionError, match="must meld 2h"):
        act(state, "p2 discard Kh")


@pytest.mark.parametrize("variant_id", USE_TOP)
def test_use_top_take_counts_a_lay_off_whose_other_card_displaces_the_wild(variant_id: str) -> None:
    """m1 `7c 2h=8c 9c`, Jc on top, 8c in hand: `add m1 8c Jc` moves the 2h to Tc and
    lays the Jc above it, so the take is legal."""
    n = size(variant_id)
    p2 = " ".join(["7c", "2h", "9c", "8c", *"3d 6d Qd 4s 7s Ts 5d Kd Ks 3s As".split()][:n])
    state = build(variant_id, [inert(n, keep="Jc Qh"), p2], stock="Kh Jh Kh Jh").state()
    play(state, "p1 draw", "p1 discard Kh", "p2 draw", "p2 meld 7c 2h 9c", "p2 discard Jh", "p1 draw", "p1 discard Jc")
    act(state, "p2 take")
    act(state, "p2 add m1 8c Jc")
    assert state.melds[0].shape.text() == "7c 8c 9c 2h Jc"
    act(state, "p2 discard Kh")


@pytest.mark.parametrize("variant_id", USE_TOP)
def test_use_top_take_counts_a_lay_off_sending_the_displaced_two_to_its_own_place(variant_id: str) -> None:
    """m1 `3c 2c=4c 5c`, Ac on top, 4c in hand: `add m1 4c Ac` sends the 2c home, the
    ace below it: Ac 2c 3c 4c 5c, clean."""
    n = size(variant_id)
    p2 = " ".join(["3c", "2c", "5c", "4c", *"9d 6d Qd Js 7s Ts 5d Kd Ks 8s Qs".split()][:n])
    state = build(variant_id, [inert(n, keep="Ac Qh"), p2], stock="Kh Jh Kh Jh").state()
    play(state, "p1 draw", "p1 discard Kh", "p2 draw", "p2 meld 3c 2c=4c 5c", "p2 discard Jh", "p1 draw",
         "p1 discard Ac")
    act(state, "p2 take")
    act(state, "p2 add m1 4c Ac")
    assert state.melds[0].shape.text() == "Ac 2c 3c 4c 5c" and state.melds[0].shape.wild_index < 0
    act(state, "p2 discard Kh")


@pytest.mark.parametrize("variant_id", USE_TOP)
def test_use_top_take_counts_a_lay_off_bridged_by_a_card_of_the_pile(variant_id: str) -> None:
    """m1 `7c 8c 9c`; the pile holds Tc below the top Jc: `add m1 Tc Jc` uses the top card."""
    n = size(variant_id)
    p2 = " ".join(["7c", "8c", "9c", *"3d 6d Qd 4s 7s Ts 5d Kd Ks 3s As".split()][: n])
    state = build(variant_id, [inert(n, keep="Tc Jc Qh"), p2], stock="Kh Jh 5h").state()
    play(state, "p1 draw", "p1 discard Tc", "p2 draw", "p2 meld 7c 8c 9c", "p2 discard Jh", "p1 draw",
         "p1 discard Jc")
    assert [str(c) for c in state.discard_pile[-3:]] == ["Tc", "Jh", "Jc"]
    act(state, "p2 take")
    act(state, "p2 add m1 Tc Jc")
    act(state, "p2 discard Jh")


def test_draw_names_its_card_after_the_dead_piles_moved_into_an_unrecorded_stock() -> None:
    """Without `stock` a draw names its card; once the dead piles are the stock their
    order is known, and an unnamed draw is still illegal."""
    deal_ = build("cerrado", ["", ""], stock="")
    state = deal_.state()
    burn_stock(state)
    assert not state.dead and state.stock_count == 22
    unrecorded = type(state).deal(deal_.variant, 2, deal_.dealer, deal_.dealt, deal_.dead, deal_.discard, None)
    # Replay the same burnt turns, naming each drawn card, on a table that has no recorded stock.
    for operation in state.operations:
        if isinstance(operation, DeadToStock):
            break
        assert isinstance(operation, (Drew, Discarded))
        verb = "draw" if isinstance(operation, Drew) else "discard"
        act(unrecorded, f"p{operation.seat} {verb} {operation.card}")
    assert not unrecorded.dead and unrecorded.stock_count == 22
    top = str(unrecorded.stock[-1])
    with pytest.raises(IllegalActionError, match="must name the card drawn"):
        act(unrecorded, f"p{unrecorded.turn} draw")
    with pytest.raises(IllegalActionError, match=f"top card of the stock is {top}"):
        act(unrecorded, f"p{unrecorded.turn} draw {'Kc' if top != 'Kc' else 'Qc'}")
    act(unrecorded, f"p{unrecorded.turn} draw {top}")


def test_dead_piles_moving_into_the_stock_is_an_operation_in_the_log() -> None:
    state = deal("cerrado", ["", ""])
    burn_stock(state)
    moved = [op for op in state.operations if isinstance(op, DeadToStock)]
    assert len(moved) == 1 and moved[0].piles == 2 and len(moved[0].cards) == 22
    assert state.operations[-1] == moved[0]  # it follows the discard that emptied the stock
    assert state.ply == len(state.operations) - 1  # automatic steps take no ply


@pytest.mark.parametrize("by_meld", [False, True])
def test_going_out_is_an_operation_naming_who_went_out(by_meld: bool) -> None:
    state = after_dead("cerrado")
    (go_out_by_meld if by_meld else go_out_by_discard)(state)
    assert state.is_over
    assert state.operations[-1] == HandEnded("out", 1)
    assert type(state.operations[-2]).__name__ == ("Melded" if by_meld else "Discarded")


def test_a_hand_ended_by_the_stock_logs_how_it_ended() -> None:
    state = deal("burraco", ["", ""])
    burn_stock(state, through_dead=True)
    state.finish_by_stock()
    assert state.is_over
    assert state.operations[-1] == HandEnded("stock", 0)


def going_out_turn_after_a_take() -> HandState:
    """cerrado: p1 has laid 3c..9c (clean) and 6h 7h 8h 9h, picked up the dead pile, laid
    3d..8d and Ks Kd Kh from it, and holds Th Jh; p2 has thrown 9s, 9c and 9h. p1 takes
    the pile (Kc 9s 9d 9c Kh 9h): the 9h on top can go into 9h Th Jh, with the two cards
    held before the pick-up."""
    state = build(
        "cerrado", ["3c 4c 5c 6c 7c 8c 9c 6h 7h 8h 9h", "9s 9c 9h"],
        dead=["Th Jh 3d 4d 5d 6d 7d 8d Ks Kd Kh"], stock="Kc Qc 9d Jd Kh Ts",
    ).state()
    play(state, "p1 draw", "p1 meld 3c 4c 5c 6c 7c 8c 9c", "p1 meld 6h 7h 8h 9h", "p1 discard Kc", "p1 dead",
         "p2 draw", "p2 discard 9s",
         "p1 draw", "p1 meld 3d 4d 5d 6d 7d 8d", "p1 meld Ks Kd Kh", "p1 discard 9d",
         "p2 draw", "p2 discard 9c",
         "p1 draw", "p1 discard Kh",
         "p2 draw", "p2 discard 9h",
         "p1 take")
    return state


def test_going_out_by_a_lay_off_onto_a_meld_holding_a_card_like_the_top_one_does_not_meet_the_take() -> None:
    """The 9h goes into 9h 9s 9c, made only of the pile's cards, so the take is not yet used;
    the last play lays Th Jh on 6h 7h 8h 9h, a meld already holding a 9h (the other one).
    That lay-off does not meld the taken card: going out there is illegal."""
    state = going_out_turn_after_a_take()
    play(state, "p1 meld 9s 9c 9h", "p1 add m4 Kc Kh", "p1 add m3 9d")
    with pytest.raises(IllegalActionError, match="must meld its card 9h"):
        act(state, "p1 add m2 Th Jh")


def test_the_top_card_melded_with_two_held_cards_meets_the_take() -> None:
    state = going_out_turn_after_a_take()
    play(state, "p1 meld 9h Th Jh")
    assert state.obligation is None
    play(state, "p1 add m4 Kc Kh", "p1 add m3 9d", "p1 discard 9s")
    assert not state.is_over and state.turn == 2


# --- a lay-off leaving a gap at a card still held, for the run's own wild ------------------

# Filler for p2's hand that melds nothing with the clubs run or the 8c.
GAP_FILLER = "3d 6d Qd 4s 7s Ts 5d Kd Ks 3s As".split()


def gap_hand(variant_id: str, other: str) -> str:
    """The run 4c 5c 2d=6c 7c, the 8c, ``other`` (6c or 9c) and filler."""
    return " ".join(["4c", "5c", "2d", "7c", "8c", other, *GAP_FILLER][: size(variant_id)])


@pytest.mark.parametrize("top, other", [("9c", "6c"), ("6c", "9c")])
@pytest.mark.parametrize("variant_id", USE_TOP)
def test_use_top_take_used_by_a_lay_off_leaving_the_gap_of_a_held_card_to_the_wild(
    variant_id: str, top: str, other: str
) -> None:
    """m1 `4c 5c 2d=6c 7c`, the 8c held: `add m1 6c 9c` displaces the 2d into the 8's
    place, the 8c kept back (rules.md 2, a lay-off leaving a gap is filled by its wild;
    rules.md 4, the take counts every legal lay-off), whether the 9c or the 6c is the top
    card. The take and that lay-off are legal, at the table and in a record. (`add m1 8c
    9c`, or the 6c alone sending the 2d up, would use the top card too, so a take-time
    check blind to such gaps allows the take as well: see buraco/moves.py.)"""
    n = size(variant_id)
    deal_ = build(variant_id, [inert(n, keep=f"{top} Qh"), gap_hand(variant_id, other)], stock="Kh Jh Kh Jh")
    state = deal_.state()
    play(state, "p1 draw", "p1 discard Kh", "p2 draw", "p2 meld 4c 5c 2d=6c 7c", "p2 discard Jh", "p1 draw",
         f"p1 discard {top}")
    act(state, "p2 take")
    act(state, "p2 add m1 6c 9c")
    assert state.melds[0].shape.text() == "4c 5c 6c 7c 2d 9c"
    assert state.obligation is None and state.hands[2][Card.parse("8c")] == 1
    act(state, "p2 discard Kh")
    report = verify(load_record(variant_id, 2, [deal_.hand_table(actions_of(state))]))
    hand = report.hands[0]
    assert hand.valid and hand.error is None and not hand.finished


def test_dig_take_used_by_a_lay_off_leaving_the_gap_of_a_held_card_to_the_wild() -> None:
    """The same lay-off meeting a `dig` take's obligation, under a house rule: brasil, the
    one `dig` set, keeps its wilds fixed (nothing may displace the 2d), so here cerrado's
    wilds with `dig`. p2 reaches the 9c at the bottom of the pile (`take 3`) and lays it
    off as `add m1 6c 9c`, keeping the 8c."""
    variant = VARIANTS["cerrado"].override(pickup="dig")
    deal_ = build("cerrado", [inert(11, keep="9c Qh"), gap_hand("cerrado", "6c")], stock="Kh Jh Kh Jh")
    state = HandState.deal(variant, 2, deal_.dealer, deal_.dealt, deal_.dead, deal_.discard, deal_.stock)
    play(state, "p1 draw", "p1 discard 9c", "p2 draw", "p2 meld 4c 5c 2d=6c 7c", "p2 discard Jh", "p1 draw",
         "p1 discard Kh")
    assert [str(c) for c in state.discard_pile] == ["9c", "Jh", "Kh"]
    act(state, "p2 take 3")
    assert state.obligation is not None and str(state.obligation.card) == "9c"
    act(state, "p2 add m1 6c 9c")
    assert state.melds[0].shape.text() == "4c 5c 6c 7c 2d 9c"
    assert state.obligation is None and state.hands[2][Card.parse("8c")] == 1
    act(state, "p2 discard Kh")

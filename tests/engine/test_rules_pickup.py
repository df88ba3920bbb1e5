"""rules.md: the turn (section 1), "Picking up the discard pile" (section 2) and
the `use-top` and `dig` fine points (section 4)."""

from __future__ import annotations

import pytest

from buraco.errors import IllegalActionError
from buraco.rules import VARIANTS

from .helpers import V, act, build, hand, play

OPEN = ("abierto", "abierto-sucio", "burraco-106")
USE_TOP = ("cerrado", "cerrado-stcl", "cerrado-sucio", "burraco", "fechado-stbl")

# Thirteen cards that make no meld with 9h, 8h, JK, 2c or 2h, nor among themselves
# with one more card: no hearts, no 9s, no wilds, no pairs, no near same-suit cards.
INERT = "3c 6c Qc 4d 7d Td 5s 8s Js As Kd Ks 3s".split()
INERT_3 = "3d 6d Qd 4s 7s Ts 5c 8c Jc Ac 9d".split()  # for a third player: no card of INERT


def inert(count: int, *, keep: str = "", seat: int = 1) -> str:
    """``keep`` plus inert cards, ``count`` in all."""
    named = keep.split()
    return " ".join(named + (INERT_3 if seat == 3 else INERT)[: count - len(named)])


def size(variant_id: str) -> int:
    return V(variant_id).hand_size


def facing(variant_id: str, top: str, p2: str, *, p2_meld: str = "", p1_meld: str = "", players: int = 2):  # noqa: ANN201
    """The table when p2 is to draw facing ``top``, discarded by p1.

    With ``p2_meld`` (or ``p1_meld``) that player lays the meld on their first turn,
    so that it is on the table before the pick-up.
    """
    n = size(variant_id)
    p1 = inert(n, keep=f"{top} {p1_meld} Qh")
    hands = [p1, inert(n, keep=f"{p2} {p2_meld}")] + [""] * (players - 2)
    # burraco turns up a first discard: a heart, since p2's filler holds no heart and so
    # the pile under the top card can never complete a meld with two of p2's cards.
    first = "9h" if VARIANTS[variant_id].first_discard else None
    state = build(variant_id, hands, stock="Kh Jh Kh Jh", discard=first).state()
    if p1_meld:
        act(state, "p1 draw")
        act(state, f"p1 meld {p1_meld}")
        act(state, "p1 discard Kh")
    else:
        play(state, "p1 draw", "p1 discard Kh")
    act(state, "p2 draw")
    if p2_meld:
        act(state, f"p2 meld {p2_meld}")
    act(state, "p2 discard Jh")
    for seat in range(3, players + 1):
        play(state, f"p{seat} draw", f"p{seat} discard {'Kh' if seat == 3 else 'Jh'}")
    play(state, "p1 draw", f"p1 discard {top}")
    assert state.turn == 2 and state.top is not None
    return state


# --- the turn ------------------------------------------------------------------------


def test_turn_has_exactly_one_draw_step() -> None:
    state = build("cerrado", ["9h", ""], stock="Kd Qs").state()
    with pytest.raises(IllegalActionError, match="must first draw"):
        act(state, "p1 discard 9h")
    act(state, "p1 draw")
    with pytest.raises(IllegalActionError, match="already drawn"):
        act(state, "p1 draw")
    with pytest.raises(IllegalActionError, match="already drawn"):
        act(state, "p1 take")
    act(state, "p1 discard 9h")
    assert state.turn == 2


def test_discard_ends_the_turn() -> None:
    state = build("cerrado", ["9h", ""], stock="Kd Qs").state()
    play(state, "p1 draw", "p1 discard 9h")
    with pytest.raises(IllegalActionError, match="p2's turn"):
        act(state, "p1 discard Kd")


# --- open ------------------------------------------------------------------------------


@pytest.mark.parametrize("variant_id", OPEN)
def test_open_take_has_no_condition(variant_id: str) -> None:
    state = facing(variant_id, "9h", "")
    pile = list(state.discard_pile)
    before = state.hand_sizes[2]
    act(state, "p2 take")
    assert state.discard_pile == []
    assert state.hand_sizes[2] == before + len(pile)
    assert "9h" in hand(state, 2)
    act(state, "p2 discard 9h")  # nothing had to be melded
    assert state.turn == 1


@pytest.mark.parametrize("variant_id", OPEN + USE_TOP)
def test_take_n_is_only_for_dig(variant_id: str) -> None:
    state = facing(variant_id, "9h", "7h 8h")
    with pytest.raises(IllegalActionError, match="whole pile is taken"):
        act(state, "p2 take 1")


# --- use-top ---------------------------------------------------------------------------


@pytest.mark.parametrize("variant_id", USE_TOP)
def test_use_top_take_is_illegal_when_top_card_fits_nothing(variant_id: str) -> None:
    state = facing(variant_id, "9h", "")
    assert not state.can_take(2)
    with pytest.raises(IllegalActionError, match="top card 9h fits no meld"):
        act(state, "p2 take")
    act(state, "p2 draw")


@pytest.mark.parametrize("variant_id", USE_TOP)
def test_use_top_take_with_two_hand_cards_for_a_new_meld(variant_id: str) -> None:
    state = facing(variant_id, "9h", "7h 8h")
    act(state, "p2 take")
    act(state, "p2 meld 7h 8h 9h")
    act(state, "p2 discard Kh")
    assert state.melds[-1].shape.text() == "7h 8h 9h"


@pytest.mark.parametrize("variant_id", USE_TOP)
def test_use_top_take_onto_an_own_meld_laid_before(variant_id: str) -> None:
    state = facing(variant_id, "9h", "", p2_meld="6h 7h 8h")
    act(state, "p2 take")
    act(state, "p2 add m1 9h")
    act(state, "p2 discard Kh")


@pytest.mark.parametrize("variant_id", USE_TOP)
def test_use_top_other_sides_meld_does_not_count(variant_id: str) -> None:
    state = facing(variant_id, "9h", "", p1_meld="6h 7h 8h")
    with pytest.raises(IllegalActionError, match="fits no meld of p2's side"):
        act(state, "p2 take")


@pytest.mark.parametrize("variant_id", USE_TOP)
def test_use_top_turn_ending_without_using_the_top_card_is_illegal_at_the_discard(variant_id: str) -> None:
    state = facing(variant_id, "9h", "7h 8h")
    act(state, "p2 take")
    with pytest.raises(IllegalActionError, match="must meld 9h"):
        act(state, "p2 discard 9h")
    with pytest.raises(IllegalActionError, match="must meld 9h"):
        act(state, "p2 discard Kh")


@pytest.mark.parametrize("variant_id", USE_TOP)
def test_use_top_lay_off_onto_a_meld_laid_after_the_pick_up_does_not_use_the_top_card(variant_id: str) -> None:
    state = facing(variant_id, "8h", "5h 6h 7h 9h Th")
    act(state, "p2 take")
    act(state, "p2 meld 5h 6h 7h")  # a new meld after the pick-up: m1
    act(state, "p2 add m1 8h")
    with pytest.raises(IllegalActionError, match="must meld 8h"):
        act(state, "p2 discard Kh")


@pytest.mark.parametrize("variant_id", USE_TOP)
def test_use_top_lay_off_may_bridge_the_gap_with_hand_cards(variant_id: str) -> None:
    state = facing(variant_id, "8h", "7h", p2_meld="4h 5h 6h")
    act(state, "p2 take")
    act(state, "p2 add m1 8h 7h")
    assert state.melds[0].shape.text() == "4h 5h 6h 7h 8h"
    act(state, "p2 discard Kh")


@pytest.mark.parametrize("variant_id", USE_TOP)
def test_use_top_new_meld_needs_two_cards_held_before_the_pick_up(variant_id: str) -> None:
    """The pile holds 8h below the top 9h; p2 holds only 7h: 7h 8h 9h has one held card."""
    n = size(variant_id)
    state = build(variant_id, [inert(n, keep="8h 9h"), inert(n, keep="7h")], stock="Kh Jh Kh").state()
    play(state, "p1 draw", "p1 discard 8h", "p2 draw", "p2 discard Jh", "p1 draw", "p1 discard 9h")
    assert "8h" in [str(c) for c in state.discard_pile]
    with pytest.raises(IllegalActionError, match="fits no meld"):
        act(state, "p2 take")


@pytest.mark.parametrize("variant_id", USE_TOP)
def test_use_top_joker_on_top_cannot_be_laid_off(variant_id: str) -> None:
    state = facing(variant_id, "JK", "", p2_meld="4h 5h 6h")
    with pytest.raises(IllegalActionError, match="top card JK"):
        act(state, "p2 take")


@pytest.mark.parametrize("variant_id", USE_TOP)
def test_use_top_joker_on_top_goes_into_a_new_meld(variant_id: str) -> None:
    state = facing(variant_id, "JK", "Tc Jc", p2_meld="4h 5h 6h")
    act(state, "p2 take")
    act(state, "p2 add m1 JK")  # onto an existing meld: does not count
    with pytest.raises(IllegalActionError, match="must meld JK"):
        act(state, "p2 discard Kh")


@pytest.mark.parametrize("variant_id", USE_TOP)
def test_use_top_joker_on_top_with_two_hand_cards_is_legal(variant_id: str) -> None:
    state = facing(variant_id, "JK", "Tc Jc")
    act(state, "p2 take")
    act(state, "p2 meld Tc Jc JK")
    act(state, "p2 discard Kh")


@pytest.mark.parametrize("variant_id", USE_TOP)
def test_use_top_two_on_top_laid_off_as_natural_two(variant_id: str) -> None:
    state = facing(variant_id, "2h", "", p2_meld="3h 4h 5h")
    act(state, "p2 take")
    act(state, "p2 add m1 2h")
    assert state.melds[0].shape.text() == "2h 3h 4h 5h"
    act(state, "p2 discard Kh")


@pytest.mark.parametrize("variant_id", USE_TOP)
def test_use_top_two_on_top_laid_off_as_a_wild_does_not_count(variant_id: str) -> None:
    state = facing(variant_id, "2h", "", p2_meld="3h 4h 5h")
    act(state, "p2 take")
    act(state, "p2 add m1 2h=6h")
    with pytest.raises(IllegalActionError, match="must meld 2h"):
        act(state, "p2 discard Kh")


@pytest.mark.parametrize("variant_id", USE_TOP)
def test_use_top_two_of_another_suit_on_top_is_a_wild_and_cannot_be_laid_off(variant_id: str) -> None:
    state = facing(variant_id, "2c", "", p2_meld="3h 4h 5h")
    with pytest.raises(IllegalActionError, match="top card 2c"):
        act(state, "p2 take")


@pytest.mark.parametrize("partner_took_dead", [True, False])
def test_use_top_take_is_illegal_when_only_an_illegal_emptying_meld_could_use_the_top(partner_took_dead: bool) -> None:
    """cerrado, 4 players. p1 keeps 7h 8h; the pile is then the single card 9h.
    Melding 7h 8h 9h empties p1's hand: legal only as a direct pick-up, which is
    gone once partner p3 has taken the side's dead pile (no canasta: no going out)."""
    p1 = "3c 4c 5c 6c 7c 9d Td Jd Qd 7h 8h"
    p3 = "3s 4s 5s 6s 7s 8s Ts Js Qs Ks As"
    p4 = inert(11, keep="Jc Kc 9h")
    state = build("cerrado", [p1, "", p3, p4], stock="Kh Jh Qc 5d").state()
    play(state, "p1 draw", "p1 meld 3c 4c 5c 6c 7c", "p1 meld 9d Td Jd Qd", "p1 discard Kh")
    play(state, "p2 draw", "p2 discard Jh", "p3 draw")
    if partner_took_dead:
        play(state, "p3 meld 3s 4s 5s 6s 7s 8s", "p3 meld Ts Js Qs Ks As", "p3 discard Qc", "p3 dead")
    else:
        act(state, "p3 discard Qc")
    play(state, "p4 take", "p4 meld Jc Qc Kc", "p4 discard 9h")
    assert [str(c) for c in state.discard_pile] == ["9h"]
    assert hand(state, 1) == ["7h", "8h"]
    if partner_took_dead:
        with pytest.raises(IllegalActionError, match="cannot take"):
            act(state, "p1 take")
        act(state, "p1 draw")
    else:
        play(state, "p1 take", "p1 meld 7h 8h 9h", "p1 dead")  # a direct pick-up
        assert state.dead_taken[0]


# --- dig (brasil) ------------------------------------------------------------------------


def brasil_pile(*discards: str, p1: str = "", p2: str = "", p3: str = ""):  # noqa: ANN201
    """brasil with three players; each discards in turn (p1 first) the cards named;
    returns the table with the next player to draw."""
    state = build("brasil", [inert(11, keep=f"{' '.join(discards[0::3])} {p1}"),
                             inert(11, keep=f"{' '.join(discards[1::3])} {p2}"),
                             inert(11, keep=f"{' '.join(discards[2::3])} {p3}", seat=3)],
                  stock="3h 3h 4c 4c 9c 9c").state()
    for card in discards:
        seat = state.turn
        act(state, f"p{seat} draw")
        act(state, f"p{seat} discard {card}")
    return state


def test_dig_take_1_has_no_condition() -> None:
    state = brasil_pile("9h", "Qh")
    assert state.turn == 3
    act(state, "p3 take 1")
    assert "Qh" in hand(state, 3) and [str(c) for c in state.discard_pile] == ["9h"]
    act(state, "p3 discard Qh")


def test_dig_take_on_a_one_card_pile_has_no_condition() -> None:
    state = brasil_pile("9h")
    act(state, "p2 take")
    act(state, "p2 discard 9h")


def test_dig_take_whole_pile_needs_its_bottom_card_melded() -> None:
    state = brasil_pile("9h", "Qh")
    with pytest.raises(IllegalActionError, match="cannot reach down to 9h"):
        act(state, "p3 take")
    state = brasil_pile("9h", "Qh", p3="7h 8h")
    act(state, "p3 take")
    with pytest.raises(IllegalActionError, match="must meld 9h"):
        act(state, "p3 discard Qh")
    act(state, "p3 meld 7h 8h 9h")
    act(state, "p3 discard Qh")


def test_dig_take_n_needs_the_nth_card_melded() -> None:
    state = brasil_pile("9h", "Qh", "5d", p1="Jh Kh")
    with pytest.raises(IllegalActionError, match="cannot reach down to 9h"):
        act(state, "p1 take 3")
    act(state, "p1 take 2")
    assert sorted(str(c) for c in state.discard_pile) == ["9h"]
    with pytest.raises(IllegalActionError, match="must meld Qh"):
        act(state, "p1 discard 5d")
    play(state, "p1 meld Jh Qh Kh", "p1 discard 5d")


def test_take_for_turn_leaves_the_reached_cards_use_to_the_turns_end() -> None:
    """The analysis replays a take and the line after it at once: the take does not ask
    whether the reached card could be melded, and the turn's end refuses it where no
    play melded it. Every other check of a take stays."""
    state = brasil_pile("9h", "Qh", "5d", p1="Jh Kh")
    with pytest.raises(IllegalActionError, match="cannot reach down to 9h"):
        act(state, "p1 take 3")
    state.take_for_turn(1, 3)
    assert "9h" in hand(state, 1) and not state.discard_pile
    with pytest.raises(IllegalActionError, match="must meld 9h"):
        act(state, "p1 discard 5d")
    state = brasil_pile("9h", "Qh", "5d", p1="Jh Kh")
    with pytest.raises(IllegalActionError, match="pile holds 3"):
        state.take_for_turn(1, 4)
    with pytest.raises(IllegalActionError):
        state.take_for_turn(2, 1)  # not p2's turn
    state.take_for_turn(1, 2)
    play(state, "p1 meld Jh Qh Kh", "p1 discard 5d")


def test_dig_cannot_take_more_cards_than_the_pile_holds() -> None:
    state = brasil_pile("9h", "Qh")
    with pytest.raises(IllegalActionError, match="pile holds 2"):
        act(state, "p3 take 3")


def test_dig_reached_card_may_go_onto_an_own_meld() -> None:
    state = build("brasil", [inert(11, keep="6h 7h 8h"), inert(11, keep="9h"), inert(11, seat=3)],
                  stock="3h 3h 4c").state()
    play(state, "p1 draw", "p1 meld 6h 7h 8h", "p1 discard 3h", "p2 draw", "p2 discard 9h", "p3 draw", "p3 discard 4c")
    play(state, "p1 take 2", "p1 add m1 9h", "p1 discard 4c")
    assert state.melds[0].shape.text() == "6h 7h 8h 9h"
    assert [str(c) for c in state.discard_pile] == ["3h", "4c"]


def test_dig_reached_card_may_be_melded_onto_another_players_meld() -> None:
    state = build("brasil", [inert(11, keep="9h"), inert(11, keep="6h 7h 8h"), inert(11, seat=3)], stock="Kc Kh Qh").state()
    play(state, "p1 draw", "p1 discard 9h", "p2 draw", "p2 meld 6h 7h 8h", "p2 discard Kh")
    act(state, "p3 take")  # the whole pile: 9h at the bottom
    act(state, "p3 add m1 9h")
    assert state.melds[0].owner == 2 and state.melds[0].shape.high == 9
    act(state, "p3 discard Kh")


def test_dig_reached_card_may_be_melded_with_cards_taken_above_it() -> None:
    state = brasil_pile("7h", "8h", "9h")
    assert state.turn == 1
    act(state, "p1 take")
    act(state, "p1 meld 7h 8h 9h")
    act(state, f"p1 discard {INERT[0]}")


def test_dig_take_is_illegal_when_only_an_emptying_meld_could_use_the_reached_card() -> None:
    """p1 keeps only 8h; the pile ends 7h 9h. Taking both leaves 7h 8h 9h, whose
    meld would empty the hand: brasil goes out by discarding only and has no dead pile."""
    p1 = "3c 4c 5c 6c 7c 9d Td Jd Qd Kd 8h"
    state = build("brasil", [p1, inert(11, keep="7h"), inert(11, keep="9h", seat=3)], stock="Qs Jh Jh").state()
    play(state, "p1 draw", "p1 meld 3c 4c 5c 6c 7c", "p1 meld 9d Td Jd Qd Kd", "p1 discard Qs")
    play(state, "p2 draw", "p2 discard 7h", "p3 draw", "p3 discard 9h")
    assert hand(state, 1) == ["8h"]
    with pytest.raises(IllegalActionError, match="cannot reach down to 7h"):
        act(state, "p1 take 2")
    act(state, "p1 take 1")  # only the top card: no condition


def test_dig_whole_pile_must_be_the_default_take() -> None:
    state = brasil_pile("7h", "8h", "9h")
    act(state, "p1 take")
    assert state.discard_pile == []
    assert {"7h", "8h", "9h"} <= set(hand(state, 1))


# --- use-top and dig with bridging cards and pile cards -------------------------------------

# Eleven cards with no three, no heart, no pair and no two same-suit cards within two
# places: none makes a meld with 2h, 3h or JK, nor with another of them.
NO_THREES = "9c 6c Qc 4d 7d Td 5s 8s Js As Kd".split()


@pytest.mark.parametrize("variant_id", USE_TOP)
def test_use_top_new_meld_may_hold_pile_cards_beside_two_held_cards(variant_id: str) -> None:
    """The pile holds 8h below the top 9h; p2 held 7h and Th: 7h 8h 9h Th holds the
    top card and two cards held before the pick-up, so the take is legal."""
    n = size(variant_id)
    state = build(variant_id, [inert(n, keep="8h 9h"), inert(n, keep="7h Th")], stock="Kh Jh Kh").state()
    play(state, "p1 draw", "p1 discard 8h", "p2 draw", "p2 discard Jh", "p1 draw", "p1 discard 9h")
    act(state, "p2 take")
    act(state, "p2 meld 7h 8h 9h Th")
    act(state, "p2 discard Jh")


@pytest.mark.parametrize("bridge", ["3h", "JK"])
@pytest.mark.parametrize("variant_id", USE_TOP)
def test_use_top_two_on_top_may_be_laid_off_as_natural_two_with_a_bridging_card(variant_id: str, bridge: str) -> None:
    """p2's own run 4h 5h 6h; top 2h; p2 holds 3h (or a joker for 3h): `add m1 3h 2h`
    lays the 2h in its natural place on a meld from before the pick-up."""
    hand_cards = " ".join([bridge, "4h 5h 6h"] + NO_THREES[: size(variant_id) - 4])
    state = build(variant_id, [inert(size(variant_id), keep="2h Qh"), hand_cards], stock="Kh Jh Kh Jh").state()
    play(state, "p1 draw", "p1 discard Kh", "p2 draw", "p2 meld 4h 5h 6h", "p2 discard Jh", "p1 draw",
         "p1 discard 2h")
    act(state, "p2 take")
    act(state, f"p2 add m1 {bridge if bridge != 'JK' else 'JK=3h'} 2h")
    assert state.melds[0].shape.cards[0] == state.melds[0].shape.cards[0].parse("2h")
    act(state, "p2 discard Kh")


def test_dig_reached_two_may_be_laid_off_as_natural_two_with_a_bridging_card() -> None:
    """brasil: p2's run 4h 5h JK(=6h); p1 reaches 2h (take 2) and holds 3h:
    `add m1 3h 2h` gives 2h 3h 4h 5h JK, the 2h natural, the joker unmoved."""
    state = build("brasil", ["2h 3h 6c 9c Qc 4d 7d Td 5s 8s Js", "4h 5h JK Ad 3d 6d Qd 4s 7s Ts 5c"],
                  stock="Kh 8c").state()
    play(state, "p1 draw", "p1 discard 2h", "p2 draw", "p2 meld 4h 5h JK", "p2 discard Ad")
    act(state, "p1 take 2")
    act(state, "p1 add m1 3h 2h")
    assert state.melds[0].shape.text() == "2h 3h 4h 5h JK"
    act(state, "p1 discard Ad")


def test_take_from_an_empty_pile_is_illegal() -> None:
    state = build("cerrado", [[], []]).state()
    with pytest.raises(IllegalActionError, match="discard pile is empty"):
        act(state, "p1 take")


def test_use_top_partners_meld_counts_as_an_own_meld() -> None:
    """cerrado, 4 players: p1 lays 6h 7h 8h; p2 discards 9h; partner p3 takes and lays it off."""
    state = build("cerrado", [inert(11, keep="6h 7h 8h"), inert(11, keep="9h"), inert(11, seat=3), ""],
                  stock="Kh Jh Qh 4c").state()
    play(state, "p1 draw", "p1 meld 6h 7h 8h", "p1 discard Kh", "p2 draw", "p2 discard 9h")
    play(state, "p3 take", "p3 add m1 9h", "p3 discard Kh")
    assert state.melds[0].shape.text() == "6h 7h 8h 9h"


def test_dig_reached_card_may_go_onto_a_meld_laid_after_the_take() -> None:
    state = brasil_pile("9h", "Qh", p3="6h 7h 8h")
    act(state, "p3 take")
    act(state, "p3 meld 6h 7h 8h")
    act(state, "p3 add m1 9h")
    act(state, "p3 discard Qh")

"""Two decks: the same card twice in a hand or in a meld counts twice (rules.md 1 and 3).
Every expected score is worked out by hand in the comments, from the tables of rules.md 3."""

from __future__ import annotations

import pytest

from .helpers import act, build, empty_by_discard, end_by_stock, pass_turn, scores

# p1 keeps every dealt card to the end (the stock runs out: each turn draws and discards
# the card drawn), so its score is minus the value of its hand, less the dead-pile penalty.
KEPT_11 = "Kd Kd Qs Qs 7h 7h 3c 3c JK JK Ad"


@pytest.mark.parametrize(
    ("variant_id", "held", "expected"),
    [
        # cerrado: K, Q 10 each, 7, 3 5 each, JK 20, A 15:
        # 10+10+10+10 + 5+5+5+5 + 20+20 + 15 = 115; dead pile not taken -100: -215
        # (each duplicate counted once would be 10+10+5+5+20+15 = 65: -165)
        ("cerrado", KEPT_11, -215),
        # fechado-stbl: the same, jokers 50: 40 + 20 + 100 + 15 = 175; -100: -275
        ("fechado-stbl", KEPT_11, -275),
        # brasil: face values, K Q 10, 7 7, 3 3, JK 20, A 15:
        # 10+10+10+10 + 7+7 + 3+3 + 20+20 + 15 = 115; no penalties: -115
        ("brasil", KEPT_11, -115),
        # burraco (13 cards): K Q 10, 7 3 5, JK 30, A 15, 2 20:
        # 40 + 20 + 60 + 15 + 2h 2h 40 = 175; pozzetto not taken -100: -275
        ("burraco", KEPT_11 + " 2h 2h", -275),
    ],
)
def test_a_card_held_twice_counts_twice_in_the_hand(variant_id: str, held: str, expected: int) -> None:
    state = build(variant_id, [held, ""]).state()
    end_by_stock(state)
    assert sorted(map(str, state.hand_of(1))) == sorted(held.split())
    assert scores(state)[0].total == expected


def test_cards_melded_twice_and_held_twice_count_twice_in_a_whole_hand() -> None:
    """cerrado, p1 goes out with a clean canasta of 8s holding each of 8c 8d 8h twice and
    a set of queens holding Qd twice; p2 is left holding pairs."""
    p1 = "8c 8c 8d 8d 8h 8h 8s Qd Qd Qs Qh"
    p2 = "Kd Kd Qs Js Js 5h 5h 3c 3c JK JK"
    dead = "3d 4d 5d 6d 7d 9c Tc Jc Jh Qh Kh"
    state = build("cerrado", [p1, p2], dead=[dead], stock="Kc Qc 9d").state()
    empty_by_discard(state, 1, ["8c 8c 8d 8d 8h 8h 8s", "Qd Qd Qs Qh"])  # discards Kc, hand empty
    act(state, "p1 dead")  # an indirect pick-up: p1 plays it next turn
    pass_turn(state)  # p2 draws Qc and discards it
    empty_by_discard(state, 1, ["3d 4d 5d 6d 7d", "9c Tc Jc", "Jh Qh Kh"])  # discards 9d: out
    assert state.ended_by == "out" and state.out_by == 1
    one, two = scores(state)
    # p1 melded: seven 8s 7 x 10 = 70, four queens 40, 3d..7d 25, 9c Tc Jc 30, Jh Qh Kh 30: 195
    # (each duplicate once: 8c 8d 8h 8s 40 + Qd Qs Qh 30 + 85 = 155)
    assert one.melded == 195
    # the seven 8s are a canasta with no wild: clean, 200; going out 100; nothing in hand
    assert (one.canastas["clean"], one.canasta_bonus, one.going_out, one.hand, one.penalties) == (1, 200, 100, 0, 0)
    assert one.total == 195 + 200 + 100  # 495
    # p2 holds K K 20, Q 10, J J 20, 5 5 10, 3 3 10, JK JK 40: 110; dead pile not taken -100
    # (each duplicate once: Kd Qs Js 5h 3c JK = 60)
    assert (two.melded, two.hand, two.penalties) == (0, 110, 100)
    assert two.total == -110 - 100  # -210

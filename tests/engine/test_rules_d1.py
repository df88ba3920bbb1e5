"""D1 (rules.md section 2, "End of a hand"): in ``brasil``, where the top card alone may
always be taken, a player facing an empty stock can always take while the pile holds a
card; the hand ends there only if the record's actions stop.

The other rule sets end the hand when the player to draw finds the stock empty and
cannot take the pile legally (tests/engine/test_rules_going_out.py).
"""

from __future__ import annotations

import pytest

from buraco.cards import CARD_KINDS, CARDS, deck_counts, parse_cards
from buraco.errors import IllegalActionError
from buraco.replay import verify
from buraco.rules import VARIANTS
from buraco.state import STOCK, HandState

from .helpers import act, actions_of, build, burn_stock, load_record, play

# A house rule dealing 26 cards to each of four players leaves a stock of four cards, so
# the stock runs out after one round. p1 holds clubs and hearts 3..5 only: no king, no
# diamond, no wild, so the Kd at the bottom of the pile can go into no meld of p1's.
P1 = "3c 3c 4c 4c 5c 5c 6c 6c 7c 7c 8c 8c 9c 9c Tc Tc Jc Jc Qc Qc 3h 3h 4h 4h 5h 5h"
STOCK_TOP_FIRST = "Kd 7s 8s 9s"


def one_round_deal(**house_rules: object) -> HandState:
    variant = VARIANTS["brasil"].override(hand_size=26, **house_rules)
    p1, stock = parse_cards(P1), parse_cards(STOCK_TOP_FIRST)
    left = deck_counts(variant.jokers)
    for card in (*p1, *stock):
        left[card] -= 1
    rest = [CARDS[c] for c in range(CARD_KINDS) for _ in range(left[c])]
    dealt = [p1, rest[0:26], rest[26:52], rest[52:78]]
    state = HandState.deal(variant, 4, 4, dealt, (), None, stock)
    for seat in (1, 2, 3, 4):  # each draws the stock's top card and throws it
        card = state.stock[-1]
        act(state, f"p{seat} draw")
        act(state, f"p{seat} discard {card}")
    return state


def test_d1_the_hand_goes_on_at_an_empty_stock_though_the_whole_pile_cannot_be_taken() -> None:
    state = one_round_deal()
    assert state.stock_count == 0 and state.turn == 1
    assert not state.can_take(1)  # the whole pile: its bottom card, Kd, fits no meld of p1's
    assert not state.is_over
    assert state.can_take(1, 1) and not state.can_draw(1)


def test_d1_the_top_card_alone_may_be_taken_at_an_empty_stock_and_the_turn_goes_on() -> None:
    state = one_round_deal()
    play(state, "p1 take 1")
    assert state.hands[1][parse_cards("9s")[0]] == 1
    play(state, "p1 discard 3h")
    assert not state.is_over and state.turn == 2 and state.stock_count == 0
    assert state.can_take(2, 1)


def test_d1_a_draw_at_an_empty_stock_stays_illegal() -> None:
    state = one_round_deal()
    with pytest.raises(IllegalActionError, match="stock is empty"):
        act(state, "p1 draw")


def test_d1_the_hand_ends_by_the_stock_where_the_actions_stop() -> None:
    state = one_round_deal()
    state.finish_by_stock()
    assert state.is_over and state.ended_by == STOCK and state.out_by == 0


@pytest.mark.parametrize("taken_at_the_end", [False, True])
def test_d1_a_brasil_record_may_take_the_top_card_at_an_empty_stock(taken_at_the_end: bool) -> None:
    """Played to an empty stock in the usual deal: the record may go on with ``take 1`` and
    a discard, and where its actions stop the hand ends by the stock, and is scored."""
    deal = build("brasil", ["", ""])
    state = deal.state()
    burn_stock(state)
    assert state.stock_count == 0 and not state.is_over
    if taken_at_the_end:
        seat = state.turn
        play(state, f"p{seat} take 1")
        play(state, f"p{seat} discard {state.hand_of(seat)[0]}")
        assert not state.is_over
    record = load_record("brasil", 2, [deal.hand_table(actions_of(state))])
    report = verify(record)
    assert report.valid
    hand = report.hands[0]
    assert hand.finished and hand.error is None
    assert hand.scores is not None


def test_d1_holds_only_in_dig_under_use_top_the_same_table_ends_the_hand() -> None:
    """The same deal and round under ``use-top``: p1 holds nothing that melds the 9s on
    top, so p1 cannot take, and the hand ends as the stock runs out."""
    state = one_round_deal(pickup="use-top")
    assert state.is_over and state.ended_by == STOCK

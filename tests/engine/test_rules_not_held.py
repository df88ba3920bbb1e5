"""An action naming a card the player does not hold says so first, before whether the cards
would make a legal meld: "is no run" of cards one never had tells a player nothing."""

from __future__ import annotations

import pytest

from buraco.actions import parse_action
from buraco.errors import IllegalActionError
from buraco.replay import state_at
from buraco.selfplay import play_match
from buraco.state import HandState


def _play_step() -> HandState:
    """p1 after drawing at the first turn of a cerrado hand."""
    state = state_at(play_match("cerrado", players=2, hands=1, seed=21), 0, 0)
    state.apply(parse_action("p1 draw", 2))
    return state


def _missing_card(state: HandState, seat: int = 1) -> str:
    from buraco.cards import CARD_TEXT, card_of

    for rank in range(13, 2, -1):
        for suit in range(4):
            card = card_of(rank, suit)
            if state.hands[seat][card] == 0:
                return CARD_TEXT[card]
    raise AssertionError("p1 holds every card")


def test_a_meld_of_a_card_not_held_names_that_card() -> None:
    state = _play_step()
    missing = _missing_card(state)
    with pytest.raises(IllegalActionError) as raised:
        state.apply(parse_action(f"p1 meld 5c 6c {missing}", 2))
    assert raised.value.message.startswith("p1 does not hold") or raised.value.message.startswith("p1 holds only")


def test_a_lay_off_of_a_card_not_held_names_that_card_before_the_meld_s_shape() -> None:
    record = play_match("cerrado", players=2, hands=1, seed=4)
    hand = record.hands[0]
    # The first lay-off in the record: replay to it and lay off a card p-seat does not hold.
    ply = next(n for n, action in enumerate(hand.parsed) if action.verb == "add")
    state = state_at(record, 0, ply)
    seat = hand.parsed[ply].seat
    missing = _missing_card(state, seat)
    meld = hand.parsed[ply].meld
    with pytest.raises(IllegalActionError) as raised:
        state.apply(parse_action(f"p{seat} add m{meld} {missing}", 2))
    assert " does not hold " in raised.value.message or " holds only " in raised.value.message

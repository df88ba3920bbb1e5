"""The operations the state machine returns say what they did: a ``kind`` as the timeline
names it, ``to_json()`` as the timeline writes it, and a lay-off its cards and moved wilds."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest

from buraco.cards import Card
from buraco.melds import WildMove
from buraco.replay import deal_hand
from buraco.rules import VARIANTS
from buraco.selfplay import play_match
from buraco.state import LaidOff, Melded, OperationKind

from .helpers import act, build


def test_a_lay_off_carries_the_cards_laid_and_the_wild_moved() -> None:
    deal = build("cerrado", ["5h 2c 7h 6h", ""], stock="Kd")
    state = deal.state()
    act(state, "p1 draw")
    act(state, "p1 meld 5h 2c 7h")
    act(state, "p1 add m1 6h")
    operation = state.operations[-1]
    assert isinstance(operation, LaidOff) and operation.kind == OperationKind.LAID_OFF == "laid-off"
    assert [str(c) for c in operation.cards] == ["6h"]
    assert operation.wild_moved == (WildMove(Card.parse("2c"), Card.parse("6h"), Card.parse("8h")),)
    assert operation.to_json() == {
        "kind": "laid-off", "seat": 1, "meld": "m1", "cards": ["6h"],
        "wild_moved": [{"card": "2c", "from": "6h", "to": "8h"}],
    }


def test_operations_are_frozen() -> None:
    deal = build("cerrado", ["5h 6h 7h 8h", ""], stock="Kd")
    state = deal.state()
    operation = act(state, "p1 draw")
    with pytest.raises(dataclasses.FrozenInstanceError):
        operation.seat = 2  # type: ignore[misc]


@pytest.mark.parametrize("variant_id", list(VARIANTS))
def test_every_lay_off_lays_what_its_meld_gained(variant_id: str) -> None:
    record = play_match(variant_id, players=2, hands=2, seed=11)
    for index in range(len(record.hands)):
        state = deal_hand(record, index)
        on_table: dict[int, Counter[int]] = {}
        for action in record.hands[index].parsed:
            operation = state.apply(action)
            if isinstance(operation, Melded):
                on_table[operation.number] = Counter(operation.shape.cards)
            if isinstance(operation, LaidOff):
                now = Counter(operation.shape.cards)
                assert Counter(operation.cards) == now - on_table[operation.number]
                on_table[operation.number] = now
            assert operation.to_json()["kind"] == operation.kind.value

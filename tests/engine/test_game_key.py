"""buraco.notation.game_key: the same game whatever review a record carries (its notes and
annotator), its format and its meld spelling; another deal, action or event is another."""

from __future__ import annotations

from dataclasses import replace

import pytest

from buraco.notation import Note, dumps, game_key, loads
from buraco.replay import canonical
from buraco.rules import VARIANTS
from buraco.selfplay import play_match


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_review_exported_and_read_again_is_the_same_game(variant: str) -> None:
    record = play_match(variant, players=2, hands=2, seed=9)
    exported = replace(
        canonical(record),
        hands=tuple(replace(hand, notes=(Note(1, "coach", "here"),)) for hand in canonical(record).hands),
        metadata=(*((k, v) for k, v in record.metadata if k != "annotator"), ("annotator", "coach")),
    )
    assert game_key(loads(dumps(exported))) == game_key(loads(dumps(record, "json"))) == game_key(record)


def test_a_meld_written_in_another_order_is_the_same_game() -> None:
    record = play_match("cerrado", players=2, hands=1, seed=5)
    hand = record.hands[0]
    ply = next(n for n, action in enumerate(hand.parsed) if action.verb == "meld" and len(action.tokens) >= 3)
    words = hand.actions[ply].split()
    reordered = " ".join([*words[:2], *reversed(words[2:])])
    text = dumps(record).replace(f'"{hand.actions[ply]}"', f'"{reordered}"', 1)
    assert reordered in text
    assert game_key(loads(text)) == game_key(record)


def test_another_deal_or_another_action_is_another_game() -> None:
    record = play_match("cerrado", players=2, hands=1, seed=5)
    assert game_key(record) != game_key(play_match("cerrado", players=2, hands=1, seed=6))
    shorter = replace(record, hands=(replace(record.hands[0], actions=record.hands[0].actions[:-1]),))
    assert game_key(loads(dumps(shorter))) != game_key(record)
    assert game_key(replace(record, players=("Ana", "Bia"))) != game_key(replace(record, players=("Bia", "Ana")))
    assert game_key(replace(record, metadata=(("event", "club night"),))) != game_key(record)

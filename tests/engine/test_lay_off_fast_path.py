"""The plain lay-off path (naturals extending a run's ends, decided without the full reader)
gives what the full reader gives, wherever it answers: on every run lay-off of self-play
matches in every rule set, and below a run that ends on the ace."""

from __future__ import annotations

from buraco.actions import ADD
from buraco.cards import Card, card_of
from buraco.melds import CardToken, Shape, _add_to_run, _extend_run_at_ends
from buraco.replay import deal_hand
from buraco.rules import VARIANTS
from buraco.selfplay import play_match

from .records import VARIANT_PLAYERS


def _run(suit: int, low: int, high: int) -> Shape:
    return Shape(True, suit, 0, low, tuple(card_of(position, suit) for position in range(low, high + 1)), -1)


def test_a_natural_laid_below_a_run_that_ends_on_the_ace_takes_the_plain_path() -> None:
    spades = Card.parse("Js").suit
    shape = _run(spades, 11, 14)  # Js Qs Ks As
    tokens = [CardToken(Card.parse("Ts"))]
    plain = _extend_run_at_ends(shape, tokens)
    assert plain is not None
    assert plain.shape.low == 10 and len(plain.shape.cards) == 5
    assert plain == _add_to_run(shape, tokens, VARIANTS["abierto"])


def test_the_plain_path_agrees_with_the_full_reader_on_every_self_play_lay_off() -> None:
    answered = ace_high = 0
    for variant, players in VARIANT_PLAYERS:
        for seed in (1, 2):
            record = play_match(variant, players=players, hands=2, seed=seed)
            for index, hand in enumerate(record.hands):
                state = deal_hand(record, index)
                for action in hand.parsed:
                    if action.verb == ADD:
                        shape = state.melds[action.meld - 1].shape
                        if shape.is_run:
                            plain = _extend_run_at_ends(shape, action.tokens)
                            if plain is not None:
                                assert plain == _add_to_run(shape, action.tokens, record.rules), (variant, seed, action.text)
                                answered += 1
                                ace_high += shape.high == 14
                    state.apply(action)
    assert answered > 100 and ace_high > 0, (answered, ace_high)

"""The plain lay-off path (naturals extending a run's ends, decided without the full reader)
gives what the full reader gives, wherever it answers: on every run lay-off of self-play
matches in every rule set, below a run that ends on the ace, and for an ace only one end
can take; an ace both ends could take is left to the full reader (notation.md: it goes
low)."""

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


def test_an_ace_only_one_end_can_take_takes_the_plain_path() -> None:
    hearts = Card.parse("Kh").suit
    for shape, card, position in (
        (_run(hearts, 9, 13), "Ah", 14),  # 9h..Kh: the ace goes above the king
        (_run(hearts, 2, 5), "Ah", 1),  # 2h..5h: below the 2
    ):
        tokens = [CardToken(Card.parse(card))]
        plain = _extend_run_at_ends(shape, tokens)
        assert plain is not None
        assert position in (plain.shape.low, plain.shape.high)
        assert plain == _add_to_run(shape, tokens, VARIANTS["cerrado"])
    queen_king_ace = [CardToken(Card.parse(c)) for c in ("Qh", "Kh", "Ah")]
    plain = _extend_run_at_ends(_run(hearts, 9, 11), queen_king_ace)  # 9h Th Jh + Qh Kh Ah
    assert plain is not None and plain.shape.high == 14
    assert plain == _add_to_run(_run(hearts, 9, 11), queen_king_ace, VARIANTS["cerrado"])


def test_an_ace_both_ends_could_take_is_left_to_the_full_reader() -> None:
    hearts = Card.parse("Kh").suit
    two_to_king = _run(hearts, 2, 13)
    tokens = [CardToken(Card.parse("Ah"))]
    assert _extend_run_at_ends(two_to_king, tokens) is None
    assert _add_to_run(two_to_king, tokens, VARIANTS["burraco"]).shape.low == 1  # low, as notation.md says


def test_the_plain_path_agrees_with_the_full_reader_on_every_self_play_lay_off() -> None:
    answered = ace_high = aces = 0
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
                                aces += any(token.card.rank == 1 for token in action.tokens)
                    state.apply(action)
    assert answered > 100 and ace_high > 0 and aces > 0, (answered, ace_high, aces)

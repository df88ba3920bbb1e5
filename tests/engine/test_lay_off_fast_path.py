"""The plain lay-off paths (naturals extending a run's ends; one natural on the place the
run's wild holds) give what the full reader gives, wherever they answer: on every run
lay-off of self-play matches in every rule set, below a run that ends on the ace, for an
ace only one end can take (an ace both ends could take is left to the full reader:
notation.md puts it low), and on every run with a wild of every rule set. The pile
check's plain cases, which read them, pass only a card some play can meld."""

from __future__ import annotations

from buraco.actions import ADD
from buraco.cards import CARDS, JOKER_CODE, Card, card_of
from buraco.errors import IllegalActionError
from buraco.melds import CardToken, Shape, _add_to_run, _extend_run_at_ends, _fill_wild_place
from buraco.moves import plays_using
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


def test_a_natural_on_the_wilds_place_is_laid_by_the_plain_path_as_the_full_reader_lays_it() -> None:
    """Every run with one wild (every start, length, place of the wild, wild kind) and every
    natural of its suit, in every rule set: where the plain path answers, the full reader
    accepts the lay-off and gives the same run (it answers for over 5,000 of them)."""
    answered = 0
    for variant in VARIANTS.values():
        for low in range(1, 15):
            for length in range(3, 16 - low):
                for wild_index in range(length):
                    for wild in (CARDS[JOKER_CODE], card_of(2, 1), card_of(2, 0)):  # a joker, another suit's 2, the suit's 2
                        cards = tuple(wild if i == wild_index else card_of(low + i, 0) for i in range(length))
                        shape = Shape(True, 0, 0, low, cards, wild_index)
                        for rank in range(1, 14):
                            tokens = [CardToken(card_of(rank, 0))]
                            plain = _fill_wild_place(shape, tokens, variant)
                            if plain is None:
                                continue
                            try:
                                full = _add_to_run(shape, tokens, variant)
                            except IllegalActionError as error:
                                raise AssertionError(f"{variant.id}: {shape} + {tokens}: the full reader refuses it ({error})") from None
                            assert plain == full, (variant.id, shape, tokens)
                            answered += 1
    assert answered > 5_000, answered


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
                            plain = _extend_run_at_ends(shape, action.tokens) or _fill_wild_place(shape, action.tokens, record.rules)
                            if plain is not None:
                                assert plain == _add_to_run(shape, action.tokens, record.rules), (variant, seed, action.text)
                                answered += 1
                                ace_high += shape.high == 14
                                aces += any(token.card.rank == 1 for token in action.tokens)
                    state.apply(action)
    assert answered > 100 and ace_high > 0 and aces > 0, (answered, ace_high, aces)


def test_the_plain_take_check_never_passes_a_card_no_play_could_meld() -> None:
    """The pile check's plain cases (``_plainly_usable``) say a take's card is usable only
    where the move generator finds a play melding it: at every draw step of self-play
    matches of the rule sets with a pick-up condition, for every take there, where the
    check asks them (a hand of more than three cards once the take is made)."""
    passed = 0
    for variant, players in VARIANT_PLAYERS:
        rules = VARIANTS[variant]
        if rules.pickup == "open":
            continue
        use_top = rules.pickup == "use-top"
        for seed in (1, 2):
            record = play_match(variant, players=players, hands=1, seed=seed)
            state = deal_hand(record, 0)
            for action in record.hands[0].parsed:
                pile = state.discard_pile
                if state.step == "draw" and pile:
                    seat = state.turn
                    for count in ([len(pile)] if use_top else range(2, len(pile) + 1)):
                        card = pile[-1] if use_top else pile[-count]
                        pool = list(state.hands[seat])
                        if not use_top:
                            for taken in pile[-count:]:
                                pool[taken] += 1
                            pool[card] -= 1
                        if state.hand_sizes[seat] + count > 3 and state._plainly_usable(card, pool, state.side_of[seat], use_top):
                            trial = state.copy()
                            trial._take(seat, 0 if use_top else count)
                            assert next(plays_using(trial, card, held_gaps=True), None) is not None, (variant, seed, action.text)
                            passed += 1
                state.apply(action)
    assert passed > 200, passed

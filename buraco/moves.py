"""The move generator: every legal play of the player to act, as python-chess's
``generate_legal_moves``.

Candidates are proposed here from the cards alone (every run window and set a
hand can fill, every way a meld can be extended, every place a wild can take)
and judged by the engine's own rules: :func:`candidate_melds` and
:func:`candidate_lay_offs` only propose, :func:`legal_plays` keeps what the
state's ``verify_*`` methods accept. Proposing is complete up to identical
cards: whatever legal meld or lay-off a hand can make, some candidate makes a
meld of the same cards in the same layout; except, unless ``held_gaps`` is
asked for, a lay-off leaving a gap for the run's own wild at a place whose
natural card the hand holds (proposed once that card has left the hand). The
analysis asks for those, to see every lay-off whatever else is still held, and so
does the take-time check of ``use-top`` and ``dig`` (rules.md 4: every legal play
counts); the bots do not. The check would reach the same verdicts without them, as
it asks only whether some play uses the taken card, and when such a lay-off does,
so does one proposed without ``held_gaps``: the same cards with the held natural in
the gap instead of the card displacing the wild, the wild staying where it was (as
many cards laid, so the hand is as far from empty); or, the taken card being the
one displacing the wild, that card alone, the wild moving to an end as the rule set
says (the gap's side is open). Under ``fixed`` no wild moves at all. So the bots'
own take decision agrees with the check, and their choice among plays is as it
was. (tests/engine/test_moves.py checks this on random tables; asking costs the
check nothing measurable.) They all read plays from here.

>>> from buraco.cards import parse_cards
>>> from buraco.rules import VARIANTS
>>> hand = counts_of(parse_cards("5h 6h 7h 8h Kc"))
>>> sorted(" ".join(map(str, t)) for t in candidate_melds(VARIANTS["cerrado"], hand))
['5h 6h 7h', '5h 6h 7h 8h', '6h 7h 8h']
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import product
from typing import TYPE_CHECKING, Final, NamedTuple

from .actions import (
    Action,
    add_action,
    dead_action,
    discard_action,
    draw_action,
    meld_action,
    take_action,
)
from .cards import CARD_KINDS, CARDS, JOKER_CODE, RANK_OF, SUIT_OF, Card, card_of
from .errors import IllegalActionError
from .melds import END_HIGH, END_LOW, IS_WILD_KIND, NO_PLACE, CardToken, Shape
from .rules import Variant

if TYPE_CHECKING:
    from .state import HandState

WILD_CODES: Final = tuple(c for c in range(CARD_KINDS) if IS_WILD_KIND[c])
# The card at each run position (1 and 14 the ace) of each suit: the generator's innermost lookup.
RUN_CARDS: Final = tuple(tuple(card_of(p, suit) if p else CARDS[0] for p in range(15)) for suit in range(4))


class Play(NamedTuple):
    """A legal meld or lay-off: the action, the meld it makes and the cards it takes from the hand."""

    action: Action
    shape: Shape
    meld: int  # the meld laid off on; 0 for a new meld
    cards: tuple[Card, ...]


def counts_of(cards: Iterable[int]) -> list[int]:
    """A hand as 53 counters, one per kind of card (how the state keeps hands)."""
    counts = [0] * CARD_KINDS
    for card in cards:
        counts[card] += 1
    return counts


# --- proposing new melds ----------------------------------------------------------------


def candidate_melds(
    variant: Variant,
    hand: Sequence[int],
    *,
    containing: int | None = None,
    min_length: int = 3,
    substitutes: bool = True,
) -> Iterator[tuple[CardToken, ...]]:
    """Token lists for every new meld ``hand`` might make, wild places named.

    ``containing`` keeps the melds holding that card; ``min_length`` the melds of
    that many cards or more. With ``substitutes`` a run may also hold a wild
    where the hand has the natural card (keeping the natural for another meld).
    """
    seen: set[tuple[CardToken, ...]] = set()
    for tokens in _run_melds(hand, containing, max(min_length, 3), substitutes):
        if tokens not in seen:
            seen.add(tokens)
            yield tokens
    if variant.sets:
        yield from _set_melds(variant, hand, containing, max(min_length, 3))


def _wilds_held(hand: Sequence[int], used: dict[int, int]) -> list[int]:
    return [w for w in WILD_CODES if hand[w] > used.get(w, 0)]


def _run_melds(
    hand: Sequence[int], containing: int | None, min_length: int, substitutes: bool
) -> Iterator[tuple[CardToken, ...]]:
    if containing is not None and not IS_WILD_KIND[containing]:
        suits: Iterable[int] = (SUIT_OF[containing],)
    else:
        suits = range(4)
    wilds = sum(hand[w] for w in WILD_CODES)
    for suit in suits:
        if min_length > 3 and sum(1 for p in range(1, 14) if hand[RUN_CARDS[suit][p]]) + 1 + wilds < min_length:
            continue  # too few cards of the suit for a run this long (an ace may count twice)
        yield from _suit_run_melds(hand, suit, containing, min_length, substitutes)


def _suit_run_melds(
    hand: Sequence[int], suit: int, containing: int | None, min_length: int, substitutes: bool
) -> Iterator[tuple[CardToken, ...]]:
    for low in range(1, 13):
        used: dict[int, int] = {}
        missing: list[int] = []
        for high in range(low, min(14, low + 13) + 1):
            natural = RUN_CARDS[suit][high]
            if hand[natural] > used.get(natural, 0):
                used[natural] = used.get(natural, 0) + 1
            else:
                missing.append(high)
                if len(missing) > 1:
                    break
            if high - low + 1 < min_length:
                continue
            yield from _run_windows(hand, suit, low, high, dict(used), missing, containing, substitutes)


def suit_run_melds(hand: Sequence[int], suit: int) -> Iterator[tuple[CardToken, ...]]:
    """:func:`candidate_melds`' runs of one suit (every length, wilds substituted too):
    they depend only on the hand's cards of that suit and its wilds, so a caller may
    remember them by those cards."""
    seen: set[tuple[CardToken, ...]] = set()
    for tokens in _suit_run_melds(hand, suit, None, 3, True):
        if tokens not in seen:
            seen.add(tokens)
            yield tokens


def rank_set_melds(variant: Variant, hand: Sequence[int], rank: int) -> Iterator[tuple[CardToken, ...]]:
    """:func:`candidate_melds`' sets of one rank (none where the rule set has no sets):
    they depend only on the hand's cards of that rank and its wilds."""
    if variant.sets and rank != 2:
        yield from _set_melds_of_rank(variant, hand, rank, None, 3)


def _run_windows(
    hand: Sequence[int],
    suit: int,
    low: int,
    high: int,
    used: dict[int, int],
    missing: list[int],
    containing: int | None,
    substitutes: bool,
) -> Iterator[tuple[CardToken, ...]]:
    naturals = [RUN_CARDS[suit][p] for p in range(low, high + 1)]
    if not missing:
        if containing is None or containing in naturals:
            yield tuple(CardToken(c) for c in naturals)
        if not substitutes:
            return
        spots = range(low, high + 1)
    else:
        spots = range(missing[0], missing[0] + 1)
    for spot in spots:
        index = spot - low
        natural = naturals[index]
        if not missing:
            used = dict(used)
            used[natural] -= 1
        for wild in _wilds_held(hand, used):
            if wild == natural:
                continue
            cards = [*naturals[:index], CARDS[wild], *naturals[index + 1:]]
            if containing is not None and containing not in cards:
                continue
            if sum(1 for c in cards if not IS_WILD_KIND[c] or (RANK_OF[c] == 2 and SUIT_OF[c] == suit)) < 2:
                continue
            yield tuple(
                CardToken(CARDS[wild], natural) if i == index else CardToken(c) for i, c in enumerate(cards)
            )
        if not missing:
            used[natural] += 1


def _set_melds(
    variant: Variant, hand: Sequence[int], containing: int | None, min_length: int
) -> Iterator[tuple[CardToken, ...]]:
    if containing is not None and not IS_WILD_KIND[containing]:
        ranks: Iterable[int] = (RANK_OF[containing],)
    else:
        ranks = (1, *range(3, 14))
    for rank in ranks:
        yield from _set_melds_of_rank(variant, hand, rank, containing, min_length)


def _set_melds_of_rank(
    variant: Variant, hand: Sequence[int], rank: int, containing: int | None, min_length: int
) -> Iterator[tuple[CardToken, ...]]:
    largest = variant.set_max or 99
    codes = [(rank - 1) * 4 + s for s in range(4)]
    limits = [min(hand[c], 1) if variant.set_suits_distinct else hand[c] for c in codes]
    if sum(limits) < variant.min_naturals or sum(limits) + 1 < min_length:
        return
    for choice in product(*(range(n + 1) for n in limits)):
        count = sum(choice)
        if count < variant.min_naturals:
            continue
        naturals = tuple(CardToken(CARDS[c]) for c, n in zip(codes, choice) for _ in range(n))
        if count >= min_length and count <= largest and (containing is None or _holds(naturals, containing)):
            yield naturals
        if count + 1 >= min_length and count + 1 <= largest:
            for wild in WILD_CODES:
                if hand[wild] and (containing is None or containing == wild or _holds(naturals, containing)):
                    yield (*naturals, CardToken(CARDS[wild]))


def _holds(tokens: Sequence[CardToken], card: int) -> bool:
    return any(t.card == card for t in tokens)


# --- proposing lay-offs -----------------------------------------------------------------


def candidate_lay_offs(
    variant: Variant,
    shape: Shape,
    hand: Sequence[int],
    *,
    containing: int | None = None,
    min_length: int = 0,
    substitutes: bool = True,
    held_gaps: bool = False,
) -> Iterator[tuple[CardToken, ...]]:
    """Token lists for every lay-off of ``hand`` cards onto a meld of ``shape``.

    A run is extended to every window around it that the hand can fill, with at
    most one wild in all: the meld's own wild staying, or moved when its natural
    card comes (to a gap the new cards leave, or where the rule set or a
    directive puts it), or one new wild in a clean run.

    With ``held_gaps``, the gap a run's own wild may move to is also left at a place
    whose natural card the hand holds (kept back for another play): ``Ah>low Qh`` on
    ``3h..Jh 2d=Qh Kh Ah`` while holding the 2h, the 2d moving to the 2's place. Without
    it, such a lay-off is proposed only once the natural card has left the hand. (The
    analysis's searches ask for them: a search placing cards one play at a time must
    see every lay-off the cards allow whatever else is still held.)
    """
    if shape.is_run:
        found = _run_lay_offs(variant, shape, hand, containing, min_length, substitutes, held_gaps)
    else:
        found = _set_lay_offs(variant, shape, hand, containing, min_length)
    seen: set[tuple[CardToken, ...]] = set()
    for tokens in found:
        if tokens and tokens not in seen and (containing is None or _holds(tokens, containing)):
            seen.add(tokens)
            yield tokens


def _natural_token(card: Card, position: int) -> CardToken:
    if RANK_OF[card] == 1:
        return CardToken(card, NO_PLACE, END_LOW if position == 1 else END_HIGH)
    return CardToken(card)


def _side_extensions(hand: Sequence[int], suit: int, places: Iterable[int]) -> Iterator[tuple[int, list[int], list[int]]]:
    """Walking away from the run on one side: (the farthest place, places held, places
    missing), for as long as at most one place is missing."""
    used: dict[int, int] = {}
    held: list[int] = []
    missing: list[int] = []
    for place in places:
        natural = RUN_CARDS[suit][place]
        if hand[natural] > used.get(natural, 0):
            used[natural] = used.get(natural, 0) + 1
            held.append(place)
        else:
            missing.append(place)
            if len(missing) > 1:
                return
        yield place, list(held), list(missing)


def _side_extensions_with_gaps(hand: Sequence[int], suit: int, places: Iterable[int]) -> Iterator[tuple[int, list[int], list[int]]]:
    """:func:`_side_extensions`, and at each farthest place also every way of leaving
    missing one place whose natural card the hand holds (kept back for another play; the
    places of one side are distinct cards). The greedy way comes first, as there."""
    ways: list[tuple[list[int], list[int]]] = [([], [])]  # (places held, places missing)
    for place in places:
        present = hand[RUN_CARDS[suit][place]] > 0
        grown: list[tuple[list[int], list[int]]] = []
        for held, missing in ways:
            if present:
                grown.append(([*held, place], missing))
            if not missing:
                grown.append((held, [place]))
        if not grown:
            return
        ways = grown
        for held, missing in ways:
            yield place, list(held), list(missing)


def _run_lay_offs(
    variant: Variant,
    shape: Shape,
    hand: Sequence[int],
    containing: int | None,
    min_length: int,
    substitutes: bool,
    held_gaps: bool = False,
) -> Iterator[tuple[CardToken, ...]]:
    suit, low, high = shape.suit, shape.low, shape.high
    if containing is not None and not IS_WILD_KIND[containing] and SUIT_OF[containing] != suit:
        return
    wild_at = low + shape.wild_index if shape.wild_index >= 0 else 0
    wild = shape.wild
    # A gap at a place whose natural is held matters only for the meld's own wild, which
    # may move there (a new wild in a clean run is a substitute, proposed anyway).
    sides = _side_extensions_with_gaps if held_gaps and wild is not None and variant.wild_move != "fixed" else _side_extensions
    lows = [(low, [], []), *sides(hand, suit, range(low - 1, 0, -1))]
    highs = [(high, [], []), *sides(hand, suit, range(high + 1, 15))]
    for first, held_low, missing_low in lows:
        for last, held_high, missing_high in highs:
            if last - first + 1 > 14 or len(missing_low) + len(missing_high) > 1:
                continue
            if last - first + 2 < min_length:
                continue  # even a wild moved beyond the window would leave the meld too short
            held = held_low + held_high
            missing = missing_low + missing_high
            if held_low and held_high and RUN_CARDS[suit][held_low[-1]] == RUN_CARDS[suit][held_high[-1]]:
                if hand[RUN_CARDS[suit][held_low[-1]]] < 2:
                    continue  # one ace cannot sit at both ends
            yield from _run_windows_laid(variant, hand, suit, wild, wild_at, held, missing, first, last, substitutes)


def _run_windows_laid(
    variant: Variant,
    hand: Sequence[int],
    suit: int,
    wild: Card | None,
    wild_at: int,
    held: list[int],
    missing: list[int],
    first: int,
    last: int,
    substitutes: bool,
) -> Iterator[tuple[CardToken, ...]]:
    used: dict[int, int] = {}
    for place in held:
        used[RUN_CARDS[suit][place]] = used.get(RUN_CARDS[suit][place], 0) + 1
    laid = [_natural_token(RUN_CARDS[suit][p], p) for p in held]
    if wild is None:
        if not missing:
            yield tuple(laid)
            if substitutes:
                for index, place in enumerate(held):
                    rest = dict(used)
                    rest[RUN_CARDS[suit][place]] -= 1
                    for new_wild in _wilds_held(hand, rest):
                        if new_wild != RUN_CARDS[suit][place]:
                            yield (*laid[:index], CardToken(CARDS[new_wild], RUN_CARDS[suit][place]), *laid[index + 1:])
        else:
            spot = RUN_CARDS[suit][missing[0]]
            for new_wild in _wilds_held(hand, used):
                if new_wild != spot:
                    yield (*laid, CardToken(CARDS[new_wild], spot))
        return
    # The meld holds a wild: it stays, or its natural card displaces it.
    if missing and variant.wild_move == "anywhere":
        yield tuple(laid)  # the wild may leave its place for the gap (7-8-9-2 + 5: 5-2-7-8-9)
    if not missing:
        if laid:
            yield tuple(laid)
        if variant.wild_move == "anywhere":
            for place in range(first - 1, last + 2):
                if 1 <= place <= 14 and place != wild_at:
                    yield (*laid, CardToken(wild, RUN_CARDS[suit][place]))
    displacing = RUN_CARDS[suit][wild_at]
    if hand[displacing] <= used.get(displacing, 0):
        return
    displaced = (*laid, _natural_token(displacing, wild_at))
    yield displaced
    if missing:
        return
    if variant.wild_move == "either-end":
        yield (*displaced, CardToken(wild, NO_PLACE, END_LOW))
        yield (*displaced, CardToken(wild, NO_PLACE, END_HIGH))
    elif variant.wild_move == "anywhere":
        for place in range(first - 1, last + 2):
            if 1 <= place <= 14 and place != wild_at:
                yield (*displaced, CardToken(wild, RUN_CARDS[suit][place]))


def _set_lay_offs(
    variant: Variant, shape: Shape, hand: Sequence[int], containing: int | None, min_length: int
) -> Iterator[tuple[CardToken, ...]]:
    if containing is not None and not IS_WILD_KIND[containing] and RANK_OF[containing] != shape.rank:
        return
    if containing is not None and IS_WILD_KIND[containing] and shape.wild_index >= 0:
        return
    codes = [(shape.rank - 1) * 4 + s for s in range(4)]
    on_table = {SUIT_OF[c] for c in shape.cards if not IS_WILD_KIND[c]}
    limits = [
        (0 if s in on_table else min(hand[c], 1)) if variant.set_suits_distinct else hand[c]
        for s, c in enumerate(codes)
    ]
    room = (variant.set_max or 99) - len(shape.cards)
    for choice in product(*(range(n + 1) for n in limits)):
        count = sum(choice)
        naturals = tuple(CardToken(CARDS[c]) for c, n in zip(codes, choice) for _ in range(n))
        if 1 <= count <= room and len(shape.cards) + count >= min_length:
            yield naturals
        if shape.wild_index < 0 and count + 1 <= room and len(shape.cards) + count + 1 >= min_length:
            for wild in WILD_CODES:
                if hand[wild]:
                    yield (*naturals, CardToken(CARDS[wild]))


# --- legal plays of a state -------------------------------------------------------------


def may_extend(state: HandState, seat: int, number: int) -> bool:
    """May ``seat`` lay off on meld ``number``: its side's melds, or anyone's in ``brasil``."""
    meld = state.melds[number - 1]
    return state.variant.lay_off_anyone or meld.side == state.side_of[seat]


def meld_plays(
    state: HandState, *, containing: int | None = None, min_length: int = 3, substitutes: bool = True
) -> Iterator[Play]:
    """Every legal new meld of the player to act (judged by ``state.verify_meld``)."""
    seat = state.turn
    for tokens in candidate_melds(
        state.variant, state.hands[seat], containing=containing, min_length=min_length, substitutes=substitutes
    ):
        try:
            shape = state.verify_meld(seat, tokens)
        except IllegalActionError:
            continue
        yield Play(meld_action(seat, tokens), shape, 0, tuple(t.card for t in tokens))


def lay_off_plays(
    state: HandState,
    *,
    containing: int | None = None,
    min_length: int = 0,
    substitutes: bool = True,
    melds: Iterable[int] | None = None,
    held_gaps: bool = False,
) -> Iterator[Play]:
    """Every legal lay-off of the player to act, on each meld they may extend
    (or on ``melds``), with every legal place of a wild that moves (``held_gaps``: as
    :func:`candidate_lay_offs` says)."""
    seat = state.turn
    numbers = melds if melds is not None else range(1, len(state.melds) + 1)
    hand = state.hands[seat]
    for number in numbers:
        if not may_extend(state, seat, number):
            continue
        shape = state.melds[number - 1].shape
        if len(shape.cards) + state.hand_sizes[seat] < min_length:
            continue
        for tokens in candidate_lay_offs(
            state.variant, shape, hand, containing=containing, min_length=min_length, substitutes=substitutes,
            held_gaps=held_gaps,
        ):
            try:
                result = state.verify_add(seat, number, tokens)
            except IllegalActionError:
                continue
            laid = tuple(t.card for i, t in enumerate(tokens) if i != result.directive)
            yield Play(add_action(seat, number, tokens), result.shape, number, laid)


def draw_step_actions(state: HandState) -> Iterator[Action]:
    """The legal ways to begin the turn: the stock's top card (when the record
    knows it), the whole pile, and in ``dig`` every depth."""
    seat = state.turn
    if state.stock_count and state.stock and not state.hidden:
        card = state.stock[-1]
        yield draw_action(seat, card)
    if not state.discard_pile:
        return
    if state.variant.pickup == "dig":
        for depth in range(1, len(state.discard_pile) + 1):
            if state.can_take(seat, depth):
                yield take_action(seat, depth)
    elif state.can_take(seat):
        yield take_action(seat)


def discard_actions(state: HandState) -> Iterator[Action]:
    """Every legal discard of the player to act, one per kind of card."""
    seat = state.turn
    for code in range(CARD_KINDS):
        if state.hands[seat][code] and state.can_discard(seat, CARDS[code]):
            yield discard_action(seat, CARDS[code])


def legal_plays(state: HandState) -> Iterator[Action]:
    """Every legal action of the player to act, as actions ``state.apply`` accepts.

    At the draw step: drawing and taking. While playing: every new meld, every
    lay-off (each legal wild placement), every discard. After emptying the hand
    onto a dead pile: picking it up.
    """
    step = state.step  # the state's step names (buraco.state.DRAW_STEP, ...), read without importing it
    if step == "draw":
        yield from draw_step_actions(state)
    elif step == "play":
        yield from (play.action for play in meld_plays(state))
        yield from (play.action for play in lay_off_plays(state))
        yield from discard_actions(state)
    elif step in ("dead-direct", "dead-indirect"):
        yield dead_action(state.turn)


def plays_using(state: HandState, card: int, *, held_gaps: bool = False) -> Iterator[Play]:
    """The legal melds and lay-offs holding ``card`` that meet the obligation of
    the pile just taken (rules.md 4, ``use-top`` and ``dig``). Lay-offs come first
    and plays without substituted wilds before those with: the take-time check
    stops at the first. (``held_gaps``: as :func:`candidate_lay_offs` says.)"""
    obligation = state.obligation
    numbers: Iterable[int] = range(1, len(state.melds) + 1)
    use_top = obligation is not None and bool(obligation.before)
    if obligation is not None and use_top:
        numbers = range(1, obligation.melds_before + 1)  # use-top: onto a meld laid before the pick-up
    seen: set[str] = set()
    for substitutes in (False, True):
        if not (use_top and card == JOKER_CODE):  # a joker on top always goes into a new meld
            for play in lay_off_plays(state, containing=card, melds=numbers, substitutes=substitutes, held_gaps=held_gaps):
                if play.action.text not in seen and (obligation is None or state.add_meets_obligation(
                    obligation, state.melds[play.meld - 1], play.shape, play.cards
                )):
                    seen.add(play.action.text)
                    yield play
        for play in meld_plays(state, containing=card, substitutes=substitutes):
            if play.action.text not in seen and (obligation is None or state.meld_meets_obligation(obligation, play.cards)):
                seen.add(play.action.text)
                yield play


__all__ = [
    "Play", "RUN_CARDS", "WILD_CODES", "add_action", "candidate_lay_offs", "candidate_melds", "counts_of", "discard_actions",
    "draw_step_actions", "lay_off_plays", "legal_plays", "may_extend", "meld_action", "meld_plays", "plays_using",
    "rank_set_melds", "suit_run_melds",
]

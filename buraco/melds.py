"""Melds: reading a new meld's layout, laying cards off, and canasta kinds.

A run is kept as its cards low to high plus the position of its lowest card
(1 is a low ace, 14 a high ace) and the index of its wild, if any; a set as its
cards with the wild last. Everything here is a pure function of the cards
and the rule set, so the state machine, the bots and the checks share it.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import product
from typing import Final, NamedTuple

from .cards import CARD_TEXT, CARDS, JOKER_CODE, RANK_OF, SUIT_LETTERS, SUIT_OF, Card, card_of
from .errors import AmbiguousActionError, IllegalActionError
from .rules import Variant

NO_PLACE: Final = -1
END_NONE: Final = 0
END_LOW: Final = 1
END_HIGH: Final = 2
END_WORDS: Final = ("", "low", "high")

# A card that may stand in for another: a joker or any 2.
IS_WILD_KIND: Final[tuple[bool, ...]] = tuple(c == JOKER_CODE or RANK_OF[c] == 2 for c in range(53))
SUIT_NAMES: Final = ("clubs", "diamonds", "hearts", "spades")


class CardToken(NamedTuple):
    """A card as written in a meld or lay-off, with the place it names, if any.

    ``place`` is the code of the card it stands for (``JK=4h``) or NO_PLACE;
    ``end`` asks for the low or high end (``Ah>high``, ``2c>low``).
    """

    card: Card
    place: int = NO_PLACE
    end: int = END_NONE

    def __str__(self) -> str:
        text = CARD_TEXT[self.card]
        if self.place != NO_PLACE:
            text += "=" + CARD_TEXT[self.place]
        if self.end:
            text += ">" + END_WORDS[self.end]
        return text


class Shape(NamedTuple):
    """A meld's layout: for runs ``low`` is the first card's position."""

    is_run: bool
    suit: int  # runs: 0..3; sets: -1
    rank: int  # sets: the rank; runs: 0
    low: int
    cards: tuple[Card, ...]
    wild_index: int  # -1 when clean

    @property
    def high(self) -> int:
        return self.low + len(self.cards) - 1

    @property
    def wild(self) -> Card | None:
        return None if self.wild_index < 0 else self.cards[self.wild_index]

    def stand_in(self) -> str | None:
        """The card the wild stands for: ``6h`` in a run, the rank in a set."""
        if self.wild_index < 0:
            return None
        if self.is_run:
            return CARD_TEXT[card_of(self.low + self.wild_index, self.suit)]
        return CARD_TEXT[CARDS[(self.rank - 1) * 4]][0]

    def text(self) -> str:
        return " ".join(CARD_TEXT[c] for c in self.cards)


class AddResult(NamedTuple):
    shape: Shape
    directive: int  # index of the token that only moves the table's wild, or -1
    wild_from: int  # the table wild's position before (runs), 0 if none
    wild_to: int  # its position after; 0 when it became a natural 2 or none


def _pos_text(position: int, suit: int) -> str:
    return CARD_TEXT[card_of(position, suit)]


def _ace_rule_error(variant: Variant, positions: Sequence[int], naturals: set[int]) -> str | None:
    if len(positions) > 14:
        return "a run holds at most 14 cards"
    if not variant.ace_to_ace and 1 in naturals and 14 in naturals:
        return f"{variant.id} has no ace-to-ace run: an ace may sit at one end only"
    return None


# --- new melds -------------------------------------------------------------------


def resolve_meld(tokens: Sequence[CardToken], variant: Variant) -> Shape:
    """The layout of a new meld, read as notation.md says.

    The written order wins when it is a legal layout; otherwise the one legal
    layout; several legal layouts and no named place is ambiguous.
    """
    if len(tokens) < 3:
        raise IllegalActionError("a meld needs at least 3 cards")
    for token in tokens:
        if token.end:
            raise IllegalActionError(
                f"{token}: in a meld the written order places every card, so no card names an end "
                f"(>low, >high belong to add): write {CARD_TEXT[token.card]} where it goes"
            )
        if token.place != NO_PLACE:  # a card written plainly names no place: nothing to check
            _check_stand_in(token)
    naturals = [t.card for t in tokens if not IS_WILD_KIND[t.card]]
    if not naturals:
        if all(t.card != JOKER_CODE for t in tokens):
            raise IllegalActionError("a set of 2s is never legal")
        raise IllegalActionError("a meld needs natural cards: these are all wild")
    if len(naturals) > 1 and all(RANK_OF[c] == RANK_OF[naturals[0]] for c in naturals):
        return _resolve_set(tokens, naturals, variant)
    written = _run_in_written_order(tokens, variant)
    if written is not None:
        return written
    layouts = _run_layouts(tokens, variant)
    if len(layouts) == 1:
        return layouts[0]
    if layouts:
        options = "; ".join(_describe(s) for s in layouts[:3])
        raise AmbiguousActionError(f"the meld can be laid out {len(layouts)} ways ({options}): name the wild's place, e.g. JK=4h")
    raise IllegalActionError(_why_not_run(tokens, variant))


def meld_layouts(tokens: Sequence[CardToken], variant: Variant) -> list[Shape]:
    """Every legal layout of a new meld, ignoring the written order."""
    naturals = [t.card for t in tokens if not IS_WILD_KIND[t.card]]
    if len(tokens) < 3 or not naturals or any(t.end or _stand_in_error(t) for t in tokens):
        return []
    if len(naturals) > 1 and all(RANK_OF[c] == RANK_OF[naturals[0]] for c in naturals):
        try:
            return [_resolve_set(tokens, naturals, variant)]
        except IllegalActionError:
            return []
    return _run_layouts(tokens, variant)


def _stand_in_error(token: CardToken) -> str | None:
    """What is wrong with the place a written card names, if anything (notation.md:
    only a wild names a stand-in, and never itself)."""
    place = token.place
    if place == NO_PLACE:
        return None
    card = token.card
    text = CARD_TEXT[card]
    if place == card:
        if RANK_OF[card] == 2:
            return f"{token}: a 2 in its own place is a natural 2 and names no stand-in: write it plainly, {text}"
        return f"{token}: a card never stands in for itself: write it plainly, {text}"
    if not IS_WILD_KIND[card]:
        return f"{token}: only a wild names a stand-in; {text} is natural and takes its own place"
    if place == JOKER_CODE:
        return f"{token}: a wild stands in for a natural card, never for a joker"
    return None


def _check_stand_in(token: CardToken) -> None:
    problem = _stand_in_error(token)
    if problem is not None:
        raise IllegalActionError(problem)


def layout_tokens(shape: Shape) -> tuple[CardToken, ...]:
    """The meld written so that it reads back as exactly this layout."""
    if not shape.is_run or shape.wild_index < 0:
        return tuple(CardToken(c) for c in shape.cards)
    wild_place = card_of(shape.low + shape.wild_index, shape.suit)
    return tuple(
        CardToken(c, wild_place) if i == shape.wild_index else CardToken(c) for i, c in enumerate(shape.cards)
    )


def _describe(shape: Shape) -> str:
    if shape.wild_index < 0:
        return shape.text()
    return f"{shape.text()} with {CARD_TEXT[shape.cards[shape.wild_index]]} as {shape.stand_in()}"


def _resolve_set(tokens: Sequence[CardToken], naturals: list[Card], variant: Variant) -> Shape:
    rank = RANK_OF[naturals[0]]
    if not variant.sets:
        raise IllegalActionError(f"{variant.id} has no sets: only runs of one suit")
    wilds = [t for t in tokens if IS_WILD_KIND[t.card]]
    if len(wilds) > 1:
        raise IllegalActionError("a meld holds at most one wild")
    if len(naturals) < variant.min_naturals:
        raise IllegalActionError(f"a meld needs at least {variant.min_naturals} natural cards")
    if variant.set_suits_distinct and len({SUIT_OF[c] for c in naturals}) != len(naturals):
        raise IllegalActionError(f"in {variant.id} a set's cards must all be of different suits")
    if variant.set_max is not None and len(tokens) > variant.set_max:
        raise IllegalActionError(f"in {variant.id} a set holds at most {variant.set_max} cards")
    for token in tokens:
        if token.end:
            raise IllegalActionError(f"{token}: a set has no ends")
        if token.place != NO_PLACE and RANK_OF[token.place] != rank:
            raise IllegalActionError(f"{token}: this set is of {CARD_TEXT[naturals[0]][0]}s")
        if variant.set_suits_distinct and token.place != NO_PLACE and IS_WILD_KIND[token.card]:
            if any(SUIT_OF[c] == SUIT_OF[token.place] for c in naturals):
                raise IllegalActionError(f"{token}: the set already holds {CARD_TEXT[token.place]}")
    cards = tuple(sorted(naturals)) + tuple(t.card for t in wilds)
    return Shape(False, -1, rank, 0, cards, len(naturals) if wilds else -1)


def _run_in_written_order(tokens: Sequence[CardToken], variant: Variant) -> Shape | None:
    count = len(tokens)
    anchor = next(i for i, t in enumerate(tokens) if not IS_WILD_KIND[t.card])
    anchor_card = tokens[anchor].card
    suit = SUIT_OF[anchor_card]
    rank = RANK_OF[anchor_card]
    starts = (1 - anchor, 14 - anchor) if rank == 1 else (rank - anchor,)
    for start in starts:
        if start < 1 or start + count - 1 > 14:
            continue
        wild_index = -1
        for i, token in enumerate(tokens):
            position = start + i
            natural = card_of(position, suit)
            if token.card == natural and token.place in (NO_PLACE, natural):
                if token.end and not _end_matches(token.end, i, count):
                    break
                continue
            if not IS_WILD_KIND[token.card] or wild_index >= 0:
                break
            if token.place not in (NO_PLACE, natural) or (token.end and not _end_matches(token.end, i, count)):
                break
            wild_index = i
        else:
            if not variant.ace_to_ace and start == 1 and count == 14 and wild_index not in (0, 13):
                return None
            return Shape(True, suit, 0, start, tuple(t.card for t in tokens), wild_index)
    return None


def _end_matches(end: int, index: int, count: int) -> bool:
    return (end == END_LOW and index == 0) or (end == END_HIGH and index == count - 1)


def _position_options(token: CardToken, suit: int) -> list[int]:
    """Where a card may sit in a run of ``suit``: positions, or 0 for "as a wild"."""
    card = token.card
    if card == JOKER_CODE or (RANK_OF[card] == 2 and SUIT_OF[card] != suit):
        return [0]
    rank = RANK_OF[card]
    if rank == 2:
        if token.place != NO_PLACE or token.end == END_HIGH:
            return [0]
        if token.end == END_LOW:
            return [0, 2]  # natural where the low end is its own place (add: checked in _check_run_positions)
        return [2, 0]
    if token.place != NO_PLACE and token.place != card:
        return []
    if rank == 1:
        if token.end == END_HIGH:
            return [14]
        if token.end == END_LOW:
            return [1]
        return [1, 14]
    return [] if token.end else [rank]


def _run_layouts(tokens: Sequence[CardToken], variant: Variant) -> list[Shape]:
    suits = {SUIT_OF[t.card] for t in tokens if not IS_WILD_KIND[t.card]}
    if len(suits) != 1:
        return []
    suit = suits.pop()
    found: dict[tuple[int, tuple[Card, ...], int], Shape] = {}
    for choice in product(*(_position_options(t, suit) for t in tokens)):
        wilds = [tokens[i] for i, p in enumerate(choice) if p == 0]
        if len(wilds) > 1:
            continue
        positions = [p for p in choice if p]
        if len(set(positions)) != len(positions):
            continue
        low, high = min(positions), max(positions)
        gaps = [p for p in range(low, high + 1) if p not in positions]
        if len(gaps) > len(wilds):
            continue
        if wilds:
            wild = wilds[0]
            spots = gaps or [p for p in (low - 1, high + 1) if 1 <= p <= 14]
            if wild.place != NO_PLACE:
                spots = [p for p in spots if card_of(p, suit) == wild.place]
            if wild.end == END_LOW:
                spots = [p for p in spots if p < low]
            elif wild.end == END_HIGH:
                spots = [p for p in spots if p > high]
        else:
            spots = [0]
        for spot in spots:
            by_position = {p: tokens[i].card for i, p in enumerate(choice) if p}
            if spot:
                if wilds[0].card == card_of(spot, suit):
                    continue  # a 2 in its own place is natural, counted by another choice
                by_position[spot] = wilds[0].card
            ordered = sorted(by_position)
            if _ace_rule_error(variant, ordered, set(p for p in ordered if p != spot)):
                continue
            cards = tuple(by_position[p] for p in ordered)
            wild_index = ordered.index(spot) if spot else -1
            shape = Shape(True, suit, 0, ordered[0], cards, wild_index)
            found[(shape.low, cards, wild_index)] = shape
    return list(found.values())


def _why_not_run(tokens: Sequence[CardToken], variant: Variant) -> str:
    naturals = [t.card for t in tokens if not IS_WILD_KIND[t.card]]
    wilds = [t.card for t in tokens if IS_WILD_KIND[t.card]]
    suits = {SUIT_OF[c] for c in naturals}
    listed = " ".join(str(t) for t in tokens)
    if len({RANK_OF[c] for c in naturals}) == 1 and len(naturals) > 1:
        return f"{listed} is no meld: a set of {CARD_TEXT[naturals[0]][0]}s needs at most one wild"
    if len(suits) > 1:
        return f"{listed} is no meld: a run is of one suit and a set of one rank"
    if not variant.ace_to_ace and sum(1 for c in naturals if RANK_OF[c] == 1) > 1:
        return f"{listed} is no run: {variant.id} has no ace-to-ace run"
    if len(wilds) > 1 and not any(RANK_OF[c] == 2 and SUIT_OF[c] in suits for c in wilds):
        return f"{listed} is no meld: a meld holds at most one wild"
    return f"{listed} is no run: its cards are not consecutive (at most one wild fills one gap, no wrapping past the ace)"


# --- lay-offs ----------------------------------------------------------------------


def resolve_add(shape: Shape, tokens: Sequence[CardToken], variant: Variant) -> AddResult:
    """The meld after laying off ``tokens``: judged by its result (notation.md)."""
    if not tokens:
        raise IllegalActionError("a lay-off needs at least one card")
    for token in tokens:
        if token.place != NO_PLACE:  # a card written plainly names no place: nothing to check
            _check_stand_in(token)
    if not shape.is_run:
        return AddResult(_add_to_set(shape, tokens, variant), -1, 0, 0)
    plain = plain_run_add(shape, tokens, variant)
    if plain is not None:
        return plain
    return _add_to_run(shape, tokens, variant)


def plain_run_add(shape: Shape, tokens: Sequence[CardToken], variant: Variant) -> AddResult | None:
    """A lay-off on the run ``shape`` decided by the plain paths alone: naturals extending
    its ends, or one natural on the place its wild holds. None: only the full reader can
    tell (:func:`resolve_add`). Where it answers, the lay-off is legal and laid as the
    full reader lays it. (Tokens naming no place: it checks no stand-in.)

    >>> from buraco.cards import parse_cards
    >>> from buraco.rules import VARIANTS
    >>> run = resolve_meld([CardToken(c) for c in parse_cards("Jh Qh Kh")], VARIANTS["cerrado"])
    >>> plain_run_add(run, [CardToken(c) for c in parse_cards("Ah")], VARIANTS["cerrado"]).shape.text()
    'Jh Qh Kh Ah'
    >>> dirty = resolve_meld([CardToken(c) for c in parse_cards("5h JK 7h")], VARIANTS["cerrado"])
    >>> plain_run_add(dirty, [CardToken(c) for c in parse_cards("6h")], VARIANTS["cerrado"]).shape.text()
    '5h 6h 7h JK'
    >>> plain_run_add(dirty, [CardToken(c) for c in parse_cards("6h")], VARIANTS["brasil"]) is None  # the wild stays
    True
    """
    plain = _extend_run_at_ends(shape, tokens)
    if plain is None:
        plain = _fill_wild_place(shape, tokens, variant)
    return plain


def _extend_run_at_ends(shape: Shape, tokens: Sequence[CardToken]) -> AddResult | None:
    """The common lay-off, fast: plain naturals (no 2) extending the run's ends, an ace
    only where one end alone can take it. (Below a run that ends on the ace too: no
    natural card goes above it.)"""
    suit, low, high = shape.suit, shape.low, shape.low + len(shape.cards) - 1
    below: list[int] = []
    above: list[int] = []
    aces = 0
    for token in tokens:
        card = token.card
        rank = RANK_OF[card]
        if token.place != NO_PLACE or token.end or rank == 2 or card == JOKER_CODE or SUIT_OF[card] != suit:
            return None
        if rank == 1:
            aces += 1
        elif rank < low:
            below.append(rank)
        elif rank > high:
            above.append(rank)
        else:
            return None
    below.sort(reverse=True)
    above.sort()
    if aces:
        # An ace goes where only one end can take it: above a run that will end on the
        # king and start at a 3 or higher, or below one that starts at the 2 and will end
        # on the queen or lower. Any other ace is left to the full reader.
        if aces > 1:
            return None
        if high + len(above) == 13 and low - len(below) >= 3:
            above.append(14)
        elif low == 2 and not below and high + len(above) <= 12:
            below.append(1)
        else:
            return None
    if any(rank != low - 1 - i for i, rank in enumerate(below)) or any(rank != high + 1 + i for i, rank in enumerate(above)):
        return None
    new_low = low - len(below)
    cards = tuple(card_of(r, suit) for r in reversed(below)) + shape.cards + tuple(card_of(r, suit) for r in above)
    wild_index = shape.wild_index + len(below) if shape.wild_index >= 0 else -1
    wild_at = shape.low + shape.wild_index if shape.wild_index >= 0 else 0
    return AddResult(Shape(True, suit, 0, new_low, cards, wild_index), -1, wild_at, wild_at)


def _fill_wild_place(shape: Shape, tokens: Sequence[CardToken], variant: Variant) -> AddResult | None:
    """The other common lay-off, fast: one plain natural (no ace) on the place the run's
    wild holds, which moves to the end the rule set sends it to (rules.md, "Wild cards in
    runs": the high end while it is open, else the low end; in ``either-end`` the low end
    first). Left to the full reader: a wild that stays (``fixed``, which refuses the
    card), a 2 of the run's suit (it may turn natural), an ace (two ends), a full run."""
    if len(tokens) != 1 or shape.wild_index < 0:
        return None
    token = tokens[0]
    card = token.card
    suit = shape.suit
    rank = RANK_OF[card]
    if token.place != NO_PLACE or token.end or IS_WILD_KIND[card] or rank == 1 or SUIT_OF[card] != suit:
        return None
    low = shape.low
    wild_from = low + shape.wild_index
    wild = shape.cards[shape.wild_index]
    if rank != wild_from or wild == card_of(2, suit) or variant.wild_move == "fixed":
        return None
    high = low + len(shape.cards) - 1
    wild_to = _displaced_wild_end(low, high, variant)
    if not 1 <= wild_to <= 14:
        return None
    naturals = set(range(low, high + 1))
    if _ace_rule_error(variant, sorted(naturals | {wild_to}), naturals):
        return None
    cards = list(shape.cards)
    cards[shape.wild_index] = card
    if wild_to > high:
        return AddResult(Shape(True, suit, 0, low, (*cards, wild), len(cards)), -1, wild_from, wild_to)
    return AddResult(Shape(True, suit, 0, low - 1, (wild, *cards), 0), -1, wild_from, wild_to)


def _add_to_set(shape: Shape, tokens: Sequence[CardToken], variant: Variant) -> Shape:
    naturals = [c for c in shape.cards if not IS_WILD_KIND[c]]
    wilds = [c for c in shape.cards if IS_WILD_KIND[c]]
    rank_text = CARD_TEXT[CARDS[(shape.rank - 1) * 4]][0]
    for token in tokens:
        card = token.card
        if token.end:
            raise IllegalActionError(f"{token}: a set has no ends")
        if IS_WILD_KIND[card]:
            wilds.append(card)
        elif RANK_OF[card] != shape.rank:
            raise IllegalActionError(f"{CARD_TEXT[card]} does not fit a set of {rank_text}s")
        else:
            naturals.append(card)
        if token.place != NO_PLACE and RANK_OF[token.place] != shape.rank:
            raise IllegalActionError(f"{token}: this set is of {rank_text}s")
    if len(wilds) > 1:
        raise IllegalActionError("a meld holds at most one wild")
    if variant.set_suits_distinct and len({SUIT_OF[c] for c in naturals}) != len(naturals):
        raise IllegalActionError(f"in {variant.id} a set's cards must all be of different suits")
    total = len(naturals) + len(wilds)
    if variant.set_max is not None and total > variant.set_max:
        raise IllegalActionError(f"in {variant.id} a set holds at most {variant.set_max} cards")
    cards = tuple(sorted(naturals)) + tuple(wilds)
    return Shape(False, -1, shape.rank, 0, cards, len(naturals) if wilds else -1)


def _add_to_run(shape: Shape, tokens: Sequence[CardToken], variant: Variant) -> AddResult:
    suit = shape.suit
    table_wild = shape.wild
    wild_from = shape.low + shape.wild_index if table_wild is not None else 0
    directive: CardToken | None = None
    directive_index = -1
    laid: list[CardToken] = []
    for index, token in enumerate(tokens):
        if (
            directive is None
            and table_wild is not None
            and token.card == table_wild
            and (token.place != NO_PLACE or token.end)
            and _names_other_place(token, wild_from, suit)
        ):
            directive = token
            directive_index = index
        else:
            laid.append(token)
    for token in laid:
        card = token.card
        if not IS_WILD_KIND[card] and SUIT_OF[card] != suit:
            raise IllegalActionError(f"{CARD_TEXT[card]} is not of {SUIT_NAMES[suit]}: it does not fit this run")
        if token.end and not IS_WILD_KIND[card] and RANK_OF[card] != 1:
            raise IllegalActionError(f"{token}: only an ace or a wild may name an end")
        if token.place != NO_PLACE and not IS_WILD_KIND[card] and token.place != card:
            raise IllegalActionError(f"{token}: a natural card takes its own place")
    options = [_position_options(t, suit) for t in laid]
    first_error: IllegalActionError | None = None
    natural_error: IllegalActionError | None = None
    convertible = table_wild is not None and table_wild == card_of(2, suit)
    placings = (_place_on_run_two_natural, _place_on_run) if convertible else (_place_on_run,)
    for choice in product(*options):
        # A displaced 2 of the run's suit becomes natural if it can; otherwise it moves as a wild.
        for place in placings:
            convert = place is _place_on_run_two_natural
            try:
                placed = place(shape, laid, choice, directive, wild_from, variant)
            except IllegalActionError as error:
                # When the 2 cannot be natural it moves as a wild: that attempt's error is the reason.
                # Kept without its traceback, which holds this frame: the two would make a
                # cycle that only the cycle collector frees (lay-offs are tried by the thousand).
                if convert:
                    natural_error = natural_error or error.with_traceback(None)
                elif first_error is None:
                    first_error = error.with_traceback(None)
                continue
            if convert and placed.wild_to == 0 and directive is not None and directive.place != table_wild:
                if variant.wild_move == "high-then-low":
                    raise IllegalActionError(
                        f"{directive}: in {variant.id} a 2 of the run's suit that can take its own place "
                        "becomes natural there; it cannot be kept wild"
                    )
                continue  # the rule set leaves the choice to the directive
            return placed._replace(directive=directive_index)
    reason = first_error or natural_error
    assert reason is not None
    try:
        raise reason
    finally:
        first_error = natural_error = reason = None  # the traceback holds this frame: no cycle


def _names_other_place(token: CardToken, wild_from: int, suit: int) -> bool:
    if token.end:
        return True
    return token.place != card_of(wild_from, suit)


class _RunWild(NamedTuple):
    """The wild of a run being laid off on: the ``token`` that needs a place (None when
    none does), whether that is the table's wild, and ``fixed``, the position of a table
    wild that stays where it is (0 when none does)."""

    token: CardToken | None = None
    from_table: bool = False
    fixed: int = 0


def _place_on_run(
    shape: Shape, laid: Sequence[CardToken], choice: Sequence[int], directive: CardToken | None, wild_from: int,
    variant: Variant,
) -> AddResult:
    """Lay ``laid`` on the run at the positions ``choice`` names (0: as a wild); a table
    wild whose place is taken, or that a directive moves, moves as a wild."""
    naturals, new_wilds = _laid_naturals(shape, laid, choice)
    wild = _table_wild_kept(shape, naturals, directive, wild_from, variant)
    return _lay_out_run(shape, laid, choice, naturals, new_wilds, wild, wild_from, variant)


def _place_on_run_two_natural(
    shape: Shape, laid: Sequence[CardToken], choice: Sequence[int], directive: CardToken | None, wild_from: int,
    variant: Variant,
) -> AddResult:
    """:func:`_place_on_run` where the table wild is the run's own 2: displaced (or moved),
    it goes back to its own place as a natural 2 when that place is free."""
    naturals, new_wilds = _laid_naturals(shape, laid, choice)
    if 2 in naturals:  # its own place is taken: it can only move as a wild
        wild = _table_wild_kept(shape, naturals, directive, wild_from, variant)
    elif _table_wild_leaves(shape, naturals, directive, wild_from, variant):
        assert shape.wild is not None
        naturals[2] = shape.wild  # its natural place: the 2 is a 2 again
        wild = _RunWild()
    else:
        wild = _RunWild(fixed=wild_from)
    return _lay_out_run(shape, laid, choice, naturals, new_wilds, wild, wild_from, variant)


def _laid_naturals(
    shape: Shape, laid: Sequence[CardToken], choice: Sequence[int]
) -> tuple[dict[int, Card], list[CardToken]]:
    """The run's naturals by position once ``laid`` is placed, and the laid cards placed as wilds."""
    naturals: dict[int, Card] = {shape.low + i: c for i, c in enumerate(shape.cards) if i != shape.wild_index}
    new_wilds: list[CardToken] = []
    for token, position in zip(laid, choice):
        if position == 0:
            new_wilds.append(token)
            continue
        if position in naturals:
            raise IllegalActionError(f"the run already holds {_pos_text(position, shape.suit)}")
        naturals[position] = token.card
    return naturals, new_wilds


def _table_wild_leaves(
    shape: Shape, naturals: dict[int, Card], directive: CardToken | None, wild_from: int, variant: Variant
) -> bool:
    """Must the table's wild leave its place (a card takes it, or a directive moves it)?
    Raise where the rule set keeps it there."""
    displaced = wild_from in naturals
    if displaced and variant.wild_move == "fixed":
        raise IllegalActionError(
            f"in {variant.id} a wild on the table stays: {_pos_text(wild_from, shape.suit)} cannot take its place"
        )
    if directive is not None and not displaced and variant.wild_move != "anywhere":
        raise IllegalActionError(f"{directive}: the wild moves only when a card takes its place")
    return displaced or directive is not None


def _table_wild_kept(
    shape: Shape, naturals: dict[int, Card], directive: CardToken | None, wild_from: int, variant: Variant
) -> _RunWild:
    """The table's wild kept as a wild: moving (as the directive says, if one does) or staying."""
    if shape.wild is None:
        return _RunWild()
    if _table_wild_leaves(shape, naturals, directive, wild_from, variant):
        return _RunWild(directive or CardToken(shape.wild), True)
    return _RunWild(fixed=wild_from)


def _lay_out_run(
    shape: Shape, laid: Sequence[CardToken], choice: Sequence[int], naturals: dict[int, Card],
    new_wilds: list[CardToken], wild: _RunWild, wild_from: int, variant: Variant,
) -> AddResult:
    """The run once its naturals are placed: the one wild's place, and the checks of the whole."""
    suit = shape.suit
    if len(new_wilds) + (1 if wild.token or wild.fixed else 0) > 1:
        raise IllegalActionError("a meld holds at most one wild")
    if new_wilds:
        wild = _RunWild(new_wilds[0])
    wild, gaps, low, high = _run_gaps(shape, naturals, wild, variant)
    if len(gaps) > (1 if wild.token else 0):
        raise IllegalActionError(f"the run would have a gap at {_pos_text(gaps[0], suit)}")
    wild_card = shape.wild if wild.fixed else None
    wild_position = wild.fixed
    if wild.token is not None:
        wild_position = _wild_spot(wild.token, gaps, low, high, wild.from_table, variant, suit)
        if wild_position in naturals:
            raise IllegalActionError(f"the run already holds {_pos_text(wild_position, suit)}")
        if wild.token.card == card_of(wild_position, suit):
            raise IllegalActionError(f"{CARD_TEXT[wild.token.card]} in its own place is natural, not a wild")
        wild_card = wild.token.card
    by_position: dict[int, Card] = dict(naturals)
    if wild_card is not None:
        by_position[wild_position] = wild_card
    ordered = sorted(by_position)
    _check_run_positions(laid, choice, ordered, naturals, variant, suit)
    cards = tuple(by_position[p] for p in ordered)
    wild_index = ordered.index(wild_position) if wild_card is not None else -1
    wild_to = wild_position if wild.fixed or wild.from_table else 0
    return AddResult(Shape(True, suit, 0, ordered[0], cards, wild_index), -1, wild_from, wild_to)


def _run_gaps(
    shape: Shape, naturals: dict[int, Card], wild: _RunWild, variant: Variant
) -> tuple[_RunWild, list[int], int, int]:
    """The positions left empty between the run's ends, and its ends (``low``, ``high``);
    in ``anywhere`` a table wild that stays moves into a gap instead (the wild returned)."""
    occupied = set(naturals)
    if wild.fixed:
        occupied.add(wild.fixed)
    low, high = min(occupied), max(occupied)
    gaps = [p for p in range(low, high + 1) if p not in occupied]
    if gaps and wild.fixed and variant.wild_move == "anywhere":
        # "anywhere": the wild on the table may move into the gap a lay-off leaves.
        occupied.discard(wild.fixed)
        low, high = min(occupied), max(occupied)
        gaps = [p for p in range(low, high + 1) if p not in occupied]
        assert shape.wild is not None
        wild = _RunWild(CardToken(shape.wild), True)
    return wild, gaps, low, high


def _check_run_positions(
    laid: Sequence[CardToken], choice: Sequence[int], ordered: list[int], naturals: dict[int, Card], variant: Variant,
    suit: int,
) -> None:
    """The run's positions (``ordered``) are consecutive, a 2 asked at the low end is there,
    and the ace rule holds."""
    if ordered[-1] - ordered[0] + 1 != len(ordered):
        raise IllegalActionError("the run would not be consecutive")
    for token, position in zip(laid, choice):
        if token.end == END_LOW and position == 2 and ordered[0] != 2:
            raise IllegalActionError(f"{token}: the run's low end is {_pos_text(ordered[0], suit)}, not {CARD_TEXT[token.card]}'s own place")
    problem = _ace_rule_error(variant, ordered, set(naturals))
    if problem:
        raise IllegalActionError(problem)


def _wild_spot(
    token: CardToken, gaps: list[int], low: int, high: int, displaced_table_wild: bool, variant: Variant, suit: int
) -> int:
    """Where a wild that must move (or a new one) goes."""
    ends = [p for p in (low - 1, high + 1) if 1 <= p <= 14]
    if gaps:
        spot = gaps[0]
        if token.place != NO_PLACE and token.place != card_of(spot, suit):
            raise IllegalActionError(f"{token}: the wild must fill the gap at {_pos_text(spot, suit)}")
        if token.end:
            if token.card == card_of(spot, suit):
                text = CARD_TEXT[token.card]
                raise IllegalActionError(
                    f"{token}: {text} goes into its own place, between {_pos_text(spot - 1, suit)} and "
                    f"{_pos_text(spot + 1, suit)}, which is not an end of the run: write {text} without an end"
                )
            raise IllegalActionError(f"{token}: the wild must fill the gap at {_pos_text(spot, suit)}")
        return spot
    if not ends:
        raise IllegalActionError("the run is complete: the wild has nowhere to go")
    if displaced_table_wild:
        default = _displaced_wild_end(low, high, variant)
    else:
        default = high + 1 if high + 1 <= 14 else low - 1
    named = 0
    if token.place != NO_PLACE:
        named = next((p for p in ends if card_of(p, suit) == token.place), 0)
        if not named:
            raise IllegalActionError(f"{token}: the wild can only go to an end of the run")
    elif token.end:
        named = low - 1 if token.end == END_LOW else high + 1
        if named not in ends:
            raise IllegalActionError(f"{token}: that end of the run is closed")
    if named and displaced_table_wild and variant.wild_move == "high-then-low" and named != default:
        wild = CARD_TEXT[token.card]
        reason = (
            f"{token}: {wild} cannot be placed at {_pos_text(named, suit)}: in {variant.id} a displaced wild "
            f"goes to the high end ({_pos_text(default, suit)}) while it is open, else the low end"
        )
        if token.card == card_of(2, suit):
            if low > 3:
                reason += (
                    f"; {wild} becomes a natural 2 only at the bottom of a run that starts at {_pos_text(3, suit)}, "
                    f"and this one starts at {_pos_text(low, suit)}"
                )
            else:
                reason += f"; {wild} cannot become a natural 2: its own place is taken"
        raise IllegalActionError(reason)
    return named or default


def _displaced_wild_end(low: int, high: int, variant: Variant) -> int:
    """The end of the run from ``low`` to ``high`` a table wild a natural card displaced
    goes to, with no place named (rules.md, "Wild cards in runs"): the high end while it
    is open, else the low one; in ``either-end`` the low end first. (0 or 15: none open.)"""
    if variant.wild_move == "either-end":
        return low - 1 if low > 1 else high + 1
    return high + 1 if high < 14 else low - 1


class WildMove(NamedTuple):
    """A wild of a run that changed place in a lay-off: ``source`` and ``target`` are the
    places, as the card standing there would be; a 2 back in its own place has ``target``
    equal to ``card`` (it is natural there now), a natural 2 turned wild ``source`` equal to it.

    >>> WildMove(Card.parse("2c"), Card.parse("6h"), Card.parse("8h")).to_json()
    {'card': '2c', 'from': '6h', 'to': '8h'}
    """

    card: Card
    source: Card
    target: Card

    def to_json(self) -> dict[str, str]:
        return {"card": CARD_TEXT[self.card], "from": CARD_TEXT[self.source], "to": CARD_TEXT[self.target]}


def wild_moves(old: Shape, new: Shape) -> tuple[WildMove, ...]:
    """The wilds that changed place when ``old`` became ``new`` by a lay-off (runs only).

    >>> from buraco.cards import parse_cards
    >>> old = Shape(True, 2, 0, 5, tuple(parse_cards("5h 2c 7h")), 1)
    >>> new = Shape(True, 2, 0, 5, tuple(parse_cards("5h 6h 7h 2c")), 3)
    >>> [move.to_json() for move in wild_moves(old, new)]
    [{'card': '2c', 'from': '6h', 'to': '8h'}]
    """
    if not old.is_run or not new.is_run:
        return ()
    moves = []
    old_wild, new_wild = old.wild, new.wild
    if old_wild is not None:
        source = card_of(old.low + old.wild_index, old.suit)
        target = card_of(new.low + new.wild_index, new.suit) if new_wild == old_wild else old_wild
        if target != source:
            moves.append(WildMove(old_wild, source, target))
    if new_wild is not None and new_wild != old_wild and new_wild in old.cards:
        # a card that sat on the table as a natural 2 before
        moves.append(WildMove(new_wild, new_wild, card_of(new.low + new.wild_index, new.suit)))
    return tuple(moves)


def laid_in_order(cards: Sequence[Card], laid: Sequence[Card]) -> tuple[Card, ...]:
    """The ``laid`` cards in the order they have in the meld's ``cards`` after the lay-off
    (of cards alike, the last ones: those the meld did not hold before).

    >>> from buraco.cards import parse_cards
    >>> [CARD_TEXT[c] for c in laid_in_order(parse_cards("4h 5h 6h 7h 8h"), parse_cards("8h 4h"))]
    ['4h', '8h']
    """
    if len(laid) == 1:
        return (laid[0],)
    left: dict[Card, int] = {}
    for card in laid:
        left[card] = left.get(card, 0) + 1
    found = []
    for card in reversed(cards):
        count = left.get(card)
        if count:
            found.append(card)
            left[card] = count - 1
    found.reverse()
    return tuple(found)


def founding_of(shape: Shape) -> int:
    """A new meld's "came from the meld action" marks: a bit per position of a run (none
    for a set), as :func:`moved_founding` keeps them.

    >>> founding_of(Shape(True, 0, 0, 3, (8, 12, 16), -1)) == 0b111000
    True
    """
    return ((1 << len(shape.cards)) - 1) << shape.low if shape.is_run else 0


def moved_founding(founding: int, wild_from: int, wild_to: int) -> int:
    """A run's "came from the meld action" marks (a bit per position) after a lay-off
    that moved the table's wild from place ``wild_from`` to ``wild_to`` (as an
    :class:`AddResult` gives them): the table wild carries its mark to its new place
    (``fechado-stbl``'s A..K laid in one action, rules.md 4).

    >>> bin(moved_founding(0b1110, 2, 5))  # the wild at place 2 (a founding card) moved to 5
    '0b101010'
    >>> moved_founding(0b1110, 0, 0)  # no wild moved
    14
    """
    if not wild_from:
        return founding
    was_founding = founding >> wild_from & 1
    founding &= ~(1 << wild_from)
    new_place = wild_to or 2  # no new place: it became the natural 2
    if was_founding:
        founding |= 1 << new_place
    return founding


# --- canastas ----------------------------------------------------------------------

DIRTY: Final = "dirty"
CLEAN: Final = "clean"
ACE_TO_KING: Final = "ace-to-king"
ACE_TO_ACE: Final = "ace-to-ace"
CANASTA_KINDS: Final = (DIRTY, CLEAN, ACE_TO_KING, ACE_TO_ACE)


def canasta_kind(shape: Shape, variant: Variant, founding: int = 0) -> str | None:
    """The canasta a meld is, if any. ``founding`` is a bit mask of run
    positions whose cards came from the meld's own ``meld`` action."""
    if len(shape.cards) < 7:
        return None
    if shape.wild_index >= 0:
        return DIRTY
    if not shape.is_run or shape.low != 1:
        return CLEAN
    high = shape.high
    one_action = variant.special_runs_in_one_action
    if high == 14 and variant.bonus_ace_to_ace:
        if not one_action or founding & ALL_14 == ALL_14:
            return ACE_TO_ACE
        if founding & ALL_13 == ALL_13 and variant.bonus_ace_to_king:
            return ACE_TO_KING
        return CLEAN
    if high == 13 and variant.bonus_ace_to_king and (not one_action or founding & ALL_13 == ALL_13):
        return ACE_TO_KING
    return CLEAN


ALL_13: Final = sum(1 << p for p in range(1, 14))
ALL_14: Final = ALL_13 | (1 << 14)


def canasta_bonus(kind: str | None, variant: Variant) -> int:
    if kind is None:
        return 0
    if kind == DIRTY:
        return variant.bonus_dirty
    if kind == ACE_TO_ACE:
        return variant.bonus_ace_to_ace
    if kind == ACE_TO_KING:
        return variant.bonus_ace_to_king
    return variant.bonus_clean


def opens_going_out(kind: str | None, variant: Variant) -> bool:
    """May a side go out on a canasta of ``kind`` (None: the meld is none)? Any canasta, or
    a clean one where the rule set asks (rules.md 2; whose canasta counts is the caller's).

    >>> from buraco.rules import VARIANTS
    >>> opens_going_out(DIRTY, VARIANTS["brasil"]), opens_going_out(DIRTY, VARIANTS["burraco"])
    (False, True)
    """
    return kind is not None and (kind != DIRTY or not variant.out_needs_clean)


__all__ = [
    "ACE_TO_ACE", "ACE_TO_KING", "AddResult", "CANASTA_KINDS", "CLEAN", "CardToken", "DIRTY", "END_HIGH",
    "END_LOW", "END_NONE", "IS_WILD_KIND", "NO_PLACE", "Shape", "SUIT_LETTERS", "canasta_bonus", "canasta_kind",
    "WildMove", "laid_in_order", "layout_tokens", "founding_of", "meld_layouts", "moved_founding", "opens_going_out", "resolve_add", "resolve_meld", "wild_moves",
]

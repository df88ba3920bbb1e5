"""The move generator's proposals, judged once and remembered by the cards they depend on.

A search changes one meld and a few hand cards a step. The lay-offs onto a run depend
only on the run and on the hand's cards of its suit and its wilds; onto a set, on the
set and the hand's cards of its rank and its wilds; a new run on one suit's cards and
the wilds, a new set on one rank's. :class:`Proposals` keeps, for each such projection
of a hand, the candidates of :mod:`buraco.moves` that the rules accept
(:func:`~buraco.melds.resolve_add`, :func:`~buraco.melds.resolve_meld`: pure functions
of the cards and the rule set). A step of a search then looks the plays up instead of
generating and judging them again: lay-offs come incrementally, meld by meld, and a
meld the step did not touch costs one dictionary look-up. A projection not seen before is
looked up by what the generator reads of it (:func:`lay_off_reading`; for new melds, the
counts capped), and a hand's new melds are derived from a table judged for a hand holding
more of their cards, where the generator's answer is that table's plays the hand holds.

What the state machine adds to those pure checks (whose turn, the cards held, a play
emptying the hand, the pile's obligation) is left to the caller: the searches keep
only plays of cards held, and replay every line they report through
:meth:`HandState.apply <buraco.state.HandState.apply>`.

First in the searches' order of modules, it also holds what they all read card by card as
compiled code reads it fastest: the card tables as finals, :func:`code_of`, and a hand's
projections written out (:func:`run_projection`, :func:`set_projection`).

>>> from buraco.cards import parse_cards
>>> from buraco.moves import counts_of
>>> from buraco.rules import VARIANTS
>>> proposals = Proposals(VARIANTS["cerrado"])
>>> table = proposals.run_melds(2, counts_of(parse_cards("5h 6h 7h 8h Kc")))
>>> sorted(" ".join(map(str, m.tokens)) for m in table.plays)
['5h 6h 7h', '5h 6h 7h 8h', '6h 7h 8h']
>>> proposals.run_melds(2, counts_of(parse_cards("5h 6h 7h 8h Qs"))) is table  # spades do not matter
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from operator import itemgetter
from typing import Final, Generic, NamedTuple, TypeVar

from .. import cards as _cards
from .. import melds as _melds
from ..cards import CARD_KINDS, JOKER_CODE, Card
from ..errors import IllegalActionError
from ..melds import (
    CardToken,
    Shape,
    canasta_bonus,
    canasta_kind,
    founding_of,
    moved_founding,
    resolve_add,
    resolve_meld,
)
from ..moves import RUN_CARDS, WILD_CODES, candidate_lay_offs, rank_set_melds, suit_run_melds
from ..rules import Variant

# The card tables as finals of the compiled searches (the other modules import them from
# here): compiled, a final is read from a C static, where a name imported from an
# interpreted module is looked up in the module's dictionary at every use (the searches
# read them card by card).
SUIT_OF: Final[tuple[int, ...]] = _cards.SUIT_OF
RANK_OF: Final[tuple[int, ...]] = _cards.RANK_OF
IS_WILD_KIND: Final[tuple[bool, ...]] = _melds.IS_WILD_KIND


def code_of(rank: int, suit: int) -> int:
    """The code of the card at run position ``rank`` (14 is the high ace) of ``suit``:
    :func:`~buraco.cards.card_of` as a plain int, worked out in compiled code (the
    interpreted function, called card by card from the bounds, cost a Python call each).

    >>> from buraco.cards import card_of
    >>> all(code_of(rank, suit) == card_of(rank, suit) for rank in range(1, 15) for suit in range(4))
    True
    """
    return ((rank - 1) % 13) * 4 + suit


# The card kinds a run of each suit depends on (its suit's cards and every wild), and a
# set of each rank (its rank's cards and every wild).
RUN_CODES: Final = tuple(
    tuple(c for c in range(CARD_KINDS) if SUIT_OF[c] == suit or IS_WILD_KIND[c]) for suit in range(4)
)
SET_CODES: Final = tuple(
    tuple(c for c in range(CARD_KINDS) if (c != JOKER_CODE and RANK_OF[c] == rank) or IS_WILD_KIND[c])
    for rank in range(14)
)
# A hand's counts of those kinds, in their order (every caching key below holds one), by a
# getter for any sequence. Each reads five kinds at least (the wilds), so the getter always
# returns a tuple.
Projection = Callable[[Sequence[int]], tuple[int, ...]]
RUN_PROJECTIONS: Final[tuple[Projection, ...]] = tuple(itemgetter(*codes) for codes in RUN_CODES)
SET_PROJECTIONS: Final[tuple[Projection, ...]] = tuple(itemgetter(*codes) for codes in SET_CODES)


# The searches read a projection of their hand, a list, at every table and bound: written
# out as a tuple display, a list is read by its own item access where the analysis is
# compiled, at half the cost of the getter (which asks the list for each item as any
# object would), and at the same cost interpreted. The codes are written as numbers: the
# 2s are 4 to 7, the joker 52 (the doctests check them against RUN_CODES and SET_CODES).


def run_projection(suit: int, hand: Sequence[int]) -> tuple[int, ...]:
    """``RUN_PROJECTIONS[suit](hand)``: the counts of the kinds :data:`RUN_CODES` lists for a
    run of ``suit``, in that order (its ace, the four 2s, its 3 to king, the joker).

    >>> import random
    >>> hand = [random.Random(seed).randrange(3) for seed in range(53)]
    >>> all(run_projection(suit, held) == tuple(hand[code] for code in RUN_CODES[suit])
    ...     for suit in range(4) for held in (hand, tuple(hand)))
    True
    """
    if isinstance(hand, list):
        return (
            hand[suit], hand[4], hand[5], hand[6], hand[7], hand[suit + 8], hand[suit + 12], hand[suit + 16],
            hand[suit + 20], hand[suit + 24], hand[suit + 28], hand[suit + 32], hand[suit + 36], hand[suit + 40],
            hand[suit + 44], hand[suit + 48], hand[52],
        )
    return RUN_PROJECTIONS[suit](hand)


def set_projection(rank: int, hand: Sequence[int]) -> tuple[int, ...]:
    """``SET_PROJECTIONS[rank](hand)``: the counts of the kinds :data:`SET_CODES` lists for a
    set of ``rank``, in that order (by code: the wilds and the rank's four suits).

    >>> import random
    >>> hand = [random.Random(seed).randrange(3) for seed in range(53)]
    >>> all(set_projection(rank, held) == tuple(hand[code] for code in SET_CODES[rank])
    ...     for rank in range(14) for held in (hand, tuple(hand)))
    True
    """
    if isinstance(hand, list):
        if rank >= 3:
            first = (rank - 1) * 4
            return (hand[4], hand[5], hand[6], hand[7], hand[first], hand[first + 1], hand[first + 2], hand[first + 3], hand[52])
        if rank == 1:
            return (hand[0], hand[1], hand[2], hand[3], hand[4], hand[5], hand[6], hand[7], hand[52])
    return SET_PROJECTIONS[rank](hand)


# What the generator reads of a hand is less than a projection: whether a natural card is
# held, and for the ace (both ends of a run), a wild (one stands in, another of it may be
# its suit's natural 2) and a run wild's own card, whether two are. Hands equal in these
# readings are proposed the same plays; in an exit search, laying one of two copies of a
# card, or a card far from a run, changes a projection but not the reading (brasil's tail
# hands: about a third of the lay-off tables judged afresh came back under a reading).
_RUN_CAPS: Final = tuple(
    tuple(2 if IS_WILD_KIND[c] or RANK_OF[c] == 1 else 1 for c in codes) for codes in RUN_CODES
)
_SET_CAPS: Final = tuple(tuple(1 for _ in codes) for codes in SET_CODES)  # sets of distinct suits
_NO_CAPS: Final = tuple(tuple(CARD_KINDS for _ in codes) for codes in SET_CODES)  # naturals as counted
# The same for lay-offs on a set holding a wild, which reads no wild of the hand.
_SET_NATURAL_CAPS: Final = tuple(tuple(0 if IS_WILD_KIND[c] else 1 for c in codes) for codes in SET_CODES)
_NATURAL_CAPS: Final = tuple(tuple(0 if IS_WILD_KIND[c] else CARD_KINDS for c in codes) for codes in SET_CODES)
# Where a run's projection holds its suit's ace (see Proposals._within).
_RUN_ACE_AT: Final = tuple(codes.index(suit) for suit, codes in enumerate(RUN_CODES))  # the ace of a suit is card code suit
# The new-meld tables of each suit (0-3) and rank (4 + rank) judged last, which a hand
# holding fewer of their cards may be derived from (Proposals._within).
RECENT_MELD_TABLES: Final = 4


def _capped(projection: tuple[int, ...], caps: tuple[int, ...]) -> tuple[int, ...]:
    """A projection's counts, each at most its cap."""
    return tuple([min(count, cap) for count, cap in zip(projection, caps)])


def _side_read(hand: Sequence[int], suit: int, places: range) -> int:
    """Which places of ``places`` (walking away from a run) hold their natural card, as
    far as :func:`buraco.moves.candidate_lay_offs` reads them: up to the second place
    missing (bit ``i``: the ``i``-th place; a leading 1 marks how many were read)."""
    read, missing, bit = 0, 0, 1
    row = RUN_CARDS[suit]
    for place in places:
        if hand[row[place]]:
            read |= bit
        else:
            missing += 1
        bit <<= 1
        if missing > 1:
            break
    return read | bit


def lay_off_reading(shape: Shape, hand: Sequence[int], variant: Variant) -> tuple[int, ...]:
    """What :func:`buraco.moves.candidate_lay_offs` reads of ``hand`` for a meld of
    ``shape``: two hands with the same reading are proposed the same lay-offs. A run's:
    the places beyond each end held, up to the second missing; the aces held, up to two;
    the natural card of the run's wild, up to two, or where it holds none, the wilds held,
    up to two. A set's: its rank's naturals (up to one of a suit where suits must differ)
    and where it holds no wild, whether each wild is held. (A meld holding a wild is
    proposed no other: the wilds in hand are not read for it.)

    >>> from buraco.cards import parse_cards
    >>> from buraco.moves import counts_of
    >>> from buraco.rules import VARIANTS
    >>> brasil = VARIANTS["brasil"]
    >>> run = resolve_meld([CardToken(c) for c in parse_cards("5h 6h 7h")], brasil)
    >>> def read(cards: str) -> tuple[int, ...]:
    ...     return lay_off_reading(run, counts_of(parse_cards(cards)), brasil)
    >>> read("8h 9h Kc") == read("8h 8h 9h Qh Kc")  # a second 8h, a queen past the gap at 10h and Jh
    True
    >>> read("8h 9h Kc") == read("8h Kc")
    False
    """
    if not shape.is_run:
        caps = (_SET_CAPS if variant.set_suits_distinct else _NO_CAPS) if shape.wild_index < 0 else (
            _SET_NATURAL_CAPS if variant.set_suits_distinct else _NATURAL_CAPS
        )
        return _capped(set_projection(shape.rank, hand), caps[shape.rank])
    suit = shape.suit
    row = RUN_CARDS[suit]
    ends = (_side_read(hand, suit, range(shape.low - 1, 0, -1)), _side_read(hand, suit, range(shape.high + 1, 15)), min(hand[row[1]], 2))
    if shape.wild_index >= 0:
        return (*ends, min(hand[row[shape.low + shape.wild_index]], 2))
    return (*ends, -1, *[min(hand[wild], 2) for wild in WILD_CODES])


class LayOff(NamedTuple):
    """A lay-off the rules accept: its tokens, the meld after it, the hand cards it lays
    (a token only moving the table's wild is not one) and where the table's wild went."""

    tokens: tuple[CardToken, ...]
    shape: Shape
    laid: tuple[Card, ...]
    wild_from: int
    wild_to: int


class NewMeld(NamedTuple):
    """A new meld the rules accept: its tokens, its layout and the hand cards it lays."""

    tokens: tuple[CardToken, ...]
    shape: Shape
    laid: tuple[Card, ...]


P = TypeVar("P", LayOff, NewMeld)


class _PlayTable(Generic[P]):
    """The plays of one projection of a hand, and by each card they lay."""

    __slots__ = ("plays", "with_card", "_natural", "_canastas")

    def __init__(self, plays: Sequence[P]) -> None:
        self.plays: tuple[P, ...] = tuple(plays)
        by_card: dict[int, list[P]] = {}
        for play in self.plays:
            for card in set(play.laid):
                by_card.setdefault(card, []).append(play)
        # The plays laying at least one of each card.
        self.with_card: dict[int, tuple[P, ...]] = {card: tuple(found) for card, found in by_card.items()}
        self._natural: frozenset[int] | None = None
        # The plays making a canasta, by the meld's founding (LayOffTable.raising, MeldTable.canastas).
        self._canastas: dict[int, tuple[tuple[int, P], ...]] | None = None

    @property
    def natural(self) -> frozenset[int]:
        """The cards some play lays with no wild from the hand (worked out once asked: only
        the going-out search's look-ahead asks)."""
        found = self._natural
        if found is None:
            found = self._natural = frozenset(
                card for play in self.plays if not any(IS_WILD_KIND[c] for c in play.laid) for card in play.laid
            )
        return found


class LayOffTable(_PlayTable[LayOff]):
    __slots__ = ()

    def raising(self, founding: int, was: int, variant: Variant) -> tuple[tuple[int, LayOff], ...]:
        """The lay-offs that leave the meld this table is of a better canasta than it is
        now (``founding``: its marks; ``was``: its canasta bonus now), each with what it
        adds to the bonus, in the generator's order (a lay-off proposed twice, once).
        Worked out once per founding: a table is of one shape, so the founding fixes
        ``was``. The canasta search asks it at every table, of every meld of the side."""
        known = self._canastas
        if known is None:
            known = self._canastas = {}
        found = known.get(founding)
        if found is None:
            seen: set[tuple[CardToken, ...]] = set()
            raising = []
            for play in self.plays:
                shape = play.shape
                if len(shape.cards) < 7 or play.tokens in seen:
                    continue
                after = moved_founding(founding, play.wild_from, play.wild_to) if shape.is_run and founding else founding
                gain = canasta_bonus(canasta_kind(shape, variant, after), variant) - was
                if gain > 0:
                    seen.add(play.tokens)
                    raising.append((gain, play))
            found = known[founding] = tuple(raising)
        return found


class MeldTable(_PlayTable[NewMeld]):
    __slots__ = ()

    def canastas(self, variant: Variant) -> tuple[tuple[int, NewMeld], ...]:
        """The new melds that are canastas, with their bonus, in the generator's order (a
        meld proposed twice, once). Worked out once: the canasta search asks it at every
        table where the hand holds seven cards of the suit or rank."""
        known = self._canastas
        if known is None:
            seen: set[tuple[CardToken, ...]] = set()
            found = []
            for play in self.plays:
                if len(play.laid) < 7 or play.tokens in seen:
                    continue
                made = canasta_kind(play.shape, variant, founding_of(play.shape))
                if made is not None:
                    seen.add(play.tokens)
                    found.append((canasta_bonus(made, variant), play))
            known = self._canastas = {0: tuple(found)}
        return known[0]


class Proposals:
    """Legal-by-the-cards plays, remembered per projection of a hand (see the module)."""

    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        self._lay_offs: dict[tuple[Shape, tuple[int, ...]], LayOffTable] = {}
        self._runs: dict[tuple[int, tuple[int, ...]], MeldTable] = {}
        self._sets: dict[tuple[int, tuple[int, ...]], MeldTable] = {}
        # The same tables by what the generator reads of the hand (lay_off_reading; for new
        # melds, the projection capped): a projection seen for the first time is looked up there.
        self._lay_offs_read: dict[tuple[Shape, tuple[int, ...]], LayOffTable] = {}
        self._melds_read: dict[tuple[int, tuple[int, ...]], MeldTable] = {}
        self._recent_melds: list[list[tuple[tuple[int, ...], MeldTable]]] = [[] for _ in range(18)]
        self._judged: dict[tuple[Shape, tuple[CardToken, ...]], LayOff | None] = {}
        self._judged_melds: dict[tuple[CardToken, ...], NewMeld | None] = {}

    def lay_offs(self, shape: Shape, hand: Sequence[int]) -> LayOffTable:
        """Every lay-off of ``hand``'s cards onto a meld of ``shape`` that the rules accept."""
        key = (shape, run_projection(shape.suit, hand) if shape.is_run else set_projection(shape.rank, hand))
        table = self._lay_offs.get(key)
        if table is None:
            read = (shape, lay_off_reading(shape, hand, self.variant))
            table = self._lay_offs_read.get(read)
            if table is None:
                table = self._lay_offs_read[read] = self._judge_lay_offs(shape, hand)
            self._lay_offs[key] = table
        return table

    def _judge_lay_offs(self, shape: Shape, hand: Sequence[int]) -> LayOffTable:
        plays: list[LayOff] = []
        for tokens in candidate_lay_offs(self.variant, shape, hand, held_gaps=True):
            play = self._judge_lay_off(shape, tuple(tokens))
            if play is not None:
                plays.append(play)
        return LayOffTable(plays)

    def _judge_lay_off(self, shape: Shape, tokens: tuple[CardToken, ...]) -> LayOff | None:
        """One candidate judged, remembered: hands that differ in a card the lay-off does
        not hold propose it again (half the judgments in the bench, four in five in brasil)."""
        key = (shape, tokens)
        known = self._judged
        if key in known:
            return known[key]
        play: LayOff | None = None
        try:
            result = resolve_add(shape, tokens, self.variant)
        except IllegalActionError:
            pass
        else:
            laid = tuple(t.card for i, t in enumerate(tokens) if i != result.directive)
            play = LayOff(tokens, result.shape, laid, result.wild_from, result.wild_to)
        if len(known) > 200_000:
            known.clear()
        known[key] = play
        return play

    def run_melds(self, suit: int, hand: Sequence[int]) -> MeldTable:
        """Every new run of ``suit`` that ``hand`` can lay and the rules accept."""
        projection = run_projection(suit, hand)
        key = (suit, projection)
        table = self._runs.get(key)
        if table is None:
            read = (suit, _capped(projection, _RUN_CAPS[suit]))
            table = self._melds_read.get(read)
            if table is None:
                table = self._within(suit, projection, hand, RUN_CODES[suit], _RUN_ACE_AT[suit])
                if table is None:
                    table = self._judge_melds(suit_run_melds(hand, suit))
                self._melds_read[read] = table
                self._remember(suit, projection, table)
            self._runs[key] = table
        return table

    def set_melds(self, rank: int, hand: Sequence[int]) -> MeldTable:
        """Every new set of ``rank`` that ``hand`` can lay and the rules accept."""
        projection = set_projection(rank, hand)
        key = (rank, projection)
        table = self._sets.get(key)
        if table is None:
            caps = _SET_CAPS if self.variant.set_suits_distinct else _NO_CAPS
            read = (4 + rank, _capped(projection, caps[rank]))  # 0-3: the runs' suits
            table = self._melds_read.get(read)
            if table is None:
                table = self._within(4 + rank, projection, hand, SET_CODES[rank], -1)
                if table is None:
                    table = self._judge_melds(rank_set_melds(self.variant, hand, rank))
                self._melds_read[read] = table
                self._remember(4 + rank, projection, table)
            self._sets[key] = table
        return table

    def _within(
        self, slot: int, projection: tuple[int, ...], hand: Sequence[int], codes: tuple[int, ...], ace_at: int,
    ) -> MeldTable | None:
        """The new melds of ``hand``, derived from a table judged lately for a hand holding
        at least as many of each card of the slot (``projection``: ``hand``'s counts of
        ``codes``), where there is one: its plays that ``hand`` holds, in their order.
        Exact: the generator proposes a hand with fewer cards the very melds, in the same
        order, that it proposes the larger one and the smaller holds (each meld is proposed
        from the window of places it spans, which the smaller hand's walk still reaches).
        For runs (``ace_at``: where the projection holds the ace), only with as many aces:
        with two, an A..A run may hold a wild for one ace and the other natural, which one
        ace alone does not propose. Saves the generation and the judging of the candidates
        (brasil's tail hands: -3.3% instructions in `turn_findings`)."""
        for known, table in self._recent_melds[slot]:
            if ace_at >= 0 and known[ace_at] != projection[ace_at]:
                continue
            if all(projection[i] <= known[i] for i in range(len(codes))):
                short = [codes[i] for i in range(len(codes)) if projection[i] < known[i]]
                return MeldTable([play for play in table.plays if all(play.laid.count(c) <= hand[c] for c in short)])
        return None

    def _remember(self, slot: int, projection: tuple[int, ...], table: MeldTable) -> None:
        recent = self._recent_melds[slot]
        recent.insert(0, (projection, table))
        if len(recent) > RECENT_MELD_TABLES:
            recent.pop()

    def _judge_melds(self, candidates: Iterable[Sequence[CardToken]]) -> MeldTable:
        plays: list[NewMeld] = []
        known = self._judged_melds
        for candidate in candidates:
            tokens = tuple(candidate)
            if tokens in known:
                play = known[tokens]
            else:
                # Remembered, like lay-offs: hands differing in a card the meld does not hold propose it again.
                try:
                    play = NewMeld(tokens, resolve_meld(tokens, self.variant), tuple(t.card for t in tokens))
                except IllegalActionError:
                    play = None
                if len(known) > 200_000:
                    known.clear()
                known[tokens] = play
            if play is not None:
                plays.append(play)
        return MeldTable(plays)

    def melds_with(self, hand: Sequence[int], card: int) -> list[NewMeld]:
        """Every new meld holding ``card`` that ``hand`` can lay: runs of its suit and sets
        of its rank, or for a wild every run and set."""
        found: list[NewMeld] = []
        if IS_WILD_KIND[card]:
            for suit in range(4):
                found.extend(self.run_melds(suit, hand).with_card.get(card, ()))
            if self.variant.sets:
                for rank in (1, *range(3, 14)):
                    if any(hand[(rank - 1) * 4 + s] for s in range(4)):
                        found.extend(self.set_melds(rank, hand).with_card.get(card, ()))
            return found
        found.extend(self.run_melds(SUIT_OF[card], hand).with_card.get(card, ()))
        if self.variant.sets and RANK_OF[card] != 2:
            found.extend(self.set_melds(RANK_OF[card], hand).with_card.get(card, ()))
        return found


def holds(hand: Sequence[int], cards: Sequence[int]) -> bool:
    """Does ``hand`` (53 counters) hold every card of ``cards``, repeats counted?"""
    if len(cards) == 1:
        return hand[cards[0]] > 0
    need: dict[int, int] = {}
    for card in cards:
        need[card] = need.get(card, 0) + 1
    return all(hand[c] >= n for c, n in need.items())


__all__ = [
    "LayOff", "LayOffTable", "MeldTable", "NewMeld", "Proposals", "RUN_CODES", "RUN_PROJECTIONS", "SET_CODES",
    "SET_PROJECTIONS", "holds", "lay_off_reading", "run_projection", "set_projection", "WILD_CODES",
]

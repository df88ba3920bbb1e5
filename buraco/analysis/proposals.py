"""The move generator's proposals, judged once and remembered by the cards they depend on.

A search changes one meld and a few hand cards a step. The lay-offs onto a run depend
only on the run and on the hand's cards of its suit and its wilds; onto a set, on the
set and the hand's cards of its rank and its wilds; a new run on one suit's cards and
the wilds, a new set on one rank's. :class:`Proposals` keeps, for each such projection
of a hand, the candidates of :mod:`buraco.moves` that the rules accept
(:func:`~buraco.melds.resolve_add`, :func:`~buraco.melds.resolve_meld`: pure functions
of the cards and the rule set). A step of a search then looks the plays up instead of
generating and judging them again: lay-offs come incrementally, meld by meld, and a
meld the step did not touch costs one dictionary look-up.

What the state machine adds to those pure checks (whose turn, the cards held, a play
emptying the hand, the pile's obligation) is left to the caller: the searches keep
only plays of cards held, and replay every line they report through
:meth:`HandState.apply <buraco.state.HandState.apply>`.

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

from collections.abc import Iterator, Sequence
from typing import Final, NamedTuple

from ..cards import CARD_KINDS, JOKER_CODE, RANK_OF, SUIT_OF, Card
from ..errors import IllegalActionError
from ..melds import IS_WILD_KIND, CardToken, Shape, resolve_add, resolve_meld
from ..moves import WILD_CODES, candidate_lay_offs, rank_set_melds, suit_run_melds
from ..rules import Variant

# The card kinds a run of each suit depends on (its suit's cards and every wild), and a
# set of each rank (its rank's cards and every wild).
RUN_CODES: Final = tuple(
    tuple(c for c in range(CARD_KINDS) if SUIT_OF[c] == suit or IS_WILD_KIND[c]) for suit in range(4)
)
SET_CODES: Final = tuple(
    tuple(c for c in range(CARD_KINDS) if (c != JOKER_CODE and RANK_OF[c] == rank) or IS_WILD_KIND[c])
    for rank in range(14)
)


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


class LayOffTable(NamedTuple):
    plays: tuple[LayOff, ...]
    with_card: dict[int, tuple[LayOff, ...]]  # the plays laying at least one of that card


class MeldTable(NamedTuple):
    plays: tuple[NewMeld, ...]
    with_card: dict[int, tuple[NewMeld, ...]]


def _index(plays: Sequence[LayOff | NewMeld]) -> dict[int, tuple[LayOff | NewMeld, ...]]:
    by_card: dict[int, list[LayOff | NewMeld]] = {}
    for play in plays:
        for card in set(play.laid):
            by_card.setdefault(card, []).append(play)
    return {card: tuple(found) for card, found in by_card.items()}


class Proposals:
    """Legal-by-the-cards plays, remembered per projection of a hand (see the module)."""

    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        self._lay_offs: dict[tuple[Shape, tuple[int, ...]], LayOffTable] = {}
        self._runs: dict[tuple[int, tuple[int, ...]], MeldTable] = {}
        self._sets: dict[tuple[int, tuple[int, ...]], MeldTable] = {}

    def lay_offs(self, shape: Shape, hand: Sequence[int]) -> LayOffTable:
        """Every lay-off of ``hand``'s cards onto a meld of ``shape`` that the rules accept."""
        codes = RUN_CODES[shape.suit] if shape.is_run else SET_CODES[shape.rank]
        key = (shape, tuple([hand[c] for c in codes]))
        table = self._lay_offs.get(key)
        if table is None:
            table = self._lay_offs[key] = self._judge_lay_offs(shape, hand)
        return table

    def _judge_lay_offs(self, shape: Shape, hand: Sequence[int]) -> LayOffTable:
        variant = self.variant
        plays = []
        for tokens in _every_lay_off(variant, shape, hand):
            try:
                result = resolve_add(shape, tokens, variant)
            except IllegalActionError:
                continue
            laid = tuple(t.card for i, t in enumerate(tokens) if i != result.directive)
            plays.append(LayOff(tokens, result.shape, laid, result.wild_from, result.wild_to))
        return LayOffTable(tuple(plays), _index(plays))  # type: ignore[arg-type]

    def run_melds(self, suit: int, hand: Sequence[int]) -> MeldTable:
        """Every new run of ``suit`` that ``hand`` can lay and the rules accept."""
        key = (suit, tuple([hand[c] for c in RUN_CODES[suit]]))
        table = self._runs.get(key)
        if table is None:
            table = self._runs[key] = self._judge_melds(suit_run_melds(hand, suit))
        return table

    def set_melds(self, rank: int, hand: Sequence[int]) -> MeldTable:
        """Every new set of ``rank`` that ``hand`` can lay and the rules accept."""
        key = (rank, tuple([hand[c] for c in SET_CODES[rank]]))
        table = self._sets.get(key)
        if table is None:
            table = self._sets[key] = self._judge_melds(rank_set_melds(self.variant, hand, rank))
        return table

    def _judge_melds(self, candidates: object) -> MeldTable:
        variant = self.variant
        plays = []
        for tokens in candidates:  # type: ignore[attr-defined]
            try:
                shape = resolve_meld(tokens, variant)
            except IllegalActionError:
                continue
            plays.append(NewMeld(tokens, shape, tuple(t.card for t in tokens)))
        return MeldTable(tuple(plays), _index(plays))  # type: ignore[arg-type]

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


def _every_lay_off(variant: Variant, shape: Shape, hand: Sequence[int]) -> Iterator[tuple[CardToken, ...]]:
    """:func:`buraco.moves.candidate_lay_offs`, and the run lay-offs it leaves out: those
    leaving for a wild (the meld's, moved, or one from the hand) a gap whose natural card
    the hand holds (it fills every place it can: 3c 2h 5c 6c with 4c 7c 8c 9c in hand
    gets 4c 7c 8c 9c, never 4c 7c 9c with the 2h moving to the 8, which a line keeping
    the 8c for another meld needs). A run holds one wild at most, so a lay-off leaves one
    gap at most: it is a lay-off of the hand without one card of that natural (its 2
    included)."""
    seen: set[tuple[CardToken, ...]] = set()
    for tokens in candidate_lay_offs(variant, shape, hand):
        seen.add(tokens)
        yield tokens
    if not shape.is_run or not (shape.wild_index >= 0 or any(hand[w] for w in WILD_CODES)):
        return
    fewer = list(hand)
    for card in RUN_CODES[shape.suit]:
        if not hand[card] or card == JOKER_CODE or SUIT_OF[card] != shape.suit:
            continue  # the suit's 2 too: it may be the natural of the gap's place
        fewer[card] -= 1
        for tokens in candidate_lay_offs(variant, shape, fewer):
            if tokens not in seen:
                seen.add(tokens)
                yield tokens
        fewer[card] += 1


def holds(hand: Sequence[int], cards: Sequence[int]) -> bool:
    """Does ``hand`` (53 counters) hold every card of ``cards``, repeats counted?"""
    if len(cards) == 1:
        return hand[cards[0]] > 0
    need: dict[int, int] = {}
    for card in cards:
        need[card] = need.get(card, 0) + 1
    return all(hand[c] >= n for c, n in need.items())


__all__ = ["LayOff", "LayOffTable", "MeldTable", "NewMeld", "Proposals", "RUN_CODES", "SET_CODES", "holds", "WILD_CODES"]

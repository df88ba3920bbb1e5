"""Luck apart from skill: what each card drawn from the stock was worth against the cards
the player could have drawn instead (docs/analysis.md, "Luck").

For a turn that drew from the stock, the *value* of a card ``c`` is what the turn could
reach had ``c`` been drawn, by the analysis's exact searches (:mod:`.search`), in points:

- ``B(c)``: the most canasta bonus the side could hold when the turn ends, minus what it
  held before (the missed-canasta search, :func:`~.search.best_canasta_line`);
- ``G(c)``: the best going-out margin this turn (the missed-going-out search,
  :func:`~.exits.best_exit`) minus the margin the table stood at before the draw (the hand
  ended there by the stock); no way of going out, no ``G``;
- ``value(c) = max(0, B(c), G(c))``: the better of the turn's two aims, 0 when neither gains.

The luck of the draw is ``value(drawn) - E[value]``, the mean over the cards the player
could not see (the stock, the other hands and the dead piles not taken), each distinct card
weighted by how many of it are unseen. Exact (:class:`~fractions.Fraction`): a hand's luck is
the sum of its draws', with nothing lost to rounding.

Cards of one kind are one search; and so are the cards of one class (:class:`DrawClasses`):
every *inert* card (no wild, no card of its rank in hand or in a set on the table, no run
that could take it) reaches the same best result as any other inert card -- it can only be
thrown away -- and, where a set's cards may share a suit, the cards of one rank no run could
take reach the same as each other.

>>> from buraco.selfplay import play_match
>>> record = play_match("cerrado", players=2, hands=1, seed=3)
>>> hand = hand_luck(record, 0)
>>> hand.luck == sum(d.luck for d in hand.draws if d.luck is not None)
True
>>> sum(hand.by_seat.values()) == hand.luck
True
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Final

from ..actions import DRAW, Action
from ..cards import CARD_KINDS, CARD_TEXT, RANK_OF, SUIT_OF, Card
from ..melds import IS_WILD_KIND
from ..notation import Record
from ..replay import verify
from ..scoring import score_hand, scores_if_ended
from ..state import STOCK, HandState
from .exits import best_exit, may_go_out
from .search import (
    Budget,
    SearchContext,
    SearchCut,
    Start,
    best_canasta_line,
    canasta_bound,
    margin_of,
    side_bonus,
)
from .turns import played_turns

LUCK_VERSION = "1"


@dataclass(frozen=True)
class DrawLuck:
    """The luck of one stock draw. ``hand``, ``seat`` count from 1; ``ply`` is the draw's.

    ``judged`` False: the CPU budget ran out before the draw was judged (``value``,
    ``expected`` and ``luck`` are then None): said, never dropped. ``low``/``high``: the
    least and most any unseen card was worth; ``searches``: the searches the draw took.
    """

    hand: int
    ply: int
    seat: int
    card: Card
    value: int | None
    expected: Fraction | None
    luck: Fraction | None
    low: int | None = None
    high: int | None = None
    unseen: int = 0  # how many cards the player could not see
    searches: int = 0
    judged: bool = True

    def as_dict(self) -> dict[str, object]:
        """For JSON: the fractions as floats rounded to 0.01 points."""
        return {
            "hand": self.hand, "ply": self.ply, "seat": self.seat, "card": CARD_TEXT[self.card],
            "value": self.value, "expected": _round(self.expected), "luck": _round(self.luck),
            "low": self.low, "high": self.high, "unseen": self.unseen, "judged": self.judged,
        }


@dataclass(frozen=True)
class HandLuck:
    """The luck of one hand's stock draws, per seat, beside the hand's score per side."""

    hand: int
    draws: list[DrawLuck]
    scores: tuple[int, ...]  # each side's score of the hand as replayed (as it stands if unfinished)
    side_of: tuple[int, ...]  # seat -> 0-based side (index 0 unused)
    by_seat: dict[int, Fraction] = field(default_factory=dict)
    seconds: float = 0.0  # CPU spent

    @property
    def luck(self) -> Fraction:
        return sum((d.luck for d in self.draws if d.luck is not None), Fraction(0))

    @property
    def unsearched(self) -> list[DrawLuck]:
        return [d for d in self.draws if not d.judged]

    def side_luck(self, side: int) -> Fraction:
        """The luck of the 0-based side's seats."""
        return sum((v for s, v in self.by_seat.items() if self.side_of[s] == side), Fraction(0))

    def adjusted(self, side: int) -> Fraction:
        """The side's score minus its luck: the luck-adjusted result."""
        return self.scores[side] - self.side_luck(side)


def _round(value: Fraction | None) -> float | None:
    return None if value is None else round(float(value), 2)


def unseen_counts(state: HandState, seat: int) -> list[int]:
    """How many of each card ``seat`` could not see at ``state``: the stock, the other
    seats' hands and the dead piles not taken (an unrecorded stock: every card not yet
    accounted for).

    >>> from buraco.selfplay import play_match
    >>> from buraco.replay import deal_hand
    >>> state = deal_hand(play_match("cerrado", seed=1), 0)
    >>> sum(unseen_counts(state, 1)) == sum(state.deck) - state.hand_sizes[1] - len(state.discard_pile)
    True
    """
    counts = [0] * CARD_KINDS
    if state.hidden:
        for card in range(CARD_KINDS):
            counts[card] += max(0, state.deck[card] - state.seen[card])
    for card in state.stock:
        counts[card] += 1
    for other in range(1, state.players + 1):
        if other != seat:
            hand = state.hands[other]
            for card in range(CARD_KINDS):
                counts[card] += hand[card]
    for pile in state.dead:
        for card in pile:
            counts[card] += 1
    return counts


INERT: Final = "inert"


class DrawClasses:
    """Which cards one draw could bring into ``held`` (the hand before the draw step) reach
    the same best result, read once for the draw: :meth:`of` gives a card's key, shared by
    the cards of its class. (Not for a hand holding two wilds: the caller asks.)

    - :data:`INERT`: a card that could only be thrown away: no wild, no run could take it,
      and no card of its rank held nor set of its rank on the table (or no sets played).
    - ``("rank", r)``: a card of rank ``r`` no run could take, where a set's cards may share
      a suit: it goes only into a set of its rank or away, as any other such card of its
      rank would, worth the same points (``by_rank`` False: not shared).
    - Else the card itself.

    No run could take the card when there is no run of its suit on the table and no card
    of its suit in hand next to it (round the ace), nor one rank further where the hand
    holds a wild: a meld holds at most one wild and two naturals at least (rules.md 1), so
    a run holding the card holds a natural of its suit beside it, or the run's one wild
    beside it and a natural beyond.

    >>> from buraco.replay import deal_hand
    >>> from buraco.selfplay import play_match
    >>> from buraco.cards import CARD_KINDS, Card
    >>> state = deal_hand(play_match("burraco", seed=1), 0)  # nothing melded yet
    >>> held = [0] * CARD_KINDS
    >>> for text in ("Kc", "Kd", "Jh", "8h"):  # the Jh two ranks from the Kh, no wild
    ...     held[Card.parse(text)] += 1
    >>> [DrawClasses(state, held).of(Card.parse(text)) for text in ("Kh", "5d")]
    [('rank', 13), 'inert']
    >>> held[Card.parse("2c")] += 1  # a wild between the Jh and the Kh makes a run
    >>> DrawClasses(state, held).of(Card.parse("Kh")) == Card.parse("Kh")
    True
    """

    def __init__(self, state: HandState, held: Sequence[int], *, by_rank: bool = True) -> None:
        variant = state.variant
        reach = 2 if _wilds(held) else 1  # how far from the card a natural of a run holding it may be
        self.run_may_take = [[False] * 14 for _ in range(4)]  # by suit, then rank
        self.in_sets = [False] * 14  # by rank: a card of it held, or a set of it on the table
        for other in range(CARD_KINDS):
            if not held[other]:
                continue
            rank, suit = RANK_OF[other], SUIT_OF[other]
            self.in_sets[rank] = True  # the joker's rank, 0, is nobody's
            if suit < 0:
                continue
            near = self.run_may_take[suit]
            for place in range(1, 14):
                gap = abs(place - rank)
                if min(gap, 13 - gap) <= reach:
                    near[place] = True
        for meld in state.melds:
            shape = meld.shape
            if shape.is_run:
                self.run_may_take[shape.suit] = [True] * 14
            else:
                self.in_sets[shape.rank] = True
        self.sets = variant.sets
        self.by_rank = by_rank and not variant.set_suits_distinct

    def of(self, card: int) -> object:
        """The key ``card`` shares with the cards reaching the same best result."""
        if IS_WILD_KIND[card]:
            return card
        rank = RANK_OF[card]
        if self.run_may_take[SUIT_OF[card]][rank]:
            return card
        if not self.in_sets[rank] or not self.sets:
            return INERT
        return ("rank", rank) if self.by_rank else card


def _wilds(hand: Sequence[int]) -> int:
    return sum(hand[c] for c in range(CARD_KINDS) if IS_WILD_KIND[c])


# The natural cards of each rank (no 2: every 2 is a wild), by card code.
_NATURALS_OF_RANK: Final = tuple(
    tuple(c for c in range(CARD_KINDS) if RANK_OF[c] == rank and not IS_WILD_KIND[c]) for rank in range(14)
)


class _DrawJudge:
    """The values of the cards one draw step could have drawn, each search done once."""

    def __init__(self, state: HandState, context: SearchContext, unseen: Sequence[int] | None = None) -> None:
        self.state = state
        self.unseen = unseen  # how many of each card the player could not see: the ranks' bounds read it
        self.context = context
        self.seat = state.turn
        self.side = state.side_of[self.seat]
        self.bonus = side_bonus(state, self.side)
        if state.is_over:
            self.standing = 0
        else:
            self.standing = margin_of([s.total for s in scores_if_ended(state, STOCK)], self.side)
        self.held = list(state.hands[self.seat])
        self.share = _wilds(self.held) < 2  # two wilds may make a meld of any one card: no sharing
        self.by_rank = unseen is not None  # the unseen cards of a rank settled at once where the bounds allow
        self.rank_settled: dict[int, bool] = {}
        self.classes: DrawClasses | None = None
        self.held_counts: tuple[list[int], list[int], int] | None = None  # the hand's before the draw, counted once
        self.values: dict[object, int] = {}
        self.searches = 0
        self.table: HandState | None = None

    def key(self, card: int) -> object:
        if not self.share:
            return card
        if self.classes is None:
            self.classes = DrawClasses(self.state, self.held)
        return self.classes.of(card)

    def value(self, card: int) -> int:
        if self.by_rank and not IS_WILD_KIND[card] and self.settled_by_rank(RANK_OF[card]):
            return 0
        key = self.key(card)
        found = self.values.get(key)
        if found is None:
            found = self.values[key] = self.search(card)
        return found

    def settled_by_rank(self, rank: int) -> bool:
        """Is every unseen natural card of ``rank`` worth 0 by the bounds alone? Asked once,
        of the hand holding them all: the canasta bound and going out's quick test only
        pass more often with more cards, so where neither passes with all of them, neither
        passes with any one (most ranks of most draws: one bound for up to four cards)."""
        found = self.rank_settled.get(rank)
        if found is None:
            assert self.unseen is not None
            hand = list(self.held)
            for card in _NATURALS_OF_RANK[rank]:
                if self.unseen[card]:
                    hand[card] += 1
            start = Start.holding(self.hypothetical(), tuple(hand))
            found = self.rank_settled[rank] = (
                not canasta_bound(start, self.context, self.bonus, quick=True) and not may_go_out(start, self.context)
            )
        return found

    def search(self, card: int) -> int:
        """``max(0, B, G)`` for ``card`` drawn; raises SearchCut when the budget runs out."""
        if self.context.budget.spent():
            raise SearchCut()
        self.searches += 1
        start = self.start(card)
        gain = 0
        if canasta_bound(start, self.context, self.bonus, quick=True):
            line = best_canasta_line(start, None, to_beat=self.bonus, context=self.context)
            if line is not None and line.bonus > self.bonus:
                gain = line.bonus - self.bonus
        # Going out counts only where it beats that: the search is asked for no other way out
        # (its bounds end it at once where none could: most cards).
        if may_go_out(start, self.context):
            exit_ = best_exit(start, self.context, margin_to_beat=self.standing + gain)
            if exit_ is not None:
                gain = max(gain, exit_.margin - self.standing)
        return gain

    def start(self, card: int) -> Start:
        draw = Action(self.seat, DRAW, (Card(card),), (), 0, 0, f"p{self.seat} draw {CARD_TEXT[card]}")
        if self.held_counts is None:
            self.held_counts = Start.holding(self.state, tuple(self.held)).counts()
        return Start.drawing(self.hypothetical(), draw, self.held_counts)

    def hypothetical(self) -> HandState:
        """The table before the draw from which any unseen card may be drawn: one table for
        every card of the draw (the searches remember what they read of a table by the
        table), its stock made unrecorded (as many cards, none named: the draw names its
        card) and every kind of card short of its deck's count. The other hands stay as they
        were: what another seat holds counts the same in the score whoever holds the card."""
        if self.table is None:
            state = self.state.copy(log=False)
            state.hidden += len(state.stock)
            state.stock = []
            state.seen = [min(seen, count - 1) for seen, count in zip(state.seen, state.deck)]
            self.table = state
        return self.table


def hand_luck(
    record: Record, index: int, budget: Budget | None = None, context: SearchContext | None = None
) -> HandLuck:
    """The luck of every stock draw of hand ``index`` (0-based), in ply order. A draw the
    ``budget`` (a CPU deadline shared by the caller's searches) leaves unjudged is listed
    with ``judged`` False."""
    began = time.process_time()
    context = context or SearchContext(record.rules)
    if budget is not None:
        context.budget = budget
    played = played_turns(record, index, context)
    draws: list[DrawLuck] = []
    for turn in played.turns:
        if turn.draw.verb != DRAW:
            continue
        state = turn.before_draw
        card = turn.draw.cards[0]
        unseen = unseen_counts(state, turn.seat)
        total = sum(unseen)
        if unseen[card] == 0:  # the table says the card could not be unseen: listed, not judged
            draws.append(DrawLuck(index + 1, turn.draw_ply, turn.seat, card, None, None, None,
                                  unseen=total, judged=False))
            continue
        judge = _DrawJudge(state, context, unseen)
        try:
            values = {c: judge.value(c) for c in range(CARD_KINDS) if unseen[c]}
        except SearchCut:
            draws.append(DrawLuck(index + 1, turn.draw_ply, turn.seat, card, None, None, None,
                                  unseen=total, searches=judge.searches, judged=False))
            continue
        expected = Fraction(sum(unseen[c] * v for c, v in values.items()), total)
        value = values[card]
        draws.append(DrawLuck(
            index + 1, turn.draw_ply, turn.seat, card, value, expected, value - expected,
            low=min(values.values()), high=max(values.values()), unseen=total, searches=judge.searches,
        ))
    final = played.final
    if played.finished:
        scores = tuple(s.total for s in score_hand(final))
    else:
        scores = tuple(s.total for s in scores_if_ended(final, STOCK))
    by_seat: dict[int, Fraction] = {seat: Fraction(0) for seat in range(1, final.players + 1)}
    for draw in draws:
        if draw.luck is not None:
            by_seat[draw.seat] += draw.luck
    return HandLuck(index + 1, draws, scores, tuple(final.side_of), by_seat, time.process_time() - began)


def draw_luck(record: Record, hand_index: int, budget: Budget | None = None) -> list[DrawLuck]:
    """The luck of each stock draw of hand ``hand_index`` (0-based): :func:`hand_luck`'s draws.

    >>> from buraco.selfplay import play_match
    >>> draws = draw_luck(play_match("cerrado", players=2, hands=1, seed=3), 0)
    >>> all(d.judged and d.luck == d.value - d.expected for d in draws)
    True
    """
    return hand_luck(record, hand_index, budget).draws


def match_luck(record: Record, *, match_budget: float | None = None) -> list[HandLuck]:
    """Every playable hand's luck, sharing one CPU budget of ``match_budget`` seconds
    (None: no limit); the draws left when it runs out are listed unjudged.

    >>> from buraco.selfplay import play_match
    >>> hands = match_luck(play_match("cerrado", players=2, hands=2, seed=1), match_budget=0.0)
    >>> all(not d.judged for h in hands for d in h.draws) and any(h.draws for h in hands)
    True
    """
    report = verify(record)
    budget = Budget.seconds(match_budget)
    context = SearchContext(record.rules, budget)
    found = []
    for index, hand in enumerate(report.hands):
        if hand.error is not None and hand.error.ply is None:
            continue
        found.append(hand_luck(record, index, budget, context))
    return found


__all__ = ["INERT", "LUCK_VERSION", "DrawClasses", "DrawLuck", "HandLuck", "draw_luck", "hand_luck", "match_luck", "unseen_counts"]

"""Exhaustive searches within one turn: the light table they walk (:class:`Walk`), its
bounds, and the best canasta bonus a player could end the turn with. The best way to go
out walks the same table: :mod:`buraco.analysis.exits`.

Both walk a light copy of the table (the player's hand as 53 counters, each meld's
shape) through plays proposed by :mod:`buraco.moves` and accepted by the rules'
pure checks (:mod:`buraco.analysis.proposals`, remembered by the cards each depends
on), and replay every line they would report through the engine's own state machine
(:meth:`Start.replay`): a line the engine refuses is never reported, and the score a
line is worth is the one :func:`buraco.scoring.score_hand` gives its table. They use
only what the player holds and what is on the table: the stock and the dead piles
never enter.

Nothing is sampled and no answer is cut off: a branch is left only when a bound proves
it cannot beat the best line found (each bound and why it holds is written where it is
computed), and a table reached twice, in any order of the same plays, is walked once
(a transposition table over the hand and the melds, the melds laid this turn sorted).
A CPU budget (:class:`Budget`) may stop a search; the caller then reports the decision
as not judged, never silently.

Why the canasta search may look only at plays that raise the side's canasta bonus
(and at plays that use a card taken from the pile): a meld changes only by plays onto
it, and a meld's canasta kind depends only on its final cards, so any line that ends
with more bonus holds, meld by meld, one play making each canasta better; the other
plays of the line only spend cards.

>>> from buraco.actions import parse_action
>>> from buraco.cards import parse_cards
>>> from buraco.rules import VARIANTS
>>> from buraco.state import HandState
>>> from buraco.selfplay import new_deck
>>> hand = parse_cards("3h 4h 5h 6h 7h 8h 9h Kc Qd Js 5c")
>>> rest = new_deck(VARIANTS["cerrado"])
>>> for card in hand:
...     rest.remove(card)
>>> state = HandState.deal(VARIANTS["cerrado"], 2, 2, [hand, rest[:11]], [rest[11:22], rest[22:33]], None, rest[33:])
>>> state.apply(parse_action("p1 draw"))  # doctest: +ELLIPSIS
Drew(...)
>>> line = best_canasta_line(state)
>>> line.bonus, [a.text for a in line.actions][0]
(200, 'p1 meld 3h 4h 5h 6h 7h 8h 9h')
"""

from __future__ import annotations

import time
import weakref
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Final, Literal, NamedTuple, cast

from ..actions import TAKE, Action, discard_action
from ..cards import CARD_KINDS, CARDS, JOKER_CODE, card_of
from ..errors import IllegalActionError
from ..melds import (
    ALL_13,
    ALL_14,
    CLEAN,
    DIRTY,
    CardToken,
    Shape,
    canasta_bonus,
    canasta_kind,
    founding_of,
    moved_founding,
    opens_going_out,
)
from ..moves import WILD_CODES, add_action, discard_actions, meld_action
from ..rules import Variant
from ..state import OUT, PLAY_STEP, HandState, Obligation, TableMeld
from .compiled import python_class
from .proposals import (
    IS_WILD_KIND,
    RANK_OF,
    SUIT_OF,
    LayOff,
    NewMeld,
    Proposals,
    code_of,
    run_projection,
    set_projection,
)

BUDGET_EVERY: Final = 64  # tables a search visits between two looks at the CPU clock


class SearchCut(Exception):
    """The CPU budget ran out during a search: the caller says so, never silently."""


class Budget:
    """A CPU deadline (``time.process_time``) shared by the searches of an analysis."""

    def __init__(self, deadline: float | None = None) -> None:
        self.deadline = deadline

    @classmethod
    def seconds(cls, seconds: float | None) -> Budget:
        """A budget of ``seconds`` of CPU from now (None: no limit)."""
        return cls(None if seconds is None else time.process_time() + seconds)

    def spent(self) -> bool:
        return self.deadline is not None and time.process_time() > self.deadline


UNLIMITED: Final = Budget()


# The melds a player may lay off on, as card_may_be_held reads them: runs by suit, sets by rank.
Extendable = tuple[tuple[list[Shape], ...], dict[int, list[Shape]]]


class SearchContext:
    """What the searches of one analysis share: the remembered proposals of its rule
    set, bounds and searches (forgotten as each hand is judged, :meth:`forget_hand`), the
    CPU budget, and how many tables the searches visited (for the bench)."""

    def __init__(self, variant: Variant, budget: Budget = UNLIMITED) -> None:
        self.variant = variant
        self.proposals = Proposals(variant)
        self.budget = budget
        self.nodes = 0  # tables visited, all searches
        self.largest = 0  # the most tables one search visited
        self._kind_bounds: dict[tuple[object, ...], int] = {}
        # The side's melds the bounds from card counts read, by table (its melds_of tuple,
        # kept alive by the entry) and side: see side_melds.
        self._side_melds: dict[tuple[int, int], tuple[tuple[MeldState, ...], tuple[SideMeld, ...]]] = {}
        self._side_meld_of: dict[int, tuple[MeldState, SideMeld]] = {}  # by the meld's id (kept alive)
        self._new_bounds: dict[tuple[object, ...], tuple[tuple[int, int], ...]] = {}
        self._extendable: dict[tuple[int, int], tuple[tuple[MeldState, ...], Extendable]] = {}  # see extendable
        self._tables: dict[int, tuple[HandState, tuple[MeldState, ...], tuple[int, ...]]] = {}
        # The melds of the table read last, and what was read of them: the tables of one
        # turn after another mostly hold the very same melds, which then share one reading
        # (and so the side_melds read of it).
        self._last_read: tuple[list[TableMeld], tuple[MeldState, ...], tuple[int, ...]] | None = None
        # Each table meld as a search keeps it, and the canasta bonus of those holding one,
        # by the meld object (identity: TableMeld defines no equality). A lay-off replaces a
        # table meld rather than changing it, and copies of a table share its melds, so the
        # melds of one turn's table are mostly those of the turn before.
        self._light_melds: dict[TableMeld, MeldState] = {}
        self._canastas: dict[TableMeld, int] = {}
        self._suit_gains: dict[tuple[object, ...], int] = {}
        self._slot_bounds: dict[tuple[object, ...], int] = {}  # Walk.bonus_bound
        # The exit searches made, by their light table and then by what each was asked
        # (buraco.analysis.exits: _Remembered by Question).
        self.exits: dict[tuple[object, ...], dict[tuple[object, ...], tuple[object, ...]]] = {}
        # What the margin bound of an exit search reads of the table before the draw step
        # (buraco.analysis.exits: _ExitSearch.prepare_constants), by the table's id and the
        # seat: the sides' scores were the player to go out there, and the player's hand's
        # card points. The turn as played and every take passed over share that table.
        self.exit_constants: dict[tuple[int, int], tuple[HandState, tuple[int, ...], int]] = {}
        # The canasta searches made, likewise (_RememberedLines): a hand's tables come back,
        # as when a player takes the pile's top card and throws it back turn after turn.
        self.canasta_lines: dict[tuple[object, ...], _RememberedLines] = {}

    def _table(self, base: HandState) -> tuple[HandState, tuple[MeldState, ...], tuple[int, ...]]:
        """A table's melds as a search keeps them and each side's canasta bonus, read once
        per table: :func:`~buraco.analysis.turns.played_turns` reads each turn's table as
        it copies it, and the turn's searches, which all start from it, find it here (the
        entry keeps the table alive: its id is not reused). Enough tables are kept for the
        turns of a long hand (:meth:`forget_hand` drops them). A table holding the very
        melds of the table read just before shares that reading (most turns lay none)."""
        found = self._tables.get(id(base))
        if found is None or found[0] is not base:
            if len(self._tables) >= TABLES_REMEMBERED:
                self._tables.clear()
            table = base.melds
            last = self._last_read
            if last is not None and last[0] == table:  # the very melds (TableMeld compares by identity)
                melds, bonuses = last[1], last[2]
            else:
                melds, bonuses = self._read(base)
                self._last_read = (list(table), melds, bonuses)
            found = self._tables[id(base)] = (base, melds, bonuses)
        return found

    def _read(self, base: HandState) -> tuple[tuple[MeldState, ...], tuple[int, ...]]:
        """:meth:`_table`'s reading of a table's melds and bonuses. The melds known already
        are looked up all at once (a look-up per meld at C speed); the rest are read."""
        self._bound_melds()
        table = base.melds
        known = self._light_melds
        melds = tuple(map(known.get, table))
        if None in melds:
            for meld in table:
                if meld not in known:
                    self._light(meld)
            melds = tuple(map(known.get, table))
        bonuses = [0] * len(base.sides)
        canastas = self._canastas
        for meld in filter(canastas.__contains__, table):
            bonuses[meld.side] += canastas[meld]
        return cast(tuple[MeldState, ...], melds), tuple(bonuses)

    def forget_hand(self) -> None:
        """Drop what the searches of a judged hand learned: the tables and melds read, the
        bounds, proposals and searches remembered. A new hand deals new hands and melds,
        so little of it would come back; kept, it grew with every hand of a match, and the
        cycle collector walked all of it after each hand (abierto's 150 hands: 6% to 11%
        less CPU time without it, docs/benchmarks.md, ninth round)."""
        self._tables.clear()
        self._last_read = None
        self._side_melds.clear()
        self._side_meld_of.clear()
        self._extendable.clear()
        self._light_melds.clear()
        self._canastas.clear()
        self._kind_bounds.clear()
        self._new_bounds.clear()
        self._suit_gains.clear()
        self._slot_bounds.clear()
        self.exits.clear()
        self.exit_constants.clear()
        self.canasta_lines.clear()
        self.proposals = Proposals(self.variant)

    def side_melds(self, melds: tuple[MeldState, ...], side: int) -> tuple[SideMeld, ...]:
        """The melds of ``side`` (0-based) among a table's ``melds`` (:meth:`melds_of`) that
        could hold a canasta, in table order, as the bounds from card counts read them:
        read once per table and side. Every turn's reach bound reads its table's melds;
        the other sides' and, where a set holds at most six cards, the sets are left out
        here rather than skipped there."""
        key = (id(melds), side)
        found = self._side_melds.get(key)
        if found is None or found[0] is not melds:
            if len(self._side_melds) >= 2 * TABLES_REMEMBERED:
                self._side_melds.clear()
                self._side_meld_of.clear()
            sets_grow = sets_hold_canastas(self.variant)
            # Each meld's reading is remembered by the meld (the tables of a hand share most
            # of their melds: a new reading differs from the last by a meld or two).
            known = self._side_meld_of
            read_list = []
            for m in melds:
                if m.side == side and (m.shape.is_run or sets_grow):
                    entry = known.get(id(m))
                    if entry is None or entry[0] is not m:
                        entry = known[id(m)] = (m, side_meld(m))
                    read_list.append(entry[1])
            found = self._side_melds[key] = (melds, tuple(read_list))
        return found[1]

    def extendable(self, melds: tuple[MeldState, ...], side: int) -> Extendable:
        """The shapes of the melds among a table's ``melds`` (:meth:`melds_of`) that the
        players of ``side`` (0-based) may lay off on: the runs by suit, and the sets by
        rank (the ranks with a set only). Read once per reading and side: a take's count
        test (:func:`card_may_be_held`) asks it of every take a turn tries."""
        anyone = self.variant.lay_off_anyone
        key = (id(melds), -1 if anyone else side)
        found = self._extendable.get(key)
        if found is None or found[0] is not melds:
            if len(self._extendable) >= 2 * TABLES_REMEMBERED:
                self._extendable.clear()
            runs: tuple[list[Shape], ...] = ([], [], [], [])
            sets: dict[int, list[Shape]] = {}
            for meld in melds:
                if anyone or meld.side == side:
                    shape = meld.shape
                    if shape.is_run:
                        runs[shape.suit].append(shape)
                    else:
                        sets.setdefault(shape.rank, []).append(shape)
            found = self._extendable[key] = (melds, (runs, sets))
        return found[1]

    def melds_of(self, base: HandState) -> tuple[MeldState, ...]:
        """The melds of a table as a search keeps them, read once per table (a turn's
        searches all start from its table before or after the draw step)."""
        return self._table(base)[1]

    def table_of(self, base: HandState) -> tuple[tuple[MeldState, ...], tuple[int, ...]]:
        """:meth:`melds_of` and every side's :meth:`bonus_of` (by 0-based side) at once."""
        _, melds, bonuses = self._table(base)
        return melds, bonuses

    def _light(self, meld: TableMeld) -> tuple[MeldState, int]:
        """A table meld as a search keeps it, and its canasta bonus, remembered by the meld
        object (the entry keeps it alive; see :meth:`_bound_melds`)."""
        light = self._light_melds.get(meld)
        if light is None:
            light = self._light_melds[meld] = MeldState(meld.number, meld.shape, meld.side, meld.owner, meld.founding)
            bonus = canasta_bonus(meld.kind(self.variant), self.variant)
            if bonus:
                self._canastas[meld] = bonus
        return light, self._canastas.get(meld, 0)

    def _bound_melds(self) -> None:
        """Forget the melds read once there are many (before a table is read, never while)."""
        if len(self._light_melds) > 4096:
            self._light_melds.clear()
            self._canastas.clear()

    def bonus_of(self, base: HandState, side: int) -> int:
        """The side's canasta bonus on a table, read once per table (with its melds)."""
        return self._table(base)[2][side]

    def bonus_now(self, state: HandState, side: int) -> int:
        """The side's canasta bonus on ``state`` as it stands (a table being played on:
        not remembered by table, only each meld's bonus by meld object)."""
        self._bound_melds()
        return sum(self._light(m)[1] for m in state.melds if m.side == side)


TABLES_REMEMBERED: Final = 512  # tables a context keeps read (then it forgets them all)


@dataclass(frozen=True)
class Line:
    """A legal way to play out the rest of a turn, and what it leaves."""

    actions: tuple[Action, ...]
    bonus: int  # the side's canasta bonus once the line is played
    state: HandState


@dataclass(frozen=True)
class Exit:
    """A legal way to go out this turn, and the hand's score then."""

    actions: tuple[Action, ...]
    margin: int  # the side's score minus the best other side's
    scores: tuple[int, ...]
    state: HandState
    bonus: int = 0  # the side's canasta bonus then


def side_bonus(state: HandState, side: int) -> int:
    """The canasta bonus the side's melds hold now (0-based side)."""
    variant = state.variant
    return sum(canasta_bonus(m.kind(variant), variant) for m in state.melds if m.side == side)


def margin_of(scores: tuple[int, ...] | list[int], side: int) -> int:
    """The side's score minus the best other side's."""
    others = [s for i, s in enumerate(scores) if i != side]
    return scores[side] - max(others) if others else scores[side]


# --- where a search starts ------------------------------------------------------------


@python_class
@dataclass(frozen=True)
class Start:
    """A table just after a draw step: the one played (``base`` after it, ``draw`` None),
    or a take the player passed over (``base`` before it, ``draw`` the take), built
    without playing the take: a search proves a take legal by finding a line that meets
    its obligation, and :meth:`replay` has the engine judge it."""

    base: HandState
    draw: Action | None
    seat: int
    hand: tuple[int, ...]  # the player's hand after the draw step
    obligation: Obligation | None

    @classmethod
    def after(cls, state: HandState) -> Start:
        """The table ``state`` (its play step, nothing played yet)."""
        seat = state.turn
        return _new_start(state, None, seat, tuple(state.hands[seat]), state.obligation)

    @classmethod
    def drawing(
        cls, state: HandState, draw: Action, held_counts: tuple[list[int], list[int], int] | None = None,
    ) -> Start:
        """The table after ``draw`` (a ``draw`` naming its card) from ``state``, at its draw step.
        ``held_counts``: the counts (:meth:`counts`) of the hand before the draw, where known:
        the start's are those and the card drawn (the luck of a draw starts from one hand
        with each card it could have drawn)."""
        seat = state.turn
        hand: list[int] = list(state.hands[seat])
        card: int = draw.cards[0]
        hand[card] = hand[card] + 1
        start = _new_start(state, draw, seat, tuple(hand), None)
        if held_counts is not None:
            start._count_from(held_counts, (card,), 1)
        return start

    @classmethod
    def taking(cls, state: HandState, take: Action) -> Start:
        """The table after ``take`` (a ``take`` action) from ``state``, at its draw step."""
        seat = state.turn
        pile = state.discard_pile
        hand: list[int] = list(state.hands[seat])
        for card in cast("list[int]", pile[-(take.depth or len(pile)):]):
            hand[card] = hand[card] + 1  # not +=: compiled, that adds list items as objects
        return _new_start(state, take, seat, tuple(hand), state.obligation_of_take(seat, take.depth))

    @classmethod
    def taking_fewer(cls, deeper: Start, take: Action, fewer: Sequence[int]) -> Start:
        """:meth:`taking` ``take``, built from ``deeper``, a deeper take of the same pile,
        which took the cards ``fewer`` more: its hand less those (a card or two, where a
        take holds the whole reach of the pile), and counted from it where it was counted."""
        state, seat = deeper.base, deeper.seat
        hand = list(deeper.hand)
        for card in fewer:
            hand[card] = hand[card] - 1
        start = _new_start(state, take, seat, tuple(hand), state.obligation_of_take(seat, take.depth))
        start._counts_from(deeper, fewer)
        return start

    @classmethod
    def holding(cls, state: HandState, hand: tuple[int, ...]) -> Start:
        """``hand`` (by card) against the table ``state``, for the player whose turn it is,
        with no draw step and no obligation: a start that only the bounds from card counts
        read (never searched, never replayed)."""
        return start_holding(state, hand)

    def counts(self) -> tuple[list[int], list[int], int]:
        """The hand's cards by suit, by rank, and its wilds (see :meth:`Walk.counts`),
        counted once per start (the lists are shared: copy before changing them)."""
        return _start_counts(self)

    def _counts_from(self, deeper: Start, cards: Sequence[int]) -> None:
        """Count this start's hand from ``deeper``'s, which held ``cards`` more, where that
        one was counted (:meth:`taking_fewer`)."""
        known: tuple[list[int], list[int], int] | None = deeper.__dict__.get("_counts")
        if known is not None:
            self._count_from(known, cards, -1)

    def _count_from(self, known: tuple[list[int], list[int], int], cards: Sequence[int], sign: int) -> None:
        """Count this start's hand from the counts ``known`` of a hand holding ``cards``
        fewer (``sign`` 1) or more (-1); ``known`` is left as it was."""
        suits, ranks = list(known[0]), list(known[1])
        object.__setattr__(self, "_counts", (suits, ranks, _count_in(suits, ranks, known[2], cards, sign)))

    def counted(self, context: SearchContext) -> StartTable:
        """The hand against the table here, as the bounds from card counts read it: made
        once per start, lighter than a :class:`Walk` (most turns' searches end on these
        bounds, and need no walk)."""
        found: StartTable | None = self.__dict__.get("_counted")
        if found is None or found.context is not context:
            base, seat, hand = self.base, self.seat, self.hand
            counts = _start_counts(self)  # counts(), without a Python method call: each turn's reach is a new start
            found = StartTable()
            found.context, found.variant, found.seat, found.side = context, base.variant, seat, base.side_of[seat]
            found.table_melds = context.melds_of(base)
            found.melds, found.hand = list(found.table_melds), list(hand)
            found._suits, found._ranks, found._wilds = counts
            found.size = sum(counts[0]) + hand[JOKER_CODE]  # the suits' cards and the jokers: no sum over 53 counts
            object.__setattr__(self, "_counted", found)
        return found

    def bonus_bound(self, context: SearchContext) -> int:
        """The bound from card counts on the canasta bonus the side could hold once any line
        from here is played (:meth:`CountedTable.bonus_bound` at this table), once per start."""
        return self.counted(context).bonus_bound()

    def replay(self, line: Sequence[Action]) -> HandState | None:
        """The table after the draw step and ``line``, each action judged by the engine;
        None if it refuses one. Every caller ends the turn with the line (a discard, or
        going out), so a take is judged by :meth:`~buraco.state.HandState.take_for_turn`:
        the line's end proves the taken card used (brasil's middle hands: -1.5%
        instructions). The draw step is played again for each line, on the one copy of
        the table the line is played on: most starts replay one line."""
        state = self.base.copy(log=False)
        draw = self.draw
        try:
            if draw is not None and draw.verb == TAKE:
                state.take_for_turn(draw.seat, draw.depth)
            elif draw is not None:
                state.apply(draw)
            for action in line:
                state.apply(action)
        except IllegalActionError:
            return None
        return state


def _start_counts(start: Start) -> tuple[list[int], list[int], int]:
    """:meth:`Start.counts`: worked out once and kept on the start. A function, so that
    compiled callers (:meth:`Start.counted`) call it natively."""
    found: tuple[list[int], list[int], int] | None = start.__dict__.get("_counts")
    if found is None:
        found = _counts_of(start.hand)
        object.__setattr__(start, "_counts", found)
    return found


def start_holding(state: HandState, hand: tuple[int, ...]) -> Start:
    """:meth:`Start.holding`, as a function: compiled callers (each turn's reach) call it
    natively, where a class method of :class:`Start` (a Python class) is a Python call."""
    return _new_start(state, None, state.turn, hand, None)


def _new_start(base: HandState, draw: Action | None, seat: int, hand: tuple[int, ...], obligation: Obligation | None) -> Start:
    # Starts are made by the thousand a hand (each turn's reach and draw, each take passed
    # over): filled at once, where the frozen dataclass's own __init__ sets each field
    # through object.__setattr__ (0.4 us more a start).
    start = object.__new__(Start)
    start.__dict__.update(base=base, draw=draw, seat=seat, hand=hand, obligation=obligation)
    return start


_CHEAPEST_FIRST: dict[tuple[int, ...], tuple[int, ...]] = {}


def cheapest_first(variant: Variant) -> tuple[int, ...]:
    """Every kind of card, the cheapest first (by value, then by code): the order in which
    a line's ending discard is chosen where the one played is not legal, and a discard
    that fits nothing is looked for.

    >>> from buraco.rules import VARIANTS
    >>> from buraco.cards import CARD_TEXT
    >>> [CARD_TEXT[c] for c in cheapest_first(VARIANTS["brasil"])[:3]]
    ['2c', '2d', '2h']
    """
    values = variant.card_values
    found = _CHEAPEST_FIRST.get(values)
    if found is None:
        found = _CHEAPEST_FIRST[values] = tuple(sorted(range(CARD_KINDS), key=lambda c: (values[c], c)))
    return found


def ending_discard(state: HandState, prefer: int | None) -> Action | None:
    """The discard that ends the turn: the one the player really made when it is still
    legal, else the cheapest legal one."""
    if state.is_over:
        return None
    seat = state.turn
    hand = state.hands[seat]
    # The card preferred, or else the cheapest held, asked of the engine alone first: the
    # rules refuse a discard for the turn (a pile's card still to meld, the last card),
    # never for the card, so where that one is legal it is the answer.
    first = prefer if prefer is not None and hand[prefer] else next((c for c in cheapest_first(state.variant) if hand[c]), None)
    if first is not None and state.can_discard(seat, CARDS[first]):
        return discard_action(seat, CARDS[first])
    # Only a rule about the card itself would reach here with a legal discard left.
    values = state.variant.card_values
    options = list(discard_actions(state))
    return min(options, key=lambda a: (values[a.cards[0]], a.cards[0]), default=None)


# --- the light table a search walks ------------------------------------------------------


SLOT_BOUNDS_REMEMBERED: Final = 100_000  # slots' sums of bounds a context remembers (then forgets them all)


def _slot(shape: Shape) -> int:
    """A meld's slot: 0-3, a run of that suit; 4 + rank, a set of that rank."""
    return shape.suit if shape.is_run else 4 + shape.rank


def sets_hold_canastas(variant: Variant) -> bool:
    """Can a set be a canasta in the rule set (sets are played, and may hold seven cards)?

    >>> from buraco.rules import VARIANTS
    >>> sets_hold_canastas(VARIANTS["cerrado"]), sets_hold_canastas(VARIANTS["brasil"])
    (True, False)
    """
    return variant.sets and (variant.set_max is None or variant.set_max >= 7)


class MeldState:
    """A meld as a search keeps it: its number, layout, side, owner and founding (see
    :class:`~buraco.state.TableMeld`), never changed once made. Its hash is worked out
    once, at the first key that holds it: every transposition key and remembered search
    holds the table's melds, which as a tuple were hashed anew each time, their shapes'
    cards included (as a class of its own, brasil's tail hands execute 2.0% fewer
    instructions: docs/benchmarks.md, forty-first round).

    >>> from buraco.cards import parse_cards
    >>> from buraco.melds import CardToken, resolve_meld
    >>> from buraco.rules import VARIANTS
    >>> run = resolve_meld([CardToken(c) for c in parse_cards("7h 8h 9h")], VARIANTS["brasil"])
    >>> meld, again = MeldState(1, run, 0, 1, 0), MeldState(1, run, 0, 1, 0)
    >>> meld == again, hash(meld) == hash(again), meld is again
    (True, True, False)
    >>> longer = resolve_meld([CardToken(c) for c in parse_cards("7h 8h 9h Th")], VARIANTS["brasil"])
    >>> [meld == other for other in (MeldState(2, run, 0, 1, 0), MeldState(1, run, 1, 1, 0), MeldState(1, run, 0, 2, 0),
    ...                              MeldState(1, run, 0, 1, 1), meld.with_shape(longer))]  # each field tells them apart
    [False, False, False, False, False]
    >>> len({meld, again, meld.with_shape(run)})
    1
    """

    __slots__ = ("number", "shape", "side", "owner", "founding", "_hash")

    def __init__(self, number: int, shape: Shape, side: int, owner: int, founding: int) -> None:
        self.number = number
        self.shape = shape
        self.side = side
        self.owner = owner
        self.founding = founding
        self._hash = 0

    def __hash__(self) -> int:
        if not self._hash:
            self._hash = hash((self.number, self.shape, self.side, self.owner, self.founding)) or 1
        return self._hash

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, MeldState):
            return NotImplemented
        return (
            self.__hash__() == other.__hash__() and self.number == other.number and self.side == other.side
            and self.owner == other.owner and self.founding == other.founding and self.shape == other.shape
        )

    def __repr__(self) -> str:
        return f"MeldState({self.number}, {self.shape!r}, {self.side}, {self.owner}, {self.founding})"

    def with_shape(self, shape: Shape) -> MeldState:
        """The same meld laid out as ``shape``."""
        return MeldState(self.number, shape, self.side, self.owner, self.founding)


class SideMeld(NamedTuple):
    """A meld of the side whose bounds a table's counts are read against
    (:meth:`SearchContext.side_melds`), with what :meth:`CountedTable.could_grow_to_canasta`
    and :meth:`CountedTable.kind_bound` read of its shape."""

    meld: MeldState
    is_run: bool
    suit_or_rank: int  # its suit (a run) or its rank (a set): the hand's count it grows by
    length: int  # its cards
    open_wild: int  # 1 where it holds no wild (one from the hand could join), else 0
    stays_dirty: bool  # a dirty canasta whose wild never leaves: bounded at the dirty bonus


def side_meld(meld: MeldState) -> SideMeld:
    """What the bounds from card counts read of a meld's shape (see :class:`SideMeld`)."""
    shape = meld.shape
    is_run, wild_index = shape.is_run, shape.wild_index
    # A dirty canasta whose wild is not its suit's 2 stays dirty (kind_bound).
    stays_dirty = wild_index >= 0 and len(shape.cards) >= 7 and not (is_run and shape.cards[wild_index] == shape.suit + 4)
    # tuple.__new__: a named tuple's own __new__ is dearer, and a walk reads melds so on every
    # bound it has not worked out before.
    return tuple.__new__(SideMeld, (meld, is_run, shape.suit if is_run else shape.rank, len(shape.cards), int(wild_index < 0), stays_dirty))


def _counts_of(hand: tuple[int, ...]) -> tuple[list[int], list[int], int]:
    """The hand's cards by suit, by rank, and its wilds (see :meth:`Walk.counts`): a
    card's code is ``(rank - 1) * 4 + suit``, the joker's last, so each rank is four
    codes in a row, one per suit. Read rank by rank into locals: compiled, on a tuple,
    a fifth of the cost of slicing the hand by suit and adding the slices place by place
    (the reach of every turn and the start of every take count a hand), and no dearer
    interpreted.

    >>> hand = [0] * 53
    >>> hand[0] = hand[4] = hand[5] = hand[52] = 1  # Ac, 2c, 2d, a joker
    >>> suits, ranks, wilds = _counts_of(tuple(hand))
    >>> suits, ranks[1], ranks[2], wilds
    ([2, 1, 0, 0], 1, 2, 3)
    """
    clubs = diamonds = hearts = spades = 0
    ranks = [0]
    for first in range(0, JOKER_CODE, 4):
        club, diamond, heart, spade = hand[first], hand[first + 1], hand[first + 2], hand[first + 3]
        clubs += club
        diamonds += diamond
        hearts += heart
        spades += spade
        ranks.append(club + diamond + heart + spade)
    return [clubs, diamonds, hearts, spades], ranks, hand[JOKER_CODE] + ranks[2]


def _count_in(suits: list[int], ranks: list[int], wilds: int, cards: Sequence[int], sign: int) -> int:
    """Count ``cards`` into (``sign`` 1) or out of (-1) a hand's counts by suit and by rank
    (see :func:`_counts_of`), in place; returns its wilds' count after.

    >>> suits, ranks, wilds = _counts_of((0,) * 53)
    >>> _count_in(suits, ranks, wilds, [4, 52], 1), suits[0], ranks[2]  # 2c, a joker
    (2, 1, 1)
    """
    for card in cards:
        if card == JOKER_CODE:
            wilds += sign
            continue
        suit = card & 3  # SUIT_OF and RANK_OF, worked out (see _counts_of)
        rank = (card >> 2) + 1
        suits[suit] = suits[suit] + sign
        ranks[rank] = ranks[rank] + sign
        if rank == 2:
            wilds += sign
    return wilds


SETS_PART: Final = 4  # the sets' part in Walk.split_parts (the runs': their suit)


class CountedTable:
    """A hand against a table, as the bounds from card counts read it: what a :class:`Walk`
    keeps as plays go, and what :meth:`Start.counted` reads at a turn's start without
    making a walk (most turns' searches end on these bounds)."""

    context: SearchContext
    variant: Variant
    seat: int
    side: int
    melds: list[MeldState]
    hand: list[int]
    size: int
    _suits: list[int]
    _ranks: list[int]
    _wilds: int

    def meld_bonus(self, meld: MeldState) -> int:
        shape = meld.shape
        if len(shape.cards) < 7:  # most melds: no canasta, asked without two calls
            return 0
        return canasta_bonus(canasta_kind(shape, self.variant, meld.founding), self.variant)

    def could_grow_to_canasta(self, meld: MeldState, suits: list[int], ranks: list[int], wilds: int) -> bool:
        """Could the meld hold seven cards or more once laid off on? Every card of its suit
        (run) or rank (set) in hand, and one wild where it has none, at most (a quick test
        before :meth:`kind_bound`; a meld of seven or more always passes)."""
        shape = meld.shape
        extra = suits[shape.suit] if shape.is_run else ranks[shape.rank]
        longest = len(shape.cards) + extra + (1 if wilds and shape.wild_index < 0 else 0)
        if not shape.is_run and self.variant.set_max is not None:
            longest = min(longest, self.variant.set_max)
        return longest >= 7

    def kind_bound(self, meld: MeldState, projections: dict[int, tuple[int, ...]] | None = None) -> int:
        """A bound on the canasta bonus ``meld`` can hold after any plays of this turn
        with the cards in hand (see :func:`meld_bonus_bound`), remembered per projection.
        ``projections``: the hand's projections already read for this hand (by suit of a
        run, 4 + rank of a set), filled as they are read."""
        shape = meld.shape
        if shape.wild_index >= 0 and len(shape.cards) >= 7 and not (shape.is_run and shape.cards[shape.wild_index] == shape.suit + 4):
            # A dirty canasta whose wild is not its suit's 2 stays dirty whatever the hand:
            # that wild never leaves the meld (see meld_bonus_bound). About a fifth of the
            # bounds asked in abierto, answered without reading the hand.
            return self.variant.bonus_dirty
        if projections is None:
            projection = run_projection(shape.suit, self.hand) if shape.is_run else set_projection(shape.rank, self.hand)
        else:
            slot = shape.suit if shape.is_run else 4 + shape.rank
            projection = projections.get(slot)  # type: ignore[assignment]
            if projection is None:
                projection = projections[slot] = (
                    run_projection(shape.suit, self.hand) if shape.is_run else set_projection(shape.rank, self.hand)
                )
        # By the meld, whose hash is worked out once (a shape's is not): the bound reads its
        # shape and founding only, and the melds it is asked of stay on the table turn
        # after turn (each turn's reach asks it of every meld of the side).
        key = (meld, projection)
        bounds = self.context._kind_bounds
        found = bounds.get(key)
        if found is None:
            found = bounds[key] = max(self.meld_bonus(meld), meld_bonus_bound(self.variant, meld, self.hand))
        return found

    def new_bound(self, counts: tuple[list[int], list[int], int] | None = None, *, single: bool = False) -> int:
        """A bound on the canasta bonus new melds laid from the hand could hold (see
        :func:`new_run_groups`; a set canasta needs seven cards of its rank, one of them
        perhaps a wild). With ``single``: a bound on the bonus of any one new canasta (what
        going out asks for is one canasta of a kind, not a sum of several)."""
        if self.size < 7:
            return 0
        groups = self.new_groups(counts)
        if not groups:
            return 0
        if single:
            return max(bonus for bonus, _ in groups)
        most = self.size // 7  # a canasta holds at least 7 cards of the hand
        bonuses = sorted((bonus for bonus, count in groups for _ in range(count)), reverse=True)
        return sum(bonuses[:most])

    def new_groups(self, counts: tuple[list[int], list[int], int] | None = None) -> list[tuple[int, int]]:
        """The new canastas the hand could lay, as (a bonus, how many could have it):
        the runs suit by suit (:func:`new_run_groups`), then the sets (the hand holds at
        least seven cards; see :meth:`new_bound`)."""
        suits, ranks, wilds = counts or (self._suits, self._ranks, self._wilds)
        groups: list[tuple[int, int]] = []
        bounds = self.context._new_bounds
        hand = self.hand
        for suit in range(4):
            if suits[suit] < 6:
                continue  # a canasta of seven holds at least six cards of its suit
            key: tuple[object, ...] = ("run", suit, run_projection(suit, hand))
            found = bounds.get(key)
            if found is None:
                found = bounds[key] = new_run_groups(self.variant, hand, suit)
            groups.extend(found)
        variant = self.variant
        if sets_hold_canastas(variant):
            for rank in (1, *range(3, 14)):
                naturals = ranks[rank]
                if naturals + min(1, wilds) >= 7:
                    groups.append((canasta_bonus(CLEAN if naturals >= 7 else DIRTY, variant), 1))
        return groups

    def bonus_bound(self) -> int:
        """A bound on the canasta bonus the side could hold once any line from here is
        played: each meld of the side at its own bound, plus new canastas at theirs. Sound
        because each bound assumes every card of the hand available to it, and cards one
        play spends are not available to another."""
        sets_grow = sets_hold_canastas(self.variant)
        melds = (side_meld(m) for m in self.melds if m.side == self.side and (m.shape.is_run or sets_grow))
        return self._side_bounds(melds) + self.new_bound()

    def _side_bounds(self, melds: Iterable[SideMeld], into: list[tuple[MeldState, int]] | None = None) -> int:
        """The sum of :meth:`kind_bound` over ``melds`` (the side's, as :func:`side_meld`
        reads them) that could hold seven cards, each (meld, bound) added to ``into`` where
        given. Asked at every table a search visits and at every turn's reach:
        :meth:`could_grow_to_canasta` and the remembered bound are read inline."""
        suits, ranks, wilds = self._suits, self._ranks, self._wilds
        dirty = self.variant.bonus_dirty
        hand = self.hand
        remembered = self.context._kind_bounds
        projections: dict[int, tuple[int, ...]] = {}
        total = 0
        for meld, is_run, suit_or_rank, length, open_wild, stays_dirty in melds:
            if length + (suits[suit_or_rank] if is_run else ranks[suit_or_rank]) + (open_wild if wilds else 0) < 7:
                continue  # could_grow_to_canasta (a set side_meld reads may hold seven cards: no cap)
            if stays_dirty:
                bound = dirty
            else:
                slot = suit_or_rank if is_run else 4 + suit_or_rank
                projection = projections.get(slot)
                if projection is None:
                    projection = projections[slot] = run_projection(suit_or_rank, hand) if is_run else set_projection(suit_or_rank, hand)
                known = remembered.get((meld, projection))
                bound = self.kind_bound(meld, projections) if known is None else known
            total += bound
            if into is not None:
                into.append((meld, bound))
        return total

    def may_qualify(self) -> bool:
        """Going out needs a canasta (clean in some sets; in ``brasil`` one's own): is one
        on the table, or could the cards in hand make one? (By the bounds: a meld of the
        player's whose bound reaches the kind needed, or a new canasta whose own bound
        does: three dirty canastas to be had do not make the clean one asked for.)"""
        variant = self.variant
        need = canasta_bonus(CLEAN, variant) if variant.out_needs_clean else canasta_bonus(DIRTY, variant)
        counts = (self._suits, self._ranks, self._wilds)  # read, not changed
        melds = self.melds
        # The meld that answered last is asked first: a search asks table after table, and
        # mostly the same meld answers (the answer is whether any meld does).
        first = self._qualified_by
        if first < len(melds) and self._qualifies(melds[first], need, counts):
            return True
        for place, meld in enumerate(melds):
            if place != first and self._qualifies(meld, need, counts):
                self._qualified_by = place
                return True
        return self.new_bound(counts, single=True) >= need

    _qualified_by = 0  # may_qualify: the place of the meld that answered last

    def _qualifies(self, meld: MeldState, need: int, counts: tuple[list[int], list[int], int]) -> bool:
        """May the player go out on ``meld`` now, or could it hold a canasta worth ``need``?"""
        variant = self.variant
        if meld.side != self.side or (variant.lay_off_anyone and meld.owner != self.seat):
            return False
        kind = canasta_kind(meld.shape, variant, meld.founding)
        if kind is not None and (kind != DIRTY or not variant.out_needs_clean):  # opens_going_out, inlined: asked every turn
            return True
        return self.could_grow_to_canasta(meld, *counts) and self.kind_bound(meld) >= need


class StartTable(CountedTable):
    """The :class:`CountedTable` of a :class:`Start`, which never changes: its bounds are
    worked out once, meld by meld, and shared by the canasta bound and going out's quick
    test (a turn asks both of its two starts)."""

    table_melds: tuple[MeldState, ...]  # the table's, as SearchContext.melds_of reads them (melds: a copy)
    _meld_bounds: list[tuple[MeldState, int]] | None = None
    _groups: list[tuple[int, int]] | None = None
    _bonus_bound: int | None = None
    _side_total = 0  # the sum of the meld bounds

    def meld_bounds(self) -> list[tuple[MeldState, int]]:
        """The side's melds that could hold seven cards, each with its :meth:`kind_bound`,
        read from the melds :meth:`SearchContext.side_melds` picked once per reading."""
        found = self._meld_bounds
        if found is None:
            found = self._meld_bounds = []
            self._side_total = self._side_bounds(self.context.side_melds(self.table_melds, self.side), found)
        return found

    def new_groups(self, counts: tuple[list[int], list[int], int] | None = None) -> list[tuple[int, int]]:
        if counts is not None:  # other counts than the start's
            return super().new_groups(counts)
        if self._groups is None:
            self._groups = super().new_groups()
        return self._groups

    def bonus_bound(self) -> int:
        if self._bonus_bound is None:
            self.meld_bounds()
            self._bonus_bound = self._side_total + self.new_bound()
        return self._bonus_bound

    def may_qualify(self) -> bool:
        # A canasta on the table that going out may count on is bounded at its own bonus
        # at least, which is at least the bonus needed (every rule set's bonuses rise from
        # dirty to clean to the runs of aces: tests/engine/analysis/test_bonus_bounds.py),
        # so the bounds alone answer.
        variant = self.variant
        need = canasta_bonus(CLEAN, variant) if variant.out_needs_clean else canasta_bonus(DIRTY, variant)
        anyone = variant.lay_off_anyone
        for meld, bound in self.meld_bounds():
            if bound >= need and (not anyone or meld.owner == self.seat):
                return True
        return self.new_bound(single=True) >= need


class Walk(CountedTable):
    """The state of a search: the hand, the melds, the line so far; plays done and undone."""

    def __init__(self, start: Start | None, context: SearchContext, *, fork_of: Walk | None = None) -> None:
        """The walk at ``start``'s table, or (``fork_of``, with no start: its own, held
        weakly, may be gone where the fork never reads it) a fork of that walk."""
        if fork_of is not None:
            self._copy(fork_of)
            return
        if start is None:
            raise ValueError("a walk begins at a start, or forks a walk")
        base = start.base
        self._start = weakref.ref(start)  # weak: the start keeps its walk (see at())
        self.context = context
        self.proposals = context.proposals
        self.variant = base.variant
        self.seat = start.seat
        self.side = base.side_of[start.seat]
        self.hand = list(start.hand)
        self.size = sum(self.hand)
        melds, bonuses = context.table_of(base)
        self.melds = list(melds)
        self.existing = len(melds)
        self.line: list[Action] = []
        self.obligation = start.obligation
        self.met = start.obligation is None
        self.bonus = bonuses[self.side]
        # The canasta bonus each other side's melds gained from the line's lay-offs on them
        # (brasil lays off on anyone's melds): a way out's margin bound reads it.
        self.gained: tuple[int, ...] = (0,) * len(base.sides)
        self.nodes = 0
        self.seen: set[tuple[object, ...]] = set()
        suits, ranks, self._wilds = start.counts()
        self._suits, self._ranks = list(suits), list(ranks)
        # The side's melds that could hold a canasta, by slot (0-3: the runs of a suit, 4 +
        # rank: the sets of a rank), by place in melds: a lay-off keeps a meld's place and
        # slot, a new meld joins its slot (see bonus_bound).
        self._slots: dict[int, list[int]] = {}
        self._sets_grow = sets_hold_canastas(self.variant)
        for place, meld in enumerate(self.melds):
            if meld.side == self.side and (self._sets_grow or meld.shape.is_run):
                self._slots.setdefault(_slot(meld.shape), []).append(place)
        self._root_bound: int | None = None
        self._root_cap: int | None = None
        self._obligation_plays: tuple[tuple[str, int, LayOff | NewMeld], ...] | None = None
        self._usable: bool | None = None  # may_meet_obligation
        self._wild_parts: tuple[int, ...] | None | Literal[False] = False  # _obligation_wild_parts, False: not asked

    # --- what the table the search starts at allows, worked out once per start: a turn's
    # canasta and going-out searches, and the bounds tried on a take, all begin there.
    # Kept on the walk Walk.at made for the start (forks read it there).

    def _root(self) -> Walk:
        return Walk.at(self.start, self.context)

    def root_bonus_bound(self) -> int:
        """:meth:`bonus_bound` at the table the search starts at (:meth:`Start.bonus_bound`)."""
        return self.start.bonus_bound(self.context)

    def root_bound(self) -> int:
        """``min(bonus_bound(), split_bound())`` at the table the search starts at. It only
        grows with the cards in hand (a deeper take's is at least a shallower one's)."""
        root = self._root()
        if root._root_bound is None:
            root._root_bound = min(root.root_bonus_bound(), root.split_bound())
        return root._root_bound

    def root_cap(self) -> int:
        """:meth:`root_bound`, less where the pile's card takes a wild from the hand (see
        :meth:`_obligation_wild_parts`): a bound on the lines of this start's search alone.
        Not monotone in the depth of a take (another depth asks for another card), so no
        caller stops trying takes on it."""
        root = self._root()
        if root._root_cap is None:
            parts = root._obligation_wild_parts()
            bound = root.root_bound()
            root._root_cap = bound if parts is None else min(bound, root._split_bound_spending_a_wild(parts))
        return root._root_cap

    def _obligation_wild_parts(self) -> tuple[int, ...] | None:
        """Where the pile's card goes if no meld or lay-off could hold it without a wild
        from the hand (:func:`card_may_be_held` without one): every line then lays it with a
        wild, in a meld of its suit's runs or of the sets (the parts of :meth:`split_parts`,
        which the wild is counted in). None where it might go without one (or is a wild, or a 2).
        Asked of the table the search starts at, once."""
        root = self._root()
        if root._wild_parts is False:
            root._wild_parts = None
            obligation = root.obligation
            card = -1 if obligation is None else obligation.card
            if card >= 0 and RANK_OF[card] != 2 and not root._obligation_card_may_be_held(wild_held=False):
                root._wild_parts = (SUIT_OF[card], SETS_PART) if root.variant.sets else (SUIT_OF[card],)
        return root._wild_parts

    def _split_bound_spending_a_wild(self, parts: tuple[int, ...]) -> int:
        """:meth:`split_bound` where one wild of the hand goes to one of ``parts``: that part
        may gain what wilds bring it, the others share the wilds left. (With no wild held no
        line meets the obligation: the parts at their bounds without wilds bound nothing.)"""
        total, increases, _ = self.split_parts()
        wilds = self._wilds
        if not wilds:
            return total
        most = 0
        for part in parts:
            others = sorted((gain for other, gain in increases.items() if other != part), reverse=True)
            most = max(most, increases.get(part, 0) + sum(others[:wilds - 1]))
        return total + most

    def root_obligation_plays(self) -> tuple[tuple[str, int, LayOff | NewMeld], ...]:
        """The plays meeting the pile's obligation from the table the search starts at
        (:func:`obligation_plays`; none without an obligation)."""
        root = self._root()
        if root._obligation_plays is None:
            root._obligation_plays = tuple(obligation_plays(root)) if root.obligation is not None else ()
        return root._obligation_plays

    def may_meet_obligation(self) -> bool:
        """Can any line from the start meet the pile's obligation? Only if a play meets it
        from the start's table: a line meets it by a play holding the taken card onto a
        meld on the table before the take (``use-top``; in ``dig`` any meld), or by a new
        meld holding it; merged with the line's earlier plays onto that meld, such a play
        is one play from the start's hand, which holds every card a line lays (the canasta
        search's completeness rests on the same merging, see :class:`_CanastaSearch`).
        Not monotone in the depth of a take (another depth reaches another card), so no
        caller stops trying takes on it. (The first such play found answers.)"""
        if self.start.obligation is None:
            return True
        root = self._root()
        if root._usable is None:
            plays = root._obligation_plays
            if plays is not None:
                root._usable = bool(plays)
            else:
                # The count test first: a take whose card no play could hold is refused
                # without generating the plays (870 of the 2,158 takes brasil's middle hands ask).
                root._usable = root._obligation_card_may_be_held() and next(obligation_plays(root), None) is not None
        return root._usable

    def _obligation_card_may_be_held(self, wild_held: bool | None = None) -> bool:
        """:func:`card_may_be_held` for the card the pile's obligation asks to meld (asked
        of a start's own walk, whose melds are its table's); ``wild_held``: whether a wild
        of the hand may help (default: whether the hand holds one). A wild card: True."""
        assert self.obligation is not None
        card = self.obligation.card
        if IS_WILD_KIND[card]:
            return True
        held = self._wilds > 0 if wild_held is None else wild_held
        runs, sets = self.context.extendable(self.context.melds_of(self.start.base), self.side)
        return card_may_be_held(card, self.hand, held, runs[SUIT_OF[card]], sets.get(RANK_OF[card], ()), self.variant)

    @classmethod
    def at(cls, start: Start, context: SearchContext) -> Walk:
        """The walk at the table ``start`` begins from, made once per start and never
        played on: the quick bounds read it, and each search plays on a :meth:`fork`."""
        found: Walk | None = start.__dict__.get("_walk")
        if found is None or found.context is not context:
            found = cls(start, context)
            object.__setattr__(start, "_walk", found)
        return found

    @property
    def start(self) -> Start:
        """Where the walk began (held weakly: the start holds its walk, and a cycle
        between the two would be left to the collector, which the analysis pauses)."""
        start = self._start()
        assert start is not None, "a walk outlived its start"
        return start

    def fork(self) -> Walk:
        """A walk from this table on, with its own transposition table (for a bound)."""
        return Walk(None, self.context, fork_of=self)

    def _copy(self, source: Walk) -> None:
        """Make this walk a fork of ``source`` (:meth:`fork`): its hand, melds and counts
        copied, what the root worked out shared, a line and a transposition table of its
        own. Field by field: a compiled class keeps no ``__dict__`` to copy."""
        self._start, self.context, self.proposals, self.variant = source._start, source.context, source.proposals, source.variant
        self.seat, self.side, self.size, self.existing = source.seat, source.side, source.size, source.existing
        self.obligation, self.met, self.bonus, self.gained = source.obligation, source.met, source.bonus, source.gained
        self._wilds, self._sets_grow, self._qualified_by = source._wilds, source._sets_grow, source._qualified_by
        self._root_bound, self._root_cap, self._obligation_plays = source._root_bound, source._root_cap, source._obligation_plays
        self._usable, self._wild_parts = source._usable, source._wild_parts
        self.hand = list(source.hand)
        self.melds = list(source.melds)
        self._slots = {slot: list(places) for slot, places in source._slots.items()}
        self.line = []
        self.nodes = 0
        self.seen = set()
        self._suits, self._ranks = list(source._suits), list(source._ranks)

    def _spend(self, cards: Sequence[int], sign: int) -> None:
        """Take ``cards`` from the hand (sign -1) or give them back (+1), counts kept."""
        # The hand and _count_in's counts in one loop, inlined: every play and undo of every
        # search comes here (a call and a second loop cost 0.5% of brasil's exit searches).
        # Compiled, ``item = item + sign`` adds machine integers where ``item += sign`` adds
        # objects, and a card's suit and rank worked out (see _counts_of) spare two look-ups
        # of the card tables in the module's dictionary: a third of the loop's cost.
        hand, suits, ranks = self.hand, self._suits, self._ranks
        wilds = 0
        for card in cards:
            hand[card] = hand[card] + sign
            if card == JOKER_CODE:
                wilds += sign
                continue
            suit = card & 3
            rank = (card >> 2) + 1
            suits[suit] = suits[suit] + sign
            ranks[rank] = ranks[rank] + sign
            if rank == 2:
                wilds += sign
        self._wilds += wilds
        self.size += sign * len(cards)

    # --- small queries

    def may_extend(self, meld: MeldState) -> bool:
        return self.variant.lay_off_anyone or meld.side == self.side

    def counts_for_going_out(self, meld: MeldState, kind: str | None) -> bool:
        """Is ``meld``, a canasta of ``kind`` (None: none), one the player may go out on
        (their side's; in brasil their own; clean where the rule set asks)? As
        :meth:`~buraco.state.HandState.may_go_out` reads a table meld."""
        variant = self.variant
        if meld.side != self.side or (variant.lay_off_anyone and meld.owner != self.seat):
            return False
        return opens_going_out(kind, variant)

    def may_empty_hand(self, direct: bool) -> bool:
        """May the hand be emptied at this table: ``direct``ly, by the play laying its last
        card, else by discarding it? Only by going out (by a play only where the rule set
        goes out by melding) or by picking up a dead pile, as the engine rules
        (:meth:`~buraco.state.HandState.may_go_out`): the lines of a turn take no dead
        pile, so the start's table tells which the side may still take."""
        base, variant = self.start.base, self.variant
        if base.may_pick_dead(self.side, direct):
            return True
        if (direct and not variant.out_by_meld) or base.dead_bars_going_out(self.side):
            return False
        return any(self.counts_for_going_out(m, canasta_kind(m.shape, variant, m.founding)) for m in self.melds)

    def key(self, *extra: object) -> tuple[object, ...]:
        """The table as a transposition key: the melds laid this turn sorted, so that the
        same melds laid in another order are one table."""
        melds, existing = self.melds, self.existing
        # The table's melds as they stand: at each place of one walk only the shape and
        # founding change (number, side and owner are the place's), so they key it as is.
        laid = sorted((m.shape, m.founding) for m in melds[existing:]) if len(melds) > existing else ()
        return (tuple(self.hand), tuple(melds[:existing]), tuple(laid), self.met, *extra)

    def tick(self) -> None:
        self.nodes += 1
        if self.nodes % BUDGET_EVERY == 0 and self.context.budget.spent():
            raise SearchCut

    def finish(self) -> None:
        context = self.context
        context.nodes += self.nodes
        context.largest = max(context.largest, self.nodes)

    # --- plays on the light table

    def lay_off(self, index: int, play: LayOff) -> tuple[int, MeldState, bool, int, tuple[int, ...]]:
        """Lay ``play`` off on melds[index]; returns what :meth:`undo` needs."""
        meld = self.melds[index]
        self._spend(play.laid, -1)
        founding = meld.founding
        if meld.shape.is_run and founding:
            founding = moved_founding(founding, play.wild_from, play.wild_to)
        after = MeldState(meld.number, play.shape, meld.side, meld.owner, founding)
        was_met, was_bonus, was_gained = self.met, self.bonus, self.gained
        if meld.side == self.side:
            self.bonus += self.meld_bonus(after) - self.meld_bonus(meld)
        else:
            change = self.meld_bonus(after) - self.meld_bonus(meld)
            if change:
                gained = list(was_gained)
                gained[meld.side] += change
                self.gained = tuple(gained)
        if not self.met and self.obligation is not None:
            target = TableMeld(meld.number, meld.shape, meld.side, meld.owner, meld.founding)
            self.met = self.start.base.add_meets_obligation(self.obligation, target, play.shape, play.laid)
        self.melds[index] = after
        self.line.append(_play_action(self.seat, meld.number, play.tokens))
        return index, meld, was_met, was_bonus, was_gained

    def undo_lay_off(self, play: LayOff, undo: tuple[int, MeldState, bool, int, tuple[int, ...]]) -> None:
        index, meld, self.met, self.bonus, self.gained = undo
        self.melds[index] = meld
        self._spend(play.laid, 1)
        self.line.pop()

    def meld(self, play: NewMeld) -> tuple[bool, int]:
        self._spend(play.laid, -1)
        was = (self.met, self.bonus)
        meld = MeldState(len(self.melds) + 1, play.shape, self.side, self.seat, founding_of(play.shape))
        self.bonus += self.meld_bonus(meld)
        if not self.met and self.obligation is not None:
            self.met = self.start.base.meld_meets_obligation(self.obligation, play.laid)
        self.melds.append(meld)
        if play.shape.is_run or self._sets_grow:
            self._slots.setdefault(_slot(play.shape), []).append(len(self.melds) - 1)
        self.line.append(_play_action(self.seat, 0, play.tokens))
        return was

    def undo_meld(self, play: NewMeld, undo: tuple[bool, int]) -> None:
        self.met, self.bonus = undo
        self.melds.pop()
        if play.shape.is_run or self._sets_grow:  # as meld() joined it to its slot, last
            slot = _slot(play.shape)
            places = self._slots[slot]
            places.pop()
            if not places:
                del self._slots[slot]
        self._spend(play.laid, 1)
        self.line.pop()

    def meets_obligation_by_lay_off(self, meld: MeldState, play: LayOff) -> bool:
        assert self.obligation is not None
        target = TableMeld(meld.number, meld.shape, meld.side, meld.owner, meld.founding)
        return self.start.base.add_meets_obligation(self.obligation, target, play.shape, play.laid)

    # --- bounds from card counts

    def bonus_bound(self) -> int:
        """:meth:`CountedTable.bonus_bound`, the side's melds read slot by slot: each slot's
        sum of bounds is a function of its melds and of the hand's cards of its suit (or
        rank) and wilds (its projection), remembered by them, and a play changes one slot
        or two (tests/engine/analysis/test_bonus_bounds.py checks it against the sum)."""
        hand, melds = self.hand, self.melds
        remembered = self.context._slot_bounds
        total = 0
        for slot, places in self._slots.items():
            group = tuple([melds[place] for place in places])
            key = (group, run_projection(slot, hand) if slot < 4 else set_projection(slot - 4, hand))
            found = remembered.get(key)
            if found is None:
                if len(remembered) >= SLOT_BOUNDS_REMEMBERED:
                    remembered.clear()
                found = remembered[key] = self._side_bounds(map(side_meld, group))
            total += found
        return total + self.new_bound()

    def counts(self) -> tuple[list[int], list[int], int]:
        """The hand's cards of each suit (its 2 included: a natural 2 is of the suit), of
        each rank, and its wilds: what the quick bounds below read (kept as plays go)."""
        return list(self._suits), list(self._ranks), self._wilds

    def suit_bound(self, suit: int) -> int:
        """:meth:`bonus_bound` for plays on runs of ``suit`` only (the other melds as they are)."""
        suits, ranks, wilds = self.counts()
        total = 0
        for meld in self.melds:
            if meld.side == self.side:
                if meld.shape.is_run and meld.shape.suit == suit and self.could_grow_to_canasta(meld, suits, ranks, wilds):
                    total += self.kind_bound(meld)
                else:
                    total += self.meld_bonus(meld)
        if self.size >= 7 and suits[suit] >= 6:
            key: tuple[object, ...] = ("run", suit, run_projection(suit, self.hand))
            found = self.context._new_bounds.get(key)
            if found is None:
                found = self.context._new_bounds[key] = new_run_groups(self.variant, self.hand, suit)
            bonuses = sorted((b for b, n in found for _ in range(n)), reverse=True)
            total += sum(bonuses[: self.size // 7])
        return total

    def split_bound(self) -> int:
        """A bound on the canasta bonus the side could hold once any line from here is
        played, suit by suit: for each suit, the most the runs of that suit could gain by
        plays on them alone (found by the canasta search kept to that suit), plus the sets
        at their bounds from card counts. Runs of one suit and sets share no card but the
        wilds; so each part is weighed twice, with every wild in hand at its disposal and
        with none, and the sum takes each part without wilds plus the increase wilds bring
        to at most as many parts as there are wilds (a wild goes to one meld, and a part
        that gains from wilds uses one at least). Unlike :meth:`bonus_bound` it knows that
        one card cannot go to two runs, nor one wild to two parts. Remembered per suit by
        the suit's runs and the hand's cards of that suit and wilds: a play on another suit
        leaves it as it is."""
        total, increases, _ = self.split_parts()
        return total + sum(sorted(increases.values(), reverse=True)[:self._wilds])

    def split_parts(self, one_wild: bool = False) -> tuple[int, dict[int, int], dict[int, int]]:
        """What :meth:`split_bound` adds up: the side's bonus with each part at its bound
        without wilds, and the increase wilds in hand bring to each part that could gain
        (by part: a suit's runs 0 to 3, the sets :data:`SETS_PART`; none where no wild is
        held, the parts then at their bounds). With ``one_wild``, also the most one wild
        of the hand (any kind held) adds to each part: for a suit's runs it may be less
        than the increase, where their best asks for the suit's 2 as a natural and another
        wild besides (the sets' part: its increase)."""
        suits, ranks, wilds = self._suits, self._ranks, self._wilds  # read, not changed
        total = self.bonus
        increases: dict[int, int] = {}
        single: dict[int, int] = {}
        bare: list[int] | None = None
        if wilds:
            bare = list(self.hand)
            for w in WILD_CODES:
                bare[w] = 0
        melds, slots = self.melds, self._slots  # the side's runs of a suit, in table order, by slot
        for suit in range(4):
            places = slots.get(suit, ())
            runs = tuple([(i, melds[i].shape, melds[i].founding) for i in places])
            if suits[suit] < 6 and not any(self.could_grow_to_canasta(melds[i], suits, ranks, wilds) for i in places):
                continue
            gain = self._suit_gain(suit, runs, self.hand)
            if bare is None:
                total += gain
                continue
            without = self._suit_gain(suit, runs, bare)
            total += without
            increases[suit] = gain - without
            if one_wild and gain > without:
                most = 0
                for w in WILD_CODES:
                    if self.hand[w]:
                        bare[w] = 1
                        most = max(most, self._suit_gain(suit, runs, bare) - without)
                        bare[w] = 0
                single[suit] = most
        # The sets, one more part: the side's sets at their bounds and new set canastas,
        # with every wild in hand and (where any is held) with none, like each suit.
        variant = self.variant
        with_wilds = without = 0
        # The side's sets are slotted only where a set may hold seven cards (no other grows).
        for slot, places in slots.items():
            if slot < 4:
                continue
            for place in places:
                meld = melds[place]
                if self.could_grow_to_canasta(meld, suits, ranks, wilds):
                    was = self.meld_bonus(meld)
                    with_wilds += self.kind_bound(meld) - was
                    if bare is not None:
                        without += max(was, meld_bonus_bound(variant, meld, bare)) - was
        if self._sets_grow and self.size >= 7:
            sets = [
                canasta_bonus(CLEAN if ranks[r] >= 7 else DIRTY, variant)
                for r in (1, *range(3, 14)) if ranks[r] + min(1, wilds) >= 7
            ]
            with_wilds += sum(sorted(sets, reverse=True)[: self.size // 7])
            if bare is not None:
                clean = sum(1 for r in (1, *range(3, 14)) if ranks[r] >= 7)
                without += canasta_bonus(CLEAN, variant) * min(clean, self.size // 7)
        if bare is None:
            return total + with_wilds, increases, single
        # Not the whole part as an increase: a part that needs no wild must not compete
        # with the others for the wilds (a K set made clean by three Ks beside a run made
        # clean by its suit's 2, with one wild in hand, was bounded at one of the two).
        total += without
        increases[SETS_PART] = single[SETS_PART] = with_wilds - without
        return total, increases, single

    def _suit_gain(self, suit: int, runs: tuple[tuple[int, Shape, int], ...], hand: list[int]) -> int:
        """The most the side's runs of ``suit`` (and new runs of it) could gain from ``hand``
        by plays on them alone: the canasta search kept to that suit, remembered."""
        projection = run_projection(suit, hand)
        size = sum(hand)
        # Whether a card of no concern to these runs stays in hand: a line may not use the last.
        key = (suit, runs, projection, size > sum(projection), self.variant.out_by_meld)
        gain = self.context._suit_gains.get(key)
        if gain is None:
            fork = self.fork()
            fork.hand = list(hand)
            fork.size = size
            fork._suits, fork._ranks, fork._wilds = _counts_of(tuple(hand))
            fork.met = True
            search = _CanastaSearch(fork, None, -1)
            search.relaxed = True
            search.suit = suit
            search.visit()
            self.nodes += fork.nodes
            gain = self.context._suit_gains[key] = search.most - fork.bonus
        return gain


# --- bounds: what the cards in hand could make of a meld ----------------------------------


RUN_PLACE_COUNTS: Final = tuple(itemgetter(*(card_of(p, suit) for p in range(1, 15))) for suit in range(4))  # a hand's counts by run position 1..14


def run_place_counts(suit: int, hand: Sequence[int]) -> tuple[int, ...]:
    """``RUN_PLACE_COUNTS[suit](hand)``: the hand's cards of ``suit`` by run place 1..14
    (the ace at both ends), a list written out as :func:`~.proposals.run_projection` reads
    one (code ``(place - 1) * 4 + suit``).

    >>> hand = [seed % 3 for seed in range(53)]
    >>> all(run_place_counts(suit, held) == RUN_PLACE_COUNTS[suit](hand) for suit in range(4) for held in (hand, tuple(hand)))
    True
    """
    if isinstance(hand, list):
        return (
            hand[suit], hand[suit + 4], hand[suit + 8], hand[suit + 12], hand[suit + 16], hand[suit + 20], hand[suit + 24],
            hand[suit + 28], hand[suit + 32], hand[suit + 36], hand[suit + 40], hand[suit + 44], hand[suit + 48], hand[suit],
        )
    by_place: tuple[int, ...] = RUN_PLACE_COUNTS[suit](hand)
    return by_place


_WILDS_HELD: Final = itemgetter(*WILD_CODES)


def _other_wild_held(hand: Sequence[int], suit: int) -> bool:
    """Does ``hand`` hold a wild other than ``suit``'s 2 (which a run of that suit may hold
    as its natural 2)?"""
    two = code_of(2, suit)
    return any(hand[w] for w in WILD_CODES if w != two)


def card_may_be_held(
    card: int, hand: Sequence[int], wild_held: bool, runs: Sequence[Shape], sets: Sequence[Shape], variant: Variant,
) -> bool:
    """Could any new meld from ``hand``, or lay-off from it onto the melds ``runs`` (the runs
    of ``card``'s suit the player may extend) and ``sets`` (the sets of its rank), hold a
    natural ``card`` (not a 2), by the hand's counts alone? False proves none can; True only
    that one might. ``wild_held``: the hand holds a wild.

    A new run needs two more places of three consecutive around the card, filled by the
    hand's cards of its suit or, one of them, a wild; a new set, two more cards of its rank
    (of other suits where a set's suits differ; a wild one of them); a lay-off on a run,
    the places between the run and the card so filled (the run's own wild may be the one),
    or inside the run the place its wild holds, where wilds move; a set of its rank, unless
    it holds its most cards or, where suits differ, this card. Every meld holds at most one
    wild, and a meld's cards stay in it.

    >>> from buraco.cards import parse_cards
    >>> from buraco.melds import resolve_meld
    >>> from buraco.rules import VARIANTS
    >>> hand = [0] * 53
    >>> for code in parse_cards("9h Jh Ks"):
    ...     hand[code] += 1
    >>> nine = parse_cards("9h")[0]
    >>> card_may_be_held(nine, hand, False, [], [], VARIANTS["brasil"])  # no two of 7h..Jh beside it
    False
    >>> run = [resolve_meld([CardToken(c) for c in parse_cards("6h 7h 8h")], VARIANTS["brasil"])]
    >>> card_may_be_held(nine, hand, False, run, [], VARIANTS["brasil"])  # 6h 7h 8h takes it
    True
    """
    rank = RANK_OF[card]
    counts = run_place_counts(SUIT_OF[card], hand)  # the hand's cards of the suit at run places 1..14 (index place - 1)
    places = (1, 14) if rank == 1 else (rank,)
    for place in places:
        # The three windows of three places holding it: two of the other places held, or
        # one and a wild.
        below = counts[place - 2] if place >= 2 else 0
        below2 = counts[place - 3] if place >= 3 else 0
        above = counts[place] if place <= 13 else 0
        above2 = counts[place + 1] if place <= 12 else 0
        if wild_held:
            if below or above or below2 or above2:
                return True
        elif (below and (below2 or above)) or (above and above2):
            return True
    wild = 1 if wild_held else 0
    distinct = variant.set_suits_distinct
    if variant.sets:
        held = wild  # the cards of its rank a new set could hold with it, one wild at most
        for code in range((rank - 1) * 4, rank * 4):  # a loop, not a sum over a generator: compiled, a third of the cost
            count = hand[code]
            if count:
                held += 1 if distinct else count
        if held >= 3:
            return True
    set_max = variant.set_max
    for shape in sets:
        if (set_max is None or len(shape.cards) < set_max) and not (distinct and card in shape.cards):
            return True  # a set at its most cards, or holding this very card where suits differ, takes none
    anywhere, fixed = variant.wild_move == "anywhere", variant.wild_move == "fixed"
    for shape in runs:
        low, high = shape.low, shape.low + len(shape.cards) - 1
        # One gap between the run and the card filled by a wild: the hand's, or the run's
        # own where wilds move (a meld holds one); where they stay, only the hand's, and only
        # on a run holding none.
        allowed = (1 if wild and shape.wild_index < 0 else 0) if fixed else (1 if (wild or shape.wild_index >= 0) else 0)
        wild_at = low + shape.wild_index if shape.wild_index >= 0 else 0
        for place in places:
            if low <= place <= high:
                # Inside the run a natural holds every place but its wild's, which the card
                # may take where wilds move (anywhere, one at an end may go further).
                if (place == wild_at and not fixed) or (anywhere and shape.wild_index in (0, len(shape.cards) - 1)):
                    return True
                continue
            between = counts[high:place - 1] if place > high else counts[place:low - 1]
            if between.count(0) <= allowed:
                return True
    return False


def _window_lengths(fill: bytes | bytearray, low: int, high: int, gaps: int) -> int:
    """The longest window of run positions 1..14 containing ``low``..``high`` (both 0:
    any window) in which at most ``gaps`` (0 or 1) positions are not ``fill``-ed. ``fill``:
    a byte per position 0..14, not 0 where filled (position 0 never is: it ends every
    search downwards). Read by the bytes' own searches for the unfilled positions, at C
    speed: the reach bound asks it on every turn that brings a meld new cards of its suit.

    >>> fill = bytes([0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 0, 0, 0, 0, 0])  # A 2 . 4 5 6 7 . 9
    >>> _window_lengths(fill, 0, 0, 0), _window_lengths(fill, 0, 0, 1), _window_lengths(fill, 4, 5, 1)
    (4, 7, 7)
    """
    if not low:
        parts = fill[1:].split(b"\x00")
        if not gaps or len(parts) == 1:
            return max(map(len, parts))
        return max(len(lower) + 1 + len(upper) for lower, upper in zip(parts, parts[1:]))
    lacking = fill.count(0, low, high + 1)
    if lacking > gaps:
        return 0
    below = fill.rfind(0, 0, low)  # never -1: position 0
    above = fill.find(0, high + 1)  # -1: filled up to 14
    first = below + 1
    last = 14 if above < 0 else above - 1
    if lacking == gaps:
        return last - first + 1
    # One gap to spare: spent going down, or going up.
    down = first if not below else fill.rfind(0, 0, below) + 1
    up = last
    if above >= 0:
        beyond = fill.find(0, above + 1)
        up = 14 if beyond < 0 else beyond - 1
    return max(last - down + 1, up - first + 1)


def _covers(fill: bytes | bytearray, first: int, last: int) -> bool:
    return fill.find(0, first, last + 1) < 0


_FILLED: Final = b"\x01" * 15


def meld_bonus_bound(variant: Variant, meld: MeldState, hand: Sequence[int]) -> int:
    """A bound on the canasta bonus ``meld`` could hold after lay-offs of cards from ``hand``
    (each card at most once), in any number of plays.

    A set: its cards plus the hand's cards of its rank plus one wild if it has none; its
    wild never leaves. A run: its natural cards never move, so its final cards fill a
    window of positions around them, each position a natural (the run's or one in hand)
    or the one wild a meld may hold (its own, or one from the hand if it has none); a
    fixed wild keeps its place, and so does any wild whose natural card is not in hand,
    bar where wilds move ``anywhere``; a 2 of the run's suit may become its natural 2 where
    wilds move, and then a wild from the hand may join (a window of such a run holding
    place 2; a clean one must: the 2 never leaves the meld, and anywhere else it is its
    wild). Clean needs no wild in the final window, A..K the window 1..13 (laid in
    one meld action where the rule set asks: a lay-off never adds such marks), A..A
    1..14. Each kind is granted when the window allows it, whatever else it would need.
    """
    shape = meld.shape
    wild_in_hand = any(_WILDS_HELD(hand))
    if not shape.is_run:
        naturals = sum(1 for c in shape.cards if not IS_WILD_KIND[c])
        has_wild = shape.wild_index >= 0
        rank_codes = [(shape.rank - 1) * 4 + s for s in range(4)]
        extra = sum(min(1, hand[c]) if variant.set_suits_distinct else hand[c] for c in rank_codes)
        longest = naturals + extra + (1 if has_wild or wild_in_hand else 0)
        if variant.set_max is not None:
            longest = min(longest, variant.set_max)
        if longest < 7:
            return 0
        if not has_wild and naturals + extra >= 7:
            return canasta_bonus(CLEAN, variant)
        return canasta_bonus(DIRTY, variant)
    suit, low = shape.suit, shape.low
    wild_at = low + shape.wild_index if shape.wild_index >= 0 else 0
    wild = shape.cards[shape.wild_index] if wild_at else None
    # A wild leaves its place only for its natural card (but where it may move anywhere):
    # without that card in hand it stays where it is, as if fixed.
    fixed = variant.wild_move == "fixed" or (
        wild is not None and variant.wild_move != "anywhere" and not hand[code_of(wild_at, suit)]
    )
    high = low + len(shape.cards) - 1
    fill = bytearray((0, *run_place_counts(suit, hand)))  # a byte a position: see _window_lengths
    held_at_wild = fill[wild_at]
    fill[low:high + 1] = _FILLED[:high - low + 1]
    if wild_at:
        fill[wild_at] = held_at_wild
    must_low = low + 1 if wild_at == low else low
    must_high = high - 1 if wild_at == high else high
    natural_2 = low <= 2 <= high and wild_at != 2  # the run holds its natural 2
    if wild is not None and fixed:
        fill[wild_at] = 1
        must_low, must_high = min(must_low, wild_at), max(must_high, wild_at)
        gaps = 0
    else:
        gaps = 1 if (wild is not None or wild_in_hand) else 0
    longest = min(14, _window_lengths(fill, must_low, must_high, gaps))
    two = code_of(2, suit)
    if (
        longest >= 7 and wild is None and not natural_2 and hand[two] == 1 and not _other_wild_held(hand, suit)
    ):
        # The hand's one wild is this suit's 2, which fills place 2 or a gap, not both.
        as_wild = bytearray(fill)
        as_wild[2] = 0
        longest = min(14, max(_window_lengths(fill, must_low, must_high, 0), _window_lengths(as_wild, must_low, must_high, 1)))
    clean_fill = fill
    clean_low = must_low
    can_be_clean = wild is None
    if wild is not None and not fixed and wild == code_of(2, suit) and not natural_2:
        # The 2 may become its natural 2, and then stands at place 2 (it never leaves the
        # meld: anywhere else it is the wild), leaving the meld's one wild to the hand.
        clean_fill = bytearray(fill)
        clean_fill[2] = 1
        clean_low = min(must_low, 2)
        can_be_clean = True
        if wild_in_hand and longest < 7:
            longest = min(14, _window_lengths(clean_fill, clean_low, must_high, 1))
    if longest < 7:
        return 0  # no clean window either: it would be a window of one gap less
    best = canasta_bonus(DIRTY, variant)
    if can_be_clean and min(14, _window_lengths(clean_fill, clean_low, must_high, 0)) >= 7:
        best = max(best, canasta_bonus(CLEAN, variant))
        one_action = variant.special_runs_in_one_action
        if (
            variant.bonus_ace_to_king and must_low >= 1 and must_high <= 13 and _covers(clean_fill, 1, 13)
            and (not one_action or meld.founding & ALL_13 == ALL_13)
        ):
            best = max(best, variant.bonus_ace_to_king)
        if variant.bonus_ace_to_ace and _covers(clean_fill, 1, 14) and (not one_action or meld.founding & ALL_14 == ALL_14):
            best = max(best, variant.bonus_ace_to_ace)
    return best


def new_run_groups(variant: Variant, hand: Sequence[int], suit: int) -> tuple[tuple[int, int], ...]:
    """A bound on what new runs of ``suit`` laid from ``hand`` could hold: (a bonus, how many
    canastas could have it). A canasta of seven cards holds at most one wild, so at least
    six of the suit's cards: no more than a sixth of them make canastas; and its cards
    fill a window of positions (see :func:`meld_bonus_bound`)."""
    by_place = run_place_counts(suit, hand)
    count = sum(by_place[:13]) // 6  # places 1..13: place 14 is the ace again
    if not count:
        return ()
    fill = bytes((0, *by_place))
    if _window_lengths(fill, 0, 0, 1 if _other_wild_held(hand, suit) or hand[code_of(2, suit)] else 0) < 7:
        return ()
    bonus = canasta_bonus(DIRTY, variant)
    if _window_lengths(fill, 0, 0, 0) >= 7:
        bonus = canasta_bonus(CLEAN, variant)
        if variant.bonus_ace_to_king and _covers(fill, 1, 13):
            bonus = max(bonus, variant.bonus_ace_to_king)
        if variant.bonus_ace_to_ace and _covers(fill, 1, 14) and hand[code_of(1, suit)] >= 2:
            bonus = max(bonus, variant.bonus_ace_to_ace)
    return ((bonus, count),)


# --- the best canasta line -----------------------------------------------------------------


def best_canasta_line(
    start: Start | HandState,
    prefer_discard: int | None = None,
    to_beat: int = -1,
    context: SearchContext | None = None,
) -> Line | None:
    """From the play step, the line ending the turn with the most canasta bonus for the
    player's side (a legal discard, or going out by melding the last card), if it holds
    more than ``to_beat``; None when none does or no line ends the turn without cards
    the player could not know (a dead pile). Of equal lines the shortest is kept.
    """
    if isinstance(start, HandState):
        start = Start.after(start)
    return canasta_lines_above(start, prefer_discard, to_beat, to_beat, context).line


class CanastaAnswer(NamedTuple):
    """What :func:`canasta_lines_above` found."""

    line: Line | None  # the best line holding more than the floor (the shortest of equals)
    opener: Line | None  # the first line found holding more than ``to_beat``

    @property
    def open(self) -> bool:
        """Does some line hold more than ``to_beat``?"""
        return self.opener is not None


NOTHING_ABOVE: Final = CanastaAnswer(None, None)


def canasta_lines_above(
    start: Start, prefer_discard: int | None, to_beat: int, floor: int, context: SearchContext | None = None,
    whole: int | None = None,
) -> CanastaAnswer:
    """:func:`best_canasta_line` for a caller that needs the best line only where it holds
    more than ``floor`` (at least ``to_beat``), and otherwise only whether any line holds
    more than ``to_beat``: once a line proves that, the search leaves every branch whose
    bound is not above ``floor``. (A run of turns with one chance open needs each later
    turn's line only where it is worth more than the run's best so far.) ``whole``: what
    a whole search from this table would be asked to beat (at most ``to_beat``); where the
    context remembers that search, its answer gives this one.

    >>> from buraco.replay import deal_hand
    >>> from buraco.selfplay import play_match
    >>> record = play_match("cerrado", players=2, hands=1, seed=3)
    >>> context, state = SearchContext(record.rules), deal_hand(record, 0)
    >>> for action in record.hands[0].parsed:  # to the first play step with a line to find
    ...     _ = state.apply(action)
    ...     if action.verb == "draw" and best_canasta_line(state, None, -1, context) is not None:
    ...         break
    >>> start = Start.after(state)
    >>> best = best_canasta_line(start, None, -1, context)
    >>> above = canasta_lines_above(start, None, -1, best.bonus, context)
    >>> above.line is None, above.open
    (True, True)
    >>> canasta_lines_above(start, None, -1, best.bonus - 1, context).line.bonus == best.bonus
    True
    """
    context = context or SearchContext(start.base.variant)
    if start.bonus_bound(context) <= to_beat:
        return NOTHING_ABOVE
    root = Walk.at(start, context)
    if not root.may_meet_obligation():
        return NOTHING_ABOVE
    memo = context.canasta_lines
    base = start.base
    key = (prefer_discard, to_beat, floor, start.seat, start.hand, start.obligation, tuple(root.melds), len(base.sides), id(base.variant))
    remembered = memo.get(key)
    if remembered is not None:
        recalled = _recall_lines(start, prefer_discard, to_beat, remembered)
        if recalled is not None:
            return recalled
    if whole is not None and (whole, whole) != (to_beat, floor):
        # A table comes back (a card taken and thrown back): its whole search answers this one.
        remembered = memo.get((prefer_discard, whole, whole, *key[3:]))
        if remembered is not None:
            recalled = _recall_lines(start, prefer_discard, whole, remembered)
            if recalled is not None:
                best = recalled.line
                return CanastaAnswer(
                    best if best is not None and best.bonus > floor else None,
                    best if best is not None and best.bonus > to_beat else None,
                )
    # The suit-by-suit bound is dear and seldom refuses a table the bound from card counts
    # let through: where no take's bound worked it out already, the search caps its lines
    # at the card-count bound once it finds one (before that a cap tightens no branch, see
    # _CanastaSearch.visit), and asks for the suit-by-suit bound only if it is still walking
    # CAP_AFTER tables later: most searches have ended by then.
    cap = root._root_cap
    if cap is None and (root._root_bound is not None or root._obligation_wild_parts() is not None):
        # Known already (a take's bounds asked for it), or where the pile's card takes a
        # wild, which the suit-by-suit bound knows and the count bound does not: asked
        # first (a 30-card brasil take: 65,168 tables -> its first line, which held the cap).
        cap = root.root_cap()
    if cap is not None and cap <= to_beat:
        return NOTHING_ABOVE
    walk = root.fork()
    search = _CanastaSearch(walk, prefer_discard, to_beat, floor)
    if cap is None:
        search.cap_unknown = True
    else:
        search.cap = cap
    try:
        search.visit()
    finally:
        walk.finish()
    if len(memo) >= CANASTA_MEMO_SIZE:
        memo.clear()
    memo[key] = _RememberedLines(tuple(search.offers), search.best_offer)
    return CanastaAnswer(search.best, search.opener)


CAP_AFTER: Final = 16  # tables a canasta search walks past its first line before it asks for the dear bound
CANASTA_MEMO_SIZE: Final = 512  # canasta searches a context remembers (then it forgets them all)


class _RememberedLines(NamedTuple):
    """A canasta search as :func:`best_canasta_line` remembers it, under its light table
    (the hand, the pile's obligation, the seat, the melds, how many sides, the rule set,
    the discard preferred, what it is asked to beat and its floor): each line it offered the engine,
    with the engine's verdict (the line as ended and its bonus, or None: refused), and
    which one it kept. The search reads of its start only the light table, through the
    context's bounds and proposals (functions of their keys), and the engine's verdicts,
    which alone move the best found: a search from a table with the same key and the same
    verdict on every line offered goes the very same way and keeps the same line."""

    offers: tuple[tuple[tuple[Action, ...], tuple[tuple[Action, ...], int] | None], ...]
    best: int  # the index in ``offers`` of the line kept, -1 for none


def _recall_lines(start: Start, prefer: int | None, to_beat: int, remembered: _RememberedLines) -> CanastaAnswer | None:
    """The answer of a search from ``start`` when it would go as ``remembered`` went; None
    when it might not (then search)."""
    found: Line | None = None
    opener: Line | None = None
    for number, (line, verdict) in enumerate(remembered.offers):
        ended = ended_line(start, line, prefer)
        if (None if ended is None else (ended.actions, ended.bonus)) != verdict:
            return None
        if opener is None and ended is not None and ended.bonus > to_beat:
            opener = ended
        if number == remembered.best:
            found = ended
    return CanastaAnswer(found, opener)


def ended_line(start: Start, line: Sequence[Action], prefer: int | None) -> Line | None:
    """``line`` replayed by the engine from ``start`` and ended by a discard (``prefer``
    where legal), with the side's canasta bonus then; None if the engine refuses it, it
    would go on with a dead pile's unknown cards, or it ends the hand otherwise than by
    the player going out."""
    state = start.replay(line)
    if state is None:
        return None
    ended = tuple(line)
    if not state.is_over:
        if state.step != PLAY_STEP:
            return None  # DEAD_DIRECT_STEP: the line would go on with the dead pile's unknown cards
        ending = ending_discard(state, prefer)
        if ending is None:
            return None
        state.apply(ending)
        ended = (*ended, ending)
    elif state.ended_by != OUT:
        return None
    return Line(ended, side_bonus(state, state.side_of[start.seat]), state)


class _CanastaSearch:
    def __init__(self, walk: Walk, prefer: int | None, to_beat: int, floor: int | None = None) -> None:
        self.walk = walk
        self.prefer = prefer
        self.to_beat = to_beat
        self.floor = to_beat if floor is None else floor  # the lines kept hold more
        self.opener: Line | None = None  # the first line found holding more than to_beat
        self.need = to_beat  # what a line must hold more than to be worth walking to: the floor once opened
        self.best: Line | None = None
        self.relaxed = False  # only the most bonus of any table reached, lines not ended
        self.suit: int | None = None  # relaxed, and plays on runs of this suit only
        self.most = walk.bonus
        self.cap = 1 << 30  # a bound on every line's bonus from the search's start
        self.cap_unknown = False  # work the cap out (the root's bounds) once a line is found
        self.cap_due: int | None = None  # the walk's table count at which to tighten it (root_bound)
        # A pile's obligation is met at the end of a line, by one of the plays meeting it from
        # the table the search starts at, onto a meld the line left alone (or a new meld): a
        # play meeting it onto a meld the line raised is, merged with that raise, itself a
        # raising play that meets it, and one meeting it with a meld later raised is a new
        # canasta meeting it. So the search branches on raising plays only.
        self._obligations: list[tuple[str, int, LayOff | NewMeld]] | None = None
        self.offers: list[tuple[tuple[Action, ...], tuple[tuple[Action, ...], int] | None]] = []  # for _RememberedLines
        self.best_offer = -1
        self.root_melds = list(walk.melds)
        self.root_hand = list(walk.hand)

    def visit(self) -> None:
        walk = self.walk
        walk.tick()
        # The bounds before the transposition key, as the exit search asks them (see
        # buraco.analysis.exits): the cap and the need only tighten, and the most found only
        # grows, so a table they leave is left again whenever it comes back, recorded or
        # not. Not the test on the best line's length below, which hangs on the line that
        # reached the table: a table it leaves stays seen, as it always was (brasil's
        # middle hands -0.5% instructions, its tail -0.7%; thirty-fifth round).
        if self.cap_due is not None and walk.nodes >= self.cap_due:
            self.cap_due = None
            self.cap = min(self.cap, walk.root_cap())
        best = self.best
        if best is not None and best.bonus >= self.cap:
            return  # a line reached the bound: nothing holds more (a shorter equal one is not sought)
        bound = min(self.cap, walk.bonus_bound() if self.suit is None else walk.suit_bound(self.suit))
        if self.relaxed:
            if walk.size or walk.variant.out_by_meld:
                # Every line ends by a discard, so with a card in hand, or by melding the last
                # card where that may go out: a table with none left counts only there.
                self.most = max(self.most, walk.bonus)
            if bound <= self.most:
                return
        elif bound <= self.need:
            return
        key = walk.key()
        seen = walk.seen
        before = len(seen)
        seen.add(key)  # one hash of the key, not two (a table's key holds every meld)
        if len(seen) == before:
            return
        if best is not None and (bound < best.bonus or (bound == best.bonus and len(walk.line) + 1 >= len(best.actions))):
            return  # no line from here holds more, nor as much in fewer actions
        if not self.relaxed:
            if walk.met:
                if walk.bonus > self.need and (best is None or walk.bonus > best.bonus or (walk.bonus == best.bonus and len(walk.line) + 1 < len(best.actions))):
                    self.end_here()
            elif walk.obligation is not None:
                self.end_meeting_obligation()
        if walk.size == 0:
            return  # the hand was emptied: the line ended (or was refused) above
        for kind, index, play in self.plays():
            if kind == "add":
                undo = walk.lay_off(index, play)  # type: ignore[arg-type]
                self.visit()
                walk.undo_lay_off(play, undo)  # type: ignore[arg-type]
            else:
                undone = walk.meld(play)  # type: ignore[arg-type]
                self.visit()
                walk.undo_meld(play, undone)  # type: ignore[arg-type]

    def end_meeting_obligation(self) -> None:
        """End the line with a play meeting the pile's obligation, where one is left: of
        the plays holding cards still in hand onto melds the line did not touch, those
        spending no card beyond another's."""
        walk = self.walk
        if self._obligations is None:
            self._obligations = list(walk.root_obligation_plays())  # from the table the search starts at
        fitting = [
            entry for entry in self._obligations
            if _holds_all(walk.hand, entry[2].laid) and (entry[1] < 0 or walk.melds[entry[1]] is self.root_melds[entry[1]])
        ]
        spends = [Counter(entry[2].laid) for entry in fitting]
        for number, (kind, index, play) in enumerate(fitting):
            mine = spends[number]
            if any(len(fitting[o][2].laid) < len(play.laid) and all(mine[c] >= n for c, n in spends[o].items()) for o in range(len(fitting))):
                continue
            if kind == "add":
                undo = walk.lay_off(index, play)  # type: ignore[arg-type]
                if walk.met and self.may_beat_best():
                    self.end_here()
                walk.undo_lay_off(play, undo)  # type: ignore[arg-type]
            else:
                undone = walk.meld(play)  # type: ignore[arg-type]
                if walk.met and self.may_beat_best():
                    self.end_here()
                walk.undo_meld(play, undone)  # type: ignore[arg-type]

    def may_beat_best(self) -> bool:
        """Could the line so far, once ended, be kept by :meth:`end_here`? (Its bonus is the
        light table's, and the ending adds a discard or nothing: so not when it holds less
        than the best, or as much in as many actions.) Asked before the engine replays it."""
        walk, best = self.walk, self.best
        if walk.bonus <= self.need:
            return False
        return best is None or walk.bonus > best.bonus or (walk.bonus == best.bonus and len(walk.line) < len(best.actions))

    def end_here(self) -> None:
        """Offer the line so far, ended by the discard: replayed by the engine, unless it
        leaves the hand empty, or one card to discard, where the hand may not be emptied
        then: the engine refuses such a line (brasil's middle hands: 281 of 615 lines
        offered, most made a dirty canasta and kept one card, where going out needs a
        clean one)."""
        walk = self.walk
        if walk.size <= 1 and not walk.may_empty_hand(direct=walk.size == 0):
            self.offers.append((tuple(walk.line), None))  # as the engine would judge it
            return
        ended = ended_line(walk.start, walk.line, self.prefer)
        self.offers.append((tuple(walk.line), None if ended is None else (ended.actions, ended.bonus)))
        if ended is None:
            return
        bonus, line = ended.bonus, ended.actions
        if bonus <= self.to_beat:
            return
        if self.opener is None:
            self.opener = ended
            self.need = self.floor
            if self.cap_unknown:
                self.cap_unknown = False
                self.cap = walk.root_bonus_bound()
                self.cap_due = walk.nodes + CAP_AFTER
        best = self.best
        if bonus > self.floor and (best is None or bonus > best.bonus or (bonus == best.bonus and len(line) < len(best.actions))):
            self.best = ended
            self.best_offer = len(self.offers) - 1

    def plays(self) -> list[tuple[str, int, LayOff | NewMeld]]:
        """Plays raising the side's canasta bonus, most raising first, and while a card
        taken from the pile waits to be melded, the plays meeting that obligation that
        spend no card beyond another's."""
        walk = self.walk
        variant = walk.variant
        found: list[tuple[int, str, int, LayOff | NewMeld]] = []
        hand = walk.hand
        proposals = walk.proposals
        # New canastas: seven cards or more of one suit (or rank), wilds included.
        suits, ranks, wilds = walk._suits, walk._ranks, walk._wilds  # kept as plays go; read, not changed
        only = self.suit
        for suit in range(4):
            if only is not None and suit != only:
                continue
            if sum(run_projection(suit, hand)) < 7 or suits[suit] + wilds < 7:
                continue
            found.extend((bonus, "meld", -1, play) for bonus, play in proposals.run_melds(suit, hand).canastas(variant))
        if only is None and sets_hold_canastas(variant):
            for rank in (1, *range(3, 14)):
                if ranks[rank] + min(1, wilds) < 7:
                    continue
                found.extend((bonus, "meld", -1, play) for bonus, play in proposals.set_melds(rank, hand).canastas(variant))
        for index, meld in enumerate(walk.melds):
            if meld.side != walk.side:
                continue  # another side's canasta is not ours
            if only is not None and not (meld.shape.is_run and meld.shape.suit == only):
                continue
            was = walk.meld_bonus(meld)
            if walk.kind_bound(meld) <= was:
                continue
            for gain, lay_off in proposals.lay_offs(meld.shape, hand).raising(meld.founding, was, variant):
                found.append((gain, "add", index, lay_off))
        found.sort(key=lambda entry: -entry[0])  # stable: the generator's order among equals
        return [(kind, index, play) for _, kind, index, play in found]


_PLAY_ACTIONS: dict[tuple[int, int, tuple[CardToken, ...]], Action] = {}


def _play_action(seat: int, number: int, tokens: tuple[CardToken, ...]) -> Action:
    """The action of a play a search makes: a lay-off on meld ``number``, or a new meld
    (``number`` 0), with its canonical text. Remembered: a search makes the same plays
    from table after table, and the text costs more than the look-up.

    >>> from buraco.cards import parse_cards
    >>> tokens = tuple(CardToken(card) for card in parse_cards("7h 8h"))
    >>> _play_action(1, 2, tokens).text, _play_action(1, 0, tokens).text
    ('p1 add m2 7h 8h', 'p1 meld 7h 8h')
    >>> _play_action(1, 2, tokens) is _play_action(1, 2, tokens)
    True
    """
    key = (seat, number, tokens)
    action = _PLAY_ACTIONS.get(key)
    if action is None:
        if len(_PLAY_ACTIONS) >= PLAY_ACTIONS_REMEMBERED:
            _PLAY_ACTIONS.clear()
        action = _PLAY_ACTIONS[key] = add_action(seat, number, tokens) if number else meld_action(seat, tokens)
    return action


PLAY_ACTIONS_REMEMBERED: Final = 50_000  # actions remembered (then all forgotten)


def _holds_all(hand: Sequence[int], cards: Sequence[int]) -> bool:
    need: dict[int, int] = {}
    for card in cards:
        need[card] = need.get(card, 0) + 1
    return all(hand[c] >= n for c, n in need.items())


def obligation_plays(walk: Walk) -> Iterator[tuple[str, int, LayOff | NewMeld]]:
    """The plays holding the card taken from the pile that meet its obligation (rules.md 4,
    ``use-top`` and ``dig``), as :func:`buraco.moves.plays_using` finds them."""
    obligation = walk.obligation
    assert obligation is not None
    card = obligation.card
    hand = walk.hand
    if not hand[card]:
        return
    use_top = bool(obligation.before)
    wild = IS_WILD_KIND[card]
    if not (use_top and card == JOKER_CODE):  # a joker on top always goes into a new meld
        for index, meld in enumerate(walk.melds):
            if not walk.may_extend(meld) or (use_top and meld.number > obligation.melds_before):
                continue
            shape = meld.shape
            if not wild and (SUIT_OF[card] != shape.suit if shape.is_run else RANK_OF[card] != shape.rank):
                continue  # a natural card goes only onto a run of its suit or a set of its rank
            for play in walk.proposals.lay_offs(meld.shape, hand).with_card.get(card, ()):
                if walk.meets_obligation_by_lay_off(meld, play):
                    yield "add", index, play
    for new in walk.proposals.melds_with(hand, card):
        if walk.start.base.meld_meets_obligation(obligation, new.laid):
            yield "meld", -1, new


def canasta_bound(start: Start, context: SearchContext, to_beat: int, *, quick: bool = False) -> bool:
    """Could a line from ``start`` end with more canasta bonus than ``to_beat``? (By the
    bounds: False proves none can; ``quick``: by the cheaper one only.) The answer only
    grows with the cards in hand: a deeper take of the pile that cannot beat it proves
    no shallower one can."""
    return start.bonus_bound(context) > to_beat and (quick or Walk.at(start, context).root_bound() > to_beat)


def may_use_take(start: Start, context: SearchContext) -> bool:
    """Could any line from ``start`` meet its take's obligation (see
    :meth:`Walk.may_meet_obligation`)? Not monotone in the depth of a take."""
    return Walk.at(start, context).may_meet_obligation()


__all__ = [
    "Budget", "Exit", "Line", "SearchContext", "SearchCut", "Start", "StartTable", "best_canasta_line", "canasta_bound", "canasta_lines_above", "CanastaAnswer",
    "card_may_be_held", "cheapest_first",
    "ended_line", "ending_discard",
    "margin_of", "may_use_take", "sets_hold_canastas", "side_bonus",
]


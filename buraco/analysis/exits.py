"""The going-out search: the best way to go out this turn, as an exact cover of the hand
by melds and lay-offs (:func:`best_exit`), and the quick tests and bounds that spare it
(:func:`may_go_out`, :func:`exit_bound`).

It walks the light table of :mod:`buraco.analysis.search` (:class:`~.search.Walk`), by the
same rules: nothing sampled, no answer cut off, a branch left only when a bound proves it
cannot beat the best exit found, a table reached twice walked once, and every line it
would report replayed by the engine.

>>> from buraco.replay import deal_hand
>>> from buraco.selfplay import play_match
>>> record = play_match("cerrado", players=2, hands=1, seed=3)  # p1 went out by melding
>>> actions = record.hands[0].parsed
>>> last_draw = max(i for i, a in enumerate(actions) if a.verb in ("draw", "take"))
>>> state = deal_hand(record, 0)
>>> for action in actions[: last_draw + 1]:
...     _ = state.apply(action)
>>> exit_ = best_exit(state)
>>> exit_.actions[-1].text, exit_.margin
('p1 meld 5c 5d 5s', 750)
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import compress
from typing import Final, NamedTuple, cast

from ..actions import Action
from ..cards import CARD_KINDS, CARDS, JOKER_CODE
from ..melds import (
    CLEAN,
    DIRTY,
    Shape,
    canasta_bonus,
    canasta_kind,
    founding_of,
    moved_founding,
)
from ..moves import WILD_CODES
from ..scoring import score_hand, scores_if_ended
from ..state import OUT, HandState
from .proposals import IS_WILD_KIND, RANK_OF, SUIT_OF, LayOff, LayOffTable, MeldTable, NewMeld, code_of
from .search import (
    SETS_PART,
    Exit,
    MeldState,
    SearchContext,
    Start,
    Walk,
    card_may_be_held,
    margin_of,
    side_bonus,
)


def best_exit(
    start: Start | HandState, context: SearchContext | None = None, *, most_bonus: bool = False, bonus_to_beat: int = -1,
    margin_to_beat: int | None = None, find_open: bool = False,
) -> Exit | None:
    """From the play step, the way of going out this turn with the best margin for the
    player's side, of those with a margin over ``margin_to_beat`` where it is given (with
    ``most_bonus``: the most canasta bonus, then the best margin, of the exits holding
    more bonus than ``bonus_to_beat``), or None when no legal line empties the hand by
    going out (so). With ``find_open``, the margin to beat holds only once the search
    has found a way out, so that the answer also says whether going out is open: an exit
    over that margin (the best), else an exit found on the way (open, none better), else
    None (no way out at all).

    Exact cover of the hand by melds and lay-offs: each step places the card with the
    fewest ways to be placed (one card may be kept back for the going-out discard), so
    every partition is tried once and dead ends show early. A search the context already
    made from a table alike (see :class:`_Remembered`) is recalled, not walked again.
    """
    if isinstance(start, HandState):
        start = Start.after(start)
    # The start made here is held by this frame while the search walks from it (its walks
    # hold it weakly): compiled code lets a local go after its last use, not at return.
    return _best_exit(start, context, most_bonus, bonus_to_beat, margin_to_beat, find_open)


def _best_exit(
    start: Start, context: SearchContext | None, most_bonus: bool, bonus_to_beat: int, margin_to_beat: int | None,
    find_open: bool,
) -> Exit | None:
    context = context or SearchContext(start.base.variant)
    base = start.base
    side = base.side_of[start.seat]
    variant = base.variant
    if variant.out_needs_dead and base.dead and not base.dead_taken[side]:
        return None  # emptying the hand would pick up a dead pile, whose cards are unknown
    if most_bonus and start.bonus_bound(context) <= bonus_to_beat:
        return None  # no line from here, going out or not, holds more canasta bonus than that
    if not start.counted(context).may_qualify():
        return None
    # Two cards the counts alone leave no play end most of the searches a turn starts:
    # asked before the walk and the search are made, and before the pile's obligation
    # (either ends the search with no way out; instructions -0.5% to -1.1% in brasil,
    # abierto and burraco-106).
    by_counts = _dead_by_counts(start, context)
    dead = by_counts.dead if by_counts.cards >= 2 else ()
    if not dead:
        root = Walk.at(start, context)
        search = _ExitSearch(root, most_bonus, bonus_to_beat, margin_to_beat, find_open)
        if not root.may_meet_obligation():
            return None
        dead = search.two_dead_cards(by_counts)
    if dead:
        object.__setattr__(start, "_dead_cards", dead)  # for dead_cards_of
        return None
    memo = context.exits
    asked = (margin_to_beat, find_open)
    key = (most_bonus, bonus_to_beat, start.seat, side, start.hand, start.obligation, tuple(root.melds), len(base.sides), id(variant))
    remembered = cast("dict[Question, _Remembered] | None", memo.get(key))
    if remembered is None:
        remembered = {}
        memo[key] = cast("dict[tuple[object, ...], tuple[object, ...]]", remembered)
    else:
        # The search asked the same first, then any other of this table that tells the answer
        # (with the most bonus, only the same: its margin to beat is not read).
        same = remembered.get(asked)
        recalled = None if same is None else search.recall(same)
        if recalled is not None:
            return recalled[0]
        for searched, other in () if most_bonus else remembered.items():
            tells = None if searched == asked else _tells(asked, searched, other.margin())
            if tells is not None:
                recalled = search.recall(other)
                if recalled is not None:
                    return recalled[0] if tells else None
    walk = root.fork()
    plays = search.root_plays
    search = _ExitSearch(walk, most_bonus, bonus_to_beat, margin_to_beat, find_open)
    search.root_plays = plays
    try:
        search.run()
    finally:
        walk.finish()
    if len(memo) >= EXIT_MEMO_SIZE:
        memo.clear()
        memo[key] = cast("dict[tuple[object, ...], tuple[object, ...]]", remembered)
    remembered[asked] = search.remembered()
    return search.best


Question = tuple[int | None, bool]  # an exit search's margin to beat, and whether it finds open


def _tells(asked: Question, searched: Question, margin: int | None) -> bool | None:
    """Does a search of the same table asked ``searched``, which returned an exit of
    ``margin`` (None: none), tell what :func:`best_exit` asked ``asked`` returns? True: that
    same exit (or none); False: no exit; None: it cannot tell.

    A whole search (no margin to beat) returns the best exit, and so does a search over a
    margin where it returns an exit over it; a search that finds open and returns no exit
    says there is none; otherwise no exit is over the margin searched, and one returned
    shows going out open.

    >>> [_tells(asked, (None, False), 300) for asked in [(250, False), (300, False), (400, True)]]
    [True, False, True]
    >>> _tells((None, False), (350, True), 300), _tells((350, True), (300, True), 300)
    (None, True)
    >>> _tells((None, False), (250, False), None), _tells((None, True), (250, True), None)
    (None, True)
    """
    floor, find_open = asked
    searched_floor, searched_open = searched
    if searched_floor is None or (margin is not None and margin > searched_floor) or (margin is None and searched_open):
        # the exit returned is the best (None: there is none)
        return margin is None or floor is None or find_open or margin > floor
    # No exit is over the margin searched; one returned shows going out open.
    if floor is None or floor < searched_floor:
        return None
    if not find_open:
        return False
    return True if margin is not None else None


# Tables a search visits before it looks ahead past cards only a wild can place
# (hungry_beaten): dear at each table, it pays only in the long searches.
HUNGRY_AFTER: Final = 1000
HUNGRY_TRIAL: Final = 64  # tables it is asked at in any case (then see _ExitSearch.looks_ahead)
HUNGRY_SHARE: Final = 16
# Tables a search walks before it asks _ExitSearch.wild_starved: most searches end within a
# few tables, where the bound's cost would buy nothing.
WILD_AFTER: Final = 100
CHEAP_MAX: Final = 1  # discard_order: 2 or 3 cost more (brasil's first 40 hands)
EXIT_MEMO_SIZE: Final = 512  # exit searches a context remembers (then it forgets them all)


class _Remembered(NamedTuple):
    """What an exit search read of its table besides the light table, and what it found:
    enough to tell whether a search from another table would go the very same way.

    The search reads of its start only the light table (the key :func:`best_exit` files
    it under, in ``SearchContext.exits``: the hand, the pile's obligation, the seat and its
    side, the melds, how many sides, the rule set, ``most_bonus`` and what it is asked to
    beat; the context's remembered proposals and bounds
    are functions of their keys), plus two things: the margin bound's constant (the score
    the side and the best other side stand at, ``_ExitSearch.prepare_constants``), read once
    an exit is found, and what the engine makes of each line offered (refused, or the
    margin and bonus it is worth), which alone moves the best found. So a search from a
    table with the same key, the same constant (when it was read) and the same verdict on
    every line offered visits the same tables in the same order, keeps the same best at
    every step and ends with the same line: that line, replayed on its own table, is its
    answer. (Its scores may differ, and are the replay's.)"""

    constant: int | None  # the margin bound's constant, None if the search never read it
    offers: tuple[tuple[tuple[Action, ...], tuple[int, int] | None], ...]  # each line offered: (margin, bonus) or None (refused)
    best: int  # the index in ``offers`` of the exit found, -1 for none

    def margin(self) -> int | None:
        """The margin of the exit the search found (None: none)."""
        verdict = self.offers[self.best][1] if self.best >= 0 else None
        return None if verdict is None else verdict[0]


class _DeadByCounts(NamedTuple):
    """What :func:`_dead_by_counts` found."""

    dead: tuple[int, ...]  # the kinds no play can hold by the counts, as far as two cards
    cards: int  # the cards of them held (two copies of one kind count as two)
    undecided: list[int]  # the kinds the counts leave open (a wild always)


def _dead_by_counts(start: Start, context: SearchContext) -> _DeadByCounts:
    """The kinds held that no new meld and no lay-off from ``start`` can hold by the hand's
    counts alone (:func:`~.search.card_may_be_held`: no proposals read), as far as two
    cards of them, and the kinds held that the counts leave undecided. Where two are found,
    the undecided are not all read."""
    hand = start.hand
    base = start.base
    wild_held = start.counts()[2] > 0
    runs, sets = context.extendable(context.melds_of(base), base.side_of[start.seat])
    variant = base.variant
    dead: list[int] = []
    undecided: list[int] = []
    count = 0
    for card in compress(range(CARD_KINDS), hand):
        if IS_WILD_KIND[card] or card_may_be_held(card, hand, wild_held, runs[SUIT_OF[card]], sets.get(RANK_OF[card], ()), variant):
            undecided.append(card)
            continue
        dead.append(card)
        count += hand[card]
        if count >= 2:
            break
    return _DeadByCounts(tuple(dead), count, undecided)


def dead_cards_of(start: Start) -> tuple[int, ...]:
    """The kinds of card, two copies in all or more, that no play from ``start``'s hand
    holds, where :func:`best_exit` found no exit from ``start`` for that reason (else
    ()). A card no play from a hand holds is held by no play from a part of it on the same
    table: a shallower take of the pile, whose hand still holds two of these, has no exit
    either, and need not be searched."""
    found: tuple[int, ...] = start.__dict__.get("_dead_cards", ())
    return found


def holds_dead_cards(start: Start, dead: Sequence[int]) -> bool:
    """Does ``start``'s hand hold two cards (two copies of one kind count as two) of the
    kinds ``dead``, the :func:`dead_cards_of` a deeper take of the pile on the same table?
    Then no exit from ``start`` exists."""
    hand = start.hand
    return sum(hand[card] for card in dead) >= 2


def may_go_out(start: Start, context: SearchContext) -> bool:
    """Could the player go out from ``start``, by the quick tests (the dead pile taken
    where it must be, a canasta to be had)? Like :func:`canasta_bound`, it only passes
    more often with more cards."""
    base = start.base
    side = base.side_of[start.seat]
    if base.variant.out_needs_dead and base.dead and not base.dead_taken[side]:
        return False
    return start.counted(context).may_qualify()


def exit_bound(start: Start, context: SearchContext) -> int:
    """A bound on the margin of any way of going out from ``start`` (the search's bound at
    its root). It only grows with the cards in hand."""
    search = _ExitSearch(Walk.at(start, context), False)
    search.prepare()
    return search.margin_bound(-1)


# What the key of an exit search's table reads of a meld no card left in hand can change
# (_ExitSearch.closed_worth).
_ClosedWorth = tuple[bool, "tuple[object, ...] | None", str, int, bool, int, MeldState]


def wild_blind(meld: MeldState) -> MeldState:
    """``meld`` with its wild written as a joker where which wild it holds changes nothing
    from here on: any wild of a set, and in a run any but the run's own 2. Such a wild never
    becomes the natural card (only a 2 of the run's suit does), moves only as a joker would
    where wilds move (rules.md 2), and leaves the canasta dirty alike; the cards laid in a
    turn score for the player whichever meld holds them. So two tables whose hands are the
    same and whose melds differ only in which such wilds they hold have the same ways out
    from there on, worth the same: the going-out search walks one of them (in brasil's
    slowest hand, a line laying a joker, the 2c or the 2h for one wild was walked three
    times). A meld with no wild, or whose wild is a joker or the run's own 2, is itself.

    >>> from buraco.cards import parse_cards
    >>> from buraco.melds import Shape
    >>> spades = Shape(True, 3, 0, 10, tuple(parse_cards("Ts 2c Qs")), 1)
    >>> wild_blind(MeldState(4, spades, 0, 1, 0)).shape.cards == tuple(parse_cards("Ts JK Qs"))
    True
    >>> clubs = Shape(True, 0, 0, 10, tuple(parse_cards("Tc 2c Qc")), 1)  # its own 2: may matter
    >>> wild_blind(MeldState(4, clubs, 0, 1, 0)).shape is clubs
    True
    """
    shape = meld.shape
    wild = shape.cards[shape.wild_index]
    if wild == JOKER_CODE or (shape.is_run and wild == code_of(2, shape.suit)):
        return meld
    return meld.with_shape(_joker_for_wild(shape))


def _joker_for_wild(shape: Shape) -> Shape:
    """``shape`` with a joker where its wild lies (it holds one)."""
    cards = list(shape.cards)
    cards[shape.wild_index] = CARDS[JOKER_CODE]
    return shape._replace(cards=tuple(cards))


Unit = tuple[bool, int]  # wild_starved: a suit's runs (True, suit) or a rank's sets (False, rank)


class _ExitSearch:
    def __init__(
        self, walk: Walk, most_bonus: bool, bonus_to_beat: int = -1, margin_to_beat: int | None = None, find_open: bool = False,
    ) -> None:
        self.walk = walk
        self.most_bonus = most_bonus
        # With most_bonus, exits holding at most this bonus are not asked for: a branch
        # whose bonus bound is no more is left (a turn that went out is judged against
        # exits with more bonus than it made: the others are not reported).
        self.bonus_to_beat = bonus_to_beat
        # Without most_bonus, likewise exits of at most this margin (a take passed over is
        # judged against the best exit of the draw as played: only a better one counts).
        self.margin_to_beat = margin_to_beat
        # With find_open, that margin holds only once an exit is found (any exit tells going
        # out is open); until then the search runs as a whole one, with no bound to read.
        self.find_open = find_open
        self.best: Exit | None = None
        self.cap = 1 << 30  # a bound on any line's canasta bonus, from the search's start (prepare)
        self.prepared = False
        self.constant = 0  # what the margin bound adds to the bonus, less the card thrown (prepare_constants)
        self.others: list[tuple[int, int]] = []  # the other sides and their scores, as the constant reads them
        self.own_spoiled = 0  # the constant before the best other side's score is taken off
        self.offers: list[tuple[tuple[Action, ...], tuple[int, int] | None]] = []  # for _Remembered
        self.bounds: tuple[int, int] | None = None  # the bounds good_enough last worked out
        self.counted: int | None = None  # the bound from card counts quickly_beaten just worked out
        self.best_offer = -1
        self.hungry = [0, 0]  # tables hungry_beaten was asked of, and left
        self._lone: dict[tuple[object, ...], tuple[frozenset[str | None] | None, ...]] = {}
        self._closed: dict[tuple[bool, ...] | None, dict[int, _ClosedWorth]] = {}  # see key
        self._blinds: dict[int, tuple[MeldState, MeldState]] = {}  # key: a meld's id -> (wild_blind of it, the meld, kept alive)
        # The kinds of wild the hand holds at the search's start: with fewer than two, no two
        # lines lay different wilds, and key need not blind the melds' wilds.
        self.wild_kinds = sum(1 for w in WILD_CODES if walk.hand[w])
        # The plays of the table the search starts at, as two_dead_cards read them there
        # (on the start's own walk, never played on): every visit before the line's first
        # play stands at that table (a card kept back for the discard changes no play),
        # and reads them here rather than again from the proposals.
        self.root_plays: _TablePlays | None = None

    def prepare(self) -> None:
        """What the margin bound needs, worked out once an exit is found (most searches
        find none, and need no bound)."""
        if self.prepared:
            return
        self.prepared = True
        walk = self.walk
        self.cap = walk.root_bound()  # bounds at the table the search starts at
        self.prepare_constants()

    def prepare_constants(self) -> None:
        """What the margin bound adds to the side's canasta bonus less the card thrown
        (``constant``): the side's score without its bonus, less the best other side's at
        its lowest. Worked out once a search: every bound and every way out reads it."""
        walk = self.walk
        base, seat = walk.start.base, walk.seat
        variant = walk.variant
        values = variant.card_values
        # The margin of any exit is own - max(other + its change), where own is the side's
        # score then: rules.md 3 with every card but the one thrown melded by the player,
        # so the constant below plus the side's canasta bonus minus the card thrown. The
        # other sides' scores change only by their canasta bonus (a brasil lay-off on their
        # melds): up by a canasta completed, down by a wild spoiling a clean one.
        context = walk.context
        known = context.exit_constants.get((id(base), seat))
        if known is None or known[0] is not base:
            # The engine scores the table once a turn (the entry keeps it alive: its id is
            # not reused): the searches of the draw as played and of every take passed over
            # start from it.
            if len(context.exit_constants) >= EXIT_MEMO_SIZE:
                context.exit_constants.clear()
            totals = tuple(score.total for score in scores_if_ended(base, OUT, seat))
            held_points = sum(values[c] * n for c, n in enumerate(base.hands[seat]) if n)
            known = context.exit_constants[(id(base), seat)] = (base, totals, held_points)
        _, totals, hand_before = known
        hand_after = sum(values[c] * n for c, n in enumerate(walk.start.hand) if n)  # the table the search starts at
        own = totals[walk.side] + hand_before + hand_after - context.bonus_of(base, walk.side)
        if walk.start.draw is not None and base.dead_unplayed[walk.side] == seat:
            # From before the draw step: the penalty for a dead pile "taken but never played
            # from" (rules.md 3) is in the scores above, and the draw step lifts it.
            own += variant.penalty_dead_unplayed
        others = [(i, total) for i, total in enumerate(totals) if i != walk.side]
        spoil = 0
        root_hand = walk.start.hand
        if variant.lay_off_anyone and any(root_hand[w] for w in WILD_CODES):
            drop = max(canasta_bonus(k, variant) for k in (CLEAN, "ace-to-king", "ace-to-ace")) - canasta_bonus(DIRTY, variant)
            wilds = sum(root_hand[w] for w in WILD_CODES)
            for other in range(len(base.sides)):
                if other != walk.side:
                    clean = sum(1 for m in base.melds if m.side == other and m.kind(variant) not in (None, DIRTY))
                    spoil = max(spoil, min(wilds, clean) * drop)
        self.others = others
        self.own_spoiled = own + spoil
        self.constant = own - (max(total for _, total in others) - spoil if others else 0)

    def has_target(self) -> bool:
        """Has the search something a way out must beat (a best found, a margin given that
        holds already, a bonus to beat with the most bonus asked)? Until then the bounds
        tell only whether some way out exists."""
        return not (self.best is None and (self.margin_to_beat is None or self.find_open) and not (self.most_bonus and self.bonus_to_beat >= 0))

    def margin_constant(self) -> int:
        """:attr:`constant` at the table the walk stands at: the best other side's score
        raised by the canasta bonus the line's lay-offs gave its melds so far (a wild
        could spoil one later, as the constant allows for already)."""
        gained = self.walk.gained
        if not any(gained) or not self.others:
            return self.constant
        return self.own_spoiled - max(total + max(0, gained[side]) for side, total in self.others)

    def may_qualify(self) -> bool:
        """:meth:`~.search.CountedTable.may_qualify` at the table the walk stands at."""
        return self.walk.may_qualify()

    def two_dead_cards(self, by_counts: _DeadByCounts | None = None) -> tuple[int, ...]:
        """The kinds of two cards of the hand (two copies of one kind count as two) that no
        new meld and no lay-off from here can hold, or () where it holds fewer. Then no exit
        exists: one of them could be the going-out discard, never both, and a card no play
        holds now is held by none later in the turn (see :meth:`most_constrained`). The
        search finds the same after two tables, dearer (its key, bounds and two pivot
        counts); most exit searches a turn started ended so. First the cards the counts
        alone leave no play (``by_counts``: :func:`_dead_by_counts` of the search's start,
        where read already), then the others by the plays themselves."""
        walk = self.walk
        hand = walk.hand
        dead, count, undecided = by_counts or _dead_by_counts(walk.start, walk.context)
        if count >= 2:
            return dead
        plays = self.root_plays = _TablePlays(walk)
        found = list(dead)
        for card in undecided:
            if not plays.holds(card):
                found.append(card)
                count += hand[card]
                if count >= 2:
                    return tuple(found)
        return ()

    def margin_bound(self, kept: int, bonus: int | None = None) -> int:
        """A bound on the margin of any exit from here (see :meth:`prepare_constants`): the side's
        bonus at its bound, the cheapest card thrown (none where the last card may be
        melded), the best other side's score with every wild spoiling a canasta of theirs."""
        self.prepare()
        walk = self.walk
        variant = walk.variant
        values = variant.card_values
        if kept >= 0:
            thrown = values[kept]
        elif variant.out_by_meld:
            thrown = 0
        else:
            thrown = min(map(values.__getitem__, compress(range(CARD_KINDS), walk.hand)))
        return self.margin_constant() + (min(self.cap, walk.bonus_bound()) if bonus is None else bonus) - thrown

    def key(self, kept: int) -> tuple[object, ...]:
        """The table as a transposition key, the melds no card left in hand can change told
        apart only by what they are worth. A meld of a suit (run) or rank (set) of which no
        card is left (the card kept for the discard aside) can only take a lone wild, and
        then no more: such a meld counts by its side, owner, bonus, whether going out may
        count on it, and the kinds a lone wild of each kind would leave (None: it takes
        none); one that can take no wild, by its side's sum of bonus only (and whether the
        player's own may count for going out). Tables alike in that are worth alike from
        here, whichever way their melds were laid. The other melds count as they stand,
        but which wild a meld holds only where that can matter (:func:`wild_blind`)."""
        walk = self.walk
        suits, ranks, wilds = walk.counts()
        if kept >= 0:
            if kept == JOKER_CODE or RANK_OF[kept] == 2:
                wilds -= 1
            if kept != JOKER_CODE:
                suits[SUIT_OF[kept]] -= 1
                ranks[RANK_OF[kept]] -= 1
        relevant: list[MeldState] = []
        lone: list[tuple[str, tuple[object, ...]]] = []  # (its repr, what the meld is worth)
        closed = [0] * len(walk.start.base.sides)
        qualified = False
        hand = walk.hand
        held = tuple([hand[w] > 0 for w in WILD_CODES]) if wilds else None
        # What a meld no card in hand can change is worth: a function of the meld and of
        # the wild kinds held (when any wild is), remembered by the wilds held and then by
        # the meld's id (the entry keeps the meld alive, so its id is not reused).
        worths = self._closed.get(held)
        if worths is None:
            worths = self._closed[held] = {}
        blinds = self._blinds if self.wild_kinds > 1 else None
        for meld in walk.melds:
            shape = meld.shape
            if suits[shape.suit] if shape.is_run else ranks[shape.rank]:
                if blinds is None or shape.wild_index < 0:
                    relevant.append(meld)  # its place's number, side and owner, and its shape and founding
                    continue
                blind = blinds.get(id(meld))
                if blind is None:
                    blind = blinds[id(meld)] = (wild_blind(meld), meld)
                relevant.append(blind[0])  # the same, its wild a joker where its kind changes nothing
                continue
            found = worths.get(id(meld))
            if found is None:
                found = worths[id(meld)] = self.closed_worth(meld, held)
            if found[0]:
                lone.append((found[2], found[1]))  # type: ignore[arg-type]
                continue
            closed[found[5]] += found[3]
            qualified = qualified or found[4]
        lone.sort(key=lambda pair: pair[0])  # by repr, as sorted(..., key=repr)
        return (tuple(hand), kept, walk.met, tuple(relevant), tuple(w for _, w in lone), tuple(closed), qualified)

    def closed_worth(self, meld: MeldState, held: tuple[bool, ...] | None) -> _ClosedWorth:
        """What :meth:`key` reads of a meld no card left in hand can change, with the wild
        kinds ``held`` (None: none): whether a lone wild could still change it, and then
        what it is worth and that as text (to sort by); else its canasta bonus and whether
        going out may count on it; its side; the meld itself (kept alive with its id)."""
        walk = self.walk
        variant = walk.variant
        shape = meld.shape
        kind = canasta_kind(shape, variant, meld.founding)
        counts = walk.counts_for_going_out(meld, kind)
        if held is not None and shape.wild_index < 0:
            after = self.lone_wild_kinds(meld, held)
            if any(after):
                worth = (meld.side, meld.owner, kind or "", counts, after)
                return (True, worth, repr(worth), 0, False, meld.side, meld)
        return (False, None, "", canasta_bonus(kind, variant), counts, meld.side, meld)

    def run(self) -> None:
        self.visit(-1)

    def lone_wild_kinds(self, meld: MeldState, held: tuple[bool, ...]) -> tuple[frozenset[str | None] | None, ...]:
        """For each wild kind held, the canasta kinds a lay-off of that wild alone can leave
        ``meld`` with (empty: it takes none); None for a wild kind not held."""
        key = (meld.shape, meld.founding, held)
        found = self._lone.get(key)
        if found is None:
            walk = self.walk
            variant = walk.variant
            shape = meld.shape
            hand = [0] * CARD_KINDS
            for w, has in zip(WILD_CODES, held):
                hand[w] = int(has)
            table = walk.proposals.lay_offs(shape, hand)
            found = self._lone[key] = tuple(
                frozenset(
                    canasta_kind(p.shape, variant, moved_founding(meld.founding, p.wild_from, p.wild_to) if shape.is_run and meld.founding else meld.founding)
                    for p in table.with_card.get(w, ()) if len(p.laid) == 1
                ) if has else None
                for w, has in zip(WILD_CODES, held)
            )
        return found

    def quickly_beaten(self, kept: int, known: tuple[int, int] | None = None) -> bool:
        """:meth:`good_enough` by its cheaper bounds only (the bound from the search's
        start, ``known``, the bound from card counts), asked before the table's key is made.
        The bound from card counts worked out is left in ``self.counted`` for
        :meth:`good_enough` (None when it was not)."""
        self.counted = None
        best = self.best
        if best is None and self.bonus_to_beat < 0 and (self.margin_to_beat is None or self.find_open):
            return False
        self.prepare()
        if self.beaten(self.cap, kept, best):
            return True  # beaten at the bound from the search's start: at any lower bound too
        if known is not None:
            counted, split = known
            return self.beaten(counted, kept, best) or self.beaten(split, kept, best)
        counted = self.counted = min(self.cap, self.walk.bonus_bound())
        return self.beaten(counted, kept, best)

    def good_enough(self, kept: int, known: tuple[int, int] | None = None) -> bool:
        """Can no exit from here beat the best one found? First by the bounds from card
        counts (:meth:`quickly_beaten`); where they leave room, by the bound suit by suit
        (:meth:`split_beaten`), dearer but aware that a card cannot go to two runs.
        ``known``: both bounds, already worked out for this very table (the hand and
        melds; only the card kept differs). The bounds worked out are left in
        ``self.bounds`` (None when they were not)."""
        return self.quickly_beaten(kept, known) or self.split_beaten(kept)

    def split_beaten(self, kept: int) -> bool:
        """The second half of :meth:`good_enough`, after :meth:`quickly_beaten` left this
        table: by the bound suit by suit, where the bound from card counts was worked out
        (not where the bounds were known, or no best is to be beaten yet)."""
        self.bounds = None
        counted = self.counted
        self.counted = None
        if counted is None:
            return False
        split = min(counted, self.walk.split_bound())
        self.bounds = (counted, split)
        return self.beaten(split, kept, self.best)

    def beaten(self, bonus: int, kept: int, best: Exit | None) -> bool:
        """Does ``best`` beat every exit from here whose bonus is at most ``bonus`` (or is
        every such exit one not asked for)?"""
        if self.most_bonus and bonus <= self.bonus_to_beat:
            return True
        if best is None and self.find_open:
            return False  # the margin to beat holds once an exit is found
        if not self.most_bonus and self.margin_to_beat is not None and self.margin_bound(kept, bonus) <= self.margin_to_beat:
            return True
        if best is None:
            return False
        if self.most_bonus:
            return bonus < best.bonus or (bonus == best.bonus and self.margin_bound(kept, bonus) <= best.margin)
        return self.margin_bound(kept, bonus) <= best.margin

    def judge(self, line: Sequence[Action]) -> Exit | None:
        """The exit ``line`` is, judged by the engine from the search's start; None if the
        engine refuses it or it does not go out."""
        walk = self.walk
        state = walk.start.replay(line)
        if state is None or not (state.is_over and state.ended_by == OUT and state.out_by == walk.seat):
            return None
        scores = tuple(p.total for p in score_hand(state))
        return Exit(tuple(line), margin_of(scores, walk.side), scores, state, side_bonus(state, walk.side))

    def offer(self, line: Sequence[Action]) -> None:
        exit_ = self.judge(line)
        self.offers.append((tuple(line), None if exit_ is None else (exit_.margin, exit_.bonus)))
        if exit_ is None:
            return
        best = self.best
        if best is None:
            better = True
        elif self.most_bonus:
            better = (exit_.bonus, exit_.margin) > (best.bonus, best.margin)
        else:
            better = exit_.margin > best.margin
        if better:
            self.best = exit_
            self.best_offer = len(self.offers) - 1

    def remembered(self) -> _Remembered:
        """This search, finished, as :func:`best_exit` remembers it."""
        return _Remembered(self.constant if self.prepared else None, tuple(self.offers), self.best_offer)

    def recall(self, remembered: _Remembered) -> tuple[Exit | None] | None:
        """The answer of a search from this table when it would go as ``remembered`` went
        (see :class:`_Remembered`), in a 1-tuple; None when it might not (then search)."""
        if remembered.constant is not None:
            self.prepare_constants()
            if self.constant != remembered.constant:
                return None
        found: Exit | None = None
        for number, (line, verdict) in enumerate(remembered.offers):
            exit_ = self.judge(line)
            if (None if exit_ is None else (exit_.margin, exit_.bonus)) != verdict:
                return None
            if number == remembered.best:
                found = exit_
        return (found,)

    def visit(
        self, kept: int, parent: tuple[int, int] | None | bool = False,
        known_pivot: tuple[int, list[tuple[str, int, LayOff | NewMeld]]] | None = None,
        came_from: _TablePlays | None = None, laid: Sequence[int] = (),
    ) -> None:
        """Walk the exits from this table, ``kept`` held back for the discard (-1: none
        yet). ``parent``: False, or this is the table of the visit that called it (the
        same hand and melds, only a card now kept back), which passed ``may_qualify``,
        with the bounds it worked out (None: it worked out none); they hold here too.
        ``known_pivot``: what :meth:`most_constrained` would return here, when known.
        ``came_from``: the plays of the table this one was reached from, by laying ``laid``
        (nothing: the same table, a card now kept back), of which this table's are read
        (:meth:`_TablePlays.after`)."""
        walk = self.walk
        walk.tick()
        known = parent if isinstance(parent, tuple) else None
        # The cheap tests before the transposition key (dearer, and half the tables are
        # left on them): the bounds, going out's canasta and the pile's card. Whether a
        # table is left by one does not hang on whether it was seen, since a table left is
        # left again whenever it comes back (each test is a function of the table and the
        # card kept, and the best found only grows), so a table left unrecorded is never
        # walked where it would have been skipped. (Going out's canasta before the key:
        # brasil's tail hands -0.7% instructions; docs/benchmarks.md, thirty-fifth round.)
        if self.quickly_beaten(kept, known):
            return
        if parent is False and not self.may_qualify():
            return  # no canasta going out needs can be on the table any more
        obligation = walk.obligation
        if not walk.met and obligation is not None and walk.hand[obligation.card] - (1 if kept == obligation.card else 0) <= 0:
            return  # the card taken from the pile can no longer be melded
        key = self.key(kept)
        seen = walk.seen
        before = len(seen)
        seen.add(key)  # one hash of the key, not two (a table's key holds every meld)
        if len(seen) == before:
            return
        if self.split_beaten(kept):
            return
        bounds = self.bounds if parent is False else parent
        hand = walk.hand
        seat = walk.seat
        left = walk.size - (1 if kept >= 0 else 0)
        if left == 0:
            if kept >= 0:
                card = CARDS[kept]
                self.offer((*walk.line, Action(seat, "discard", (card,), (), 0, 0, f"p{seat} discard {card}")))
            else:
                self.offer(walk.line)
            return
        table: _TablePlays | None = None  # this table's plays by card, where read
        if known_pivot is not None:
            pivot, plays = known_pivot
        else:
            if not walk.line and self.root_plays is not None:
                table = self.root_plays
            elif came_from is not None:
                table = came_from.after(walk, laid)
            else:
                table = _TablePlays(walk)
            if walk.nodes >= WILD_AFTER and self.wild_starved(kept, table):
                return
            pivot, plays = self.most_constrained(kept, table)
        if pivot < 0:
            return
        if not plays:
            if kept < 0:
                self.visit(pivot, bounds, (pivot, plays) if hand[pivot] > 1 else None, table)  # the one card that fits nowhere must be the last discard
            return
        if walk.nodes >= HUNGRY_AFTER and self.looks_ahead() and self.hungry_beaten(kept, pivot, table or _TablePlays(walk)):
            self.hungry[1] += 1
            return
        keep_last = False
        if kept < 0:
            only, keep_last = self.discard_order(pivot, bounds if isinstance(bounds, tuple) else None)
            if only is not None:
                for cheap in only:
                    self.visit(cheap, bounds, (pivot, plays) if cheap != pivot or hand[pivot] > 1 else None, table)
                return
            # Keep the pivot back for the going-out discard (before placing it, or after:
            # see discard_order). Where another of it is held, the table below has the same
            # pivot and plays: the counts read only the hand and the melds, the pivot is
            # still to place, and the cards counted before it stay out.
            if not keep_last:
                self.visit(pivot, bounds, (pivot, plays) if hand[pivot] > 1 else None, table)
        by_meld = walk.variant.out_by_meld
        spared = self.laid_for_a_joker(plays, kept, left)
        for kind, index, play in plays:
            if _leads_to_no_exit(play, kept, hand, left, by_meld):
                continue
            if spared and id(play) in spared:
                continue  # the same with a joker keeps a 2 back: no worse
            if kind == "add":
                undo = walk.lay_off(index, play)  # type: ignore[arg-type]
                self.visit(kept, came_from=table, laid=play.laid)
                walk.undo_lay_off(play, undo)  # type: ignore[arg-type]
            else:
                undone = walk.meld(play)  # type: ignore[arg-type]
                self.visit(kept, came_from=table, laid=play.laid)
                walk.undo_meld(play, undone)  # type: ignore[arg-type]
        if keep_last:
            self.visit(pivot, bounds, (pivot, plays) if hand[pivot] > 1 else None, table)

    def laid_for_a_joker(self, plays: list[tuple[str, int, LayOff | NewMeld]], kept: int, left: int) -> set[int] | None:
        """The plays (by id) left out because the same play laying a joker for the wild,
        not a 2, is walked too (None: none). Where wilds never move (rules.md 2, ``fixed``),
        the table keeping the 2 has every way out the table keeping the joker has, or a
        better one: the 2 can take the joker's place in each later play (a wild alike, or
        at place 2 of a run of its suit a natural 2, which makes the side's own meld
        cleaner), and thrown it costs no more points. Not where, a natural there, the 2
        could give another side's run a cleaner canasta than the joker would (leave it
        clean where the joker spoils it, or make it clean where the joker makes it dirty:
        :func:`_may_take_natural_two`), nor while the card taken from the pile is a wild
        still to meld."""
        walk = self.walk
        hand = walk.hand
        if walk.variant.wild_move != "fixed" or not hand[JOKER_CODE] or walk._wilds == hand[JOKER_CODE]:
            return None  # no joker, or no 2 to lay in its place
        if not walk.met and walk.obligation is not None and IS_WILD_KIND[walk.obligation.card]:
            return None
        by_meld = walk.variant.out_by_meld
        values = walk.variant.card_values
        with_joker: set[tuple[str, int, Shape]] = set()
        with_two: list[tuple[tuple[str, int, Shape], int, LayOff | NewMeld]] = []
        for kind, index, play in plays:
            shape = play.shape
            place = shape.wild_index
            if place < 0 or shape.cards[place] not in play.laid:
                continue  # no wild, or the meld's own from before
            wild = shape.cards[place]
            if wild == JOKER_CODE:
                if not _leads_to_no_exit(play, kept, hand, left, by_meld):
                    with_joker.add((kind, index, shape))
            elif values[wild] <= values[JOKER_CODE]:  # thrown, the 2 costs no more
                with_two.append(((kind, index, _joker_for_wild(shape)), SUIT_OF[wild], play))
        if not with_joker:
            return None
        side = walk.side
        natural_two: dict[int, bool] = {}  # by suit: could its 2 lie as a natural on another side's run
        spared = set()
        for same, suit, play in with_two:
            if same not in with_joker:
                continue
            if suit not in natural_two:
                natural_two[suit] = any(m.side != side and _may_take_natural_two(m.shape, suit, hand) for m in walk.melds)
            if not natural_two[suit]:
                spared.add(id(play))
        return spared

    def discard_order(self, pivot: int, bounds: tuple[int, int] | None) -> tuple[list[int] | None, bool]:
        """How a table with no card kept back for the discard keeps one, where the search
        raises a best margin (one it found, or one it was given to beat): the only kinds
        to keep back, where at most :data:`CHEAP_MAX` could be the discard of a better way
        out (else None); and whether the pivot is kept back only after every play placing
        it is walked (a card cheaper than the pivot is held). Before a way out is found:
        (None, False), the pivot kept first, as a card that fits nowhere is.

        A way out's margin falls by the points of the card it throws, and a table's bound
        reads the cheapest card held, so a table whose melds could hold the best's bonus
        is left only once a way out throws as cheap a card as it could: these orders find
        those ways out sooner (brasil's cards score their face value: one search found
        ways out throwing 9, 8, 7, 5, 4, 3 and then 2 points, the last after 2,831
        tables). The only kinds are those whose points, taken off the table's bonus
        bound (``bounds``, where worked out), leave a margin over the best: a way out
        throwing any other card is beaten, and every way out throwing one of them is
        found below the table with it kept back, whichever card it places first; the
        walk with none kept stops here. Not with the most bonus asked, nor where going
        out may meld the last card (a way out throwing nothing is found only with none
        kept). The other orders cost more (docs/benchmarks.md, twenty-second round)."""
        if self.best is None and (self.margin_to_beat is None or self.find_open):
            return None, False
        walk = self.walk
        values = walk.variant.card_values
        held = list(compress(range(CARD_KINDS), walk.hand))
        if not (self.most_bonus or walk.variant.out_by_meld):
            self.prepare()
            # What a better way out must beat: the best found, and the margin given where it holds.
            target = self.best.margin if self.best is not None else -(1 << 30)
            if self.margin_to_beat is not None and (self.best is not None or not self.find_open):
                target = max(target, self.margin_to_beat)
            bonus = min(self.cap, bounds[1] if bounds is not None else walk.bonus_bound())
            limit = self.margin_constant() + bonus - target
            only = [card for card in held if values[card] < limit]
            if len(only) <= CHEAP_MAX:
                return only, False
        return None, values[pivot] > min(map(values.__getitem__, held))

    def looks_ahead(self) -> bool:
        """Is :meth:`hungry_beaten` still worth asking in this search? It is asked at the
        first :data:`HUNGRY_TRIAL` tables that come to it, then only while it has left at
        least one table in :data:`HUNGRY_SHARE`: where no card only a wild can place holds
        the bounds up, its cost buys nothing."""
        asked, left = self.hungry
        self.hungry[0] = asked + 1
        return asked < HUNGRY_TRIAL or left * HUNGRY_SHARE >= asked

    def hungry_beaten(self, kept: int, pivot: int, plays: _TablePlays) -> bool:
        """Is every exit from here beaten, by the bounds after placing a card that only a
        wild can place? Every exit places each card still to place by one of its plays
        from here (or keeps it back for the discard): the pivot could be any card, so
        the bounds of those tables bound this one. The bounds here count a wild toward a
        canasta that, for such a card, must be spent on its meld, and the card's partners
        with it; placing the card lets the bounds see that. Asked only where a best exit
        is to be beaten, after :data:`HUNGRY_AFTER` tables, of the natural cards with at
        least one play and every play holding a wild. ``plays``: this table's, by card."""
        walk = self.walk
        if not self.has_target():
            return False
        hand = walk.hand
        left = walk.size - (1 if kept >= 0 else 0)
        by_meld = walk.variant.out_by_meld
        saved = self.bounds, self.counted
        try:
            for card in compress(range(CARD_KINDS), hand):  # the kinds held, in order
                if card == pivot or IS_WILD_KIND[card] or (card == kept and hand[card] == 1):
                    continue
                if plays.placed_naturally(card):
                    continue  # a play with no wild places it
                options: list[tuple[str, int, LayOff | NewMeld]] = []
                for table in plays.new_meld_tables(card):
                    options.extend(("meld", -1, p) for p in table.get(card, ()))
                for index in plays.fitting(card):
                    options.extend(("add", index, p) for p in plays.lay_off_table(index).get(card, ()))
                if not options:
                    continue
                if kept < 0 and not self.good_enough(card):
                    continue  # kept back for the discard, it may still beat the best
                if all(self.beaten_after(kind, index, play, kept, left, by_meld) for kind, index, play in options):
                    return True
            return False
        finally:
            self.bounds, self.counted = saved

    def wild_starved(self, kept: int, plays: _TablePlays) -> bool:
        """Is every exit from here beaten (or is there none) once the wilds the hand must
        spend are spent?

        A natural card no play places without a wild from the hand (not the card kept
        back) is laid, in any exit, on a meld holding a wild from the hand: every exit
        places it by one of its plays from here, merged with the line's other plays onto
        that meld (see :meth:`most_constrained`). Where all its plays are runs of its
        suit, or all sets of its rank, that suit's runs (or that rank's sets) get a wild;
        each such suit or rank its own. Where its plays are runs of its suit and sets of
        its rank, one of the two gets it, each way bounded (:func:`_asked_units`). The parts of
        :meth:`~.search.Walk.split_parts` then share the wilds left, each adding
        what one wild adds to it or what more add (:func:`_most_with_wilds`); a wild
        thrown is not laid. Before the discard is chosen, each kind of discard is bounded
        apart: a wild (one fewer to lay), the one card that alone asks a suit or rank for
        a wild (which it then spares), a card asking either (likewise), the cheapest other
        card. ``plays``: this table's, by card."""
        walk = self.walk
        hand = walk.hand
        wilds = walk._wilds
        if not wilds:
            return False  # a card only a wild could place has no play: two_dead_cards' case
        asking: dict[Unit, list[int]] = {}  # (run?, suit or rank) -> the cards that ask it for a wild, a copy each
        dead: list[int] = []  # the cards no play holds (a copy each): the discard, where one
        either: list[tuple[int, int, tuple[Unit, Unit]]] = []  # the cards asking a wild of their suit's runs or of their rank's sets
        with_sets = plays.with_sets
        values = walk.variant.card_values
        cheapest_natural = -1
        suits_held = 0  # a bit a suit, of the natural cards held
        for card in compress(range(CARD_KINDS), hand):
            if IS_WILD_KIND[card]:
                continue
            suits_held |= 1 << SUIT_OF[card]
            copies = hand[card] - (1 if card == kept else 0)
            if copies <= 0:
                continue
            if cheapest_natural < 0 or values[card] < values[cheapest_natural]:
                cheapest_natural = card
            if plays.placed_naturally(card):
                continue
            suit, rank = SUIT_OF[card], RANK_OF[card]
            on_run = card in plays.run_table(suit).with_card or any(card in plays.lay_off_table(i) for i in plays.runs[suit])
            on_set = with_sets and (
                card in plays.set_table(rank).with_card or any(card in plays.lay_off_table(i) for i in plays.sets.get(rank, ()))
            )
            if on_run and on_set:  # its wild goes to its suit's runs or to its rank's sets
                either.append((card, copies, ((True, suit), (False, rank))))
                continue
            if not (on_run or on_set):
                dead.extend([card] * copies)
                continue
            asking.setdefault((True, suit) if on_run else (False, rank), []).extend([card] * copies)
        if dead and (kept >= 0 or len(dead) > 1):
            return True  # a card no play holds, and the discard is another (or a second such)
        # A wild thrown is not laid, so one fewer is left to lay; but where the natural cards
        # held are all of one suit (or none), that suit's part was bounded keeping one of
        # its own cards for the discard, which a wild thrown spares: there the wild counts.
        thrown_wild = 1 if suits_held & (suits_held - 1) else 0
        to_beat = self.has_target()
        # The discards to bound apart: (the card thrown, the wilds left to lay, the suit or
        # rank it spares, or the card of either it is).
        choices: list[tuple[int, int, Unit | int | None]]
        if kept >= 0:
            choices = [(kept, wilds - thrown_wild if IS_WILD_KIND[kept] else wilds, None)]
        elif dead:
            choices = [(dead[0], wilds, None)]
        else:
            wild_kinds = [w for w in WILD_CODES if hand[w]]
            choices = [(min(wild_kinds, key=values.__getitem__), wilds - thrown_wild, None)]
            choices.extend((cards[0], wilds, unit) for unit, cards in asking.items() if len(cards) == 1)
            choices.extend((card, wilds, card) for card, copies, _units in either if copies == 1)
            if cheapest_natural >= 0:
                choices.append((cheapest_natural, wilds, None))
            if walk.variant.out_by_meld:
                choices.append((-1, wilds, None))  # the last card melded, none thrown
        if not to_beat:
            # Nothing to beat yet: only whether some discard leaves a wild for each that asks one.
            return all(min(map(len, _asked_units(asking, either, spared))) > left for _, left, spared in choices)
        if not asking and not either and all(left == wilds for _, left, _spared in choices):
            return False  # the bound suit by suit as it is (split_beaten)
        base, increases, one_wild = walk.split_parts(one_wild=True)
        for thrown, left, spared in choices:
            for units in _asked_units(asking, either, spared):
                needs = dict.fromkeys(increases, 0)
                for run, suit_or_rank in units:
                    part = suit_or_rank if run else SETS_PART
                    needs[part] = needs.get(part, 0) + 1
                most = _most_with_wilds([(needs[part], one_wild.get(part, 0), increases.get(part, 0)) for part in needs], left)
                if most is not None and not self.beaten(min(base + most, self.cap), thrown, self.best):
                    return False
        return True

    def beaten_after(self, kind: str, index: int, play: LayOff | NewMeld, kept: int, left: int, by_meld: bool) -> bool:
        """Is every exit through ``play`` from here beaten (by the bounds of the table it
        leaves; a play no exit can make is)?"""
        walk = self.walk
        if _leads_to_no_exit(play, kept, walk.hand, left, by_meld):
            return True
        if kind == "add":
            undo = walk.lay_off(index, play)  # type: ignore[arg-type]
            try:
                return self.good_enough(kept)
            finally:
                walk.undo_lay_off(play, undo)  # type: ignore[arg-type]
        undone = walk.meld(play)  # type: ignore[arg-type]
        try:
            return self.good_enough(kept)
        finally:
            walk.undo_meld(play, undone)  # type: ignore[arg-type]

    def most_constrained(self, kept: int, plays: _TablePlays) -> tuple[int, list[tuple[str, int, LayOff | NewMeld]]]:
        """The card still to place with the fewest melds and lay-offs holding it, and those
        plays (none: no meld or lay-off can hold it, now or later in the turn: a card that
        fits only a meld laid this turn fits that meld's cards from the hand now).
        Sound because a card's plays from this hand include every play of it that the
        hand left later would allow: the proposals keep a gap for a run's wild at a
        place whose natural card is still held (``held_gaps`` in :mod:`buraco.moves`),
        so spending that card first opens no lay-off not listed here.

        The plays are counted card by card (a count stops once it cannot be the fewest;
        the counts are sums of sizes, so the order they are added in does not matter) and
        listed for the card chosen only, in the generator's order: new melds (as
        :meth:`Proposals.melds_with` finds them), then lay-offs meld by meld. ``plays``:
        this table's, by card (the look-ahead reads them too)."""
        hand = self.walk.hand
        lay_offs = plays.lay_offs
        best_card, fewest = -1, -1
        for card in compress(range(CARD_KINDS), hand):  # the kinds held, in order
            if card == kept and hand[card] == 1:
                continue
            count = plays.new_meld_count(card)
            if fewest >= 0 and count >= fewest:
                continue
            beaten = False
            for index in plays.fitting(card):
                count += len(lay_offs(index).with_card.get(card, ()))
                if fewest >= 0 and count >= fewest:
                    beaten = True
                    break
            if not beaten:
                best_card, fewest = card, count
                if not count:
                    break
        if fewest <= 0:
            return best_card, []
        best_plays: list[tuple[str, int, LayOff | NewMeld]] = [
            ("meld", -1, p) for table in plays.new_meld_tables(best_card) for p in table.get(best_card, ())
        ]
        for index in sorted(plays.fitting(best_card)):
            best_plays.extend(("add", index, p) for p in plays.lay_off_table(index).get(best_card, ()))
        return best_card, sorted(best_plays, key=self.gain, reverse=True)  # stable: generator order among equals

    def gain(self, entry: tuple[str, int, LayOff | NewMeld]) -> int:
        """What a play adds to the side's margin by canasta bonus now: tried first, the
        lines going out with more bonus are found early and bound the rest."""
        kind, index, play = entry
        walk = self.walk
        variant = walk.variant
        shape = play.shape
        if kind == "meld":
            if len(shape.cards) < 7:  # no canasta: most plays, told without the engine's two calls
                return 0
            return canasta_bonus(canasta_kind(shape, variant, founding_of(shape)), variant)
        meld = walk.melds[index]
        if len(shape.cards) < 7:
            bonus = 0  # as meld_bonus tells it
        else:
            lay_off = cast(LayOff, play)
            founding = moved_founding(meld.founding, lay_off.wild_from, lay_off.wild_to) if meld.shape.is_run and meld.founding else meld.founding
            bonus = canasta_bonus(canasta_kind(shape, variant, founding), variant)
        change = bonus - walk.meld_bonus(meld)
        return change if meld.side == walk.side else -change


def _asked_units(
    asking: dict[Unit, list[int]], either: Sequence[tuple[int, int, tuple[Unit, Unit]]], spared: Unit | int | None,
) -> set[frozenset[Unit]]:
    """The ways the units (a suit's runs, a rank's sets) that must get a wild from the hand
    may stand, as :meth:`_ExitSearch.wild_starved` reads them: each unit ``asking`` names
    (but the one ``spared``: the discard was its only card), and for each card of
    ``either`` (card, copies, its two units; not the discard ``spared`` where it was its
    only copy) one of its two units, unless one already must. Cards asking one unit share
    its wild: fewer wilds asked for, a bound no lower. Only the first :data:`EITHER_MAX`
    such cards are read (the others ask for nothing: the bound is no lower).

    >>> hearts, spades, queens = (True, 2), (True, 3), (False, 12)
    >>> sorted(map(sorted, _asked_units({hearts: [30]}, [(46, 1, (spades, queens))], None)))
    [[(False, 12), (True, 2)], [(True, 2), (True, 3)]]
    >>> _asked_units({queens: [44]}, [(46, 1, (spades, queens))], None) == {frozenset([queens])}
    True
    >>> _asked_units({hearts: [30]}, [(46, 1, (spades, queens))], 46) == {frozenset([hearts])}
    True
    """
    ways = {frozenset(unit for unit in asking if unit != spared)}
    for card, copies, (one, other) in either[:EITHER_MAX]:
        if card == spared and copies == 1:
            continue
        ways = {
            way if one in way or other in way else added
            for way in ways
            for added in ((way | {one}), (way | {other}))
        }
    return ways


EITHER_MAX: Final = 4  # _asked_units: the cards asking a wild of either of two units that are read


def _most_with_wilds(parts: Sequence[tuple[int, int, int]], wilds: int) -> int | None:
    """The most ``wilds`` wilds add to a bound made of parts, each (the wilds it must get,
    what one wild adds to it, what two or more add), each part getting at least its
    must; None where the musts alone ask for more wilds than there are.

    >>> _most_with_wilds([(1, 0, 100), (0, 200, 200), (1, 100, 100), (2, 0, 0)], 5)
    300
    >>> _most_with_wilds([(1, 0, 100), (2, 0, 0)], 2) is None
    True
    """
    # best[w]: the most the parts so far add with at most w wilds (below 0: their musts ask more)
    best = [0] * (wilds + 1)
    for must, one, more in parts:
        after = [_UNREACHED] * (wilds + 1)
        for given in range(must, max(must, 2) + 1):  # more wilds than two (or than its must) add no more
            gain = 0 if given == 0 else one if given == 1 else more
            for used in range(given, wilds + 1):
                after[used] = max(after[used], best[used - given] + gain)
        best = after
    return best[wilds] if best[wilds] >= 0 else None


_UNREACHED: Final = -(1 << 40)  # _most_with_wilds: more wilds asked for than there are


def _may_take_natural_two(shape: Shape, suit: int, hand: Sequence[int]) -> bool:
    """Could ``shape``, a meld on the table, come to take the 2 of ``suit`` at place 2 as a
    natural this turn? A run of that suit with no wild, whose low end is 3 or whose cards
    below it down to 3 are all in ``hand`` (a wild there would be its one wild).

    >>> from buraco.cards import parse_cards
    >>> from buraco.melds import Shape
    >>> hand = [0] * 53
    >>> for code in parse_cards("3c 4c"):
    ...     hand[code] += 1
    >>> _may_take_natural_two(Shape(True, 0, 0, 5, tuple(parse_cards("5c 6c 7c")), -1), 0, hand)
    True
    >>> _may_take_natural_two(Shape(True, 0, 0, 6, tuple(parse_cards("6c 7c 8c")), -1), 0, hand)  # no 5c
    False
    """
    if not shape.is_run or shape.suit != suit or shape.wild_index >= 0 or shape.low < 3:
        return False
    return all(hand[code_of(place, suit)] for place in range(3, shape.low))


def _leads_to_no_exit(play: LayOff | NewMeld, kept: int, hand: Sequence[int], left: int, by_meld: bool) -> bool:
    """Is ``play`` one no exit from here makes? (``left``: the cards still to place.)"""
    if kept >= 0 and sum(1 for c in play.laid if c == kept) > hand[kept] - 1:
        return True  # it would spend the card kept for the discard
    return kept < 0 and not by_meld and len(play.laid) >= left  # it would meld the last card, where going out is by discard only


class _TablePlays:
    """The plays one table of a walk allows, read card by card: the new melds (runs of
    a suit, sets of a rank) and the lay-offs onto each meld the player may extend, each
    table of them fetched once (the proposals remember them by the cards they read), and
    handed on to the tables a play leads to where it leaves them as they were (:meth:`after`)."""

    def __init__(self, walk: Walk, before: _TablePlays | None = None, laid: Sequence[int] = ()) -> None:
        if before is not None:  # see after()
            self._follow(walk, before, laid)
            return
        self.hand = walk.hand
        self.proposals = walk.proposals
        self.melds = walk.melds
        self.with_sets = walk.variant.sets
        self.variant = walk.variant
        # The melds a card may be laid off on: every one for a wild, else the runs of its
        # suit and the sets of its rank, in table order.
        self.everyone: list[int] = []
        self.runs: list[list[int]] = [[], [], [], []]
        self.sets: dict[int, list[int]] = {}  # by rank, the ranks with a set only
        anyone, side = walk.variant.lay_off_anyone, walk.side  # Walk.may_extend, read once
        for i, m in enumerate(walk.melds):
            if anyone or m.side == side:
                self.everyone.append(i)
                if m.shape.is_run:
                    self.runs[m.shape.suit].append(i)
                else:
                    self.sets.setdefault(m.shape.rank, []).append(i)
        self._run_tables: list[MeldTable | None] = [None] * 4
        self._set_tables: list[MeldTable | None] = [None] * 14
        self._lay_off_tables: dict[int, LayOffTable] = {}
        self._held_ranks: list[int] | None = None
        self.wild_held = walk._wilds > 0  # the walk keeps its wilds counted as plays go
        self.meld_count = len(walk.melds)  # for after(): whether a play laid a new meld

    def after(self, walk: Walk, laid: Sequence[int]) -> _TablePlays:
        """The plays of ``walk``'s table, reached from this one by a play laying ``laid``
        (nothing: the same table, a card now kept back for the discard), keeping the
        tables of plays this one fetched that the play leaves as they were. The proposals
        are remembered by the projection of the hand each reads (the cards of a run's suit
        or of a set's rank, and the wilds), so their table for a meld, a suit or a rank is
        the same object wherever that projection and the meld are: a play of natural
        cards changes only the projections of their suits and ranks, and the meld it lays
        on, which is of one of them. A play laying a wild changes every projection (most
        plays of brasil's exit searches lay none: its tail hands, -2.3% instructions)."""
        if not laid:
            return self
        if any(IS_WILD_KIND[card] for card in laid):
            return _TablePlays(walk)
        return _TablePlays(walk, self, laid)

    def _follow(self, walk: Walk, before: _TablePlays, laid: Sequence[int]) -> None:
        """Make these the plays of ``walk``'s table reached from ``before``'s by a play of
        natural cards laying ``laid`` (:meth:`after`)."""
        self.hand, self.proposals, self.melds = walk.hand, before.proposals, walk.melds
        self.with_sets, self.variant, self.wild_held = before.with_sets, before.variant, before.wild_held
        self.everyone, self.runs, self.sets = before.everyone, before.runs, before.sets  # not changed once made
        melds = walk.melds
        self.meld_count = len(melds)
        if self.meld_count != before.meld_count:  # a new meld, the player's: every card may go on it
            index = self.meld_count - 1
            shape = melds[index].shape
            self.everyone = [*before.everyone, index]
            if shape.is_run:
                self.runs = [list(places) for places in before.runs]
                self.runs[shape.suit].append(index)
            else:
                self.sets = {rank: list(places) for rank, places in before.sets.items()}
                self.sets.setdefault(shape.rank, []).append(index)
        suits = {SUIT_OF[card] for card in laid}
        ranks = {RANK_OF[card] for card in laid}
        self._run_tables = [None if suit in suits else table for suit, table in enumerate(before._run_tables)]
        self._set_tables = [None if rank in ranks else table for rank, table in enumerate(before._set_tables)]
        self._lay_off_tables = {
            index: table for index, table in before._lay_off_tables.items()
            if (melds[index].shape.suit not in suits if melds[index].shape.is_run else melds[index].shape.rank not in ranks)
        }
        self._held_ranks = None

    def new_meld_tables(self, card: int) -> Iterator[dict[int, tuple[NewMeld, ...]]]:
        """The new melds a card could be in, by card, as :meth:`Proposals.melds_with`
        orders them: the runs of its suit (every suit for a wild), then the sets of its
        rank (for a wild, of every rank held)."""
        hand = self.hand
        if IS_WILD_KIND[card]:
            suits: Sequence[int] = range(4)
            if not self.with_sets:
                ranks: Sequence[int] = ()
            else:
                if self._held_ranks is None:
                    self._held_ranks = [r for r in (1, *range(3, 14)) if any(hand[(r - 1) * 4 + s] for s in range(4))]
                ranks = self._held_ranks
        else:
            rank = RANK_OF[card]
            suits, ranks = (SUIT_OF[card],), ((rank,) if self.with_sets and rank != 2 else ())
        for suit in suits:
            yield self.run_table(suit).with_card
        for rank in ranks:
            yield self.set_table(rank).with_card

    def new_meld_count(self, card: int) -> int:
        """How many new melds could hold ``card`` (those of :meth:`new_meld_tables`)."""
        if IS_WILD_KIND[card]:
            return sum(len(table.get(card, ())) for table in self.new_meld_tables(card))
        count = len(self.run_table(SUIT_OF[card]).with_card.get(card, ()))
        if self.with_sets:  # a natural card's rank is not 2
            count += len(self.set_table(RANK_OF[card]).with_card.get(card, ()))
        return count

    def run_table(self, suit: int) -> MeldTable:
        """The new runs of ``suit`` the hand can lay."""
        table = self._run_tables[suit]
        if table is None:
            table = self._run_tables[suit] = self.proposals.run_melds(suit, self.hand)
        return table

    def set_table(self, rank: int) -> MeldTable:
        """The new sets of ``rank`` the hand can lay."""
        table = self._set_tables[rank]
        if table is None:
            table = self._set_tables[rank] = self.proposals.set_melds(rank, self.hand)
        return table

    def placed_naturally(self, card: int) -> bool:
        """Does a new meld or a lay-off place the natural ``card`` with no wild from the
        hand? (The plays a natural card may be in: a run of its suit, a set of its rank,
        a lay-off on a meld :meth:`fitting` names.)"""
        if card in self.run_table(SUIT_OF[card]).natural:
            return True
        rank = RANK_OF[card]
        if self.with_sets and card in self.set_table(rank).natural:
            return True
        return any(card in self.lay_offs(index).natural for index in self.fitting(card))

    def holds(self, card: int) -> bool:
        """Does any new meld or lay-off hold ``card`` (by the plays themselves)?"""
        return any(card in table for table in self.new_meld_tables(card)) or any(
            card in self.lay_off_table(index) for index in self.fitting(card)
        )

    def fitting(self, card: int) -> list[int]:
        """The melds ``card`` may be laid off on (not in table order for a natural card:
        its runs, then its sets)."""
        if IS_WILD_KIND[card]:
            return self.everyone
        sets = self.sets.get(RANK_OF[card])
        return self.runs[SUIT_OF[card]] + sets if sets else self.runs[SUIT_OF[card]]

    def lay_off_table(self, index: int) -> dict[int, tuple[LayOff, ...]]:
        """The lay-offs onto meld ``index``, by card."""
        return self.lay_offs(index).with_card

    def lay_offs(self, index: int) -> LayOffTable:
        """The lay-offs onto meld ``index``."""
        table = self._lay_off_tables.get(index)
        if table is None:
            table = self._lay_off_tables[index] = self.proposals.lay_offs(self.melds[index].shape, self.hand)
        return table


__all__ = ["best_exit", "dead_cards_of", "exit_bound", "holds_dead_cards", "may_go_out"]

"""Judging each turn of a hand: missed canastas, missed chances to go out, and
discards that handed the next player the pile.

A turn is judged at its two decisions, on what the player could know then: at the
draw step (the stock's card, or the pile, whose cards were all seen when thrown),
and after it, with the hand as it then was. Each finding's witness replays from
that turn's draw step.

A missed canasta or going out open over several turns of one player, one after
another, is one finding for that *run* of turns (docs/analysis.md, "Runs"): the turn
with the most at stake gives its ply, witness and points, and what the side got from
the chance later in the hand gives its outcome and severity.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Final, cast

from ..actions import DISCARD, DRAW, TAKE, Action, draw_action, take_action
from ..cards import CARD_TEXT, CARDS, Card
from ..errors import BuracoError
from ..melds import CardToken, Shape, canasta_bonus, resolve_add
from ..notation import Record
from ..replay import deal_hand
from ..rules import Variant
from ..scoring import score_hand, scores_if_ended
from ..state import OUT, STOCK, Drew, HandState, Took
from .collector import collector_paused
from .exits import best_exit, dead_cards_of, exit_bound, holds_dead_cards, may_go_out
from .findings import (
    DANGEROUS_DISCARD,
    LOST,
    MISSED_CANASTA,
    MISSED_GOING_OUT,
    PARTLY,
    REALIZED,
    Finding,
    Thresholds,
    severity_of,
    thresholds_for,
)
from .proposals import IS_WILD_KIND, RANK_OF, SUIT_OF
from .search import (
    Budget,
    Exit,
    Line,
    SearchContext,
    SearchCut,
    Start,
    canasta_bound,
    canasta_lines_above,
    cheapest_first,
    ended_line,
    margin_of,
    may_use_take,
    start_holding,
)


@dataclass(slots=True)  # one a turn of every hand judged
class Turn:
    """One player's turn as it was played."""

    seat: int
    draw_ply: int
    draw: Action  # as a witness writes it: a draw names its card
    before_draw: HandState
    took: tuple[Card, ...] = ()  # the pile's cards the draw step took, if it took
    plies: list[int] = field(default_factory=list)  # every ply of the turn, the draw step first
    actions: list[Action] = field(default_factory=list)  # as played, as the record wrote them
    discard: int | None = None  # the card thrown
    discard_ply: int | None = None
    end_bonus: int = 0
    went_out: bool = False
    complete: bool = False
    _start: Start | None = None
    _takes: list[tuple[Start, Action]] | None = None  # the takes passed over, as far as built
    _reach: Start | None = None

    @property
    def ply(self) -> int:
        """The ply a finding about the turn after its draw step names: the discard that
        ended it, or its last action (going out by melding; a dead pile picked up after
        the discard is not a decision: the discard stays the turn's ply)."""
        return self.discard_ply if self.discard_ply is not None else self.plies[-1]

    @property
    def side(self) -> int:
        return self.before_draw.side_of[self.seat]

    def start(self) -> Start:
        """Where the searches of the turn as played begin: after its draw step (one
        Start for all of them, so that what it works out once is shared)."""
        if self._start is None:
            if self.draw.verb == DRAW:
                self._start = Start.drawing(self.before_draw, self.draw)
            else:
                self._start = Start.taking(self.before_draw, self.draw)
        return self._start

    def reach(self) -> Start:
        """A start holding every card any draw choice of the turn could give the player:
        the hand before the draw step, the whole pile, and the card drawn where the player
        drew. The bounds from card counts only grow with the cards in hand, so where they
        fail here they fail at the turn as played and at every take passed over: most
        turns' searches end on this one bound rather than on one per draw choice."""
        if self._reach is None:
            before = self.before_draw
            pile = before.discard_pile
            if not pile or (self.draw.verb == TAKE and (self.draw.depth or len(pile)) == len(pile)):
                self._reach = self.start()  # no other draw choice, or the whole pile taken
            else:
                hand: list[int] = list(before.hands[self.seat])
                # The pile's cards read as plain ints, and added as such (compiled, ``+=`` on a
                # list item adds objects): its Card objects are ints, and index it so.
                for card in cast("list[int]", pile):
                    hand[card] = hand[card] + 1
                if self.draw.verb == DRAW:
                    drawn: int = self.draw.cards[0]
                    hand[drawn] = hand[drawn] + 1
                self._reach = start_holding(before, tuple(hand))
        return self._reach


@dataclass
class PlayedHand:
    turns: list[Turn]
    final: HandState  # at the end, or (stopped) before the illegal action
    finished: bool
    actions: Sequence[Action]
    stopped: bool = False  # an illegal action stopped the replay

    def after(self, position: int) -> HandState:
        """The table when turn ``position`` ended: the next turn's, or the last one."""
        return self.turns[position + 1].before_draw if position + 1 < len(self.turns) else self.final


def played_turns(record: Record, index: int, context: SearchContext | None = None) -> PlayedHand:
    """Replay a hand turn by turn, up to its first illegal action (the turn cut by it
    is left out). ``context``: the analysis's, whose remembered meld bonuses it reads."""
    state = deal_hand(record, index)
    actions = record.hands[index].parsed
    turns: list[Turn] = []
    current: Turn | None = None
    context = context or SearchContext(record.rules)
    bonus_now, bonus_of = context.bonus_now, context.bonus_of
    stopped = False
    for ply, action in enumerate(actions, start=1):
        seat = action.seat
        starts = action.verb in (DRAW, TAKE) and state.step == "draw"
        if starts:
            before = state.copy(log=False)
            if current is not None:
                current.complete = True
                # Read on the copy, the next turn's table: its searches find it read.
                current.end_bonus = bonus_of(before, current.side)
        try:
            operation = state.apply(action)
        except BuracoError:
            current = None  # the turn holding the illegal action is not judged
            stopped = True
            break
        if starts:
            took: tuple[Card, ...] = ()
            if isinstance(operation, Drew):
                written = draw_action(seat, operation.card)
            else:
                written = take_action(seat, action.depth)  # the canonical text of a take
                if isinstance(operation, Took):
                    took = operation.cards
            current = Turn(seat, ply, written, before, took)
            turns.append(current)
        if current is None or seat != current.seat:
            continue
        current.plies.append(ply)
        current.actions.append(action)  # as the record wrote it (a witness writes it canonically)
        if action.verb == DISCARD:
            current.discard = action.cards[0]
            current.discard_ply = ply
    else:
        if current is not None and state.is_over and state.ended_by == OUT and state.out_by == current.seat:
            current.went_out = True  # going out ends the hand: only its last action can
        state.finish_by_stock()
        if current is not None and (state.is_over or state.turn != current.seat):
            current.complete = True
            current.end_bonus = bonus_now(state, current.side)
    turns = [t for t in turns if t.complete]
    return PlayedHand(turns, state, state.is_over, actions, stopped)


@dataclass(frozen=True)
class Unsearched:
    """A turn decision not judged because the CPU budget ran out: said, never hidden."""

    hand: int
    ply: int  # the turn's draw step
    seat: int
    search: str  # "canasta" or "going out"
    reason: str = "budget"

    def __str__(self) -> str:
        return f"hand {self.hand}, ply {self.ply} (p{self.seat}): the {self.search} search was cut by the CPU {self.reason}; that decision is not judged"

    def as_dict(self) -> dict[str, object]:
        return {"hand": self.hand, "ply": self.ply, "seat": self.seat, "search": self.search, "reason": self.reason}


def turn_findings(
    record: Record, index: int, unsearched: list[Unsearched] | None = None, context: SearchContext | None = None,
    played: PlayedHand | None = None,
) -> list[Finding]:
    """Missed canastas, missed going out and dangerous discards of hand ``index``.
    Decisions the context's CPU budget cut are appended to ``unsearched``. ``played``: the
    hand's :func:`played_turns` with this context, when already replayed."""
    with collector_paused():
        findings, cut = _judge_hand(record, index, context or SearchContext(record.rules), played)
    if unsearched is not None:
        unsearched.extend(cut)
    return findings


def _judge_hand(
    record: Record, index: int, context: SearchContext, played: PlayedHand | None
) -> tuple[list[Finding], list[Unsearched]]:
    # Its own frame, so that the hand's tables are freed before the collector resumes
    # (it would otherwise walk them all once, for nothing).
    judge = _HandJudge(record, index, played if played is not None else played_turns(record, index, context), context)
    try:
        return judge.findings(), judge.unsearched
    finally:
        context.forget_hand()


# --- one turn's chance --------------------------------------------------------------------


@dataclass(frozen=True)
class Chance:
    """What one turn offered of one kind and the player did not take: the better line
    (after the draw step played, or after a take passed over), what it was worth more
    than the turn as played, and the turn's ply for it."""

    position: int  # in PlayedHand.turns
    ply: int
    points: int | None  # None: open, but worth no more than its run's best so far (see below)
    witness: tuple[Action, ...]
    message: str
    table: HandState  # the table once the witness is played
    start: HandState  # the table the witness's plays begin from (after its draw step)
    margin: int = 0  # going out: the margin then
    # Open only: the witness's draw step and line, where no draw choice holds more.
    best: tuple[Action, Line] | None = None

    @classmethod
    def open_only(cls, turn: Turn, position: int, opener: tuple[Action, Line], floor: int) -> Chance:
        """The chance of a turn searched only above its run's best so far (``floor``, in
        bonus), where nothing was: it was open (``opener``, a draw step and a line holding
        more than the turn as played, proves it) and is not the run's stake. Its best line,
        and so its ply, is not known, unless the opener holds ``floor`` itself (kept as
        ``best``): :class:`_CanastaRuns` searches it if it ends the run."""
        draw, line = opener
        best = opener if line.bonus == floor else None
        return cls(position, turn.ply, None, (draw, *line.actions), "", turn.before_draw, turn.before_draw, best=best)


class _HandJudge:
    def __init__(self, record: Record, index: int, played: PlayedHand, context: SearchContext) -> None:
        self.record = record
        self.index = index
        self.played = played
        self.context = context
        self.thresholds: Thresholds = thresholds_for(record.rules)
        self.unsearched: list[Unsearched] = []
        final = played.final
        # The margin a missed going out is valued against: the hand's as it ended, or on an
        # unfinished hand the record's last table scored as it stands (no going-out bonus).
        if played.finished:
            self.final_scores = tuple(p.total for p in score_hand(final))
        else:
            self.final_scores = tuple(p.total for p in scores_if_ended(final, STOCK))

    def findings(self) -> list[Finding]:
        played = self.played
        cut: set[tuple[str, int]] = set()
        canasta = _CanastaRuns(self, cut)
        going_out = _GoingOutRuns(self, cut)
        found: list[Finding] = []
        for position, turn in enumerate(played.turns):
            canasta.judge(position)
            going_out.judge(position)
            following = played.turns[position + 1] if position + 1 < len(played.turns) else None
            found.extend(_discard_findings(self.index, turn, following, self.thresholds))
        canasta.finish()
        going_out.finish()
        found.extend(self.runs(MISSED_CANASTA, canasta.chances, {p for s, p in cut if s == "canasta"}))
        found.extend(self.runs(MISSED_GOING_OUT, going_out.chances, {p for s, p in cut if s == "going out"}))
        return found

    def guarded(
        self, position: int, search: str, cut: set[tuple[str, int]], judge: Callable[..., Chance | None], *args: object
    ) -> Chance | None:
        """``judge(position, *args)``, or None where the CPU budget cut it (then said)."""
        if not self.context.budget.spent():
            try:
                return judge(position, *args)
            except SearchCut:
                pass
        turn = self.played.turns[position]
        cut.add((search, position))
        self.unsearched.append(Unsearched(self.index + 1, turn.draw_ply, turn.seat, search))
        return None

    # --- draw choices

    def takes(self, turn: Turn) -> Iterator[tuple[Start, Action]]:
        """The takes of the pile the player passed over, the most cards first: when the
        player drew, the whole pile, and in ``dig`` every depth; when the player dug, every
        other depth. (The stock's card is known only where the player drew it, so a take
        is never compared with another draw.) Built one by one: the callers stop early;
        kept on the turn, so that the canasta and going-out searches share them."""
        if turn._takes is None:
            turn._takes = []
        built = turn._takes
        yield from built
        pile = turn.before_draw.discard_pile
        for depth in self._take_depths(turn)[len(built):]:
            seat = turn.seat
            take = Action(seat, TAKE, (), (), 0, depth, f"p{seat} take {depth}" if depth else f"p{seat} take")
            if built and depth:  # from the deeper take just before, less the cards it took more
                deeper, deeper_take = built[-1]
                start = Start.taking_fewer(deeper, take, pile[-deeper_take.depth:-depth])  # depth 0: the whole pile
            else:
                start = Start.taking(turn.before_draw, take)
            built.append((start, take))
            yield built[-1]

    def _take_depths(self, turn: Turn) -> list[int]:
        state = turn.before_draw
        pile = state.discard_pile
        if not pile:
            return []
        dig = state.variant.pickup == "dig"
        if turn.draw.verb == DRAW:
            return list(range(len(pile), 0, -1)) if dig else [0]
        if dig:
            taken = turn.draw.depth or len(pile)
            return [d for d in range(len(pile), 0, -1) if d != taken]
        return []

    # --- missed canastas

    def canasta_chance(self, position: int, above: int | None = None, proof: Chance | None = None) -> Chance | None:
        """The turn's missed canasta, if one was open. ``above``: the points its run holds
        at stake so far; then the better line is searched only where it is worth more, and
        an open chance worth no more is :meth:`Chance.open_only`. ``proof``: a chance whose
        witness may still prove this one open, such as the seat's last turn's: the engine
        replays it first (see :meth:`reopened`)."""
        turn = self.played.turns[position]
        if turn.went_out:
            return self.canasta_by_going_out(position)
        context = self.context
        to_beat = turn.end_bonus
        reach = turn.reach().bonus_bound(context)
        if reach <= to_beat:
            return None  # no draw choice of the turn leads to a line holding more
        floor = to_beat if above is None else to_beat + above
        best: tuple[Line, Action, bool] | None = None
        opener: tuple[Action, Line] | None = None  # a line proving the chance open
        if above is not None and proof is not None:
            opener = self.reopened(turn, proof, to_beat)
            if opener is not None and reach <= floor:
                return Chance.open_only(turn, position, opener, floor)  # no draw choice leads to a line worth more
        played = canasta_lines_above(turn.start(), turn.discard, to_beat if opener is None else floor, floor, context, to_beat)
        if opener is None and played.opener is not None:
            opener = (turn.draw, played.opener)
        if played.line is not None:
            best = (played.line, turn.draw, True)
        # The takes passed over, deepest first: the bound only grows with the cards taken,
        # so once a take's bound cannot beat what is sought, no shallower one can.
        for start, take in self.takes(turn):
            need = max(floor, best[0].bonus) if best is not None else floor if opener is not None else to_beat
            if not canasta_bound(start, context, need, quick=True):
                break
            if not may_use_take(start, context):
                continue  # this depth's card has no use; another depth may (not monotone)
            if not canasta_bound(start, context, need):
                break
            found = canasta_lines_above(start, None, need, max(floor, need), context, to_beat)
            if opener is None and found.opener is not None:
                opener = (take, found.opener)
            if found.line is not None:
                best = (found.line, take, False)
        if best is None:
            return None if opener is None else Chance.open_only(turn, position, opener, floor)
        line, draw, is_played = best
        return self.played_chance(turn, position, line) if is_played else self.take_chance(turn, position, draw, line)

    def played_chance(self, turn: Turn, position: int, line: Line) -> Chance:
        """The turn's missed canasta, ``line`` after the draw step as played."""
        message = f"p{turn.seat} could have {_canasta_text(turn.before_draw, line)}"
        if turn.discard is not None and _line_spends(line, turn.discard):
            message += f" and threw the {CARD_TEXT[turn.discard]} away"
        points = line.bonus - turn.end_bonus
        return Chance(position, turn.ply, points, (turn.draw, *line.actions), message, line.state, turn.before_draw)

    def take_chance(self, turn: Turn, position: int, take: Action, line: Line) -> Chance:
        """The turn's missed canasta, ``line`` after ``take``, a take passed over."""
        seat = turn.seat
        message = (
            f"p{seat} could have taken {_take_text(turn.before_draw, take)} and "
            f"{_canasta_text(turn.before_draw, line)}; p{seat} {_played_draw_text(turn)} instead"
        )
        points = line.bonus - turn.end_bonus
        return Chance(position, turn.draw_ply, points, (take, *line.actions), message, line.state, turn.before_draw)

    def chance_at_best(self, position: int, best: tuple[Action, Line]) -> Chance:
        """The turn's chance as its whole search would report it, where ``best`` (a draw
        step and a line) holds the most any draw choice of the turn holds: after the draw
        as played where some line from it holds as much (the whole search keeps a take
        passed over only where it holds more), else after ``best``'s take."""
        turn = self.played.turns[position]
        draw, line = best
        if draw == turn.draw:
            return self.played_chance(turn, position, line)
        asked = line.bonus - 1  # as much as ``line``: no line from any draw choice holds more
        played = canasta_lines_above(turn.start(), turn.discard, asked, asked, self.context, turn.end_bonus)
        if played.line is not None:
            return self.played_chance(turn, position, played.line)
        return self.take_chance(turn, position, draw, line)

    def reopened(self, turn: Turn, proof: Chance, to_beat: int) -> tuple[Action, Line] | None:
        """The plays of ``proof``'s witness (the discard ending it chosen anew) replayed by
        the engine after this turn's draw step, and where the witness took from the pile,
        after the take reaching the same card (the pile the same from its bottom up to that
        card: above it, cards may have been taken and thrown since): the draw step and the
        line, where it holds more canasta bonus than ``to_beat``."""
        witness = proof.witness
        plays = witness[1:-1] if witness[-1].verb == DISCARD else witness[1:]
        laid = Counter(t.card for action in plays for t in action.tokens)
        starts = [(turn.start(), turn.draw)]
        draw = witness[0]
        if draw.verb == TAKE:
            was, pile = proof.start.discard_pile, turn.before_draw.discard_pile
            reached = len(was) - (draw.depth or len(was))  # the card the witness's take reached, from the bottom
            if len(pile) > reached and pile[:reached + 1] == was[:reached + 1]:
                depth = len(pile) - reached
                take = take_action(turn.seat, depth if draw.depth else 0)
                if take != turn.draw:  # the line's cards came mostly from the pile: tried first
                    starts.insert(0, (Start.taking(turn.before_draw, take), take))
        for start, draw in starts:
            hand = start.hand
            if any(hand[card] < count for card, count in laid.items()):
                continue  # the engine would refuse it: not replayed
            line = ended_line(start, plays, turn.discard)
            if line is not None and line.bonus > to_beat:
                return draw, line
        return None

    def canasta_by_going_out(self, position: int) -> Chance | None:
        """A turn that went out is judged against ways of going out only: a line with more
        canasta bonus that gives up going out is not a better play of that turn."""
        turn = self.played.turns[position]
        best: tuple[Exit, Action, bool] | None = None
        for number, (start, draw) in enumerate(((turn.start(), turn.draw), *self.takes(turn))):
            to_beat = max(turn.end_bonus, best[0].bonus if best is not None else -1)
            exit_ = best_exit(start, self.context, most_bonus=True, bonus_to_beat=to_beat)
            if exit_ is not None and exit_.bonus > to_beat:
                best = (exit_, draw, number == 0)
        if best is None:
            return None
        exit_, draw, is_played = best
        line = Line(exit_.actions, exit_.bonus, exit_.state)
        seat = turn.seat
        points = exit_.bonus - turn.end_bonus
        if is_played:
            message = f"p{seat} could have gone out and {_canasta_text(turn.before_draw, line)}"
            return Chance(position, turn.ply, points, (turn.draw, *exit_.actions), message, exit_.state, turn.before_draw)
        message = (
            f"p{seat} could have taken {_take_text(turn.before_draw, draw)}, gone out and "
            f"{_canasta_text(turn.before_draw, line)}; p{seat} {_played_draw_text(turn)} instead"
        )
        return Chance(position, turn.draw_ply, points, (draw, *exit_.actions), message, exit_.state, turn.before_draw)

    # --- missed going out

    def going_out_chance(self, position: int, above: int | None = None) -> Chance | None:
        """The turn's missed going out, if one was open. ``above``: the best margin its run
        holds so far; then only a better way out is searched for, and where none is, the
        chance is open-only (points None), proved by a way out the search found."""
        turn = self.played.turns[position]
        if turn.went_out or not turn.reach().counted(self.context).may_qualify():
            return None  # no draw choice of the turn could make the canasta going out needs
        side = turn.side
        best: tuple[Exit, Action, bool] | None = None
        opened: tuple[Exit, Action, bool] | None = None  # inside a run: a way out, none better found
        exit_ = best_exit(turn.start(), self.context, margin_to_beat=above, find_open=above is not None)
        if exit_ is not None:
            if above is None or exit_.margin > above:
                best = (exit_, turn.draw, True)
            else:
                opened = (exit_, turn.draw, True)
        dead: tuple[int, ...] = ()  # cards no play held at a deeper take (dead_cards_of)
        for start, take in self.takes(turn):
            if not may_go_out(start, self.context):
                break  # the quick tests only pass more often with more cards: no shallower take passes
            if dead and holds_dead_cards(start, dead):
                continue  # no exit (a shallower take may hold fewer of them: not a break)
            to_beat = above if best is None else best[0].margin
            find_open = above is not None and best is None and opened is None  # not yet known open
            if to_beat is not None and not find_open and exit_bound(start, self.context) <= to_beat:
                break  # the margin bound only grows with the cards taken: no shallower take beats it
            exit_ = best_exit(start, self.context, margin_to_beat=to_beat, find_open=find_open)
            if exit_ is None:
                dead = dead_cards_of(start) or dead
            elif to_beat is None or exit_.margin > to_beat:
                best = (exit_, take, False)
            elif find_open:
                opened = (exit_, take, False)
        if best is None:
            if opened is None:
                return None
            exit_, draw, is_played = opened
            ply = turn.ply if is_played else turn.draw_ply
            return Chance(position, ply, None, (draw, *exit_.actions), "", exit_.state, turn.before_draw, exit_.margin)
        exit_, draw, is_played = best
        actual = margin_of(self.final_scores, side)
        points = exit_.margin - actual
        seat = turn.seat
        scores = " to ".join(str(s) for s in exit_.scores)
        how = "" if is_played else f" by taking {_take_text(turn.before_draw, draw)}"
        if self.played.finished:
            ending = f"it ended with a margin of {actual:+d}"
        else:
            ending = f"it is unfinished in the record, with a margin of {actual:+d} as it stands"
        message = (
            f"p{seat} could have gone out{how} this turn: the hand would have scored {scores} "
            f"(a margin of {exit_.margin:+d} for side {side + 1}); {ending}"
        )
        if is_played:
            return Chance(position, turn.ply, points, (turn.draw, *exit_.actions), message, exit_.state, turn.before_draw, exit_.margin)
        return Chance(position, turn.draw_ply, points, (draw, *exit_.actions), message, exit_.state, turn.before_draw, exit_.margin)

    # --- runs

    def runs(self, kind: str, chances: list[Chance | None], cut: set[int]) -> list[Finding]:
        """One finding per run: the turns of one seat, one after another, each with the
        chance open. A turn whose search the budget cut ends a run (its chance is unknown)."""
        turns = self.played.turns
        by_seat: dict[int, list[int]] = {}
        for position, turn in enumerate(turns):
            by_seat.setdefault(turn.seat, []).append(position)
        found = []
        for positions in by_seat.values():
            run: list[Chance] = []
            for position in [*positions, -1]:
                chance = chances[position] if position >= 0 else None
                if chance is not None and position not in cut:
                    run.append(chance)
                    continue
                if run:
                    finding = self.run_finding(kind, run)
                    if finding is not None:
                        found.append(finding)
                run = []
        return found

    def run_finding(self, kind: str, run: list[Chance]) -> Finding | None:
        stake = max(run, key=lambda c: c.points if c.points is not None else -(1 << 30))  # the first of the most
        if stake.points is None or stake.points <= 0:
            return None  # going out open, but no turn of it beat how the hand really ended
        turn = self.played.turns[stake.position]
        side = turn.side
        if kind == MISSED_CANASTA:
            recovered = self.canasta_recovered(stake, side)
            outcome = REALIZED if recovered >= stake.points else PARTLY if recovered > 0 else LOST
            cost = max(0, stake.points - recovered)
        else:
            final = self.played.final
            later_out = final.is_over and final.ended_by == OUT and final.side_of[final.out_by] == side
            outcome = (REALIZED if margin_of(self.final_scores, side) >= stake.margin else PARTLY) if later_out else LOST
            cost = stake.points  # already net of the margin the hand really ended with
        message = stake.message
        if len(run) > 1:
            message += f"; the chance stood open {len(run)} turns in a row (plies {run[0].ply} to {run[-1].ply})"
        message += "; " + _OUTCOME_TEXT[kind][outcome]
        return Finding(
            hand=self.index + 1, ply=stake.ply, seat=turn.seat, side=side + 1, kind=kind, points=stake.points,
            message=message, witness=tuple(a.text for a in stake.witness), first_ply=run[0].ply,
            last_ply=run[-1].ply, turns=len(run), outcome=outcome,
            severity=severity_of(cost, outcome, self.thresholds),
        )

    def canasta_recovered(self, stake: Chance, side: int) -> int:
        """What the side got later in the hand from the canastas the stake's witness made:
        each meld the witness made a better canasta of, up to that canasta's bonus, and the
        canastas it laid new, against the side's melds laid from that turn on."""
        variant = self.record.rules
        played = self.played
        before = {m.number for m in stake.start.melds}
        as_played = {m.number: canasta_bonus(m.kind(variant), variant) for m in played.after(stake.position).melds if m.side == side}
        final = {m.number: canasta_bonus(m.kind(variant), variant) for m in played.final.melds if m.side == side}
        recovered = 0
        new_target = 0
        for meld in stake.table.melds:
            if meld.side != side:
                continue
            target = canasta_bonus(meld.kind(variant), variant)
            if meld.number not in before:
                new_target += target
                continue
            was = as_played.get(meld.number, 0)
            if target > was:
                recovered += max(0, min(target, final.get(meld.number, 0)) - was)
        laid_as_played = sum(b for n, b in as_played.items() if n not in before)
        new_gain = new_target - laid_as_played
        if new_gain > 0:
            laid_later = sum(b for n, b in final.items() if n not in before) - laid_as_played
            recovered += max(0, min(new_gain, laid_later))
        return recovered


class _Runs:
    """A hand's chances of one kind, judged turn by turn in order (:meth:`judge`), where a
    turn inside a run is searched only above the run's best so far: a run's last turn,
    where only that it was open was learnt, is searched whole once the run ends, for its
    ply (:meth:`searched_whole`)."""

    def __init__(self, judge: _HandJudge, cut: set[tuple[str, int]]) -> None:
        self.hand_judge = judge
        self.cut = cut
        self.chances: list[Chance | None] = []  # by position in PlayedHand.turns
        self.open_only: dict[int, int] = {}  # seat -> its last turn, where only open was learnt

    def searched_whole(self, position: int) -> None:
        raise NotImplementedError

    def finish(self) -> None:
        """Search whole the runs' last turns left open-only at the hand's end."""
        for last in self.open_only.values():
            self.searched_whole(last)
        self.open_only.clear()


class _CanastaRuns(_Runs):
    """The missed-canasta chances of a hand's turns, judged in order. A turn inside a run
    (from its second turn) is searched only for more than the run's stake so far (the most
    the seat's turns of the run have found), with the line of the seat's last turn,
    replayed, to prove it still open; a run's last turn, where only that was learnt, is
    searched again once the run ends, for its ply (see :meth:`searched_whole`)."""

    def __init__(self, judge: _HandJudge, cut: set[tuple[str, int]]) -> None:
        super().__init__(judge, cut)
        self.stakes: dict[int, tuple[int, Chance]] = {}  # seat -> its run's stake so far, its last chance

    def judge(self, position: int) -> None:
        judge = self.hand_judge
        seat = judge.played.turns[position].seat
        known = self.stakes.get(seat)
        chance: Chance | None
        if known is None:
            chance = judge.guarded(position, "canasta", self.cut, judge.canasta_chance)
        else:
            chance = judge.guarded(position, "canasta", self.cut, lambda p: judge.canasta_chance(p, *known))
        if chance is None or chance.points is not None:
            last = self.open_only.pop(seat, None)
            if last is not None and chance is None:  # closed (or cut): the run ended at ``last``
                self.searched_whole(last)
        if chance is None:
            self.stakes.pop(seat, None)
            self.chances.append(chance)
            return
        if chance.points is None:
            assert known is not None  # only a turn inside a run is judged open-only
            self.open_only[seat] = position
            self.stakes[seat] = (known[0], chance)
        else:
            self.stakes[seat] = (chance.points if known is None else max(known[0], chance.points), chance)
        self.chances.append(chance)

    def searched_whole(self, position: int) -> None:
        """Search anew the run's last turn, where only open was learnt: only the draw as
        played, where the line proving it open holds the most any draw choice holds."""
        judge = self.hand_judge
        opened = self.chances[position]
        best = opened.best if opened is not None else None
        if best is None:
            self.chances[position] = judge.guarded(position, "canasta", self.cut, judge.canasta_chance)
        else:
            self.chances[position] = judge.guarded(position, "canasta", self.cut, lambda p: judge.chance_at_best(p, best))


# Inside a run, a turn whose hand and pile hold fewer cards is searched whole: its search is
# cheap, and a run's last turn found only open would be searched a second time (brasil's
# first 40 hands, mostly exit searches: instructions +2.0% with the floor from any number of
# cards, +0.2% from 20; docs/benchmarks.md, twenty-first round).
RUN_FLOOR_CARDS: Final = 20


class _GoingOutRuns(_Runs):
    """The missed-going-out chances of a hand's turns, judged in order, as
    :class:`_CanastaRuns` judges missed canastas: a turn inside a run (from its second turn)
    is searched only for a better margin than the run's best so far, and where none is,
    only for whether a way out is open; a run's last turn where only that was learnt is
    searched whole once the run ends, for its ply."""

    def __init__(self, judge: _HandJudge, cut: set[tuple[str, int]]) -> None:
        super().__init__(judge, cut)
        self.stakes: dict[int, int] = {}  # seat -> the best margin of its run so far

    def judge(self, position: int) -> None:
        judge = self.hand_judge
        turn = judge.played.turns[position]
        seat = turn.seat
        known = self.stakes.get(seat)  # None: the seat's last turn had no way out (most turns)
        above = None
        if known is not None:
            before = turn.before_draw
            if before.hand_sizes[seat] + len(before.discard_pile) >= RUN_FLOOR_CARDS:
                above = known
        chance = judge.guarded(position, "going out", self.cut, judge.going_out_chance, above)
        self.chances.append(chance)
        if known is None:
            if chance is not None:
                self.stakes[seat] = chance.margin
            return
        if chance is None:  # closed (or cut): the run ended, at its last turn searched whole where only open was learnt
            del self.stakes[seat]
            last = self.open_only.pop(seat, None)
            if last is not None:
                self.searched_whole(last)
        elif chance.points is None:
            if chance.margin == above and chance.witness[0] == turn.draw:
                # The draw as played holds the most the turn holds, as the run holds it
                # already: that draw gives its ply, and it is not searched again.
                self.open_only.pop(seat, None)
            else:
                self.open_only[seat] = position
        else:  # the run's best so far (a turn searched whole may hold less)
            self.open_only.pop(seat, None)
            self.stakes[seat] = max(known, chance.margin)

    def searched_whole(self, position: int) -> None:
        judge = self.hand_judge
        self.chances[position] = judge.guarded(position, "going out", self.cut, judge.going_out_chance)


_OUTCOME_TEXT = {
    MISSED_CANASTA: {
        REALIZED: "the side made that canasta later in the hand",
        PARTLY: "the side got part of that bonus later in the hand",
        LOST: "the side never got that bonus later in the hand",
    },
    MISSED_GOING_OUT: {
        REALIZED: "the side went out later with as good a margin",
        PARTLY: "the side went out later, with less",
        LOST: "the side did not go out later in the hand",
    },
}


# --- texts ---------------------------------------------------------------------------------


def _line_spends(line: Line, card: int) -> bool:
    return any(t.card == card for action in line.actions for t in action.tokens)


def _canasta_text(start: HandState, line: Line) -> str:
    """"laid 3h..9h as a clean canasta (200)", naming each canasta the line makes."""
    variant = start.variant
    side = start.side_of[start.turn]
    before = {m.number: m.kind(variant) for m in start.melds}
    parts = []
    for meld in line.state.melds:
        if meld.side != side:
            continue
        kind = meld.kind(variant)
        if kind is None or before.get(meld.number, None) == kind:
            continue
        cards = " ".join(CARD_TEXT[c] for c in meld.shape.cards)
        bonus = canasta_bonus(kind, variant)
        if meld.number in before:
            was = before[meld.number]
            upgrade = f" (it was {was})" if was else ""
            parts.append(f"made m{meld.number} {_a(kind)} canasta ({bonus}){upgrade}: {cards}")
        else:
            parts.append(f"laid {cards} as {_a(kind)} canasta ({bonus})")
    return " and ".join(parts) if parts else "held more canasta bonus"


def _a(kind: str) -> str:
    """The kind with its article: "a clean", "an ace-to-king"."""
    return ("an " if kind[0] in "aeiou" else "a ") + kind


def _pile_text(cards: Sequence[int]) -> str:
    shown = " ".join(CARD_TEXT[c] for c in cards[-6:])
    return f"{len(cards)} card{'' if len(cards) == 1 else 's'}, top {CARD_TEXT[cards[-1]]}" if len(cards) > 6 else shown


def _take_text(state: HandState, take: Action) -> str:
    pile = state.discard_pile
    if not take.depth or take.depth == len(pile):
        return f"the pile ({_pile_text(pile)})"
    return f"the pile's top {take.depth} cards ({_pile_text(pile[-take.depth:])})"


def _played_draw_text(turn: Turn) -> str:
    if turn.draw.verb == DRAW:
        return "drew from the stock"
    return f"took {len(turn.took)} card{'' if len(turn.took) == 1 else 's'}"


# --- dangerous discards ----------------------------------------------------------------


_FITS: dict[tuple[object, ...], dict[tuple[Shape, int], bool]] = {}


def _fits_known(variant: Variant) -> dict[tuple[Shape, int], bool]:
    """What :func:`_fits_meld` remembers for the rule set (by what of it lay-offs read)."""
    rules = (variant.id, variant.wild_move, variant.set_max, variant.set_suits_distinct, variant.ace_to_ace)
    known = _FITS.get(rules)
    if known is None:
        known = _FITS[rules] = {}
    return known


def _fits_meld(shape: Shape, card: int, variant: Variant, known: dict[tuple[Shape, int], bool] | None = None) -> bool:
    """Would ``card`` alone lay off on a meld of ``shape``? Remembered per rule set (by what
    of it lay-offs read; ``known``: its :func:`_fits_known`, read once by the caller): melds
    stay on the table turn after turn, and the answer is a pure function of the cards."""
    if shape.is_run and not IS_WILD_KIND[card] and not _may_fit_run(shape, card, variant):
        return False
    if known is None:
        known = _fits_known(variant)
    found = known.get((shape, card))
    if found is None:
        if len(known) > 100_000:
            known.clear()
        try:
            resolve_add(shape, (CardToken(CARDS[card]),), variant)
            found = True
        except BuracoError:
            found = False
        known[(shape, card)] = found
    return found


def _may_fit_run(shape: Shape, card: int, variant: Variant) -> bool:
    """Could a natural card (not a 2), alone, lay off on the run of ``shape``? (Its suit is
    the caller's to check.) Only at a place next to the run (low - 1, high + 1) or at the
    place its wild stands for: every other place of the run holds a natural, and a card
    farther out would leave a gap that the wild cannot fill, as a wild stays where it is
    unless a card takes its place. An ace may sit at 1 or 14. Where a wild may move
    ``anywhere``, a wild at an end may go further, so such a run is left to the engine
    (True). A quick proof that :func:`~buraco.melds.resolve_add` refuses the card, checked
    against it for every run shape of a suit in every rule set
    (tests/engine/analysis/test_dangerous_discards.py)."""
    wild_index = shape.wild_index
    if variant.wild_move == "anywhere" and (wild_index == 0 or wild_index == len(shape.cards) - 1):
        return True
    rank = RANK_OF[card]
    low = shape.low
    high = low + len(shape.cards) - 1
    wild_at = low + wild_index if wild_index >= 0 else 0
    for place in (1, 14) if rank == 1 else (rank,):
        if place == low - 1 or place == high + 1 or place == wild_at:
            return True
    return False


def _fits(state: HandState, card: int, seat: int, *, first: bool = False) -> list[int]:
    """The melds on the table that ``seat`` may extend and ``card`` would fit (with
    ``first``: the first one only, where whether any does is the question)."""
    fitting = []
    wild = IS_WILD_KIND[card]
    variant = state.variant
    anyone, side = variant.lay_off_anyone, state.side_of[seat]  # may_extend, read once
    suit, rank = SUIT_OF[card], RANK_OF[card]
    known = _fits_known(variant)
    for meld in state.melds:
        if not anyone and meld.side != side:
            continue
        shape = meld.shape
        if not wild and (suit != shape.suit if shape.is_run else rank != shape.rank):
            continue  # a natural card fits only a run of its suit or a set of its rank
        if _fits_meld(shape, card, variant, known):
            fitting.append(meld.number)
            if first:
                break
    return fitting


def _discard_findings(index: int, turn: Turn, following: Turn | None, thresholds: Thresholds) -> list[Finding]:
    if turn.discard is None or following is None or turn.discard_ply is None:
        return []
    # The next player took the pile the discard topped. (A dead pile picked up after the
    # discard means the discard was the last card: no other card could have been thrown.)
    if following.draw.verb != TAKE or following.draw_ply != turn.discard_ply + 1:
        return []
    # The next turn's table is the one just before the discard but for the card thrown: a
    # discard lays nothing, so it tells which melds the discard and every card kept fit.
    table = following.before_draw
    nxt = following.seat
    fitting = _fits(table, turn.discard, nxt)
    if not fitting:
        return []
    seat = turn.seat
    kept = table.hands[seat]
    values = table.variant.card_values
    thrown = turn.discard
    # The cheapest card held that fits nothing. Any card held could have been thrown instead:
    # the discard made was legal, so no pile obligation was pending, and with another card
    # held it was not the last card.
    instead = next(
        (c for c in cheapest_first(table.variant) if kept[c] and c != thrown and not _fits(table, c, nxt, first=True)), None
    )
    if instead is None:
        return []  # no card in hand was safe
    took = following.took
    points = sum(values[c] for c in took)
    side = table.side_of[seat]
    melds = ", ".join(f"m{n}" for n in fitting)
    message = (
        f"p{seat} discarded {CARD_TEXT[turn.discard]}, which fits {melds} for p{nxt}, and p{nxt} took the pile "
        f"({len(took)} card{'' if len(took) == 1 else 's'}, {points} points); {CARD_TEXT[instead]} fitted no meld p{nxt} may extend"
    )
    witness = [turn.draw]
    for ply, action in zip(turn.plies[1:], turn.actions[1:]):
        if ply == turn.discard_ply:
            witness.append(Action(seat, DISCARD, (CARDS[instead],), (), 0, 0, f"p{seat} discard {CARD_TEXT[instead]}"))
            break
        witness.append(action._replace(text=action.canonical()))
    return [Finding(
        hand=index + 1, ply=turn.discard_ply, seat=seat, side=side + 1, kind=DANGEROUS_DISCARD, points=points,
        message=message, witness=tuple(a.text for a in witness), severity=severity_of(points, None, thresholds),
    )]


__all__ = ["Budget", "Chance", "PlayedHand", "Turn", "Unsearched", "played_turns", "turn_findings"]

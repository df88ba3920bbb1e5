"""Judging each turn of a hand: missed canastas, missed chances to go out, and
discards that handed the next player the pile.

A turn is judged at its two decisions, on what the player could know then: at the
draw step (the stock's card, or the pile, whose cards were all seen when thrown),
and after it, with the hand as it then was. Each finding's witness replays from
that turn's draw step.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..actions import DISCARD, DRAW, TAKE, Action
from ..cards import CARD_KINDS, CARD_TEXT, CARDS
from ..errors import BuracoError
from ..melds import CardToken, canasta_bonus, resolve_add
from ..moves import draw_step_actions, may_extend
from ..notation import Record
from ..replay import deal_hand
from ..scoring import score_hand
from ..state import OUT, Drew, HandState, Took
from .findings import DANGEROUS_DISCARD, MISSED_CANASTA, MISSED_GOING_OUT, Finding
from .search import NODE_LIMIT, Exit, Line, SearchLimit, best_canasta_line, best_exit, margin_of, side_bonus


@dataclass
class Turn:
    """One player's turn as it was played."""

    seat: int
    draw_ply: int
    draw: Action  # as a witness writes it: a draw names its card
    before_draw: HandState
    after_draw: HandState
    plies: list[int] = field(default_factory=list)  # every ply of the turn, the draw step first
    actions: list[Action] = field(default_factory=list)  # as played, in canonical spelling
    before_discard: HandState | None = None
    discard: int | None = None  # the card thrown
    discard_ply: int | None = None
    end_bonus: int = 0
    went_out: bool = False
    complete: bool = False


@dataclass
class PlayedHand:
    turns: list[Turn]
    final: HandState
    finished: bool
    actions: Sequence[Action]


def played_turns(record: Record, index: int) -> PlayedHand:
    """Replay a hand turn by turn, up to its first illegal action (the turn cut by it
    is left out)."""
    state = deal_hand(record, index)
    actions = record.hands[index].parsed
    turns: list[Turn] = []
    current: Turn | None = None
    for ply, action in enumerate(actions, start=1):
        seat = action.seat
        starts = action.verb in (DRAW, TAKE) and state.step == "draw"
        if starts:
            if current is not None:
                current.complete = True
            before = state.copy()
        discarding = action.verb == DISCARD
        before_discard = state.copy() if discarding else None
        try:
            operation = state.apply(action)
        except BuracoError:
            current = None  # the turn holding the illegal action is not judged
            break
        if starts:
            if isinstance(operation, Drew):
                written = Action(seat, DRAW, (operation.card,), (), 0, 0, f"p{seat} draw {CARD_TEXT[operation.card]}")
            else:
                written = action._replace(text=action.canonical())
            current = Turn(seat, ply, written, before, state.copy())
            turns.append(current)
        if current is None or seat != current.seat:
            continue
        current.plies.append(ply)
        current.actions.append(action._replace(text=action.canonical()))
        if discarding:
            assert before_discard is not None
            current.before_discard = before_discard
            current.discard = action.cards[0]
            current.discard_ply = ply
        current.end_bonus = side_bonus(state, state.side_of[seat])
        if state.is_over and state.ended_by == OUT and state.out_by == seat:
            current.went_out = True
    else:
        state.finish_by_stock()
        if current is not None and (state.is_over or state.turn != current.seat):
            current.complete = True
    turns = [t for t in turns if t.complete]
    return PlayedHand(turns, state, state.is_over, actions)


@dataclass(frozen=True)
class Unsearched:
    """A turn decision the search gave up on (past NODE_LIMIT tables): said, never hidden."""

    hand: int
    ply: int
    seat: int
    search: str  # "canasta" or "going out"

    def __str__(self) -> str:
        return (
            f"hand {self.hand}, ply {self.ply} (p{self.seat}): the {self.search} search stopped after "
            f"{NODE_LIMIT} tables; that decision is not judged"
        )


def turn_findings(record: Record, index: int, unsearched: list[Unsearched] | None = None) -> list[Finding]:
    """Missed canastas, missed going out and dangerous discards of hand ``index``.
    Decisions too large to search are appended to ``unsearched``."""
    played = played_turns(record, index)
    findings: list[Finding] = []
    final_scores = tuple(p.total for p in score_hand(played.final)) if played.finished else None
    for position, turn in enumerate(played.turns):
        try:
            findings.extend(_canasta_findings(index, turn))
        except SearchLimit as limit:
            if unsearched is not None:
                unsearched.append(Unsearched(index + 1, turn.draw_ply, turn.seat, str(limit)))
        try:
            findings.extend(_going_out_findings(index, turn, final_scores))
        except SearchLimit as limit:
            if unsearched is not None:
                unsearched.append(Unsearched(index + 1, turn.draw_ply, turn.seat, str(limit)))
        following = played.turns[position + 1] if position + 1 < len(played.turns) else None
        findings.extend(_discard_findings(index, turn, following))
    return findings


# --- missed canastas -------------------------------------------------------------------


def _alternative_takes(turn: Turn) -> list[tuple[Action, HandState]]:
    """The legal pile pick-ups the player passed over by drawing from the stock."""
    if turn.draw.verb != DRAW:
        return []
    options = []
    for action in draw_step_actions(turn.before_draw):
        if action.verb == TAKE:
            trial = turn.before_draw.copy()
            trial.apply(action)
            options.append((action, trial))
    return options


def _canasta_findings(index: int, turn: Turn) -> list[Finding]:
    seat, side = turn.seat, turn.after_draw.side_of[turn.seat]
    played = best_canasta_line(turn.after_draw, turn.discard, to_beat=turn.end_bonus)
    played_bonus = max(played.bonus if played is not None else 0, turn.end_bonus)
    best_take: tuple[Action, Line] | None = None
    for take, trial in _alternative_takes(turn):
        to_beat = max(played_bonus, best_take[1].bonus if best_take is not None else 0)
        line = best_canasta_line(trial, None, to_beat=to_beat)
        if line is not None and line.bonus > to_beat:
            best_take = (take, line)
    if best_take is not None and best_take[1].bonus > max(played_bonus, turn.end_bonus):
        take, line = best_take
        points = line.bonus - turn.end_bonus
        message = (
            f"p{seat} could have taken the pile ({_pile_text(turn.before_draw)}) and "
            f"{_canasta_text(turn.before_draw, line)}; p{seat} drew from the stock instead"
        )
        return [_finding(index, turn.draw_ply, seat, side, MISSED_CANASTA, points, message, (take, *line.actions))]
    if played is not None and played.bonus > turn.end_bonus:
        points = played.bonus - turn.end_bonus
        message = f"p{seat} could have {_canasta_text(turn.after_draw, played)}"
        if turn.discard is not None and _line_spends(played, turn.discard):
            message += f" and threw the {CARD_TEXT[turn.discard]} away"
        ply = turn.discard_ply if turn.discard_ply is not None else turn.plies[-1]
        return [_finding(index, ply, seat, side, MISSED_CANASTA, points, message, (turn.draw, *played.actions))]
    return []


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


def _pile_text(state: HandState) -> str:
    pile = state.discard_pile
    shown = " ".join(CARD_TEXT[c] for c in pile[-6:])
    return f"{len(pile)} card{'' if len(pile) == 1 else 's'}, top {CARD_TEXT[pile[-1]]}" if len(pile) > 6 else shown


# --- missed going out ------------------------------------------------------------------


def _going_out_findings(index: int, turn: Turn, final_scores: tuple[int, ...] | None) -> list[Finding]:
    if turn.went_out:
        return []
    side = turn.after_draw.side_of[turn.seat]
    actual = margin_of(final_scores, side) if final_scores is not None else None
    played = best_exit(turn.after_draw)
    if played is not None:
        ply = turn.discard_ply if turn.discard_ply is not None else turn.plies[-1]
        return _exit_finding(index, ply, turn, side, played, actual, (turn.draw,), "")
    best_take: tuple[Action, Exit] | None = None
    for take, trial in _alternative_takes(turn):
        exit_ = best_exit(trial)
        if exit_ is not None and (best_take is None or exit_.margin > best_take[1].margin):
            best_take = (take, exit_)
    if best_take is None:
        return []
    take, exit_ = best_take
    return _exit_finding(index, turn.draw_ply, turn, side, exit_, actual, (take,), " by taking the pile")


def _exit_finding(
    index: int, ply: int, turn: Turn, side: int, exit_: Exit, actual: int | None, start: tuple[Action, ...], how: str
) -> list[Finding]:
    points = None if actual is None else exit_.margin - actual
    if points is not None and points <= 0:
        return []
    seat = turn.seat
    scores = " to ".join(str(s) for s in exit_.scores)
    ending = "is unfinished in the record" if actual is None else f"ended with a margin of {actual:+d}"
    message = (
        f"p{seat} could have gone out{how} this turn: the hand would have scored {scores} "
        f"(a margin of {exit_.margin:+d} for side {side + 1}); it {ending}"
    )
    return [_finding(index, ply, seat, side, MISSED_GOING_OUT, points, message, (*start, *exit_.actions))]


# --- dangerous discards ----------------------------------------------------------------


def _fits(state: HandState, card: int, seat: int) -> list[int]:
    """The melds on the table that ``seat`` may extend and ``card`` would fit."""
    fitting = []
    for meld in state.melds:
        if not may_extend(state, seat, meld.number):
            continue
        try:
            resolve_add(meld.shape, (CardToken(CARDS[card]),), state.variant)
        except BuracoError:
            continue
        fitting.append(meld.number)
    return fitting


def _discard_findings(index: int, turn: Turn, following: Turn | None) -> list[Finding]:
    if turn.discard is None or turn.before_discard is None or following is None or turn.discard_ply is None:
        return []
    if following.draw.verb != TAKE or following.draw_ply != turn.discard_ply + 1 + _dead_after(turn):
        return []
    state = turn.before_discard
    nxt = following.seat
    fitting = _fits(state, turn.discard, nxt)
    if not fitting:
        return []
    safe = [
        c for c in range(CARD_KINDS)
        if state.hands[turn.seat][c] and c != turn.discard and state.can_discard(turn.seat, CARDS[c])
        and not _fits(state, c, nxt)
    ]
    if not safe:
        return []
    values = state.variant.card_values
    instead = min(safe, key=lambda c: (values[c], c))
    took = following.after_draw.operations[len(following.before_draw.operations)]
    assert isinstance(took, Took)
    points = sum(values[c] for c in took.cards)
    seat = turn.seat
    side = state.side_of[seat]
    melds = ", ".join(f"m{n}" for n in fitting)
    message = (
        f"p{seat} discarded {CARD_TEXT[turn.discard]}, which fits {melds} for p{nxt}, and p{nxt} took the pile "
        f"({len(took.cards)} card{'' if len(took.cards) == 1 else 's'}, {points} points); {CARD_TEXT[instead]} fitted no meld p{nxt} may extend"
    )
    witness = [turn.draw]
    for ply, action in zip(turn.plies[1:], turn.actions[1:]):
        if ply == turn.discard_ply:
            witness.append(Action(seat, DISCARD, (CARDS[instead],), (), 0, 0, f"p{seat} discard {CARD_TEXT[instead]}"))
            break
        witness.append(action)
    return [_finding(index, turn.discard_ply, seat, side, DANGEROUS_DISCARD, points, message, tuple(witness))]


def _dead_after(turn: Turn) -> int:
    """Plies the player spent after the discard (an indirect dead-pile pick-up)."""
    return sum(1 for ply in turn.plies if turn.discard_ply is not None and ply > turn.discard_ply)


def _finding(
    index: int, ply: int, seat: int, side: int, kind: str, points: int | None, message: str, witness: Sequence[Action]
) -> Finding:
    return Finding(
        hand=index + 1, ply=ply, seat=seat, side=side + 1, kind=kind, points=points, message=message,
        witness=tuple(a.text for a in witness),
    )

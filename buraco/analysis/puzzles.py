"""A finding turned around: the table at the start of its turn, from the player's seat, and
the question "what is your turn?"; a turn tried there judged against the finding's witness
with the valuation the analysis gave that finding (docs/analysis.md, "Training").

>>> from buraco.selfplay import play_match
>>> from buraco.analysis import analyze
>>> record = play_match("cerrado", players=2, hands=1, seed=3, mistakes=0.3)
>>> finding = next(f for f in analyze(record) if makes_puzzle(f))
>>> judge(record, finding, finding.witness).verdict
'best'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from ..actions import DISCARD, ActionSyntaxError, parse_action
from ..cards import CARD_TEXT
from ..errors import BuracoError
from ..notation import Record
from ..scoring import score_hand
from ..state import OUT, Drew, HandState
from .findings import DANGEROUS_DISCARD, MISSED_CANASTA, MISSED_GOING_OUT, Finding
from .search import margin_of, side_bonus
from .turns import _fits
from .witness import before_witness, witness_start

PUZZLE_KINDS: Final = (MISSED_CANASTA, MISSED_GOING_OUT, DANGEROUS_DISCARD)

BEST: Final = "best"  # as good as the witness, or better
GOOD: Final = "good"  # better than the turn as played, short of the witness
SHORT: Final = "short"  # no better than the turn as played
VERDICTS: Final = (BEST, GOOD, SHORT)


def makes_puzzle(finding: Finding) -> bool:
    """Only a judged turn with a seat and a witness is a puzzle."""
    return finding.kind in PUZZLE_KINDS and finding.seat is not None and finding.ply is not None and bool(finding.witness)


def position(record: Record, finding: Finding) -> HandState:
    """The table at the start of the finding's turn: before its draw step."""
    return before_witness(record, finding)


def seat_view(state: HandState, seat: int) -> dict[str, Any]:
    """What ``seat`` sees of the table: its own hand, the melds, the pile, and only counts of
    the other hands, the stock and the dead piles. ``draw`` is the card a stock draw gives now
    (the analysis judges the turn knowing it, and the witness names it; docs/analysis.md)."""
    table = state.to_json()
    drawn: str | None = None
    if state.step == "draw" and state.stock_count:
        trial = state.copy(log=False)
        try:
            operation = trial.apply(parse_action(f"p{seat} draw", state.players))
            if isinstance(operation, Drew):
                drawn = CARD_TEXT[operation.card]
        except BuracoError:
            drawn = None
    return {
        "seat": seat,
        "turn": table["turn"],
        "step": table["step"],
        "hand": table["hands"][str(seat)],
        "others": {key: len(cards) for key, cards in table["hands"].items() if key != str(seat)},
        "melds": table["melds"],
        "discard": table["discard"],
        "stock": table["stock"],
        "dead": table["dead"],
        "dead_taken": table["dead_taken"],
        "running": table["running"],
        "draw": drawn,
    }


class IllegalAttempt(ValueError):
    """An attempt that cannot be judged: ``index`` (from 0) is the action at fault, if one is."""

    def __init__(self, message: str, index: int | None = None, action: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.index = index
        self.action = action


@dataclass(frozen=True)
class Judgement:
    verdict: str
    points: int  # what the attempt reaches, in the finding kind's valuation
    best_points: int  # what the witness reaches
    played_points: int  # what the turn as played reached
    short_by: int
    witness: tuple[str, ...]


@dataclass
class _Played:
    final: HandState
    discards: list[tuple[HandState, int]]  # the table before each discard, and the card thrown


def _play(start: HandState, seat: int, actions: Sequence[str]) -> _Played:
    """The turn played from ``start``: every action legal, all of ``seat``'s turn, and the turn
    over at the end (passed on, or the hand ended)."""
    state = start.copy(log=False)
    discards: list[tuple[HandState, int]] = []
    for index, text in enumerate(actions):
        if state.is_over or state.turn != seat:
            raise IllegalAttempt(f"action {index + 1} ({text!r}) comes after the turn ended", index, text)
        try:
            action = parse_action(text, state.players)
            if action.seat != seat:
                raise IllegalAttempt(f"action {index + 1} ({text!r}) is not p{seat}'s: the puzzle is p{seat}'s turn",
                                     index, text)
            before = state.copy(log=False) if action.verb == DISCARD else None
            state.apply(action)
        except (BuracoError, ActionSyntaxError) as error:
            raise IllegalAttempt(f"action {index + 1} ({text!r}) cannot be played: {error.message}", index, text) from error
        if before is not None:
            discards.append((before, action.cards[0]))
    if not state.is_over and state.turn == seat:
        raise IllegalAttempt(f"the turn is not over after {len(actions)} action(s): end it with a discard, or by going out")
    return _Played(state, discards)


def _value(finding: Finding, played: _Played, seat: int, side: int, as_played: int | None) -> int:
    """The points the analysis would give this turn for the finding's kind: the canasta bonus
    the side's melds hold after it (missed canasta); the hand's margin when it goes out, else
    the margin the hand really ended with (missed going out); minus the pile's points when the
    turn's discard fits a meld the next player may extend (dangerous discard)."""
    state = played.final
    if finding.kind == MISSED_CANASTA:
        return side_bonus(state, side)
    if finding.kind == MISSED_GOING_OUT:
        if state.is_over and state.ended_by == OUT and state.out_by == seat:
            return margin_of(tuple(p.total for p in score_hand(state)), side)
        if as_played is None:
            raise ValueError("the witness of a missed going out goes out")
        return as_played
    if not played.discards or state.is_over:
        return 0
    before, card = played.discards[-1]
    return -int(finding.points or 0) if _fits(before, card, state.turn) else 0


def judge(record: Record, finding: Finding, actions: Sequence[str]) -> Judgement:
    """The attempt ``actions`` (BRN action strings, from the turn's draw step) against the
    finding's witness. Raises :class:`IllegalAttempt` for an attempt that cannot be played."""
    if not makes_puzzle(finding) or finding.seat is None:
        raise ValueError("this finding is not a puzzle")
    if not actions:
        raise IllegalAttempt("give the turn's actions, the draw step first")
    seat = finding.seat
    start = position(record, finding)
    side = start.side_of[seat]
    witness = _play(start, seat, finding.witness)
    points = int(finding.points or 0)
    best = _value(finding, witness, seat, side, None)
    played_points = best - points  # the analysis's points are what the witness beats the turn as played by
    attempt = _play(start, seat, actions)
    got = _value(finding, attempt, seat, side, played_points)
    if got >= best:
        verdict = BEST
    elif got > played_points:
        verdict = GOOD
    else:
        verdict = SHORT
    return Judgement(verdict, got, best, played_points, max(0, best - got), tuple(finding.witness))


def turn_ply(record: Record, finding: Finding) -> int:
    """The plies played before the puzzle's table (its turn's draw step is the next one)."""
    return witness_start(record, finding) - 1


__all__ = [
    "BEST", "GOOD", "IllegalAttempt", "Judgement", "PUZZLE_KINDS", "SHORT", "VERDICTS", "judge", "makes_puzzle",
    "position", "seat_view", "turn_ply",
]

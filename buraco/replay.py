"""Replaying records: iterate a hand's tables, verify a whole match.

>>> from buraco.selfplay import play_match
>>> record = play_match("cerrado", players=2, hands=1, seed=3)
>>> report = verify(record)
>>> report.valid, report.hands[0].finished
(True, True)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .actions import MELD, ActionSyntaxError, parse_action
from .errors import BuracoError, IllegalActionError, NotationError
from .melds import CardToken, Shape, layout_tokens, resolve_meld
from .notation import Record, dumps, loads
from .rules import Variant
from .scoring import SideScore, match_winner, score_hand
from .state import HandState, Melded, Operation, OperationKind


def deal_hand(record: Record, index: int) -> HandState:
    """The table of hand ``index`` (0-based) before its first action."""
    hand = record.hands[index]
    return HandState.deal(
        record.rules, len(record.players), hand.dealer, hand.dealt, hand.dead, hand.discard, hand.stock
    )


def iter_hand(record: Record, index: int) -> Iterator[HandState]:
    """Yield the table after the deal, then after every action.

    The same :class:`HandState` object is yielded each time, changed in place
    (replay is hot); call ``state.to_json()`` to keep a snapshot. An illegal
    action raises :class:`IllegalActionError` positioned at its ply.
    """
    hand = record.hands[index]
    try:
        state = deal_hand(record, index)
    except IllegalActionError as error:
        raise _position(error, record, index, None) from None
    yield state
    last = len(hand.parsed)
    for ply, action in enumerate(hand.parsed, start=1):
        try:
            state.apply(action)
        except IllegalActionError as error:
            raise _position(error, record, index, ply) from None
        if ply == last:
            state.finish_by_stock()  # the record stops where the next player faces an empty stock
        yield state


def replay_hand(record: Record, index: int) -> HandState:
    """The table at the end of hand ``index``: :func:`iter_hand` without the stops."""
    try:
        state = deal_hand(record, index)
    except IllegalActionError as error:
        raise _position(error, record, index, None) from None
    apply = state.apply
    ply = 0
    try:
        for ply, action in enumerate(record.hands[index].parsed, start=1):  # noqa: B007 - ply is read on error
            apply(action)
    except IllegalActionError as error:
        raise _position(error, record, index, ply) from None
    state.finish_by_stock()
    return state


def timeline(record: Record, index: int) -> list[dict[str, Any]]:
    """Every entry of a hand's timeline (:func:`iter_timeline`), the deal first (ply 0).

    An illegal action raises, as :func:`iter_hand` does; :func:`iter_timeline` gives
    the entries before it.
    """
    return list(iter_timeline(record, index))


def iter_timeline(record: Record, index: int) -> Iterator[dict[str, Any]]:
    """Yield, for the deal and then after every action, the table as plain data
    (``HandState.to_json()``) with what happened (:func:`timeline_entry`).

    >>> from buraco.selfplay import play_match
    >>> record = play_match("cerrado", players=2, hands=1, seed=3)
    >>> deal, first = list(iter_timeline(record, 0))[:2]
    >>> deal["ply"], deal["action"], deal["operation"], first["action"], first["operation"]["kind"]
    (0, None, None, 'p1 draw', 'drew')
    """
    hand = record.hands[index]
    written = hand.written or hand.actions
    logged = 0
    for state in iter_hand(record, index):
        text = written[state.ply - 1] if state.ply else None
        yield timeline_entry(state, text, logged)
        logged = len(state.operations)


def timeline_entry(state: HandState, action: str | None, logged: int) -> dict[str, Any]:
    """The table after an action, and what the action did.

    ``logged`` is how many operations the state had logged before the action.
    Besides ``state.to_json()`` the entry has:

    - ``seat`` and ``action``: who played and the action as written (None at the deal);
    - ``operation``: the action's own operation (:func:`describe_operation`);
    - ``automatic``: the automatic steps that followed it, from the state's log
      (the dead piles moved into the stock; the hand ended).
    """
    entry = state.to_json()
    operations = state.operations[logged:]
    own = operations[0].to_json() if action is not None and operations else None
    entry["seat"] = own["seat"] if own is not None else None
    entry["action"] = action
    entry["operation"] = own
    entry["automatic"] = [op.to_json() for op in operations[1 if own is not None else 0:]]
    return entry


def describe_operation(operation: Operation) -> dict[str, Any]:
    """One logged operation as plain data, its ``kind`` first: ``operation.to_json()``
    (each operation says what it did; a lay-off carries its cards and moved wilds).

    >>> from buraco.cards import Card
    >>> from buraco.state import Discarded
    >>> describe_operation(Discarded(2, Card.parse("7h")))
    {'kind': 'discarded', 'seat': 2, 'card': '7h'}
    """
    return operation.to_json()


def entry_text(entry: dict[str, Any]) -> str:
    """What a timeline entry's action did, in one sentence (the CLI's ``show`` prints it).

    >>> entry_text({"ply": 0, "action": None, "operation": None, "automatic": []})
    'the deal'
    >>> entry_text({"ply": 4, "action": "p2 discard 7h", "operation": {"kind": "discarded", "seat": 2, "card": "7h"},
    ...             "automatic": [{"kind": "hand-ended", "seat": 2, "how": "out"}]})
    'ply 4, p2 discard 7h: p2 discarded 7h; the hand ended: p2 went out'
    """
    if entry.get("action") is None:
        return "the deal"
    said = [operation_text(entry["operation"])] if entry.get("operation") else []
    said += [operation_text(op) for op in entry.get("automatic", [])]
    return f"ply {entry['ply']}, {entry['action']}: " + "; ".join(said)


def operation_text(operation: dict[str, Any]) -> str:
    """One described operation (:func:`describe_operation`) as a few words."""
    kind = operation["kind"]
    who = f"p{operation['seat']}" if operation.get("seat") else ""
    if kind == OperationKind.DREW:
        return f"{who} drew {operation['card']}"
    if kind == OperationKind.TOOK:
        cards = operation["cards"]
        return f"{who} took {len(cards)} card{'' if len(cards) == 1 else 's'} from the pile: {' '.join(cards)}"
    if kind == OperationKind.MELDED:
        return f"{who} melded {operation['meld']}: {' '.join(operation['cards'])}"
    if kind == OperationKind.LAID_OFF:
        moved = "".join(f"; {m['card']} moved from {m['from']} to {m['to']}" for m in operation["wild_moved"])
        return f"{who} laid {' '.join(operation['cards']) or 'nothing'} off on {operation['meld']}{moved}"
    if kind == OperationKind.PICKED_DEAD:
        return f"{who} picked up dead pile {operation['pile']} ({operation['count']} cards)"
    if kind == OperationKind.DISCARDED:
        return f"{who} discarded {operation['card']}"
    if kind == OperationKind.DEAD_TO_STOCK:
        piles = operation["piles"]
        return f"the stock ran out: {piles} dead pile{'' if piles == 1 else 's'} ({operation['count']} cards) became the stock"
    if kind == OperationKind.HAND_ENDED:
        return "the hand ended: " + (f"{who} went out" if operation["how"] == "out" else "the stock is exhausted")
    return str(kind)


def try_actions(record: Record, index: int, ply: int, actions: Sequence[str]) -> list[dict[str, Any]]:
    """Play other actions from the table after ``ply`` actions of hand ``index``.

    One result per action applied: ``{"action": text, "entry": ...}`` (the timeline
    entry after it) or, for the first one that cannot be played, ``{"action": text,
    "error": ...}`` (``BuracoError.as_dict()``), after which nothing more is tried.
    Reaching ``ply`` raises as :func:`state_at` does. The record is not changed.

    >>> from buraco.selfplay import play_match
    >>> record = play_match("cerrado", players=2, hands=1, seed=3)
    >>> [r.get("error", {}).get("message") for r in try_actions(record, 0, 0, ["p1 draw", "p1 draw"])]
    [None, 'p1 has already drawn this turn: draw is not possible now']
    """
    return try_from(state_at(record, index, ply), actions, hand=index + 1, ply=ply)


def try_from(state: HandState, actions: Sequence[str], *, hand: int, ply: int) -> list[dict[str, Any]]:
    """:func:`try_actions` from a table already reached (``state``, after ``ply`` actions of
    hand number ``hand``): the service replays one stored hand to it, not the whole record.
    ``state`` is played on."""
    players = state.players
    results: list[dict[str, Any]] = []
    for offset, text in enumerate(actions):
        here: dict[str, Any] = {"hand": hand, "ply": ply + offset + 1, "action": text}
        try:
            action = parse_action(text, players)
            logged = len(state.operations)
            state.apply(action)
        except ActionSyntaxError as error:
            results.append({"action": text, "error": NotationError(error.message, **here).as_dict()})
            break
        except BuracoError as error:
            results.append({"action": text, "error": error.located(**here).as_dict()})
            break
        results.append({"action": text, "entry": timeline_entry(state, text, logged)})
    return results


def state_at(record: Record, index: int, ply: int) -> HandState:
    """The table of hand ``index`` after ``ply`` actions."""
    if not 0 <= ply <= len(record.hands[index].parsed):
        raise ValueError(f"hand {index + 1} has plies 0 to {len(record.hands[index].parsed)}, not {ply}")
    for state in iter_hand(record, index):
        if state.ply == ply:
            return state
    raise AssertionError("unreachable: every ply is yielded")


def _position(error: BuracoError, record: Record, index: int, ply: int | None) -> BuracoError:
    hand = record.hands[index]
    path: tuple[str | int, ...] = ("hands", index)
    action = None
    if ply is not None:
        path = ("hands", index, "actions", ply - 1)
        action = hand.written[ply - 1] if hand.written else hand.actions[ply - 1]
    position = record.position(path)
    return error.located(
        hand=index + 1,
        ply=ply,
        action=action,
        line=position.line if position else None,
        column=position.column if position else None,
    )


@dataclass
class HandReport:
    hand: int
    valid: bool
    finished: bool
    error: BuracoError | None = None
    scores: list[int] | None = None
    parts: list[SideScore] | None = None
    claimed: dict[str, Any] | None = None
    mismatches: list[dict[str, Any]] = field(default_factory=list)
    ended_by: str | None = None
    out_by: int | None = None
    plies: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "hand": self.hand,
            "valid": self.valid,
            "finished": self.finished,
            "scores": self.scores,
            "parts": [p.as_dict() for p in self.parts] if self.parts is not None else None,
            "claimed": self.claimed,
            "mismatches": self.mismatches,
            "ended_by": self.ended_by,
            "out_by": self.out_by,
            "plies": self.plies,
            "error": self.error.as_dict() if self.error else None,
        }


@dataclass
class MatchReport:
    variant: str
    hands: list[HandReport]
    totals: list[int]  # through hand ``totals_through`` only: a hand without a score stops the count
    winner: int | None  # an index into ``sides`` (0-based); the JSON numbers sides from 1
    decided_after: int | None
    sides: tuple[tuple[int, ...], ...]
    players: tuple[str, ...]
    totals_through: int = 0  # the hands (from hand 1) the totals sum; fewer than all after an unscored hand

    @property
    def error(self) -> BuracoError | None:
        return next((h.error for h in self.hands if h.error is not None), None)

    @property
    def valid(self) -> bool:
        """Every hand is legal (claimed scores are judged apart: ``scores_match``)."""
        return self.error is None

    @property
    def scores_match(self) -> bool:
        return all(not h.mismatches for h in self.hands)

    @property
    def ok(self) -> bool:
        return self.valid and self.scores_match

    def winner_dict(self) -> dict[str, Any] | None:
        if self.winner is None:
            return None
        seats = self.sides[self.winner]
        return {
            "side": self.winner + 1,
            "seats": list(seats),
            "players": [self.players[s - 1] for s in seats],
            "after_hand": self.decided_after,
        }

    def as_dict(self) -> dict[str, Any]:
        return {
            "variant": self.variant,
            "valid": self.valid,
            "scores_match": self.scores_match,
            "error": _error_dict(self.error),
            "sides": [list(s) for s in self.sides],
            "hands": [h.as_dict() for h in self.hands],
            "totals": self.totals,
            "totals_through_hand": self.totals_through,
            "winner": self.winner_dict(),
        }


def _error_dict(error: BuracoError | None) -> dict[str, Any] | None:
    if error is None:
        return None
    return {
        "kind": error.kind,
        "hand": error.hand,
        "ply": error.ply,
        "line": error.line,
        "column": error.column,
        "action": error.action,
        "message": error.message,
    }


# How verify replays one hand: the table at its end, or an error placed in the record.
HandReplay = Callable[[Record, int], HandState]


def verify_hand(
    record: Record, index: int, previous_unfinished: int | None = None, replay: HandReplay = replay_hand
) -> HandReport:
    """Replay one hand: legality, score and parts, and the claimed result's differences.
    ``replay``: :func:`replay_hand`, or a function that gives what it gives, raising as it
    raises (the analysis's reads each turn and judges the hand on the way)."""
    hand = record.hands[index]
    report = HandReport(hand=index + 1, valid=True, finished=False)
    if hand.result is not None:
        report.claimed = {"scores": list(hand.result.scores)}
        if hand.result.totals is not None:
            report.claimed["totals"] = list(hand.result.totals)
    if previous_unfinished is not None:
        position = record.position(("hands", index))
        report.valid = False
        report.error = IllegalActionError(
            f"hand {index + 1} follows hand {previous_unfinished}, which is unfinished",
            hand=index + 1,
            line=position.line if position else None,
            column=position.column if position else None,
        )
        return report
    try:
        state = replay(record, index)
    except BuracoError as error:
        report.valid = False
        report.error = error
        report.plies = (error.ply or 1) - 1
        return report
    report.plies = state.ply
    if state.is_over:
        report.finished = True
        report.ended_by = state.ended_by
        report.out_by = state.out_by or None
        report.parts = score_hand(state)
        report.scores = [p.total for p in report.parts]
    return report


def verify(record: Record, *, replay: HandReplay = replay_hand) -> MatchReport:
    """Replay every hand of a record; compare claimed results; find the winner.
    ``replay``: as :func:`verify_hand` takes it."""
    variant: Variant = record.rules
    reports: list[HandReport] = []
    unfinished: int | None = None
    for index in range(len(record.hands)):
        report = verify_hand(record, index, unfinished, replay)
        reports.append(report)
        if report.valid and not report.finished and unfinished is None:
            unfinished = index + 1
    scored: list[list[int] | None] = [r.scores for r in reports]
    sides = record.sides
    first = record.hands[0] if record.hands else None
    starter = (first.dealer % len(record.players) + 1) if first else 1
    starter_side = next(i for i, seats in enumerate(sides) if starter in seats)
    totals, winner, decided = match_winner(variant, record.match_target, scored, starter_side)
    through = next((i for i, r in enumerate(reports) if r.scores is None), len(reports))
    if not through:
        totals = [0] * len(sides)
    _compare_claims(record, reports, len(sides))
    return MatchReport(record.variant, reports, totals, winner, decided, sides, record.players, through)


def _compare_claims(record: Record, reports: list[HandReport], sides: int) -> None:
    """Each claimed result against the computed one (rules.md 4): a hand without
    a score (illegal or unfinished) matches no claimed score, and no total can be
    computed from it on, so claimed totals there are not checkable."""
    running = [0] * sides
    unscored: HandReport | None = None  # the first hand without a score
    for hand, report in zip(record.hands, reports):
        if report.scores is None:
            unscored = unscored or report
        elif unscored is None:
            running = [t + s for t, s in zip(running, report.scores)]
        claimed = hand.result
        if claimed is None:
            continue
        if report.scores is None:
            report.mismatches.append({"field": "scores", "side": None, "claimed": list(claimed.scores), "computed": None,
                                      "message": f"the hand is {_why_unscored(report)}: it has no score"})
        if unscored is not None:
            if claimed.totals is not None:
                report.mismatches.append({
                    "field": "totals", "side": None, "claimed": list(claimed.totals), "computed": None,
                    "message": f"the totals cannot be checked: hand {unscored.hand} is {_why_unscored(unscored)} "
                               "and has no score",
                })
            if report.scores is None:
                continue
        assert report.scores is not None
        for side in range(sides):
            if claimed.scores[side] != report.scores[side]:
                report.mismatches.append(_mismatch("scores", side, claimed.scores[side], report.scores[side]))
            if unscored is None and claimed.totals is not None and claimed.totals[side] != running[side]:
                report.mismatches.append(_mismatch("totals", side, claimed.totals[side], running[side]))


def _why_unscored(report: HandReport) -> str:
    return "illegal" if not report.valid else "unfinished"


def _mismatch(what: str, side: int, claimed: int, computed: int) -> dict[str, Any]:
    """One difference; ``side`` is an index, written 1-based as in the message."""
    return {
        "field": what,
        "side": side + 1,
        "claimed": claimed,
        "computed": computed,
        "message": f"side {side + 1} {what[:-1]}: claimed {claimed}, computed {computed}",
    }


def verify_text(text: str | bytes) -> MatchReport:
    """Read and verify; a NotationError propagates."""
    return verify(loads(text))


def canonical(record: Record) -> Record:
    """The record with every legal meld written low to high, in its layout.

    A wild is written plainly where the order alone says where it stands, and
    with its place named (``2c=6h``) where it would not. Hands are replayed up
    to their first illegal action; melds after it are left as written. Dump the
    result to text before verifying it again (its parsed actions are not redone).
    """
    hands = []
    for index, hand in enumerate(record.hands):
        actions = list(hand.actions)
        try:
            for state in iter_hand(record, index):
                if state.ply and hand.parsed[state.ply - 1].verb == MELD:
                    # The meld's own operation: automatic steps (the hand's end) may follow it.
                    operation = next(op for op in reversed(state.operations) if isinstance(op, Melded))
                    actions[state.ply - 1] = f"p{operation.seat} meld {_meld_text(operation.shape, record.rules)}"
        except BuracoError:
            pass
        hands.append(replace(hand, actions=tuple(actions)))
    return replace(record, hands=tuple(hands))


def _meld_text(shape: Shape, variant: Variant) -> str:
    try:
        if resolve_meld([CardToken(c) for c in shape.cards], variant) == shape:
            return shape.text()
    except BuracoError:
        pass
    return " ".join(str(t) for t in layout_tokens(shape))


__all__ = [
    "HandReport", "MatchReport", "canonical", "deal_hand", "describe_operation", "dumps", "entry_text", "iter_hand", "iter_timeline",
    "operation_text", "replay_hand", "state_at", "timeline", "timeline_entry", "try_actions", "try_from", "verify",
    "verify_hand", "verify_text",
]

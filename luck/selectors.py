"""Reads: a hand's luck (its seats and draws) and a player's over their matches."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from records.models import Job, Match

from .models import DrawLuck, SeatLuck
from .services import LUCK_KIND


def _points(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def luck_status(match: Match) -> dict[str, Any]:
    """The match's luck job: its status ("none" before one is queued) and what it said."""
    job = Job.objects.filter(match=match, kind=LUCK_KIND).values("status", "version", "result").first()
    if job is None:
        return {"status": "none", "version": None, "partial": False}
    result = job["result"] or {}
    return {"status": job["status"], "version": job["version"], "partial": bool(result.get("partial"))}


def hand_luck_answer(match: Match, hand: int) -> dict[str, Any] | None:
    """The hand's luck per seat and per draw; None until the match's luck job is done."""
    if not Job.objects.filter(match=match, kind=LUCK_KIND, status=Job.Status.DONE).exists():
        return None
    rows = list(SeatLuck.objects.filter(match=match, hand=hand).order_by("seat"))
    seats = _seats(rows, list(match.players or []))
    draws = [{
        "ply": d.ply, "seat": d.seat, "card": d.card, "value": d.value, "expected": _points(d.expected),
        "luck": _points(d.luck), "low": d.low, "high": d.high, "unseen": d.unseen, "judged": d.judged,
    } for d in DrawLuck.objects.filter(match=match, hand=hand).order_by("ply")]
    return {
        "luck": _points(sum(row.luck for row in rows)),
        "partial": any(not d["judged"] for d in draws),
        "seats": seats,
        "draws": draws,
    }


def _seats(rows: Sequence[SeatLuck], players: list[str]) -> list[dict[str, Any]]:
    """A hand's seats' luck (``rows``, by seat), each with the side's luck-adjusted score."""
    side_luck: dict[int, float] = defaultdict(float)
    for row in rows:
        side_luck[row.side] += row.luck
    return [{
        "seat": row.seat, "player": players[row.seat - 1] if 0 < row.seat <= len(players) else None,
        "side": row.side, "luck": _points(row.luck), "draws": row.draws, "unsearched": row.unsearched,
        "score": row.score, "adjusted": _points(row.score - side_luck[row.side]),
    } for row in rows]


def match_luck(match: Match) -> dict[int, dict[str, Any]]:
    """For the match page, per hand number: its seats' luck (as :func:`hand_luck_answer`'s),
    the hand's luck, and whether a draw of it was not judged; {} until the match's luck job
    is done. Two queries, however many hands."""
    if not Job.objects.filter(match=match, kind=LUCK_KIND, status=Job.Status.DONE).exists():
        return {}
    by_hand: dict[int, list[SeatLuck]] = defaultdict(list)
    for row in SeatLuck.objects.filter(match=match).order_by("hand", "seat"):
        by_hand[row.hand].append(row)
    players = list(match.players or [])
    return {hand: {"seats": _seats(rows, players), "luck": _points(sum(row.luck for row in rows)),
                   "partial": any(row.unsearched for row in rows)} for hand, rows in by_hand.items()}


def player_luck(name: str, seats: Sequence[tuple[int, int]]) -> dict[str, Any] | None:
    """Over the player's ``(match id, seat)``: the luck of their draws, their side's score,
    the side's luck and the luck-adjusted result (score minus the side's luck), over the
    hands whose luck was judged; None when none was."""
    wanted = {match_id: seat for match_id, seat in seats}
    if not wanted:
        return None
    rows = list(SeatLuck.objects.filter(match_id__in=wanted).values_list("match_id", "hand", "seat", "side", "luck",
                                                                        "score", "draws", "unsearched"))
    if not rows:
        return None
    my_side = {(m, h): side for m, h, seat, side, *_ in rows if wanted.get(m) == seat}
    luck = side_luck = 0.0
    score = draws = unsearched = 0
    for match_id, hand, seat, side, value, points, judged, cut in rows:
        if my_side.get((match_id, hand)) != side:
            continue
        side_luck += value
        if seat == wanted[match_id]:
            luck += value
            score += points
            draws += judged
            unsearched += cut
    return {
        "luck": round(luck, 2), "hands": len(my_side), "draws": draws, "unsearched": unsearched,
        "score": score, "side_luck": round(side_luck, 2), "adjusted": round(score - side_luck, 2),
    }

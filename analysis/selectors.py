"""Reads: a match's findings (filtered), and a player's summary over the matches one may read."""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Q, QuerySet

from buraco.analysis import KINDS, SCORING_MISTAKE
from buraco.analysis.slips import HAND_NOT_SCORABLE
from records.models import Hand, Job, Match
from records.selectors import visible_matches

from .models import Finding


def worth(min_points: int) -> Q:
    """As ``buraco.analysis.analyze(min_points=...)``: findings worth at least ``min_points``;
    those without points only when ``min_points`` is 0 (or less)."""
    enough = Q(points__gte=min_points)
    return enough | Q(points__isnull=True) if min_points <= 0 else enough


def findings_of(
    *, match: Match, hand: int | None = None, kind: str | None = None, min_points: int = 0
) -> QuerySet[Finding]:
    """The match's stored findings in the engine's order (hand, ply, side, kind)."""
    findings = Finding.objects.filter(match=match).filter(worth(min_points))
    if hand is not None:
        findings = findings.filter(hand=hand)
    if kind:
        findings = findings.filter(kind=kind)
    return findings.order_by("id")


def findings_by_hand(*, match: Match, min_points: int = 0) -> dict[int, dict[str, list[Finding]]]:
    """For the match page: each hand's findings grouped by kind, kinds in the engine's order."""
    grouped: dict[int, dict[str, list[Finding]]] = {}
    for finding in findings_of(match=match, min_points=min_points):
        grouped.setdefault(finding.hand, {}).setdefault(finding.kind, []).append(finding)
    order = {kind: i for i, kind in enumerate(KINDS)}
    return {
        hand: dict(sorted(kinds.items(), key=lambda item: order.get(item[0], len(order))))
        for hand, kinds in grouped.items()
    }


def seat_of(players: list[str], name: str) -> int | None:
    """The 1-based seat of ``name`` (compared without case) among a match's players."""
    lowered = name.lower()
    return next((i for i, player in enumerate(players, start=1) if str(player).lower() == lowered), None)


def side_of(sides: list[list[int]] | None, seat: int) -> int | None:
    """The 1-based side holding ``seat``."""
    return next((i for i, seats in enumerate(sides or [], start=1) if seat in seats), None)


def turns_of(actions: list[str], seat: int) -> int:
    """A player's turns in one hand: their draws and takes of the pile."""
    me = f"p{seat}"
    count = 0
    for action in actions:
        words = action.split(None, 2)
        if len(words) >= 2 and words[0] == me and words[1] in ("draw", "take"):
            count += 1
    return count


def player_summary(*, user: User | AnonymousUser, name: str) -> dict[str, Any] | None:
    """A player's findings per 100 turns by kind, and the points at stake, over the analysed
    matches this user may read; None when the user may read no match of that player.

    A finding is the player's when it is about their seat, or (a scoring mistake, which has
    no seat) about their side. A claim on a hand that has no score (``hand-not-scorable``) is
    no mistake of theirs: not counted. A game stored more than once (uploaded by two players,
    or a review's export uploaded by another account: one ``Match.game_key``) counts once.
    """
    candidates = visible_matches(user=user).filter(player_names__icontains=name.lower())
    seats: dict[int, tuple[int, int | None]] = {}
    games: dict[int, str] = {}
    for match_id, players, sides, game in candidates.values_list("pk", "players", "sides", "game_key"):
        seat = seat_of(list(players or []), name)
        if seat is not None:
            seats[match_id] = (seat, side_of(sides, seat))
            games[match_id] = game or f"match-{match_id}"
    if not seats:
        return None
    done = set(
        Job.objects.filter(match_id__in=seats, kind=Job.Kind.ANALYZE, status=Job.Status.DONE)
        .values_list("match_id", flat=True)
    )
    # One match per game: an analysed one if any is, the first stored otherwise.
    chosen: dict[str, int] = {}
    for match_id in sorted(seats, key=lambda m: (m not in done, m)):
        chosen.setdefault(games[match_id], match_id)
    seats = {match_id: seats[match_id] for match_id in chosen.values()}
    analysed = done & set(seats)
    turns = sum(
        turns_of(list(actions or []), seats[match_id][0])
        for match_id, actions in Hand.objects.filter(match_id__in=analysed).values_list("match_id", "actions")
    )
    hands = Hand.objects.filter(match_id__in=analysed).count()
    counts: Counter[str] = Counter()
    points: Counter[str] = Counter()
    rows = (
        Finding.objects.filter(match_id__in=analysed).exclude(kind=SCORING_MISTAKE, cause=HAND_NOT_SCORABLE)
        .values_list("match_id", "seat", "side", "kind", "points")
    )
    for match_id, seat, side, kind, stake in rows:
        my_seat, my_side = seats[match_id]
        if seat == my_seat or (seat is None and side == my_side):
            counts[kind] += 1
            points[kind] += stake or 0

    def per_100(n: int) -> float | None:
        return round(100 * n / turns, 2) if turns else None

    kinds = [*KINDS, *sorted(k for k in counts if k not in KINDS)]
    total = sum(counts.values())
    return {
        "player": name,
        "matches": len(seats),
        "analysed_matches": len(analysed),
        "hands": hands,
        "turns": turns,
        "findings": total,
        "findings_per_100_turns": per_100(total),
        "points_at_stake": sum(points.values()),
        "by_kind": {
            kind: {"findings": counts[kind], "per_100_turns": per_100(counts[kind]), "points": points[kind]}
            for kind in kinds
        },
    }

"""Reads: a match's findings (filtered), the findings explorer over every match one may read,
and a player's summary over them."""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Exists, OuterRef, Q, QuerySet

from buraco.analysis import KINDS, SCORING_MISTAKE, SEVERITIES
from buraco.analysis.slips import HAND_NOT_SCORABLE
from records.models import Hand, Job, Match
from records.selectors import visible_matches

from .filters import FindingFilter
from .models import FINDING_FIELDS, Finding


def worth(min_points: int) -> Q:
    """As ``buraco.analysis.analyze(min_points=...)``: findings worth at least ``min_points``;
    those without points only when ``min_points`` is 0 (or less)."""
    enough = Q(points__gte=min_points)
    return enough | Q(points__isnull=True) if min_points <= 0 else enough


def at_least(severity: str) -> list[str]:
    """The severities at least as grave as ``severity`` (buraco.analysis.SEVERITIES, mildest first)."""
    return list(SEVERITIES[SEVERITIES.index(severity):])


def findings_of(
    *, match: Match, hand: int | None = None, kind: str | None = None, min_points: int = 0,
    severity: str | None = None, outcome: str | None = None,
) -> QuerySet[Finding]:
    """The match's stored findings in the engine's order (hand, ply, side, kind): of one hand,
    one kind, ``severity`` or graver, one ``outcome``, worth ``min_points`` or more."""
    findings = Finding.objects.filter(match=match).filter(worth(min_points))
    if hand is not None:
        findings = findings.filter(hand=hand)
    if kind:
        findings = findings.filter(kind=kind)
    if severity:
        findings = findings.filter(severity__in=at_least(severity))
    if outcome:
        findings = findings.filter(outcome=outcome)
    return findings.order_by("id")


def explore_findings(
    *, user: User | AnonymousUser, filters: FindingFilter | None = None, ordering: tuple[str, ...] = ("-points", "-id")
) -> QuerySet[Finding]:
    """Every finding of the analysed matches ``user`` may read, filtered by ``filters`` (a
    bound, valid :class:`~analysis.filters.FindingFilter`), in ``ordering``, each with the
    few match columns a row shows.

    A game stored more than once (two players uploaded it: one ``Match.game_key``) is listed
    once: from the first of its stored matches that the user may read and that is analysed.
    """
    readable = visible_matches(user=user)
    analysed = Job.objects.filter(match=OuterRef("pk"), kind=Job.Kind.ANALYZE, status=Job.Status.DONE)
    earlier_copy = readable.filter(
        game_key=OuterRef("game_key"), pk__lt=OuterRef("pk"),
        jobs__kind=Job.Kind.ANALYZE, jobs__status=Job.Status.DONE,
    ).exclude(game_key="")
    matches = readable.filter(Exists(analysed)).exclude(Exists(earlier_copy))
    findings = Finding.objects.filter(match__in=matches.values("pk"))
    if filters is not None:
        findings = filters.filter_queryset(findings)
    return (
        findings.select_related("match")
        .only(*FINDING_FIELDS, "match__id", "match__variant", "match__players", "match__created_at",
              "match__played_on", "match__filename", "match__sides")
        .order_by(*ordering)
    )


KEY_MOMENTS = 3  # per hand, on the match page: the findings with the most points at stake


def findings_by_hand(
    *, match: Match, min_points: int = 0, severity: str | None = None
) -> dict[int, dict[str, Any]]:
    """For the match page, per hand: ``count`` and ``all`` findings, the ``key`` moments (the KEY_MOMENTS findings
    with the most points at stake, graver first on a tie, in play order) and the rest
    ``groups``-ed by kind, kinds in the engine's order."""
    per_hand: dict[int, list[Finding]] = {}
    for finding in findings_of(match=match, min_points=min_points, severity=severity):
        per_hand.setdefault(finding.hand, []).append(finding)
    rank = {name: i for i, name in enumerate(SEVERITIES)}
    order = {kind: i for i, kind in enumerate(KINDS)}
    shown: dict[int, dict[str, Any]] = {}
    for hand, findings in per_hand.items():
        weighed = sorted(
            findings, key=lambda f: (-(f.points or 0), -rank.get(f.severity or "", -1), f.ply or 0, f.pk)
        )
        key = sorted(weighed[:KEY_MOMENTS], key=lambda f: (f.ply or 0, f.pk))
        groups: dict[str, list[Finding]] = {}
        for finding in findings:
            if finding not in key:
                groups.setdefault(finding.kind, []).append(finding)
        shown[hand] = {
            "count": len(findings),
            "all": findings,
            "key": key,
            "groups": dict(sorted(groups.items(), key=lambda item: order.get(item[0], len(order)))),
        }
    return shown


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

"""A player across their games (the player page and GET /api/players/{name}/): their figures
over the analysed matches the viewer may read, each beside the same figure over every player
of those matches (the median, and where the player stands: their percentile).

A match counts for a player when they hold a seat in it; their turns are their draws and
takes, their findings those about their seat (or, a scoring mistake, their side), a claim on
a hand without a score (``hand-not-scorable``) not counted. A game stored more than once
counts once (its first stored match), as in the summary and the explorer.
"""

from __future__ import annotations

import datetime as dt
import statistics
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import AnonymousUser, User

from buraco.analysis import KINDS, SCORING_MISTAKE, SEVERITIES
from buraco.analysis.slips import HAND_NOT_SCORABLE
from records.models import Hand, Job
from records.selectors import visible_matches

from .extras import player_extras
from .models import Finding, whose_players
from .selectors import seat_of, side_of, turns_of

FIGURES = ("findings_per_100_turns", "points_lost_per_hand")  # lower is better, for both
PLAYER_EXTRA_KEYS = ("luck",)  # added by an app above analysis (analysis.extras): null until it answers


@dataclass
class Tally:
    """What one player did in some matches: turns, hands, findings by kind and severity, points."""

    turns: int = 0
    hands: int = 0
    points: int = 0
    by_kind: Counter[str] = field(default_factory=Counter)
    by_severity: Counter[str] = field(default_factory=Counter)

    def add(self, other: Tally) -> None:
        self.turns += other.turns
        self.hands += other.hands
        self.points += other.points
        self.by_kind.update(other.by_kind)
        self.by_severity.update(other.by_severity)

    def per_100_turns(self, count: int) -> float | None:
        return round(100 * count / self.turns, 2) if self.turns else None

    def figures(self) -> dict[str, float | None]:
        return {
            "findings_per_100_turns": self.per_100_turns(sum(self.by_kind.values())),
            "points_lost_per_hand": round(self.points / self.hands, 2) if self.hands else None,
        }


def percentile(value: float, others: list[float]) -> float:
    """Where ``value`` stands among ``others`` (the player's own included): the share below
    it, ties counted half, in percent.

    >>> percentile(2.0, [1.0, 2.0, 3.0, 4.0])
    37.5
    """
    below = sum(1 for o in others if o < value)
    equal = sum(1 for o in others if o == value)
    return round(100 * (below + equal / 2) / len(others), 1)


def beside_site(mine: float | None, everyone: list[float | None]) -> dict[str, float | None]:
    """A figure's ``median`` over every player (those who have it) and ``mine``'s ``percentile``.

    >>> beside_site(2.0, [1.0, 2.0, 3.0, None])
    {'median': 2.0, 'percentile': 50.0}
    """
    values = [v for v in everyone if v is not None]
    return {
        "median": round(statistics.median(values), 2) if values else None,
        "percentile": percentile(mine, values) if values and mine is not None else None,
    }


@dataclass(frozen=True)
class PlayerFilters:
    """The player page's filters: a rule set, an upload date range, and (the player's only)
    an opponent, a name on another side."""

    variant: str | None = None
    date_from: dt.date | None = None
    date_to: dt.date | None = None
    opponent: str | None = None


def _analysed_matches(user: User | AnonymousUser, filters: PlayerFilters) -> list[dict[str, Any]]:
    matches = visible_matches(user=user).filter(
        pk__in=Job.objects.filter(kind=Job.Kind.ANALYZE, status=Job.Status.DONE).values("match_id")
    )
    if filters.variant:
        matches = matches.filter(variant=filters.variant)
    if filters.date_from:
        matches = matches.filter(created_at__date__gte=filters.date_from)
    if filters.date_to:
        matches = matches.filter(created_at__date__lte=filters.date_to)
    rows = list(matches.order_by("pk").values("pk", "players", "sides", "game_key", "variant", "created_at",
                                              "played_on"))
    seen: set[str] = set()
    kept: list[dict[str, Any]] = []
    for row in rows:  # one match per game: the first stored
        game = row["game_key"] or f"match-{row['pk']}"
        if game not in seen:
            seen.add(game)
            kept.append(dict(row))
    return kept


def _tallies(matches: list[dict[str, Any]]) -> dict[tuple[int, str], Tally]:
    """Per (match, player's lower-cased name): their tally in that match."""
    tallies: dict[tuple[int, str], Tally] = defaultdict(Tally)
    by_id = {row["pk"]: row for row in matches}
    for match_id, actions in Hand.objects.filter(match_id__in=by_id).values_list("match_id", "actions"):
        for seat, name in enumerate(by_id[match_id]["players"] or [], start=1):
            tally = tallies[(match_id, str(name).lower())]
            tally.turns += turns_of(list(actions or []), seat)
            tally.hands += 1
    found = (
        Finding.objects.filter(match_id__in=by_id).exclude(kind=SCORING_MISTAKE, cause=HAND_NOT_SCORABLE)
        .values_list("match_id", "seat", "side", "kind", "severity", "points")
    )
    for match_id, about_seat, side, kind, severity, stake in found:
        row = by_id[match_id]
        for name in whose_players(list(row["players"] or []), row["sides"], about_seat, side):
            tally = tallies[(match_id, name.lower())]
            tally.by_kind[kind] += 1
            if severity:
                tally.by_severity[severity] += 1
            tally.points += stake or 0
    return tallies


def player_page(*, user: User | AnonymousUser, name: str, filters: PlayerFilters = PlayerFilters()) -> dict[str, Any] | None:
    """The player's figures, their matches and their figures over time, beside the site's;
    None when the viewer may read no analysed match of that player."""
    wanted = name.lower()
    matches = _analysed_matches(user, PlayerFilters(filters.variant, filters.date_from, filters.date_to))
    tallies = _tallies(matches)
    everyone: dict[str, Tally] = defaultdict(Tally)
    for (_, who), tally in tallies.items():
        everyone[who].add(tally)
    mine = []
    for row in matches:
        seat = seat_of(list(row["players"] or []), name)
        if seat is None:
            continue
        mine_side = side_of(row["sides"], seat)
        opponents = [str(p) for s, p in enumerate(row["players"] or [], start=1) if side_of(row["sides"], s) != mine_side]
        if filters.opponent and filters.opponent.lower() not in (o.lower() for o in opponents):
            continue
        mine.append((row, seat, opponents))
    if not mine:
        return None
    total = Tally()
    over_time = []
    for row, seat, opponents in mine:
        tally = tallies[(row["pk"], wanted)]
        total.add(tally)
        over_time.append({
            "match": row["pk"], "variant": row["variant"], "uploaded_at": row["created_at"],
            "played_on": row["played_on"], "seat": seat, "opponents": opponents,
            "hands": tally.hands, "turns": tally.turns, "findings": sum(tally.by_kind.values()),
            **tally.figures(),
        })
    figures = total.figures()
    site: dict[str, Any] = {"players": len(everyone)}
    for figure in FIGURES:
        site[figure] = beside_site(figures[figure], [t.figures()[figure] for t in everyone.values()])
    kinds = [*KINDS, *sorted(k for k in total.by_kind if k not in KINDS)]

    def counted(of: str, counts: Callable[[Tally], Counter[str]]) -> dict[str, Any]:
        """A kind's (or severity's) count and rate, beside every player's rate of it."""
        rate = total.per_100_turns(counts(total)[of])
        return {"findings": counts(total)[of], "per_100_turns": rate,
                "site": beside_site(rate, [t.per_100_turns(counts(t)[of]) for t in everyone.values()])}
    return {
        "player": name,
        "matches": len(mine),
        "hands": total.hands,
        "turns": total.turns,
        "findings": sum(total.by_kind.values()),
        "points_lost": total.points,
        **figures,
        "by_kind": {kind: counted(kind, lambda t: t.by_kind) for kind in kinds},
        "by_severity": {severity: counted(severity, lambda t: t.by_severity) for severity in SEVERITIES},
        "site": site,
        "over_time": over_time,
        **player_extras(name, [(row["pk"], seat) for row, seat, _ in mine], PLAYER_EXTRA_KEYS),
    }


def chart_points(over_time: list[dict[str, Any]], figure: str, width: int = 600, height: int = 160) -> dict[str, Any]:
    """An SVG line of ``figure`` over the player's matches in upload order, in a box of
    ``width`` x ``height`` (the page draws it: no script, nothing fetched).

    >>> chart_points([{"match": 1, "points_lost_per_hand": 10}, {"match": 2, "points_lost_per_hand": 30}],
    ...              "points_lost_per_hand", width=100, height=50)["points"]
    '20.0,31.7 80.0,5.0'
    """
    values = [(row["match"], row.get(figure)) for row in over_time]
    shown = [(m, v) for m, v in values if v is not None]
    pad = 20.0 if width > 50 else 0.0
    top = max((v for _, v in shown), default=0) or 1
    step = (width - 2 * pad) / max(len(shown) - 1, 1)
    dots = [(pad + i * step if len(shown) > 1 else width / 2, height - 5 - (height - 10) * v / top, m, v)
            for i, (m, v) in enumerate(shown)]
    return {
        "width": width, "height": height, "top": top,
        "points": " ".join(f"{x:.1f},{y:.1f}" for x, y, _, _ in dots),
        "dots": [{"x": round(x, 1), "y": round(y, 1), "match": m, "value": v} for x, y, m, v in dots],
    }


__all__ = ["FIGURES", "PlayerFilters", "Tally", "chart_points", "percentile", "player_page"]

"""The findings explorer and the player page on PostgreSQL (docs/benchmarks.md, "Explorer"):
``--findings`` stored findings over ``--matches`` analysed matches of one owner (rows made
directly, as the analysis stores them: what is measured is the read, not the analysis), then
the server's CPU per request of GET /api/findings/ with several filters and orderings, of its
CSV export and of GET /api/players/{name}/, in process; and the query plans PostgreSQL chose.

    .venv/bin/python bench/explorer.py [--findings 10000] [--matches 200] [--repeat 20]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(1, str(ROOT))

from bench.harness import database_url, manage, reset_database, service_env, setup_django  # noqa: E402

DATABASE = "buraco_bench_explorer"
PLAYERS = ["Ana", "Bo", "Cy", "Di", "Eli", "Fay", "Gus", "Hal"]
QUERIES = {
    "default (-points), page 1": {},
    "player": {"player": "ana"},
    "player + severity mistake": {"player": "ana", "severity": "mistake"},
    "kind + variant + min_points": {"kind": "missed-canasta", "variant": "cerrado", "min_points": 100},
    "ordering -date, page 20": {"ordering": "-date", "page": 20},
}


def populate(findings: int, matches: int, seed: int) -> None:
    from django.contrib.auth.models import User

    from analysis.models import Finding, whose
    from buraco.analysis import KINDS, OUTCOMES, SEVERITIES
    from buraco.rules import VARIANTS
    from records.models import Hand, Job, Match

    rng = random.Random(seed)
    owner = User.objects.create_user("bench", password="bench-explorer-1")
    made = []
    for number in range(matches):
        players = rng.sample(PLAYERS, 2)
        made.append(Match(owner=owner, source=b"", sha256=f"{number:064x}", game_key=f"{number:064x}",
                          variant=rng.choice(list(VARIANTS)), players=players,
                          player_names="\n".join(p.lower() for p in players), sides=[[1], [2]], hand_count=4))
    Match.objects.bulk_create(made)
    Job.objects.bulk_create(Job(match=m, kind=Job.Kind.ANALYZE, status=Job.Status.DONE, queue="analysis") for m in made)
    Hand.objects.bulk_create(Hand(match=m, number=n, dealer=1, actions=["p1 draw", "p1 discard 3c", "p2 draw"] * 30)
                             for m in made for n in range(1, 5))
    rows = []
    for index in range(findings):
        match = made[index % matches]
        seat = rng.choice([1, 2, None])
        side = seat or rng.choice([1, 2])
        kind = rng.choice(list(KINDS))
        rows.append(Finding(
            match=match, hand=rng.randint(1, 4), ply=None if seat is None else rng.randint(1, 90), seat=seat,
            side=side, kind=kind, points=rng.choice([10, 20, 50, 100, 200, 300]), message=f"finding {index}",
            witness=["p1 draw", "p1 discard 3c"], version="2", severity=rng.choice(list(SEVERITIES)),
            outcome=rng.choice(list(OUTCOMES)) if kind.startswith("missed") else None,
            players=whose(match.players, match.sides, seat, side),
        ))
    Finding.objects.bulk_create(rows, batch_size=2000)


def cpu_ms(call: Any, repeat: int) -> tuple[float, float]:
    """The median and the highest CPU time of ``call`` in this process, in milliseconds."""
    spent = []
    for _ in range(repeat):
        start = time.process_time()
        call()
        spent.append(1000 * (time.process_time() - start))
    return statistics.median(spent), max(spent)


def plans() -> list[tuple[str, str]]:
    """EXPLAIN ANALYZE of the explorer's two queries (the count and a page), player filter."""
    from django.contrib.auth.models import User
    from django.db import connection

    from analysis.filters import FindingFilter
    from analysis.selectors import explore_findings

    owner = User.objects.get(username="bench")
    findings = explore_findings(user=owner, filters=_valid(FindingFilter({"player": "ana"})))
    shown = []
    for name, queryset in (("page (player=ana, -points, 50 rows)", findings[:50]),):
        shown.append((name, queryset.explain(analyze=True)))
    sql, params = findings.order_by().values("pk").query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN ANALYZE SELECT COUNT(*) FROM ({sql}) AS counted", params)
        shown.append(("count (player=ana)", "\n".join(row[0] for row in cursor.fetchall())))
    return shown


def _valid(filters: Any) -> Any:
    assert filters.is_valid(), filters.errors
    return filters


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--findings", type=int, default=10_000)
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--seed", type=int, default=16)
    options = parser.parse_args()
    version = reset_database(DATABASE)
    env = service_env(database_url(DATABASE), debug=False, settings={"ALLOWED_HOSTS": "testserver"})
    manage("migrate", "--noinput", env=env)
    setup_django(env)
    populate(options.findings, options.matches, options.seed)

    from django.contrib.auth.models import User
    from django.db import connection
    from rest_framework.test import APIClient
    client = APIClient()
    client.force_authenticate(User.objects.get(username="bench"))
    print(f"PostgreSQL {version}; {options.findings} findings over {options.matches} matches; "
          f"CPU of this process per request (median / max of {options.repeat})")
    for name, query in QUERIES.items():
        def call(query: dict[str, Any] = query) -> None:
            response = client.get("/api/findings/", query)
            assert response.status_code == 200, response.content[:200]
        median, worst = cpu_ms(call, options.repeat)
        count = client.get("/api/findings/", query).json()["count"]
        print(f"  GET /api/findings/ {name:32} {median:6.1f} / {worst:6.1f} ms  ({count} rows match)")
    for name, url, query in (("CSV export, player=ana", "/api/findings/export/", {"player": "ana"}),
                             ("GET /api/players/ana/", "/api/players/ana/", {})):
        def fetch(url: str = url, query: dict[str, Any] = query) -> None:
            response = client.get(url, query)
            body = b"".join(response.streaming_content) if response.streaming else response.content
            assert response.status_code == 200 and body
        median, worst = cpu_ms(fetch, max(3, options.repeat // 4))
        print(f"  {name:51} {median:6.1f} / {worst:6.1f} ms")
    connection.ensure_connection()
    for name, plan in plans():
        print(f"\nplan: {name}\n{plan}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

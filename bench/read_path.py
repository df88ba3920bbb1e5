"""The timeline's read path against a bare Django view (docs/benchmarks.md, "Read path"): the
CPU of one request for a stored 150-ply timeline through the whole stack (middleware, the
token, the permission check, the stored bytes), beside a bare view that sends the same bytes
and checks nothing, both through Django's test client in one process on PostgreSQL.

    .venv/bin/python bench/read_path.py [--requests 2000] [--plies 150]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(1, str(ROOT))

from bench.harness import database_url, manage, reset_database, service_env, setup_django  # noqa: E402

DATABASE = "buraco_bench_read"
STORED: dict[str, bytes] = {}


def bare_view(request: Any) -> Any:
    """What the floor is: the stored bytes, with the same headers, nothing checked."""
    from django.http import HttpResponse

    response = HttpResponse(STORED["gzipped"], content_type="application/json")
    response["Content-Encoding"] = "gzip"
    response["ETag"] = '"bare"'
    response["Cache-Control"] = "private, no-cache"
    response["Vary"] = "Accept-Encoding"
    return response


def bare_database_view(request: Any, hand_id: int) -> Any:
    """The floor with the stored bytes read from the database: one query by the row's key."""
    from django.http import HttpResponse

    from records.models import Hand

    gzipped = Hand.objects.filter(pk=hand_id).values_list("timeline", flat=True).first()
    response = HttpResponse(bytes(gzipped or b""), content_type="application/json")
    response["Content-Encoding"] = "gzip"
    response["ETag"] = '"bare"'
    response["Cache-Control"] = "private, no-cache"
    response["Vary"] = "Accept-Encoding"
    return response


def urlpatterns_with_bare() -> list[Any]:
    from django.urls import path

    from buraco_site.urls import urlpatterns

    return [path("bare/timeline/", bare_view), path("bare/stored/<int:hand_id>/", bare_database_view), *urlpatterns]


def seed(plies: int) -> tuple[int, int, str]:
    """A public match of one user, its hand closest to ``plies`` actions; its timeline stored."""
    from django.contrib.auth.models import User
    from rest_framework.authtoken.models import Token

    from buraco.notation import dumps
    from buraco.selfplay import play_match
    from records import selectors, services

    owner = User.objects.create_user("reader", password="bench-read-path-1")
    token = Token.objects.create(user=owner).key
    best: tuple[int, int, int] | None = None
    for seed_number in range(12):
        record = play_match("cerrado", players=2, hands=3, seed=seed_number)
        result = services.upload_create(owner=owner, files=[services.UploadedFile(f"m{seed_number}.brn",
                                                                                  dumps(record).encode())],
                                        visibility="public")
        match_id = result.matches[0].pk
        for number, hand in enumerate(record.hands, start=1):
            gap = abs(len(hand.actions) - plies)
            if best is None or gap < best[0]:
                best = (gap, match_id, number)
    assert best is not None
    _, match_id, number = best
    from records.models import Match

    STORED["gzipped"] = selectors.hand_timeline(match=Match.objects.get(pk=match_id), number=number).gzipped
    return match_id, number, token


def cpu_per_request(client: Any, url: str, requests: int, **headers: str) -> list[float]:
    spent = []
    for _ in range(requests):
        start = time.process_time()
        response = client.get(url, **headers)
        spent.append(1000 * (time.process_time() - start))
        assert response.status_code == 200, (url, response.status_code)
    return spent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--plies", type=int, default=150)
    options = parser.parse_args()
    reset_database(DATABASE)
    env = service_env(database_url(DATABASE), debug=False,
                      settings={"ALLOWED_HOSTS": "testserver", "EMBEDDED_JOBS": "inline"})
    manage("migrate", "--noinput", env=env)
    setup_django(env)
    match_id, number, token = seed(options.plies)

    from django.test import Client, override_settings

    module = type(sys)("bench_read_urls")
    module.urlpatterns = urlpatterns_with_bare()  # type: ignore[attr-defined]
    sys.modules["bench_read_urls"] = module
    url = f"/api/matches/{match_id}/hands/{number}/timeline/"
    from records.models import Hand

    hand_id = Hand.objects.get(match_id=match_id, number=number).pk
    with override_settings(ROOT_URLCONF="bench_read_urls"):
        client = Client(HTTP_ACCEPT_ENCODING="gzip")
        rows = {
            "bare view (same bytes, no checks)": ("/bare/timeline/", {}),
            "bare view reading them (one query)": (f"/bare/stored/{hand_id}/", {}),
            "timeline, anonymous (public match)": (url, {}),
            "timeline, token": (url, {"HTTP_AUTHORIZATION": f"Token {token}"}),
        }
        for path, headers in rows.values():
            cpu_per_request(client, path, 100, **headers)  # warm-up
        results = {what: cpu_per_request(client, path, options.requests, **headers)
                   for what, (path, headers) in rows.items()}
    floor = statistics.median(results["bare view reading them (one query)"])
    print(f"{len(STORED['gzipped'])} bytes gzipped; CPU per request over {options.requests} requests")
    for what, spent in results.items():
        spent.sort()
        median = statistics.median(spent)
        p99 = spent[int(0.99 * len(spent)) - 1]
        print(f"  {what:38} median {median:6.3f} ms  p99 {p99:6.3f} ms  {median / floor:5.2f}x the bare view reading them")
    return 0


if __name__ == "__main__":
    sys.exit(main())

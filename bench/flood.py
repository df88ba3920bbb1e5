"""The second outside probe's flood, measured (docs/benchmarks.md, "Flood"): one legal record
of 200 hands with 500 notes each (100,000 comments once stored), then what one view of a
replay page sends and costs, and what one POST .../try/ costs, in process.

The match is stored as one stored before the comment cap existed would be (the cap is
lifted for the upload): today's upload refuses such a record, but a database may hold one.
Run it on another checkout to compare (``--root`` of an older commit's worktree); it needs
only what that checkout's service offers at these URLs.

    .venv/bin/python bench/flood.py [--hands 200 --notes 500] [--views 5] [--root PATH]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, sys.path[0] is bench/; the harness sits one level up. The engine and the
# service are imported from --root, put first on the path in main().
sys.path.insert(1, str(ROOT))

from bench.harness import service_env, setup_django  # noqa: E402 - after the path above

T = TypeVar("T")


def flood_record(hands: int, notes: int, seed: int) -> str:
    """A self-play match of ``hands`` hands, each with ``notes`` notes spread over its plies."""
    from buraco.notation import Note, dumps
    from buraco.selfplay import play_match

    record = play_match("cerrado", players=2, hands=hands, seed=seed)
    noted = []
    for number, hand in enumerate(record.hands, start=1):
        plies = max(1, len(hand.actions))
        noted.append(replace(hand, notes=tuple(
            Note(n % (plies + 1), f"annotator-{n % 7}", f"hand {number}, note {n}: keep the sevens", "mistake")
            for n in range(notes)
        )))
    return dumps(replace(record, hands=tuple(noted)))


def cpu(work: Callable[[], T]) -> tuple[float, T]:
    """CPU seconds of this process (web and database together) doing ``work``, and its result."""
    start = time.process_time()
    result = work()
    return time.process_time() - start, result


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=200)
    parser.add_argument("--notes", type=int, default=500)
    parser.add_argument("--views", type=int, default=5, help="page views and tries timed (median reported)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose service is measured")
    return parser.parse_args()


def start_service(root: Path) -> None:
    """``root``'s service in this process on a scratch SQLite database, jobs run inline, with the
    comment cap and the rate limits lifted (a match stored before the cap; tries timed back to back)."""
    sys.path.insert(0, str(root))
    os.chdir(root)
    scratch = tempfile.mkdtemp(prefix="flood-")
    setup_django(service_env(f"sqlite:///{scratch}/db.sqlite3", debug=None))  # DEBUG as the caller has it
    from django.conf import settings
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    settings.ALLOWED_HOSTS = ["testserver"]
    settings.BURACO_MAX_COMMENTS_PER_MATCH = 10**9  # a match stored before the cap
    settings.BURACO_THROTTLE_RATES = {scope: None for scope in getattr(settings, "BURACO_THROTTLE_RATES", {})}


def logged_in_client() -> Any:
    from django.contrib.auth.models import User
    from django.test import Client

    owner = User.objects.create_user("flood", password="flood-pw-123456")
    client = Client()
    client.force_login(owner)
    return client


def store(client: Any, text: str) -> tuple[float, int, int]:
    """The record uploaded: the upload's CPU seconds, the match's id and the comments stored."""
    upload_cpu, answer = cpu(lambda: client.post("/api/matches/", data=text.encode(), content_type="application/toml"))
    assert answer.status_code == 202, answer.content[:300]
    match_id = int(answer.json()["id"])
    from reviews.models import Comment

    return upload_cpu, match_id, Comment.objects.filter(review__match_id=match_id).count()


def page_views(client: Any, match_id: int, views: int) -> tuple[int, list[float]]:
    """The replay page of hand 1 viewed ``views`` times: its size and each view's CPU seconds."""
    page_url = f"/matches/{match_id}/hands/1/replay/"
    client.get(page_url)  # one view first: the process's template and URL caches
    timed = [cpu(lambda: client.get(page_url)) for _ in range(views)]
    assert all(response.status_code == 200 for _, response in timed)
    return len(timed[0][1].content), [seconds for seconds, _ in timed]


def tries(client: Any, match_id: int, hand: int, views: int) -> tuple[int, list[float]]:
    """``views`` tries of ``p1 draw`` on ``hand`` from its last ply but one: the ply and each try's CPU seconds."""
    last = json.loads(client.get(f"/api/matches/{match_id}/hands/{hand}/timeline/").content)["states"]
    ply = len(last) - 2
    body = json.dumps({"ply": ply, "actions": ["p1 draw"]})
    timed = [cpu(lambda: client.post(f"/api/matches/{match_id}/hands/{hand}/try/", data=body,
                                     content_type="application/json")) for _ in range(views)]
    assert all(response.status_code == 200 for _, response in timed), timed[0][1].content[:300]
    return ply, [seconds for seconds, _ in timed]


def main() -> int:
    args = parse_args()
    root = args.root.resolve()
    start_service(root)
    text = flood_record(args.hands, args.notes, args.seed)
    client = logged_in_client()
    upload_cpu, match_id, comments = store(client, text)
    size, views = page_views(client, match_id, args.views)
    ply, tried = tries(client, match_id, args.hands, args.views)
    print(json.dumps({
        "root": str(root),
        "record_bytes": len(text.encode()),
        "record_gzip_bytes": len(gzip.compress(text.encode())),
        "hands": args.hands,
        "comments_stored": comments,
        "upload_cpu_s": round(upload_cpu, 2),
        "replay_page_bytes": size,
        "replay_page_cpu_ms_median": round(1000 * statistics.median(views), 1),
        "try_cpu_ms_median": round(1000 * statistics.median(tried), 1),
        "try_ply": ply,
    }, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

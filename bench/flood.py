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
from dataclasses import replace
from pathlib import Path
from typing import Any


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


def cpu(work: Any) -> tuple[float, Any]:
    start = time.process_time()
    result = work()
    return time.process_time() - start, result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=200)
    parser.add_argument("--notes", type=int, default=500)
    parser.add_argument("--views", type=int, default=5, help="page views and tries timed (median reported)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1],
                        help="the checkout whose service is measured")
    args = parser.parse_args()

    root = args.root.resolve()
    sys.path.insert(0, str(root))
    os.chdir(root)
    scratch = tempfile.mkdtemp(prefix="flood-")
    os.environ.update({"DATABASE_URL": f"sqlite:///{scratch}/db.sqlite3", "EMBEDDED_JOBS": "inline",
                       "DJANGO_SETTINGS_MODULE": "buraco_site.settings"})
    os.environ.pop("CELERY_BROKER_URL", None)
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.test import Client

    call_command("migrate", verbosity=0)
    settings.ALLOWED_HOSTS = ["testserver"]
    settings.BURACO_MAX_COMMENTS_PER_MATCH = 10**9  # a match stored before the cap
    settings.BURACO_THROTTLE_RATES = {scope: None for scope in getattr(settings, "BURACO_THROTTLE_RATES", {})}

    text = flood_record(args.hands, args.notes, args.seed)
    owner = User.objects.create_user("flood", password="flood-pw-123456")
    client = Client()
    client.force_login(owner)
    upload_cpu, answer = cpu(lambda: client.post("/api/matches/", data=text.encode(), content_type="application/toml"))
    assert answer.status_code == 202, answer.content[:300]
    match_id = answer.json()["id"]
    from reviews.models import Comment

    comments = Comment.objects.filter(review__match_id=match_id).count()

    page_url = f"/matches/{match_id}/hands/1/replay/"
    client.get(page_url)  # one view first: the process's template and URL caches
    views = [cpu(lambda: client.get(page_url)) for _ in range(args.views)]
    assert all(response.status_code == 200 for _, response in views)
    size = len(views[0][1].content)

    last = json.loads(client.get(f"/api/matches/{match_id}/hands/{args.hands}/timeline/").content)["states"]
    ply = len(last) - 2
    body = json.dumps({"ply": ply, "actions": ["p1 draw"]})
    tries = [cpu(lambda: client.post(f"/api/matches/{match_id}/hands/{args.hands}/try/", data=body,
                                     content_type="application/json")) for _ in range(args.views)]
    assert all(response.status_code == 200 for _, response in tries), tries[0][1].content[:300]

    print(json.dumps({
        "root": str(root),
        "record_bytes": len(text.encode()),
        "record_gzip_bytes": len(gzip.compress(text.encode())),
        "hands": args.hands,
        "comments_stored": comments,
        "upload_cpu_s": round(upload_cpu, 2),
        "replay_page_bytes": size,
        "replay_page_cpu_ms_median": round(1000 * statistics.median(t for t, _ in views), 1),
        "try_cpu_ms_median": round(1000 * statistics.median(t for t, _ in tries), 1),
        "try_ply": ply,
    }, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

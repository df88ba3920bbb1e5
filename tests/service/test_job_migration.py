"""The migration to jobs on their own rows keeps every existing match's job and verdict."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

BEFORE = [("records", "0001_initial")]
AFTER = [("records", "0004_remove_match_job_fields")]


def migrate(targets: list[tuple[str, str]]) -> Any:
    """Migrate the test database to ``targets``; the historical apps at that state."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.fixture
def old_schema(transactional_db: Any) -> Iterator[Any]:
    """The schema before the job table; the latest schema again afterwards."""
    apps = migrate(BEFORE)
    try:
        yield apps
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())


def test_it_moves_each_matchs_job_to_a_job_row_and_keeps_its_verdict(old_schema: Any) -> None:
    User = old_schema.get_model("auth", "User")
    Match = old_schema.get_model("records", "Match")
    Hand = old_schema.get_model("records", "Hand")
    owner = User.objects.create(username="ana")
    now = timezone.now()
    report = {
        "variant": "cerrado", "valid": True, "scores_match": True, "error": None, "sides": [[1], [2]],
        "hands": [{"hand": 1, "plies": 42}], "totals": [100, 50], "winner": None,
    }
    rows = {}
    for status in ("pending", "verifying", "verified", "invalid", "failed"):
        rows[status] = Match.objects.create(
            owner=owner, source=b"x", sha256=status.ljust(64, "0"), variant="cerrado", players=["a", "b"],
            status=status, queue="bulk", attempts=2, claimed_at=now - dt.timedelta(minutes=1), enqueued_at=now,
            verified_at=now if status in ("verified", "invalid") else None, engine_version="0.9",
            valid={"verified": True, "invalid": False}.get(status),
            error={"kind": "failed", "message": "time limit"} if status == "failed" else None,
            report=report if status in ("verified", "failed") else None,
        )
        Hand.objects.create(match=rows[status], number=1, dealer=2)

    apps = migrate(AFTER)
    Job = apps.get_model("records", "Job")
    jobs = {job.match_id: job for job in Job.objects.all()}
    assert len(jobs) == 5 and all(job.kind == "verify" for job in jobs.values())
    expected = {"pending": "pending", "verifying": "running", "verified": "done", "invalid": "done", "failed": "failed"}
    for status, match in rows.items():
        job = jobs[match.pk]
        assert job.status == expected[status]
        assert (job.queue, job.attempts, job.enqueued_at) == ("bulk", 2, now)
    assert jobs[rows["failed"].pk].error == {"kind": "failed", "message": "time limit"}
    assert jobs[rows["verified"].pk].version == "0.9"

    Match = apps.get_model("records", "Match")
    Hand = apps.get_model("records", "Hand")
    verified = Match.objects.get(pk=rows["verified"].pk)
    assert verified.sides == [[1], [2]]
    assert Hand.objects.get(match_id=verified.pk).plies == 42
    failed = Match.objects.get(pk=rows["failed"].pk)
    assert failed.error is None  # the failure is the job's; the verdict had no illegal action
    assert {f.name for f in Match._meta.get_fields()}.isdisjoint(
        {"status", "queue", "claimed_at", "attempts", "enqueued_at", "report"}
    )


def test_it_migrates_back_to_the_stored_status_and_report(old_schema: Any) -> None:
    User = old_schema.get_model("auth", "User")
    Match = old_schema.get_model("records", "Match")
    owner = User.objects.create(username="ana")
    match = Match.objects.create(
        owner=owner, source=b"x", sha256="1" * 64, variant="cerrado", players=["a", "b"], status="verified",
        valid=True, scores_match=True, totals=[10, 20],
        report={"variant": "cerrado", "valid": True, "scores_match": True, "error": None, "sides": [[1], [2]],
                "hands": [], "totals": [10, 20], "winner": None},
    )
    migrate(AFTER)
    apps = migrate(BEFORE)
    again = apps.get_model("records", "Match").objects.get(pk=match.pk)
    assert again.status == "verified"
    assert again.report["totals"] == [10, 20] and again.report["sides"] == [[1], [2]]

"""Thin Celery tasks: they take ids and call one service (run like every job task)."""

from __future__ import annotations

from celery import shared_task

from records.models import Job
from records.tasks import JOB_TASK_OPTIONS, run_job

from . import services


# The analysis searches every turn for a better play: it may take longer than a replay,
# still below the claim's lease (records.jobs.claim_lease(), 5 minutes by default).
@shared_task(**{**JOB_TASK_OPTIONS, "soft_time_limit": 240, "time_limit": 270})
def analyze_match(self, match_id: int) -> str:  # type: ignore[no-untyped-def]
    """Analyse one verified match and store its findings (idempotent: a redelivered job is skipped)."""
    return run_job(
        kind=Job.Kind.ANALYZE, match_id=match_id, work=lambda: services.match_analyze(match_id=match_id),
        last_try=self.request.retries >= self.max_retries, task_id=self.request.id or "",
    )

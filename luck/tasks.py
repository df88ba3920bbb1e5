"""Thin Celery tasks: they take ids and call one service (run like every job task)."""

from __future__ import annotations

from celery import shared_task

from records.tasks import JOB_TASK_OPTIONS, run_job

from . import services


# The luck job searches every stock draw once per distinct unseen card: its CPU budget
# (BURACO_LUCK_MATCH_SECONDS) stays below the soft limit, itself below the claim's lease.
@shared_task(**{**JOB_TASK_OPTIONS, "soft_time_limit": 240, "time_limit": 270})
def luck_match(self, match_id: int) -> str:  # type: ignore[no-untyped-def]
    """Judge the luck of one analysed match's draws and store it (a redelivered job is skipped)."""
    return run_job(
        kind=services.LUCK_KIND, match_id=match_id, work=lambda: services.match_luck_job(match_id=match_id),
        last_try=self.request.retries >= self.max_retries, task_id=self.request.id or "",
    )

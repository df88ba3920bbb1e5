"""Thin Celery tasks: they take ids and call one service.

Every kind of job runs the same way (:func:`records.jobs.run_job`): the service claims the
job, a transient database error hands it back for Celery's retry, anything else marks it failed.
:func:`sweep_jobs` (Celery beat, and once when a worker starts) sends again what was
never delivered or was held by a dead worker.
"""

from __future__ import annotations

import logging

from celery import shared_task
from celery.signals import task_prerun, worker_ready
from django.db import close_old_connections

from . import jobs, services
from .jobs import JOB_TASK_OPTIONS, run_job
from .models import Job

logger = logging.getLogger(__name__)

@shared_task(**JOB_TASK_OPTIONS)
def verify_match(self, match_id: int) -> str:  # type: ignore[no-untyped-def]
    """Replay one match and store its verdict (idempotent: a redelivered job is skipped)."""
    return run_job(
        kind=Job.Kind.VERIFY, match_id=match_id, work=lambda: services.match_verify(match_id=match_id),
        last_try=self.request.retries >= self.max_retries, task_id=self.request.id or "",
    )


@shared_task(**JOB_TASK_OPTIONS)
def run_chunk(self, kind: str, match_ids: list[int]) -> list[str]:  # type: ignore[no-untyped-def]
    """Several jobs of one kind from one message (a batch's verifies: records.jobs.run_chunk)."""
    return jobs.run_chunk(kind=kind, match_ids=match_ids, task_id=self.request.id or "",
                          last_try=self.request.retries >= self.max_retries)


@shared_task(ignore_result=True)
def sweep_jobs() -> int:
    """Send again the jobs no worker would run otherwise (:func:`records.jobs.jobs_sweep`)."""
    return jobs.jobs_sweep()


@task_prerun.connect
def _drop_dead_connections(task: object = None, **_: object) -> None:
    # What Django does before every request: close a connection the database dropped (a
    # restart, a failover) or past CONN_MAX_AGE, so that this task opens a new one. Celery's
    # Django fixup does not while CELERY_DB_REUSE_MAX holds connections open: a worker process
    # whose connection was cut kept failing every task with "the connection is closed".
    # (Eager tasks run inside the caller's request or test transaction: left alone.)
    if not getattr(getattr(task, "request", None), "is_eager", False):
        close_old_connections()


@worker_ready.connect
def _sweep_on_start(**_: object) -> None:
    # A worker that starts (after a crash, or the broker's return) picks up what is stranded
    # without waiting for beat's next tick.
    sweep_jobs.delay()

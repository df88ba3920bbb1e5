"""Thin Celery tasks: they take ids and call one service.

Every kind of job runs the same way (:func:`run_job`): the service claims the job, a
transient database error hands it back for Celery's retry, anything else marks it failed.
:func:`sweep_jobs` (Celery beat, and once when a worker starts) sends again what was
never delivered or was held by a dead worker.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from celery.signals import task_prerun, worker_ready
from django.db import DatabaseError, InterfaceError, OperationalError, close_old_connections

from . import jobs, services
from .models import Job

logger = logging.getLogger(__name__)

# The options of every job task: late acks (a job whose worker dies is delivered again),
# time limits below the claim's lease, retries on transient database errors. The retries
# wait 1, 2, 4, 8 and 16 s: a database away for up to half a minute (a restart) loses no
# job. (Celery's default jitter draws each wait from 0 up to that, so all five could come
# within a second or two, and the job, never claimed, was left pending with its message
# gone: the sweep only sends such a job again after REDELIVER_SECONDS.)
JOB_TASK_OPTIONS = {
    "bind": True,
    "acks_late": True,
    "reject_on_worker_lost": True,
    "soft_time_limit": 120,
    "time_limit": 150,
    "autoretry_for": (OperationalError, InterfaceError),
    "retry_backoff": True,
    "retry_backoff_max": 60,
    "retry_jitter": False,
    "max_retries": 5,
}


def run_job(
    *, kind: str, match_id: int, work: Callable[[], str], last_try: bool = False, task_id: str = ""
) -> str:
    """Run one job's service; never leave the job running when it cannot finish.

    ``last_try``: Celery will not retry again, so a transient error fails the job too.
    ``task_id``: the Celery task's id; its retries and redeliveries may take back its claim.
    """
    try:
        with jobs.claiming_as(task_id):
            return work()
    except SoftTimeLimitExceeded:
        jobs.job_fail(match_id=match_id, kind=kind, reason=f"the {kind} job ran past its time limit")
        return "failed"
    except (OperationalError, InterfaceError) as error:
        # Transient: hand the job back (if the database lets us) and let Celery retry it.
        try:
            if last_try:
                jobs.job_fail(match_id=match_id, kind=kind, reason=f"{type(error).__name__}: {error}")
            else:
                jobs.job_release(match_id=match_id, kind=kind)
        except DatabaseError:
            pass  # the claim's lease runs out instead
        raise
    except Exception as error:  # a bug must not leave the job running forever
        logger.exception("the %s job of match %s failed", kind, match_id)
        jobs.job_fail(match_id=match_id, kind=kind, reason=f"{type(error).__name__}: {error}")
        return "failed"


@shared_task(**JOB_TASK_OPTIONS)
def verify_match(self, match_id: int) -> str:  # type: ignore[no-untyped-def]
    """Replay one match and store its verdict (idempotent: a redelivered job is skipped)."""
    return run_job(
        kind=Job.Kind.VERIFY, match_id=match_id, work=lambda: services.match_verify(match_id=match_id),
        last_try=self.request.retries >= self.max_retries, task_id=self.request.id or "",
    )


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

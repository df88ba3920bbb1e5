"""Jobs: every kind of work on a match (verify, analyze) is a :class:`~records.models.Job`
row, claimed by the one :func:`job_claim`, so that two workers never do one job twice.

The Job table is also the outbox. A job's message is sent after the transaction that
queued it commits (:func:`jobs_send`); ``sent_at`` records that the broker took it. What
was never sent (the broker was down), what was sent but lost (a broker restarted without
persistence) and what a dead worker held (its lease ran out) is sent again by
:func:`jobs_sweep`, which Celery beat runs every ``BURACO_SWEEP_SECONDS``.

With no broker (the embedded default) the messages go to :class:`EmbeddedRunner`, one
thread of the web process that runs the jobs after the response, in queue order; with
``BURACO_EMBEDDED_JOBS=inline`` they run at once in the caller (as Celery's eager mode
does; the service tests use it).
"""

from __future__ import annotations

import contextlib
import contextvars
import datetime as dt
import itertools
import logging
import queue as queues
import threading
from collections.abc import Iterator, Sequence
from typing import Any

from django.conf import settings
from django.db import connections, transaction
from django.db.models import F, Q
from django.utils import timezone

from .models import Job

logger = logging.getLogger(__name__)

ANALYSIS_QUEUE = "analysis"

# The Celery task now running a job (its id), set by records.tasks.run_job: a retry or a
# redelivery of the same task may take back the claim it held (see job_claim).
_claimant: contextvars.ContextVar[str] = contextvars.ContextVar("claimant", default="")


@contextlib.contextmanager
def claiming_as(task_id: str) -> Iterator[None]:
    """Claims made inside are held by the task ``task_id``."""
    token = _claimant.set(task_id or "")
    try:
        yield
    finally:
        _claimant.reset(token)


def claim_lease() -> dt.timedelta:
    """How long a claim holds (``BURACO_JOB_LEASE_SECONDS``): longer than any job task's hard
    time limit, so that only a dead worker's job is taken over."""
    return dt.timedelta(seconds=settings.BURACO_JOB_LEASE_SECONDS)


def _job_task(kind: str) -> Any:
    """The Celery task that runs jobs of ``kind`` (imported here: tasks import services)."""
    if kind == Job.Kind.VERIFY:
        from .tasks import verify_match

        return verify_match
    if kind == Job.Kind.ANALYZE:
        from analysis.tasks import analyze_match

        return analyze_match
    raise ValueError(f"no task runs {kind!r} jobs")


def embedded() -> bool:
    """No broker: jobs run in this process (the embedded default)."""
    from buraco_site.celery import app

    return bool(app.conf.task_always_eager)


def jobs_send(*, match_ids: Sequence[int], kind: str, queue: str) -> int:
    """Send the jobs' messages to ``queue``; called after the transaction that queued them
    commits. Returns how many were sent: a message the broker does not take is logged and
    left in the outbox (``sent_at`` stays null) for :func:`jobs_sweep`; it never fails the
    request that stored the match."""
    if not match_ids:
        return 0
    if embedded() and settings.BURACO_EMBEDDED_JOBS == "thread":
        _mark_sent(match_ids, kind)
        runner = EmbeddedRunner.get()
        for match_id in match_ids:
            runner.submit(kind=kind, match_id=match_id, queue=queue)
        return len(match_ids)
    task = _job_task(kind)
    sent: list[int] = []
    try:
        for match_id in match_ids:
            # ("inline": Celery's eager mode runs the task here, before it counts as sent.)
            task.apply_async(args=(match_id,), queue=queue)
            sent.append(match_id)
    except Exception as error:  # noqa: BLE001 - whatever the broker says, the jobs wait in the outbox
        logger.warning("the broker refused %s %s jobs (%s: %s); the sweep sends them later",
                       len(match_ids) - len(sent), kind, type(error).__name__, error)
    _mark_sent(sent, kind)
    return len(sent)


def _mark_sent(match_ids: Sequence[int], kind: str) -> None:
    if match_ids:
        Job.objects.filter(match_id__in=match_ids, kind=kind, status=Job.Status.PENDING).update(sent_at=timezone.now())


def jobs_requeue(*, match_ids: Sequence[int], kind: str, queue: str, send: bool = True) -> None:
    """Make the matches' jobs of ``kind`` pending on ``queue`` (creating missing ones) and,
    with ``send``, send them once the current transaction commits.

    A job running meanwhile is made pending too: its worker's finish then changes nothing
    and the job runs again on what is stored now.
    """
    if not match_ids:
        return
    now = timezone.now()
    Job.objects.bulk_create(
        [Job(match_id=match_id, kind=kind, queue=queue, enqueued_at=now) for match_id in match_ids],
        update_conflicts=True,
        unique_fields=["match", "kind"],
        update_fields=["status", "queue", "enqueued_at", "sent_at", "claimed_at", "error"],
    )
    if send:
        ids = list(match_ids)
        transaction.on_commit(lambda: jobs_send(match_ids=ids, kind=kind, queue=queue), robust=True)


def job_claim(*, match_id: int, kind: str) -> bool:
    """Take a match's job of ``kind`` atomically: one worker only, unless an earlier claim's
    lease ran out (its worker died). Every kind of job is claimed here.

    The task that held the claim may take it back at once (inside :func:`claiming_as` its
    id): a retry after the database went away mid-job, or the message delivered again
    after its worker process was killed, need not wait out the lease. Celery keeps a
    task's id across its retries and redeliveries; a message the sweep sends is a new task.
    """
    now = timezone.now()
    claimant = _claimant.get()
    claimable = Q(status=Job.Status.PENDING) | Q(status=Job.Status.RUNNING, claimed_at__lt=now - claim_lease())
    if claimant:
        claimable |= Q(status=Job.Status.RUNNING, claimed_by=claimant)
    claimed = Job.objects.filter(claimable, match_id=match_id, kind=kind).update(
        status=Job.Status.RUNNING, claimed_at=now, claimed_by=claimant, attempts=F("attempts") + 1
    )
    return claimed == 1


def job_finish(*, match_id: int, kind: str, version: str) -> None:
    """Mark a running job done; called in the transaction that stores its result."""
    Job.objects.filter(match_id=match_id, kind=kind, status=Job.Status.RUNNING).update(
        status=Job.Status.DONE, finished_at=timezone.now(), error=None, version=version
    )


def job_release(*, match_id: int, kind: str) -> None:
    """Give a claimed job back so that a retry can claim it again."""
    Job.objects.filter(match_id=match_id, kind=kind, status=Job.Status.RUNNING).update(
        status=Job.Status.PENDING, claimed_at=None
    )


def job_fail(*, match_id: int, kind: str, reason: str) -> None:
    """A job that cannot finish (time limit, retries used up, a bug) is marked, not lost."""
    Job.objects.filter(match_id=match_id, kind=kind, status=Job.Status.RUNNING).update(
        status=Job.Status.FAILED, finished_at=timezone.now(), error={"kind": "failed", "message": reason}
    )


def jobs_sweep(*, now: dt.datetime | None = None, sent_before: dt.datetime | None = None) -> int:
    """Send again every job that no worker will run otherwise; returns how many.

    - pending and never sent, ``BURACO_OUTBOX_GRACE_SECONDS`` after it was queued (the
      broker was down; the grace leaves the request's own send its moment);
    - pending and sent more than ``BURACO_REDELIVER_SECONDS`` ago, or before ``sent_before``
      (the message was lost: the embedded runner's queue dies with its process);
    - running past its lease (the worker died holding it).

    A job sent twice is still done once: :func:`job_claim` lets one run take it.
    """
    now = now or timezone.now()
    grace = dt.timedelta(seconds=settings.BURACO_OUTBOX_GRACE_SECONDS)
    redeliver = dt.timedelta(seconds=settings.BURACO_REDELIVER_SECONDS)
    stranded = (
        Q(status=Job.Status.PENDING, sent_at__isnull=True, enqueued_at__lt=now - grace)
        | Q(status=Job.Status.PENDING, sent_at__lt=sent_before or now - redeliver)
        | Q(status=Job.Status.RUNNING, claimed_at__lt=now - claim_lease())
    )
    sent = 0
    groups: dict[tuple[str, str], list[int]] = {}
    for match_id, kind, queue in Job.objects.filter(stranded).values_list("match_id", "kind", "queue"):
        groups.setdefault((kind, queue), []).append(match_id)
    for (kind, queue), match_ids in sorted(groups.items()):
        sent += jobs_send(match_ids=match_ids, kind=kind, queue=queue)
    if sent:
        logger.warning("the sweep sent %s stranded jobs again", sent)
    return sent


class EmbeddedRunner:
    """The embedded default's worker: one daemon thread of the web process that runs the
    jobs after the response, a user's own uploads first (``settings.BURACO_QUEUES`` order).

    When idle it sweeps (:func:`jobs_sweep`) every ``BURACO_SWEEP_SECONDS``, so jobs left
    pending by a stopped server run when it starts again. One per process.
    """

    _instance: EmbeddedRunner | None = None
    _lock = threading.Lock()

    def __init__(self) -> None:
        self._queue: queues.PriorityQueue[tuple[int, int, str, int]] = queues.PriorityQueue()
        self._order = itertools.count()
        self._started_at = timezone.now()
        self._thread = threading.Thread(target=self._run, name="buraco-jobs", daemon=True)
        self._thread.start()

    @classmethod
    def get(cls) -> EmbeddedRunner:
        """The process's runner, started on first use."""
        with cls._lock:
            if cls._instance is None or not cls._instance._thread.is_alive():
                cls._instance = EmbeddedRunner()
            return cls._instance

    def submit(self, *, kind: str, match_id: int, queue: str) -> None:
        rank = settings.BURACO_QUEUES.index(queue) if queue in settings.BURACO_QUEUES else len(settings.BURACO_QUEUES)
        self._queue.put((rank, next(self._order), kind, match_id))

    def join(self) -> None:
        """Wait until every submitted job has run."""
        self._queue.join()

    def stop(self) -> None:
        """End the thread once what was submitted before has run (the next use starts another)."""
        self._queue.put((len(settings.BURACO_QUEUES) + 1, next(self._order), "", 0))
        self._thread.join()

    def _run(self) -> None:
        self._sweep()
        while True:
            try:
                _, _, kind, match_id = self._queue.get(timeout=settings.BURACO_SWEEP_SECONDS)
            except queues.Empty:
                self._sweep()
                continue
            try:
                if not kind:
                    return
                _job_task(kind).apply(args=(match_id,))
            except Exception:  # a job's own errors are its task's; this keeps the thread alive
                logger.exception("the embedded %s job of match %s failed", kind, match_id)
            finally:
                connections.close_all()  # this thread's own: nothing is held between jobs
                self._queue.task_done()

    def _sweep(self) -> None:
        try:
            jobs_sweep(sent_before=self._started_at)
        except Exception:  # noqa: BLE001 - e.g. the tables do not exist yet (before migrate)
            logger.warning("the embedded sweep could not run", exc_info=True)
        finally:
            connections.close_all()


def embedded_start() -> None:
    """Start the embedded runner when this process serves the site with no broker, so that
    jobs a stopped server left pending run now (called by buraco_site.wsgi)."""
    if embedded() and settings.BURACO_EMBEDDED_JOBS == "thread":
        EmbeddedRunner.get()

"""Jobs: every kind of work on a match (verify, analyze, ...) is a :class:`~records.models.Job`
row, claimed by the one :func:`job_claim`, so that two workers never do one job twice.

The queue knows no kind of job by name: each app registers its kinds with their Celery task
(:func:`register_kind`, from its ``AppConfig.ready()``), and every job task runs its service
through :func:`run_job` with :data:`JOB_TASK_OPTIONS`. Whether jobs go to a broker or run in
this process (the embedded default) is one setting, ``BURACO_JOBS``, read by :func:`embedded`.
A kind registered with its service (``chunk_work``: verify) sends a batch's jobs
``BURACO_JOB_CHUNK`` to a message (:func:`run_chunk`), each still claimed on its own.

The Job table is also the outbox. A job's message is sent after the transaction that
queued it commits (:func:`jobs_send`); ``sent_at`` records that the broker took it. What
was never sent (the broker was down), what was sent but lost (a broker restarted without
persistence) and what a dead worker held (its lease ran out) is sent again by
:func:`jobs_sweep`, which Celery beat runs every ``BURACO_SWEEP_SECONDS``.

With no broker (the embedded default) no message is sent: :class:`EmbeddedRunner`,
threads of the web process, takes the pending jobs from the table after the response, in
queue order; with ``BURACO_EMBEDDED_JOBS=inline`` they run at once in the caller (as
Celery's eager mode does; the service tests use it).
"""

from __future__ import annotations

import contextlib
import contextvars
import datetime as dt
import functools
import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, connections, transaction
from django.db.models import F, Q
from django.utils import timezone

from .models import Job

logger = logging.getLogger(__name__)

# Every kind of job and the Celery task that runs it, in the order the apps registered them.
_TASKS: dict[str, Any] = {}
# The kinds whose jobs may go several to a message (:func:`run_chunk`): their service, by id.
_CHUNK_WORK: dict[str, Callable[[int], str]] = {}


def register_kind(kind: str, task: Any, *, chunk_work: Callable[[int], str] | None = None) -> None:
    """``task`` (a Celery task taking a match id) runs the jobs of ``kind``. Called by the app
    that owns the kind, from its ``AppConfig.ready()``. With ``chunk_work`` (the service the
    task runs, taking a match id), a batch's jobs of this kind go ``BURACO_JOB_CHUNK`` to a
    message (quick jobs: a message costs a worker more than a verify of a short match)."""
    _TASKS[kind] = task
    if chunk_work is not None:
        _CHUNK_WORK[kind] = chunk_work


_CHUNK_TASK: list[Any] | None = None  # the Celery task of run_chunk (records.tasks), once registered


def register_chunk_task(task: Any) -> None:
    """``task`` (a Celery task taking a kind and match ids) runs :func:`run_chunk`; records'
    ``AppConfig.ready()`` registers it, as the kinds' tasks are (the task module imports this one)."""
    global _CHUNK_TASK
    _CHUNK_TASK = [task]


def kinds() -> tuple[str, ...]:
    """Every registered kind of job."""
    return tuple(_TASKS)


def job_task(kind: str) -> Any:
    """The Celery task that runs jobs of ``kind``."""
    try:
        return _TASKS[kind]
    except KeyError:
        raise ValueError(f"no task runs {kind!r} jobs: its app registers it (records.jobs.register_kind)") from None


# The options of every job task: late acks (a job whose worker dies is delivered again),
# time limits below the claim's lease, retries on transient database errors. The retries
# wait 1, 2, 4, 8 and 16 s: a database away for up to half a minute (a restart) loses no
# job. (Celery's default jitter draws each wait from 0 up to that, so all five could come
# within a second or two, and the job, never claimed, was left pending with its message
# gone: the sweep only sends such a job again after REDELIVER_SECONDS.)
JOB_TASK_OPTIONS: dict[str, Any] = {
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
        with claiming_as(task_id):
            return work()
    except SoftTimeLimitExceeded:
        job_fail(match_id=match_id, kind=kind, reason=f"the {kind} job ran past its time limit")
        return "failed"
    except (OperationalError, InterfaceError) as error:
        # Transient: hand the job back (if the database lets us) and let Celery retry it.
        try:
            if last_try:
                job_fail(match_id=match_id, kind=kind, reason=f"{type(error).__name__}: {error}")
            else:
                job_release(match_id=match_id, kind=kind)
        except DatabaseError:
            pass  # the claim's lease runs out instead
        raise
    except Exception as error:  # a bug must not leave the job running forever
        logger.exception("the %s job of match %s failed", kind, match_id)
        job_fail(match_id=match_id, kind=kind, reason=f"{type(error).__name__}: {error}")
        return "failed"


# The Celery task now running a job (its id), set by run_job: a retry or a redelivery of
# the same task may take back the claim it held (see job_claim).
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


def embedded() -> bool:
    """No broker: jobs run in this process (the embedded default; ``BURACO_JOBS``)."""
    return bool(settings.BURACO_JOBS == "embedded")


def jobs_send(*, match_ids: Sequence[int], kind: str, queue: str, one_by_one: bool = False) -> int:
    """Send the jobs' messages to ``queue``; called after the transaction that queued them
    commits. Returns how many were sent: a message the broker does not take is logged and
    left in the outbox (``sent_at`` stays null) for :func:`jobs_sweep`; it never fails the
    request that stored the match."""
    if not match_ids:
        return 0
    if embedded() and settings.BURACO_EMBEDDED_JOBS == "thread":
        # The table is the embedded runner's queue: nothing to send. This process's runner,
        # if it serves the site, looks now; any other process's jobs wait for the server's.
        runner = EmbeddedRunner.running()
        if runner is not None:
            runner.wake(queue)
        return len(match_ids)
    task = job_task(kind)
    sent: list[int] = []
    size = settings.BURACO_JOB_CHUNK if kind in _CHUNK_WORK and len(match_ids) > 1 and not one_by_one else 1
    try:
        for start in range(0, len(match_ids), size):
            ids = list(match_ids[start:start + size])
            # ("inline": Celery's eager mode runs the task here, before it counts as sent.)
            if len(ids) == 1:
                task.apply_async(args=(ids[0],), queue=queue)
            else:
                _chunk_task().apply_async(args=(kind, ids), queue=queue)
            sent.extend(ids)
    except Exception as error:  # noqa: BLE001 - whatever the broker says, the jobs wait in the outbox
        logger.warning("the broker refused %s %s jobs (%s: %s); the sweep sends them later",
                       len(match_ids) - len(sent), kind, type(error).__name__, error)
    _mark_sent(sent, kind)
    return len(sent)


def _chunk_task() -> Any:
    if _CHUNK_TASK is None:
        raise ValueError("no task runs chunks of jobs: records registers it (records.jobs.register_chunk_task)")
    return _CHUNK_TASK[0]


def run_chunk(*, kind: str, match_ids: Sequence[int], task_id: str = "", last_try: bool = False,
              seconds: float | None = None) -> list[str]:
    """Run several jobs of one kind from one message, each as its own task would
    (:func:`run_job`: claimed one by one, a redelivered chunk skips those done). Past
    ``seconds`` (half the task's soft time limit) the rest go back one message each, so that
    one slow match cannot hold the others past the limit."""
    work = _CHUNK_WORK[kind]
    limit = JOB_TASK_OPTIONS["soft_time_limit"] / 2 if seconds is None else seconds
    started = time.monotonic()
    results = []
    for index, match_id in enumerate(match_ids):
        if index and time.monotonic() - started > limit:
            rest = list(match_ids[index:])
            logger.info("a chunk of %s %s jobs ran %.0f s; %s go back one by one", len(match_ids), kind,
                        time.monotonic() - started, len(rest))
            jobs_send(match_ids=rest, kind=kind, queue=_queue_of(rest[0], kind), one_by_one=True)
            break
        results.append(run_job(kind=kind, match_id=match_id, work=functools.partial(work, match_id),
                               last_try=last_try, task_id=task_id))
    return results


def _queue_of(match_id: int, kind: str) -> str:
    return str(Job.objects.filter(match_id=match_id, kind=kind).values_list("queue", flat=True).first() or "bulk")


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


def job_finish(*, match_id: int, kind: str, version: str, result: dict[str, Any] | None = None) -> None:
    """Mark a running job done; called in the transaction that stores its rows. ``result``:
    what the job has to say beside them (its kind's own: an analysis cut by its budget, say)."""
    Job.objects.filter(match_id=match_id, kind=kind, status=Job.Status.RUNNING).update(
        status=Job.Status.DONE, finished_at=timezone.now(), error=None, version=version, result=result
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
    """The embedded default's worker: threads of the web process that take pending jobs from
    the Job table itself, one thread per lane (``settings.BURACO_EMBEDDED_LANES``):
    verification in one, analysis in another, so that a long analysis never holds back
    another user's verdict. Within a lane the queues are taken in order (a user's own upload
    before a batch), the oldest job first.

    The table is the queue: a job stored by any process (``manage.py load_examples``, a
    shell, another web process) is found by the next poll (every
    ``BURACO_EMBEDDED_POLL_SECONDS``; a job queued by this process wakes its lane at once).
    Only a process that serves the site runs one (:func:`embedded_start`): a management
    command's thread would die with its process, holding jobs it claimed.

    Each claim names the process (``embedded:<pid>@<host>:...``): a job left running by a
    process of this machine that is gone (a server stopped mid-job, an autoreload) is made
    pending again when a runner starts, and every ``BURACO_SWEEP_SECONDS`` after; one held
    past its lease by anyone else, too.
    """

    _instance: EmbeddedRunner | None = None
    _lock = threading.Lock()

    def __init__(self) -> None:
        self._stopping = threading.Event()
        self._lanes = [_Lane(tuple(queues)) for queues in settings.BURACO_EMBEDDED_LANES]
        self._recovered_at = 0.0
        self._recover_lock = threading.Lock()
        self._threads = [
            threading.Thread(target=self._run, args=(lane,), name=f"buraco-jobs-{'-'.join(lane.queues)}", daemon=True)
            for lane in self._lanes
        ]
        for thread in self._threads:
            thread.start()

    @classmethod
    def get(cls) -> EmbeddedRunner:
        """The process's runner, started on first use."""
        with cls._lock:
            if cls._instance is None or not cls._instance.alive():
                cls._instance = EmbeddedRunner()
            return cls._instance

    @classmethod
    def running(cls) -> EmbeddedRunner | None:
        """The process's runner if it has one (only a process serving the site does)."""
        instance = cls._instance
        return instance if instance is not None and instance.alive() else None

    def alive(self) -> bool:
        return not self._stopping.is_set() and all(thread.is_alive() for thread in self._threads)

    def wake(self, queue: str) -> None:
        """A job was queued on ``queue``: its lane looks now instead of at its next poll."""
        for lane in self._lanes:
            if queue in lane.queues:
                lane.wake.set()

    def join(self, timeout: float = 600) -> None:
        """Wait until every lane has found nothing left to run (after this call began)."""
        deadline = time.monotonic() + timeout
        for lane in self._lanes:
            lane.idle.clear()
            lane.wake.set()
        for lane in self._lanes:
            if not lane.idle.wait(max(0.0, deadline - time.monotonic())):
                raise TimeoutError(f"the {'/'.join(lane.queues)} jobs were still running after {timeout} s")

    def stop(self) -> None:
        """End the threads once the jobs they are running are done (the next use starts another)."""
        self._stopping.set()
        for lane in self._lanes:
            lane.wake.set()
        for thread in self._threads:
            thread.join()

    def _run(self, lane: _Lane) -> None:
        failed_last: tuple[str, int] | None = None
        while not self._stopping.is_set():
            self._recover()
            try:
                job = self._next(lane)
            except Exception:  # noqa: BLE001 - e.g. the tables do not exist yet (before migrate)
                logger.warning("the embedded runner could not read the jobs", exc_info=True)
                job = None
            finally:
                connections.close_all()
            if job is None:
                lane.idle.set()
                lane.wake.wait(timeout=settings.BURACO_EMBEDDED_POLL_SECONDS)
                lane.wake.clear()
                continue
            if job == failed_last:
                time.sleep(1)  # the same job failed to finish just now (a transient error): not in a tight loop
            kind, match_id = job
            try:
                result = job_task(kind).apply(args=(match_id,), task_id=embedded_claimant())
                failed_last = job if result.failed() else None
            except Exception:  # a job's own errors are its task's; this keeps the thread alive
                logger.exception("the embedded %s job of match %s failed", kind, match_id)
                failed_last = job
            finally:
                connections.close_all()  # this thread's own: nothing is held between jobs

    @staticmethod
    def _next(lane: _Lane) -> tuple[str, int] | None:
        """The lane's next pending job: its queues in order, the oldest first."""
        for queue in lane.queues:
            row = (
                Job.objects.filter(status=Job.Status.PENDING, queue=queue)
                .order_by("enqueued_at", "id").values_list("kind", "match_id").first()
            )
            if row is not None:
                return row[0], row[1]
        return None

    def _recover(self) -> None:
        """Now and then: make pending again the jobs no live process will finish."""
        now = time.monotonic()
        if self._recovered_at and now - self._recovered_at < settings.BURACO_SWEEP_SECONDS:
            return
        if not self._recover_lock.acquire(blocking=False):
            return  # the other lane is doing it
        try:
            self._recovered_at = now
            released = jobs_release_abandoned()
            if released:
                logger.warning("%s jobs left running by a stopped process run again", released)
        except Exception:  # noqa: BLE001 - e.g. before migrate
            logger.warning("the embedded runner could not look for abandoned jobs", exc_info=True)
        finally:
            connections.close_all()
            self._recover_lock.release()


@dataclass
class _Lane:
    queues: tuple[str, ...]
    wake: threading.Event = field(default_factory=threading.Event)
    idle: threading.Event = field(default_factory=threading.Event)


_HOST = socket.gethostname()[:20]
_EMBEDDED = "embedded:"


def embedded_claimant() -> str:
    """A claim made by this process's embedded runner: ``embedded:<pid>@<host>:<id>``."""
    return f"{_EMBEDDED}{os.getpid()}@{_HOST}:{uuid.uuid4().hex[:12]}"


def _process_gone(claimant: str) -> bool:
    """Was the claim made by an embedded runner of this machine whose process has ended?"""
    if not claimant.startswith(_EMBEDDED):
        return False
    pid_text, _, rest = claimant[len(_EMBEDDED):].partition("@")
    host = rest.rsplit(":", 1)[0]
    if host != _HOST or not pid_text.isdigit():
        return False
    try:
        os.kill(int(pid_text), 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, another user's
        return False
    return False


def jobs_release_abandoned(*, now: dt.datetime | None = None) -> int:
    """Make pending again the running jobs no live process holds: those claimed by an
    embedded runner of this machine whose process has ended, and any past its lease.
    Returns how many."""
    now = now or timezone.now()
    running = Job.objects.filter(status=Job.Status.RUNNING)
    stale = [
        pk for pk, claimant, claimed_at in running.values_list("pk", "claimed_by", "claimed_at")
        if _process_gone(claimant or "") or (claimed_at is not None and claimed_at < now - claim_lease())
    ]
    if not stale:
        return 0
    return Job.objects.filter(pk__in=stale, status=Job.Status.RUNNING).update(
        status=Job.Status.PENDING, claimed_at=None, claimed_by=""
    )


def embedded_start() -> None:
    """Start the embedded runner when this process serves the site with no broker (called
    by buraco_site.wsgi): it runs the jobs stored by any process, those a stopped server left
    pending included."""
    if embedded() and settings.BURACO_EMBEDDED_JOBS == "thread":
        EmbeddedRunner.get()

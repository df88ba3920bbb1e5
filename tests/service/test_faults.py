"""Faults under CI (issue 8): real processes killed or stopped while they work.

- A worker SIGKILLed (with its pool) while it verifies, or while it analyses: the job runs
  again on the other worker once its lease runs out, and nothing is stored twice.
- The broker down when a record is uploaded: the upload is stored and answered; the job
  waits in the outbox and runs once the broker and a worker are back.
- PostgreSQL restarted in the middle of a batch: every record ends verified (or invalid),
  once.

Each test starts its own redis-server (on a free port, nothing on disk) instead of sharing
the machine's test broker, so that killing it, or another suite's flushdb, touches no one
else. The PostgreSQL test restarts a cluster of its own (initdb in a temporary directory),
never the machine's server that other suites' databases live on: its web process (gunicorn),
workers and beat all use that cluster, and the test reads the tables over its own
connections. Timings are shortened through the settings' environment: JOB_LEASE_SECONDS,
SWEEP_SECONDS, OUTBOX_GRACE_SECONDS.
"""

from __future__ import annotations

import contextlib
import glob
import io
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import psycopg
import pytest
import redis
from django.conf import settings
from django.db import connection
from django.test.client import MULTIPART_CONTENT, encode_multipart
from rest_framework.test import APIClient

from analysis.models import Finding
from buraco.analysis import analyze
from buraco.notation import loads
from buraco.replay import verify
from buraco.rules import VARIANTS
from buraco_site.celery import app as celery_app
from records.models import Hand, Job, Match

from .conftest import (
    ROOT,
    _point_celery_at,
    record_text,
    requires_broker,
    requires_postgres,
    running_worker,
    worker_node,
    workers_ready,
    zip_of,
)
from .helpers import illegal_record, named, publish_give_up_bound, with_event

pytestmark = [pytest.mark.worker, pytest.mark.postgres, requires_postgres, requires_broker]

T = TypeVar("T")

LEASE = 8  # seconds: JOB_LEASE_SECONDS of every process these tests start
SWEEP = 1  # seconds: SWEEP_SECONDS, how often beat sends the sweep
FAST = {"JOB_LEASE_SECONDS": str(LEASE), "SWEEP_SECONDS": str(SWEEP), "OUTBOX_GRACE_SECONDS": "2"}
# The two kinds these tests follow (the luck job, queued after each analysis, runs too: not counted here).
VERIFY_AND_ANALYZE = (Job.Kind.VERIFY, Job.Kind.ANALYZE)
# A takeover is due once the lease has run out and the next sweep has sent the job again; the
# bound allows the sweep's message and the verification itself the rest (a job here takes well
# under a second of CPU).
TAKEOVER_BOUND = LEASE + SWEEP + 9


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def tail(path: Path, lines: int = 60) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError as error:
        return f"({error})"


def wait_for(what: str, check: Callable[[], T], seconds: float, logs: Sequence[Path] = (), every: float = 0.1) -> T:
    """``check()`` until it is true; past ``seconds`` a failure naming ``what``, with the logs' ends."""
    deadline = time.monotonic() + seconds
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            said = "\n".join(f"--- {log.name} ---\n{tail(log)}" for log in logs)
            raise AssertionError(f"{what}: not within {seconds} s\n{said}")
        time.sleep(every)


def kill_group(process: subprocess.Popen[Any]) -> None:
    """SIGKILL a process started with start_new_session=True, and everything it started."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=10)


class RedisServer:
    """A redis-server of this test's own on a free port: no file on disk, killed for real."""

    def __init__(self, directory: Path) -> None:
        self.port = free_port()
        self.directory = directory
        self.log = directory / f"redis-{self.port}.log"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        with self.log.open("ab") as output:
            self.process = subprocess.Popen(
                ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                 "--dir", str(self.directory)],
                stdout=output, stderr=subprocess.STDOUT, start_new_session=True,
            )
        client = redis.Redis(port=self.port, socket_connect_timeout=0.5)

        def answers() -> bool:
            assert self.process is not None and self.process.poll() is None, tail(self.log)
            with contextlib.suppress(redis.ConnectionError):
                return bool(client.ping())
            return False

        wait_for("redis-server answering", answers, 10, [self.log])

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            kill_group(self.process)


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[RedisServer]:
    """A redis-server of the test's own; this process's Celery app sends to it meanwhile."""
    server = RedisServer(tmp_path)
    server.start()
    before = celery_app.conf.broker_url
    _point_celery_at(server.url)
    try:
        yield server
    finally:
        server.kill()
        celery_app.conf.broker_url = before
        _point_celery_at(None)


@pytest.fixture
def faults(transactional_db: Any, private_redis: RedisServer) -> RedisServer:
    """Workers and this process share the test database (committed: the transactional
    fixture) and a private broker."""
    return private_redis


@contextlib.contextmanager
def running_beat(env: dict[str, str], directory: Path) -> Iterator[Path]:
    """Celery beat as a process of its own (it sends the sweep every SWEEP_SECONDS), so that a
    killed worker does not take it along. Yields its log."""
    log = directory / "beat.log"
    with log.open("a") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "buraco_site", "beat", "-s", str(directory / "beat-schedule"),
             "-l", "warning"],
            cwd=ROOT, env={**os.environ, "LOG_LEVEL": "WARNING", **env}, stdout=output, stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        time.sleep(0.5)
        assert process.poll() is None, f"celery beat exited: {tail(log)}"
        yield log
    finally:
        kill_group(process)


def two_workers(stack: contextlib.ExitStack, env: dict[str, str], directory: Path, **options: Any
                ) -> dict[str, tuple[subprocess.Popen[str], Path]]:
    """Two real workers (one pool process each) on the same queues, booting side by side; by
    name (:func:`by_node` keys them by Celery node). The caller waits for :func:`workers_ready`."""
    workers = {}
    for name in (f"fault-a-{os.getpid()}", f"fault-b-{os.getpid()}"):
        log = directory / f"{name}.log"
        process = stack.enter_context(running_worker(1, env=env, name=name, log=log, wait=False, **options))
        workers[name] = (process, log)
    return workers


def by_node(workers: dict[str, tuple[subprocess.Popen[str], Path]]) -> dict[str, tuple[subprocess.Popen[str], Path]]:
    return {worker_node(name): worker for name, worker in workers.items()}


def holder(task: str, match_id: int, nodes: Sequence[str]) -> str | None:
    """The node whose pool runs ``task`` on ``match_id`` now (Celery's inspect)."""
    active = celery_app.control.inspect(destination=list(nodes), timeout=1.0).active() or {}
    for node, requests in active.items():
        for request in requests:
            if request.get("name") == task and str(match_id) in str(request.get("args")):
                return str(node)
    return None


def job(match_id: int, kind: str) -> Job:
    return Job.objects.get(match_id=match_id, kind=kind)


def engine_findings(text: str) -> list[dict[str, Any]]:
    return [finding.as_dict() for finding in analyze(loads(text))]


def stored_findings(match_id: int) -> list[dict[str, Any]]:
    return [finding.as_dict() for finding in Finding.objects.filter(match_id=match_id).order_by("id")]


def assert_verified_once(match_id: int, text: str) -> None:
    """The match's verdict is the engine's, on exactly the record's hands."""
    expected = verify(loads(text))
    match = Match.objects.get(pk=match_id)
    assert match.valid is expected.valid and match.totals == expected.totals
    hands = list(Hand.objects.filter(match_id=match_id).order_by("number").values_list("number", "scores"))
    assert [number for number, _ in hands] == list(range(1, len(loads(text).hands) + 1))
    assert [scores for _, scores in hands] == [hand.scores for hand in expected.hands]


# --- 1. SIGKILL ------------------------------------------------------------------------


@contextlib.contextmanager
def row_locked(match_id: int) -> Iterator[psycopg.Connection[Any]]:
    """The match's row locked (FOR UPDATE) by a connection of our own until it rolls back."""
    database = settings.DATABASES["default"]
    with psycopg.connect(
        host=database["HOST"] or "127.0.0.1", port=database["PORT"] or 5432, user=database["USER"],
        password=database.get("PASSWORD") or None, dbname=database["NAME"],
    ) as lock:
        lock.execute("SELECT id FROM records_match WHERE id = %s FOR UPDATE", [match_id])
        yield lock
        lock.rollback()


def waiting_on_a_lock() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return int(cursor.fetchone()[0])


def test_a_worker_killed_while_verifying_leaves_the_job_to_the_other_worker(
    faults: RedisServer, owner_api: APIClient, tmp_path: Path
) -> None:
    """A replay takes a few hundredths of a second, too short to be caught by polling, so the
    worker is held at the one point where it has claimed the job and is writing the verdict:
    the test locks the match's row before the workers start, the worker's verdict transaction
    waits on it (its hands' rows already updated, nothing committed), and its whole process
    group is SIGKILLed there."""
    text = record_text("cerrado", players=4, hands=6, seed=81)
    response = owner_api.post("/api/matches/", {"file": named(text, "long.brn")}, format="multipart")
    assert response.status_code == 202, response.content
    match_id = response.json()["id"]
    assert job(match_id, "verify").sent_at is not None  # waiting in the broker: no worker yet

    env = {**FAST, "CELERY_BROKER_URL": faults.url}
    with contextlib.ExitStack() as stack, row_locked(match_id) as lock:
        workers = two_workers(stack, env, tmp_path)
        beat = stack.enter_context(running_beat(env, tmp_path))
        workers_ready(dict(workers))
        logs = [beat, *(log for _, log in workers.values())]
        nodes = by_node(workers)
        wait_for("the verify job claimed", lambda: job(match_id, "verify").status == Job.Status.RUNNING, 30, logs)
        node = wait_for("a worker holding the verify job", lambda: holder(
            "records.tasks.verify_match", match_id, list(nodes)), 20, logs)
        wait_for("its verdict's transaction waiting on the row lock", waiting_on_a_lock, 20, logs)
        claimed = job(match_id, "verify")
        victim, _ = nodes[node]
        kill_group(victim)
        killed_at = time.monotonic()
        lock.rollback()  # the lock's work is done: the other worker must be able to write

        # Nothing of the killed run was committed: the job is still its claim.
        killed = job(match_id, "verify")
        assert (killed.status, killed.attempts, killed.claimed_at) == (Job.Status.RUNNING, 1, claimed.claimed_at)
        assert Match.objects.get(pk=match_id).verified_at is None
        assert not Hand.objects.filter(match_id=match_id, valid__isnull=False).exists()

        wait_for("the other worker verifying the match", lambda: job(match_id, "verify").status == Job.Status.DONE,
                 LEASE + 30, logs)
        takeover = time.monotonic() - killed_at
        wait_for("the match analysed", lambda: job(match_id, "analyze").status == Job.Status.DONE, 60, logs)

    verified = job(match_id, "verify")
    assert verified.attempts == 2, f"{verified.attempts} attempts"
    assert takeover < TAKEOVER_BOUND, f"the takeover took {takeover:.1f} s (lease {LEASE} s, sweep every {SWEEP} s)"
    assert_verified_once(match_id, text)
    assert job(match_id, "analyze").attempts == 1
    assert stored_findings(match_id) == engine_findings(text)
    detail = owner_api.get(f"/api/matches/{match_id}/").json()
    assert detail["status"] == "verified" and detail["analysis"]["status"] == "done"
    print(f"verify: killed {node} mid-verdict, taken over {takeover:.1f} s later, attempts {verified.attempts}")


def test_a_worker_killed_while_analysing_leaves_the_job_to_the_other_worker(
    faults: RedisServer, owner_api: APIClient, tmp_path: Path
) -> None:
    """The analysis of a long brasil match takes seconds: the worker is killed in the middle."""
    env = {**FAST, "CELERY_BROKER_URL": faults.url}
    with contextlib.ExitStack() as stack:
        workers = two_workers(stack, env, tmp_path)
        beat = stack.enter_context(running_beat(env, tmp_path))
        text = record_text("brasil", players=2, hands=10, seed=82)  # while the workers boot
        workers_ready(dict(workers))
        logs = [beat, *(log for _, log in workers.values())]
        nodes = by_node(workers)
        response = owner_api.post("/api/matches/", {"file": named(text, "long.brn")}, format="multipart")
        assert response.status_code == 202, response.content
        match_id = response.json()["id"]
        wait_for("the analysis claimed", lambda: Job.objects.filter(
            match_id=match_id, kind="analyze", status=Job.Status.RUNNING).exists(), 60, logs, every=0.05)
        node = wait_for("a worker holding the analysis", lambda: holder(
            "analysis.tasks.analyze_match", match_id, list(nodes)), 10, logs, every=0.05)
        victim, _ = nodes[node]
        kill_group(victim)
        killed_at = time.monotonic()
        killed = job(match_id, "analyze")
        assert (killed.status, killed.attempts) == (Job.Status.RUNNING, 1), "the analysis ended before the kill"
        assert not Finding.objects.filter(match_id=match_id).exists()

        expected = engine_findings(text)  # meanwhile the lease runs out
        wait_for("the other worker analysing the match",
                 lambda: job(match_id, "analyze").status == Job.Status.DONE, LEASE + 40, logs)
        takeover = time.monotonic() - killed_at

    analysed = job(match_id, "analyze")
    assert analysed.attempts == 2, f"{analysed.attempts} attempts"
    assert stored_findings(match_id) == expected and len(expected) > 100
    assert job(match_id, "verify").attempts == 1
    assert_verified_once(match_id, text)
    detail = owner_api.get(f"/api/matches/{match_id}/").json()
    assert detail["status"] == "verified" and detail["analysis"]["status"] == "done"
    print(f"analyze: killed {node} mid-analysis, done {takeover:.1f} s later, attempts {analysed.attempts}")


# --- 2. The broker down ------------------------------------------------------------------


def test_an_upload_while_the_broker_is_down_is_answered_and_runs_once_the_broker_is_back(
    faults: RedisServer, owner_api: APIClient, tmp_path: Path
) -> None:
    faults.kill()
    text = record_text("cerrado", players=2, hands=3, seed=83, mistakes=0.5)
    started = time.monotonic()
    response = owner_api.post("/api/matches/", {"file": named(text, "offline.brn")}, format="multipart")
    answered = time.monotonic() - started
    assert response.status_code == 202, response.content
    assert answered < publish_give_up_bound(), f"the upload took {answered:.1f} s with the broker down"
    match_id = response.json()["id"]
    assert bytes(Match.objects.get(pk=match_id).source) == text.encode()
    waiting = job(match_id, "verify")
    assert (waiting.status, waiting.sent_at, waiting.attempts) == (Job.Status.PENDING, None, 0)

    faults.start()  # the same port, empty: the message was never there
    log = tmp_path / "worker.log"
    env = {**FAST, "CELERY_BROKER_URL": faults.url}
    with running_worker(1, env=env, name=f"fault-back-{os.getpid()}", beat=tmp_path / "beat-schedule", log=log):
        back = time.monotonic()
        wait_for("the match verified and analysed", lambda: Job.objects.filter(
            match_id=match_id, kind__in=VERIFY_AND_ANALYZE, status=Job.Status.DONE).count() == 2, 60, [log])
        took = time.monotonic() - back

    assert [j.attempts for j in Job.objects.filter(match_id=match_id, kind__in=VERIFY_AND_ANALYZE).order_by("kind")] == [1, 1]
    assert job(match_id, "verify").sent_at is not None
    assert_verified_once(match_id, text)
    assert stored_findings(match_id) == engine_findings(text)
    detail = owner_api.get(f"/api/matches/{match_id}/").json()
    assert detail["status"] == "verified" and detail["analysis"]["status"] == "done"
    print(f"broker down: answered in {answered:.2f} s; verified and analysed {took:.1f} s after the worker started")


# --- 3. PostgreSQL restarted ---------------------------------------------------------------


class PostgresCluster:
    """A PostgreSQL cluster of this test's own (initdb), on a free port, TCP only; run as the
    ``postgres`` user when we are root (PostgreSQL refuses to run as root)."""

    def __init__(self) -> None:
        found = shutil.which("pg_ctl") or (sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl")) or [""])[-1]
        assert found, "pg_ctl not found: install PostgreSQL's server binaries"
        self.bin = Path(found).parent
        self.port = free_port()
        self.root = Path(tempfile.mkdtemp(prefix="buraco-faults-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "postgres.log"
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            owner = pwd.getpwnam("postgres")
            os.chown(self.root, owner.pw_uid, owner.pw_gid)
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8")

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/buraco"

    def _run(self, tool: str, *args: str) -> None:
        result = subprocess.run([*self.as_user, str(self.bin / tool), *args], capture_output=True, text=True,
                                timeout=60, check=False)
        assert result.returncode == 0, f"{tool} {args}: {result.stdout}{result.stderr}\n{tail(self.log)}"

    def start(self) -> None:
        options = (f"-p {self.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories='' "
                   "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=50")
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o", options, "-w", "-t", "30", "start")

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "-t", "30", "stop")

    def connect(self, dbname: str = "buraco") -> psycopg.Connection[Any]:
        return psycopg.connect(host="127.0.0.1", port=self.port, user="postgres", dbname=dbname,
                               autocommit=True, connect_timeout=5)

    def remove(self) -> None:
        with contextlib.suppress(AssertionError):
            self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture
def cluster() -> Iterator[PostgresCluster]:
    postgres = PostgresCluster()
    try:
        postgres.start()
        with postgres.connect("postgres") as admin:
            admin.execute("CREATE DATABASE buraco")
        env = {**os.environ, "DATABASE_URL": postgres.url}
        migrated = subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env,
                                  capture_output=True, text=True, timeout=120, check=False)
        assert migrated.returncode == 0, migrated.stdout + migrated.stderr
        yield postgres
    finally:
        postgres.remove()


@contextlib.contextmanager
def running_web(env: dict[str, str], directory: Path) -> Iterator[str]:
    """The site under gunicorn, as production serves it; yields its base URL."""
    port = free_port()
    log = directory / "web.log"
    with log.open("a") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "buraco_site.wsgi:application", "-b", f"127.0.0.1:{port}",
             "-w", "1", "--threads", "2", "--timeout", "60", "--no-control-socket"],
            cwd=ROOT, env={**os.environ, "LOG_LEVEL": "WARNING", **env}, stdout=output, stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    base = f"http://127.0.0.1:{port}"

    def answers() -> bool:
        assert process.poll() is None, f"gunicorn exited: {tail(log)}"
        with contextlib.suppress(OSError):
            with urllib.request.urlopen(f"{base}/api/status/", timeout=2):
                return True
        return False

    try:
        wait_for("gunicorn answering", answers, 30, [log], every=0.2)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            kill_group(process)


def http(method: str, url: str, body: bytes | None = None, headers: dict[str, str] | None = None) -> tuple[int, Any]:
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(errors="replace")


def verify_jobs_done(cluster: PostgresCluster) -> int:
    with cluster.connect() as db:
        row = db.execute("SELECT count(*) FROM records_job WHERE kind = 'verify' AND status = 'done'").fetchone()
        return int(row[0]) if row else 0


def test_a_postgres_restart_in_the_middle_of_a_batch_leaves_every_record_verified_once(
    cluster: PostgresCluster, private_redis: RedisServer, tmp_path: Path
) -> None:
    """A batch through the web process (gunicorn); two workers verify it (one with beat),
    and PostgreSQL is stopped (every session terminated) once they are under way, then
    started again. Jobs cut off retry (autoretry on OperationalError); a claim left behind
    is taken over after its lease."""
    env = {**FAST, "DATABASE_URL": cluster.url, "CELERY_BROKER_URL": private_redis.url}
    with contextlib.ExitStack() as stack:
        base = stack.enter_context(running_web(env, tmp_path))
        workers: dict[str, tuple[subprocess.Popen[str], Path | None]] = {}
        for name, beat in ((f"pg-a-{os.getpid()}", tmp_path / "beat-schedule"), (f"pg-b-{os.getpid()}", None)):
            log = tmp_path / f"{name}.log"
            workers[name] = (stack.enter_context(
                running_worker(1, env=env, name=name, beat=beat, log=log, level="info", wait=False)), log)
        # While they boot: 80 distinct records (20 games under 4 event names each), 4 of them illegal.
        variants = list(VARIANTS)
        games = [record_text(variants[i % len(variants)], players=2, hands=2, seed=300 + i,
                             mistakes=0.3 if i % 7 == 0 else 0.0) for i in range(19)] + [illegal_record(seed=400).text]
        game_of = {f"match-{g:02}-{e}.brn": text for g, text in enumerate(games) for e in range(4)}
        texts = {name: with_event(text, f"club night {name[-5]}") for name, text in game_of.items()}
        workers_ready(workers)
        logs = [tmp_path / "web.log", *(log for _, log in workers.values() if log), cluster.log]

        status, body = http("POST", f"{base}/api/auth/signup/", b'{"username": "bulk", "password": "table-for-four-7"}',
                            {"Content-Type": "application/json"})
        assert status == 201, body
        auth = {"Authorization": f"Token {body['token']}"}
        archive = io.BytesIO(zip_of(texts))
        archive.name = "club.zip"
        status, body = http("POST", f"{base}/api/matches/", encode_multipart("BoUnDaRyStRiNg", {"files": [archive]}),
                            {**auth, "Content-Type": MULTIPART_CONTENT})
        assert status == 202, body
        assert body["total"] == len(texts) == 80
        batch = body["batch"]
        ids = {item["file"].split("/")[-1]: item["id"] for item in body["matches"]}

        wait_for("the workers under way", lambda: verify_jobs_done(cluster) >= 8, 60, logs, every=0.02)
        cluster.stop("fast")  # every session is terminated, the workers' in the middle of their jobs
        stopped = time.monotonic()
        time.sleep(2)
        cluster.start()
        down = time.monotonic() - stopped
        at_restart = verify_jobs_done(cluster)
        assert at_restart < len(texts), "the batch was verified before the restart"

        def finished() -> bool:
            code, progress = http("GET", f"{base}/api/batches/{batch}/", headers=auth)
            return code == 200 and progress["finished"] and progress["done"] == len(texts)

        wait_for("every record of the batch verified", finished, 60, logs, every=0.2)
        verified_after = time.monotonic() - stopped
        analysed = "SELECT count(*) FROM records_job WHERE kind = 'analyze' AND status = 'done' AND match_id = ANY(%s)"

        def all_analysed() -> bool:
            with cluster.connect() as db:
                row = db.execute(analysed, [list(ids.values())]).fetchone()
                return bool(row and row[0] == len(texts))

        wait_for("every record analysed", all_analysed, 60, logs, every=0.2)

    with cluster.connect() as db:
        jobs = {(match_id, kind): (status, attempts) for match_id, kind, status, attempts in db.execute(
            "SELECT match_id, kind, status, attempts FROM records_job WHERE kind IN ('verify', 'analyze')")}
        verdicts = dict(db.execute("SELECT id, valid FROM records_match").fetchall())
        hands = dict(db.execute("SELECT match_id, count(*) FROM records_hand GROUP BY match_id").fetchall())
        findings = dict(db.execute("SELECT match_id, count(*) FROM analysis_finding GROUP BY match_id").fetchall())
    assert len(verdicts) == len(texts) and len(jobs) == 2 * len(texts)
    assert {status for status, _ in jobs.values()} == {"done"}
    # The engine's own verdict, hands and findings (the event name changes none of them).
    engine = {text: (verify(loads(text)).valid, len(loads(text).hands), len(analyze(loads(text)))) for text in games}
    for name, match_id in ids.items():
        stored = (verdicts[match_id], hands[match_id], findings.get(match_id, 0))
        assert stored == engine[game_of[name]], name
    assert sum(valid is False for valid in verdicts.values()) == 4
    retries = sum(tail(log, 100000).count("retry: Retry in") for _, log in workers.values() if log)
    claimed_again = sorted(attempts for (_, kind), (_, attempts) in jobs.items() if attempts > 1)
    print(f"postgres restart: down {down:.1f} s with {at_restart} of {len(texts)} verified; batch verified "
          f"{verified_after:.1f} s after the stop; {retries} task retries; jobs claimed again: {claimed_again}")

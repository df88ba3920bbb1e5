"""Personas and helpers for the service tests.

Personas: ``owner`` uploads; ``coach`` has matches shared with them; ``stranger``
is another account; ``anonymous`` has none. Tasks run in process unless a test
asks for the real worker (``worker`` fixture).
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import socket
import subprocess
import sys
import time
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from buraco.notation import dumps
from buraco.selfplay import play_match
from buraco_site.celery import app as celery_app

ROOT = Path(__file__).resolve().parents[2]
# As `make worker` and the README start workers: settings.BURACO_QUEUES in order (a test checks).
WORKER_QUEUES = "interactive,bulk,analysis,reverify,luck"


@pytest.fixture(autouse=True)
def fresh_cache() -> Iterator[None]:
    # The rate limits count in the cache: counts an earlier test left (its uploads, its
    # log-ins) must not reach the next one, or whether a test meets a 429 depends on the order
    # and the machine's speed.
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def tasks_in_process(settings: Any) -> Iterator[None]:
    # Jobs run in the request that queued them (records/jobs.py's "inline"), so a test reads
    # the verdict right after the upload; tests/service/test_embedded_jobs.py runs the thread.
    settings.BURACO_EMBEDDED_JOBS = "inline"
    _point_celery_at(None)
    yield
    _point_celery_at(None)


def _client_for(user: User | None) -> APIClient:
    client = APIClient()
    if user is not None:
        token, _ = Token.objects.get_or_create(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


@pytest.fixture
def owner(db: Any) -> User:
    return User.objects.create_user("ana", password="pw-ana-123456")


@pytest.fixture
def coach(db: Any) -> User:
    return User.objects.create_user("coach", password="pw-coach-123456")


@pytest.fixture
def stranger(db: Any) -> User:
    return User.objects.create_user("stranger", password="pw-stranger-123456")


@pytest.fixture
def owner_api(owner: User) -> APIClient:
    return _client_for(owner)


@pytest.fixture
def coach_api(coach: User) -> APIClient:
    return _client_for(coach)


@pytest.fixture
def stranger_api(stranger: User) -> APIClient:
    return _client_for(stranger)


@pytest.fixture
def anonymous_api(db: Any) -> APIClient:
    return APIClient()


def record_text(variant: str = "cerrado", players: int = 2, hands: int = 2, seed: int = 1, mistakes: float = 0.0) -> str:
    return dumps(play_match(variant, players=players, hands=hands, seed=seed, mistakes=mistakes))


def zip_of(texts: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in texts.items():
            archive.writestr(name, text)
    return buffer.getvalue()


@pytest.fixture
def upload(django_capture_on_commit_callbacks: Any) -> Callable[..., Any]:
    """POST files to /api/matches/ and run the queued verification in process."""

    def send(client: APIClient, *files: tuple[str, str | bytes], **fields: Any) -> Any:
        payload: dict[str, Any] = dict(fields)
        payload["files"] = [
            io.BytesIO(content.encode() if isinstance(content, str) else content) for _, content in files
        ]
        for handle, (name, _) in zip(payload["files"], files):
            handle.name = name
        with django_capture_on_commit_callbacks(execute=True):
            return client.post("/api/matches/", payload, format="multipart")

    return send


def using_postgres() -> bool:
    return settings.DATABASES["default"]["ENGINE"].endswith("postgresql")


requires_postgres = pytest.mark.skipif(
    not using_postgres(), reason="needs PostgreSQL: set DATABASE_URL=postgres://... (make test finds 127.0.0.1:5432)"
)
requires_broker = pytest.mark.skipif(
    not os.environ.get("BURACO_TEST_BROKER_URL"),
    reason="needs a Redis broker for a real Celery worker: BURACO_TEST_BROKER_URL (make test finds 127.0.0.1:6379)",
)


def _point_celery_at(broker: str | None) -> None:
    """Send tasks to ``broker`` (None: run them in process), dropping pooled connections
    that an earlier test may have opened to the default broker: the service's mode
    (``BURACO_JOBS``, its broker URL) and Celery's own flag."""
    settings.BURACO_JOBS = "embedded" if broker is None else "broker"
    celery_app.conf.task_always_eager = broker is None
    if broker is not None:
        celery_app.conf.broker_url = settings.CELERY_BROKER_URL = broker
    # Celery keeps its connection pool; kombu keys pools by broker, so forgetting ours is enough.
    celery_app._pool = None
    celery_app.amqp._producer_pool = None


def worker_node(name: str) -> str:
    """The node name Celery gives a worker started with ``-n NAME@%h``."""
    return f"{name}@{socket.gethostname()}"


def workers_ready(workers: dict[str, tuple[subprocess.Popen[str], Path | None]], seconds: float = 60) -> None:
    """Wait until every worker (by the name given to :func:`running_worker`, with its process
    and log) answers a ping; a worker that exits or stays silent fails with what it said."""

    def said(process: subprocess.Popen[str], log: Path | None) -> str:
        if log is not None:
            return log.read_text()
        return process.stdout.read() if process.stdout and process.poll() is not None else ""

    waiting = {worker_node(name): worker for name, worker in workers.items()}
    deadline = time.monotonic() + seconds
    while waiting:
        for node, (process, log) in waiting.items():
            if process.poll() is not None:
                raise RuntimeError(f"the worker {node} exited: {said(process, log)}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"no answer to a ping within {seconds} s from " + "; ".join(
                f"{node}: {said(process, log)}" for node, (process, log) in waiting.items()))
        for reply in celery_app.control.ping(destination=list(waiting), timeout=1.0) or []:
            for node in reply:
                waiting.pop(node, None)


@contextlib.contextmanager
def running_worker(
    concurrency: int = 2,
    *,
    env: dict[str, str] | None = None,
    name: str | None = None,
    beat: Path | None = None,
    log: Path | None = None,
    level: str = "warning",
    wait: bool = True,
) -> Iterator[subprocess.Popen[str]]:
    """A real Celery worker process on the test broker, against this test database.

    ``env`` adds to (or overrides) its environment: ``CELERY_BROKER_URL`` and
    ``DATABASE_URL`` point it elsewhere, ``JOB_LEASE_SECONDS`` or ``SWEEP_SECONDS`` shorten
    its timings. ``name`` is its node name (before ``@host``); ``beat``, a schedule file,
    embeds Celery beat (``-B -s``); ``log`` takes its output (a pipe otherwise), at Celery's
    ``level``. It runs in a session of its own, so that ``os.killpg(process.pid, ...)``
    reaches its pool too. ``wait=False`` yields at once (several workers boot side by side):
    the caller then waits for :func:`workers_ready`.
    """
    database = settings.DATABASES["default"]
    url = (
        f"postgres://{database['USER']}:{database.get('PASSWORD') or ''}@{database['HOST'] or '127.0.0.1'}:"
        f"{database['PORT'] or 5432}/{database['NAME']}"
    )
    base = {"DATABASE_URL": url, "CELERY_BROKER_URL": os.environ.get("BURACO_TEST_BROKER_URL", "")}
    env = {**os.environ, **base, "LOG_LEVEL": "WARNING", **(env or {})}
    broker = env["CELERY_BROKER_URL"]
    name = name or f"test-worker-{os.getpid()}"
    command = [sys.executable, "-m", "celery", "-A", "buraco_site", "worker", "-Q", WORKER_QUEUES,
               "-c", str(concurrency), "--without-gossip", "--without-mingle", "--without-heartbeat", "-l", level,
               "-n", f"{name}@%h"]
    if beat is not None:
        command += ["-B", "-s", str(beat)]
    output = log.open("a") if log is not None else None
    process = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=output or subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,
    )
    _point_celery_at(broker)

    try:
        if wait:
            workers_ready({name: (process, log)})
        yield process
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                pass
        with contextlib.suppress(ProcessLookupError):  # its pool and beat, if it was killed alone
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
        if output is not None:
            output.close()


@pytest.fixture
def broker(transactional_db: Any) -> Iterator[str]:
    """Tasks go to the test broker (emptied first) instead of running in process."""
    url = os.environ["BURACO_TEST_BROKER_URL"]
    import redis

    redis.Redis.from_url(url).flushdb()
    _point_celery_at(url)
    try:
        yield url
    finally:
        _point_celery_at(None)


@pytest.fixture
def worker(broker: str) -> Iterator[subprocess.Popen[str]]:
    with running_worker() as process:
        yield process

"""Personas and helpers for the service tests.

Personas: ``owner`` uploads; ``coach`` has matches shared with them; ``stranger``
is another account; ``anonymous`` has none. Tasks run in process unless a test
asks for the real worker (``worker`` fixture).
"""

from __future__ import annotations

import contextlib
import io
import os
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
WORKER_QUEUES = "interactive,bulk,analysis,reverify"


@pytest.fixture(autouse=True)
def tasks_in_process(settings: Any) -> Iterator[None]:
    # Jobs run in the request that queued them (records/jobs.py's "inline"), so a test reads
    # the verdict right after the upload; tests/service/test_embedded_jobs.py runs the thread.
    settings.BURACO_EMBEDDED_JOBS = "inline"
    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = True


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
    that an earlier test may have opened to the default broker."""
    celery_app.conf.task_always_eager = broker is None
    if broker is not None:
        celery_app.conf.broker_url = broker
    # Celery keeps its connection pool; kombu keys pools by broker, so forgetting ours is enough.
    celery_app._pool = None
    celery_app.amqp._producer_pool = None


@contextlib.contextmanager
def running_worker(concurrency: int = 2) -> Iterator[subprocess.Popen[str]]:
    """A real Celery worker process on the test broker, against this test database."""
    broker = os.environ["BURACO_TEST_BROKER_URL"]
    database = settings.DATABASES["default"]
    url = (
        f"postgres://{database['USER']}:{database.get('PASSWORD') or ''}@{database['HOST'] or '127.0.0.1'}:"
        f"{database['PORT'] or 5432}/{database['NAME']}"
    )
    env = {**os.environ, "DATABASE_URL": url, "CELERY_BROKER_URL": broker, "LOG_LEVEL": "WARNING"}
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "buraco_site", "worker", "-Q", WORKER_QUEUES,
         "-c", str(concurrency), "--without-gossip", "--without-mingle", "--without-heartbeat", "-l", "warning",
         "-n", f"test-worker-{os.getpid()}@%h"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    _point_celery_at(broker)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"the worker exited: {process.stdout.read() if process.stdout else ''}")
            if celery_app.control.ping(timeout=1.0):
                break
        else:
            raise RuntimeError("the worker did not answer a ping within 60 s")
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


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

"""`make run` on a fresh machine: migrate, load the examples, serve, on a fresh SQLite
database, ten times in a row, as separate processes exactly as the Makefile runs them.

Every try must pass without an error, and every example must be verified and analysed
within a minute of the server starting: the examples loaded before it starts, and those
`load_examples` stores while it runs (another process writing the same SQLite file as the
server's job threads).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(path.name for path in (ROOT / "docs" / "examples").glob("*.brn"))
TRIES = 10
DEADLINE = 60.0  # seconds from the server's start (the "within a minute")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _environment(database: Path) -> dict[str, str]:
    """The embedded default: no broker, jobs in the server's threads, SQLite at ``database``."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("CELERY_BROKER_URL", "EMBEDDED_JOBS", "CACHE_URL", "BURACO_TEST_BROKER_URL")}
    env["DATABASE_URL"] = f"sqlite:///{database}"
    env["PYTHONUNBUFFERED"] = "1"
    return env


def _manage(env: dict[str, str], *arguments: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *arguments], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"manage.py {' '.join(arguments)} exited {done.returncode}:\n{output}"
    assert "Traceback" not in output and "database is locked" not in output, output
    return output


@contextlib.contextmanager
def _server(env: dict[str, str], port: int, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """`manage.py runserver` as `make run` starts it (with its autoreloader), on ``port``."""
    with log.open("wb") as output:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}"],
            cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT, start_new_session=True,
        )
    try:
        yield process
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


def _get(port: int, path: str) -> Any:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as response:
        return json.loads(response.read())


def _wait_until_up(port: int, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert process.poll() is None, f"the server exited:\n{log.read_text()}"
        with contextlib.suppress(OSError):
            if _get(port, "/api/health/") == {"ok": True}:
                return
        time.sleep(0.2)
    raise AssertionError(f"the server did not answer within 60 s:\n{log.read_text()}")


def _examples_state(port: int) -> dict[str, tuple[str, str | None]]:
    """Each public example's file name with its status and its analysis's status."""
    listed = _get(port, "/api/matches/")["results"]
    return {match["filename"]: (match["status"], match["analysis"]["status"]) for match in listed}


def _wait_until_examined(port: int, names: list[str], since: float, log: Path) -> float:
    """Wait (up to DEADLINE from ``since``) until every named example is verified and
    analysed; returns how long it took."""
    state: dict[str, tuple[str, str | None]] = {}
    while time.monotonic() - since < DEADLINE:
        state = _examples_state(port)
        if all(state.get(name) == ("verified", "done") for name in names):
            return time.monotonic() - since
        time.sleep(0.3)
    waiting = {name: state.get(name) for name in names if state.get(name) != ("verified", "done")}
    raise AssertionError(f"not verified and analysed {DEADLINE:.0f} s after the start: {waiting}\n{log.read_text()}")


@pytest.mark.parametrize("attempt", range(1, TRIES + 1))
def test_make_run_starts_on_a_fresh_database_and_examines_every_example(attempt: int, tmp_path: Path) -> None:
    env = _environment(tmp_path / "db.sqlite3")
    port = _free_port()
    log = tmp_path / "server.log"
    _manage(env, "migrate", "--noinput")
    # Every other try starts the server first: load_examples then writes beside its job threads.
    loads_first = attempt % 2 == 1
    if loads_first:
        _manage(env, "load_examples")
    with _server(env, port, log) as server:
        started = time.monotonic()
        _wait_until_up(port, server, log)
        if not loads_first:
            _manage(env, "load_examples")
        _wait_until_examined(port, EXAMPLES, started, log)

        # load_examples again with the server up, after two examples were deleted: they are
        # stored again by another process and examined by the server's threads.
        again = EXAMPLES[:2]
        _manage(env, "shell", "-c",
                f"from records.models import Match; Match.objects.filter(filename__in={again!r}).delete()")
        rerun = time.monotonic()
        assert "2 new example match(es)" in _manage(env, "load_examples")
        _wait_until_examined(port, EXAMPLES, rerun, log)
    server_log = log.read_text()
    assert "Traceback" not in server_log and "database is locked" not in server_log, server_log

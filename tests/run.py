"""`make test`: the whole suite, on PostgreSQL and Redis whenever they answer.

Without them the PostgreSQL and real-worker tests are skipped, each naming why
(pytest -ra prints the reasons). Under CI (CI=true) both are required, and so is a fresh
build of the analysis's compiled searches (``make test`` makes it).

Two passes: the engine with its searches interpreted, then everything with them compiled
where they are built. With arguments, one pytest run of those arguments.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def answers(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1.5):
            return True
    except OSError:
        return False


def postgres_url() -> str | None:
    url = os.environ.get("DATABASE_URL")
    if url:
        return url if url.startswith("postgres") else None
    if not answers("127.0.0.1", 5432):
        return None
    try:
        import psycopg

        psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres", connect_timeout=3).close()
    except Exception as error:  # noqa: BLE001 - any failure means "not usable here"
        print(f"PostgreSQL answers on 127.0.0.1:5432 but refuses us: {error}")
        return None
    # Its own name per run: two suites on one machine must not drop each other's test database.
    return f"postgres://postgres@127.0.0.1:5432/buraco_{os.getpid()}"


def main() -> int:
    database = postgres_url()
    if database and "DATABASE_URL" not in os.environ:
        os.environ["DATABASE_URL"] = database
    broker = os.environ.get("BURACO_TEST_BROKER_URL")
    if not broker and answers("127.0.0.1", 6379):
        broker = os.environ["BURACO_TEST_BROKER_URL"] = "redis://127.0.0.1:6379/15"
    print(f"database: {'PostgreSQL ' + database if database else 'SQLite (PostgreSQL tests will be skipped)'}")
    print(f"broker for real-worker tests: {broker or 'none (real-worker tests will be skipped)'}")
    if os.environ.get("CI") and not (database and broker):
        print("CI needs PostgreSQL and Redis: start them (see .ci/run) before the tests")
        return 1
    if os.environ.get("CI"):
        # CI tests what the service runs: the analysis's searches compiled (make builds them).
        os.environ.setdefault("BURACO_COMPILED", "required")
    if sys.argv[1:]:
        import pytest

        return int(pytest.main(sys.argv[1:]))
    interpreted = interpreted_pass()
    return compiled_pass() or interpreted  # both run: a failure of either shows whole


def interpreted_pass() -> int:
    """The engine's tests and doctests with the analysis's searches interpreted, from their
    source (buraco/analysis/compiled.py): the source is what runs where nothing is compiled,
    and only it can run the tests marked ``interpreted``."""
    print("\n== the engine, its searches interpreted (BURACO_COMPILED=off) ==", flush=True)
    env = {**os.environ, "BURACO_COMPILED": "off"}
    return subprocess.run([sys.executable, "-m", "pytest", "tests/engine", "buraco"], cwd=ROOT, env=env,
                          check=False).returncode


def compiled_pass() -> int:
    """Everything, with the searches compiled where a fresh build exists; the tests marked
    ``interpreted`` ran in the first pass."""
    import pytest

    print(f"\n== everything, the searches as BURACO_COMPILED={os.environ.get('BURACO_COMPILED', 'auto')} has them ==",
          flush=True)
    return int(pytest.main(["-m", "not interpreted"]))


if __name__ == "__main__":
    sys.exit(main())

"""End-to-end ingest throughput of the service: zips in over HTTP, verdicts out of workers.

What it does, in order:

1. Generates self-play records totalling ``--hands`` hands (matches of 5 hands,
   cycling over the nine rule sets, 2 or 4 players where the rule set allows),
   writes them as ``.brn`` texts and zips them into ``--batches`` batches.
   Not timed; the zips are cached in the temp directory, keyed by the engine
   sources, so a rerun skips generation.
2. The engine alone, one process: ``verify(loads(source))`` over the same texts
   (the first pass with the action cache empty, as in a fresh worker; then the
   best of two warm passes), in CPU time of this process (``time.process_time``).
3. The service, on a dedicated PostgreSQL database (``buraco_bench``, dropped,
   recreated and migrated) and Redis db 14 (flushed): ``--workers`` Celery
   worker processes (``-c 1`` each), ``manage.py runserver`` as the web
   process, one user with an API token.  ``DEBUG=0`` everywhere, as in
   production (Django keeps no query log).
4. Timed: from the first upload POST (multipart zip to ``/api/matches/``) until
   every batch reports ``finished`` on ``/api/batches/{id}/``;
   ``/api/status/`` is sampled every second meanwhile, and so is the CPU time
   (``/proc``) of the web process, the workers and the PostgreSQL backends:
   CPU per hand does not depend on what else the machine runs, wall time does.
   Each verdict also queues the match's analysis job (``records.services._store_verdict``,
   queue ``analysis``): by default the workers do not take that queue, so the run
   measures verification plus the storing and sending of the analysis jobs, not the
   analysis itself.  With ``--analysis`` the workers take the analysis queue too and
   the run lasts until every analysis job (a ``records_job`` row of kind ``analyze``)
   has finished.
5. Where the time goes: ``services.upload_create`` and ``services.match_verify``
   in this process, on the same database, for ``--profile-hands`` hands: first
   each phase of ``match_verify`` timed by hand (no profiler), then cProfile; and
   ``analysis.services.match_analyze``'s phases for ``--analysis-profile-hands`` hands.
6. Workers and the web process are always stopped (``finally``).

Run: ``.venv/bin/python bench/ingest.py [--hands 10000] [--workers 2] [--quick] [--analysis]``
(needs PostgreSQL on 127.0.0.1:5432, user ``postgres`` with trust auth, and
Redis on 127.0.0.1:6379).  The output is Markdown.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import importlib
import io
import json
import os
import platform
import pstats
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
import zipfile
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, sys.path[0] is bench/; the engine and the site sit one level up.
sys.path.insert(1, str(ROOT))

from buraco import notation  # noqa: E402
from buraco.notation import dumps, loads  # noqa: E402
from buraco.replay import verify  # noqa: E402
from buraco.rules import VARIANTS  # noqa: E402
from buraco.selfplay import play_match  # noqa: E402

HANDS_PER_MATCH = 5
VARIANT_IDS = tuple(VARIANTS)
MAX_SKIPPED_SEEDS = 100  # self-play that raises this often is broken: stop rather than hide it

PG_ADMIN_URL = "postgres://postgres@127.0.0.1:5432/postgres"
DB_NAME = "buraco_bench"
DATABASE_URL = f"postgres://postgres@127.0.0.1:5432/{DB_NAME}"
BROKER_URL = "redis://127.0.0.1:6379/14"
HOST = "127.0.0.1"
VERIFY_QUEUES = ("interactive", "bulk", "reverify")
ANALYSIS_QUEUE = "analysis"  # records.jobs.ANALYSIS_QUEUE: every verdict queues an analysis job there

STATUS_INTERVAL = 1.0  # seconds between /api/status/ samples
BATCH_POLL_INTERVAL = 0.25  # seconds between /api/batches/{id}/ polls
STARTUP_TIMEOUT = 90.0
RUN_TIMEOUT = 3600.0


# --- 1. the corpus (not timed) ---------------------------------------------------------


@dataclass(frozen=True)
class Corpus:
    batches: list[bytes]  # zip archives, in upload order
    sources: list[bytes]  # every record, in the same order as in the zips
    hands: int
    actions: int
    skipped_seeds: int
    cached: bool

    @property
    def matches(self) -> int:
        return len(self.sources)

    @property
    def megabytes(self) -> float:
        return sum(len(s) for s in self.sources) / 1e6

    @property
    def zip_megabytes(self) -> float:
        return sum(len(z) for z in self.batches) / 1e6


def players_for(seed: int) -> int:
    """4 players on every other round over the rule sets, where the rule set allows."""
    allowed = VARIANTS[VARIANT_IDS[seed % len(VARIANT_IDS)]].player_counts
    wanted = 4 if (seed // len(VARIANT_IDS)) % 2 else 2
    return wanted if wanted in allowed else min(allowed)


def play_one(seed: int) -> tuple[str, str, int, int] | None:
    """One self-play match as (file name, BRN text, hands, actions); None if self-play got stuck."""
    variant = VARIANT_IDS[seed % len(VARIANT_IDS)]
    players = players_for(seed)
    try:
        record = play_match(variant, players=players, hands=HANDS_PER_MATCH, seed=seed)
    except RuntimeError:  # a self-play bug, not a verify cost
        return None
    name = f"{seed:06d}-{variant}-{players}p.brn"
    return name, dumps(record), len(record.hands), sum(len(h.actions) for h in record.hands)


def engine_fingerprint() -> str:
    digest = hashlib.sha256()
    for path in sorted((ROOT / "buraco").glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def generate(hands: int, batches: int) -> tuple[list[tuple[str, str, int, int]], int]:
    """Self-play matches until ``hands`` hands, on every core (generation is not timed)."""
    wanted = -(-hands // HANDS_PER_MATCH)
    records: list[tuple[str, str, int, int]] = []
    skipped = 0
    next_seed = 0
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        while len(records) < wanted:
            seeds = range(next_seed, next_seed + wanted - len(records))
            next_seed = seeds.stop
            for result in pool.map(play_one, seeds, chunksize=8):
                if result is None:
                    skipped += 1
                    if skipped > MAX_SKIPPED_SEEDS:
                        raise SystemExit(f"self-play got stuck {skipped} times: fix selfplay first")
                else:
                    records.append(result)
    return records, skipped


def zip_of(members: Sequence[tuple[str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in members:
            archive.writestr(name, content)
    return buffer.getvalue()


def unzip(archive: bytes) -> list[bytes]:
    with zipfile.ZipFile(io.BytesIO(archive)) as opened:
        return [opened.read(info) for info in opened.infolist()]


def load_corpus(hands: int, batches: int, cache_root: Path) -> Corpus:
    cache = cache_root / f"{engine_fingerprint()}-{hands}h-{batches}b"
    manifest = cache / "manifest.json"
    if manifest.exists():
        meta = json.loads(manifest.read_text())
        zips = [(cache / name).read_bytes() for name in meta["zips"]]
        sources = [member for archive in zips for member in unzip(archive)]
        return Corpus(zips, sources, meta["hands"], meta["actions"], meta["skipped"], cached=True)

    records, skipped = generate(hands, batches)
    per_batch = -(-len(records) // batches)
    zips = [
        zip_of([(name, text.encode()) for name, text, _, _ in records[start:start + per_batch]])
        for start in range(0, len(records), per_batch)
    ]
    total_hands = sum(r[2] for r in records)
    total_actions = sum(r[3] for r in records)
    cache.mkdir(parents=True, exist_ok=True)
    names = [f"batch-{index + 1:02d}.zip" for index in range(len(zips))]
    for name, archive in zip(names, zips, strict=True):
        (cache / name).write_bytes(archive)
    manifest.write_text(json.dumps({"zips": names, "hands": total_hands, "actions": total_actions,
                                    "skipped": skipped}))
    sources = [text.encode() for _, text, _, _ in records]
    return Corpus(zips, sources, total_hands, total_actions, skipped, cached=False)


# --- 2. the engine alone, one process ----------------------------------------------------


@dataclass(frozen=True)
class EngineResult:
    cold_s: float  # first pass, action cache emptied
    warm_s: float  # best of two more passes
    hands: int

    @property
    def cold_hands_per_s(self) -> float:
        return self.hands / self.cold_s

    @property
    def hands_per_s(self) -> float:
        return self.hands / self.warm_s


def verify_all(sources: Sequence[bytes]) -> float:
    """CPU seconds of this process (the machine is shared: wall time would count other jobs)."""
    start = time.process_time()
    for source in sources:
        report = verify(loads(source))
        if not report.ok:
            raise SystemExit(f"a self-play record does not verify: {report.error}")
    return time.process_time() - start


def measure_engine(corpus: Corpus) -> EngineResult:
    cache = getattr(notation, "_ACTION_CACHE", None)
    if isinstance(cache, dict):
        cache.clear()
    cold = verify_all(corpus.sources)
    warm = min(verify_all(corpus.sources) for _ in range(2))
    return EngineResult(cold, warm, corpus.hands)


# --- 3. the service: database, broker, workers, web process --------------------------------


def service_env() -> dict[str, str]:
    return {
        **os.environ,
        "DATABASE_URL": DATABASE_URL,
        "CELERY_BROKER_URL": BROKER_URL,
        "DJANGO_SETTINGS_MODULE": "buraco_site.settings",
        "DEBUG": "0",
        "LOG_LEVEL": "WARNING",
        "PYTHONUNBUFFERED": "1",
    }


def reset_database() -> str:
    """Drop and recreate the bench database; returns the server's version."""
    import psycopg

    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as connection:
        connection.execute(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")
        connection.execute(f"CREATE DATABASE {DB_NAME}")
        row = connection.execute("SHOW server_version").fetchone()
    return str(row[0]) if row else "?"


def reset_broker() -> str:
    """Flush the bench's Redis db; returns the server's version."""
    import redis

    client = redis.Redis.from_url(BROKER_URL)
    client.flushdb()
    info: dict[str, Any] = client.info("server")
    return str(info.get("redis_version", "?"))


def manage(*args: str, env: dict[str, str]) -> str:
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"manage.py {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def create_token(env: dict[str, str]) -> str:
    code = (
        "from django.contrib.auth.models import User\n"
        "from rest_framework.authtoken.models import Token\n"
        "user = User.objects.create_user('bench', password='bench-' + 'x' * 20)\n"
        "print('TOKEN', Token.objects.create(user=user).key)\n"
    )
    output = manage("shell", "-c", code, env=env)
    for line in output.splitlines():
        if line.startswith("TOKEN "):
            return line.split()[1]
    raise SystemExit(f"could not create the bench user's token: {output}")


class Processes:
    """Child processes started by the bench, each in its own process group; stopped in ``stop``."""

    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        self.started: list[tuple[str, subprocess.Popen[bytes]]] = []

    def start(self, name: str, command: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
        log = open(self.log_dir / f"{name}.log", "wb")  # noqa: SIM115 -- closed when the child ends
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        log.close()  # the child holds its own copy
        self.started.append((name, process))
        return process

    def check_alive(self) -> None:
        for name, process in self.started:
            if process.poll() is not None:
                raise SystemExit(f"{name} exited with {process.returncode}:\n{self.log_tail(name)}")

    def log_tail(self, name: str, lines: int = 30) -> str:
        path = self.log_dir / f"{name}.log"
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:]) if path.exists() else ""

    def stop(self) -> None:
        """SIGTERM to each child (a Celery worker finishes its task and stops its pool), SIGKILL if need be."""
        for _, process in self.started:
            if process.poll() is None:
                process.terminate()
        deadline = time.monotonic() + 30
        for _, process in self.started:
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                _signal_group(process, signal.SIGKILL)
                process.wait(timeout=10)
            # prefork children left behind by a killed worker share its group; none after a clean stop
            _signal_group(process, signal.SIGKILL)
        self.started.clear()


def _signal_group(process: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    try:
        os.killpg(process.pid, sig)  # the group this bench created for the child
    except (ProcessLookupError, PermissionError):
        pass


def port_is_free(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex((HOST, port)) != 0


def wait_for_workers(names: list[str], processes: Processes) -> None:
    from celery import Celery

    app = Celery("bench-ping", broker=BROKER_URL, set_as_current=False)
    deadline = time.monotonic() + STARTUP_TIMEOUT
    try:
        while time.monotonic() < deadline:
            processes.check_alive()
            replies = app.control.ping(destination=names, timeout=1.0)
            answered = {name for reply in replies for name in reply}
            if answered >= set(names):
                return
        raise SystemExit(f"workers did not all answer a ping within {STARTUP_TIMEOUT:.0f} s")
    finally:
        app.close()


# --- HTTP, by hand (stdlib only) -------------------------------------------------------------


class Api:
    def __init__(self, base: str, token: str | None = None) -> None:
        self.base = base
        self.token = token

    def call(self, method: str, path: str, body: bytes | None = None, content_type: str | None = None,
             timeout: float = 600.0) -> tuple[int, dict[str, Any]]:
        headers = {"Accept": "application/json"}
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        if content_type:
            headers["Content-Type"] = content_type
        request = urllib.request.Request(self.base + path, data=body, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return int(response.status), _json(response.read())
        except urllib.error.HTTPError as error:
            return int(error.code), _json(error.read())

    def get(self, path: str) -> dict[str, Any]:
        code, data = self.call("GET", path, timeout=60.0)
        if code != 200:
            raise RuntimeError(f"GET {path}: {code} {data}")
        return data

    def upload_zip(self, name: str, archive: bytes, label: str) -> dict[str, Any]:
        body, content_type = multipart({"label": label}, [("files", name, "application/zip", archive)])
        code, data = self.call("POST", "/api/matches/", body, content_type)
        if code != 202:
            raise RuntimeError(f"upload {name}: {code} {str(data)[:500]}")
        return data


def _json(raw: bytes) -> dict[str, Any]:
    try:
        data = json.loads(raw or b"{}")
    except json.JSONDecodeError:
        return {"raw": raw[:500].decode(errors="replace")}
    return data if isinstance(data, dict) else {"data": data}


def multipart(fields: dict[str, str], files: Sequence[tuple[str, str, str, bytes]]) -> tuple[bytes, str]:
    """A multipart/form-data body: plain fields, then (field, file name, content type, bytes)."""
    boundary = f"----bench{uuid.uuid4().hex}"
    parts: list[bytes] = []
    for name, value in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
    for name, filename, content_type, content in files:
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
            f"Content-Type: {content_type}\r\n\r\n".encode()
        )
        parts.append(content)
        parts.append(b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def wait_for_web(api: Api, processes: Processes) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        processes.check_alive()
        try:
            if api.call("GET", "/api/health/", timeout=2.0)[0] == 200:
                return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.2)
    raise SystemExit(f"the web process did not answer within {STARTUP_TIMEOUT:.0f} s")


# --- 4. the timed run -------------------------------------------------------------------------


@dataclass(frozen=True)
class StatusSample:
    at: float  # seconds since the first upload began
    waiting: int  # pending + running jobs on the verify queues (database)
    broker: int | None  # messages in Redis, verify queues
    oldest_age: float | None  # seconds the oldest waiting job on the verify queues has waited
    analysis_waiting: int = 0  # pending + running jobs on the analysis queue

# CPU time by role, read from /proc: unlike wall time it does not depend on what else the
# machine runs (other jobs on these 2 cores make the wall times noisy).

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
ROLES = ("web", "workers", "postgres", "bench")


def proc_stat(pid: int) -> tuple[int, float, float] | None:
    """(parent pid, CPU seconds: user + system, CPU seconds of its exited children) of a live process."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[1]), (int(fields[11]) + int(fields[12])) / CLOCK_TICKS,
            (int(fields[13]) + int(fields[14])) / CLOCK_TICKS)


def machine_busy_seconds() -> float:
    """CPU seconds all cores spent not idle since boot."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]  # idle + iowait
    return (sum(values[:8]) - idle) / CLOCK_TICKS


class CpuSampler(threading.Thread):
    """Every second: CPU seconds of the web process, the workers (with their pool children),
    this bench and the PostgreSQL backends serving the bench database.  A process first seen
    after the start counts from zero.  Backends that live less than a second (runserver opens
    a connection per request thread) are counted through the postmaster, which reaps them:
    its children's CPU may include other clients of the same server."""

    def __init__(self, roots: dict[str, list[int]]) -> None:
        super().__init__(name="cpu-sampler", daemon=True)
        self.roots = roots
        self.first: dict[int, float] = {}
        self.last: dict[int, tuple[str, float]] = {}
        self._stop_event = threading.Event()
        self.machine_s = 0.0
        self.postmaster: int | None = None
        self.connection: Any = None  # psycopg.Connection, opened in run()
        self.reaped = [0.0, 0.0]  # the postmaster's exited children's CPU, first and last sample

    def _pids(self) -> dict[int, str]:
        parents: dict[int, int] = {}
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                stat = proc_stat(int(entry.name))
                if stat is not None:
                    parents[int(entry.name)] = stat[0]
        roles = {pid: role for role, pids in self.roots.items() for pid in pids}
        changed = True
        while changed:  # descendants take their ancestor's role
            changed = False
            for pid, parent in parents.items():
                if pid not in roles and parent in roles:
                    roles[pid] = roles[parent]
                    changed = True
        for pid in self._backends():
            roles[pid] = "postgres"
        roles[os.getpid()] = "bench"
        return roles

    def _backends(self) -> list[int]:
        rows = self.connection.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()", (DB_NAME,)
        ).fetchall()
        return [int(row[0]) for row in rows]

    def sample(self, first: bool) -> None:
        for pid, role in self._pids().items():
            stat = proc_stat(pid)
            if stat is None:
                continue
            if pid not in self.first:
                self.first[pid] = stat[1] if first else 0.0
            self.last[pid] = (role, stat[1])
        postmaster = proc_stat(self.postmaster) if self.postmaster is not None else None
        if postmaster is not None:
            if first:
                self.reaped[0] = postmaster[2]
            self.reaped[1] = postmaster[2]

    def run(self) -> None:
        import psycopg

        # One connection for the whole run: its backend is the sampler's, not the service's.
        with psycopg.connect(DATABASE_URL, autocommit=True) as self.connection:
            row = self.connection.execute("SELECT pg_backend_pid()").fetchone()
            own = proc_stat(int(row[0])) if row else None
            self.postmaster = own[0] if own else None
            busy_start = machine_busy_seconds()
            self.sample(first=True)
            while not self._stop_event.wait(1.0):
                self.sample(first=False)
            self.sample(first=False)
            self.machine_s = machine_busy_seconds() - busy_start

    def stop(self) -> dict[str, float]:
        self._stop_event.set()
        self.join(timeout=60)
        totals = dict.fromkeys(ROLES, 0.0)
        for pid, (role, seconds) in self.last.items():
            totals[role] += seconds - self.first[pid]
        totals["postgres"] += self.reaped[1] - self.reaped[0]
        return totals


class StatusSampler(threading.Thread):
    """Samples /api/status/ every STATUS_INTERVAL seconds until stopped."""

    def __init__(self, api: Api, start: float) -> None:
        super().__init__(name="status-sampler", daemon=True)
        self.api = api
        self.start_time = start
        self.samples: list[StatusSample] = []
        self.errors = 0
        self._stop_event = threading.Event()

    def run(self) -> None:
        while True:
            try:
                data = self.api.get("/api/status/")
                all_queues: dict[str, dict[str, Any]] = data["queues"]
                queues = {name: q for name, q in all_queues.items() if name != ANALYSIS_QUEUE}
                depths = [q["broker_depth"] for q in queues.values()]
                ages = [q["oldest_age_seconds"] for q in queues.values() if q.get("oldest_age_seconds") is not None]
                self.samples.append(StatusSample(
                    at=time.perf_counter() - self.start_time,
                    waiting=sum(int(q["waiting"]) for q in queues.values()),
                    broker=None if any(d is None for d in depths) else sum(int(d) for d in depths),
                    oldest_age=max(ages) if ages else None,
                    analysis_waiting=int(all_queues.get(ANALYSIS_QUEUE, {}).get("waiting", 0)),
                ))
            except Exception:  # a sample lost is not a reason to stop the run
                self.errors += 1
            if self._stop_event.wait(STATUS_INTERVAL):
                return

    def stop(self) -> None:
        self._stop_event.set()
        self.join(timeout=30)


@dataclass(frozen=True)
class Upload:
    batch: int
    matches: int
    seconds: float


@dataclass(frozen=True)
class AnalysisStats:
    """The analysis jobs queued by the verdicts (records_job, kind 'analyze')."""

    jobs: int
    done: int
    failed: int
    pending: int  # pending or running at the end
    last_finished: float | None  # epoch seconds
    job_s_sum: float  # sum of finished_at - claimed_at
    job_s_median: float
    job_s_p95: float
    job_s_max: float
    findings: int


@dataclass(frozen=True)
class JobStats:
    """Read from the database after the run (timestamps are the service's own): the verify
    jobs (records_job, kind 'verify') and the matches' verdicts."""

    matches: int
    verified: int
    invalid: int
    failed: int
    max_attempts: int
    first_enqueued: float  # epoch seconds
    first_claimed: float
    last_verified: float
    job_s_sum: float  # sum over verify jobs of finished_at - claimed_at (inside match_verify)
    job_s_median: float
    job_s_p95: float
    hands: int


@dataclass
class RunResult:
    workers: int
    uploads: list[Upload]
    upload_s: float
    wall_s: float  # first POST until every batch is seen finished
    last_verdict_s: float  # first POST until the last verdict's timestamp
    first_claim_s: float  # first POST until a worker claimed the first job
    samples: list[StatusSample]
    sample_errors: int
    cpu_s: dict[str, float]  # CPU seconds by role during the timed run
    machine_cpu_s: float  # CPU seconds of every process on the machine, same window
    jobs: JobStats
    analysis: AnalysisStats
    analysis_wall_s: float | None  # first POST until every analysis job finished (with --analysis)
    load_before: tuple[float, float, float]
    load_after: tuple[float, float, float]
    versions: dict[str, str] = field(default_factory=dict)

    @property
    def hands_per_s(self) -> float:
        return self.jobs.hands / self.wall_s

    @property
    def matches_per_s(self) -> float:
        return self.jobs.matches / self.wall_s


def job_stats() -> JobStats:
    """Verify jobs and verdicts: a match is verified or invalid once its verify job is done
    (``Match.objects.with_status()``); the job's own timestamps time it."""
    import psycopg

    query = """
        SELECT count(*),
               count(*) FILTER (WHERE j.status = 'done' AND m.valid),
               count(*) FILTER (WHERE j.status = 'done' AND NOT m.valid),
               count(*) FILTER (WHERE j.status IS DISTINCT FROM 'done' OR m.valid IS NULL),
               coalesce(max(j.attempts), 0),
               extract(epoch FROM min(j.enqueued_at)),
               extract(epoch FROM min(j.claimed_at)),
               extract(epoch FROM max(j.finished_at)),
               coalesce(sum(extract(epoch FROM j.finished_at - j.claimed_at)), 0),
               coalesce(percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM j.finished_at - j.claimed_at)), 0),
               coalesce(percentile_cont(0.95) WITHIN GROUP (ORDER BY extract(epoch FROM j.finished_at - j.claimed_at)), 0),
               coalesce(sum(m.hand_count), 0)
        FROM records_match m LEFT JOIN records_job j ON j.match_id = m.id AND j.kind = 'verify'
    """
    with psycopg.connect(DATABASE_URL) as connection:
        row = connection.execute(query).fetchone()
    if row is None or row[0] == 0:
        raise SystemExit("no matches were stored")
    return JobStats(
        matches=int(row[0]), verified=int(row[1]), invalid=int(row[2]), failed=int(row[3]),
        max_attempts=int(row[4]), first_enqueued=float(row[5]), first_claimed=float(row[6]),
        last_verified=float(row[7]), job_s_sum=float(row[8]), job_s_median=float(row[9]),
        job_s_p95=float(row[10]), hands=int(row[11]),
    )


def analysis_stats() -> AnalysisStats:
    import psycopg

    duration = "extract(epoch FROM finished_at - claimed_at)"
    query = f"""
        SELECT count(*),
               count(*) FILTER (WHERE status = 'done'),
               count(*) FILTER (WHERE status = 'failed'),
               count(*) FILTER (WHERE status IN ('pending', 'running')),
               extract(epoch FROM max(finished_at)),
               coalesce(sum({duration}) FILTER (WHERE status = 'done'), 0),
               coalesce(percentile_cont(0.5) WITHIN GROUP (ORDER BY {duration}) FILTER (WHERE status = 'done'), 0),
               coalesce(percentile_cont(0.95) WITHIN GROUP (ORDER BY {duration}) FILTER (WHERE status = 'done'), 0),
               coalesce(max({duration}) FILTER (WHERE status = 'done'), 0),
               (SELECT count(*) FROM analysis_finding)
        FROM records_job WHERE kind = 'analyze'
    """
    with psycopg.connect(DATABASE_URL) as connection:
        row = connection.execute(query).fetchone()
    assert row is not None
    return AnalysisStats(
        jobs=int(row[0]), done=int(row[1]), failed=int(row[2]), pending=int(row[3]),
        last_finished=float(row[4]) if row[4] is not None else None, job_s_sum=float(row[5]),
        job_s_median=float(row[6]), job_s_p95=float(row[7]), job_s_max=float(row[8]), findings=int(row[9]),
    )


def analysis_unfinished() -> int:
    import psycopg

    with psycopg.connect(DATABASE_URL) as connection:
        row = connection.execute(
            "SELECT count(*) FROM records_job WHERE kind = 'analyze' AND status IN ('pending', 'running')"
        ).fetchone()
    return int(row[0]) if row else 0


def run_service(corpus: Corpus, workers: int, port: int, log_dir: Path, with_analysis: bool = False) -> RunResult:
    """The timed run. The workers take the verify queues; with ``with_analysis`` the analysis
    queue too, and the run lasts until every analysis job has finished as well."""
    if not port_is_free(port):
        raise SystemExit(f"port {port} is in use: pass --port")
    env = service_env()
    versions = {"postgresql": reset_database(), "redis": reset_broker()}
    manage("migrate", "--noinput", env=env)
    token = create_token(env)

    processes = Processes(log_dir)
    try:
        host = socket.gethostname()
        names = [f"bench-ingest-{index + 1}@{host}" for index in range(workers)]
        queues = ",".join((*VERIFY_QUEUES, ANALYSIS_QUEUE) if with_analysis else VERIFY_QUEUES)
        worker_pids: list[int] = []
        for index, name in enumerate(names):
            worker_pids.append(processes.start(f"worker-{index + 1}", [
                sys.executable, "-m", "celery", "-A", "buraco_site", "worker", "-Q", queues, "-c", "1",
                "-n", name, "--without-gossip", "--without-mingle", "--without-heartbeat", "-l", "warning",
            ], env).pid)
        web = processes.start("web", [sys.executable, "manage.py", "runserver", f"{HOST}:{port}", "--noreload"], env)
        api = Api(f"http://{HOST}:{port}", token)
        wait_for_web(api, processes)
        wait_for_workers(names, processes)

        load_before = os.getloadavg()
        wall_start = time.time()
        start = time.perf_counter()
        cpu = CpuSampler({"web": [web.pid], "workers": worker_pids})
        cpu.start()
        sampler = StatusSampler(api, start)
        sampler.start()
        try:
            uploads: list[Upload] = []
            for index, archive in enumerate(corpus.batches, start=1):
                began = time.perf_counter()
                answer = api.upload_zip(f"batch-{index:02d}.zip", archive, f"bench batch {index}")
                if any(item["duplicate"] for item in answer["matches"]):
                    raise SystemExit("the bench database was not empty: duplicate uploads")
                uploads.append(Upload(int(answer["batch"]), int(answer["total"]), time.perf_counter() - began))
            upload_s = time.perf_counter() - start

            # Batches finish roughly in upload order: poll the oldest unfinished one only.
            pending = [u.batch for u in uploads]
            deadline = time.monotonic() + RUN_TIMEOUT
            while pending:
                if api.get(f"/api/batches/{pending[0]}/")["finished"]:
                    pending.pop(0)
                    continue
                if time.monotonic() > deadline:
                    raise SystemExit(f"batches {pending} did not finish within {RUN_TIMEOUT:.0f} s")
                processes.check_alive()
                time.sleep(BATCH_POLL_INTERVAL)
            wall_s = time.perf_counter() - start
            analysis_wall_s = None
            if with_analysis:
                # The analyses queued by the last verdicts are in the database once those commit.
                while analysis_unfinished():
                    if time.monotonic() > deadline:
                        raise SystemExit(f"the analysis jobs did not finish within {RUN_TIMEOUT:.0f} s")
                    processes.check_alive()
                    time.sleep(BATCH_POLL_INTERVAL * 4)
                analysis_wall_s = time.perf_counter() - start
        finally:
            sampler.stop()
            cpu_s = cpu.stop()
        load_after = os.getloadavg()
        jobs = job_stats()
        analysis = analysis_stats()
    finally:
        processes.stop()

    return RunResult(
        workers=workers, uploads=uploads, upload_s=upload_s, wall_s=wall_s,
        last_verdict_s=jobs.last_verified - wall_start, first_claim_s=jobs.first_claimed - wall_start, samples=sampler.samples, sample_errors=sampler.errors,
        cpu_s=cpu_s, machine_cpu_s=cpu.machine_s,
        jobs=jobs, analysis=analysis, analysis_wall_s=analysis_wall_s,
        load_before=load_before, load_after=load_after, versions=versions,
    )


# --- 5. where the time goes: the services in this process --------------------------------------


@dataclass(frozen=True)
class Phase:
    name: str
    seconds: float


@dataclass
class ProfileResult:
    matches: int
    hands: int
    upload_s: float  # upload_create of one zip, no profiler
    verify_s: float  # match_verify for every match, no profiler
    split: list[Phase]  # match_verify's phases timed by hand, no profiler
    upload_parts: list[Phase]  # from cProfile of upload_create
    verify_parts: list[Phase]  # from cProfile of match_verify
    upload_profiled_s: float
    verify_profiled_s: float
    upload_top: str
    verify_top: str
    analysis_matches: int = 0
    analysis_hands: int = 0
    analysis_split: list[Phase] = field(default_factory=list)  # match_analyze's phases, no profiler


def setup_django() -> None:
    """Django in this process, on the bench database (the environment is set before setup)."""
    for key, value in service_env().items():
        if key in ("DATABASE_URL", "CELERY_BROKER_URL", "DJANGO_SETTINGS_MODULE", "DEBUG", "LOG_LEVEL"):
            os.environ[key] = value
    import django

    django.setup()


def code_of(function: Any) -> CodeType:
    """The code object of a function, under decorators that keep ``__wrapped__``."""
    while hasattr(function, "__wrapped__"):
        function = function.__wrapped__
    code: CodeType = function.__code__
    return code


def cumulative(stats: pstats.Stats, function: Any) -> float:
    code = code_of(function)
    key = (code.co_filename, code.co_firstlineno, code.co_name)
    entry = stats.stats.get(key)  # type: ignore[attr-defined]
    return float(entry[3]) if entry else 0.0


def top_lines(stats: pstats.Stats, sort: str, count: int) -> str:
    stream = io.StringIO()
    stats.stream = stream  # type: ignore[attr-defined]
    stats.sort_stats(sort).print_stats(count)
    text = stream.getvalue()
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip().startswith("ncalls")), 0)
    return "\n".join(line.replace(str(ROOT) + "/", "") for line in lines[start:] if line.strip())


def profiled(run: Callable[[], None]) -> tuple[pstats.Stats, float]:
    profiler = cProfile.Profile()
    start = time.perf_counter()
    profiler.enable()
    run()
    profiler.disable()
    return pstats.Stats(profiler), time.perf_counter() - start


def profile_services(corpus: Corpus, hands: int, top: int, analysis_hands: int = 0) -> ProfileResult:
    setup_django()
    import psycopg
    from django.contrib.auth.models import User
    from django.db.backends.base.base import BaseDatabaseWrapper
    from django.db.models import Model, QuerySet

    from buraco.replay import MatchReport

    # Imported by name: mypy then does not follow into the service's modules (checked on their own).
    services: Any = importlib.import_module("records.services")
    jobs: Any = importlib.import_module("records.jobs")
    Match: Any = importlib.import_module("records.models").Match
    Job: Any = importlib.import_module("records.models").Job

    # Records from the start of the corpus (consecutive seeds: every rule set), uploaded
    # again by a second user: the same texts, new rows.
    chosen: list[bytes] = []
    total = 0
    for source in corpus.sources:
        if total >= hands:
            break
        chosen.append(source)
        total += len(loads(source).hands)
    archive = zip_of([(f"{i:04d}.brn", s) for i, s in enumerate(chosen)])
    owner = User.objects.create_user("bench-profile")
    upload = [services.UploadedFile("profile.zip", archive)]

    def reset(ids: list[int], kind: str = Job.Kind.VERIFY) -> None:
        Job.objects.filter(match_id__in=ids, kind=kind).update(status=Job.Status.PENDING, claimed_at=None)

    def upload_once(user: Any) -> list[int]:
        result = services.upload_create(owner=user, files=upload)
        return [m.pk for m in result.matches]

    # upload_create: once unprofiled (owner), once profiled (a third user, same texts).
    start = time.perf_counter()
    ids = upload_once(owner)
    upload_s = time.perf_counter() - start
    other = User.objects.create_user("bench-profile-2")

    def upload_again() -> None:
        upload_once(other)

    upload_stats, upload_profiled_s = profiled(upload_again)

    # match_verify, phase by phase, exactly as its body runs; no profiler.
    names = ("claim (job_claim: one UPDATE of the Job row)", "fetch the match row", "engine: loads",
             "engine: verify", "_store_verdict (hands, match, job done, analysis job queued, commit)")

    def split_once() -> list[Phase]:
        reset(ids)
        phases = dict.fromkeys(names, 0.0)
        for match_id in ids:
            t0 = time.perf_counter()
            if not jobs.job_claim(match_id=match_id, kind=Job.Kind.VERIFY):
                raise SystemExit(f"match {match_id} could not be claimed")
            t1 = time.perf_counter()
            match = Match.objects.get(pk=match_id)
            t2 = time.perf_counter()
            record = loads(bytes(match.source))
            t3 = time.perf_counter()
            report = verify(record)
            t4 = time.perf_counter()
            services._store_verdict(match, report)
            t5 = time.perf_counter()
            for name, seconds in zip(names, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4), strict=True):
                phases[name] += seconds
        return [Phase(name, seconds) for name, seconds in phases.items()]

    def verify_each() -> None:
        for match_id in ids:
            services.match_verify(match_id=match_id)

    def verify_once() -> float:
        reset(ids)
        start = time.perf_counter()
        verify_each()
        return time.perf_counter() - start

    # Best of two of each: the first pass over fresh rows, right after the uploads, runs slower.
    split = min((split_once() for _ in range(2)), key=lambda phases: sum(p.seconds for p in phases))
    verify_s = min(verify_once() for _ in range(2))
    reset(ids)
    verify_stats, verify_profiled_s = profiled(verify_each)
    if (Job.objects.filter(match_id__in=ids, kind=Job.Kind.VERIFY).exclude(status=Job.Status.DONE).exists()
            or Match.objects.filter(pk__in=ids).exclude(valid=True).exists()):
        raise SystemExit("a profiled match did not verify")

    # match_analyze (the analysis job each verdict queues), phase by phase, once: it costs
    # far more than a verify, so only the first ``analysis_hands`` hands' matches.
    analysis_split: list[Phase] = []
    analysis_ids: list[int] = []
    analysis_total = 0
    if analysis_hands > 0:
        from buraco.analysis import analyze

        analysis_services: Any = importlib.import_module("analysis.services")
        for match_id, source in zip(ids, chosen, strict=True):
            if analysis_total >= analysis_hands:
                break
            analysis_ids.append(match_id)
            analysis_total += len(loads(source).hands)
        reset(analysis_ids, Job.Kind.ANALYZE)
        anames = ("claim (job_claim)", "fetch the source", "engine: loads", "engine: analyze",
                  "findings_store (lock the job, replace findings, job done, commit)")
        aphases = dict.fromkeys(anames, 0.0)
        for match_id in analysis_ids:
            t0 = time.perf_counter()
            if not jobs.job_claim(match_id=match_id, kind=Job.Kind.ANALYZE):
                raise SystemExit(f"the analysis of match {match_id} could not be claimed")
            t1 = time.perf_counter()
            source = Match.objects.values_list("source", flat=True).get(pk=match_id)
            t2 = time.perf_counter()
            record = loads(bytes(source))
            t3 = time.perf_counter()
            findings = analyze(record)
            t4 = time.perf_counter()
            analysis_services.findings_store(match_id=match_id, findings=findings)
            t5 = time.perf_counter()
            for name, seconds in zip(anames, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4), strict=True):
                aphases[name] += seconds
        analysis_split = [Phase(name, seconds) for name, seconds in aphases.items()]

    db_wait = (psycopg.Cursor.execute, psycopg.Connection.commit)
    verify_total = cumulative(verify_stats, services.match_verify)
    verify_parts = [
        Phase("match_verify, all", verify_total),
        Phase("claim (job_claim: one UPDATE, autocommit)", cumulative(verify_stats, jobs.job_claim)),
        Phase("engine: notation.loads", cumulative(verify_stats, loads)),
        Phase("engine: replay.verify", cumulative(verify_stats, verify)),
        Phase("_store_verdict, body", cumulative(verify_stats, services._store_verdict)),
        Phase("  the hands: their ids, then one UPDATE each", 0.0),  # filled in below
        Phase("  MatchReport.as_dict", cumulative(verify_stats, MatchReport.as_dict)),
        Phase("  Match.save (update_fields)", cumulative(verify_stats, Model.save)),
        Phase("  job done (job_finish: one UPDATE)", cumulative(verify_stats, jobs.job_finish)),
        Phase("  analysis job queued (jobs_requeue: upsert)", cumulative(verify_stats, jobs.jobs_requeue)),
        Phase("analysis message sent after the commit (jobs_send)", cumulative(verify_stats, jobs.jobs_send)),
        Phase("transaction commit", cumulative(verify_stats, BaseDatabaseWrapper.commit)),
        Phase("waiting on PostgreSQL (psycopg execute + commit)", sum(cumulative(verify_stats, f) for f in db_wait)),
    ]
    body = verify_parts[4].seconds
    known = sum(p.seconds for p in verify_parts[6:10])
    verify_parts[5] = Phase(verify_parts[5].name, max(0.0, body - known))

    upload_parts = [
        Phase("upload_create, all", cumulative(upload_stats, services.upload_create)),
        Phase("unzip (expand_upload)", cumulative(upload_stats, services.expand_upload)),
        Phase("parse every record (parse_uploads -> loads)", cumulative(upload_stats, services.parse_uploads)),
        Phase("store matches + hands (_match_store)", cumulative(upload_stats, services._match_store)),
        Phase("  of which Hand bulk_create", cumulative(upload_stats, QuerySet.bulk_create)),
        Phase("transaction commit", cumulative(upload_stats, BaseDatabaseWrapper.commit)),
        Phase("send the verify jobs (jobs_send: apply_async per match)", cumulative(upload_stats, jobs.jobs_send)),
        Phase("waiting on PostgreSQL (psycopg execute + commit)", sum(cumulative(upload_stats, f) for f in db_wait)),
    ]
    return ProfileResult(
        matches=len(ids), hands=total, upload_s=upload_s, verify_s=verify_s, split=split,
        upload_parts=upload_parts, verify_parts=verify_parts,
        upload_profiled_s=upload_profiled_s, verify_profiled_s=verify_profiled_s,
        upload_top=top_lines(upload_stats, "cumulative", top),
        verify_top=top_lines(verify_stats, "tottime", top),
        analysis_matches=len(analysis_ids), analysis_hands=analysis_total, analysis_split=analysis_split,
    )


def flush_broker() -> None:
    import redis

    redis.Redis.from_url(BROKER_URL).flushdb()


# --- the report -------------------------------------------------------------------------------


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def print_report(args: argparse.Namespace, corpus: Corpus, engine: EngineResult, run: RunResult,
                 profile: ProfileResult | None) -> None:
    cores = os.cpu_count() or 1
    fair = min(run.workers, cores)
    out = print
    out(f"Machine: {cpu_model()}, {cores} cores; Python {platform.python_version()}; "
        f"PostgreSQL {run.versions.get('postgresql')}, Redis {run.versions.get('redis')}.")
    out(f"Command: `.venv/bin/python bench/ingest.py --hands {args.hands} --workers {args.workers}"
        f" --batches {args.batches}{' --analysis' if args.analysis else ''}`")
    out("Workers take the verify queues (" + ", ".join(VERIFY_QUEUES) + ")"
        + (f" and the {ANALYSIS_QUEUE} queue: the timed run includes every analysis job."
           if args.analysis else
           f"; the analysis job each verdict queues (queue {ANALYSIS_QUEUE}) is stored and sent, not run."))
    out(f"Load average (1 min) before / after the timed run: {run.load_before[0]:.2f} / {run.load_after[0]:.2f}")
    out("")
    out(f"Corpus: {corpus.matches} matches, {corpus.hands} hands, {corpus.actions} actions, "
        f"{corpus.megabytes:.1f} MB of BRN in {len(corpus.batches)} zips ({corpus.zip_megabytes:.1f} MB); "
        f"{len(VARIANT_IDS)} rule sets, {HANDS_PER_MATCH} hands a match"
        f"{'; cached' if corpus.cached else ''}{f'; {corpus.skipped_seeds} seeds skipped' if corpus.skipped_seeds else ''}.")
    out("")
    out("| measure | value |")
    out("|---|---|")
    out(f"| engine alone, 1 process, `verify(loads(source))`, warm (best of 2) | {engine.warm_s:.1f} s, "
        f"**{engine.hands_per_s:.0f} hands/s** |")
    out(f"| engine alone, first pass (action cache empty) | {engine.cold_s:.1f} s, {engine.cold_hands_per_s:.0f} hands/s |")
    out(f"| upload: {len(run.uploads)} POSTs, one after another | {run.upload_s:.1f} s "
        f"({min(u.seconds for u in run.uploads):.2f}-{max(u.seconds for u in run.uploads):.2f} s each) |")
    out(f"| first POST -> first job claimed (the first zip is stored, then queued) | {run.first_claim_s:.1f} s |")
    out(f"| end to end: first POST -> every batch finished | **{run.wall_s:.1f} s** |")
    out(f"| end to end: first POST -> last verdict stored | {run.last_verdict_s:.1f} s |")
    out(f"| throughput, end to end ({run.workers} workers) | **{run.hands_per_s:.0f} hands/s**, "
        f"{run.matches_per_s:.1f} matches/s |")
    out(f"| vs the engine in 1 process | {run.hands_per_s / engine.hands_per_s:.2f}x |")
    out(f"| vs {fair}x the engine ({fair} cores' worth) | {run.hands_per_s / (fair * engine.hands_per_s):.2f}x |")
    jobs = run.jobs
    span = jobs.last_verified - jobs.first_claimed
    out(f"| per job inside `match_verify` (claim -> verdict), median / p95 | "
        f"{jobs.job_s_median * 1000:.0f} / {jobs.job_s_p95 * 1000:.0f} ms "
        f"({jobs.job_s_median * 1000 / HANDS_PER_MATCH:.1f} ms a hand at the median) |")
    out(f"| worker time inside `match_verify`: sum of jobs / ({run.workers} x first claim -> last verdict) | "
        f"{jobs.job_s_sum:.1f} s / {run.workers * span:.1f} s = {jobs.job_s_sum / (run.workers * span):.0%} |")
    samples = run.samples
    if samples:
        max_waiting = max(samples, key=lambda s: s.waiting)
        brokers = [s.broker for s in samples if s.broker is not None]
        ages = [s.oldest_age for s in samples if s.oldest_age is not None]
        out(f"| max queue depth (waiting + verifying, database) | {max_waiting.waiting} matches "
            f"(at {max_waiting.at:.0f} s) |")
        out(f"| max broker depth (Redis messages) | {max(brokers) if brokers else 'n/a'} |")
        out(f"| oldest waiting job, max age | {max(ages) if ages else 0:.1f} s |")
        out(f"| /api/status/ samples | {len(samples)} (every {STATUS_INTERVAL:.0f} s; {run.sample_errors} failed) |")
    ours = sum(run.cpu_s.values())
    per_hand = 1000 / jobs.hands
    for role in ROLES:
        out(f"| CPU: {role} | {run.cpu_s[role]:.1f} s = {run.cpu_s[role] * per_hand:.2f} ms a hand |")
    service = ours - run.cpu_s["bench"]
    out(f"| CPU: the service (web + workers + postgres) | {service:.1f} s = {service * per_hand:.2f} ms a hand; "
        f"ceiling on {cores} cores with nothing else running: {cores * jobs.hands / service:.0f} hands/s |")
    out(f"| CPU: every other process on the machine (other jobs), same window | {max(0.0, run.machine_cpu_s - ours):.1f} s "
        f"(of {cores * (run.analysis_wall_s or run.wall_s):.0f} core-seconds) |")
    out(f"| verdicts | {jobs.verified} verified, {jobs.invalid} invalid, {jobs.failed} not finished; "
        f"max attempts {jobs.max_attempts} |")
    analysis = run.analysis
    if run.analysis_wall_s is not None:
        out(f"| **with the analysis**: first POST -> every analysis job finished | **{run.analysis_wall_s:.1f} s**, "
            f"{jobs.hands / run.analysis_wall_s:.0f} hands/s |")
        out(f"| analysis jobs, claim -> findings stored, median / p95 / max | {analysis.job_s_median * 1000:.0f} / "
            f"{analysis.job_s_p95 * 1000:.0f} / {analysis.job_s_max * 1000:.0f} ms a match; "
            f"sum {analysis.job_s_sum:.1f} s vs verify jobs' {jobs.job_s_sum:.1f} s |")
        if samples:
            out(f"| max analysis queue depth (database) | {max(s.analysis_waiting for s in samples)} jobs |")
    out(f"| analysis jobs | {analysis.jobs} queued, {analysis.done} done, {analysis.failed} failed, "
        f"{analysis.pending} not run; {analysis.findings} findings stored |")
    out("")
    if profile is None:
        return
    per_hand = 1000 / profile.hands
    out(f"Where the time goes: the services in one process, same database, {profile.matches} matches "
        f"({profile.hands} hands), no Celery, no HTTP.")
    out("")
    out(f"`upload_create` (one zip): {profile.upload_s:.2f} s = {profile.upload_s * per_hand:.2f} ms a hand. "
        f"`match_verify`: {profile.verify_s:.2f} s = {profile.verify_s * per_hand:.2f} ms a hand "
        f"(the engine alone: {1000 / engine.hands_per_s:.2f} ms a hand).")
    out("")
    out("`match_verify` phase by phase (timed by hand, no profiler):")
    out("")
    out("| phase | ms a hand | share |")
    out("|---|---|---|")
    split_total = sum(p.seconds for p in profile.split)
    for phase in profile.split:
        out(f"| {phase.name} | {phase.seconds * per_hand:.2f} | {phase.seconds / split_total:.0%} |")
    out(f"| all | {split_total * per_hand:.2f} | 100% |")
    out("")
    for title, parts, seconds in (
        ("`match_verify` under cProfile", profile.verify_parts, profile.verify_profiled_s),
        ("`upload_create` under cProfile", profile.upload_parts, profile.upload_profiled_s),
    ):
        base = parts[0].seconds or seconds
        out(f"{title} ({seconds:.2f} s profiled; cumulative times, shares of the first line):")
        out("")
        out("| part | s | share |")
        out("|---|---|---|")
        for part in parts:
            out(f"| {part.name} | {part.seconds:.3f} | {part.seconds / base:.0%} |")
        out("")
    if profile.analysis_split:
        a_hand = 1000 / profile.analysis_hands
        a_total = sum(p.seconds for p in profile.analysis_split)
        out(f"`match_analyze` (the analysis job) phase by phase, once, {profile.analysis_matches} matches "
            f"({profile.analysis_hands} hands): {a_total:.2f} s = {a_total * a_hand:.1f} ms a hand")
        out("")
        out("| phase | ms a hand | share |")
        out("|---|---|---|")
        for phase in profile.analysis_split:
            out(f"| {phase.name} | {phase.seconds * a_hand:.2f} | {phase.seconds / a_total:.0%} |")
        out("")
    out("Top of the `match_verify` profile by own time:")
    out("")
    out("```")
    out(profile.verify_top)
    out("```")
    out("")
    out("Top of the `upload_create` profile by cumulative time:")
    out("")
    out("```")
    out(profile.upload_top)
    out("```")


# --- main -------------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--hands", type=int, default=10_000, help="hands in the corpus (default 10000)")
    parser.add_argument("--workers", type=int, default=2, help="Celery worker processes, -c 1 each (default 2)")
    parser.add_argument("--batches", type=int, default=10, help="zips to upload, one POST each (default 10)")
    parser.add_argument("--profile-hands", type=int, default=200, help="hands for the in-process profile")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 1000 hands, a 100-hand profile")
    parser.add_argument("--no-profile", action="store_true", help="skip step 5")
    parser.add_argument("--analysis", action="store_true",
                        help="workers also run the analysis queue; the run lasts until every analysis is done")
    parser.add_argument("--analysis-profile-hands", type=int, default=50,
                        help="hands for the in-process match_analyze timing in step 5 (0: skip)")
    parser.add_argument("--top", type=int, default=15, help="profile lines to print")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--cache-dir", type=Path, default=Path(tempfile.gettempdir()) / "buraco-bench-ingest")
    args = parser.parse_args(argv)
    if args.quick:
        args.hands, args.profile_hands = 1000, 100
        args.analysis_profile_hands = min(args.analysis_profile_hands, 25)
    if args.hands < args.batches * HANDS_PER_MATCH or args.workers < 1:
        parser.error("need at least one match per batch and one worker")

    print(f"[1/5] corpus: {args.hands} hands ...", file=sys.stderr, flush=True)
    corpus = load_corpus(args.hands, args.batches, args.cache_dir)
    print(f"[2/5] engine alone on {corpus.hands} hands ...", file=sys.stderr, flush=True)
    engine = measure_engine(corpus)
    log_dir = Path(tempfile.mkdtemp(prefix="bench-ingest-logs-"))
    print(f"[3/5] service: {args.workers} workers, logs in {log_dir} ...", file=sys.stderr, flush=True)
    run = run_service(corpus, args.workers, args.port, log_dir, with_analysis=args.analysis)
    print(f"[4/5] end to end: {run.wall_s:.1f} s", file=sys.stderr, flush=True)
    profile = None
    if not args.no_profile:
        print(f"[5/5] profile: {args.profile_hands} hands in process ...", file=sys.stderr, flush=True)
        try:
            profile = profile_services(corpus, args.profile_hands, args.top, args.analysis_profile_hands)
        finally:
            flush_broker()  # upload_create queued jobs that no worker is left to take
    print_report(args, corpus, engine, run, profile)


if __name__ == "__main__":
    main()

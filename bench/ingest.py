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
   recreated and migrated) and Redis db 13 (flushed; bench/load.py uses 14, the
   tests 15): ``--workers`` Celery worker processes (``-c 1`` each), gunicorn as
   the web process (one process, threads, connections kept as in production;
   ``--web runserver``: Django's runserver, which opens a connection per
   request), one user with an API token.  ``DEBUG=0`` everywhere, as in
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
   has finished.  After the timed window, still on the full tables: the CPU of the
   bench's own polls (a GET of each kind, 20 times) and of 400 verify messages whose
   job is done (Celery's cost of a message, plus one claim).
5. Where the time goes: ``services.upload_create`` and ``services.match_verify``
   in this process, on the same database, for ``--profile-hands`` hands, in CPU
   time of this process (each phase: inside a wrapped call) and of its PostgreSQL
   backend; then cProfile in CPU time; and ``analysis.services.match_analyze``'s
   phases for ``--analysis-profile-hands`` hands (wall time).
6. Workers and the web process are always stopped (``finally``).

Run: ``.venv/bin/python bench/ingest.py [--hands 10000] [--workers 2] [--quick] [--analysis] [--any-engine-corpus]``
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
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, sys.path[0] is bench/; the engine and the site sit one level up.
sys.path.insert(1, str(ROOT))

from bench.scratch_db import reset_database  # noqa: E402 - after the path above
from buraco import notation  # noqa: E402
from buraco.notation import dumps, loads  # noqa: E402
from buraco.replay import verify  # noqa: E402
from buraco.rules import VARIANTS  # noqa: E402
from buraco.selfplay import play_match  # noqa: E402

HANDS_PER_MATCH = 5
VARIANT_IDS = tuple(VARIANTS)
MAX_SKIPPED_SEEDS = 100  # self-play that raises this often is broken: stop rather than hide it

DB_NAME = "buraco_bench"
DATABASE_URL = f"postgres://postgres@127.0.0.1:5432/{DB_NAME}"
BROKER_URL = "redis://127.0.0.1:6379/13"  # its own: bench/load.py uses 14 (same queue names), the tests 15
HOST = "127.0.0.1"
VERIFY_QUEUES = ("interactive", "bulk", "reverify")
ANALYSIS_QUEUE = "analysis"  # records.jobs.ANALYSIS_QUEUE: every verdict queues an analysis job there

WEB_THREADS = 4  # gunicorn's threads: an upload, the status sampler and the batch polls at once
STATUS_INTERVAL = 1.0  # seconds between /api/status/ samples
BATCH_POLL_INTERVAL = 0.25  # seconds between /api/batches/{id}/ polls
STARTUP_TIMEOUT = 90.0
RUN_TIMEOUT = 3600.0
STALL_TIMEOUT = 180.0  # seconds without a batch finishing: the run is stuck


# --- 1. the corpus (not timed) ---------------------------------------------------------


@dataclass(frozen=True)
class Corpus:
    batches: list[bytes]  # zip archives, in upload order
    sources: list[bytes]  # every record, in the same order as in the zips
    hands: int
    actions: int
    skipped_seeds: int
    cached: bool
    key: str = ""  # the cache directory's name: the engine fingerprint that made it, and the sizes

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


def load_corpus(hands: int, batches: int, cache_root: Path, any_engine: bool = False) -> Corpus:
    """The cached corpus of this engine (``any_engine``: the newest cached one of these sizes,
    whichever engine made it: comparable runs while the engine's sources change), else a new one."""
    cache = cache_root / f"{engine_fingerprint()}-{hands}h-{batches}b"
    if any_engine and not (cache / "manifest.json").exists():
        made = sorted(cache_root.glob(f"*-{hands}h-{batches}b/manifest.json"), key=lambda p: p.stat().st_mtime)
        if made:
            cache = made[-1].parent
    manifest = cache / "manifest.json"
    if manifest.exists():
        meta = json.loads(manifest.read_text())
        zips = [(cache / name).read_bytes() for name in meta["zips"]]
        sources = [member for archive in zips for member in unzip(archive)]
        return Corpus(zips, sources, meta["hands"], meta["actions"], meta["skipped"], cached=True, key=cache.name)

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
    return Corpus(zips, sources, total_hands, total_actions, skipped, cached=False, key=cache.name)


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


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


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
ROLES = ("web", "workers", "postgres", "postgres-exited", "bench")


def service_roles(web: str) -> tuple[str, ...]:
    """The roles whose CPU is the service's (see CpuSampler on postgres-exited)."""
    return ("web", "workers", "postgres", "postgres-exited") if web == "runserver" else ("web", "workers", "postgres")


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
    after the start counts from zero; one that exits counts to its last sample.  Backends
    that live less than a second are missed that way (runserver opens a connection per
    request thread): ``postgres-exited`` is what the postmaster reaped beyond what was sampled
    of the bench's exited backends.  It includes the exited backends of every other database
    on the server and autovacuum workers, so it is part of the service's total only with
    ``--web runserver`` (with gunicorn the bench database's sessions are counted: a handful)."""

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
        self.final: set[int] = set()  # pids alive at the last sample
        self.sessions = [0, 0]  # pg_stat_database.sessions of the bench database, first and last sample

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

    def _sessions(self) -> int:
        row = self.connection.execute(
            "SELECT sessions FROM pg_stat_database WHERE datname = %s", (DB_NAME,)
        ).fetchone()
        return int(row[0]) if row else 0

    def sample(self, first: bool) -> None:
        alive: set[int] = set()
        for pid, role in self._pids().items():
            stat = proc_stat(pid)
            if stat is None:
                continue
            alive.add(pid)
            if pid not in self.first:
                self.first[pid] = stat[1] if first else 0.0
            self.last[pid] = (role, stat[1])
        self.final = alive
        self.sessions[1] = self._sessions()
        if first:
            self.sessions[0] = self.sessions[1]
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
        return self.totals()

    def totals(self) -> dict[str, float]:
        totals = dict.fromkeys(ROLES, 0.0)
        sampled_exited = 0.0
        for pid, (role, seconds) in self.last.items():
            totals[role] += seconds - self.first[pid]
            if role == "postgres" and pid not in self.final:
                sampled_exited += seconds - self.first[pid]
        totals["postgres-exited"] = max(0.0, self.reaped[1] - self.reaped[0] - sampled_exited)
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
    sessions: int  # PostgreSQL sessions opened on the bench database in the window
    jobs: JobStats
    analysis: AnalysisStats
    analysis_wall_s: float | None  # first POST until every analysis job finished (with --analysis)
    load_before: tuple[float, float, float]
    load_after: tuple[float, float, float]
    versions: dict[str, str] = field(default_factory=dict)
    batch_polls: int = 0  # GETs of /api/batches/{id}/ during the run
    overheads: dict[str, dict[str, float]] = field(default_factory=dict)  # cpu_window of each, after the run

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


def web_command(web: str, port: int) -> list[str]:
    """The web process: gunicorn as in production (one process, threads, connections kept
    ``DB_CONN_MAX_AGE``), or Django's runserver (a thread and a new connection per request)."""
    if web == "runserver":
        return [sys.executable, "manage.py", "runserver", f"{HOST}:{port}", "--noreload"]
    gunicorn = Path(sys.executable).with_name("gunicorn")
    return [str(gunicorn), "buraco_site.wsgi:application", "-b", f"{HOST}:{port}", "-k", "gthread", "-w", "1",
            "--threads", str(WEB_THREADS), "--timeout", "600", "--log-level", "warning", "--error-logfile", "-"]


def run_service(corpus: Corpus, workers: int, port: int, log_dir: Path, with_analysis: bool = False,
                web_server: str = "gunicorn") -> RunResult:
    """The timed run. The workers take the verify queues; with ``with_analysis`` the analysis
    queue too, and the run lasts until every analysis job has finished as well."""
    port = port or free_port()
    if not port_is_free(port):
        raise SystemExit(f"port {port} is in use: pass --port")
    env = service_env()
    versions = {"postgresql": reset_database(DB_NAME), "redis": reset_broker()}
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
        web = processes.start("web", web_command(web_server, port), env)
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
        batch_polls = 0
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
            stalled = time.monotonic() + STALL_TIMEOUT
            while pending:
                batch_polls += 1
                if api.get(f"/api/batches/{pending[0]}/")["finished"]:
                    pending.pop(0)
                    stalled = time.monotonic() + STALL_TIMEOUT
                    continue
                if time.monotonic() > deadline:
                    raise SystemExit(f"batches {pending} did not finish within {RUN_TIMEOUT:.0f} s")
                if time.monotonic() > stalled:
                    raise SystemExit(f"no batch finished in {STALL_TIMEOUT:.0f} s: did something flush Redis db "
                                     f"{BROKER_URL.rsplit('/', 1)[1]} (the bench's broker) and lose the jobs' messages?")
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
        # After the timed window, with the tables as full as they got: what the bench's own
        # polling cost the service, and what Celery costs a message on its own.
        roots = {"web": [web.pid], "workers": worker_pids}
        overheads = {
            "status": cpu_window(roots, lambda: [api.get("/api/status/") for _ in range(OVERHEAD_CALLS)]),
            "batch": cpu_window(roots, lambda: [api.get(f"/api/batches/{uploads[-1].batch}/")
                                                for _ in range(OVERHEAD_CALLS)]),
            "message": cpu_window(roots, lambda: skipped_messages(OVERHEAD_MESSAGES, processes)),
        }
    finally:
        processes.stop()

    return RunResult(
        workers=workers, uploads=uploads, upload_s=upload_s, wall_s=wall_s,
        last_verdict_s=jobs.last_verified - wall_start, first_claim_s=jobs.first_claimed - wall_start, samples=sampler.samples, sample_errors=sampler.errors,
        cpu_s=cpu_s, machine_cpu_s=cpu.machine_s, sessions=cpu.sessions[1] - cpu.sessions[0],
        jobs=jobs, analysis=analysis, analysis_wall_s=analysis_wall_s,
        load_before=load_before, load_after=load_after, versions=versions,
        batch_polls=batch_polls, overheads=overheads,
    )


OVERHEAD_CALLS = 20  # GETs of /api/status/ and of /api/batches/{id}/ timed after the run
OVERHEAD_MESSAGES = 400  # verify messages for jobs already done, timed after the run


def cpu_window(roots: dict[str, list[int]], work: Callable[[], object]) -> dict[str, float]:
    """CPU seconds by role (the service's processes and the bench database's backends) while
    ``work`` runs."""
    import psycopg

    sampler = CpuSampler(roots)
    with psycopg.connect(DATABASE_URL, autocommit=True) as sampler.connection:
        sampler.sample(first=True)
        work()
        sampler.sample(first=False)
    return sampler.totals()


def skipped_messages(count: int, processes: Processes) -> None:
    """``count`` verify messages for matches whose job is done, as a redelivery would send them:
    each one's task claims nothing (one UPDATE) and returns, so the workers' CPU is Celery's
    own cost of a message, plus that UPDATE.  Returns once the workers have taken them all."""
    import psycopg
    import redis
    from celery import Celery

    with psycopg.connect(DATABASE_URL) as connection:
        ids = [int(row[0]) for row in connection.execute(
            "SELECT match_id FROM records_job WHERE kind = 'verify' AND status = 'done' ORDER BY match_id LIMIT %s",
            (count,),
        ).fetchall()]
    app = Celery("bench-overhead", broker=BROKER_URL, set_as_current=False)
    client = redis.Redis.from_url(BROKER_URL)
    try:
        for index in range(count):
            app.send_task("records.tasks.verify_match", args=(ids[index % len(ids)],), queue="bulk")
        deadline = time.monotonic() + 300
        while client.llen("bulk") or client.hlen("unacked"):
            if time.monotonic() > deadline:
                raise SystemExit("the workers did not take the bench's overhead messages within 300 s")
            processes.check_alive()
            time.sleep(0.1)
    finally:
        app.close()


# --- 5. where the time goes: the services in this process --------------------------------------


@dataclass(frozen=True)
class Phase:
    name: str
    seconds: float


@dataclass(frozen=True)
class CpuSplit:
    """One service run over the profile's matches: this process's CPU, phase by phase, and the
    CPU of the PostgreSQL backend that served it."""

    process_s: float  # this process, the whole run
    backend_s: float  # its PostgreSQL backend, the same window (from /proc)
    wall_s: float
    phases: list[Phase]  # this process's CPU in each wrapped call; names indented by two spaces are inside the line above


@dataclass
class ProfileResult:
    matches: int
    hands: int
    engine_s: float  # verify(loads()) of the same records in this process (Django loaded), CPU, best of two
    upload: CpuSplit
    verify: CpuSplit
    skip_s: float  # match_verify of a job already done, a call: this process + its backend
    upload_top: str  # cProfile in CPU time
    verify_top: str
    analysis_matches: int = 0
    analysis_hands: int = 0
    analysis_split: list[Phase] = field(default_factory=list)  # match_analyze's phases, wall time


def setup_django() -> None:
    """Django in this process, on the bench database (the environment is set before setup)."""
    for key, value in service_env().items():
        if key in ("DATABASE_URL", "CELERY_BROKER_URL", "DJANGO_SETTINGS_MODULE", "DEBUG", "LOG_LEVEL"):
            os.environ[key] = value
    import django

    django.setup()


def top_lines(stats: pstats.Stats, sort: str, count: int) -> str:
    stream = io.StringIO()
    stats.stream = stream  # type: ignore[attr-defined]
    stats.sort_stats(sort).print_stats(count)
    text = stream.getvalue()
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip().startswith("ncalls")), 0)
    return "\n".join(line.replace(str(ROOT) + "/", "") for line in lines[start:] if line.strip())


def profiled(run: Callable[[], None]) -> pstats.Stats:
    """cProfile of ``run`` in CPU time (its default, wall time, counts the waits on PostgreSQL)."""
    profiler = cProfile.Profile(time.process_time)
    profiler.enable()
    run()
    profiler.disable()
    return pstats.Stats(profiler)


class CallTimer:
    """Adds up this process's CPU time inside chosen functions while active: each target is
    (object, attribute, label), the attribute replaced by a wrapper and put back on exit.
    A target missing from its object (the service changed) is left out."""

    def __init__(self, targets: Sequence[tuple[Any, str, str]]) -> None:
        self.targets = [(owner, name, label) for owner, name, label in targets if hasattr(owner, name)]
        self.seconds: dict[str, float] = {label: 0.0 for _, _, label in self.targets}
        self._saved: list[tuple[Any, str, Any]] = []

    def _wrap(self, function: Callable[..., Any], label: str) -> Callable[..., Any]:
        seconds = self.seconds

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return function(*args, **kwargs)
            finally:
                seconds[label] += time.process_time() - start

        return timed

    def __enter__(self) -> CallTimer:
        for owner, name, label in self.targets:
            # A class's own attribute is put back as it was (a function, not a bound method).
            original = vars(owner).get(name, _INHERITED) if isinstance(owner, type) else getattr(owner, name)
            self._saved.append((owner, name, original))
            setattr(owner, name, self._wrap(getattr(owner, name), label))
        return self

    def __exit__(self, *_: object) -> None:
        for owner, name, original in reversed(self._saved):
            if original is _INHERITED:
                delattr(owner, name)
            else:
                setattr(owner, name, original)
        self._saved.clear()


_INHERITED = object()  # CallTimer: the attribute was the class's base's


def backend_cpu() -> float:
    """CPU seconds so far of the PostgreSQL backend serving this process's Django connection."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        row = cursor.fetchone()
    stat = proc_stat(int(row[0])) if row else None
    return stat[1] if stat else 0.0


def cpu_split(run: Callable[[], None], targets: Sequence[tuple[Any, str, str]]) -> CpuSplit:
    backend = backend_cpu()
    wall = time.perf_counter()
    with CallTimer(targets) as timer:
        start = time.process_time()
        run()
        process_s = time.process_time() - start
    wall_s = time.perf_counter() - wall
    backend_s = backend_cpu() - backend
    return CpuSplit(process_s, backend_s, wall_s, [Phase(label, s) for label, s in timer.seconds.items()])


def profile_services(corpus: Corpus, hands: int, top: int, analysis_hands: int = 0) -> ProfileResult:
    setup_django()
    from celery.app.task import Task
    from django.contrib.auth.models import User
    from django.db.models import QuerySet

    # Imported by name: mypy then does not follow into the service's modules (checked on their own).
    services: Any = importlib.import_module("records.services")
    jobs: Any = importlib.import_module("records.jobs")
    Match: Any = importlib.import_module("records.models").Match
    Job: Any = importlib.import_module("records.models").Job

    # Records from the start of the corpus (consecutive seeds: every rule set), uploaded
    # again by other users: the same texts, new rows.
    chosen: list[bytes] = []
    total = 0
    for source in corpus.sources:
        if total >= hands:
            break
        chosen.append(source)
        total += len(loads(source).hands)
    upload = [services.UploadedFile("profile.zip", zip_of([(f"{i:04d}.brn", s) for i, s in enumerate(chosen)]))]
    engine_s = min(verify_all(chosen) for _ in range(2))

    def reset(ids: list[int], kind: str = Job.Kind.VERIFY) -> None:
        Job.objects.filter(match_id__in=ids, kind=kind).update(status=Job.Status.PENDING, claimed_at=None)

    users = iter(User.objects.create_user(f"bench-profile-{n}") for n in range(1, 100))

    def upload_once() -> list[int]:
        return [m.pk for m in services.upload_create(owner=next(users), files=upload).matches]

    bulk_create = QuerySet.bulk_create

    def bulk_create_by_model(self: Any, objs: Any, *args: Any, **kwargs: Any) -> Any:
        label = f"  of which the INSERT of {self.model.__name__} rows (bulk_create)"
        start = time.process_time()
        try:
            return bulk_create(self, objs, *args, **kwargs)
        finally:
            by_model[label] = by_model.get(label, 0.0) + time.process_time() - start

    by_model: dict[str, float] = {}
    upload_targets = [
        (services, "expand_upload", "unzip (expand_upload)"),
        (services, "parse_uploads", "parse every record (parse_uploads: loads)"),
        (services, "_matches_store", "store matches, jobs, hands, reviews (_matches_store)"),
        (services, "_hands_insert", "  of which the hands' rows (_hands_insert: one COPY on PostgreSQL)"),
        (services, "_match_store", "store matches, jobs, hands, reviews (_match_store, one by one)"),
        (services, "jobs_send", "send the verify jobs after the commit (jobs_send)"),
        (Task, "apply_async", "  of which apply_async, a message each"),
    ]
    ids = upload_once()  # the first upload on fresh tables runs slower: not timed

    def upload_split() -> CpuSplit:
        by_model.clear()
        QuerySet.bulk_create = bulk_create_by_model  # type: ignore[method-assign]
        try:
            split = cpu_split(upload_once, upload_targets)
        finally:
            QuerySet.bulk_create = bulk_create  # type: ignore[method-assign]
        store = next((i for i, p in enumerate(split.phases) if p.name.startswith("store")), len(split.phases))
        extra = [Phase(name, seconds) for name, seconds in sorted(by_model.items())]
        return replace(split, phases=[*split.phases[:store + 1], *extra, *split.phases[store + 1:]])

    upload_cpu = min((upload_split() for _ in range(2)), key=lambda s: s.process_s)

    verify_targets = [
        (services, "job_claim", "claim (job_claim: one UPDATE, autocommit)"),
        (services, "loads", "engine: loads"),
        (services, "verify", "engine: verify"),
        (services, "_store_verdict", "verdict stored (_store_verdict: one transaction, its commit and after-commit send)"),
        (services, "_hand_verdicts_store", "  the hands' verdicts (one UPDATE ... FROM (VALUES ...))"),
        (services, "job_finish", "  the verify job done (job_finish: one UPDATE)"),
        (services, "jobs_requeue", "  the analysis job queued (jobs_requeue: an upsert)"),
        (jobs, "jobs_send", "  the analysis job sent after the commit (jobs_send)"),
        (Task, "apply_async", "    of which apply_async"),
    ]

    def verify_each() -> None:
        for match_id in ids:
            services.match_verify(match_id=match_id)

    def verify_split() -> CpuSplit:
        reset(ids)
        return cpu_split(verify_each, verify_targets)

    # Best of two: the first pass over fresh rows, right after the uploads, runs slower.
    verify_cpu = min((verify_split() for _ in range(2)), key=lambda s: s.process_s)
    if (Job.objects.filter(match_id__in=ids, kind=Job.Kind.VERIFY).exclude(status=Job.Status.DONE).exists()
            or Match.objects.filter(pk__in=ids).exclude(valid=True).exists()):
        raise SystemExit("a profiled match did not verify")
    skipped = cpu_split(verify_each, [])  # every job is done now: a redelivery's work
    skip_s = (skipped.process_s + skipped.backend_s) / len(ids)

    def upload_profiled() -> None:
        upload_once()

    upload_stats = profiled(upload_profiled)
    reset(ids)
    verify_stats = profiled(verify_each)

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

    return ProfileResult(
        matches=len(ids), hands=total, engine_s=engine_s, upload=upload_cpu, verify=verify_cpu, skip_s=skip_s,
        upload_top=top_lines(upload_stats, "cumulative", top),
        verify_top=top_lines(verify_stats, "tottime", top),
        analysis_matches=len(analysis_ids), analysis_hands=analysis_total, analysis_split=analysis_split,
    )


def flush_broker() -> None:
    import redis

    redis.Redis.from_url(BROKER_URL).flushdb()


# --- the report -------------------------------------------------------------------------------


def git_head() -> str:
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                          check=False)
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                           capture_output=True, text=True, check=False)
    return (done.stdout.strip() or "?") + (" + uncommitted changes" if dirty.stdout.strip() else "")


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
        f" --batches {args.batches} --web {args.web}{' --analysis' if args.analysis else ''}`"
        f" (commit {git_head()}, engine sha256 {engine_fingerprint()[:12]})")
    out("Workers take the verify queues (" + ", ".join(VERIFY_QUEUES) + ")"
        + (f" and the {ANALYSIS_QUEUE} queue: the timed run includes every analysis job."
           if args.analysis else
           f"; the analysis job each verdict queues (queue {ANALYSIS_QUEUE}) is stored and sent, not run."))
    out(f"Load average (1 min) before / after the timed run: {run.load_before[0]:.2f} / {run.load_after[0]:.2f}")
    out("")
    out(f"Corpus: {corpus.matches} matches, {corpus.hands} hands, {corpus.actions} actions, "
        f"{corpus.megabytes:.1f} MB of BRN in {len(corpus.batches)} zips ({corpus.zip_megabytes:.1f} MB); "
        f"{len(VARIANT_IDS)} rule sets, {HANDS_PER_MATCH} hands a match"
        f"{f'; cached ({corpus.key})' if corpus.cached else f'; generated ({corpus.key})'}{f'; {corpus.skipped_seeds} seeds skipped' if corpus.skipped_seeds else ''}.")
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
    per_hand = 1000 / jobs.hands
    roles = service_roles(args.web)
    for role in ROLES:
        counted = "" if role in roles or role == "bench" else " (not counted: mostly other databases' clients)"
        out(f"| CPU: {role}{counted} | {run.cpu_s[role]:.1f} s = {run.cpu_s[role] * per_hand:.2f} ms a hand |")
    service = sum(run.cpu_s[role] for role in roles)
    ours = service + run.cpu_s["bench"]
    out(f"| CPU: the service ({' + '.join(roles)}) | {service:.1f} s = "
        f"**{service * per_hand:.2f} ms a hand**; ceiling on {cores} cores with nothing else running: "
        f"{cores * jobs.hands / service:.0f} hands/s |")
    out(f"| the service / the engine alone, CPU a hand | **{service * per_hand / (1000 / engine.hands_per_s):.2f}x** |")
    out(f"| PostgreSQL sessions opened on the bench database during the run | {run.sessions} |")
    if run.overheads:
        def per_call(name: str, calls: int) -> tuple[float, float]:
            cpu = run.overheads[name]
            return (cpu["web"] + cpu["postgres"]) / calls, cpu["workers"] / calls

        status, _ = per_call("status", OVERHEAD_CALLS)
        batch, _ = per_call("batch", OVERHEAD_CALLS)
        polls = status * len(samples) + batch * run.batch_polls
        out(f"| of which the bench's own polling (after the run: web + postgres {status * 1000:.1f} ms a GET of "
            f"/api/status/, {batch * 1000:.1f} ms of /api/batches/{{id}}/; {len(samples)} and {run.batch_polls} "
            f"of them in the run) | {polls:.1f} s = {polls * per_hand:.2f} ms a hand; the service without it: "
            f"{(service - polls) * per_hand:.2f} ms a hand, "
            f"{(service - polls) * per_hand / (1000 / engine.hands_per_s):.2f}x the engine |")
        message = run.overheads["message"]
        out(f"| a verify message whose job is done (after the run, {OVERHEAD_MESSAGES} of them): Celery's cost "
            f"of a message plus one claim UPDATE | workers {message['workers'] / OVERHEAD_MESSAGES * 1000:.2f} ms, "
            f"postgres {message['postgres'] / OVERHEAD_MESSAGES * 1000:.2f} ms a message |")
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
    up, ver = profile.upload, profile.verify
    out(f"Where the time goes: the services in this process on the same database, {profile.matches} matches "
        f"({profile.hands} hands, the first of the corpus), no Celery, no HTTP; CPU time of this process "
        f"(phases: inside each call) and of its PostgreSQL backend (from /proc), best of two.")
    out("")
    for title, split in (("`upload_create` (one zip)", up), ("`match_verify` (each match)", ver)):
        out(f"{title}: this process {split.process_s * per_hand:.2f} ms a hand, its PostgreSQL backend "
            f"{split.backend_s * per_hand:.2f} ms (wall {split.wall_s * per_hand:.2f} ms)")
        out("")
        out("| phase | CPU ms a hand | share of the process's |")
        out("|---|---|---|")
        outer = sum(p.seconds for p in split.phases if not p.name.startswith(" "))
        for phase in split.phases:
            out(f"| {phase.name} | {phase.seconds * per_hand:.3f} | {phase.seconds / split.process_s:.0%} |")
        rest = split.process_s - outer
        out(f"| the rest (queries not listed: lookups, the match's fetch and UPDATE, transactions) "
            f"| {rest * per_hand:.3f} | {rest / split.process_s:.0%} |")
        out("")
    out(f"The engine alone on the same records in this process (Django loaded): "
        f"{profile.engine_s * per_hand:.2f} ms a hand. A redelivered message's `match_verify` (job done): "
        f"{profile.skip_s * 1000:.2f} ms a call, this process and its backend.")
    out("")
    if profile.analysis_split:
        a_hand = 1000 / profile.analysis_hands
        a_total = sum(p.seconds for p in profile.analysis_split)
        out(f"`match_analyze` (the analysis job) phase by phase, once, {profile.analysis_matches} matches "
            f"({profile.analysis_hands} hands), wall time: {a_total:.2f} s = {a_total * a_hand:.1f} ms a hand")
        out("")
        out("| phase | ms a hand | share |")
        out("|---|---|---|")
        for phase in profile.analysis_split:
            out(f"| {phase.name} | {phase.seconds * a_hand:.2f} | {phase.seconds / a_total:.0%} |")
        out("")
    out("Top of the `match_verify` profile by own CPU time:")
    out("")
    out("```")
    out(profile.verify_top)
    out("```")
    out("")
    out("Top of the `upload_create` profile by cumulative CPU time:")
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
    parser.add_argument("--port", type=int, default=0, help="the web process's port (default: a free one)")
    parser.add_argument("--web", choices=("gunicorn", "runserver"), default="gunicorn",
                        help=f"the web process: gunicorn (gthread, 1 process, {WEB_THREADS} threads; default) or runserver")
    parser.add_argument("--cache-dir", type=Path, default=Path(tempfile.gettempdir()) / "buraco-bench-ingest")
    parser.add_argument("--any-engine-corpus", action="store_true",
                        help="reuse the newest cached corpus of these sizes even if the engine's sources changed since")
    args = parser.parse_args(argv)
    # Stopped from a script or in the background too, the workers and the web process are stopped.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if args.quick:
        args.hands, args.profile_hands = 1000, 100
        args.analysis_profile_hands = min(args.analysis_profile_hands, 25)
    if args.hands < args.batches * HANDS_PER_MATCH or args.workers < 1:
        parser.error("need at least one match per batch and one worker")

    print(f"[1/5] corpus: {args.hands} hands ...", file=sys.stderr, flush=True)
    corpus = load_corpus(args.hands, args.batches, args.cache_dir, any_engine=args.any_engine_corpus)
    print(f"[2/5] engine alone on {corpus.hands} hands ...", file=sys.stderr, flush=True)
    engine = measure_engine(corpus)
    log_dir = Path(tempfile.mkdtemp(prefix="bench-ingest-logs-"))
    print(f"[3/5] service: {args.workers} workers, logs in {log_dir} ...", file=sys.stderr, flush=True)
    run = run_service(corpus, args.workers, args.port, log_dir, with_analysis=args.analysis, web_server=args.web)
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

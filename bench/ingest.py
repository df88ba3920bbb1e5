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
   has finished, and the jobs' time is given by rule set and player count.  After the
   timed window, still on the full tables: the CPU of the bench's own polls (a GET of
   each kind, 20 times) and of 400 verify messages whose job is done (Celery's cost of
   a message, plus one claim).
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
import contextlib
import cProfile
import importlib
import io
import json
import os
import platform
import pstats
import signal
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, sys.path[0] is bench/; the engine and the site sit one level up.
sys.path.insert(1, str(ROOT))

from bench import harness  # noqa: E402 - after the path above
from buraco.notation import loads  # noqa: E402
from buraco.replay import verify  # noqa: E402

HANDS_PER_MATCH = 5
RECORD_NAME = "{seed:06d}-{variant}-{players}p.brn"  # a zip member's name: the seed says which match it is

DB_NAME = "buraco_bench"
DATABASE_URL = harness.database_url(DB_NAME)
BROKER_URL = "redis://127.0.0.1:6379/13"  # its own: bench/load.py uses 14 (same queue names), the tests 15
VERIFY_QUEUES = ("interactive", "bulk", "reverify")
ANALYSIS_QUEUE = "analysis"  # records.jobs.ANALYSIS_QUEUE: every verdict queues an analysis job there

WEB_THREADS = 4  # gunicorn's threads: an upload, the status sampler and the batch polls at once
STATUS_INTERVAL = 1.0  # seconds between /api/status/ samples
# Seconds between polls for the end of the run: /api/batches/{id}/, or the analysis jobs
# still open. One interval for both, so that the runs with and without the analysis,
# whose hands a second are compared, end as late after their last job as each other.
POLL_INTERVAL = 0.25
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


def corpus_dir(cache_root: Path, hands: int, batches: int, any_engine: bool) -> Path:
    """This engine's cache directory for these sizes (``any_engine``, when this engine has none:
    the newest one of these sizes, whichever engine made it: comparable runs while the
    engine's sources change)."""
    cache = cache_root / f"{harness.engine_fingerprint()[:16]}-{hands}h-{batches}b"
    if any_engine and not (cache / "manifest.json").exists():
        made = sorted(cache_root.glob(f"*-{hands}h-{batches}b/manifest.json"), key=lambda p: p.stat().st_mtime)
        if made:
            cache = made[-1].parent
    return cache


def read_corpus(cache: Path) -> Corpus:
    meta = json.loads((cache / "manifest.json").read_text())
    zips = [(cache / name).read_bytes() for name in meta["zips"]]
    sources = [member for archive in zips for member in harness.unzip(archive)]
    return Corpus(zips, sources, meta["hands"], meta["actions"], meta["skipped"], cached=True, key=cache.name)


def make_corpus(hands: int, batches: int, cache: Path) -> Corpus:
    """Self-play matches until ``hands`` hands, zipped into ``batches`` zips, written to ``cache``."""
    played, skipped = harness.self_play(0, -(-hands // HANDS_PER_MATCH), HANDS_PER_MATCH, RECORD_NAME, chunksize=8)
    per_batch = -(-len(played) // batches)
    zips = [harness.zip_of((p.name, p.text.encode()) for p in played[start:start + per_batch])
            for start in range(0, len(played), per_batch)]
    total_hands = sum(p.hands for p in played)
    total_actions = sum(p.action_count for p in played)
    cache.mkdir(parents=True, exist_ok=True)
    names = [f"batch-{index + 1:02d}.zip" for index in range(len(zips))]
    for name, archive in zip(names, zips, strict=True):
        (cache / name).write_bytes(archive)
    (cache / "manifest.json").write_text(json.dumps({"zips": names, "hands": total_hands, "actions": total_actions,
                                                     "skipped": skipped}))
    sources = [p.text.encode() for p in played]
    return Corpus(zips, sources, total_hands, total_actions, skipped, cached=False, key=cache.name)


def load_corpus(hands: int, batches: int, cache_root: Path, any_engine: bool = False) -> Corpus:
    """The cached corpus (see corpus_dir), else a new one."""
    cache = corpus_dir(cache_root, hands, batches, any_engine)
    if (cache / "manifest.json").exists():
        return read_corpus(cache)
    return make_corpus(hands, batches, cache)


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
    harness.clear_action_cache()
    cold = verify_all(corpus.sources)
    warm = min(verify_all(corpus.sources) for _ in range(2))
    return EngineResult(cold, warm, corpus.hands)


# --- 3. the service: database, broker, workers, web process --------------------------------


def ingest_env() -> dict[str, str]:
    """The service's environment in every process: the bench database and broker, DEBUG off."""
    return harness.service_env(DATABASE_URL, broker=BROKER_URL)


def web_command(web: str, port: int) -> list[str]:
    """The web process: gunicorn as in production (one process, threads, connections kept
    ``DB_CONN_MAX_AGE``), or Django's runserver (a thread and a new connection per request)."""
    if web == "runserver":
        return [sys.executable, "manage.py", "runserver", f"{harness.HOST}:{port}", "--noreload"]
    options = ["-k", "gthread", "-w", "1", "--threads", str(WEB_THREADS), "--timeout", "600"]
    return harness.gunicorn_command(port, options)


@dataclass
class Service:
    """The running service a timed run drives: its processes and the bench user's API client."""

    processes: harness.Processes
    web: harness.Child
    workers: list[harness.Child]
    api: harness.Api

    @property
    def roots(self) -> dict[str, list[int]]:
        """The processes whose CPU counts by role (their children take their role)."""
        return {"web": [self.web.pid], "workers": [worker.pid for worker in self.workers]}


def prepare_database() -> tuple[dict[str, str], str]:
    """The bench database recreated and migrated, the broker flushed, the bench user made:
    the servers' versions and the user's API token."""
    env = ingest_env()
    versions = {"postgresql": harness.reset_database(DB_NAME), "redis": harness.flush_redis(BROKER_URL)}
    harness.manage("migrate", "--noinput", env=env)
    return versions, harness.create_api_user("bench", env)


def start_service(processes: harness.Processes, token: str, port: int, workers: int, with_analysis: bool,
                  web_server: str) -> Service:
    """The workers (the verify queues, and with ``with_analysis`` the analysis queue) and the
    web process, started and answering."""
    env = ingest_env()
    host = socket.gethostname()
    names = [f"bench-ingest-{index + 1}@{host}" for index in range(workers)]
    queues = (*VERIFY_QUEUES, ANALYSIS_QUEUE) if with_analysis else VERIFY_QUEUES
    started = [processes.start(f"worker-{index + 1}", harness.celery_worker_command(name, queues), env)
               for index, name in enumerate(names)]
    web = processes.start("web", web_command(web_server, port), env)
    api = harness.Api(f"http://{harness.HOST}:{port}", token)
    harness.wait_for_health(api, processes.check_alive)
    harness.wait_for_celery(names, BROKER_URL, processes.check_alive)
    return Service(processes, web, started, api)


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

ROLES = ("web", "workers", "postgres", "postgres-exited", "bench")


def service_roles(web: str) -> tuple[str, ...]:
    """The roles whose CPU is the service's (see CpuSampler on postgres-exited)."""
    return ("web", "workers", "postgres", "postgres-exited") if web == "runserver" else ("web", "workers", "postgres")


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
        parents = harness.parent_pids()
        roles = {pid: role for role, pids in self.roots.items() for pid in pids}
        changed = True
        while changed:  # descendants take their ancestor's role
            changed = False
            for pid, parent in parents.items():
                if pid not in roles and parent in roles:
                    roles[pid] = roles[parent]
                    changed = True
        for pid in harness.backend_pids(self.connection, DB_NAME):
            roles[pid] = "postgres"
        roles[os.getpid()] = "bench"
        return roles

    def _sessions(self) -> int:
        row = self.connection.execute(
            "SELECT sessions FROM pg_stat_database WHERE datname = %s", (DB_NAME,)
        ).fetchone()
        return int(row[0]) if row else 0

    def sample(self, first: bool) -> None:
        alive: set[int] = set()
        for pid, role in self._pids().items():
            stat = harness.proc_stat(pid)
            if stat is None:
                continue
            alive.add(pid)
            if pid not in self.first:
                self.first[pid] = stat.cpu_s if first else 0.0
            self.last[pid] = (role, stat.cpu_s)
        self.final = alive
        self.sessions[1] = self._sessions()
        if first:
            self.sessions[0] = self.sessions[1]
        postmaster = harness.proc_stat(self.postmaster) if self.postmaster is not None else None
        if postmaster is not None:
            if first:
                self.reaped[0] = postmaster.reaped_cpu_s
            self.reaped[1] = postmaster.reaped_cpu_s

    def run(self) -> None:
        import psycopg

        # One connection for the whole run: its backend is the sampler's, not the service's.
        with psycopg.connect(DATABASE_URL, autocommit=True) as self.connection:
            row = self.connection.execute("SELECT pg_backend_pid()").fetchone()
            own = harness.proc_stat(int(row[0])) if row else None
            self.postmaster = own.parent if own else None
            busy_start = harness.machine_busy_seconds()
            self.sample(first=True)
            while not self._stop_event.wait(1.0):
                self.sample(first=False)
            self.sample(first=False)
            self.machine_s = harness.machine_busy_seconds() - busy_start

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

    def __init__(self, api: harness.Api, start: float) -> None:
        super().__init__(name="status-sampler", daemon=True)
        self.api = api
        self.start_time = start
        self.samples: list[StatusSample] = []
        self.errors = 0
        self._stop_event = threading.Event()

    def run(self) -> None:
        while True:
            try:
                self.samples.append(self.sample())
            except Exception:  # a sample lost is not a reason to stop the run
                self.errors += 1
            if self._stop_event.wait(STATUS_INTERVAL):
                return

    def sample(self) -> StatusSample:
        data = self.api.get("/api/status/")
        all_queues: dict[str, dict[str, Any]] = data["queues"]
        queues = {name: q for name, q in all_queues.items() if name != ANALYSIS_QUEUE}
        depths = [q["broker_depth"] for q in queues.values()]
        ages = [q["oldest_age_seconds"] for q in queues.values() if q.get("oldest_age_seconds") is not None]
        return StatusSample(
            at=time.perf_counter() - self.start_time,
            waiting=sum(int(q["waiting"]) for q in queues.values()),
            broker=None if any(d is None for d in depths) else sum(int(d) for d in depths),
            oldest_age=max(ages) if ages else None,
            analysis_waiting=int(all_queues.get(ANALYSIS_QUEUE, {}).get("waiting", 0)),
        )

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
    # The finished jobs by the match's rule set and player count, the dearest first:
    # (rule set, players, jobs, sum of finished_at - claimed_at in seconds).
    by_rules: tuple[tuple[str, int, int, float], ...] = ()


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


@dataclass(frozen=True)
class Window:
    """What the timed window measured, from the first upload POST to the last batch (or
    analysis job) finished."""

    uploads: list[Upload]
    upload_s: float
    wall_s: float
    analysis_wall_s: float | None
    batch_polls: int
    wall_start: float  # epoch seconds of the first POST
    samples: list[StatusSample]
    sample_errors: int
    cpu_s: dict[str, float]
    machine_cpu_s: float
    sessions: int
    load_before: tuple[float, float, float]
    load_after: tuple[float, float, float]


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


def fetch_one(query: str) -> tuple[Any, ...] | None:
    """One row of ``query`` on the bench database, on a connection of its own."""
    import psycopg

    with psycopg.connect(DATABASE_URL) as connection:
        return connection.execute(query).fetchone()


def fetch_all(query: str) -> list[tuple[Any, ...]]:
    """Every row of ``query`` on the bench database, on a connection of its own."""
    import psycopg

    with psycopg.connect(DATABASE_URL) as connection:
        return connection.execute(query).fetchall()


def job_stats() -> JobStats:
    """Verify jobs and verdicts: a match is verified or invalid once its verify job is done
    (``Match.objects.with_status()``); the job's own timestamps time it."""
    duration = "extract(epoch FROM j.finished_at - j.claimed_at)"
    row = fetch_one(f"""
        SELECT count(*),
               count(*) FILTER (WHERE j.status = 'done' AND m.valid),
               count(*) FILTER (WHERE j.status = 'done' AND NOT m.valid),
               count(*) FILTER (WHERE j.status IS DISTINCT FROM 'done' OR m.valid IS NULL),
               coalesce(max(j.attempts), 0),
               extract(epoch FROM min(j.enqueued_at)),
               extract(epoch FROM min(j.claimed_at)),
               extract(epoch FROM max(j.finished_at)),
               coalesce(sum({duration}), 0),
               coalesce(percentile_cont(0.5) WITHIN GROUP (ORDER BY {duration}), 0),
               coalesce(percentile_cont(0.95) WITHIN GROUP (ORDER BY {duration}), 0),
               coalesce(sum(m.hand_count), 0)
        FROM records_match m LEFT JOIN records_job j ON j.match_id = m.id AND j.kind = 'verify'
    """)
    if row is None or row[0] == 0:
        raise SystemExit("no matches were stored")
    return JobStats(
        matches=int(row[0]), verified=int(row[1]), invalid=int(row[2]), failed=int(row[3]),
        max_attempts=int(row[4]), first_enqueued=float(row[5]), first_claimed=float(row[6]),
        last_verified=float(row[7]), job_s_sum=float(row[8]), job_s_median=float(row[9]),
        job_s_p95=float(row[10]), hands=int(row[11]),
    )


def analysis_stats() -> AnalysisStats:
    duration = "extract(epoch FROM finished_at - claimed_at)"
    row = fetch_one(f"""
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
    """)
    assert row is not None
    by_rules = fetch_all("""
        SELECT m.variant, jsonb_array_length(m.players), count(*), sum(extract(epoch FROM j.finished_at - j.claimed_at))
        FROM records_job j JOIN records_match m ON m.id = j.match_id
        WHERE j.kind = 'analyze' AND j.status = 'done'
        GROUP BY 1, 2 ORDER BY 4 DESC, 1, 2
    """)
    return AnalysisStats(
        jobs=int(row[0]), done=int(row[1]), failed=int(row[2]), pending=int(row[3]),
        last_finished=float(row[4]) if row[4] is not None else None, job_s_sum=float(row[5]),
        job_s_median=float(row[6]), job_s_p95=float(row[7]), job_s_max=float(row[8]), findings=int(row[9]),
        by_rules=tuple((str(v), int(p), int(n), float(t)) for v, p, n, t in by_rules),
    )


def analysis_unfinished() -> int:
    row = fetch_one("SELECT count(*) FROM records_job WHERE kind = 'analyze' AND status IN ('pending', 'running')")
    return int(row[0]) if row else 0


def upload_batches(api: harness.Api, corpus: Corpus) -> list[Upload]:
    """Every zip POSTed, one after another; each answer must store new matches only."""
    uploads: list[Upload] = []
    for index, archive in enumerate(corpus.batches, start=1):
        began = time.perf_counter()
        answer = api.upload([(f"batch-{index:02d}.zip", "application/zip", archive)], {"label": f"bench batch {index}"})
        if any(item["duplicate"] for item in answer["matches"]):
            raise SystemExit("the bench database was not empty: duplicate uploads")
        uploads.append(Upload(int(answer["batch"]), int(answer["total"]), time.perf_counter() - began))
    return uploads


def wait_for_batches(service: Service, pending: list[int], deadline: float) -> int:
    """Until every batch in ``pending`` reports finished; returns the polls it took.
    Batches finish roughly in upload order: it polls the oldest unfinished one only."""
    polls = 0
    stalled = time.monotonic() + STALL_TIMEOUT
    while pending:
        polls += 1
        if service.api.get(f"/api/batches/{pending[0]}/")["finished"]:
            pending.pop(0)
            stalled = time.monotonic() + STALL_TIMEOUT
            continue
        if time.monotonic() > deadline:
            raise SystemExit(f"batches {pending} did not finish within {RUN_TIMEOUT:.0f} s")
        if time.monotonic() > stalled:
            raise SystemExit(f"no batch finished in {STALL_TIMEOUT:.0f} s: did something flush Redis db "
                             f"{BROKER_URL.rsplit('/', 1)[1]} (the bench's broker) and lose the jobs' messages?")
        service.processes.check_alive()
        time.sleep(POLL_INTERVAL)
    return polls


def wait_for_analysis(service: Service, deadline: float) -> None:
    """Until no analysis job is pending or running: those queued by the last verdicts are in
    the database once those verdicts commit, so a batch finished means its analyses are queued."""
    while analysis_unfinished():
        if time.monotonic() > deadline:
            raise SystemExit(f"the analysis jobs did not finish within {RUN_TIMEOUT:.0f} s")
        service.processes.check_alive()
        time.sleep(POLL_INTERVAL)


def timed_window(service: Service, corpus: Corpus, with_analysis: bool) -> Window:
    """The timed run: every zip uploaded, then until every batch (and with ``with_analysis``
    every analysis job) has finished, /api/status/ and /proc sampled meanwhile."""
    load_before = os.getloadavg()
    wall_start = time.time()
    start = time.perf_counter()
    cpu = CpuSampler(service.roots)
    cpu.start()
    sampler = StatusSampler(service.api, start)
    sampler.start()
    try:
        uploads = upload_batches(service.api, corpus)
        upload_s = time.perf_counter() - start
        deadline = time.monotonic() + RUN_TIMEOUT
        batch_polls = wait_for_batches(service, [u.batch for u in uploads], deadline)
        wall_s = time.perf_counter() - start
        analysis_wall_s = None
        if with_analysis:
            wait_for_analysis(service, deadline)
            analysis_wall_s = time.perf_counter() - start
    finally:
        sampler.stop()
        cpu_s = cpu.stop()
    return Window(uploads, upload_s, wall_s, analysis_wall_s, batch_polls, wall_start, sampler.samples,
                  sampler.errors, cpu_s, cpu.machine_s, cpu.sessions[1] - cpu.sessions[0], load_before,
                  os.getloadavg())


def run_service(corpus: Corpus, workers: int, port: int, log_dir: Path, with_analysis: bool = False,
                web_server: str = "gunicorn") -> RunResult:
    """The timed run. The workers take the verify queues; with ``with_analysis`` the analysis
    queue too, and the run lasts until every analysis job has finished as well."""
    port = port or harness.free_port()
    if not harness.port_is_free(port):
        raise SystemExit(f"port {port} is in use: pass --port")
    versions, token = prepare_database()
    processes = harness.Processes(log_dir)
    try:
        service = start_service(processes, token, port, workers, with_analysis, web_server)
        window = timed_window(service, corpus, with_analysis)
        jobs = job_stats()
        analysis = analysis_stats()
        overheads = measure_overheads(service, window.uploads[-1].batch)
    finally:
        processes.stop()

    return RunResult(
        workers=workers, uploads=window.uploads, upload_s=window.upload_s, wall_s=window.wall_s,
        last_verdict_s=jobs.last_verified - window.wall_start, first_claim_s=jobs.first_claimed - window.wall_start,
        samples=window.samples, sample_errors=window.sample_errors, cpu_s=window.cpu_s,
        machine_cpu_s=window.machine_cpu_s, sessions=window.sessions, jobs=jobs, analysis=analysis,
        analysis_wall_s=window.analysis_wall_s, load_before=window.load_before, load_after=window.load_after,
        versions=versions, batch_polls=window.batch_polls, overheads=overheads,
    )


OVERHEAD_CALLS = 20  # GETs of /api/status/ and of /api/batches/{id}/ timed after the run
OVERHEAD_MESSAGES = 400  # verify messages for jobs already done, timed after the run


def measure_overheads(service: Service, batch: int) -> dict[str, dict[str, float]]:
    """After the timed window, with the tables as full as they got: what the bench's own
    polling cost the service, and what Celery costs a message on its own."""
    api = service.api
    return {
        "status": cpu_window(service.roots, lambda: [api.get("/api/status/") for _ in range(OVERHEAD_CALLS)]),
        "batch": cpu_window(service.roots, lambda: [api.get(f"/api/batches/{batch}/") for _ in range(OVERHEAD_CALLS)]),
        "message": cpu_window(service.roots, lambda: skipped_messages(OVERHEAD_MESSAGES, service.processes)),
    }


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


def skipped_messages(count: int, processes: harness.Processes) -> None:
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
        harness.wait_until(lambda: not (client.llen("bulk") or client.hlen("unacked")),
                   what="the workers did not take the bench's overhead messages", timeout=300, interval=0.1,
                   check_alive=processes.check_alive)
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


def top_lines(stats: pstats.Stats, sort: str, count: int) -> str:
    stream = io.StringIO()
    stats.stream = stream  # type: ignore[attr-defined]
    stats.sort_stats(sort).print_stats(count)
    text = stream.getvalue()
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip().startswith("ncalls")), 0)
    return "\n".join(line.replace(str(ROOT) + "/", "") for line in lines[start:] if line.strip())


def profiled(run: Callable[[], object]) -> pstats.Stats:
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
    stat = harness.proc_stat(int(row[0])) if row else None
    return stat.cpu_s if stat else 0.0


def cpu_split(run: Callable[[], object], targets: Sequence[tuple[Any, str, str]]) -> CpuSplit:
    backend = backend_cpu()
    wall = time.perf_counter()
    with CallTimer(targets) as timer:
        start = time.process_time()
        run()
        process_s = time.process_time() - start
    wall_s = time.perf_counter() - wall
    backend_s = backend_cpu() - backend
    return CpuSplit(process_s, backend_s, wall_s, [Phase(label, s) for label, s in timer.seconds.items()])


@contextlib.contextmanager
def bulk_creates_by_model() -> Iterator[dict[str, float]]:
    """This process's CPU inside ``QuerySet.bulk_create``, by model, while the block runs."""
    from django.db.models import QuerySet

    by_model: dict[str, float] = {}
    bulk_create = QuerySet.bulk_create

    def timed(self: Any, objs: Any, *args: Any, **kwargs: Any) -> Any:
        label = f"  of which the INSERT of {self.model.__name__} rows (bulk_create)"
        start = time.process_time()
        try:
            return bulk_create(self, objs, *args, **kwargs)
        finally:
            by_model[label] = by_model.get(label, 0.0) + time.process_time() - start

    QuerySet.bulk_create = timed  # type: ignore[method-assign]
    try:
        yield by_model
    finally:
        QuerySet.bulk_create = bulk_create  # type: ignore[method-assign]


class InProcessService:
    """The services in this process on the bench database: the profile's records uploaded again
    by new users (the same texts, new rows), their jobs put back to pending to be run again."""

    def __init__(self, sources: Sequence[bytes]) -> None:
        harness.setup_django(ingest_env())
        from django.contrib.auth.models import User

        # Imported by name: mypy then does not follow into the service's modules (checked on their own).
        self.services: Any = importlib.import_module("records.services")
        self.jobs: Any = importlib.import_module("records.jobs")
        models: Any = importlib.import_module("records.models")
        self.Match, self.Job = models.Match, models.Job
        archive = harness.zip_of((f"{i:04d}.brn", s) for i, s in enumerate(sources))
        self.files = [self.services.UploadedFile("profile.zip", archive)]
        self.users = iter(User.objects.create_user(f"bench-profile-{n}") for n in range(1, 100))
        self.ids: list[int] = []  # the matches of the first upload: the ones verified and analysed

    def upload_once(self) -> list[int]:
        return [m.pk for m in self.services.upload_create(owner=next(self.users), files=self.files).matches]

    def reset(self, ids: Sequence[int], kind: str | None = None) -> None:
        self.Job.objects.filter(match_id__in=ids, kind=kind or self.Job.Kind.VERIFY).update(
            status=self.Job.Status.PENDING, claimed_at=None)

    def verify_each(self) -> None:
        for match_id in self.ids:
            self.services.match_verify(match_id=match_id)

    def check_verified(self) -> None:
        Job, Match = self.Job, self.Match
        if (Job.objects.filter(match_id__in=self.ids, kind=Job.Kind.VERIFY).exclude(status=Job.Status.DONE).exists()
                or Match.objects.filter(pk__in=self.ids).exclude(valid=True).exists()):
            raise SystemExit("a profiled match did not verify")


def upload_targets(service: InProcessService) -> list[tuple[Any, str, str]]:
    from celery.app.task import Task

    services = service.services
    return [
        (services, "expand_upload", "unzip (expand_upload)"),
        (services, "parse_uploads", "parse every record (parse_uploads: loads)"),
        (services, "_matches_store", "store matches, jobs, hands, reviews (_matches_store)"),
        (services, "rows_insert", "  of which the hands' rows (rows_insert: one COPY on PostgreSQL)"),
        (services, "_match_store", "store matches, jobs, hands, reviews (_match_store, one by one)"),
        (services, "jobs_send", "send the verify jobs after the commit (jobs_send)"),
        (Task, "apply_async", "  of which apply_async, a message each"),
    ]


def verify_targets(service: InProcessService) -> list[tuple[Any, str, str]]:
    from celery.app.task import Task

    services = service.services
    return [
        (services, "job_claim", "claim (job_claim: one UPDATE, autocommit)"),
        (services, "loads", "engine: loads"),
        (services, "verify", "engine: verify"),
        (services, "_store_verdict", "verdict stored (_store_verdict: one transaction, its commit and after-commit send)"),
        (services, "_hand_verdicts_store", "  the hands' verdicts (one UPDATE ... FROM (VALUES ...))"),
        (services, "job_finish", "  the verify job done (job_finish: one UPDATE)"),
        (services, "jobs_requeue", "  the analysis job queued (jobs_requeue: an upsert)"),
        (service.jobs, "jobs_send", "  the analysis job sent after the commit (jobs_send)"),
        (Task, "apply_async", "    of which apply_async"),
    ]


def upload_split(service: InProcessService) -> CpuSplit:
    """One more upload, phase by phase, the INSERTs by model under the store phase."""
    with bulk_creates_by_model() as by_model:
        split = cpu_split(service.upload_once, upload_targets(service))
    store = next((i for i, p in enumerate(split.phases) if p.name.startswith("store")), len(split.phases))
    extra = [Phase(name, seconds) for name, seconds in sorted(by_model.items())]
    return replace(split, phases=[*split.phases[:store + 1], *extra, *split.phases[store + 1:]])


def verify_split(service: InProcessService) -> CpuSplit:
    """Every profiled match verified again, phase by phase."""
    service.reset(service.ids)
    return cpu_split(service.verify_each, verify_targets(service))


def first_hands(sources: Sequence[bytes], hands: int) -> tuple[list[bytes], int]:
    """The records from the start until ``hands`` hands (consecutive seeds: every rule set), and their hands."""
    chosen: list[bytes] = []
    total = 0
    for source in sources:
        if total >= hands:
            break
        chosen.append(source)
        total += len(loads(source).hands)
    return chosen, total


ANALYSIS_PHASES = ("claim (job_claim)", "fetch the source", "engine: loads", "engine: analyze",
                   "findings_store (lock the job, store the findings, job done, commit)")


def analysis_phases(service: InProcessService, match_ids: Sequence[int]) -> list[Phase]:
    """``match_analyze``'s steps done one by one for each match, in wall time, as a first
    analysis of each: the timed run's findings of these matches are deleted first."""
    from buraco.analysis import analyze

    analysis_services: Any = importlib.import_module("analysis.services")
    analysis_models: Any = importlib.import_module("analysis.models")
    Job, Match = service.Job, service.Match
    service.reset(match_ids, Job.Kind.ANALYZE)
    analysis_models.Finding.objects.filter(match_id__in=match_ids).delete()
    totals = dict.fromkeys(ANALYSIS_PHASES, 0.0)
    for match_id in match_ids:
        t0 = time.perf_counter()
        if not service.jobs.job_claim(match_id=match_id, kind=Job.Kind.ANALYZE):
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
        for name, seconds in zip(ANALYSIS_PHASES, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4), strict=True):
            totals[name] += seconds
    return [Phase(name, seconds) for name, seconds in totals.items()]


def profile_services(corpus: Corpus, hands: int, top: int, analysis_hands: int = 0) -> ProfileResult:
    chosen, total = first_hands(corpus.sources, hands)
    service = InProcessService(chosen)
    engine_s = min(verify_all(chosen) for _ in range(2))
    service.ids = service.upload_once()  # the first upload on fresh tables runs slower: not timed
    upload_cpu = min((upload_split(service) for _ in range(2)), key=lambda s: s.process_s)
    # Best of two: the first pass over fresh rows, right after the uploads, runs slower.
    verify_cpu = min((verify_split(service) for _ in range(2)), key=lambda s: s.process_s)
    service.check_verified()
    skipped = cpu_split(service.verify_each, [])  # every job is done now: a redelivery's work
    skip_s = (skipped.process_s + skipped.backend_s) / len(service.ids)
    upload_stats = profiled(service.upload_once)
    service.reset(service.ids)
    verify_stats = profiled(service.verify_each)

    # match_analyze (the analysis job each verdict queues), phase by phase, once: it costs
    # far more than a verify, so only the first ``analysis_hands`` hands' matches.
    analysis_sources, analysis_total = first_hands(chosen, analysis_hands) if analysis_hands > 0 else ([], 0)
    analysis_ids = service.ids[:len(analysis_sources)]
    return ProfileResult(
        matches=len(service.ids), hands=total, engine_s=engine_s, upload=upload_cpu, verify=verify_cpu,
        skip_s=skip_s, upload_top=top_lines(upload_stats, "cumulative", top),
        verify_top=top_lines(verify_stats, "tottime", top), analysis_matches=len(analysis_ids),
        analysis_hands=analysis_total, analysis_split=analysis_phases(service, analysis_ids) if analysis_ids else [],
    )


# --- the report -------------------------------------------------------------------------------


def git_head() -> str:
    dirty = harness.git("status", "--porcelain", "--untracked-files=no")
    return (harness.git("rev-parse", "--short", "HEAD") or "?") + (" + uncommitted changes" if dirty else "")


def report_header(args: argparse.Namespace, corpus: Corpus, run: RunResult) -> list[str]:
    cores = os.cpu_count() or 1
    return [
        f"Machine: {harness.cpu_model()}, {cores} cores; Python {platform.python_version()}; "
        f"PostgreSQL {run.versions.get('postgresql')}, Redis {run.versions.get('redis')}.",
        f"Command: `.venv/bin/python bench/ingest.py --hands {args.hands} --workers {args.workers}"
        f" --batches {args.batches} --web {args.web}{' --analysis' if args.analysis else ''}`"
        f" (commit {git_head()}, engine sha256 {harness.engine_fingerprint()[:12]})",
        f"The analysis's searches run {harness.searches_as_run()} in every process.",
        "Workers take the verify queues (" + ", ".join(VERIFY_QUEUES) + ")"
        + (f" and the {ANALYSIS_QUEUE} queue: the timed run includes every analysis job."
           if args.analysis else
           f"; the analysis job each verdict queues (queue {ANALYSIS_QUEUE}) is stored and sent, not run."),
        f"Load average (1 min) before / after the timed run: {run.load_before[0]:.2f} / {run.load_after[0]:.2f}",
        "",
        f"Corpus: {corpus.matches} matches, {corpus.hands} hands, {corpus.actions} actions, "
        f"{corpus.megabytes:.1f} MB of BRN in {len(corpus.batches)} zips ({corpus.zip_megabytes:.1f} MB); "
        f"{len(harness.variant_ids())} rule sets, {HANDS_PER_MATCH} hands a match"
        f"{f'; cached ({corpus.key})' if corpus.cached else f'; generated ({corpus.key})'}"
        f"{f'; {corpus.skipped_seeds} seeds skipped' if corpus.skipped_seeds else ''}.",
        "",
        "| measure | value |",
        "|---|---|",
    ]


def timing_rows(engine: EngineResult, run: RunResult) -> list[str]:
    fair = min(run.workers, os.cpu_count() or 1)
    jobs = run.jobs
    span = jobs.last_verified - jobs.first_claimed
    return [
        f"| engine alone, 1 process, `verify(loads(source))`, warm (best of 2) | {engine.warm_s:.1f} s, "
        f"**{engine.hands_per_s:.0f} hands/s** |",
        f"| engine alone, first pass (action cache empty) | {engine.cold_s:.1f} s, {engine.cold_hands_per_s:.0f} hands/s |",
        f"| upload: {len(run.uploads)} POSTs, one after another | {run.upload_s:.1f} s "
        f"({min(u.seconds for u in run.uploads):.2f}-{max(u.seconds for u in run.uploads):.2f} s each) |",
        f"| first POST -> first job claimed (the first zip is stored, then queued) | {run.first_claim_s:.1f} s |",
        f"| end to end: first POST -> every batch finished | **{run.wall_s:.1f} s** |",
        f"| end to end: first POST -> last verdict stored | {run.last_verdict_s:.1f} s |",
        f"| throughput, end to end ({run.workers} workers) | **{run.hands_per_s:.0f} hands/s**, "
        f"{run.matches_per_s:.1f} matches/s |",
        f"| vs the engine in 1 process | {run.hands_per_s / engine.hands_per_s:.2f}x |",
        f"| vs {fair}x the engine ({fair} cores' worth) | {run.hands_per_s / (fair * engine.hands_per_s):.2f}x |",
        f"| per job inside `match_verify` (claim -> verdict), median / p95 | "
        f"{jobs.job_s_median * 1000:.0f} / {jobs.job_s_p95 * 1000:.0f} ms "
        f"({jobs.job_s_median * 1000 / HANDS_PER_MATCH:.1f} ms a hand at the median) |",
        f"| worker time inside `match_verify`: sum of jobs / ({run.workers} x first claim -> last verdict) | "
        f"{jobs.job_s_sum:.1f} s / {run.workers * span:.1f} s = {jobs.job_s_sum / (run.workers * span):.0%} |",
    ]


def queue_rows(run: RunResult) -> list[str]:
    samples = run.samples
    if not samples:
        return []
    max_waiting = max(samples, key=lambda s: s.waiting)
    brokers = [s.broker for s in samples if s.broker is not None]
    ages = [s.oldest_age for s in samples if s.oldest_age is not None]
    return [
        f"| max queue depth (waiting + verifying, database) | {max_waiting.waiting} matches "
        f"(at {max_waiting.at:.0f} s) |",
        f"| max broker depth (Redis messages) | {max(brokers) if brokers else 'n/a'} |",
        f"| oldest waiting job, max age | {max(ages) if ages else 0:.1f} s |",
        f"| /api/status/ samples | {len(samples)} (every {STATUS_INTERVAL:.0f} s; {run.sample_errors} failed) |",
    ]


def cpu_rows(args: argparse.Namespace, engine: EngineResult, run: RunResult) -> list[str]:
    cores = os.cpu_count() or 1
    per_hand = 1000 / run.jobs.hands
    roles = service_roles(args.web)
    rows = []
    for role in ROLES:
        counted = "" if role in roles or role == "bench" else " (not counted: mostly other databases' clients)"
        rows.append(f"| CPU: {role}{counted} | {run.cpu_s[role]:.1f} s = {run.cpu_s[role] * per_hand:.2f} ms a hand |")
    service = sum(run.cpu_s[role] for role in roles)
    rows += [
        f"| CPU: the service ({' + '.join(roles)}) | {service:.1f} s = "
        f"**{service * per_hand:.2f} ms a hand**; ceiling on {cores} cores with nothing else running: "
        f"{cores * run.jobs.hands / service:.0f} hands/s |",
        f"| the service / the engine alone, CPU a hand | **{service * per_hand / (1000 / engine.hands_per_s):.2f}x** |",
        f"| PostgreSQL sessions opened on the bench database during the run | {run.sessions} |",
    ]
    if run.overheads:
        rows += overhead_rows(engine, run, service)
    ours = service + run.cpu_s["bench"]
    rows.append(f"| CPU: every other process on the machine (other jobs), same window | "
                f"{max(0.0, run.machine_cpu_s - ours):.1f} s "
                f"(of {cores * (run.analysis_wall_s or run.wall_s):.0f} core-seconds) |")
    return rows


def overhead_rows(engine: EngineResult, run: RunResult, service: float) -> list[str]:
    """The bench's own polls and a done job's message, measured after the run."""
    per_hand = 1000 / run.jobs.hands

    def per_call(name: str, calls: int) -> float:
        cpu = run.overheads[name]
        return (cpu["web"] + cpu["postgres"]) / calls

    status, batch = per_call("status", OVERHEAD_CALLS), per_call("batch", OVERHEAD_CALLS)
    samples = run.samples
    polls = status * len(samples) + batch * run.batch_polls
    message = run.overheads["message"]
    return [
        f"| of which the bench's own polling (after the run: web + postgres {status * 1000:.1f} ms a GET of "
        f"/api/status/, {batch * 1000:.1f} ms of /api/batches/{{id}}/; {len(samples)} and {run.batch_polls} "
        f"of them in the run) | {polls:.1f} s = {polls * per_hand:.2f} ms a hand; the service without it: "
        f"{(service - polls) * per_hand:.2f} ms a hand, "
        f"{(service - polls) * per_hand / (1000 / engine.hands_per_s):.2f}x the engine |",
        f"| a verify message whose job is done (after the run, {OVERHEAD_MESSAGES} of them): Celery's cost "
        f"of a message plus one claim UPDATE | workers {message['workers'] / OVERHEAD_MESSAGES * 1000:.2f} ms, "
        f"postgres {message['postgres'] / OVERHEAD_MESSAGES * 1000:.2f} ms a message |",
    ]


def verdict_rows(run: RunResult) -> list[str]:
    jobs, analysis = run.jobs, run.analysis
    rows = [f"| verdicts | {jobs.verified} verified, {jobs.invalid} invalid, {jobs.failed} not finished; "
            f"max attempts {jobs.max_attempts} |"]
    if run.analysis_wall_s is not None:
        rows += [
            f"| **with the analysis**: first POST -> every analysis job finished | **{run.analysis_wall_s:.1f} s**, "
            f"{jobs.hands / run.analysis_wall_s:.0f} hands/s |",
            f"| analysis jobs, claim -> findings stored, median / p95 / max | {analysis.job_s_median * 1000:.0f} / "
            f"{analysis.job_s_p95 * 1000:.0f} / {analysis.job_s_max * 1000:.0f} ms a match; "
            f"sum {analysis.job_s_sum:.1f} s vs verify jobs' {jobs.job_s_sum:.1f} s |",
        ]
        if run.samples:
            rows.append(f"| max analysis queue depth (database) | {max(s.analysis_waiting for s in run.samples)} jobs |")
    rows.append(f"| analysis jobs | {analysis.jobs} queued, {analysis.done} done, {analysis.failed} failed, "
                f"{analysis.pending} not run; {analysis.findings} findings stored |")
    return rows


def analysis_by_rules_table(run: RunResult) -> list[str]:
    """The analysis jobs' time by rule set and player count (with ``--analysis``): which
    matches the ingest with the analysis waits on."""
    analysis = run.analysis
    if run.analysis_wall_s is None or not analysis.by_rules:
        return []
    total = analysis.job_s_sum or 1.0
    rows = ["The analysis jobs by rule set and players (claim -> findings stored, wall time):", "",
            "| rule set | players | matches | sum | share | mean a match |", "|---|--:|--:|--:|--:|--:|"]
    for variant, players, count, seconds in analysis.by_rules:
        rows.append(f"| {variant} | {players} | {count} | {seconds:.2f} s | {seconds / total:.0%} | "
                    f"{seconds / count * 1000:.0f} ms |")
    return [*rows, ""]


def split_table(title: str, split: CpuSplit, per_hand: float) -> list[str]:
    """One service call's phases, in ms a hand and as shares of the process's CPU."""
    rows = [f"{title}: this process {split.process_s * per_hand:.2f} ms a hand, its PostgreSQL backend "
            f"{split.backend_s * per_hand:.2f} ms (wall {split.wall_s * per_hand:.2f} ms)",
            "", "| phase | CPU ms a hand | share of the process's |", "|---|---|---|"]
    outer = sum(p.seconds for p in split.phases if not p.name.startswith(" "))
    for phase in split.phases:
        rows.append(f"| {phase.name} | {phase.seconds * per_hand:.3f} | {phase.seconds / split.process_s:.0%} |")
    rest = split.process_s - outer
    rows.append(f"| the rest (queries not listed: lookups, the match's fetch and UPDATE, transactions) "
                f"| {rest * per_hand:.3f} | {rest / split.process_s:.0%} |")
    return [*rows, ""]


def analysis_table(profile: ProfileResult) -> list[str]:
    if not profile.analysis_split:
        return []
    a_hand = 1000 / profile.analysis_hands
    a_total = sum(p.seconds for p in profile.analysis_split)
    rows = [f"`match_analyze` (the analysis job) phase by phase, once, {profile.analysis_matches} matches "
            f"({profile.analysis_hands} hands), wall time: {a_total:.2f} s = {a_total * a_hand:.1f} ms a hand",
            "", "| phase | ms a hand | share |", "|---|---|---|"]
    for phase in profile.analysis_split:
        rows.append(f"| {phase.name} | {phase.seconds * a_hand:.2f} | {phase.seconds / a_total:.0%} |")
    return [*rows, ""]


def profile_report(profile: ProfileResult) -> list[str]:
    per_hand = 1000 / profile.hands
    return [
        f"Where the time goes: the services in this process on the same database, {profile.matches} matches "
        f"({profile.hands} hands, the first of the corpus), no Celery, no HTTP; CPU time of this process "
        f"(phases: inside each call) and of its PostgreSQL backend (from /proc), best of two.",
        "",
        *split_table("`upload_create` (one zip)", profile.upload, per_hand),
        *split_table("`match_verify` (each match)", profile.verify, per_hand),
        f"The engine alone on the same records in this process (Django loaded): "
        f"{profile.engine_s * per_hand:.2f} ms a hand. A redelivered message's `match_verify` (job done): "
        f"{profile.skip_s * 1000:.2f} ms a call, this process and its backend.",
        "",
        *analysis_table(profile),
        "Top of the `match_verify` profile by own CPU time:", "", "```", profile.verify_top, "```", "",
        "Top of the `upload_create` profile by cumulative CPU time:", "", "```", profile.upload_top, "```",
    ]


def print_report(args: argparse.Namespace, corpus: Corpus, engine: EngineResult, run: RunResult,
                 profile: ProfileResult | None) -> None:
    lines = [*report_header(args, corpus, run), *timing_rows(engine, run), *queue_rows(run),
             *cpu_rows(args, engine, run), *verdict_rows(run), "", *analysis_by_rules_table(run)]
    if profile is not None:
        lines += profile_report(profile)
    print("\n".join(lines))


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
            harness.flush_redis(BROKER_URL)  # upload_create queued jobs that no worker is left to take
    print_report(args, corpus, engine, run, profile)


if __name__ == "__main__":
    main()

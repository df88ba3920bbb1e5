"""Load and cost of the service under gunicorn on PostgreSQL, driven over loopback by wrk.

What it does, in order:

1. **Database.** Drops and recreates a scratch PostgreSQL database (``buraco_load``)
   and runs ``manage.py migrate`` on it. Every process runs in production mode
   (``BURACO_ENV=production``: DEBUG off, the deploy security settings on) with a
   random ``SECRET_KEY`` and ``ALLOWED_HOSTS=127.0.0.1,localhost``. Requests carry
   ``X-Forwarded-Proto: https``, as behind the TLS proxy production sits behind, so
   ``SECURE_SSL_REDIRECT`` stays on (a request without it would answer 301, counted
   as non-2xx). **The rate limits are raised** (``THROTTLE_*=1000000/s``): the bench
   measures the service, not the limiter; the upload throttle still runs (its counter
   is in Redis, ``CACHE_URL`` on db 14), it just never refuses.
2. **Seed data, through the service's own code.** Self-play matches
   (``buraco.selfplay.play_match``; seeds 0, 1, ... cycling over the nine rule sets,
   2 or 4 players where allowed, ``--hands-per-match`` hands each) are stored as
   public matches of one user (with an API token) by ``records.services.upload_create``
   in ``manage.py shell`` processes (``--seed-jobs`` at a time), with the jobs run
   in the seeding process (no broker: Celery's eager mode, ``EMBEDDED_JOBS=inline``),
   so each match is verified and then analysed before its upload returns. The bench
   then checks over HTTP (``/api/status/``) that every verify and analyze job is
   done, and reads the chosen hand's match (``/api/matches/{id}/``): the hand
   closest to ``--plies`` (150) actions, verified, analysis done.
3. **gunicorn** (``gunicorn buraco_site.wsgi:application``) on 127.0.0.1 and a
   free port, with ``CELERY_BROKER_URL`` on Redis db 14 (flushed first and last),
   as in production: an upload stores the match and sends its verify job to the
   broker. **No worker runs** during the measurements (unless ``--celery-workers``):
   the upload mix measures the web side (parse, store, enqueue); the jobs it queues
   wait in Redis and are dropped at the end. Each configuration in ``--gunicorn``
   (``sync:W`` or ``gthread:WxT``) is tried on the timeline and the match list at
   the highest connection count; the one with the lowest timeline p99 serves the
   measurements (pass one configuration to skip the trial). ``--max-requests`` is
   never set: a leak must show in the soak, not be recycled away.
4. **wrk** (``-t 2 --latency --timeout 30s``; Lua scripts written to a temp dir: the
   token header, ``Accept-Encoding: gzip`` as browsers send it (``--no-gzip``: none; the
   service may answer a stored timeline gzipped), a ``response()`` counting statuses and a ``done()`` printing the
   latency percentiles and non-2xx counts as one JSON line) against each target at
   each connection count (default 16 and 64) for ``--duration`` seconds (default 20)
   after a ``--warmup`` run (default 5 s, not counted):
   ``list`` (``/api/matches/``, first page of 50), ``timeline`` (the chosen hand's
   ``/timeline/``), ``state`` (``/states/{plies // 2}/`` of that hand), ``findings``
   (``/api/matches/{id}/findings/``), and ``upload-mix``: ``--upload-share`` of the
   requests (default 20%) POST a real self-play record (``application/toml``, one of
   8 records not in the seed set, each made unique by a trailing TOML comment, so
   every upload stores a new match), the others cycle over the four reads and the
   match's detail. wrk is a closed loop (each connection sends its next request when
   the last one is answered), so its latencies are service times plus queueing for a
   fixed number of busy clients, not an open-loop arrival rate.
5. **Soak** (``--soak SECONDS``, e.g. 600): a freshly started gunicorn with the chosen
   configuration, a 30 s warm-up, then the upload mix at the highest connection count
   in back-to-back wrk runs of 60 s; every 10 s the RSS of each gunicorn worker
   (``VmRSS``, ``/proc/{pid}/status``). Reports each segment's requests/s, p50, p99
   and errors, and the workers' first, last and largest RSS.
6. **Profile** of one timeline request (``--profile-runs`` requests): through
   Django's test client in a ``manage.py shell`` on the same database (no gunicorn,
   no socket), timed without a profiler, then under cProfile with the time split
   into parsing the stored record, replaying, building the entries, JSON rendering
   and the database. Only names found in the profile are used: if the timeline is
   served some other way, absent categories read 0 and the top of the profile tells.
   Beside it, wrk at 1 connection on the same URL through gunicorn.

Everything it measures is read over HTTP (and ``/proc``): the bench does not depend
on how the service computes an answer (to measure an export of another commit, copy
``bench/load.py`` and ``bench/harness.py`` into it). gunicorn, the seeding shells and any worker are
always stopped; the database is dropped at the end (``--keep-db`` keeps it). Every
run records the load average and the CPU used by other processes on the machine
(machine busy time from ``/proc/stat`` less gunicorn's, wrk's and the bench database's
PostgreSQL backends'): the figures depend on what else the 2 cores run.

Run: ``.venv/bin/python bench/load.py [--duration 20] [--soak 600] [--markdown FILE]``
(``make bench-load``). Needs PostgreSQL on 127.0.0.1:5432 (user ``postgres``, trust),
Redis on 127.0.0.1:6379 (db 14 is flushed) and ``wrk`` on the PATH. Output is Markdown.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import re
import resource
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, sys.path[0] is bench/; the engine sits one level up (self-play only).
sys.path.insert(1, str(ROOT))

from bench import harness  # noqa: E402 - after the path above

DB_NAME = "buraco_load"
DATABASE_URL = harness.database_url(DB_NAME)
REDIS_URL = "redis://127.0.0.1:6379/14"  # broker and cache; db 15 belongs to the tests
BENCH_USER = "loadbench"
RECORD_NAME = "load-{seed:07d}-{variant}-{players}p.brn"
UPLOAD_SEED_BASE = 1_000_000  # the upload mix's records: seeds far from the seeded ones
UPLOAD_RECORDS = 8
RAISED_RATE = "1000000/s"  # every THROTTLE_*: counted, never refused
RAISED_THROTTLES = {f"THROTTLE_{scope}": RAISED_RATE for scope in ("TOKEN", "LOGIN", "SIGNUP", "UPLOAD")}
CELERY_QUEUES = ("interactive", "bulk", "analysis", "reverify")
WRK_TIMEOUT = "30s"  # wrk's default (2 s) would drop the slowest answers from the latencies
SOAK_SEGMENT = 60.0
SOAK_WARMUP = 30.0
RSS_INTERVAL = 10.0
DEFAULT_CONFIGS = "sync:2,sync:3,sync:4,gthread:2x2,gthread:2x4"


def log(message: str) -> None:
    print(f"[load {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# --- the corpus: self-play records (not timed) -------------------------------------------


def generate(first_seed: int, count: int, hands: int) -> list[harness.Played]:
    """``count`` matches from seeds ``first_seed``, ``first_seed + 1``, ... on every core."""
    return harness.self_play(first_seed, count, hands, RECORD_NAME)[0]


def closest_hand(played: Sequence[harness.Played], plies: int) -> tuple[harness.Played, int]:
    """The record and hand number (from 1) whose action count is closest to ``plies``."""
    best = min(((abs(n - plies), index, number) for index, p in enumerate(played)
                for number, n in enumerate(p.actions, start=1)))
    return played[best[1]], best[2]


# --- processes, environment, database ---------------------------------------------------------


def load_env(secret_key: str, broker: bool) -> dict[str, str]:
    """Production mode, the bench database, raised rate limits; with ``broker``, Redis db 14
    as broker and cache (the web process); without, jobs run in the calling process (seeding)."""
    redis = REDIS_URL if broker else None
    return harness.service_env(DATABASE_URL, broker=redis, cache=redis, production_secret=secret_key,
                       settings=RAISED_THROTTLES)


# Runs in `manage.py shell -c`: stores each record as the user's public upload through the
# service's own write path; with no broker the verify and analyze jobs run right there.
SEED_CODE = """
import json, os, time
from django.contrib.auth.models import User
from records import services
spec = json.load(open(os.environ["LOAD_SEED_FILE"]))
user = User.objects.get(username=spec["username"])
ids = {}
started = time.perf_counter()
for name, path in spec["records"]:
    with open(path, "rb") as handle:
        content = handle.read()
    result = services.upload_create(owner=user, files=[services.UploadedFile(name, content)], visibility="public")
    ids[name] = result.matches[0].pk
print("SEEDED " + json.dumps({"ids": ids, "seconds": time.perf_counter() - started}))
"""


@dataclass
class Seeded:
    token: str
    ids: dict[str, int]  # file name -> match id
    seconds: float  # wall time of the seeding shells
    matches: int
    hands: int
    actions: int


def seed_specs(played: Sequence[harness.Played], work_dir: Path, jobs: int) -> list[Path]:
    """Every record written to a file, and for each of ``jobs`` shells a spec of its share."""
    records_dir = work_dir / "seed"
    records_dir.mkdir(exist_ok=True)
    entries = []
    for p in played:
        path = records_dir / p.name
        path.write_text(p.text)
        entries.append((p.name, str(path)))
    chunks = [entries[i::jobs] for i in range(jobs) if entries[i::jobs]]
    specs = []
    for index, chunk in enumerate(chunks):
        spec = work_dir / f"seed-{index}.json"
        spec.write_text(json.dumps({"username": BENCH_USER, "records": chunk}))
        specs.append(spec)
    return specs


def seed(played: Sequence[harness.Played], work_dir: Path, env: dict[str, str], jobs: int) -> Seeded:
    """Create the user and token, then store every record in ``jobs`` shells at once."""
    token = harness.create_api_user(BENCH_USER, env)
    specs = seed_specs(played, work_dir, jobs)
    started = time.perf_counter()
    shells = harness.Processes(work_dir)
    try:
        children = [shells.start(f"seed-{index}", [sys.executable, "manage.py", "shell", "-c", SEED_CODE],
                                 {**env, "LOAD_SEED_FILE": str(spec)})
                    for index, spec in enumerate(specs)]
        ids: dict[str, int] = {}
        for child in children:
            if child.process.wait() != 0:
                raise SystemExit(f"seeding failed:\n{child.log_tail(60)}")
            ids.update(harness.tagged_json(child.log_path.read_text(), "SEEDED")["ids"])
    finally:
        shells.stop()
    return Seeded(token, ids, time.perf_counter() - started, len(played),
                  sum(p.hands for p in played), sum(p.action_count for p in played))


# --- HTTP (stdlib) ---------------------------------------------------------------------------------


def https_api(base: str, token: str) -> harness.Api:
    """The API as behind production's TLS proxy: without the header, SECURE_SSL_REDIRECT answers 301."""
    return harness.Api(base, token, headers={"X-Forwarded-Proto": "https"})


def check_jobs_done(api: harness.Api, matches: int) -> dict[str, dict[str, int]]:
    """Every seeded match's verify and analyze job is done (``/api/status/``), none else."""
    jobs: dict[str, dict[str, int]] = api.get("/api/status/")["jobs"]
    for kind in ("verify", "analyze"):
        counts = jobs.get(kind, {})
        if counts.get("done", 0) != matches or sum(counts.values()) != matches:
            raise SystemExit(f"seeded {matches} matches but the {kind} jobs stand at {counts}: "
                             "verification and analysis must be finished before reads are measured")
    return jobs


# --- gunicorn -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GunicornConfig:
    worker_class: str  # sync or gthread
    workers: int
    threads: int

    @classmethod
    def parse(cls, text: str) -> GunicornConfig:
        match = re.fullmatch(r"(sync):(\d+)|(gthread):(\d+)x(\d+)", text.strip())
        if match is None:
            raise argparse.ArgumentTypeError(f"{text!r}: sync:WORKERS or gthread:WORKERSxTHREADS")
        if match.group(1):
            return cls("sync", int(match.group(2)), 1)
        return cls("gthread", int(match.group(4)), int(match.group(5)))

    @property
    def label(self) -> str:
        if self.worker_class == "sync":
            return f"sync:{self.workers}"
        return f"gthread:{self.workers}x{self.threads}"

    @property
    def args(self) -> list[str]:
        return ["-k", self.worker_class, "-w", str(self.workers), "--threads", str(self.threads)]

    @property
    def describe(self) -> str:
        if self.worker_class == "sync":
            return f"{self.workers} sync workers"
        return f"{self.workers} gthread workers x {self.threads} threads"


LOG_PROBLEMS = re.compile(r"Internal Server Error|Traceback|WORKER TIMEOUT|Worker \(pid:\d+\) was sent|"
                          r"Exception in worker|\[ERROR\]|\[CRITICAL\]")


class Gunicorn:
    """One gunicorn master (own process group) and its workers; its log in ``log_path``."""

    def __init__(self, config: GunicornConfig, env: dict[str, str], log_path: Path) -> None:
        self.config = config
        self.port = harness.free_port()
        self.base = f"http://{harness.HOST}:{self.port}"
        self.log_path = log_path
        self.log_offset = 0
        self.command = harness.gunicorn_command(self.port, config.args)
        self.child: harness.Child = harness.start_child("gunicorn", self.command, env, log_path)

    def wait_ready(self, api: harness.Api) -> None:
        """Until it answers /api/health/ with all its workers started."""
        try:
            harness.wait_for_health(api, self.child.check_alive,
                                    ready=lambda: len(self.workers()) >= self.config.workers)
        except SystemExit as error:
            if self.alive():  # no answer in time: what its log says, as check_alive gives for a death
                raise SystemExit(f"{error}:\n{self.log_tail()}") from None
            raise

    def workers(self) -> list[int]:
        return harness.children_of(self.child.pid)

    def cpu_seconds(self) -> float:
        return harness.cpu_seconds_with_children([self.child.pid])

    def alive(self) -> bool:
        return self.child.alive()

    def log_tail(self, lines: int = 40) -> str:
        return self.child.log_tail(lines)

    def new_problems(self) -> list[str]:
        """Lines of the log written since the last call that tell of an error (a 500's traceback,
        a worker timeout or restart), each with up to 30 lines after it."""
        text = self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
        new = text[self.log_offset:]
        self.log_offset = len(text)
        lines = new.splitlines()
        problems = []
        index = 0
        while index < len(lines):
            if LOG_PROBLEMS.search(lines[index]):
                block = lines[index:index + 30]
                problems.append("\n".join(block))
                index += len(block)
            else:
                index += 1
        return problems

    def stop(self) -> None:
        harness.stop_children([self.child])  # gunicorn: graceful shutdown of the workers on SIGTERM


class CeleryWorkers:
    """Optional Celery workers on db 14 during the measurements (``--celery-workers``)."""

    def __init__(self, count: int, env: dict[str, str], log_dir: Path) -> None:
        self.processes = harness.Processes(log_dir)
        host = socket.gethostname()
        for index in range(count):
            command = harness.celery_worker_command(f"load-{index + 1}@{host}", CELERY_QUEUES)
            self.processes.start(f"celery-{index + 1}", command, env)

    def cpu_seconds(self) -> float:
        """CPU of the workers and their pool children."""
        return harness.cpu_seconds_with_children(child.pid for child in self.processes.children)

    def stop(self) -> None:
        self.processes.stop()


# --- wrk --------------------------------------------------------------------------------------------------


def lua_string(text: str) -> str:
    """A Lua string literal for ``text`` (bytes above 127 pass through as they are)."""
    out = []
    for char in text:
        if char in '\\"':
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif ord(char) < 32 or ord(char) == 127:
            out.append(f"\\{ord(char):03d}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


# Shared by every script: the token header, status counting per thread (response), and a
# done() that sums the threads' counts and prints one JSON line with the latency percentiles.
LUA_COMMON = r"""
for k, v in pairs(base_headers) do wrk.headers[k] = v end

local threads = {}
local thread_count = 0
function setup(thread)
  thread_count = thread_count + 1
  thread:set("id", thread_count)
  table.insert(threads, thread)
end

statuses = {}
non2xx = 0
first_error = ""

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
  if status < 200 or status > 299 then
    non2xx = non2xx + 1
    if first_error == "" then first_error = status .. " " .. string.sub(body or "", 1, 400) end
  end
end

local function json_escape(s)
  return (string.gsub(s, '[%c"\\\128-\255]', function(c) return string.format("\\u%04x", string.byte(c)) end))
end

function done(summary, latency, requests)
  local bad, codes, first = 0, {}, ""
  for _, thread in ipairs(threads) do
    bad = bad + (thread:get("non2xx") or 0)
    for code, n in pairs(thread:get("statuses") or {}) do codes[code] = (codes[code] or 0) + n end
    local e = thread:get("first_error") or ""
    if first == "" then first = e end
  end
  local parts = {}
  for code, n in pairs(codes) do table.insert(parts, string.format('"%d": %d', code, n)) end
  local e = summary.errors
  io.write(string.format(
    'LOADJSON {"requests": %d, "duration_us": %d, "bytes": %d, "p50_us": %d, "p90_us": %d, "p99_us": %d, ' ..
    '"p999_us": %d, "mean_us": %.1f, "stdev_us": %.1f, "max_us": %d, "connect": %d, "read": %d, "write": %d, ' ..
    '"status": %d, "timeout": %d, "non2xx": %d, "statuses": {%s}, "first_error": "%s"}\n',
    summary.requests, summary.duration, summary.bytes, latency:percentile(50), latency:percentile(90),
    latency:percentile(99), latency:percentile(99.9), latency.mean, latency.stdev, latency.max,
    e.connect, e.read, e.write, e.status, e.timeout, bad, table.concat(parts, ", "), json_escape(first)))
end
"""

# The upload mix: a fixed schedule of steps, each a GET of a read or a POST of one of the
# upload records with a trailing TOML comment that makes it a new match.
LUA_MIX = r"""
local bodies = {}
local counter = 0
local post_headers = {}

function init(args)
  for i, path in ipairs(upload_files) do
    local f = assert(io.open(path, "rb"))
    bodies[i] = f:read("*a")
    f:close()
  end
  for k, v in pairs(base_headers) do post_headers[k] = v end
  post_headers["Content-Type"] = "application/toml"
  counter = (id or 1) * 7
end

function request()
  counter = counter + 1
  local step = schedule[(counter % #schedule) + 1]
  if step == "POST" then
    local body = bodies[(counter % #bodies) + 1] .. "\n# bench/load.py upload " .. nonce .. "-" .. (id or 0) ..
      "-" .. counter .. "\n"
    return wrk.format("POST", "/api/matches/", post_headers, body)
  end
  return wrk.format("GET", step)
end
"""


@dataclass(frozen=True)
class Target:
    name: str
    path: str  # the URL's path (the upload mix: its description)
    schedule: tuple[str, ...] = ()  # the upload mix only: "POST" or a path to GET


def write_script(directory: Path, target: Target, token: str, upload_files: Sequence[Path], nonce: str,
                 gzip: bool = True) -> Path:
    lines = [
        f"-- bench/load.py: {target.name} ({target.path})",
        "base_headers = {",
        f'  ["Authorization"] = {lua_string("Token " + token)},',
        '  ["X-Forwarded-Proto"] = "https",',
        '  ["Accept"] = "application/json",',
        *(['  ["Accept-Encoding"] = "gzip",'] if gzip else []),
        "}",
    ]
    if target.schedule:
        lines.append("schedule = {" + ", ".join(lua_string(step) for step in target.schedule) + "}")
        lines.append("upload_files = {" + ", ".join(lua_string(str(p)) for p in upload_files) + "}")
        lines.append(f"nonce = {lua_string(nonce)}")
    script = "\n".join(lines) + "\n" + LUA_COMMON + (LUA_MIX if target.schedule else "")
    path = directory / f"{target.name}.lua"
    path.write_text(script)
    return path


@dataclass
class WrkResult:
    target: str
    path: str
    connections: int
    threads: int
    seconds: float
    requests: int
    rps: float
    p50_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float
    mean_ms: float
    non2xx: int
    socket_errors: dict[str, int]
    statuses: dict[str, int]
    first_error: str
    transfer_mb_s: float
    load_before: float
    load_after: float
    cpu: dict[str, float]  # CPU seconds during the run: gunicorn, wrk, postgres, machine
    problems: list[str] = field(default_factory=list)  # gunicorn log: tracebacks, worker timeouts

    @property
    def errors(self) -> int:
        return self.non2xx + sum(self.socket_errors.values())

    @property
    def cpu_ms_per_request(self) -> float:
        """CPU of gunicorn and the bench database's backends per answered request: the service's cost,
        which (unlike the latencies) other load on the machine barely changes."""
        return 1000 * (self.cpu["gunicorn"] + self.cpu["postgres"]) / max(1, self.requests)

    @property
    def other_cores(self) -> float:
        """Cores' worth of CPU used by everything else on the machine meanwhile (approximate)."""
        ours = self.cpu["gunicorn"] + self.cpu["wrk"] + self.cpu["postgres"] + self.cpu["bench"] + self.cpu["celery"]
        return max(0.0, self.cpu["machine"] - ours) / self.seconds


TRANSFER = re.compile(r"Transfer/sec:\s+([\d.]+)([KMG]?B)")
RPS = re.compile(r"Requests/sec:\s+([\d.]+)")


class BackendCpu:
    """CPU seconds of the PostgreSQL backends serving the bench database (read from /proc)."""

    def __init__(self) -> None:
        import psycopg

        self.connection = psycopg.connect(DATABASE_URL, autocommit=True)

    def sample(self) -> dict[int, float]:
        return {pid: stat.cpu_s for pid in harness.backend_pids(self.connection, DB_NAME)
                if (stat := harness.proc_stat(pid)) is not None}

    def close(self) -> None:
        self.connection.close()


def run_wrk(script: Path, base: str, target: Target, connections: int, seconds: float, threads: int,
            server: Gunicorn, backends: BackendCpu, log_dir: Path, label: str,
            celery: CeleryWorkers | None = None) -> WrkResult:
    """One wrk run; CPU of gunicorn, wrk (this process's reaped children), the backends and any
    Celery workers around it."""
    threads = min(threads, connections)
    url = base + (target.path if not target.schedule else "/")
    seconds = max(1, round(seconds))  # wrk takes whole seconds
    command = ["wrk", "-t", str(threads), "-c", str(connections), "-d", f"{seconds}s", "--timeout", WRK_TIMEOUT,
               "--latency", "-s", str(script), url]
    load_before = os.getloadavg()[0]
    pg_before = backends.sample()
    gunicorn_before = server.cpu_seconds()
    celery_before = celery.cpu_seconds() if celery is not None else 0.0
    children_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    self_before = time.process_time()
    machine_before = harness.machine_busy_seconds()
    done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=seconds + 120)
    machine = harness.machine_busy_seconds() - machine_before
    children_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    gunicorn_cpu = server.cpu_seconds() - gunicorn_before
    celery_cpu = celery.cpu_seconds() - celery_before if celery is not None else 0.0
    pg_after = backends.sample()
    load_after = os.getloadavg()[0]
    (log_dir / f"wrk-{label}.txt").write_text(" ".join(command) + "\n\n" + done.stdout + "\n" + done.stderr)
    if done.returncode != 0:
        raise SystemExit(f"wrk failed ({done.returncode}): {done.stderr}\n{done.stdout}")
    data = harness.tagged_json(done.stdout, "LOADJSON")
    rps_match = RPS.search(done.stdout)
    transfer = TRANSFER.search(done.stdout)
    scale = {"B": 1e-6, "KB": 1 / 1024, "MB": 1.0, "GB": 1024.0}
    wrk_cpu = (children_after.ru_utime + children_after.ru_stime) - (children_before.ru_utime + children_before.ru_stime)
    pg_cpu = sum(cpu - pg_before.get(pid, 0.0) for pid, cpu in pg_after.items())
    duration = data["duration_us"] / 1e6
    return WrkResult(
        target=target.name, path=target.path, connections=connections, threads=threads, seconds=duration,
        requests=int(data["requests"]),
        rps=float(rps_match.group(1)) if rps_match else data["requests"] / duration,
        p50_ms=data["p50_us"] / 1000, p90_ms=data["p90_us"] / 1000, p99_ms=data["p99_us"] / 1000,
        max_ms=data["max_us"] / 1000, mean_ms=data["mean_us"] / 1000, non2xx=int(data["non2xx"]),
        socket_errors={k: int(data[k]) for k in ("connect", "read", "write", "timeout") if int(data[k])},
        statuses={str(k): int(v) for k, v in sorted(data["statuses"].items())}, first_error=data["first_error"],
        transfer_mb_s=float(transfer.group(1)) * scale[transfer.group(2)] if transfer else 0.0,
        load_before=load_before, load_after=load_after,
        cpu={"gunicorn": gunicorn_cpu, "wrk": wrk_cpu, "postgres": pg_cpu, "machine": machine,
             "bench": time.process_time() - self_before, "celery": celery_cpu},
        problems=server.new_problems(),
    )


# --- the measurements -----------------------------------------------------------------------------------------


@dataclass
class Setup:
    token: str
    match_id: int
    hand: int
    plies: int
    variant: str
    players: int
    findings: int
    timeline_bytes: int
    targets: dict[str, Target]
    upload_files: list[Path]
    scripts_dir: Path
    log_dir: Path
    env: dict[str, str]
    nonce: str
    celery: CeleryWorkers | None = None
    gzip: bool = True  # requests say Accept-Encoding: gzip, as browsers do


def make_targets(match_id: int, hand: int, plies: int, upload_share: float) -> dict[str, Target]:
    base = f"/api/matches/{match_id}"
    reads = {
        "list": "/api/matches/",
        "timeline": f"{base}/hands/{hand}/timeline/",
        "state": f"{base}/hands/{hand}/states/{plies // 2}/",
        "findings": f"{base}/findings/",
    }
    targets = {name: Target(name, path) for name, path in reads.items()}
    # 20 steps: round(20 * share) uploads spread evenly, the rest cycling over the reads and the detail.
    steps = 20
    uploads = max(0, min(steps, round(steps * upload_share)))
    cycle = [reads["list"], f"{base}/", reads["timeline"], reads["state"], reads["findings"]]
    schedule: list[str] = []
    read_index = 0
    for step in range(steps):
        if uploads and (step * uploads) // steps != ((step + 1) * uploads) // steps:
            schedule.append("POST")
        else:
            schedule.append(cycle[read_index % len(cycle)])
            read_index += 1
    description = (f"{uploads * 100 // steps}% POST /api/matches/ (a new record each), the rest "
                   "list, detail, timeline, state, findings in turn")
    targets["upload-mix"] = Target("upload-mix", description, tuple(schedule))
    return targets


def measure(setup: Setup, server: Gunicorn, backends: BackendCpu, target: Target, connections: int,
            seconds: float, warmup: float, threads: int, label: str) -> WrkResult:
    script = write_script(setup.scripts_dir, target, setup.token, setup.upload_files, setup.nonce, setup.gzip)
    if warmup > 0:
        run_wrk(script, server.base, target, connections, warmup, threads, server, backends, setup.log_dir,
                label + "-warmup", setup.celery)
    result = run_wrk(script, server.base, target, connections, seconds, threads, server, backends, setup.log_dir,
                     label, setup.celery)
    if not server.alive():
        raise SystemExit(f"gunicorn died during {label}:\n{server.log_tail()}")
    log(f"{label}: {result.rps:.1f} req/s, p50 {result.p50_ms:.1f} ms, p99 {result.p99_ms:.1f} ms, "
        f"{result.errors} errors, load {result.load_after:.2f}")
    return result


def start_server(config: GunicornConfig, setup: Setup, tag: str) -> Gunicorn:
    server = Gunicorn(config, setup.env, setup.log_dir / f"gunicorn-{tag}.log")
    try:
        server.wait_ready(https_api(server.base, setup.token))
    except BaseException:
        server.stop()
        raise
    return server


@dataclass
class Trial:
    config: GunicornConfig
    results: dict[str, WrkResult]


def try_configs(configs: Sequence[GunicornConfig], setup: Setup, backends: BackendCpu, connections: int,
                seconds: float, warmup: float, threads: int) -> list[Trial]:
    trials = []
    for config in configs:
        log(f"trial: gunicorn {config.label}")
        server = start_server(config, setup, f"trial-{config.label.replace(':', '-')}")
        try:
            results = {name: measure(setup, server, backends, setup.targets[name], connections, seconds, warmup,
                                     threads, f"trial-{config.label}-{name}-{connections}c")
                       for name in ("timeline", "list")}
        finally:
            server.stop()
        trials.append(Trial(config, results))
    return trials


def best_trial(trials: Sequence[Trial]) -> Trial:
    """The lowest timeline p99 (the aim's measure); the error-free first, higher requests/s on a tie."""
    return min(trials, key=lambda t: (t.results["timeline"].errors > 0, t.results["timeline"].p99_ms,
                                      -t.results["timeline"].rps))


@dataclass
class SoakSegment:
    result: WrkResult
    started_s: float


@dataclass
class SoakResult:
    seconds: float
    connections: int
    segments: list[SoakSegment]
    rss: list[tuple[float, dict[int, int]]]  # (seconds since the start, worker pid -> KiB)
    workers_at_start: list[int]
    workers_at_end: list[int]
    problems: list[str]

    @property
    def requests(self) -> int:
        return sum(s.result.requests for s in self.segments)

    @property
    def errors(self) -> int:
        return sum(s.result.errors for s in self.segments)

    def totals_mib(self) -> list[float]:
        return [sum(sample.values()) / 1024 for _, sample in self.rss]


class RssSampler(threading.Thread):
    """The RSS of every gunicorn worker every ``RSS_INTERVAL`` seconds."""

    def __init__(self, server: Gunicorn) -> None:
        super().__init__(name="rss-sampler", daemon=True)
        self.server = server
        self.samples: list[tuple[float, dict[int, int]]] = []
        self._stop_event = threading.Event()
        self.start_time = time.monotonic()

    def sample(self) -> None:
        workers = {pid: kib for pid in self.server.workers() if (kib := harness.rss_kib(pid)) is not None}
        self.samples.append((time.monotonic() - self.start_time, workers))

    def run(self) -> None:
        self.sample()
        while not self._stop_event.wait(RSS_INTERVAL):
            self.sample()

    def stop(self) -> None:
        self._stop_event.set()
        self.join(timeout=30)
        if not self.samples or time.monotonic() - self.start_time - self.samples[-1][0] > 1.0:
            self.sample()


def soak(config: GunicornConfig, setup: Setup, backends: BackendCpu, seconds: float, connections: int,
         threads: int) -> SoakResult:
    log(f"soak: {seconds:.0f} s of the upload mix at {connections} connections, gunicorn {config.label}")
    server = start_server(config, setup, "soak")
    target = setup.targets["upload-mix"]
    try:
        script = write_script(setup.scripts_dir, target, setup.token, setup.upload_files, setup.nonce + "s",
                              setup.gzip)
        run_wrk(script, server.base, target, connections, SOAK_WARMUP, threads, server, backends, setup.log_dir,
                "soak-warmup", setup.celery)
        workers_at_start = server.workers()
        sampler = RssSampler(server)
        sampler.start()
        segments: list[SoakSegment] = []
        total = max(1, round(seconds))
        step = round(SOAK_SEGMENT)
        lengths = [step] * (total // step) + ([total % step] if total % step else [])
        try:
            elapsed = 0.0
            for index, length in enumerate(lengths, start=1):
                result = run_wrk(script, server.base, target, connections, length, threads, server, backends,
                                 setup.log_dir, f"soak-{index:02d}", setup.celery)
                segments.append(SoakSegment(result, time.monotonic() - sampler.start_time - result.seconds))
                log(f"soak {index}: {result.rps:.1f} req/s, p99 {result.p99_ms:.1f} ms, {result.errors} errors, "
                    f"RSS {sum(sampler.samples[-1][1].values()) / 1024:.1f} MiB")
                elapsed = time.monotonic() - sampler.start_time
                if not server.alive():
                    raise SystemExit(f"gunicorn died during the soak:\n{server.log_tail()}")
        finally:
            sampler.stop()
        problems = [p for s in segments for p in s.result.problems] + server.new_problems()
        return SoakResult(elapsed, connections, segments, sampler.samples, workers_at_start, server.workers(),
                          problems)
    finally:
        server.stop()


# --- the timeline profile (Django's test client in a shell) ------------------------------------------------

PROFILE_CODE = r'''
import cProfile, io, json, os, pstats, statistics, time
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

path = os.environ["LOAD_PROFILE_PATH"]
runs = int(os.environ["LOAD_PROFILE_RUNS"])
hand = int(os.environ["LOAD_PROFILE_HAND"])
headers = {"HTTP_ACCEPT_ENCODING": "gzip"} if os.environ.get("LOAD_ACCEPT_GZIP") == "1" else {}
client = Client(HTTP_HOST="127.0.0.1", HTTP_AUTHORIZATION="Token " + os.environ["LOAD_TOKEN"],
                HTTP_X_FORWARDED_PROTO="https", **headers)

def get(url):
    response = client.get(url)
    if response.status_code != 200:
        raise SystemExit(f"GET {url}: {response.status_code} {response.content[:300]!r}")
    return response

for _ in range(3):
    response = get(path)
times = []
for _ in range(runs):
    started = time.perf_counter()
    response = get(path)
    times.append(time.perf_counter() - started)
size = len(response.content)
with CaptureQueriesContext(connection) as captured:
    get(path)
queries = [(q["sql"][:160], float(q["time"])) for q in captured.captured_queries]

profile = cProfile.Profile()
profile.enable()
for _ in range(runs):
    get(path)
profile.disable()
stats = pstats.Stats(profile)

def cumulative(suffix, name):
    best = 0.0
    for (filename, _line, function), (_cc, _nc, _tt, ct, _callers) in stats.stats.items():
        if function == name and filename.replace("\\", "/").endswith(suffix):
            best = max(best, ct)
    return best / runs * 1000

categories = [
    ("the request through the test client (all)", cumulative("django/test/client.py", "get")),
    ("parsing the stored record: buraco.notation.loads", cumulative("buraco/notation.py", "loads")),
    ("  of which TOML: tomllib.loads", cumulative("tomllib/_parser.py", "loads")),
    ("replaying the actions: buraco.replay.iter_hand", cumulative("buraco/replay.py", "iter_hand")),
    ("building the entries: buraco.replay.timeline_entry", cumulative("buraco/replay.py", "timeline_entry")),
    ("  of which HandState.to_json", cumulative("buraco/state.py", "to_json")),
    ("JSON rendering: DRF JSONRenderer.render", cumulative("rest_framework/renderers.py", "render")),
    ("  of which json.dumps", cumulative("json/__init__.py", "dumps")),
    ("gzip: gzip.compress and gzip.decompress", cumulative("gzip.py", "compress") + cumulative("gzip.py", "decompress")),
    ("database: CursorWrapper.execute", cumulative("django/db/backends/utils.py", "execute")),
    ("token authentication: TokenAuthentication.authenticate", cumulative("rest_framework/authentication.py", "authenticate")),
]
top = io.StringIO()
pstats.Stats(profile, stream=top).sort_stats("cumulative").print_stats(25)
own = io.StringIO()
pstats.Stats(profile, stream=own).sort_stats("tottime").print_stats(15)

# The same work as plain engine calls, no profiler: what the timeline costs wherever it is computed.
phases = {}
try:
    from buraco.notation import loads
    from buraco.replay import iter_timeline
    from rest_framework.renderers import JSONRenderer
    source = get(path.split("/hands/")[0] + "/source/").content
    def best(fn, repeat=max(5, runs // 2)):
        out = []
        for _ in range(repeat):
            started = time.perf_counter()
            value = fn()
            out.append(time.perf_counter() - started)
        return statistics.median(out) * 1000, value
    phases["loads(source)"], record = best(lambda: loads(source))
    phases["list(iter_timeline(record, hand))"], entries = best(lambda: list(iter_timeline(record, hand - 1)))
    phases["JSONRenderer().render(entries)"], _ = best(lambda: JSONRenderer().render({"states": entries}))
    phases["source bytes"] = len(source)
    phases["entries"] = len(entries)
except Exception as error:  # the engine's API moved: the profile above still stands
    phases["error"] = f"{type(error).__name__}: {error}"

print("PROFILE " + json.dumps({
    "runs": runs, "median_ms": statistics.median(times) * 1000, "p90_ms": sorted(times)[int(0.9 * (len(times) - 1))] * 1000,
    "min_ms": min(times) * 1000, "bytes": size, "queries": queries, "categories": categories,
    "top_cumulative": top.getvalue(), "top_own": own.getvalue(), "phases": phases,
}))
'''


@dataclass
class Profile:
    data: dict[str, Any]
    one_connection: WrkResult | None


def profile_timeline(setup: Setup, runs: int, server: Gunicorn | None, backends: BackendCpu,
                     seconds: float, threads: int) -> Profile:
    target = setup.targets["timeline"]
    log(f"profile: {runs} timeline requests through the test client, then cProfile")
    env = {**setup.env, "LOAD_PROFILE_PATH": target.path, "LOAD_PROFILE_RUNS": str(runs),
           "LOAD_PROFILE_HAND": str(setup.hand), "LOAD_TOKEN": setup.token, "LOAD_ACCEPT_GZIP": "1" if setup.gzip else ""}
    data = harness.tagged_json(harness.manage("shell", "-c", PROFILE_CODE, env=env, timeout=1800), "PROFILE")
    one = None
    if server is not None:
        one = measure(setup, server, backends, target, 1, seconds, 2.0, 1, "timeline-1c")
    return Profile(data, one)


# --- report -------------------------------------------------------------------------------------------------


def fmt(value: float, digits: int = 1) -> str:
    return f"{value:,.{digits}f}"


def result_row(result: WrkResult, name: str | None = None) -> str:
    errors = result.errors
    codes = ", ".join(f"{code}: {n:,}" for code, n in result.statuses.items())
    socket_errors = ", ".join(f"{k} {v}" for k, v in result.socket_errors.items()) or "0"
    return (f"| {name or result.target} | {result.connections} | {fmt(result.rps)} | {fmt(result.p50_ms)} | "
            f"{fmt(result.p90_ms)} | {fmt(result.p99_ms)} | {fmt(result.max_ms)} | {result.requests:,} | "
            f"{errors} ({socket_errors} socket) | {codes} | {fmt(result.transfer_mb_s)} | "
            f"{fmt(result.cpu_ms_per_request)} | {fmt(result.other_cores, 2)} | "
            f"{result.load_before:.2f} / {result.load_after:.2f} |")


RESULT_HEADER = ("| target | conns | req/s | p50 ms | p90 ms | p99 ms | max ms | requests | errors | statuses | "
                 "MB/s | service CPU ms/req | other CPU, cores | load avg before / after |\n"
                 "|---|--:|--:|--:|--:|--:|--:|--:|---|---|--:|--:|--:|---|")


@dataclass
class Report:
    args: argparse.Namespace
    versions: dict[str, str]
    seeded: Seeded
    setup: Setup
    jobs: dict[str, dict[str, int]]
    trials: list[Trial]
    chosen: GunicornConfig
    results: list[WrkResult]
    soak: SoakResult | None
    profile: Profile | None
    started: str
    finished: str = ""
    aborted: str = ""  # the error that stopped the run, if one did: the report then has what was measured


def render(report: Report) -> str:
    out = [*render_header(report), *render_trials(report), *render_figures(report)]
    if report.soak is not None:
        out.extend(render_soak(report.soak))
    if report.profile is not None:
        out.extend(render_profile(report.profile, report.setup))
    out.extend(render_errors(report))
    return "\n".join(out)


def render_header(report: Report) -> list[str]:
    """The run's title and what it ran on, with what and how."""
    out: list[str] = []
    args = report.args
    setup = report.setup
    dirty = harness.git("status", "--porcelain")
    out.append(f"## Load run (bench/load.py), {report.started} to {report.finished} UTC")
    out.append("")
    if report.aborted:
        out.append(f"**The run stopped early**: {report.aborted}")
        out.append("")
    commit = harness.git("rev-parse", "--short", "HEAD")
    out.append((f"- commit `{commit}`" if commit else f"- code: {ROOT} (not a git checkout)")
               + (f" with {len(dirty.splitlines())} uncommitted paths in the tree (shared working tree)"
                  if dirty else ""))
    out.append(f"- machine: {os.cpu_count()} cores ({platform.processor() or platform.machine()}), "
               f"Python {platform.python_version()}, PostgreSQL {report.versions['postgresql']}, "
               f"Redis {report.versions['redis']}, {report.versions['wrk']}, gunicorn {report.versions['gunicorn']}")
    out.append(f"- gunicorn: `{' '.join(['gunicorn', 'buraco_site.wsgi:application', *report.chosen.args])}` "
               f"({report.chosen.describe}), production settings, broker and cache on Redis db 14, no Celery worker"
               + (f" ({args.celery_workers} Celery workers ran)" if args.celery_workers else "")
               + f", rate limits raised to {RAISED_RATE}")
    out.append(f"- wrk: `-t {args.threads} --timeout {WRK_TIMEOUT} --latency`, {args.duration:g} s a run after "
               f"{args.warmup:g} s of warm-up; wrk, gunicorn and PostgreSQL share the {os.cpu_count()} cores; "
               + ("requests say `Accept-Encoding: gzip`" if setup.gzip else "no `Accept-Encoding` header"))
    out.append(f"- data: {report.seeded.matches} public self-play matches ({report.seeded.hands} hands, "
               f"{report.seeded.actions:,} actions) seeded in {report.seeded.seconds:.0f} s through "
               f"`records.services.upload_create`, jobs run inline; `/api/status/` jobs: {report.jobs}")
    out.append(f"- the timeline hand: match {setup.match_id} hand {setup.hand} ({setup.variant}, {setup.players} "
               f"players, **{setup.plies} plies**), timeline {setup.timeline_bytes:,} bytes of JSON "
               f"(uncompressed); match findings: "
               f"{setup.findings}; the state: ply {setup.plies // 2}")
    out.append("- service CPU ms/req: CPU seconds of gunicorn (master and workers) and of the bench database's "
               "PostgreSQL backends during the run, per answered request")
    out.append("- other CPU: machine busy time less gunicorn's, wrk's, the bench database's backends', any Celery "
               "worker's and the bench's own, in cores (of 2): other engineers' work on the machine")
    out.append("")
    return out


def render_trials(report: Report) -> list[str]:
    """The gunicorn configurations tried, when there were several."""
    out: list[str] = []
    args = report.args
    if len(report.trials) > 1:
        out.append(f"### gunicorn configurations tried ({args.trial_duration:g} s each, "
                   f"{max(args.connections)} connections)")
        out.append("")
        out.append("| config | timeline req/s | timeline p50 ms | timeline p99 ms | timeline CPU ms/req | "
                   "list req/s | list p50 ms | list p99 ms | list CPU ms/req | errors | other CPU, cores |")
        out.append("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
        for trial in report.trials:
            t, li = trial.results["timeline"], trial.results["list"]
            mark = " (chosen)" if trial.config == report.chosen else ""
            out.append(f"| {trial.config.label}{mark} | {fmt(t.rps)} | {fmt(t.p50_ms)} | {fmt(t.p99_ms)} | "
                       f"{fmt(t.cpu_ms_per_request)} | {fmt(li.rps)} | {fmt(li.p50_ms)} | {fmt(li.p99_ms)} | "
                       f"{fmt(li.cpu_ms_per_request)} | {t.errors + li.errors} | "
                       f"{fmt((t.other_cores + li.other_cores) / 2, 2)} |")
        out.append("")
    return out


def render_figures(report: Report) -> list[str]:
    """Each target at each connection count, and the aim's verdict."""
    out: list[str] = []
    setup = report.setup
    if report.results:
        out.append(f"### Figures (gunicorn {report.chosen.label})")
        out.append("")
        out.append(RESULT_HEADER)
        for result in report.results:
            out.append(result_row(result))
        out.append("")
        for name, target in setup.targets.items():
            out.append(f"- `{name}`: {target.path}")
        out.append("")
        aim = [r for r in report.results if r.target == "timeline" and r.connections == 64]
        if aim:
            verdict = "met" if aim[0].p99_ms < 50 and aim[0].errors == 0 else "missed"
            needed = 64 / 0.050
            out.append(f"**Aim (timeline of a {setup.plies}-ply hand, 64 connections, p99 < 50 ms): {verdict}**, "
                       f"p99 {fmt(aim[0].p99_ms)} ms at {fmt(aim[0].rps)} req/s. In wrk's closed loop 64 "
                       f"connections always have a request in flight, so the mean latency is 64 / req/s (Little's "
                       f"law): a p99 under 50 ms needs at least {needed:,.0f} req/s, about "
                       f"{1000 * (os.cpu_count() or 1) / needed:.2f} ms of CPU a request on {os.cpu_count()} cores "
                       f"(shared with wrk); the timeline costs {fmt(aim[0].cpu_ms_per_request)} ms of service CPU.")
            out.append("")
    return out


def render_errors(report: Report) -> list[str]:
    """Answers that were not 2xx, and what gunicorn's log told of errors."""
    out: list[str] = []
    problems = [(r.target, r.connections, p) for r in report.results for p in r.problems]
    problems += [("trial " + t.config.label, r.connections, p) for t in report.trials for r in t.results.values()
                 for p in r.problems]
    if report.soak is not None:
        problems += [("soak", report.soak.connections, p) for p in report.soak.problems]
    out.append("### Service errors")
    out.append("")
    bad = [r for r in report.results if r.errors] + [r for t in report.trials for r in t.results.values() if r.errors]
    if not problems and not bad:
        out.append("None: every answer was 2xx and gunicorn's log has no traceback, worker timeout or restart.")
    for r in bad:
        out.append(f"- {r.target} at {r.connections} connections: {r.errors} errors, statuses {r.statuses}, "
                   f"first: `{r.first_error[:300]}`")
    for where, connections, problem in problems[:10]:
        out.append(f"- gunicorn log during {where} at {connections} connections:")
        out.append("")
        out.append("```")
        out.append(problem)
        out.append("```")
    out.append("")
    return out


def render_soak(result: SoakResult) -> list[str]:
    out = [f"### Soak: {result.seconds:.0f} s of the upload mix at {result.connections} connections", ""]
    out.append(RESULT_HEADER)
    for segment in result.segments:
        out.append(result_row(segment.result, f"{segment.started_s:.0f} s"))
    out.append("")
    totals = result.totals_mib()
    per_minute = max(1, int(60 / RSS_INTERVAL))
    first_min = statistics.mean(totals[:per_minute]) if totals else 0.0
    last_min = statistics.mean(totals[-per_minute:]) if totals else 0.0
    uploads = sum(s.result.statuses.get("202", 0) for s in result.segments)
    restarted = sorted(set(result.workers_at_start) ^ set(result.workers_at_end))
    out.append(f"- requests: {result.requests:,} ({uploads:,} uploads answered 202), **errors: {result.errors}**"
               f" (non-2xx and socket errors), gunicorn log problems: {len(result.problems)}, workers restarted: "
               f"{'none' if not restarted else restarted}")
    if totals:
        out.append(f"- gunicorn workers' RSS, all {len(result.workers_at_start)} together, every "
                   f"{RSS_INTERVAL:.0f} s: first {fmt(totals[0])} MiB, last {fmt(totals[-1])} MiB, "
                   f"max {fmt(max(totals))} MiB; mean of the first minute {fmt(first_min)} MiB, of the last "
                   f"{fmt(last_min)} MiB ({fmt(last_min - first_min)} MiB, "
                   f"{fmt(100 * (last_min - first_min) / first_min if first_min else 0.0)}%)")
        pids = sorted({pid for _, sample in result.rss for pid in sample})
        for pid in pids:
            values = [sample[pid] / 1024 for _, sample in result.rss if pid in sample]
            out.append(f"  - worker {pid}: first {fmt(values[0])}, last {fmt(values[-1])}, max {fmt(max(values))} MiB")
        marks = [f"{t:.0f}s {v:.0f}" for (t, _), v in zip(result.rss, totals)]
        out.append(f"- RSS samples (MiB, all workers): {', '.join(marks)}")
    out.append("")
    return out


def render_profile(profile: Profile, setup: Setup) -> list[str]:
    data = profile.data
    out = [f"### Where the time goes: one timeline request ({setup.plies} plies)", ""]
    out.append(f"Django's test client in `manage.py shell` on the bench database (production settings, no "
               f"gunicorn, no socket): median {fmt(data['median_ms'])} ms, p90 {fmt(data['p90_ms'])} ms, "
               f"min {fmt(data['min_ms'])} ms over {data['runs']} requests; {data['bytes']:,} bytes in the answer; "
               f"{len(data['queries'])} queries taking {fmt(sum(q[1] for q in data['queries']) * 1000)} ms.")
    if profile.one_connection is not None:
        one = profile.one_connection
        out.append(f"Through gunicorn at 1 connection (wrk -c 1, {one.seconds:.0f} s): {fmt(one.rps)} req/s, "
                   f"p50 {fmt(one.p50_ms)} ms, p99 {fmt(one.p99_ms)} ms.")
    out.append("")
    out.append("Under cProfile (cumulative ms a request; the profiler inflates the engine's many small calls):")
    out.append("")
    out.append("| part | ms a request | share |")
    out.append("|---|--:|--:|")
    total = data["categories"][0][1] or 1.0
    for name, ms in data["categories"]:
        out.append(f"| {name} | {fmt(ms)} | {fmt(100 * ms / total)}% |")
    out.append("")
    phases = data["phases"]
    if "error" in phases:
        out.append(f"Engine phases, no profiler: not measured ({phases['error']}).")
    else:
        out.append(f"The same work as plain calls, no profiler (median ms; record {phases['source bytes']:,} bytes, "
                   f"{phases['entries']} entries):")
        out.append("")
        for key in ("loads(source)", "list(iter_timeline(record, hand))", "JSONRenderer().render(entries)"):
            out.append(f"- `{key}`: {fmt(phases[key], 2)} ms")
    out.append("")
    out.append("Queries:")
    out.append("")
    for sql, seconds in data["queries"]:
        out.append(f"- {fmt(seconds * 1000, 2)} ms `{sql}`")
    out.append("")
    out.append("<details><summary>Top of the profile</summary>")
    out.append("")
    out.append("```")
    out.append(trim_pstats(data["top_cumulative"]))
    out.append(trim_pstats(data["top_own"]))
    out.append("```")
    out.append("")
    out.append("</details>")
    out.append("")
    return out


def trim_pstats(text: str) -> str:
    """pstats output without its preamble, paths shortened to the package."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if "ncalls" in line), 0)
    kept = [re.sub(r"\S*/(site-packages|lib/python3\.\d+|main)/", "", line) for line in lines[start:] if line.strip()]
    return "\n".join(kept)


# --- main ---------------------------------------------------------------------------------------------------


def versions() -> dict[str, str]:
    wrk = subprocess.run(["wrk", "--version"], capture_output=True, text=True, check=False)
    gunicorn = subprocess.run([str(Path(sys.executable).with_name("gunicorn")), "--version"], capture_output=True,
                              text=True, check=False)
    return {
        "wrk": (wrk.stdout or wrk.stderr).splitlines()[0].split(" [")[0] if (wrk.stdout or wrk.stderr) else "wrk",
        "gunicorn": (gunicorn.stdout.strip().split("version ")[-1].rstrip(")") or "?"),
    }


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=(__doc__ or "").split("\n")[0],
        epilog="Needs PostgreSQL on 127.0.0.1:5432 (postgres, trust), Redis on 127.0.0.1:6379 (db 14 is flushed), wrk.",
    )
    parser.add_argument("--duration", type=float, default=20.0, help="seconds of each measured wrk run (default 20)")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds of warm-up before each run (default 5)")
    parser.add_argument("--threads", type=int, default=2, help="wrk threads (default 2)")
    parser.add_argument("--connections", type=lambda s: [int(c) for c in s.split(",")], default=[16, 64],
                        help="comma-separated connection counts (default 16,64)")
    parser.add_argument("--targets", default="list,timeline,state,findings,upload-mix",
                        help="comma-separated targets to measure (default all five; 'none' for none)")
    parser.add_argument("--gunicorn", default=DEFAULT_CONFIGS,
                        help=f"comma-separated configurations, sync:W or gthread:WxT; with several, each is tried "
                             f"and the one with the lowest timeline p99 is used (default {DEFAULT_CONFIGS})")
    parser.add_argument("--trial-duration", type=float, default=10.0, help="seconds of each trial run (default 10)")
    parser.add_argument("--matches", type=int, default=300, help="self-play matches to seed (default 300)")
    parser.add_argument("--hands-per-match", type=int, default=3, help="hands in each seeded match (default 3)")
    parser.add_argument("--plies", type=int, default=150, help="the timeline hand: closest to this many actions")
    parser.add_argument("--seed-jobs", type=int, default=2, help="seeding shells at once (default 2)")
    parser.add_argument("--upload-share", type=float, default=0.2, help="share of uploads in the mix (default 0.2)")
    parser.add_argument("--soak", type=float, default=0.0, metavar="SECONDS",
                        help="also run a soak of the upload mix this long (600 for the 10-minute soak)")
    parser.add_argument("--soak-connections", type=int, default=None, help="default: the highest --connections")
    parser.add_argument("--profile-runs", type=int, default=30, help="timeline requests to time and profile (0: skip)")
    parser.add_argument("--celery-workers", type=int, default=0,
                        help="Celery workers (-c 1 each, Redis db 14) during the measurements (default 0: none)")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: 60 matches, 3 s runs, 1 s warm-up, one configuration (gthread:2x4)")
    parser.add_argument("--no-gzip", action="store_true",
                        help="leave out Accept-Encoding: gzip (sent by default, as browsers send it)")
    parser.add_argument("--keep-db", action="store_true", help=f"leave the {DB_NAME} database in place")
    parser.add_argument("--markdown", type=Path, default=None, metavar="FILE", help="also write the report here")
    args = parser.parse_args(argv)
    if args.quick:
        args.matches, args.duration, args.warmup, args.trial_duration = 60, 3.0, 1.0, 3.0
        args.profile_runs = min(args.profile_runs, 10)
        if args.gunicorn == DEFAULT_CONFIGS:
            args.gunicorn = "gthread:2x4"
    args.configs = [GunicornConfig.parse(c) for c in args.gunicorn.split(",") if c.strip()]
    args.target_names = [] if args.targets == "none" else [t.strip() for t in args.targets.split(",") if t.strip()]
    known = {"list", "timeline", "state", "findings", "upload-mix"}
    if not set(args.target_names) <= known:
        parser.error(f"--targets: one of {sorted(known)}")
    if not args.configs or args.matches < 1 or min(args.connections) < 1 or not 0 <= args.upload_share <= 1:
        parser.error("need a gunicorn configuration, a match, connections >= 1, 0 <= --upload-share <= 1")
    if shutil.which("wrk") is None:
        parser.error("wrk is not on the PATH")
    return args


def make_work_dir() -> Path:
    """A new directory for the run's scripts (``lua/``), logs (``logs/``) and records."""
    work_dir = Path(tempfile.mkdtemp(prefix="bench-load-"))
    (work_dir / "logs").mkdir()
    (work_dir / "lua").mkdir()
    log(f"work directory (scripts, logs, wrk outputs): {work_dir}")
    return work_dir


def play_records(args: argparse.Namespace, work_dir: Path) -> tuple[list[harness.Played], list[Path]]:
    """The matches to seed, and the upload mix's records written to files (wrk reads them)."""
    log(f"self-play: {args.matches} matches of {args.hands_per_match} hands, {UPLOAD_RECORDS} for the upload mix")
    played = generate(0, args.matches, args.hands_per_match)
    upload_files = []
    for p in generate(UPLOAD_SEED_BASE, UPLOAD_RECORDS, args.hands_per_match):
        path = work_dir / p.name
        path.write_text(p.text)
        upload_files.append(path)
    return played, upload_files


def seed_database(args: argparse.Namespace, played: Sequence[harness.Played], work_dir: Path, secret_key: str,
                  info: dict[str, str]) -> Seeded:
    """The bench database recreated, migrated and seeded with ``played`` (jobs run inline);
    the servers' versions go into ``info``."""
    info["postgresql"] = harness.reset_database(DB_NAME)
    info["redis"] = harness.flush_redis(REDIS_URL)
    seed_env = load_env(secret_key, broker=False)
    log(f"migrate {DB_NAME}")
    harness.manage("migrate", "--noinput", env=seed_env)
    log(f"seeding {len(played)} matches in {args.seed_jobs} shells (verify and analysis inline)")
    seeded = seed(played, work_dir, seed_env, max(1, args.seed_jobs))
    log(f"seeded in {seeded.seconds:.0f} s")
    return seeded


def make_setup(args: argparse.Namespace, seeded: Seeded, played: Sequence[harness.Played], upload_files: list[Path],
               work_dir: Path, web_env: dict[str, str]) -> Setup:
    """What every measurement uses: the chosen hand's match and targets, the token, the files."""
    chosen_record, hand = closest_hand(played, args.plies)
    match_id = seeded.ids[chosen_record.name]
    plies = chosen_record.actions[hand - 1]
    return Setup(seeded.token, match_id, hand, plies, chosen_record.variant, chosen_record.players, 0, 0,
                 make_targets(match_id, hand, plies, args.upload_share), upload_files, work_dir / "lua",
                 work_dir / "logs", web_env, secrets.token_hex(4), gzip=not args.no_gzip)


def check_service(setup: Setup, report: Report) -> None:
    """Checks over HTTP before anything is measured: the jobs are done, the hand is what was
    chosen, every read answers 200; the match's findings and the timeline's size go into ``setup``."""
    server = start_server(report.args.configs[0], setup, "check")
    try:
        api = https_api(server.base, setup.token)
        report.jobs = check_jobs_done(api, report.seeded.matches)
        detail = api.get(f"/api/matches/{setup.match_id}/")
        hand_info = detail["hands"][setup.hand - 1]
        if detail["status"] != "verified" or detail["analysis"]["status"] != "done" \
                or hand_info["actions"] != setup.plies:
            raise SystemExit(f"match {setup.match_id} is not as seeded: {detail['status']}, {detail['analysis']}, "
                             f"hand {setup.hand} has {hand_info['actions']} actions (expected {setup.plies})")
        setup.findings = int(api.get(setup.targets["findings"].path)["count"])
        code, body = api.request("GET", setup.targets["timeline"].path)
        if code != 200:
            raise SystemExit(f"GET {setup.targets['timeline'].path}: {code} {body[:500]!r}")
        setup.timeline_bytes = len(body)
        for name, target in setup.targets.items():
            if not target.schedule and api.request("GET", target.path)[0] != 200:
                raise SystemExit(f"GET {target.path} ({name}) does not answer 200")
    finally:
        server.stop()
    log(f"timeline hand: match {setup.match_id} hand {setup.hand}, {setup.plies} plies, "
        f"{setup.timeline_bytes:,} bytes")


def measure_all(args: argparse.Namespace, setup: Setup, backends: BackendCpu, report: Report) -> None:
    """The trials, the targets at each connection count, the profile and the soak, into ``report``."""
    top = max(args.connections)
    if len(args.configs) > 1:
        report.trials = try_configs(args.configs, setup, backends, top, args.trial_duration, args.warmup,
                                    args.threads)
        report.chosen = best_trial(report.trials).config
        log(f"chosen: gunicorn {report.chosen.label}")

    if args.target_names:
        server = start_server(report.chosen, setup, "measure")
        try:
            for name in args.target_names:
                for connections in args.connections:
                    report.results.append(measure(setup, server, backends, setup.targets[name], connections,
                                                  args.duration, args.warmup, args.threads,
                                                  f"{name}-{connections}c"))
            if args.profile_runs:
                report.profile = profile_timeline(setup, args.profile_runs, server, backends,
                                                  min(args.duration, 10.0), args.threads)
        finally:
            server.stop()
    elif args.profile_runs:
        report.profile = profile_timeline(setup, args.profile_runs, None, backends, 0.0, args.threads)

    if args.soak > 0:
        report.soak = soak(report.chosen, setup, backends, args.soak, args.soak_connections or top, args.threads)


def clean_up(args: argparse.Namespace, setup: Setup, backends: BackendCpu) -> None:
    """Workers stopped, the broker flushed and the database dropped (``--keep-db``: kept)."""
    if setup.celery is not None:
        setup.celery.stop()
    backends.close()
    try:
        harness.flush_redis(REDIS_URL)
        if not args.keep_db:
            harness.drop_database(DB_NAME)
    except Exception as error:  # noqa: BLE001 - cleanup must not hide the run's own error
        log(f"cleanup: {type(error).__name__}: {error}")


def write_report(args: argparse.Namespace, report: Report) -> None:
    """The report printed (and written to ``--markdown``), also after an error: it keeps what was measured."""
    if report.results or report.trials or not report.aborted:
        report.finished = dt.datetime.now(dt.UTC).strftime("%H:%M")
        text = render(report)
        print(text)
        if args.markdown is not None:
            args.markdown.write_text(text)
            log(f"written to {args.markdown}")


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    started = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M")
    work_dir = make_work_dir()
    secret_key = secrets.token_urlsafe(48)
    info = versions()
    played, upload_files = play_records(args, work_dir)
    seeded = seed_database(args, played, work_dir, secret_key, info)
    backends = BackendCpu()
    setup = make_setup(args, seeded, played, upload_files, work_dir, load_env(secret_key, broker=True))
    report = Report(args, info, seeded, setup, {}, [], args.configs[0], [], None, None, started)
    try:
        check_service(setup, report)
        if args.celery_workers:
            setup.celery = CeleryWorkers(args.celery_workers, setup.env, setup.log_dir)
        measure_all(args, setup, backends, report)
    except (Exception, SystemExit, KeyboardInterrupt) as error:
        report.aborted = f"{type(error).__name__}: {str(error)[:2000]}"
        raise
    finally:
        clean_up(args, setup, backends)
        write_report(args, report)


if __name__ == "__main__":
    main()

"""The harness the benches share: what they build, start, read and call around what they measure.

- **The corpus**: self-play matches (seeds cycling over the nine rule sets, 2 or 4 players
  where the rule set allows), made on every core, with the seeds self-play got stuck on
  counted; the engine's fingerprint (a digest of ``buraco/*.py``) that names what made them
  and keys a cache; zips of records.
- **The scratch database and Redis**: a PostgreSQL database a bench drops and recreates by
  name (127.0.0.1:5432, user ``postgres``, trust auth), a Redis db it flushes.
- **The service's processes**: its environment (the bench database, a broker or jobs run
  inline, production or development settings), ``manage.py`` commands, a user with an API
  token, gunicorn and Celery worker command lines, children each in a process group of
  its own with its log file, always stopped, and waits that give up when a child has died.
- **/proc**: the CPU time of a process (and of the children it reaped), its parent and
  children, its RSS, the machine's busy time: CPU time does not depend on what else the
  shared cores run, wall time does.
- **HTTP**: free ports and an API client (stdlib only): JSON calls with a token, multipart
  uploads, the health check polled until the service answers.

Nothing here imports the engine or Django when the module is imported: ``bench/flood.py``
measures another checkout's service (``--root``), which must be the one that loads them.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import platform
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
import zipfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from buraco.notation import Record

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
STARTUP_TIMEOUT = 90.0  # seconds for a web process or a worker to answer
STOP_GRACE = 30.0  # seconds a child has to stop on SIGTERM before its process group is killed


# --- the corpus: self-play records (not timed) -----------------------------------------------

MAX_SKIPPED_SEEDS = 100  # self-play that raises this often is broken: stop rather than hide it


def variant_ids() -> tuple[str, ...]:
    """The rule sets' ids, in the order the seeds cycle over them."""
    from buraco.rules import VARIANTS

    return tuple(VARIANTS)


def players_for(seed: int) -> int:
    """4 players on every other round over the rule sets, where the rule set allows."""
    from buraco.rules import VARIANTS

    ids = variant_ids()
    allowed = VARIANTS[ids[seed % len(ids)]].player_counts
    wanted = 4 if (seed // len(ids)) % 2 else 2
    return wanted if wanted in allowed else min(allowed)


@dataclass(frozen=True)
class Played:
    """One self-play match as BRN text, with what the benches count of it."""

    name: str  # the file name it is uploaded under
    text: str
    variant: str
    players: int
    actions: tuple[int, ...]  # per hand

    @property
    def hands(self) -> int:
        return len(self.actions)

    @property
    def action_count(self) -> int:
        return sum(self.actions)


def play_record(variant: str, players: int, hands: int, seed: int) -> Record | None:
    """One self-play match; None when self-play got stuck on that seed (a bot's bug, not a cost)."""
    from buraco.selfplay import play_match

    try:
        return play_match(variant, players=players, hands=hands, seed=seed)
    except RuntimeError:
        return None


def play_seed(job: tuple[int, int, str]) -> Played | None:
    """Seed ``job[0]``'s match of ``job[1]`` hands, named by the format ``job[2]`` (fields
    ``seed``, ``variant``, ``players``); a tuple, so that a process pool can map it."""
    from buraco.notation import dumps

    seed, hands, name_format = job
    ids = variant_ids()
    variant = ids[seed % len(ids)]
    players = players_for(seed)
    record = play_record(variant, players, hands, seed)
    if record is None:
        return None
    name = name_format.format(seed=seed, variant=variant, players=players)
    return Played(name, dumps(record), variant, players, tuple(len(hand.actions) for hand in record.hands))


class SeedSkips:
    """Counts the seeds self-play got stuck on; past MAX_SKIPPED_SEEDS the bench stops."""

    def __init__(self) -> None:
        self.count = 0

    def add(self) -> None:
        self.count += 1
        if self.count > MAX_SKIPPED_SEEDS:
            raise SystemExit(f"self-play got stuck {self.count} times: fix selfplay first")


def self_play(first_seed: int, count: int, hands: int, name_format: str,
              chunksize: int = 4) -> tuple[list[Played], int]:
    """``count`` matches of ``hands`` hands from seeds ``first_seed``, ``first_seed + 1``, ...
    on every core (a stuck seed is skipped for the next one), and how many seeds were skipped."""
    played: list[Played] = []
    skips = SeedSkips()
    seed = first_seed
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        while len(played) < count:
            seeds = range(seed, seed + count - len(played))
            seed = seeds.stop
            for result in pool.map(play_seed, [(s, hands, name_format) for s in seeds], chunksize=chunksize):
                if result is None:
                    skips.add()
                else:
                    played.append(result)
    return played, skips.count


def engine_fingerprint() -> str:
    """The sha256 of ``buraco/*.py`` as they are now (hex): which engine made or verifies a corpus."""
    digest = hashlib.sha256()
    for source in sorted((ROOT / "buraco").glob("*.py")):
        digest.update(source.name.encode() + b"\0" + source.read_bytes())
    return digest.hexdigest()


def searches_as_run() -> str:
    """How this process's analysis ran its searches (buraco/analysis/compiled.py)."""
    import buraco.analysis as analysis

    if analysis.COMPILED:
        return "compiled (mypyc, a build of the engine's sources as they are)"
    return f"interpreted (BURACO_COMPILED={analysis.compiled.mode()}, a fresh build: {analysis.compiled.fresh()})"


def cpu_best(work: Callable[[], object], repeat: int = 1) -> float:
    """The least CPU time of this process (``time.process_time``) one of ``repeat`` calls of
    ``work`` took: CPU time does not depend on what else the shared cores run."""
    best = float("inf")
    for _ in range(repeat):
        began = time.process_time()
        work()
        best = min(best, time.process_time() - began)
    return best


def clear_action_cache() -> None:
    """Empty the reader's memo of parsed action strings, as a fresh process has it (an engine
    without one: nothing to empty)."""
    from buraco import notation

    caches = getattr(notation, "_ACTION_CACHES", None)
    if isinstance(caches, dict):
        caches.clear()


def zip_of(members: Iterable[tuple[str, bytes]]) -> bytes:
    """A deflated zip of (name, content) members."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in members:
            archive.writestr(name, content)
    return buffer.getvalue()


def unzip(archive: bytes) -> list[bytes]:
    """The members' contents, in the zip's order."""
    with zipfile.ZipFile(io.BytesIO(archive)) as opened:
        return [opened.read(info) for info in opened.infolist()]


# --- the scratch database and Redis --------------------------------------------------------------

PG_ADMIN_URL = "postgres://postgres@127.0.0.1:5432/postgres"


def database_url(name: str) -> str:
    return f"postgres://postgres@127.0.0.1:5432/{name}"


def postgres_answers() -> bool:
    """Whether something listens on PostgreSQL's port (the benches need no more to try it)."""
    try:
        with socket.create_connection((HOST, 5432), timeout=1.5):
            return True
    except OSError:
        return False


def reset_database(name: str) -> str:
    """Drop (closing its sessions) and recreate database ``name``; returns the server's version."""
    import psycopg

    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        connection.execute(f'CREATE DATABASE "{name}"')
        row = connection.execute("SHOW server_version").fetchone()
    return str(row[0]) if row else "?"


def drop_database(name: str) -> None:
    """Drop database ``name``, closing its sessions."""
    import psycopg

    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def backend_pids(connection: Any, database: str) -> list[int]:
    """The PostgreSQL backends serving ``database``, less ``connection``'s own (a psycopg connection)."""
    rows = connection.execute(
        "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()", (database,)
    ).fetchall()
    return [int(row[0]) for row in rows]


def flush_redis(url: str) -> str:
    """Flush the Redis db at ``url`` (broker messages, cache, throttle counters); returns the server's version."""
    import redis

    client = redis.Redis.from_url(url)
    client.flushdb()
    info: dict[str, Any] = client.info("server")
    return str(info.get("redis_version", "?"))


# --- the service's environment and commands ---------------------------------------------------------


def service_env(database: str, *, broker: str | None = None, cache: str | None = None,
                production_secret: str | None = None, debug: bool | None = False,
                settings: Mapping[str, str] | None = None, log_level: str = "WARNING") -> dict[str, str]:
    """This process's environment with the service's on top: the database URL ``database``;
    ``broker`` as Celery's broker, or none and every job run inline, before the call that
    queued it returns; ``cache`` as the cache (else the in-process one); production settings
    with ``production_secret`` as SECRET_KEY (hosts 127.0.0.1 and localhost), else development
    ones with DEBUG ``debug`` (None: as this process has it); ``settings`` on top (limits)."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "buraco_site.settings", "DATABASE_URL": database,
           "LOG_LEVEL": log_level, "PYTHONUNBUFFERED": "1"}
    for name in ("CELERY_BROKER_URL", "CACHE_URL", "EMBEDDED_JOBS", "BURACO_ENV", "SECRET_KEY"):
        env.pop(name, None)  # the bench's own choice below, not whatever the caller's shell had
    if broker is not None:
        env["CELERY_BROKER_URL"] = broker
    else:
        env["EMBEDDED_JOBS"] = "inline"
    if cache is not None:
        env["CACHE_URL"] = cache
    if production_secret is not None:
        env.update(BURACO_ENV="production", SECRET_KEY=production_secret, ALLOWED_HOSTS="127.0.0.1,localhost")
        env.pop("DEBUG", None)  # production's default: off
    elif debug is not None:
        env["DEBUG"] = "1" if debug else "0"
    env.update(settings or {})
    return env


def setup_django(env: Mapping[str, str]) -> None:
    """Django in this process, in the environment ``env`` (as service_env makes it): this
    process's environment becomes ``env`` before the settings are read."""
    for name in set(os.environ) - set(env):
        del os.environ[name]
    os.environ.update(env)
    import django

    django.setup()


def manage(*args: str, env: Mapping[str, str], timeout: float | None = None) -> str:
    """``manage.py ARGS`` in ``env``; its standard output (a failure stops the bench)."""
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=dict(env), capture_output=True,
                          text=True, check=False, timeout=timeout)
    if done.returncode != 0:
        raise SystemExit(f"manage.py {' '.join(args[:2])} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done.stdout


def tagged_json(output: str, tag: str) -> Any:
    """The JSON after ``tag`` on the last line that starts with it (how shells report to the bench)."""
    for line in reversed(output.splitlines()):
        if line.startswith(tag + " "):
            return json.loads(line[len(tag) + 1:])
    raise SystemExit(f"no {tag} line in the output:\n{output[-3000:]}")


CREATE_USER_CODE = """
import json
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
user = User.objects.create_user({username!r}, password={username!r} + "-bench-" + "x" * 24)
print("USER " + json.dumps({{"token": Token.objects.create(user=user).key}}))
"""


def create_api_user(username: str, env: Mapping[str, str]) -> str:
    """A new user on the bench database, through the service's models; returns its API token."""
    output = manage("shell", "-c", CREATE_USER_CODE.format(username=username), env=env)
    return str(tagged_json(output, "USER")["token"])


def gunicorn_command(port: int, options: Sequence[str]) -> list[str]:
    """gunicorn serving the site on HOST:``port`` with ``options`` (worker class, workers, threads);
    warnings and errors to its standard output."""
    gunicorn = Path(sys.executable).with_name("gunicorn")
    return [str(gunicorn), "buraco_site.wsgi:application", "-b", f"{HOST}:{port}", *options,
            "--log-level", "warning", "--error-logfile", "-"]


def celery_worker_command(name: str, queues: Sequence[str]) -> list[str]:
    """One Celery worker process (``-c 1``) named ``name`` on ``queues``; no gossip, mingle or
    heartbeat: the benches' workers do not talk to each other."""
    return [sys.executable, "-m", "celery", "-A", "buraco_site", "worker", "-Q", ",".join(queues), "-c", "1",
            "-n", name, "--without-gossip", "--without-mingle", "--without-heartbeat", "-l", "warning"]


def git(*args: str) -> str:
    """``git ARGS`` in the checkout; its output, stripped ("" if git fails or is missing)."""
    try:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def cpu_model() -> str:
    """The CPU's model name, from /proc/cpuinfo where there is one."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "?"


# --- child processes -----------------------------------------------------------------------------------


@dataclass
class Child:
    """A process the bench started, in a process group of its own, writing to ``log_path``."""

    name: str
    process: subprocess.Popen[bytes]
    log_path: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def log_tail(self, lines: int = 30) -> str:
        text = self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def check_alive(self) -> None:
        """Stop the bench, with the end of the child's log, if the child has exited."""
        if not self.alive():
            raise SystemExit(f"{self.name} exited with {self.process.returncode}:\n{self.log_tail()}")


def start_child(name: str, command: Sequence[str], env: Mapping[str, str], log_path: Path) -> Child:
    """``command`` in the checkout, in a new session (so that its whole group can be killed),
    standard output and error to ``log_path``."""
    with open(log_path, "wb") as log:  # the child keeps its own copy of the descriptor
        process = subprocess.Popen(list(command), cwd=ROOT, env=dict(env), stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    return Child(name, process, log_path)


def stop_children(children: Iterable[Child], grace: float = STOP_GRACE) -> None:
    """SIGTERM to each (gunicorn and Celery stop their workers gracefully on it), then, after
    at most ``grace`` seconds for them all, SIGKILL to each one's process group: that ends what
    a killed parent left behind (prefork children share its group) and nothing after a clean stop."""
    children = list(children)
    for child in children:
        if child.alive():
            child.process.terminate()
    deadline = time.monotonic() + grace
    for child in children:
        try:
            child.process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(child.pid, signal.SIGKILL)  # the group start_child created for it
        except (ProcessLookupError, PermissionError):
            pass
        if child.alive():
            child.process.wait(timeout=10)


class Processes:
    """The children a bench runs together (the web process, workers, shells), their logs in
    ``log_dir``; ``stop`` ends every one of them."""

    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        self.children: list[Child] = []

    def start(self, name: str, command: Sequence[str], env: Mapping[str, str]) -> Child:
        child = start_child(name, command, env, self.log_dir / f"{name}.log")
        self.children.append(child)
        return child

    def check_alive(self) -> None:
        for child in self.children:
            child.check_alive()

    def stop(self) -> None:
        stop_children(self.children)
        self.children.clear()


def wait_until(ready: Callable[[], bool], *, what: str, timeout: float, interval: float,
               check_alive: Callable[[], None] = lambda: None) -> None:
    """Poll ``ready`` every ``interval`` seconds until it is true; stop the bench after
    ``timeout`` seconds, or as soon as ``check_alive`` finds a child dead (it raises)."""
    deadline = time.monotonic() + timeout
    while True:
        check_alive()
        if ready():
            return
        if time.monotonic() > deadline:
            raise SystemExit(f"{what} within {timeout:.0f} s")
        time.sleep(interval)


def wait_for_celery(names: Sequence[str], broker: str, check_alive: Callable[[], None]) -> None:
    """Until every worker in ``names`` answers a ping on ``broker``."""
    from celery import Celery

    app = Celery("bench-ping", broker=broker, set_as_current=False)

    def all_answer() -> bool:
        replies = app.control.ping(destination=list(names), timeout=1.0)  # waits up to a second itself
        return {name for reply in replies for name in reply} >= set(names)

    try:
        wait_until(all_answer, what="workers did not all answer a ping", timeout=STARTUP_TIMEOUT, interval=0.0,
                   check_alive=check_alive)
    finally:
        app.close()


# --- /proc: CPU time, parents, memory ------------------------------------------------------------------

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


class ProcStat(NamedTuple):
    parent: int
    cpu_s: float  # user + system, the process's own
    reaped_cpu_s: float  # user + system of its children that exited and were waited for


def proc_stat(pid: int) -> ProcStat | None:
    """What /proc/PID/stat says of a live process; None once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()  # the name may hold ")"
    except (OSError, IndexError):
        return None
    return ProcStat(int(fields[1]), (int(fields[11]) + int(fields[12])) / CLOCK_TICKS,
                    (int(fields[13]) + int(fields[14])) / CLOCK_TICKS)


def parent_pids() -> dict[int, int]:
    """Every live process's parent, by pid."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (stat := proc_stat(int(entry.name))) is not None:
            parents[int(entry.name)] = stat.parent
    return parents


def children_of(pid: int) -> list[int]:
    """The live children of ``pid`` (gunicorn's workers, a Celery worker's pool), in pid order."""
    return sorted(child for child, parent in parent_pids().items() if parent == pid)


def cpu_seconds(pids: Iterable[int]) -> float:
    """CPU seconds so far of the live processes among ``pids``."""
    return sum(stat.cpu_s for pid in pids if (stat := proc_stat(pid)) is not None)


def cpu_seconds_with_children(pids: Iterable[int]) -> float:
    """CPU seconds so far of ``pids`` and their live children (a master and its workers)."""
    pids = list(pids)
    return cpu_seconds([*pids, *(child for pid in pids for child in children_of(pid))])


def rss_kib(pid: int) -> int | None:
    """The resident set size of a live process (``VmRSS``), in KiB."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def machine_busy_seconds() -> float:
    """CPU seconds all cores spent not idle since boot."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]  # idle + iowait
    return (sum(values[:8]) - idle) / CLOCK_TICKS


# --- HTTP: ports and the API client (stdlib only) -----------------------------------------------------------


def free_port() -> int:
    """A port nothing listens on now, on HOST."""
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def port_is_free(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex((HOST, port)) != 0


class ApiError(RuntimeError):
    """The service answered a call with another status than the one the bench expects."""


class Api:
    """The service's API at ``base``, with an API token if given and ``headers`` on every request."""

    def __init__(self, base: str, token: str | None = None, headers: Mapping[str, str] | None = None) -> None:
        self.base = base
        self.token = token
        self.headers = {"Accept": "application/json", **(headers or {})}
        if token:
            self.headers["Authorization"] = f"Token {token}"

    def request(self, method: str, path: str, body: bytes | None = None, content_type: str | None = None,
                timeout: float = 60.0) -> tuple[int, bytes]:
        """The status and body of one request; an error status is an answer too."""
        headers = {**self.headers, **({"Content-Type": content_type} if content_type else {})}
        request = urllib.request.Request(self.base + path, data=body, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return int(response.status), response.read()
        except urllib.error.HTTPError as error:
            return int(error.code), error.read()

    def call(self, method: str, path: str, body: bytes | None = None, content_type: str | None = None,
             timeout: float = 60.0) -> tuple[int, dict[str, Any]]:
        """As ``request``, the body read as a JSON object (see json_object)."""
        status, raw = self.request(method, path, body, content_type, timeout)
        return status, json_object(raw)

    def get(self, path: str) -> dict[str, Any]:
        """The JSON object a GET answers with 200 (ApiError otherwise)."""
        status, data = self.call("GET", path)
        if status != 200:
            raise ApiError(f"GET {path}: {status} {str(data)[:500]}")
        return data

    def upload(self, files: Sequence[tuple[str, str, bytes]], fields: Mapping[str, str],
               timeout: float = 600.0) -> dict[str, Any]:
        """POST /api/matches/ with (file name, content type, bytes) files as multipart; the 202's body."""
        body, content_type = multipart(fields, [("files", name, kind, content) for name, kind, content in files])
        status, data = self.call("POST", "/api/matches/", body, content_type, timeout)
        if status != 202:
            raise ApiError(f"upload {', '.join(name for name, _, _ in files)}: {status} {str(data)[:500]}")
        return data

    def answers_health(self) -> bool:
        """Whether /api/health/ answers 200 now (a refused connection: not yet)."""
        try:
            return self.request("GET", "/api/health/", timeout=2.0)[0] == 200
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            return False


def json_object(raw: bytes) -> dict[str, Any]:
    """``raw`` as a JSON object: a list under "data", what is not JSON under "raw"."""
    try:
        data = json.loads(raw or b"{}")
    except json.JSONDecodeError:
        return {"raw": raw[:500].decode(errors="replace")}
    return data if isinstance(data, dict) else {"data": data}


def multipart(fields: Mapping[str, str], files: Sequence[tuple[str, str, str, bytes]]) -> tuple[bytes, str]:
    """A multipart/form-data body and its content type: plain fields, then (field, file name,
    content type, bytes)."""
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


def wait_for_health(api: Api, check_alive: Callable[[], None], ready: Callable[[], bool] = lambda: True) -> None:
    """Until the web process answers /api/health/ (and ``ready`` holds: all its workers up)."""
    wait_until(lambda: api.answers_health() and ready(), what="the web process did not answer /api/health/",
               timeout=STARTUP_TIMEOUT, interval=0.2, check_alive=check_alive)

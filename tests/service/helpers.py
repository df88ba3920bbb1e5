"""Small helpers shared by the API and page tests (records, files, known-bad inputs)."""

from __future__ import annotations

import io
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import pytest

from buraco.notation import dumps, loads

from .conftest import record_text

T = TypeVar("T")


def named(content: str | bytes, name: str) -> io.BytesIO:
    """A file-like upload with a name, as a multipart field value."""
    handle = io.BytesIO(content.encode() if isinstance(content, str) else content)
    handle.name = name
    return handle


def with_players(text: str, *names: str) -> str:
    """The same self-play record with other player names (seats stay p1, p2, ...)."""
    old = loads(text).players
    line = "players = [" + ", ".join(f'"{p}"' for p in old) + "]"
    assert line in text, "record_text() writes the players on one line"
    return text.replace(line, "players = [" + ", ".join(f'"{n}"' for n in names) + "]", 1)


def with_event(text: str, event: str) -> str:
    """The same record with another `event` tag: other bytes, so another match."""
    assert 'event = "self-play"' in text
    return text.replace('event = "self-play"', f'event = "{event}"', 1)


def as_json(text: str) -> str:
    """The JSON form of a BRN record."""
    return dumps(loads(text), "json")


def line_and_column(text: str, needle: str, offset: int = 0) -> tuple[int, int]:
    """1-based line and column of the first `needle` in `text` (plus `offset` characters)."""
    for number, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            return number, line.index(needle) + 1 + offset
    raise AssertionError(f"{needle!r} is not in the text")


@dataclass
class BadRecord:
    text: str
    line: int
    column: int
    message: str  # a fragment the error message must contain


def bad_record(kind: str) -> BadRecord:
    """A record that is not readable BRN, with where its first problem is."""
    good = record_text(hands=1, seed=1)
    if kind == "unknown key":
        text = good.replace('event = "self-play"', 'evnt = "self-play"', 1)
        line, column = line_and_column(text, "evnt =")
        return BadRecord(text, line, column, "unknown key 'evnt'")
    if kind == "bad card":
        first = good.split("dealt = [\n", 1)[1].split('"', 2)[1].split()[0]  # seat 1's first dealt card
        text = good.replace(f'"{first} ', '"9x ', 1)
        line, column = line_and_column(text, '"9x ', offset=1)
        return BadRecord(text, line, column, "'9x'")
    if kind == "bad action":
        text = good.replace('"p1 draw",', '"p1 mled",', 1)
        line, column = line_and_column(text, '"p1 mled"', offset=4)  # points at the verb
        return BadRecord(text, line, column, "'mled' is not a verb")
    if kind == "toml syntax":
        text = good.replace("dealer = ", "dealer = = ", 1)
        line, column = line_and_column(text, "= = ", offset=2)  # the second '='
        return BadRecord(text, line, column, "not valid TOML")
    raise ValueError(kind)


BAD_KINDS = ["unknown key", "bad card", "bad action", "toml syntax"]


@dataclass
class IllegalRecord:
    text: str
    hand: int
    ply: int
    line: int
    column: int
    action: str


def illegal_record(seed: int = 1) -> IllegalRecord:
    """A readable two-hand record whose first hand's first action is out of turn.

    Self-play deals with the last seat as dealer, so p1 plays first: "p2 draw" as the
    first action is illegal; the second hand stays legal.
    """
    good = record_text(hands=2, seed=seed)
    record = loads(good)
    assert record.hands[0].actions[0] == "p1 draw"
    text = good.replace('"p1 draw",', '"p2 draw",', 1)
    line, column = line_and_column(text, '"p2 draw",', offset=1)
    return IllegalRecord(text, hand=1, ply=1, line=line, column=column, action="p2 draw")


def upload_one(upload: Any, client: Any, text: str | bytes, name: str = "match.brn", **fields: Any) -> int:
    """Upload one record through the API, run its verification, return its id."""
    response = upload(client, (name, text), **fields)
    assert response.status_code == 202, response.content
    return int(response.json()["id"])


@pytest.fixture
def fast_passwords(settings: Any) -> None:
    """Cheap password hashing for the personas (the default hasher takes most of a test's time)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def status_of(match_id: int) -> str:
    """A match's status as the API reports it (from its verify job and its verdict)."""
    from records.models import Match

    return str(Match.objects.with_status().get(pk=match_id).status)


def job_of(match_id: int, kind: str = "verify") -> Any:
    """A match's job of one kind."""
    from records.models import Job

    return Job.objects.get(match_id=match_id, kind=kind)


def stored_match(owner: Any, text: str | None = None, source: bytes | None = None) -> Any:
    """A pending match (with its pending verify job) stored without sending the job: the
    test runs the job itself. ``source``: bytes stored as they are, even unreadable ones."""
    from records import services
    from records.models import Job, Match

    content = source if source is not None else (text or record_text()).encode()
    upload = services.UploadedFile("m.brn", content)
    if source is None:
        record = services.parse_uploads([upload])[0][1]
        match, _ = services._match_store(owner=owner, upload=upload, record=record, batch=None,
                                         visibility="private", queue="interactive")
        return match
    match = Match.objects.create(owner=owner, source=content, sha256="x" * 64, variant="cerrado", players=["a", "b"])
    Job.objects.create(match=match, kind=Job.Kind.VERIFY, queue="interactive")
    return match


def at_once(count: int, work: Callable[[], T]) -> list[T]:
    """Run ``work`` in ``count`` threads released together; each closes its own connection."""
    from django.db import connection

    barrier = threading.Barrier(count)
    results: list[T] = []

    def run() -> None:
        barrier.wait()
        try:
            results.append(work())
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def logged_in(user: Any) -> Any:
    """A page client with ``user`` logged in (no password round trip)."""
    from django.test import Client

    client = Client()
    client.force_login(user)
    return client


def publish_give_up_bound() -> float:
    """How long a publish may take before the settings' retry policy gives up: each try waits
    up to the broker's connection timeout, then the policy's interval (growing by its step up to
    its most), plus a second for the rest of the request."""
    from django.conf import settings

    policy = settings.CELERY_TASK_PUBLISH_RETRY_POLICY
    tries = policy["max_retries"] + 1
    waits = sum(min(policy["interval_start"] + n * policy["interval_step"], policy["interval_max"]) for n in range(tries))
    return tries * settings.CELERY_BROKER_CONNECTION_TIMEOUT + waits + 1

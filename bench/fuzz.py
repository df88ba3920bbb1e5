"""Fuzz the BRN reader and the whole upload path: never a crash, always an error with a position.

Two targets, each fed random input and (mostly) mutations of real records: self-play
matches (``buraco.selfplay.play_match``) of all nine rule sets, written by ``dumps`` as
TOML and as JSON, and the hand-written records of ``docs/examples``.

``reader`` (target A)
    ``buraco.notation.loads`` (TOML and JSON forms, as bytes and as text), then, on what
    loads, ``buraco.replay.verify`` and the way back (``dumps`` in both forms, read
    again). A case passes when ``loads`` raises a :class:`~buraco.errors.NotationError`
    (or another :class:`~buraco.errors.BuracoError`) with a position inside the text
    (line and column, or hand and ply), or when the record loads, ``verify`` returns a
    report whose every error names its hand (and its ply or line), and the record is
    written back and read again to the same text. Anything else is a finding: any other
    exception (``RecursionError`` too), an error without a position or with one outside
    the text, a case taking longer than ``--slow`` seconds (2).

``upload`` (target B)
    ``POST /api/matches/`` through Django's test client in this process
    (``records.uploads.expand_upload`` + ``parse_uploads`` +
    ``records.services.upload_create``, the verification and analysis jobs run inline):
    multipart files, several files, zips of mutated members (and mutated zips), raw and
    form-encoded bodies, on a scratch database the run creates and drops (PostgreSQL
    ``buraco_fuzz_<pid>`` on 127.0.0.1:5432, else SQLite in a temporary directory). A
    case passes when the answer is a 202 whose new matches are stored with all their
    hands and verified (no job failed, the match reads back), or a 400 naming each file
    with a line and column (or hand and ply, or the limit or zip problem) that leaves every
    table as it was. A 5xx, an exception, any other status, a 400 without a position, a
    half-stored upload or a failed job is a finding.

Findings are printed and saved under ``--findings`` (``/tmp/fuzz-findings``):
``<target>-<signature>-<n>.input`` holds the exact input (for an upload, one
``.input`` per file) and the ``.txt`` beside it how it was made and the traceback. Read
one again with ``--replay FILE.input``.

The default mode is seeded (``--seed``): the same command makes the same cases.
``--atheris`` fuzzes the reader target coverage-guided instead (atheris, libFuzzer),
starting from the same corpus, with these mutations as a custom mutator beside
libFuzzer's own.

Run: ``.venv/bin/python bench/fuzz.py --cases 100000 --upload-cases 10000``. The output
is Markdown (for docs/benchmarks.md); the exit status is 1 when anything was found.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import hashlib
import io
import json
import logging
import math
import os
import platform
import random
import re
import shutil
import signal
import sys
import tempfile
import time
import tomllib
import traceback
import zipfile
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, sys.path[0] is bench/; the engine and the site sit one level up.
if str(ROOT) not in sys.path:
    sys.path.insert(1, str(ROOT))

from bench.harness import (  # noqa: E402 - after the path above
    cpu_model,
    database_url,
    drop_database,
    postgres_answers,
    reset_database,
    service_env,
    setup_django,
)
from buraco.cards import CARD_TEXT  # noqa: E402
from buraco.errors import BuracoError, NotationError  # noqa: E402
from buraco.notation import Note, dumps, loads  # noqa: E402
from buraco.replay import verify  # noqa: E402
from buraco.rules import VARIANTS  # noqa: E402
from buraco.selfplay import play_match  # noqa: E402

FINDINGS_DIR = Path("/tmp/fuzz-findings")
SLOW_SECONDS = 2.0  # one reader case taking more CPU seconds than this is a finding
HARD_TIMEOUT = 20.0  # a case still running then is stopped (SIGALRM) and reported as a hang
UPLOAD_SLOW_SECONDS = 10.0  # an upload verifies and analyses every record it stores: a looser bound
SAMPLES_PER_SIGNATURE = 5  # inputs saved per distinct finding
MAX_INPUT = 2 * 1024 * 1024  # characters: a mutation making more is undone (a record at every limit is about 2 MB)

Input = str | bytes


# --- the corpus -----------------------------------------------------------------------


@dataclass(frozen=True)
class Seed:
    """A real record to mutate: its name, its text and its form (``toml`` or ``json``)."""

    name: str
    text: str
    format: str


def build_corpus(seeds_per_set: int = 2) -> list[Seed]:
    """Self-play records of every rule set and player count (1 or 2 hands, some with
    planted scoring slips), in both forms, and ``docs/examples`` in both forms."""
    out: list[Seed] = []
    for variant in VARIANTS.values():
        for players in sorted(variant.player_counts):
            for seed in range(1, seeds_per_set + 1):
                try:
                    record = play_match(variant.id, players=players, hands=1 + seed % 2, seed=seed,
                                        mistakes=0.5 if seed % 2 == 0 else 0.0)
                except Exception:  # noqa: BLE001 - self-play may refuse a seed; the others suffice
                    continue
                name = f"{variant.id}-{players}p-s{seed}"
                if seed == 1:  # coaching notes, which no example record has
                    notes = (Note(0, "Coach", "the deal", None), Note(3, "Ana", "why this discard?", "question"),
                             Note(len(record.hands[0].actions), "", "end of the hand", "good"))
                    record = replace(record, hands=(replace(record.hands[0], notes=notes), *record.hands[1:]),
                                     metadata=(*record.metadata, ("annotator", "Coach")))
                out.append(Seed(f"{name}.brn", dumps(record), "toml"))
                out.append(Seed(f"{name}.json", dumps(record, "json"), "json"))
    for path in sorted((ROOT / "docs" / "examples").glob("*.brn")):
        text = path.read_text(encoding="utf-8")
        out.append(Seed(path.name, text, "toml"))
        out.append(Seed(f"{path.stem}.json", dumps(loads(text), "json"), "json"))
    return out


# --- mutations ------------------------------------------------------------------------

CARDS = list(CARD_TEXT)
BAD_CARDS = [
    "1h", "10h", "10", "Xx", "jk", "Jk", "jK", "JK=4h", "2c=6h", "2c>low", "Ah>high", "7h>sideways", "3h=3h",
    "=", ">", "Ks=", "=Ks", "2c=JK", "2c=", ">low", "\uff2a\uff2b", "\uff17h", "T\u2665", "", "  ", "Kd,", "K d",
    "2c=6h=7h", "2c>low>high", "Q\u0301s", "JK" * 30,
]
VERBS = ["draw", "take", "meld", "add", "dead", "discard"]
BAD_VERBS = ["DRAW", "Meld", "mled", "tkae", "pass", "", "draw draw", "discard discard", "take\u00a0", "d\u0131scard"]
NUMBERS = [
    "0", "-0", "1", "2", "3", "4", "5", "-1", "11", "13", "64", "65", "199", "200", "201", "1000", "1001", "1999",
    "2000", "2001", "2147483647", "2147483648", "-2147483649", "4294967296", "9223372036854775807",
    "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "18446744073709551616",
    "1" * 4300, "9" * 4301, "7" * 9000, "1.5", "1e400", "-1e400", "nan", "inf", "-inf", "+1", "0x10", "0o7", "0b1",
    "1_000", "01", "1e3", "\u00b2", "\u0663", "\uff11", "\U0001d7d9", "1\u0301",
]
SEATS = ["0", "1", "2", "3", "4", "5", "9", "10", "99999999999999999999", "1" * 5000, "\u00b2", "\u0663", "\uff11",
         "-1", "+1", "01", "1.0", "", "p1"]
ODD_CHARS = [
    '"', "'", "[", "]", "{", "}", "=", ",", ":", "\n", "\r", "\t", " ", "#", "\\", ".", "-", "+", "_", "0", "9",
    "\x00", "\x01", "\x1f", "\x7f", "\x85", "\u00a0", "\u2028", "\u2029", "\ufeff", "\ufffd", "\uffff",
    "\ud800", "\udbff", "\udc00", "\udfff", "\u0301", "\u200b", "\u202e", "\u00b2", "\u0663", "\uff11",
    "\U0001f0a1", "\U0010ffff", "\u00e9", "\u0130", "\u0131", "\u00df",
]
SNIPPETS = [
    '"', "'", '"""', "'''", "[", "]", "[[", "]]", "{", "}", "=", " = ", ",", ", ,", "\n", "\r\n", "\\", "\\u",
    "\\ud800", "\\udfff", "\\ud800\\udc00", "\\u0000", "\\U00110000", "\\U0010FFFF", "\\x41", "\\e", "\\",
    "null", "true", "false", "nan", "inf", "1979-05-27T07:32:00Z", "1979-05-27", "07:32:00", "2024-02-30",
    "[[hands]]\n", "[hands]\n", "[[hands.notes]]\n", "[hands.result]\n", "[x-t]\n", "x-k = 1\n", "brn = 1\n",
    'variant = "brasil"\n', "players = []\n", "hands = []\n", "actions = []\n", "dealer = 0\n", "result = {}\n",
    "notes = 3\n", "teams = [[1, 3], [2, 4]]\n", 'unknown = "x"\n', '"x-k": null, ', '"hands": null, ',
    '"dealt": [], ', '"actions": {}, ', '"result": [], ', '"notes": [1], ', "{}", "[]", "[null]", '{"a": 1}',
    "p1 draw", '"p1 draw", ', '"p2 take 99", ', '"p1 add m9 4c", ', '"p1 meld JK JK JK", ', "\x00", "\ud800",
    "# comment\n", "\ufeff", "x" * 70, "a." * 50, "=" * 100, "x-when = 1979-05-27\n", "x-at = 07:32:00\n",
    "x-ts = [1979-05-27T07:32:00Z, 1979-05-27 07:32:00.5]\n", "x-f = [nan, -inf, -0.0, 1e308]\n",
]
UNICODE_RANGES = [(0x0, 0x20), (0x7F, 0xA0), (0xD800, 0xE000), (0xE000, 0xE010), (0xFFF0, 0x10000),
                  (0x300, 0x370), (0x1F000, 0x1F100), (0x10FFF0, 0x110000), (0x0, 0x110000)]
CARD_RE = re.compile(r"(?<![A-Za-z0-9])(?:10|[2-9TJQKAtjqka])[cdhsCDHS](?![A-Za-z0-9])|JK|jk")
VERB_RE = re.compile(r"\b(?:draw|take|meld|add|dead|discard)\b")
NUMBER_RE = re.compile(r"(?<![A-Za-z0-9_.])-?\d+(?![A-Za-z0-9_.])")
SEAT_RE = re.compile(r"(?<=\b[pm])\d+\b")
ACTION_RE = re.compile(r'"(p\d [^"\n]*)"')
VALUE_RE = re.compile(r"(?:= |: )")
KEY_RE = re.compile(r'^(\s*"?)([A-Za-z_-]+)("?\s*[=:])', re.M)

Mutator = Callable[[str, random.Random, Sequence[Seed]], str]


def _position(text: str, rng: random.Random) -> int:
    return rng.randrange(len(text) + 1)


def _replace_match(text: str, rng: random.Random, pattern: re.Pattern[str], choices: Sequence[str]) -> str:
    found = list(pattern.finditer(text))
    if not found:
        return text
    match = rng.choice(found)
    return text[: match.start()] + rng.choice(choices) + text[match.end():]


def _odd_text(rng: random.Random, size: int) -> str:
    """``size`` characters: mostly the odd ones listed, some anywhere in Unicode."""
    out = []
    for _ in range(size):
        if rng.random() < 0.6:
            out.append(rng.choice(ODD_CHARS))
        else:
            low, high = rng.choice(UNICODE_RANGES)
            out.append(chr(rng.randrange(low, high)))
    return "".join(out)


def mutate_char(text: str, rng: random.Random, seeds: Sequence[Seed]) -> str:
    """One character replaced by an odd one."""
    if not text:
        return rng.choice(ODD_CHARS)
    i = rng.randrange(len(text))
    return text[:i] + _odd_text(rng, 1) + text[i + 1:]


def mutate_insert(text: str, rng: random.Random, seeds: Sequence[Seed]) -> str:
    """A snippet of TOML, JSON or BRN (or odd characters) inserted anywhere."""
    piece = rng.choice(SNIPPETS) if rng.random() < 0.7 else _odd_text(rng, rng.randint(1, 6))
    i = _position(text, rng)
    return text[:i] + piece + text[i:]


def mutate_delete(text: str, rng: random.Random, seeds: Sequence[Seed]) -> str:
    """A span deleted: mostly a few characters, sometimes a long stretch."""
    if not text:
        return text
    size = rng.randint(1, 8) if rng.random() < 0.7 else rng.randint(1, max(1, len(text) // 2))
    i = rng.randrange(len(text))
    return text[:i] + text[i + size:]


def mutate_lines(text: str, rng: random.Random, seeds: Sequence[Seed]) -> str:
    """A line duplicated (once or many times), deleted, swapped with another or moved."""
    lines = text.split("\n")
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    operation = rng.randrange(5)
    if operation == 0:
        lines.insert(i, lines[i])
    elif operation == 1:
        lines[i:i] = [lines[i]] * rng.choice((5, 201, 2001))
    elif operation == 2:
        del lines[i]
    elif operation == 3:
        lines[i], lines[j] = lines[j], lines[i]
    else:
        lines.insert(j, lines.pop(i))
    return "\n".join(lines)


def mutate_hands(text: str, rng: random.Random, seeds: Sequence[Seed]) -> str:
    """A whole ``[[hands]]`` block repeated (past the hand limit, sometimes), deleted or
    the blocks reordered."""
    parts = re.split(r"(?m)^(?=\[\[hands\]\]$)", text)
    if len(parts) < 2:
        return mutate_lines(text, rng, seeds)
    head, blocks = parts[0], parts[1:]
    operation = rng.randrange(3)
    if operation == 0:
        block = rng.choice(blocks)
        blocks.extend([block if block.endswith("\n") else block + "\n"] * rng.choice((1, 3, 200)))
    elif operation == 1:
        blocks.pop(rng.randrange(len(blocks)))
    else:
        rng.shuffle(blocks)
    return head + "".join(blocks)


def mutate_splice(text: str, rng: random.Random, seeds: Sequence[Seed]) -> str:
    """The start of this record then the end of another (at line breaks, mostly)."""
    other = rng.choice(seeds).text
    if rng.random() < 0.7:
        mine, theirs = text.split("\n"), other.split("\n")
        return "\n".join(mine[: rng.randint(0, len(mine))] + theirs[rng.randint(0, len(theirs)):])
    return text[: _position(text, rng)] + other[_position(other, rng):]


def mutate_card(text: str, rng: random.Random, seeds: Sequence[Seed]) -> str:
    """A card code replaced by another card, or by something that is almost one."""
    return _replace_match(text, rng, CARD_RE, BAD_CARDS if rng.random() < 0.3 else CARDS)


def mutate_verb(text: str, rng: random.Random, seeds: Sequence[Seed]) -> str:
    """An action's verb replaced by another verb or a misspelling."""
    return _replace_match(text, rng, VERB_RE, BAD_VERBS if rng.random() < 0.3 else VERBS)


def mutate_number(text: str, rng: random.Random, seeds: Sequence[Seed]) -> str:
    """A number (a TOML/JSON value, or one inside an action) replaced: 0, negatives, the
    edges of 32 and 64 bits, thousands of digits, floats, Unicode digits."""
    return _replace_match(text, rng, NUMBER_RE, NUMBERS)


def mutate_seat(text: str, rng: random.Random, seeds: Sequence[Seed]) -> str:
    """The number of a seat (``p1``) or of a meld (``m1``) replaced."""
    return _replace_match(text, rng, SEAT_RE, SEATS)


def mutate_action(text: str, rng: random.Random, seeds: Sequence[Seed]) -> str:
    """A whole action replaced by words of actions in any order."""
    found = list(ACTION_RE.finditer(text))
    if not found:
        return text
    match = rng.choice(found)
    words = ["p1", "p2", "p3", "p4", "p9", "m1", "m2", "m0", "3", "0", *VERBS, *rng.sample(CARDS, 6), *BAD_CARDS[:8]]
    action = " ".join(rng.choice(words) for _ in range(rng.randint(0, 7)))
    return text[: match.start(1)] + action + text[match.end(1):]


def _deep(rng: random.Random, json_form: bool) -> str:
    levels = rng.choice((17, 100, 1000, 5000, 100_000))
    kind = rng.randrange(4)
    if kind == 0:
        return "[" * levels + "]" * levels
    if kind == 1:
        return "[" * levels  # never closed
    if kind == 2:
        return ('{"a": ' if json_form else "{ a = ") * levels + "1" + "}" * levels
    return "[{" * levels if json_form else "[{a=" * levels


def mutate_nesting(text: str, rng: random.Random, seeds: Sequence[Seed]) -> str:
    """A value replaced by arrays or tables nested deep (closed or not), or a deep x- key added."""
    json_form = text.lstrip().startswith("{")
    deep = _deep(rng, json_form)
    found = list(VALUE_RE.finditer(text))
    if found and rng.random() < 0.6:
        match = rng.choice(found)
        end = text.find("\n", match.end())
        end = len(text) if end < 0 else end
        return text[: match.end()] + deep + text[end:]
    if json_form:
        return text.replace("{", '{"x-deep": ' + deep + ", ", 1)
    return "x-deep = " + deep + "\n" + text


def mutate_unicode(text: str, rng: random.Random, seeds: Sequence[Seed]) -> str:
    """Odd Unicode inserted: lone surrogates, NUL and other controls, noncharacters,
    combining marks, digits of other scripts, raw or as escapes."""
    i = _position(text, rng)
    if rng.random() < 0.3:
        code = rng.choice((0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0x0, 0x1F, 0x7F, 0xFFFF, 0x10FFFF, 0xFEFF, 0x110000))
        piece = f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"
    else:
        piece = _odd_text(rng, rng.randint(1, 4))
    return text[:i] + piece + text[i:]


def mutate_huge(text: str, rng: random.Random, seeds: Sequence[Seed]) -> str:
    """Something past a limit: a huge action, name, x- value or number, thousands of actions."""
    kind = rng.randrange(6)
    json_form = text.lstrip().startswith("{")
    if kind == 0:
        action = "p1 meld " + " ".join(rng.sample(CARDS, 10) * rng.choice((5, 500, 5000)))  # few draws: hypothesis drives rng too
        return _replace_match(text, rng, ACTION_RE, ['"' + action + '"'])
    if kind == 1:
        name = rng.choice(("N" * 65, "N" * 64, "\u00e9" * 65, "x" * 100_000))
        return text.replace('"Bot 1"', json.dumps(name), 1) if '"Bot 1"' in text else text
    if kind == 2:
        value = json.dumps("v" * rng.choice((65 * 1024, 100, 1001)))
        return text.replace("{", '{"x-big": ' + value + ", ", 1) if json_form else f"x-big = {value}\n{text}"
    if kind == 3:
        return _replace_match(text, rng, NUMBER_RE, ["9" * rng.choice((4299, 4300, 4301, 20_000))])
    if kind == 4:
        many = ", ".join(['"p1 draw"'] * rng.choice((2001, 2000, 1999)))
        return re.sub(r"actions = \[", "actions = [" + many + ",", text, count=1) if not json_form else \
            re.sub(r'"actions": \[', '"actions": [' + many + ",", text, count=1)
    event = json.dumps("e" * rng.choice((1000, 1001)))
    return text.replace("{", '{"event": ' + event + ", ", 1) if json_form else f"event = {event}\n{text}"


def mutate_case(text: str, rng: random.Random, seeds: Sequence[Seed]) -> str:
    """A span upper- or lower-cased (``P1 DRAW``, ``KD``, ``BRN = 1``)."""
    if not text:
        return text
    i = rng.randrange(len(text))
    j = min(len(text), i + rng.randint(1, 40))
    return text[:i] + (text[i:j].upper() if rng.random() < 0.5 else text[i:j].lower()) + text[j:]


def mutate_spaces(text: str, rng: random.Random, seeds: Sequence[Seed]) -> str:
    """Spaces or line breaks replaced by other white space (tabs, CR, NBSP, ideographic)."""
    found = [m.start() for m in re.finditer(r"[ \n]", text)]
    if not found:
        return text
    i = rng.choice(found)
    return text[:i] + rng.choice(("\t", "\r", "\r\n", "\u00a0", "\u3000", "\x0b", "\x0c", "", "  ", "\n\n")) + text[i + 1:]


def mutate_key(text: str, rng: random.Random, seeds: Sequence[Seed]) -> str:
    """A key renamed: to another known key, an unknown one, an x- one, or repeated."""
    found = list(KEY_RE.finditer(text))
    if not found:
        return text
    match = rng.choice(found)
    keys = ["brn", "variant", "players", "teams", "target", "hands", "dealer", "dealt", "dead", "discard", "stock",
            "actions", "result", "scores", "totals", "notes", "ply", "author", "text", "tag", "event", "date",
            "round", "x-", "x-k", "X-k", "unknown", "hands.notes", "dealt.x", match.group(2) * 2, ""]
    return text[: match.start(2)] + rng.choice(keys) + text[match.end(2):]


# Values put where the record has another: JSON null, lists and numbers where a table is
# expected, tables where a list is, huge and odd integers, deep nesting, long strings.
def _odd_value(rng: random.Random, original: Any) -> Any:
    choices: list[Callable[[], Any]] = [
        lambda: None, lambda: [], lambda: {}, lambda: 0, lambda: -1, lambda: 1, lambda: 2, lambda: 5,
        lambda: 2**31, lambda: 2**63 - 1, lambda: 2**63, lambda: -(2**63) - 1, lambda: 10**30, lambda: 1.5,
        lambda: float("nan"), lambda: float("inf"), lambda: True, lambda: "", lambda: "text", lambda: "p1 draw",
        lambda: "Kd", lambda: "\x00", lambda: "\ud800", lambda: [None], lambda: [[]], lambda: [{}], lambda: {"": None},
        lambda: {"x-k": 1}, lambda: {"scores": None}, lambda: [1, 2, 3], lambda: ["p1 draw"] * 3,
        lambda: [original, original], lambda: [original] * 201, lambda: {"k": original},
        lambda: Raw(_deep(rng, True)), lambda: "s" * 70_000, lambda: dt.date(1979, 5, 27),
        lambda: dt.datetime(1979, 5, 27, 7, 32, tzinfo=dt.UTC), lambda: dt.time(7, 32, 0, 500),
    ]
    return rng.choice(choices)()


@dataclass(frozen=True)
class Raw:
    """Text written as it is, in place of a value (deep nesting that no writer would make)."""

    text: str


def _paths(data: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _paths(value, (*path, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from _paths(value, (*path, index))


def mutate_structure(text: str, rng: random.Random, seeds: Sequence[Seed]) -> str:
    """Parse, change one value (another type, deleted, a key added or renamed), write back as
    JSON or as TOML (inline tables: a form other than the canonical one)."""
    try:
        data: Any = json.loads(text) if text.lstrip().startswith("{") else tomllib.loads(text)
    except (ValueError, RecursionError):
        return mutate_insert(text, rng, seeds)
    paths = list(_paths(data))
    path = rng.choice(paths[1:] or paths)
    parent: Any = data
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1] if path else None
    operation = rng.randrange(4)
    if last is None:
        data = _odd_value(rng, data)
    elif operation == 0 and isinstance(parent, dict):
        del parent[last]
    elif operation == 1 and isinstance(parent, dict):
        parent[rng.choice(["x-k", "unknown", "brn", "hands", "result", "notes", "teams", "dead", "stock"])] = \
            _odd_value(rng, parent[last])
    else:
        parent[last] = _odd_value(rng, parent[last])
    as_json = rng.random() < 0.5
    if not as_json:
        try:
            return write_toml(data)
        except TypeError:  # null has no TOML form
            pass
    return write_json(data)


def write_json(value: Any) -> str:
    """JSON of ``value`` (``Raw`` pieces as they are; NaN and surrogates as Python writes them)."""
    if isinstance(value, Raw):
        return value.text
    if isinstance(value, dict):
        if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
            raise TypeError("keys are strings")
        return "{" + ", ".join(json.dumps(k, ensure_ascii=False) + ": " + write_json(v) for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(write_json(v) for v in value) + "]"
    if hasattr(value, "isoformat"):
        return json.dumps(value.isoformat())
    return json.dumps(value, ensure_ascii=False)


def write_toml(data: Any) -> str:
    """TOML of a table, every value inline (``TypeError`` for null, which TOML cannot hold)."""
    if not isinstance(data, dict):
        raise TypeError("a TOML document is a table")
    return "".join(f"{_toml_key(k)} = {_toml_inline(v)}\n" for k, v in data.items())


def _toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key, ensure_ascii=False)


def _toml_inline(value: Any) -> str:
    if value is None:
        raise TypeError("null has no TOML form")
    if isinstance(value, Raw):
        return value.text
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_toml_key(k)} = {_toml_inline(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[" + ", ".join(_toml_inline(v) for v in value) + "]"
    return str(value.isoformat())


TEXT_MUTATORS: list[tuple[Mutator, int]] = [  # each with its weight
    (mutate_char, 6), (mutate_insert, 6), (mutate_delete, 5), (mutate_lines, 5), (mutate_hands, 2),
    (mutate_splice, 4), (mutate_card, 8), (mutate_verb, 5), (mutate_number, 6), (mutate_seat, 4),
    (mutate_action, 6), (mutate_nesting, 2), (mutate_unicode, 5), (mutate_huge, 2), (mutate_case, 2),
    (mutate_spaces, 2), (mutate_key, 3), (mutate_structure, 7),
]


def flip_bytes(data: bytes, rng: random.Random) -> bytes:
    """Bits flipped, bytes inserted (invalid UTF-8, NUL, a BOM) or deleted, or the end cut."""
    out = bytearray(data)
    operation = rng.randrange(4)
    if operation == 0 and out:
        for _ in range(rng.randint(1, 4)):
            out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
    elif operation == 1:
        piece = rng.choice((b"\x00", b"\xff", b"\xc3", b"\xc0\x80", b"\xed\xa0\x80", b"\xef\xbb\xbf", b"\r\n",
                            b"\xf4\x90\x80\x80", bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))))
        i = rng.randrange(len(out) + 1)
        out[i:i] = piece
    elif operation == 2 and out:
        i = rng.randrange(len(out))
        del out[i: i + rng.randint(1, 16)]
    else:
        del out[rng.randrange(len(out) + 1):]
    return bytes(out)


def random_input(rng: random.Random) -> Input:
    """No record at all: random bytes, random text, or a soup of TOML/JSON/BRN tokens."""
    kind = rng.randrange(3)
    if kind == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randint(0, 300)))
    if kind == 1:
        return _odd_text(rng, rng.randint(0, 200))
    tokens = ["brn", "=", "1", "variant", '"brasil"', '"cerrado"', "players", '["A", "B"]', '["A","B","C","D"]',
              "[[hands]]", "dealer", "dealt", "actions", '["p1 draw"]', "[", "]", "{", "}", ",", ":", "\n", '"',
              "x-k", "null", "true", "2", '"brn"', '"hands"', "[]", "{}", "#", "result", "scores", "notes", "ply"]
    return " ".join(rng.choice(tokens) for _ in range(rng.randint(0, 60)))


@dataclass(frozen=True)
class Case:
    """One input for the reader: the data (bytes, or text when it holds lone surrogates
    or to try the text path), the format asked for (None: guessed) and how it was made."""

    data: Input
    format: str | None
    how: str


def mutate_text(text: str, rng: random.Random, seeds: Sequence[Seed], steps: int | None = None) -> tuple[str, list[str]]:
    """``text`` after 1 to 4 weighted mutations (``steps`` of them if given); their names."""
    mutators, weights = zip(*TEXT_MUTATORS)
    names = []
    for _ in range(steps if steps is not None else rng.choice((1, 1, 1, 2, 2, 3, 4))):
        mutator = rng.choices(mutators, weights)[0]
        mutated = mutator(text, rng, seeds)
        if len(mutated) > MAX_INPUT:  # repeats of repeats: past what one upload may hold, and no test of the reader
            names.append(mutator.__name__.removeprefix("mutate_") + " (undone: too big)")
            continue
        text = mutated
        names.append(mutator.__name__.removeprefix("mutate_"))
    return text, names


def make_case(rng: random.Random, seeds: Sequence[Seed]) -> Case:
    """A random input (1 in 8) or a mutated record (as bytes mostly, as text sometimes)."""
    format = rng.choice(("toml", "json")) if rng.random() < 0.08 else None
    if rng.random() < 0.125:
        data = random_input(rng)
        return Case(data, format, f"random {'bytes' if isinstance(data, bytes) else 'text'}")
    seed = rng.choice(seeds)
    text, names = mutate_text(seed.text, rng, seeds)
    how = f"{seed.name}: {' + '.join(names)}"
    if rng.random() < 0.12:
        return Case(flip_bytes(text.encode("utf-8", "surrogatepass"), rng), format, how + " + bytes")
    if _has_surrogate(text) or rng.random() < 0.2:
        return Case(text, format, how + " (as text)")
    return Case(text.encode("utf-8"), format, how)


def _has_surrogate(text: str) -> bool:
    return re.search("[\ud800-\udfff]", text) is not None


def as_bytes(data: Input) -> bytes:
    return data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass")


# --- target A: the reader -----------------------------------------------------------


@dataclass
class Verdict:
    """What one case gave: its outcome and, for a finding, what is wrong and where."""

    outcome: str
    problem: str | None = None  # None: the case passed
    signature: str = ""  # the same bug gives the same signature
    detail: str = ""  # traceback or explanation
    family: str = ""  # the error message with its particulars left out


class CaseTimeout(BaseException):
    """Raised by SIGALRM in a case that runs past HARD_TIMEOUT (no ``except Exception`` catches it)."""


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise CaseTimeout


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Stop the block after ``seconds`` (main thread, POSIX) with CaseTimeout."""
    if seconds <= 0 or not hasattr(signal, "setitimer"):
        yield
        return
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def family(message: str) -> str:
    """A message with quoted parts and numbers left out, so that messages group by kind."""
    text = re.sub(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"", "…", message)
    text = re.sub(r"\d+", "N", text)
    return text[:90]


def innermost_frame(tb: TracebackType | None) -> str:
    """The innermost frame of the traceback in this project's code (path:line), else the last."""
    frames = traceback.extract_tb(tb)
    ours = [f for f in frames if f.filename.startswith(str(ROOT)) and "/bench/" not in f.filename
            and "/.venv/" not in f.filename]
    if not (ours or frames):
        return "?"
    frame = (ours or frames)[-1]
    name = frame.filename[len(str(ROOT)) + 1:] if frame.filename.startswith(str(ROOT)) else Path(frame.filename).name
    return f"{name}:{frame.lineno}"


def crash(stage: str, error: BaseException) -> Verdict:
    kind = "hang" if isinstance(error, CaseTimeout) else type(error).__name__
    where = innermost_frame(error.__traceback__)
    return Verdict(f"crash in {stage}", f"{kind} in {stage}", f"{stage}: {kind} at {where}",
                   "".join(traceback.format_exception(error)))


def text_of(data: Input) -> str:
    """The text ``loads`` reads, to check positions against (a BOM dropped as it drops it)."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    return text[1:] if text.startswith("\ufeff") else text


def position_problem(error: BuracoError, text: str | None, need_line: bool = False) -> str | None:
    """What is wrong with an error's position, or None: it needs a line and column, or a hand
    and ply (``need_line``: a line and column); a line and column must be inside ``text``."""
    has_line = error.line is not None and error.column is not None
    has_ply = error.hand is not None and error.ply is not None
    if not has_line and (need_line or not has_ply):
        if error.line is not None:
            return "an error with a line but no column"
        return "an error without a position"
    if has_line and text is not None:
        assert error.line is not None and error.column is not None
        lines = text.split("\n")
        if not 1 <= error.line <= len(lines):
            return f"an error at line {error.line} of a text of {len(lines)} lines"
        if not 1 <= error.column <= len(lines[error.line - 1]) + 1:
            return f"an error at column {error.column} of a line of {len(lines[error.line - 1])} characters"
    return None


def check_reader(data: Input, format: str | None = None) -> Verdict:
    """One reader case: loads, then verify and the way back; see the module's docstring."""
    text = text_of(data)
    try:
        record = loads(data, format)
    except BuracoError as error:
        problem = position_problem(error, text)
        outcome = "notation error" if isinstance(error, NotationError) else f"{error.kind} error while reading"
        message_family = family(error.message)
        if problem:
            return Verdict(outcome, problem, f"loads: {problem}: {message_family}", f"{type(error).__name__}: {error}",
                           message_family)
        return Verdict(outcome, family=message_family)
    except BaseException as error:  # noqa: BLE001 - anything else is what the fuzz looks for
        return crash("loads", error)
    try:
        report = verify(record)
        report.as_dict()
    except BuracoError as error:
        problem = position_problem(error, text)
        if problem:
            return Verdict("verify raised", problem, f"verify: {problem}", f"{type(error).__name__}: {error}")
        return Verdict("verify raised", family=family(error.message))
    except BaseException as error:  # noqa: BLE001
        return crash("verify", error)
    for hand in report.hands:
        wrong = hand.error
        if wrong is None:
            continue
        if wrong.hand is None or (wrong.ply is None and wrong.line is None):
            return Verdict(wrong.kind, "a hand's error without its hand and ply", f"verify: {wrong.kind} without a position",
                           f"hand {hand.hand}: {wrong.as_dict()}")
        if wrong.line is not None:
            problem = position_problem(wrong, text, need_line=True)
            if problem:
                return Verdict(wrong.kind, problem, f"verify: {problem}", f"hand {hand.hand}: {wrong.as_dict()}")
    outcome = report.error.kind if report.error else ("legal" if report.scores_match else "legal, scores differ")
    try:
        for form in ("toml", "json"):
            written = dumps(record, form)
            again = dumps(loads(written, form), form)
            if again != written:
                return Verdict(outcome, f"written as {form} and read again, it differs", f"dumps: {form} round trip",
                               f"first:\n{written[:2000]}\nagain:\n{again[:2000]}")
    except BaseException as error:  # noqa: BLE001
        return crash("dumps", error)
    return Verdict(outcome, family=family(report.error.message) if report.error else "")


def run_reader_case(case: Case, slow: float) -> tuple[Verdict, float]:
    """check_reader within the hard time limit (wall clock); a case taking more than ``slow``
    seconds of CPU is a finding too. CPU time, not wall time: the machine is shared, and a
    case waiting for a core is not slow. Returns the verdict and the case's CPU seconds."""
    start = time.process_time()
    try:
        with time_limit(HARD_TIMEOUT):
            verdict = check_reader(case.data, case.format)
    except CaseTimeout as error:
        verdict = crash("reader", error)
    elapsed = time.process_time() - start
    if verdict.problem is None and elapsed > slow:
        verdict = Verdict(verdict.outcome, f"one case took {elapsed:.1f} s of CPU",
                          f"slow: {verdict.outcome} in more than {slow:.0f} s", f"{elapsed:.2f} s of CPU, "
                          f"{len(as_bytes(case.data)):,} bytes")
    return verdict, elapsed


# --- findings and tallies -----------------------------------------------------------


@dataclass
class Finding:
    signature: str
    problem: str
    count: int = 0
    saved: list[Path] = field(default_factory=list)
    first_how: str = ""
    first_detail: str = ""


@dataclass
class Tally:
    """Outcomes, findings and times of one target's run."""

    target: str
    findings_dir: Path
    cases: int = 0
    seconds: float = 0.0
    outcomes: Counter[str] = field(default_factory=Counter)
    families: Counter[str] = field(default_factory=Counter)
    findings: dict[str, Finding] = field(default_factory=dict)
    slowest: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    def add(self, verdict: Verdict, elapsed: float, how: str, inputs: Sequence[tuple[str, bytes]], meta: str = "") -> None:
        self.cases += 1
        self.seconds += elapsed
        self.slowest = max(self.slowest, elapsed)
        self.outcomes[verdict.outcome] += 1
        if verdict.family:
            self.families[f"{verdict.outcome}: {verdict.family}"] += 1
        if verdict.problem is None:
            return
        finding = self.findings.setdefault(verdict.signature, Finding(verdict.signature, verdict.problem))
        finding.count += 1
        if len(finding.saved) < SAMPLES_PER_SIGNATURE:
            finding.saved.append(self._save(finding, how, verdict, inputs, meta))
        if finding.count == 1:
            finding.first_how, finding.first_detail = how, verdict.detail
            print(f"\nFINDING [{self.target}] {verdict.signature}\n  made by: {how}\n  saved: {finding.saved[-1]}\n"
                  f"{_indent(verdict.detail[-3000:])}", file=sys.stderr, flush=True)

    def _save(self, finding: Finding, how: str, verdict: Verdict, inputs: Sequence[tuple[str, bytes]], meta: str) -> Path:
        self.findings_dir.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha1(finding.signature.encode()).hexdigest()[:10]
        base = self.findings_dir / f"{self.target}-{digest}-{len(finding.saved) + 1}"
        for index, (_, content) in enumerate(inputs):
            suffix = ".input" if len(inputs) == 1 else f".{index + 1}.input"
            Path(f"{base}{suffix}").write_bytes(content)
        names = "\n".join(f"  file {i + 1}: {name!r} ({len(content)} bytes)" for i, (name, content) in enumerate(inputs))
        Path(f"{base}.txt").write_text(
            f"signature: {finding.signature}\nproblem: {verdict.problem}\nmade by: {how}\n{meta}\n{names}\n\n{verdict.detail}\n",
            encoding="utf-8", errors="replace",
        )
        return Path(f"{base}.input" if len(inputs) == 1 else f"{base}.1.input")


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())


def run_reader(cases: int, seed: int, seeds: Sequence[Seed], findings_dir: Path, slow: float,
               progress: float = 30.0) -> Tally:
    """Target A, seeded: ``cases`` cases made by make_case."""
    rng = random.Random(seed)
    tally = Tally("reader", findings_dir)
    started = last = time.perf_counter()
    for number in range(cases):
        case = make_case(rng, seeds)
        verdict, elapsed = run_reader_case(case, slow)
        meta = f"format: {case.format}\ninput: {'bytes' if isinstance(case.data, bytes) else 'text (saved as UTF-8, surrogatepass)'}"
        tally.add(verdict, elapsed, f"case {number}: {case.how}", [("input", as_bytes(case.data))], meta)
        now = time.perf_counter()
        if now - last > progress:
            last = now
            print(f"  reader: {number + 1} cases, {(number + 1) / (now - started):.0f}/s, "
                  f"{sum(f.count for f in tally.findings.values())} findings", file=sys.stderr, flush=True)
    tally.extra["wall"] = time.perf_counter() - started
    return tally


# --- target A, coverage-guided (atheris) ---------------------------------------------


def run_atheris(cases: int, seed: int, seeds: Sequence[Seed], findings_dir: Path, slow: float,
                report: Callable[[Tally], None]) -> None:
    """Target A under atheris: libFuzzer's mutations and ours (custom mutator), guided by
    coverage of the engine, tomllib and json. Never returns: prints the report and exits
    after ``cases`` inputs."""
    import atheris  # type: ignore[import-not-found,unused-ignore]

    tally = Tally("reader-atheris", findings_dir)
    started = time.perf_counter()
    corpus_dir = Path(tempfile.mkdtemp(prefix="fuzz-corpus-"))
    for index, item in enumerate(seeds):
        (corpus_dir / f"{index:03d}").write_bytes(item.text.encode("utf-8"))

    def mutator(data: bytes, max_size: int, mutation_seed: int) -> bytes:
        rng = random.Random(mutation_seed)
        if rng.random() < 0.5:
            return bytes(atheris.Mutate(data, max_size))
        text = data.decode("utf-8", "surrogatepass") if _valid_utf8(data) else data.decode("latin-1")
        text, _ = mutate_text(text, rng, seeds, steps=1)
        out = text.encode("utf-8", "surrogatepass")
        return out[:max_size]

    def one_input(data: bytes) -> None:
        verdict, elapsed = run_reader_case(Case(data, None, "atheris"), slow)
        tally.add(verdict, elapsed, f"atheris input {tally.cases}", [("input", data)], "format: None\ninput: bytes")
        if tally.cases >= cases:
            tally.extra["wall"] = time.perf_counter() - started
            report(tally)
            shutil.rmtree(corpus_dir, ignore_errors=True)
            sys.stdout.flush()
            os._exit(1 if tally.findings else 0)

    atheris.instrument_all()
    atheris.Setup([sys.argv[0], f"-seed={seed}", "-max_len=131072", "-timeout=30", "-rss_limit_mb=4096",
                   "-print_final_stats=0", str(corpus_dir)], one_input, custom_mutator=mutator)
    atheris.Fuzz()


def _valid_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8", "surrogatepass")
        return True
    except UnicodeDecodeError:
        return False


# --- target B: the upload path --------------------------------------------------------

FILE_NAMES = ["match.brn", "m.json", "m.toml", "m", "m.txt", "M.BRN", "\u00fc\u00e9.brn", "a b.brn", "x.zip",
              "../../etc/passwd.brn", "n" * 300 + ".brn", ".brn", "a.brn.zip", "\u202egnp.brn"]
MEMBER_NAMES = ["a.brn", "dir/b.brn", "__MACOSX/._a.brn", "x.json", "y.toml", "notes.txt", "UPPER.BRN",
                "\u00fc/\u00e9.brn", "../evil.brn", "/abs.brn", "d" * 300 + ".brn", "dir/", "c.BRN"]
CONTENT_TYPES = ["application/toml", "application/json", "text/plain", "application/octet-stream",
                 "application/x-www-form-urlencoded", "multipart/form-data", "multipart/form-data; boundary=xyz",
                 "text/plain; charset=latin-1", "application/json; charset=utf-16", ""]
FILE_LEVEL = ("the file has", "the record has", "the record unpacks", "the zip unpacks", "an upload holds at most",
              "the upload unpacks", "not a readable zip", "the zip holds no", "cannot unpack")
REQUEST_LEVEL = ("the body is empty", "no file was uploaded", "send the records as")


@dataclass
class UploadCase:
    """One POST: multipart files, or a raw body with its content type, and form fields."""

    kind: str
    files: list[tuple[str, bytes]] = field(default_factory=list)
    body: bytes | None = None
    content_type: str = ""
    fields: dict[str, str] = field(default_factory=dict)
    how: str = ""
    contents: dict[str, bytes] = field(default_factory=dict)  # every record sent, by the name an error gives it


def record_bytes(rng: random.Random, seeds: Sequence[Seed], number: int) -> tuple[bytes, str]:
    """A record for an upload: a real one made unique (so it is stored and verified), 3 in 10,
    else a reader case (mutated record or random input)."""
    if rng.random() < 0.3:
        seed = rng.choice(seeds)
        if seed.format == "json":
            return seed.text.replace("{", f'{{"x-fuzz": {number},', 1).encode(), f"{seed.name} (real)"
        return f"# fuzz case {number}\n{seed.text}".encode(), f"{seed.name} (real)"
    case = make_case(rng, seeds)
    return as_bytes(case.data), case.how


def make_zip(rng: random.Random, members: list[tuple[str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    compression = rng.choice((zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2,
                              zipfile.ZIP_LZMA))
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        for name, content in members:
            if name.endswith("/"):
                archive.writestr(name, b"")
            else:
                archive.writestr(name, content)
    return buffer.getvalue()


def mutate_zip(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """The zip itself damaged: bytes flipped, cut, or a header's sizes or flags changed."""
    out = bytearray(data)
    kind = rng.randrange(5)
    if kind == 0:
        for _ in range(rng.randint(1, 6)):
            out[rng.randrange(len(out))] = rng.randrange(256)
        return bytes(out), "bytes changed"
    if kind == 1:
        return bytes(out[: rng.randrange(len(out))]), "cut"
    headers = [m.start() for m in re.finditer(rb"PK\x01\x02", data)] or [0]
    at = rng.choice(headers)
    if kind == 2:  # central directory: uncompressed size (offset 24)
        out[at + 24: at + 28] = rng.choice((0, 1, 2**31, 2**32 - 1, rng.randrange(2**32))).to_bytes(4, "little")
        return bytes(out), "size in the directory changed"
    if kind == 3:  # general purpose flags (offset 8): encrypted, UTF-8 names, data descriptor
        out[at + 8: at + 10] = rng.choice((1, 0x800, 0x8, 0x41, 0xFFFF)).to_bytes(2, "little")
        return bytes(out), "flags changed"
    out[at + 10: at + 12] = rng.choice((0, 8, 12, 14, 99, 0xFFFF)).to_bytes(2, "little")  # compression method
    return bytes(out), "method changed"


def make_upload_case(rng: random.Random, seeds: Sequence[Seed], number: int) -> UploadCase:
    kind = rng.choices(("file", "files", "zip", "raw", "form"), (35, 15, 25, 15, 10))[0]
    case = UploadCase(kind)
    hows = []
    if kind in ("file", "files"):
        for index in range(1 if kind == "file" else rng.randint(2, 4)):
            content, how = record_bytes(rng, seeds, number * 10 + index)
            name = FILE_NAMES[0] if rng.random() < 0.6 else rng.choice(FILE_NAMES)
            if name in case.contents:  # errors name files: each its own name
                name = f"{index}-{name}"
            case.files.append((name, content))
            case.contents[name] = content
            hows.append(f"{name!r} <- {how}")
    elif kind == "zip":
        members: list[tuple[str, bytes]] = []
        for index in range(rng.randint(1, 4)):
            content, how = record_bytes(rng, seeds, number * 10 + index)
            name = f"{index}.brn" if rng.random() < 0.6 else rng.choice(MEMBER_NAMES)
            if any(name == member for member, _ in members):
                name = f"{index}-{name}"
            members.append((name, content))
            hows.append(f"member {name!r} <- {how}")
        data = make_zip(rng, members)
        if rng.random() < 0.3:
            data, damage = mutate_zip(data, rng)
            hows.append(f"zip {damage}")
        zip_name = "records.zip" if rng.random() < 0.8 else rng.choice(("records.ZIP", "records.brn", "r"))
        case.files.append((zip_name, data))
        for name, content in members:
            case.contents[f"{zip_name}/{name}"] = content
        for name, content in case.files:
            case.contents.setdefault(name, content)
    else:
        content, how = record_bytes(rng, seeds, number * 10)
        case.body = content
        case.content_type = "application/x-www-form-urlencoded" if kind == "form" else rng.choice(CONTENT_TYPES)
        case.contents["upload.brn"] = content
        hows.append(f"body ({case.content_type!r}) <- {how}")
    if rng.random() < 0.1:
        case.fields["visibility"] = rng.choice(("public", "private", "unlisted", "shared", "PUBLIC", "", "x\x00"))
    if rng.random() < 0.15 and kind in ("files", "zip"):
        case.fields["label"] = rng.choice(("batch", "", "l\x00", "\u00e9" * 300, "\U0001f0a1"))
    case.how = f"{kind}: " + "; ".join(hows)
    return case


class LogCapture(logging.Handler):
    """Keeps the last error records (a failed job logs its traceback)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(self.format(record))
        del self.records[:-5]


class UploadTarget:
    """The site in this process on a scratch database: created on enter, dropped on exit."""

    def __init__(self, database: str) -> None:
        self.database = database
        self.temp = Path(tempfile.mkdtemp(prefix="fuzz-upload-"))
        self.pg_name = f"buraco_fuzz_{os.getpid()}"
        self.logs = LogCapture()
        self.checker: UploadChecker | None = None

    def __enter__(self) -> UploadTarget:
        if self.database == "postgres":
            reset_database(self.pg_name)
            url = database_url(self.pg_name)
        else:
            url = f"sqlite:///{self.temp / 'fuzz.sqlite3'}"
        # No broker: every job runs inline, before the POST answers, so a case sees its verdicts.
        setup_django(service_env(url, settings={"THROTTLE_UPLOAD": "1000000/min"}, log_level="CRITICAL"))
        from django.contrib.auth.models import User
        from django.core.management import call_command
        from django.test import Client
        from rest_framework.authtoken.models import Token

        for name in ("records", "analysis", "reviews", "django.request", "celery"):
            logger = logging.getLogger(name)
            logger.setLevel(logging.ERROR)
            logger.addHandler(self.logs)
            logger.propagate = False
        call_command("migrate", verbosity=0, interactive=False)
        user = User.objects.create_user("fuzz", password="fuzz-password-123456")
        token, _ = Token.objects.get_or_create(user=user)
        self.checker = UploadChecker(Client(HTTP_AUTHORIZATION=f"Token {token.key}", raise_request_exception=True),
                                     logs=self.logs)
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            from django.db import connections

            connections.close_all()
        finally:
            if self.database == "postgres":
                drop_database(self.pg_name)
            shutil.rmtree(self.temp, ignore_errors=True)



def client_post(client: Any, case: UploadCase) -> Any:
    """POST the case to /api/matches/ with a Django (or DRF) test client."""
    if case.body is not None:
        return client.generic("POST", "/api/matches/", case.body, content_type=case.content_type)
    payload: dict[str, Any] = dict(case.fields)
    handles = []
    for name, content in case.files:
        handle = io.BytesIO(content)
        handle.name = name
        handles.append(handle)
    payload["files"] = handles
    return client.post("/api/matches/", payload, format="multipart") if hasattr(client, "force_authenticate") \
        else client.post("/api/matches/", payload)


class UploadChecker:
    """Sends upload cases with a logged-in test client and judges the answers and the tables.

    ``post`` sends one case (default: :func:`client_post`); the service tests pass one that
    runs the on-commit callbacks their transaction holds back."""

    def __init__(self, client: Any, post: Callable[[UploadCase], Any] | None = None,
                 logs: LogCapture | None = None) -> None:
        self.client = client
        self.post = post or (lambda case: client_post(client, case))
        self.logs = logs or LogCapture()

    def counts(self) -> dict[str, int]:
        from analysis.models import Finding as Analysed
        from records.models import Batch, Hand, Job, Match
        from reviews.models import Comment, Review

        return {"matches": Match.objects.count(), "hands": Hand.objects.count(), "batches": Batch.objects.count(),
                "jobs": Job.objects.count(), "failed jobs": Job.objects.filter(status=Job.Status.FAILED).count(),
                "reviews": Review.objects.count(), "comments": Comment.objects.count(),
                "analysis findings": Analysed.objects.count()}

    def check(self, case: UploadCase) -> Verdict:
        """One upload case: see the module's docstring."""
        before = self.counts()
        self.logs.records.clear()
        try:
            response = self.post(case)
        except BaseException as error:  # noqa: BLE001 - the view raised: a 500 for a real client
            if isinstance(error, CaseTimeout):
                raise
            return crash("POST /api/matches/", error)
        after = self.counts()
        status = response.status_code
        if status >= 500:
            return Verdict(f"{status}", f"answered {status}", f"upload: {status}", response.content[:3000].decode("utf-8", "replace"))
        try:
            body = json.loads(response.content)
        except ValueError:
            return Verdict(f"{status} not JSON", "an answer that is not JSON", f"upload: {status} not JSON",
                           response.content[:2000].decode("utf-8", "replace"))
        if status == 400:
            if after != before:
                changed = {k: (before[k], after[k]) for k in before if before[k] != after[k]}
                return Verdict("400", "a 400 that stored something", "upload: half-stored after a 400",
                               f"{changed}\n{json.dumps(body)[:2000]}")
            return self._check_400(case, body)
        if status == 202:
            return self._check_202(before, after, body)
        if status == 415 and after == before and isinstance(body, dict) and body.get("message"):
            return Verdict("415 content type refused")  # a body the upload does not read, said and stored nowhere
        return Verdict(f"{status}", f"answered {status}", f"upload: {status}", json.dumps(body)[:2000])

    def _check_400(self, case: UploadCase, body: dict[str, Any]) -> Verdict:
        if not isinstance(body, dict) or not body.get("message"):
            return Verdict("400", "a 400 without a message", "upload: 400 without a message", json.dumps(body)[:2000])
        errors = body.get("errors")
        if errors is None:
            return Verdict("400 request refused", family=family(str(body["message"])))
        kinds = set()
        for error in errors:
            message, name = str(error.get("message") or ""), error.get("file")
            line, column, hand, ply = error.get("line"), error.get("column"), error.get("hand"), error.get("ply")
            if not message:
                return Verdict("400", "an error without a message", "upload: error without a message", json.dumps(error))
            if name is None:
                if not message.startswith(REQUEST_LEVEL):
                    return Verdict("400", "an error naming no file", f"upload: no file: {family(message)}", json.dumps(error))
                kinds.add("400 nothing to read")
                continue
            if line is not None and column is not None:
                content = case.contents.get(name)
                if content is not None:
                    problem = position_problem(NotationError(message, line=line, column=column), text_of(content))
                    if problem:
                        return Verdict("400", problem, f"upload: {problem}", json.dumps(error)[:2000])
                kinds.add("400 file, line and column")
            elif hand is not None and ply is not None:
                kinds.add("400 file, hand and ply")
            elif message.startswith(FILE_LEVEL):
                kinds.add("400 file and limit or zip problem")
            else:
                return Verdict("400", "an error without a position", f"upload: no position: {family(message)}",
                               json.dumps(error)[:2000])
        return Verdict(" + ".join(sorted(kinds)) or "400 no errors listed", family=family(str(errors[0].get("message"))) if errors else "")

    def _check_202(self, before: dict[str, int], after: dict[str, int], body: dict[str, Any]) -> Verdict:
        from records.models import Hand, Job, Match

        items = [body] if "id" in body else body.get("matches", [])
        new = [item["id"] for item in items if not item["duplicate"]]
        hand_count = sum(Match.objects.filter(pk__in=new).values_list("hand_count", flat=True))
        stored = Hand.objects.filter(match_id__in=new).count()
        if after["matches"] - before["matches"] != len(new) or stored != hand_count or \
                after["hands"] - before["hands"] != hand_count:
            return Verdict("202", "a 202 whose matches are not all stored", "upload: 202 not all stored",
                           f"{before} -> {after}; new {new}, {stored} of {hand_count} hands")
        if after["failed jobs"] != before["failed jobs"]:
            failed = list(Job.objects.filter(match_id__in=new, status=Job.Status.FAILED).values_list("kind", "error"))
            logs = "\n".join(self.logs.records)
            kind = failed[0][0] if failed else "?"
            reason = str((failed[0][1] or {}).get("message", "")) if failed else ""
            # The exception's type and the start of its message: one signature per cause.
            return Verdict("202 job failed", f"a {kind} job failed", f"upload: {kind} job failed: {family(reason)[:50]}",
                           f"{failed}\n{logs}")
        statuses = Counter(item["status"] for item in items if not item["duplicate"])
        for match_id in new[:1]:
            for path in (f"/api/matches/{match_id}/", f"/api/matches/{match_id}/brn/",
                         f"/api/matches/{match_id}/hands/1/timeline/"):
                try:
                    response = self.client.get(path)
                except BaseException as error:  # noqa: BLE001
                    if isinstance(error, CaseTimeout):
                        raise
                    return crash(f"GET {path.replace(str(match_id), '<id>')}", error)
                if response.status_code >= 500 or response.status_code not in (200, 409):
                    return Verdict("202", f"reading it back answered {response.status_code}",
                                   f"read back: {path.replace(str(match_id), '<id>')} {response.status_code}",
                                   response.content[:2000].decode("utf-8", "replace"))
        if not new:
            return Verdict("202 duplicates only")
        return Verdict("202 stored: " + ", ".join(f"{k}" for k in sorted(statuses)))


def run_upload(cases: int, seed: int, seeds: Sequence[Seed], findings_dir: Path, database: str,
               progress: float = 30.0) -> Tally:
    """Target B, seeded: ``cases`` POSTs made by make_upload_case."""
    rng = random.Random(seed + 1)
    tally = Tally("upload", findings_dir)
    tally.extra["database"] = database
    started = time.perf_counter()
    with UploadTarget(database) as target:
        checker = target.checker
        assert checker is not None
        setup = time.perf_counter() - started
        started = last = time.perf_counter()
        for number in range(cases):
            case = make_upload_case(rng, seeds, number)
            start = time.perf_counter()
            try:
                with time_limit(HARD_TIMEOUT * 3):
                    verdict = checker.check(case)
            except CaseTimeout as error:
                verdict = crash("upload", error)
            elapsed = time.perf_counter() - start
            if verdict.problem is None and elapsed > UPLOAD_SLOW_SECONDS:
                verdict = Verdict(verdict.outcome, f"one upload took {elapsed:.1f} s",
                                  f"slow upload: {verdict.outcome}", f"{elapsed:.2f} s")
            inputs = case.files or [("body", case.body or b"")]
            meta = f"kind: {case.kind}\ncontent type: {case.content_type!r}\nfields: {case.fields!r}"
            tally.add(verdict, elapsed, f"case {number}: {case.how}", inputs, meta)
            now = time.perf_counter()
            if now - last > progress:
                last = now
                print(f"  upload: {number + 1} cases, {(number + 1) / (now - started):.1f}/s, "
                      f"{sum(f.count for f in tally.findings.values())} findings", file=sys.stderr, flush=True)
        tally.extra["wall"] = time.perf_counter() - started
        tally.extra["setup"] = setup
        tally.extra["stored"] = checker.counts()
    return tally


# --- the report -----------------------------------------------------------------------


def machine() -> str:
    return f"{cpu_model()}, {os.cpu_count()} cores (shared), Python {platform.python_version()}, {platform.system()}"


def print_report(tally: Tally, seed: int, command: str) -> None:
    wall = float(tally.extra.get("wall", tally.seconds))
    rate = tally.cases / wall if wall else 0.0
    title = {"reader": "Reader (target A): loads + verify + dumps",
             "reader-atheris": "Reader (target A), coverage-guided with atheris",
             "upload": "Upload path (target B): POST /api/matches/ in process"}[tally.target]
    print(f"\n### {title}\n")
    print(f"`{command}` (seed {seed}) on {machine()}"
          + (f"; database {tally.extra['database']}, set up in {tally.extra['setup']:.1f} s" if "database" in tally.extra else "")
          + ".\n")
    print(f"| cases | time | cases/s | slowest case ({'wall' if tally.target == 'upload' else 'CPU'}) | findings (distinct) |")
    print("|--:|--:|--:|--:|--:|")
    found = sum(f.count for f in tally.findings.values())
    print(f"| {tally.cases:,} | {wall:.0f} s | {rate:,.1f} | {tally.slowest:.2f} s | {found} ({len(tally.findings)}) |\n")
    print("| outcome | cases | share |")
    print("|---|--:|--:|")
    for outcome, count in tally.outcomes.most_common():
        print(f"| {outcome} | {count:,} | {100 * count / max(1, tally.cases):.1f}% |")
    if tally.families:
        print("\nMost frequent errors (quoted parts and numbers left out):\n")
        print("| error | cases |")
        print("|---|--:|")
        for name, count in tally.families.most_common(12):
            print(f"| {name.replace('|', '/')} | {count:,} |")
    if "stored" in tally.extra:
        stored = ", ".join(f"{v:,} {k}" for k, v in tally.extra["stored"].items())
        print(f"\nStored at the end: {stored}.")
    print("\nFindings:" if tally.findings else "\nFindings: none.")
    for finding in sorted(tally.findings.values(), key=lambda f: -f.count):
        print(f"\n- `{finding.signature}` ({finding.count} cases): {finding.problem}; first made by "
              f"{finding.first_how[:300]!r}; saved as {', '.join(str(p) for p in finding.saved[:2])}")
        print(_indent(finding.first_detail.strip()[-1500:]))


def replay(path: Path) -> int:
    """Run one saved reader input again and print what it gives."""
    data = path.read_bytes()
    meta = path.with_suffix(".txt").read_text(encoding="utf-8") if path.with_suffix(".txt").exists() else ""
    format = None
    match = re.search(r"^format: (\w+)$", meta, re.M)
    if match and match.group(1) != "None":
        format = match.group(1)
    case_input: Input = data.decode("utf-8", "surrogatepass") if "input: text" in meta else data
    verdict, elapsed = run_reader_case(Case(case_input, format, str(path)), SLOW_SECONDS)
    print(f"{path}: {verdict.outcome} in {elapsed:.3f} s")
    if verdict.problem:
        print(f"FINDING {verdict.signature}: {verdict.problem}\n{verdict.detail}")
        return 1
    return 0


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(f"stopped by signal {signum}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None,
                                     epilog="See the module docstring (bench/fuzz.py) for what passes and what is a finding.")
    parser.add_argument("--cases", type=int, default=100_000, help="reader (target A) cases (default 100000; 0: none)")
    parser.add_argument("--upload-cases", type=int, default=0, help="upload-path (target B) cases (default 0: none)")
    parser.add_argument("--seed", type=int, default=1, help="the run's seed: the same seed makes the same cases")
    parser.add_argument("--atheris", action="store_true", help="fuzz target A coverage-guided with atheris instead")
    parser.add_argument("--database", choices=("postgres", "sqlite", "auto"), default="auto",
                        help="target B's scratch database (auto: PostgreSQL if it answers on 127.0.0.1:5432)")
    parser.add_argument("--findings", type=Path, default=FINDINGS_DIR, help="where findings are saved")
    parser.add_argument("--slow", type=float, default=SLOW_SECONDS, help="a reader case slower than this is a finding")
    parser.add_argument("--corpus-seeds", type=int, default=2, help="self-play seeds per rule set and player count")
    parser.add_argument("--replay", type=Path, help="run one saved reader input (.input) again and exit")
    args = parser.parse_args(argv)
    if args.replay:
        return replay(args.replay)
    signal.signal(signal.SIGTERM, _terminate)  # a killed run still drops its scratch database
    command = "python bench/fuzz.py " + " ".join(argv if argv is not None else sys.argv[1:])
    started = time.perf_counter()
    seeds = build_corpus(args.corpus_seeds)
    print(f"corpus: {len(seeds)} records in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    if args.atheris:
        run_atheris(args.cases, args.seed, seeds, args.findings, args.slow,
                    lambda tally: print_report(tally, args.seed, command))
        return 0  # not reached: run_atheris exits
    print("## Fuzz run (bench/fuzz.py)")
    print(f"\nCorpus: {len(seeds)} records (self-play of the nine rule sets in every player count, and "
          "docs/examples, each as TOML and as JSON).")
    found = 0
    if args.cases:
        tally = run_reader(args.cases, args.seed, seeds, args.findings, args.slow)
        print_report(tally, args.seed, command)
        found += len(tally.findings)
    if args.upload_cases:
        database = args.database
        if database == "auto":
            database = "postgres" if postgres_answers() else "sqlite"
        tally = run_upload(args.upload_cases, args.seed, seeds, args.findings, database)
        print_report(tally, args.seed, command)
        found += len(tally.findings)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

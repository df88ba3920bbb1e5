"""Tests for buraco.locate: source positions of TOML/JSON keys and values.

Hand-checked positions are written as (line, column), both 1-based.
"""

from __future__ import annotations

import json
import random
import re
import sys
import tomllib
from pathlib import Path as FsPath
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

try:
    import buraco  # noqa: F401
except ImportError:  # run from a checkout without an installed package
    sys.path.insert(0, str(FsPath(__file__).resolve().parents[2]))

from buraco.locate import (
    KEY,
    Path,
    Position,
    locate_json,
    locate_toml,
    position_in_string,
)

# --------------------------------------------------------------------------- helpers


def index_of(text: str, pos: Position) -> int:
    starts = [0] + [n + 1 for n, c in enumerate(text) if c == "\n"]
    return starts[pos.line - 1] + pos.column - 1


def at(text: str, pos: Position, length: int) -> str:
    """The `length` characters of `text` starting at `pos`."""
    i = index_of(text, pos)
    return text[i : i + length]


def p(line: int, column: int) -> Position:
    return Position(line, column)


# --------------------------------------------------------------------------- TOML

RECORD = """\
# Buraco record
title = "Friday game"
dealer = 9

[rules]
"deck count" = 2
variant.name = 'classic'

[[hands]]
actions = [
  "draw",  # first
    # only a comment line
  "meld 7h 8h 9h",
  'discard 2c',
]
result = { winner = "north", scores = [120, -35] }

[[hands]]
note = \"\"\"
long text
here\"\"\"
actions = ["draw"]

[[hands.notes]]
text = "x\\"y"
when = 1979-05-27 07:32:00Z
after = true
"""


def test_it_record_is_valid_toml() -> None:
    data = tomllib.loads(RECORD)
    assert data["hands"][1]["notes"][0]["text"] == 'x"y'
    assert data["hands"][0]["result"]["scores"] == [120, -35]


def test_it_locates_top_level_string_and_number() -> None:
    found = locate_toml(RECORD)
    assert found[("title",)] == p(2, 10)
    assert found[("title", KEY)] == p(2, 1)
    assert found[("dealer",)] == p(3, 10)
    assert found[("dealer", KEY)] == p(3, 1)


def test_it_locates_table_header_and_quoted_key() -> None:
    found = locate_toml(RECORD)
    assert found[("rules",)] == p(5, 1)
    assert found[("rules", KEY)] == p(5, 2)
    assert found[("rules", "deck count", KEY)] == p(6, 1)
    assert found[("rules", "deck count")] == p(6, 16)


def test_it_locates_dotted_key_and_literal_string() -> None:
    found = locate_toml(RECORD)
    assert found[("rules", "variant", KEY)] == p(7, 1)
    assert found[("rules", "variant", "name", KEY)] == p(7, 9)
    assert found[("rules", "variant", "name")] == p(7, 17)
    assert at(RECORD, found[("rules", "variant", "name")], 7) == "classic"


def test_it_locates_multiline_actions_array_with_comments_and_trailing_comma() -> None:
    found = locate_toml(RECORD)
    assert found[("hands", 0, "actions", KEY)] == p(10, 1)
    assert found[("hands", 0, "actions")] == p(10, 11)
    assert found[("hands", 0, "actions", 0)] == p(11, 4)
    assert found[("hands", 0, "actions", 1)] == p(13, 4)
    assert found[("hands", 0, "actions", 2)] == p(14, 4)  # literal string
    assert ("hands", 0, "actions", 3) not in found


def test_it_counts_array_of_tables() -> None:
    found = locate_toml(RECORD)
    assert found[("hands",)] == p(9, 1)  # the first [[hands]]
    assert found[("hands", KEY)] == p(9, 3)
    assert found[("hands", 0)] == p(9, 1)
    assert found[("hands", 0, KEY)] == p(9, 3)
    assert found[("hands", 1)] == p(18, 1)
    assert found[("hands", 1, KEY)] == p(18, 3)
    assert found[("hands", 1, "actions")] == p(22, 11)
    assert found[("hands", 1, "actions", 0)] == p(22, 13)
    assert ("hands", 2) not in found


def test_it_locates_inline_table_result() -> None:
    found = locate_toml(RECORD)
    assert found[("hands", 0, "result")] == p(16, 10)
    assert found[("hands", 0, "result", "winner", KEY)] == p(16, 12)
    assert found[("hands", 0, "result", "winner")] == p(16, 22)
    assert found[("hands", 0, "result", "scores", KEY)] == p(16, 30)
    assert found[("hands", 0, "result", "scores")] == p(16, 39)
    assert found[("hands", 0, "result", "scores", 0)] == p(16, 40)
    assert found[("hands", 0, "result", "scores", 1)] == p(16, 45)


def test_it_starts_multiline_basic_string_after_trimmed_newline() -> None:
    found = locate_toml(RECORD)
    assert found[("hands", 1, "note", KEY)] == p(19, 1)
    assert found[("hands", 1, "note")] == p(20, 1)


def test_it_nests_array_of_tables_under_last_element() -> None:
    found = locate_toml(RECORD)
    assert found[("hands", 1, "notes")] == p(24, 1)
    assert found[("hands", 1, "notes", KEY)] == p(24, 9)
    assert found[("hands", 1, "notes", 0)] == p(24, 1)
    assert found[("hands", 1, "notes", 0, "text")] == p(25, 9)  # escaped string
    assert found[("hands", 1, "notes", 0, "when")] == p(26, 8)  # date-time with a space
    assert found[("hands", 1, "notes", 0, "after")] == p(27, 9)
    assert ("hands", "notes") not in found


def test_it_locates_multiline_literal_string_and_crlf() -> None:
    text = "a = '''\r\nraw \\n text'''\r\nb = '''same line'''\r\nc = \"\"\"\"\"\"\r\nd = 1\r\n"
    assert tomllib.loads(text)["b"] == "same line"
    found = locate_toml(text)
    assert found[("a",)] == p(2, 1)
    assert found[("b",)] == p(3, 8)
    assert found[("c",)] == p(4, 8)
    assert found[("d",)] == p(5, 5)


def test_it_resolves_table_under_array_of_tables_and_escaped_keys() -> None:
    text = '[[hands]]\n[[hands]]\n[hands.result]\n"\\u00e9t\\u00e9" = 1\n[ "x y" . z ]\n'
    found = locate_toml(text)
    assert found[("hands", 1, "result")] == p(3, 1)
    assert found[("hands", 1, "result", KEY)] == p(3, 8)
    assert found[("hands", 1, "result", "été")] == p(4, 19)
    assert found[("x y", KEY)] == p(5, 3)
    assert found[("x y", "z", KEY)] == p(5, 11)


def test_it_keeps_what_it_found_before_bad_input() -> None:
    text = 'a = "ok"\nb = [1, 2\nc = 3\n'
    found = locate_toml(text)
    assert found[("a",)] == p(1, 6)
    assert found[("b", 1)] == p(2, 9)
    assert ("c",) not in found


# --------------------------------------------------------------------------- JSON

JSON_DOC = """\
{
  "hands": [
    {"actions": ["draw", "meld 7h\\u00e9 8h"], "n": [[1, 2], [3]]},
    {"a\\"b": null}
  ],
  "dealer": 2
}
"""


def test_it_locates_json_with_nested_arrays() -> None:
    assert json.loads(JSON_DOC)["hands"][1] == {'a"b': None}
    found = locate_json(JSON_DOC)
    assert found[()] == p(1, 1)
    assert found[("hands", KEY)] == p(2, 3)
    assert found[("hands",)] == p(2, 12)
    assert found[("hands", 0)] == p(3, 5)
    assert found[("hands", 0, "actions", KEY)] == p(3, 6)
    assert found[("hands", 0, "actions")] == p(3, 17)
    assert found[("hands", 0, "actions", 0)] == p(3, 19)
    assert found[("hands", 0, "actions", 1)] == p(3, 27)
    assert found[("hands", 0, "n", KEY)] == p(3, 47)
    assert found[("hands", 0, "n")] == p(3, 52)
    assert found[("hands", 0, "n", 0)] == p(3, 53)
    assert found[("hands", 0, "n", 0, 0)] == p(3, 54)
    assert found[("hands", 0, "n", 0, 1)] == p(3, 57)
    assert found[("hands", 0, "n", 1)] == p(3, 61)
    assert found[("hands", 0, "n", 1, 0)] == p(3, 62)
    assert found[("hands", 1)] == p(4, 5)
    assert found[("hands", 1, 'a"b', KEY)] == p(4, 6)
    assert found[("hands", 1, 'a"b')] == p(4, 14)
    assert found[("dealer", KEY)] == p(6, 3)
    assert found[("dealer",)] == p(6, 13)


# --------------------------------------------------------------------------- position_in_string


def test_it_points_inside_a_string() -> None:
    found = locate_toml(RECORD)
    meld = found[("hands", 0, "actions", 1)]
    assert position_in_string(RECORD, meld, 5) == p(13, 9)
    assert at(RECORD, position_in_string(RECORD, meld, 5), 2) == "7h"
    assert position_in_string(RECORD, meld, 0) == meld
    # clamped to the content: at most the closing quote
    assert position_in_string(RECORD, found[("hands", 0, "actions", 0)], 99) == p(11, 8)


def test_it_points_inside_literal_string_with_backslash() -> None:
    text = "path = 'C:\\dir x'\n"
    start = locate_toml(text)[("path",)]
    assert start == p(1, 9)
    assert position_in_string(text, start, 7) == p(1, 16)
    assert at(text, p(1, 16), 1) == "x"


def test_it_returns_start_for_string_with_escapes_or_bad_start() -> None:
    found = locate_toml(RECORD)
    escaped = found[("hands", 1, "notes", 0, "text")]
    assert position_in_string(RECORD, escaped, 2) == escaped
    json_start = locate_json(JSON_DOC)[("hands", 0, "actions", 1)]
    assert position_in_string(JSON_DOC, json_start, 5) == json_start
    assert position_in_string("", p(3, 4), 1) == p(3, 4)
    assert position_in_string("ab", p(1, 9), 1) == p(1, 9)


# --------------------------------------------------------------------------- property tests

TEXT = st.text(
    alphabet=st.one_of(
        st.sampled_from(list("ab 7h'\"\\\t\n#=[]{},.")), st.characters(exclude_categories=["Cs"])
    ),
    max_size=8,
)
KEYS = st.text(alphabet=st.sampled_from(list("ab_-1 .\"'é\\\t")), max_size=4)
LEAVES = st.one_of(TEXT, st.integers(-1000, 1000), st.booleans())
VALUES = st.recursive(
    LEAVES,
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(KEYS, kids, max_size=3),
    max_leaves=12,
)
BARE = re.compile(r"[A-Za-z0-9_-]+")


def is_control(c: str) -> bool:
    return c < " " or c == "\x7f"


class TomlWriter:
    """Serialise data as TOML, noting for each path the text expected at its position."""

    def __init__(self, rnd: random.Random) -> None:
        self.rnd = rnd
        self.lines: list[str] = []
        self.expect: dict[Path, str] = {}

    def text(self) -> str:
        return "".join(line + "\n" for line in self.lines)

    def spell(self, name: str) -> str:
        return name if BARE.fullmatch(name) else '"' + self.escape(name, "") + '"'

    def key(self, path: Path) -> str:
        spelled = self.spell(str(path[-1]))
        self.expect.setdefault(path + (KEY,), spelled)
        return spelled

    @staticmethod
    def escape(s: str, raw_ok: str) -> str:
        out = []
        for c in s:
            if c in '"\\':
                out.append("\\" + c)
            elif is_control(c) and c not in raw_ok:
                out.append(f"\\u{ord(c):04X}")
            else:
                out.append(c)
        return "".join(out)

    def string(self, s: str, path: Path, oneline: bool) -> str:
        plain = "'" not in s and not any(is_control(c) and c not in "\t\n" for c in s)
        styles = ["basic"]
        if plain and "\n" not in s:
            styles.append("literal")
        if not oneline:
            styles.append("ml_basic")
            if plain:
                styles.append("ml_literal")
        style = self.rnd.choice(styles)
        raw = (
            s
            if style in ("literal", "ml_literal")
            else self.escape(s, "\t\n" if style == "ml_basic" else "")
        )
        self.expect[path] = raw
        return {
            "basic": '"{}"',
            "literal": "'{}'",
            "ml_basic": '"""\n{}"""',
            "ml_literal": "'''\n{}'''",
        }[style].format(raw)

    def value(self, v: Any, path: Path, oneline: bool = False) -> str:
        if isinstance(v, bool):
            self.expect[path] = "true" if v else "false"
            return self.expect[path]
        if isinstance(v, int):
            self.expect[path] = str(v)
            return str(v)
        if isinstance(v, str):
            return self.string(v, path, oneline)
        if isinstance(v, dict):
            self.expect[path] = "{"
            pairs = [
                f"{self.key(path + (k,))} = {self.value(x, path + (k,), True)}"
                for k, x in v.items()
            ]
            return "{ " + ", ".join(pairs) + " }" if pairs else "{}"
        self.expect[path] = "["
        items = [self.value(x, path + (n,), oneline) for n, x in enumerate(v)]
        if oneline or self.rnd.random() < 0.5:
            return "[" + ", ".join(items) + "]"
        return (
            "[\n"
            + "".join(f"  {item},  # c{n}\n    # just a comment\n" for n, item in enumerate(items))
            + "]"
        )

    def table(self, path: Path, names: tuple[str, ...], d: dict[str, Any]) -> None:
        later: list[tuple[str, Any, bool]] = []
        for k, v in d.items():
            if isinstance(v, dict) and self.rnd.random() < 0.5:
                later.append((k, v, False))
            elif (
                isinstance(v, list)
                and v
                and all(isinstance(x, dict) for x in v)
                and self.rnd.random() < 0.7
            ):
                later.append((k, v, True))
            else:
                line = f"{self.key(path + (k,))} = {self.value(v, path + (k,))}"
                self.lines.append(line + (" # comment" if self.rnd.random() < 0.3 else ""))
        for k, v, is_array in later:
            spelled = [self.spell(name) for name in names + (k,)]
            self.key(path + (k,))
            if is_array:
                self.expect.setdefault(path + (k,), "[[")
                for n, item in enumerate(v):
                    self.lines.append("[[" + ".".join(spelled) + "]]")
                    self.expect[path + (k, n)] = "[["
                    self.expect[path + (k, n, KEY)] = spelled[-1]
                    self.table(path + (k, n), names + (k,), item)
            else:
                self.lines.append("[" + ".".join(spelled) + "]")
                self.expect[path + (k,)] = "["
                self.table(path + (k,), names + (k,), v)


def write_json(data: Any, rnd: random.Random) -> tuple[str, dict[Path, str]]:
    expect: dict[Path, str] = {}

    def ws() -> str:
        return rnd.choice(["", " ", "\n  ", "\t", " \n"])

    def string(s: str) -> str:
        return json.dumps(s, ensure_ascii=rnd.random() < 0.5)

    def value(v: Any, path: Path) -> str:
        if isinstance(v, dict):
            expect[path] = "{"
            members = []
            for k, x in v.items():
                expect[path + (k, KEY)] = string(k)
                members.append(
                    ws() + expect[path + (k, KEY)] + ws() + ":" + ws() + value(x, path + (k,))
                )
            return "{" + ",".join(members) + ws() + "}"
        if isinstance(v, list):
            expect[path] = "["
            return (
                "[" + ",".join(ws() + value(x, path + (n,)) for n, x in enumerate(v)) + ws() + "]"
            )
        if isinstance(v, str):
            encoded = string(v)
            expect[path] = encoded[1:-1]
            return encoded
        expect[path] = json.dumps(v)
        return expect[path]

    return ws() + value(data, ()) + ws(), expect


def check_positions(text: str, found: dict[Path, Position], expect: dict[Path, str]) -> None:
    assert set(found) == set(expect)
    for path, pos in found.items():
        assert at(text, pos, len(expect[path])) == expect[path], path


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(KEYS, VALUES, max_size=4), st.randoms(use_true_random=False))
def test_it_locates_every_value_of_generated_toml(data: dict[str, Any], rnd: random.Random) -> None:
    writer = TomlWriter(rnd)
    writer.table((), (), data)
    text = writer.text()
    assert tomllib.loads(text) == data, text
    found = locate_toml(text)
    check_positions(text, found, writer.expect)
    for path, raw in writer.expect.items():  # strings without escapes: content itself
        value: Any = data
        for part in path if path[-1] != KEY else ():
            value = value[part]
        if isinstance(value, str) and "\\" not in raw:
            assert at(text, found[path], len(value)) == value


@settings(max_examples=300, deadline=None)
@given(VALUES, st.randoms(use_true_random=False))
def test_it_locates_every_value_of_generated_json(data: Any, rnd: random.Random) -> None:
    text, expect = write_json(data, rnd)
    assert json.loads(text) == data
    check_positions(text, locate_json(text), expect)


def in_bounds(text: str, found: dict[Path, Position]) -> bool:
    lines = text.split("\n")
    return all(
        1 <= q.line <= len(lines) and 1 <= q.column <= len(lines[q.line - 1]) + 1
        for q in found.values()
    )


GARBAGE = st.one_of(
    st.text(),
    st.text(alphabet=st.sampled_from(list("[]{}\"'=.,#:\n\r\t \\abc123-uU+e")), max_size=60),
)


@settings(max_examples=500, deadline=None)
@given(GARBAGE, st.integers(1, 5), st.integers(-3, 30), st.integers(-5, 50))
def test_it_never_raises_on_garbage(text: str, line: int, column: int, offset: int) -> None:
    assert in_bounds(text, locate_toml(text))
    assert in_bounds(text, locate_json(text))
    position_in_string(text, Position(line, column), offset)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(KEYS, VALUES, max_size=4), st.randoms(use_true_random=False), st.data())
def test_it_never_raises_on_truncated_documents(
    data: dict[str, Any], rnd: random.Random, draw: st.DataObject
) -> None:
    writer = TomlWriter(rnd)
    writer.table((), (), data)
    toml_text = writer.text()
    json_text = write_json(data, rnd)[0]
    toml_cut = toml_text[: draw.draw(st.integers(0, len(toml_text)))]
    json_cut = json_text[: draw.draw(st.integers(0, len(json_text)))]
    assert in_bounds(toml_cut, locate_toml(toml_cut))
    assert in_bounds(json_cut, locate_json(json_cut))


def test_it_survives_deep_nesting() -> None:
    assert locate_toml("a = " + "[" * 5000)[("a", 0, 0)] == p(1, 7)
    assert locate_json("[" * 5000 + "]" * 5000)[(0,)] == p(1, 2)
    assert locate_json('{"a": ' * 3000)[("a", KEY)] == p(1, 2)

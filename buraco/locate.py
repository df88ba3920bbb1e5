"""Map the values and keys of a TOML or JSON document to source positions.

``tomllib`` and ``json`` give no positions, so when a parsed record turns out
to be wrong this module rescans the source text (error path only) and returns a
``{path: Position}`` mapping.  A path names a value the way the parsed data
would be indexed: ``hands[2].actions[5]`` is ``("hands", 2, "actions", 5)``.

What is recorded:

* every value, under its own path: strings at the first character of their
  content (just after the opening quote(s); for multi-line strings whose
  opening delimiter is followed by a newline, at the start of the next line),
  every other scalar at its first character, arrays and inline tables/objects
  at their opening bracket, ``[table]`` and ``[[array]]`` headers at their
  first ``[``;
* every key, under ``path_of_its_value + ("<key>",)``, at the key's first
  character (for a quoted key, its opening quote).  A key repeated across
  table headers or dotted keys (``[a.b]`` then ``[a.c]``) keeps its first
  position.  For ``[[hands]]`` both ``("hands", "<key>")`` (first header) and
  ``("hands", i, "<key>")`` (the header of element ``i``) are recorded.

The scanners are tolerant: they never raise on malformed input; they stop at
the first thing they cannot understand and return what was found so far.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["KEY", "Path", "Position", "locate_json", "locate_toml", "position_in_string"]

Path = tuple[str | int, ...]
KEY = "<key>"
"""Trailing path marker under which the position of a key is recorded."""


@dataclass(frozen=True)
class Position:
    line: int  # 1-based
    column: int  # 1-based, in characters (code points)


_MAX_DEPTH = 200
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_TOML_SCALAR = re.compile(r"[A-Za-z0-9_+\-.:]+")
_JSON_SCALAR = re.compile(r"[A-Za-z0-9_+\-.]+")
_DATE_ONLY = re.compile(r"\d{4}-\d{2}-\d{2}")
_SPACE_TIME = re.compile(r" \d{2}:[0-9:.Zz+-]*")  # "1979-05-27 07:32:00Z"
_ESCAPES = {
    "b": "\b",
    "t": "\t",
    "n": "\n",
    "f": "\f",
    "r": "\r",
    "e": "\x1b",
    '"': '"',
    "\\": "\\",
}
_HEX_LENGTHS = {"x": 2, "u": 4, "U": 8}


_Item = Callable[[int], None]  # parses the n-th item of a sequence


class _Stop(Exception):
    """Raised internally on input the scanner does not understand."""


class _Scanner:
    """Cursor over the source text that records positions as it goes."""

    def __init__(self, text: str, until: Path | None = None) -> None:
        self.text = text
        self.until = until  # stop once this path is recorded
        self.i = 0
        self.found: dict[Path, Position] = {}
        self.line_starts = [0] + [n + 1 for n, c in enumerate(text) if c == "\n"]
        self.aot_counts: dict[Path, int] = {}  # resolved [[array]] path -> last index

    # ----------------------------------------------------------- basics
    def peek(self) -> str:
        return self.text[self.i] if self.i < len(self.text) else ""

    def expect(self, char: str) -> None:
        if self.peek() != char:
            raise _Stop
        self.i += 1

    def position(self, index: int) -> Position:
        line = bisect_right(self.line_starts, index) - 1
        return Position(line + 1, index - self.line_starts[line] + 1)

    def mark(self, path: Path, index: int, keep_first: bool = False) -> None:
        if not (keep_first and path in self.found):
            self.found[path] = self.position(index)
            if path == self.until:
                raise _Stop

    def skip(self, newlines: bool, comments: bool = True) -> None:
        """Skip spaces/tabs, plus (optionally) comments and line breaks."""
        while True:
            c = self.peek()
            if c in (" ", "\t") or (newlines and c in ("\n", "\r")):
                self.i += 1
            elif c == "#" and comments:
                while self.peek() not in ("", "\n"):
                    self.i += 1
            else:
                return

    # ------------------------------------------------------------- TOML
    def toml_document(self) -> None:
        table: Path = ()
        while True:
            self.skip(newlines=True)
            if self.peek() == "":
                return
            if self.peek() == "[":
                table = self.toml_header()
            else:
                self.toml_keyval(table, 0)
            self.skip(newlines=False)
            if self.peek() not in ("", "\n", "\r"):
                raise _Stop

    def toml_header(self) -> Path:
        start = self.i
        is_array = self.text.startswith("[[", self.i)
        self.i += 2 if is_array else 1
        parts = self.toml_key()
        self.skip(newlines=False, comments=False)
        self.expect("]")
        if is_array:
            self.expect("]")
        path: Path = ()
        for n, (name, key_at) in enumerate(parts):
            path += (name,)
            self.mark(path + (KEY,), key_at, keep_first=True)
            if n < len(parts) - 1:
                if path in self.aot_counts:  # [a.b] with a = [[a]]: last element
                    path += (self.aot_counts[path],)
            elif is_array:
                index = self.aot_counts.get(path, -1) + 1
                self.aot_counts[path] = index
                self.mark(path, start, keep_first=True)
                path += (index,)
                self.mark(path + (KEY,), key_at)
        self.mark(path, start)
        return path

    def toml_key(self) -> list[tuple[str, int]]:
        """A possibly dotted key, as (name, index of its first character) parts."""
        parts: list[tuple[str, int]] = []
        while True:
            self.skip(newlines=False, comments=False)
            start = self.i
            if self.peek() in ('"', "'"):
                name = self.toml_string(multiline=False)[1]
            else:
                match = _BARE_KEY.match(self.text, self.i)
                if match is None:
                    raise _Stop
                name, self.i = match.group(), match.end()
            parts.append((name, start))
            self.skip(newlines=False, comments=False)
            if self.peek() != ".":
                return parts
            self.i += 1

    def toml_keyval(self, table: Path, depth: int) -> None:
        parts = self.toml_key()
        path = table
        for n, (name, key_at) in enumerate(parts):
            path += (name,)
            self.mark(path + (KEY,), key_at, keep_first=n < len(parts) - 1)
        self.expect("=")
        self.skip(newlines=False, comments=False)
        self.toml_value(path, depth)

    def toml_value(self, path: Path, depth: int) -> None:
        if depth > _MAX_DEPTH:
            raise _Stop
        start, c = self.i, self.peek()
        if c in ('"', "'"):
            self.mark(path, self.toml_string(multiline=True)[0])
        elif c == "[":
            self.mark(path, start)
            self.i += 1
            self.sequence("]", lambda n: self.toml_value(path + (n,), depth + 1))
        elif c == "{":
            self.mark(path, start)
            self.i += 1
            self.sequence("}", lambda n: self.toml_keyval(path, depth + 1))
        else:
            match = _TOML_SCALAR.match(self.text, self.i)
            if match is None:
                raise _Stop
            self.i = match.end()
            time = _SPACE_TIME.match(self.text, self.i)
            if time is not None and _DATE_ONLY.fullmatch(match.group()):
                self.i = time.end()
            self.mark(path, start)

    def sequence(self, close: str, item: _Item, comments: bool = True) -> None:
        """Comma-separated items up to `close`; a trailing comma and line
        breaks (and, for TOML, comments) are tolerated, even in inline tables."""
        count = 0
        while True:
            self.skip(newlines=True, comments=comments)
            if self.peek() == close:
                self.i += 1
                return
            item(count)
            count += 1
            self.skip(newlines=True, comments=comments)
            if self.peek() == ",":
                self.i += 1
            elif self.peek() != close:
                raise _Stop

    def toml_string(self, multiline: bool) -> tuple[int, str]:
        """Scan any TOML string; return (index of content start, decoded value).

        Multi-line strings are scanned but not decoded (the value is "")."""
        quote = self.peek()
        if multiline and self.text.startswith(quote * 3, self.i):
            self.i += 3
            if self.text.startswith("\r\n", self.i):
                self.i += 2
            elif self.peek() == "\n":
                self.i += 1
            start = self.i
            while not self.text.startswith(quote * 3, self.i):
                if self.peek() == "":
                    raise _Stop
                self.i += 2 if quote == '"' and self.peek() == "\\" else 1
            while self.peek() == quote:  # up to two quotes may end the content
                self.i += 1
            return start, ""
        self.i += 1
        start, out = self.i, list[str]()
        while True:
            c = self.peek()
            if c in ("", "\n", "\r"):
                raise _Stop
            self.i += 1
            if c == quote:
                return start, "".join(out)
            out.append(self.escape() if c == "\\" and quote == '"' else c)

    def escape(self) -> str:
        c = self.peek()
        self.i += 1
        if c in _ESCAPES:
            return _ESCAPES[c]
        digits = self.text[self.i : self.i + _HEX_LENGTHS.get(c, 0)]
        if c not in _HEX_LENGTHS or len(digits) != _HEX_LENGTHS[c]:
            raise _Stop
        if not all(d in "0123456789abcdefABCDEF" for d in digits):
            raise _Stop
        self.i += len(digits)
        code = int(digits, 16)
        if code > 0x10FFFF:
            raise _Stop
        return chr(code)

    # ------------------------------------------------------------- JSON
    def json_value(self, path: Path, depth: int) -> None:
        if depth > _MAX_DEPTH:
            raise _Stop
        self.skip(newlines=True, comments=False)
        start, c = self.i, self.peek()
        if c == '"':
            self.json_string()
            self.mark(path, start + 1)
        elif c == "[":
            self.mark(path, start)
            self.i += 1
            self.sequence("]", lambda n: self.json_value(path + (n,), depth + 1), False)
        elif c == "{":
            self.mark(path, start)
            self.i += 1
            self.sequence("}", lambda n: self.json_member(path, depth + 1), False)
        else:
            match = _JSON_SCALAR.match(self.text, self.i)
            if match is None:
                raise _Stop
            self.i = match.end()
            self.mark(path, start)

    def json_member(self, path: Path, depth: int) -> None:
        start = self.i
        if self.peek() != '"':
            raise _Stop
        key = self.json_string()
        self.mark(path + (key, KEY), start)
        self.skip(newlines=True, comments=False)
        self.expect(":")
        self.json_value(path + (key,), depth)

    def json_string(self) -> str:
        start = self.i
        self.i += 1
        while self.peek() != '"':
            if self.peek() in ("", "\n"):
                raise _Stop
            self.i += 2 if self.peek() == "\\" else 1
        self.i += 1
        try:
            value = json.loads(self.text[start : self.i])
        except ValueError:
            raise _Stop from None
        if not isinstance(value, str):
            raise _Stop
        return value


def locate_toml(text: str, until: Path | None = None) -> dict[Path, Position]:
    """Positions of all keys and values found in the TOML document `text`
    (with `until`: those found up to that path, the error path's shortcut)."""
    scanner = _Scanner(text, until)
    try:
        scanner.toml_document()
    except _Stop:
        pass
    return scanner.found


def locate_json(text: str, until: Path | None = None) -> dict[Path, Position]:
    """Positions of all keys and values found in the JSON document `text`
    (with `until`: those found up to that path, the error path's shortcut)."""
    scanner = _Scanner(text, until)
    try:
        scanner.json_value((), 0)
    except _Stop:
        pass
    return scanner.found


def position_in_string(text: str, start: Position, offset: int) -> Position:
    """Position of the character `offset` characters into the content of the
    single-line string whose content starts at `start` (as located above).

    If the string contains a backslash escape (or `start` is not inside
    `text`), `start` itself is returned.  The offset is clamped to the
    string's length, so offset == length points at the closing quote."""
    lines = text.split("\n")
    if not 1 <= start.line <= len(lines):
        return start
    line = lines[start.line - 1].rstrip("\r")
    if not 1 <= start.column <= len(line) + 1:
        return start
    opener = line[start.column - 2] if start.column >= 2 else ""
    rest = line[start.column - 1 :]
    if opener == "'":  # literal string: no escapes
        end = rest.find("'")
    else:
        if "\\" in rest.split('"', 1)[0]:
            return start
        end = rest.find('"') if opener == '"' else -1
    length = len(rest) if end < 0 else end
    return Position(start.line, start.column + max(0, min(offset, length)))

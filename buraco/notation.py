"""BRN, the Buraco Record Notation: read and write match records.

``loads / load / dumps / dump`` work like :mod:`json`'s. A record is read from
TOML (a ``.brn`` file) or from the same structure as JSON; it is written back
canonically (fixed key order, canonical card and action spelling). Keys
starting with ``x-`` are kept; any other unknown key is a
:class:`~buraco.errors.NotationError` carrying the line and column.

>>> record = loads('''
... brn = 1
... variant = "brasil"
... players = ["Ana", "Bia"]
...
... [[hands]]
... dealer = 2
... dealt = ["3c 4c 5c 7d 8d 9d Jh Qh Kh As 6s", "3d 4d 5d 7h 8h 9h Jc Qc Kc Ad 6h"]
... actions = ["p1 draw Ts", "p1 meld 3c 4c 5c", "p1 discard Ts"]
... ''')
>>> record.variant, record.players, len(record.hands), record.hands[0].actions[1]
('brasil', ('Ana', 'Bia'), 1, 'p1 meld 3c 4c 5c')
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import math
import re
import tomllib
from dataclasses import dataclass, field, replace
from typing import IO, Any, Final

from .actions import MELD, Action, ActionSyntaxError, parse_action
from .cards import CARD_BY_TEXT, CARD_TEXT, Card
from .errors import NotationError
from .locate import KEY, Path, Position, locate_json, locate_toml, position_in_string
from .rules import Variant, find_variant

BRN_VERSION: Final = 1
METADATA_KEYS: Final = ("event", "site", "date", "round", "source", "annotator")
TOP_KEYS: Final = frozenset(("brn", "variant", "players", "teams", "target", "hands", *METADATA_KEYS))
HAND_KEYS: Final = frozenset(("dealer", "dealt", "dead", "discard", "stock", "actions", "result", "notes"))
RESULT_KEYS: Final = frozenset(("scores", "totals"))
NOTE_KEYS: Final = frozenset(("ply", "author", "text", "tag"))

# Limits a real game never reaches (docs/notation.md, "Limits"): past them a record is a
# NotationError naming the limit, so that no upload can make the service store or replay
# something unbounded.
MAX_HANDS: Final = 200  # hands in a record
MAX_ACTIONS: Final = 2_000  # actions in a hand
MAX_NAME: Final = 64  # characters in a player's name
MAX_METADATA: Final = 1_000  # characters in a metadata value (event, site, ...)
MAX_EXTENSION_TEXT: Final = 64 * 1024  # characters of all x- keys and values of a record, written as TOML
MAX_EXTENSION_DEPTH: Final = 16  # arrays and tables nested in an x- value
MAX_NOTES: Final = 500  # [[hands.notes]] in a hand
MAX_NOTE_TEXT: Final = 5_000  # characters of a note's text (as of a review comment)
MAX_CLAIM: Final = 10**9  # the size of a claimed score or total, either sign
TOML_INTEGERS: Final = range(-(2**63), 2**63)  # what TOML 1.0 integers hold


@dataclass(frozen=True)
class Note:
    """A coaching annotation on one ply of a hand."""

    ply: int
    author: str
    text: str
    tag: str | None = None


@dataclass(frozen=True)
class Result:
    """The result as the players wrote it: per side, in side order."""

    scores: tuple[int, ...]
    totals: tuple[int, ...] | None = None
    extra: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class HandRecord:
    dealer: int
    dealt: tuple[tuple[Card, ...], ...]
    dead: tuple[tuple[Card, ...], ...] = ()
    discard: Card | None = None
    stock: tuple[Card, ...] | None = None
    actions: tuple[str, ...] = ()  # canonical spelling
    result: Result | None = None
    notes: tuple[Note, ...] = ()
    extra: tuple[tuple[str, Any], ...] = ()
    parsed: tuple[Action, ...] = field(default=(), compare=False, repr=False)
    written: tuple[str, ...] = field(default=(), compare=False, repr=False)


@dataclass(frozen=True)
class Record:
    variant: str
    players: tuple[str, ...]
    hands: tuple[HandRecord, ...] = ()
    teams: tuple[tuple[int, ...], ...] | None = None
    target: int | None = None
    metadata: tuple[tuple[str, Any], ...] = ()
    extra: tuple[tuple[str, Any], ...] = ()
    brn: int = BRN_VERSION
    source: str | None = field(default=None, compare=False, repr=False)
    source_format: str = field(default="toml", compare=False, repr=False)

    @property
    def rules(self) -> Variant:
        return find_variant(self.variant)

    @property
    def sides(self) -> tuple[tuple[int, ...], ...]:
        return self.rules.sides_for(len(self.players))

    @property
    def match_target(self) -> int:
        return self.target if self.target is not None else self.rules.target

    def position(self, path: Path) -> Position | None:
        """Where a value of the record stands in the text it was read from."""
        return locate(self.source, self.source_format, path)


def game_key(record: Record) -> str:
    """What a record says, whatever review it carries, as a hex digest: two records with
    the same key are one game written twice, one perhaps with a coach's notes.

    Everything counts (the rule set, the players, teams and target, the metadata, every
    hand's deal, actions and claimed result, the ``x-`` keys) but the notes and the
    ``annotator`` (a review), the format (TOML or JSON) and the spelling: a meld's cards are
    taken in any order, as ``replay.canonical`` may rewrite them. So a review exported from
    a match and uploaded again is that match's game, while the same deal filed under another
    event is another record.

    >>> from dataclasses import replace
    >>> from buraco.selfplay import play_match
    >>> record = play_match("cerrado", players=2, hands=1, seed=3)
    >>> noted = replace(record, hands=tuple(replace(h, notes=(Note(1, "Marta", "well played"),)) for h in record.hands),
    ...                 metadata=(*record.metadata, ("annotator", "Marta")))
    >>> game_key(noted) == game_key(loads(dumps(record, "json")))
    True
    >>> game_key(record) == game_key(replace(record, metadata=(*record.metadata, ("event", "another night"))))
    False
    """
    hands = []
    for hand in record.hands:
        actions = [
            [action.seat, action.verb, sorted(token.card for token in action.tokens)] if action.verb == MELD
            else action.canonical()
            for action in hand.parsed
        ]
        result = None if hand.result is None else [
            list(hand.result.scores), list(hand.result.totals) if hand.result.totals is not None else None,
            _thaw(hand.result.extra),
        ]
        hands.append([
            hand.dealer, [sorted(cards) for cards in hand.dealt], [sorted(cards) for cards in hand.dead],
            hand.discard, list(hand.stock) if hand.stock is not None else None, actions, result, _thaw(hand.extra),
        ])
    identity = [
        record.variant, list(record.players), record.teams, record.match_target,
        sorted([key, _thaw(value)] for key, value in record.metadata if key != "annotator"),
        _thaw(record.extra), hands,
    ]
    text = json.dumps(identity, separators=(",", ":"), sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


# --- reading ---------------------------------------------------------------------


def loads(text: str | bytes, format: str | None = None) -> Record:
    """Read a BRN record from TOML or JSON text (``format`` None: guess)."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as error:
            raise NotationError(f"the file is not UTF-8 text (byte {error.start})", line=1, column=1) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    if format is None:
        format = "json" if text.lstrip().startswith("{") else "toml"
    if format == "json":
        data = _parse_json(text)
    elif format == "toml":
        data = _parse_toml(text)
    else:
        raise ValueError(f"unknown format {format!r}: use 'toml' or 'json'")
    reader = _Reader(text, format)
    if _SURROGATE.search(text) or (format == "json" and _SURROGATE_ESCAPE.search(text)):
        found = _not_unicode(data, ())
        if found is not None:
            raise reader.fail(
                f"{'a key' if found[1] else 'a string'} is not valid Unicode text (it holds a lone surrogate)",
                found[0],
                key=found[1],
            )
    return reader.record(data)


def load(file: IO[str] | IO[bytes], format: str | None = None) -> Record:
    return loads(file.read(), format)


def _parse_toml(text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise NotationError("not valid BRN: arrays or tables nested too deeply", line=1, column=1) from None
    except tomllib.TOMLDecodeError as error:
        message = str(error)
        match = re.search(r"\(at line (\d+), column (\d+)\)", message)
        line, column = (int(match.group(1)), int(match.group(2))) if match else (None, None)
        if match is None and "end of document" in message:  # just past the last character
            line, column = _line_column(text, len(text))
        reason = re.sub(r"\s*\(at .*\)$", "", message)
        raise NotationError(f"not valid TOML: {reason}", line=line, column=column) from None
    except ValueError:  # an integer of more digits than Python converts
        raise _long_integer(text) from None


def _parse_json(text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise NotationError(f"not valid JSON: {error.msg}", line=error.lineno, column=error.colno) from None
    except RecursionError:
        raise NotationError("not valid JSON: nested too deeply", line=1, column=1) from None
    except ValueError:  # an integer of more digits than Python converts
        raise _long_integer(text) from None
    if not isinstance(data, dict):
        raise NotationError("a BRN record is a JSON object", line=1, column=1)
    return data


def _long_integer(text: str) -> NotationError:
    match = re.search(r"[\d_]{4301,}", text)
    line, column = _line_column(text, match.start()) if match else (None, None)
    return NotationError("a number has too many digits: BRN integers are 64-bit", line=line, column=column)


def _line_column(text: str, index: int) -> tuple[int, int]:
    line_start = text.rfind("\n", 0, index) + 1
    return text.count("\n", 0, index) + 1, index - line_start + 1


# A lone surrogate: raw in a str given to loads, or a JSON escape \ud800-\udfff.
_SURROGATE: Final = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE: Final = re.compile(r"\\u[dD][89a-fA-F]")


def _not_unicode(data: Any, path: Path) -> tuple[Path, bool] | None:
    """The path of the first key (True) or string (False) in `data` holding a lone surrogate.

    Deeper than a record is ever nested (x- values included) it looks no further: what
    stands there is refused as nested too deeply."""
    if isinstance(data, str):
        return (path, False) if _SURROGATE.search(data) else None
    if len(path) > MAX_EXTENSION_DEPTH + 8:
        return None
    if isinstance(data, dict):
        for key, value in data.items():
            if _SURROGATE.search(key):
                return (*path, key), True
            found = _not_unicode(value, (*path, key))
            if found:
                return found
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found = _not_unicode(value, (*path, index))
            if found:
                return found
    return None


def locate(source: str | None, format: str, path: Path) -> Position | None:
    if source is None:
        return None
    positions = _LOCATIONS.get((id(source), format))
    if positions is None or positions[0] is not source:
        found = locate_json(source) if format == "json" else locate_toml(source)
        _LOCATIONS.clear()  # the error path only: one document at a time is plenty
        positions = (source, found)
        _LOCATIONS[(id(source), format)] = positions
    table = positions[1]
    while path:
        if path in table:
            return table[path]
        path = path[:-1]
    return None


_LOCATIONS: dict[tuple[int, str], tuple[str, dict[Path, Position]]] = {}
# Parsed action and its canonical text, by player count then text: the same strings
# ("p1 draw", "p2 discard Kd") recur in every record.
_ACTION_CACHES: dict[int, dict[str, tuple[Action, str]]] = {}


class _Reader:
    """Checks the parsed document and builds the record; errors point into the text."""

    def __init__(self, text: str, format: str) -> None:
        self.text = text
        self.format = format
        self.extension_budget = MAX_EXTENSION_TEXT  # characters left for the record's x- keys and values

    def fail(self, message: str, path: Path, offset: int | None = None, key: bool = False) -> NotationError:
        # One error per document: scan the text only as far as the place named.
        want: Path = (*path, KEY) if key else path
        found = (locate_json if self.format == "json" else locate_toml)(self.text, want)
        while want and want not in found:
            if (*want, KEY) in found:  # a table made by dotted keys (hands.notes = ...) has no place but its key's
                want = (*want, KEY)
                break
            want = want[:-1]
        position = found.get(want) if want else None
        if position is not None and offset:
            position = position_in_string(self.text, position, offset)
        line, column = (position.line, position.column) if position else (None, None)
        return NotationError(message, line=line, column=column)

    def record(self, data: dict[str, Any]) -> Record:
        extra = self._check_keys(data, TOP_KEYS, ())
        for key in ("brn", "variant", "players"):
            if key not in data:
                raise NotationError(f"the record has no '{key}' key: it is required", line=1, column=1)
        brn = data["brn"]
        if type(brn) is not int or brn != BRN_VERSION:
            raise self.fail(f"brn = {brn!r}: this reader knows BRN version {BRN_VERSION}", ("brn",))
        name = data["variant"]
        if not isinstance(name, str):
            raise self.fail("variant must be a rule set id such as \"cerrado\"", ("variant",))
        try:
            variant = find_variant(name)
        except KeyError as error:
            raise self.fail(str(error.args[0]), ("variant",)) from None
        players = data["players"]
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise self.fail("players must be a list of names", ("players",))
        for seat, player in enumerate(players):
            if len(player) > MAX_NAME:
                raise self.fail(
                    f"the name of player {seat + 1} has {len(player)} characters; the limit is {MAX_NAME}",
                    ("players", seat),
                )
        if len(players) not in variant.player_counts:
            counts = " or ".join(str(n) for n in sorted(variant.player_counts))
            raise self.fail(f"{variant.id} is played by {counts} players, not {len(players)}", ("players",))
        teams = self._teams(data.get("teams"), variant, len(players))
        target = data.get("target")
        if target is not None and (type(target) is not int or not 0 < target < 2**63):
            raise self.fail("target must be a positive whole number (of at most 64 bits)", ("target",))
        metadata = []
        for key in METADATA_KEYS:
            if key in data:
                metadata.append((key, self._metadata(key, data[key])))
        if "hands" not in data:
            raise NotationError(
                "the record has no hands: a record holds at least one [[hands]] table", line=1, column=1
            )
        hands_data = data["hands"]
        if not isinstance(hands_data, list) or not all(isinstance(h, dict) for h in hands_data):
            raise self.fail("hands must be an array of tables ([[hands]])", ("hands",))
        if not hands_data:
            raise self.fail("the record has no hands: a record holds at least one [[hands]] table", ("hands",))
        if len(hands_data) > MAX_HANDS:
            raise self.fail(
                f"the record has {len(hands_data)} hands; the limit is {MAX_HANDS} hands per record",
                ("hands", MAX_HANDS),
            )
        sides = len(variant.sides_for(len(players)))
        hands = tuple(self._hand(h, i, len(players), sides) for i, h in enumerate(hands_data))
        return Record(
            variant=variant.id,
            players=tuple(players),
            hands=hands,
            teams=teams,
            target=target,
            metadata=tuple(metadata),
            extra=extra,
            brn=brn,
            source=self.text,
            source_format=self.format,
        )

    def _check_keys(self, table: dict[str, Any], known: frozenset[str], path: Path) -> tuple[tuple[str, Any], ...]:
        extra = []
        for key, value in table.items():
            if key in known:
                continue
            if key.startswith("x-"):
                self._check_extension(key, value, (*path, key))
                extra.append((key, _freeze(value)))
                continue
            raise self.fail(f"unknown key {key!r} (extensions start with 'x-')", (*path, key), key=True)
        return tuple(extra)

    def _check_extension(self, key: str, value: Any, path: Path) -> None:
        """An x- value is kept and written back: refuse at reading what could not be
        written back as TOML, and bound its size (all x- values of a record together)."""
        self.extension_budget -= len(_toml_key(key)) + 3
        pending: list[tuple[Any, int]] = [(value, 0)]
        while pending:
            item, depth = pending.pop()
            problem = None
            if item is None:
                problem = "null has no TOML form: leave the key out instead"
            elif isinstance(item, bool):
                self.extension_budget -= 5
            elif isinstance(item, int):
                if item not in TOML_INTEGERS:
                    problem = "holds an integer beyond 64 bits, which TOML cannot hold"
                else:
                    self.extension_budget -= len(str(item))
            elif isinstance(item, str):
                self.extension_budget -= len(item) + 2
            elif isinstance(item, (float, _dt.date, _dt.time)):  # datetime is a date
                self.extension_budget -= 32
            elif isinstance(item, (list, dict)):
                if depth >= MAX_EXTENSION_DEPTH:
                    problem = f"nests arrays or tables more than {MAX_EXTENSION_DEPTH} deep (the limit)"
                else:
                    self.extension_budget -= 4 + 2 * len(item)
                    if isinstance(item, dict):
                        self.extension_budget -= sum(len(_toml_key(k)) + 3 for k in item)
                        pending.extend((v, depth + 1) for v in item.values())
                    else:
                        pending.extend((v, depth + 1) for v in item)
            else:
                problem = f"holds a {type(item).__name__}, which TOML cannot hold"
            if problem is None and self.extension_budget < 0:
                problem = (
                    f"takes the record's x- values past {MAX_EXTENSION_TEXT // 1024} KiB of text"
                    f" (the limit for all x- values of a record together)"
                )
            if problem is not None:
                raise self.fail(f"the value of {key!r} {problem}", path, key=True)

    def _metadata(self, key: str, value: Any) -> Any:
        if isinstance(value, (_dt.date, _dt.datetime, _dt.time)):
            return value.isoformat()
        if key == "round" and type(value) is int:
            if value not in TOML_INTEGERS:
                raise self.fail("round must be a whole number of at most 64 bits", (key,))
            return value
        if not isinstance(value, str):
            raise self.fail(f"{key} must be text", (key,))
        if len(value) > MAX_METADATA:
            raise self.fail(f"{key} has {len(value)} characters; the limit is {MAX_METADATA}", (key,))
        return value

    def _teams(self, teams: Any, variant: Variant, players: int) -> tuple[tuple[int, ...], ...] | None:
        if teams is None:
            return None
        expected = [[1, 3], [2, 4]]
        if (
            not isinstance(teams, list)
            or not all(isinstance(t, list) and all(type(s) is int for s in t) for t in teams)
            or sorted(sorted(t) for t in teams) != expected
        ):
            raise self.fail("teams may only be [[1, 3], [2, 4]]: partners sit opposite", ("teams",))
        if not (variant.partnerships and players == 4):
            raise self.fail(f"{variant.id} with {players} players has no teams: everyone plays alone", ("teams",))
        return ((1, 3), (2, 4))

    def _cards(self, value: Any, path: Path, what: str) -> tuple[Card, ...]:
        if not isinstance(value, str):
            raise self.fail(f"{what} must be a string of cards such as \"7h 8h JK\"", path)
        cards: list[Card] = []
        lookup = CARD_BY_TEXT
        for word in value.split():
            card = lookup.get(word) or lookup.get(word.lower())
            if card is None:
                offset = _word_offset(value, word, len(cards))
                raise self.fail(
                    f"{word!r} in {what} is not a card (rank A 2-9 T J Q K then suit c d h s, or JK)", path, offset
                )
            cards.append(card)
        return tuple(cards)

    def _card_lists(self, value: Any, path: Path, what: str) -> tuple[tuple[Card, ...], ...]:
        if not isinstance(value, list):
            raise self.fail(f"{what} must be a list of card strings", path)
        return tuple(self._cards(v, (*path, i), f"{what}[{i + 1}]") for i, v in enumerate(value))

    def _hand(self, data: dict[str, Any], index: int, players: int, sides: int) -> HandRecord:
        path: Path = ("hands", index)
        extra = self._check_keys(data, HAND_KEYS, path)
        for key in ("dealer", "dealt", "actions"):
            if key not in data:
                raise self.fail(f"hand {index + 1} has no '{key}' key: it is required", path)
        dealer = data["dealer"]
        if type(dealer) is not int or not 1 <= dealer <= players:
            raise self.fail(f"dealer must be a seat number from 1 to {players}", (*path, "dealer"))
        dealt = self._card_lists(data["dealt"], (*path, "dealt"), "dealt")
        dead = self._card_lists(data.get("dead", []), (*path, "dead"), "dead")
        discard = None
        if "discard" in data:
            cards = self._cards(data["discard"], (*path, "discard"), "discard")
            if len(cards) != 1:
                raise self.fail("discard is one card", (*path, "discard"))
            discard = cards[0]
        stock = self._cards(data["stock"], (*path, "stock"), "stock") if "stock" in data else None
        actions_data = data["actions"]
        if not isinstance(actions_data, list):
            raise self.fail("actions must be a list of strings", (*path, "actions"))
        if len(actions_data) > MAX_ACTIONS:
            raise self.fail(
                f"hand {index + 1} has {len(actions_data)} actions; the limit is {MAX_ACTIONS} actions per hand",
                (*path, "actions", MAX_ACTIONS),
            ).located(hand=index + 1, ply=MAX_ACTIONS + 1)
        parsed = []
        canonical = []
        cache = _ACTION_CACHES.setdefault(players, {})
        for ply, text in enumerate(actions_data):
            entry = cache.get(text) if type(text) is str else None
            if entry is None:
                if not isinstance(text, str):
                    raise self.fail("each action is a string such as \"p1 draw\"", (*path, "actions", ply))
                try:
                    action = parse_action(text, players)
                except ActionSyntaxError as error:
                    raise self.fail(error.message, (*path, "actions", ply), error.offset).located(
                        hand=index + 1, ply=ply + 1, action=text
                    ) from None
                if len(cache) > 200_000:
                    cache.clear()
                entry = cache[text] = (action, action.canonical())
            parsed.append(entry[0])
            canonical.append(entry[1])
        result = self._result(data.get("result"), (*path, "result"), sides)
        notes = self._notes(data.get("notes", []), (*path, "notes"))
        return HandRecord(
            dealer=dealer,
            dealt=dealt,
            dead=dead,
            discard=discard,
            stock=stock,
            actions=tuple(canonical),
            result=result,
            notes=notes,
            extra=extra,
            parsed=tuple(parsed),
            written=tuple(actions_data),
        )

    def _result(self, data: Any, path: Path, sides: int) -> Result | None:
        if data is None:
            return None
        if not isinstance(data, dict):
            raise self.fail("result is a table: { scores = [...], totals = [...] }", path)
        extra = self._check_keys(data, RESULT_KEYS, path)
        if "scores" not in data:
            raise self.fail("result needs scores, one per side", path)
        values: list[tuple[int, ...] | None] = []
        for key in ("scores", "totals"):
            if key not in data:
                values.append(None)
                continue
            numbers = data[key]  # JSON null is no list of numbers either (scores = null hit an assert)
            if not isinstance(numbers, list) or not all(type(n) is int for n in numbers):
                raise self.fail(f"result.{key} must be a list of whole numbers", (*path, key))
            if len(numbers) != sides:
                raise self.fail(f"result.{key} has {len(numbers)} numbers; this match has {sides} sides", (*path, key))
            for side, number in enumerate(numbers):
                # No game comes near; unbounded, the claim's difference from the true score
                # outgrew what a finding stores (and past 4,300 digits what str() prints).
                if abs(number) > MAX_CLAIM:
                    raise self.fail(f"result.{key} must be whole numbers between -{MAX_CLAIM:,} and {MAX_CLAIM:,}",
                                    (*path, key, side))
            values.append(tuple(numbers))
        assert values[0] is not None
        return Result(values[0], values[1], extra)

    def _notes(self, data: Any, path: Path) -> tuple[Note, ...]:
        if not isinstance(data, list) or not all(isinstance(n, dict) for n in data):
            raise self.fail("notes must be an array of tables ([[hands.notes]])", path)
        notes = []
        if len(data) > MAX_NOTES:
            raise self.fail(f"the hand has {len(data)} notes; the limit is {MAX_NOTES} notes per hand",
                            (*path, MAX_NOTES))
        for i, note in enumerate(data):
            self._check_keys(note, NOTE_KEYS, (*path, i))
            ply, author, text, tag = note.get("ply"), note.get("author", ""), note.get("text"), note.get("tag")
            if type(ply) is not int or ply < 0:
                raise self.fail("a note's ply is a whole number (0: before the first action)", (*path, i))
            if ply > MAX_ACTIONS:  # past any hand's last ply; and unbounded, it reached the database as is
                raise self.fail(f"a note's ply is past any hand's end: no hand has more than {MAX_ACTIONS} actions",
                                (*path, i, "ply"))
            if not isinstance(author, str) or not isinstance(text, str) or (tag is not None and not isinstance(tag, str)):
                raise self.fail("a note has text, and optionally an author and a tag, all strings", (*path, i))
            if len(text) > MAX_NOTE_TEXT:
                raise self.fail(f"a note's text has {len(text)} characters; the limit is {MAX_NOTE_TEXT}",
                                (*path, i, "text"))
            for key, value in (("author", author), ("tag", tag or "")):
                if len(value) > MAX_NAME:
                    raise self.fail(f"a note's {key} has {len(value)} characters; the limit is {MAX_NAME}",
                                    (*path, i, key))
            notes.append(Note(ply, author, text, tag))
        return tuple(notes)


def _word_offset(text: str, word: str, index: int) -> int:
    """Where the ``index``-th word of ``text`` starts (``word`` is that word)."""
    return [m.start() for m in re.finditer(r"\S+", text)][index]


class Table(tuple):  # type: ignore[type-arg]
    """An ``x-`` table kept as (key, value) pairs, so that records stay hashable."""

    __slots__ = ()


def _freeze(value: Any) -> Any:
    """x- values kept hashable and comparable, so records compare by value."""
    if isinstance(value, dict):
        return Table((k, _freeze(v)) for k, v in value.items())
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


# --- writing ---------------------------------------------------------------------


def dumps(record: Record, format: str = "toml") -> str:
    """The record in canonical form, as TOML (default) or JSON."""
    if format == "json":
        return json.dumps(to_data(record), ensure_ascii=False, indent=1) + "\n"
    if format != "toml":
        raise ValueError(f"unknown format {format!r}: use 'toml' or 'json'")
    lines = [f"brn = {record.brn}", f"variant = {_toml_string(record.variant)}"]
    lines.append("players = [" + ", ".join(_toml_string(p) for p in record.players) + "]")
    if record.teams is not None:
        lines.append("teams = [" + ", ".join("[" + ", ".join(map(str, t)) + "]" for t in record.teams) + "]")
    if record.target is not None:
        lines.append(f"target = {record.target}")
    for key, value in (*record.metadata, *record.extra):
        lines.append(f"{_toml_key(key)} = {_toml_value(value)}")
    for hand in record.hands:
        lines.append("")
        lines.append("[[hands]]")
        lines.append(f"dealer = {hand.dealer}")
        lines.append(_toml_card_lists("dealt", hand.dealt))
        if hand.dead:
            lines.append(_toml_card_lists("dead", hand.dead))
        if hand.discard is not None:
            lines.append(f'discard = "{CARD_TEXT[hand.discard]}"')
        if hand.stock is not None:
            lines.append(f"stock = {_toml_string(_cards_text(hand.stock))}")
        if hand.actions:
            lines.append("actions = [")
            lines.extend(f"  {_toml_string(a)}," for a in hand.actions)
            lines.append("]")
        else:
            lines.append("actions = []")
        if hand.result is not None:
            lines.append(f"result = {_toml_value(_result_data(hand.result))}")
        for key, value in hand.extra:
            lines.append(f"{_toml_key(key)} = {_toml_value(value)}")
        for note in hand.notes:
            lines.append("")
            lines.append("[[hands.notes]]")
            lines.append(f"ply = {note.ply}")
            lines.append(f"author = {_toml_string(note.author)}")
            lines.append(f"text = {_toml_string(note.text)}")
            if note.tag is not None:
                lines.append(f"tag = {_toml_string(note.tag)}")
    return "\n".join(lines) + "\n"


def dump(record: Record, file: IO[str], format: str = "toml") -> None:
    file.write(dumps(record, format))


def to_data(record: Record) -> dict[str, Any]:
    """The record as plain JSON-ready data (the JSON form of BRN)."""
    return _to_data(record, _thaw)


def _to_data(record: Record, _thaw: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"brn": record.brn, "variant": record.variant, "players": list(record.players)}
    if record.teams is not None:
        data["teams"] = [list(t) for t in record.teams]
    if record.target is not None:
        data["target"] = record.target
    for key, value in (*record.metadata, *record.extra):
        data[key] = _thaw(value)
    hands = []
    for hand in record.hands:
        item: dict[str, Any] = {"dealer": hand.dealer, "dealt": [_cards_text(c) for c in hand.dealt]}
        if hand.dead:
            item["dead"] = [_cards_text(c) for c in hand.dead]
        if hand.discard is not None:
            item["discard"] = CARD_TEXT[hand.discard]
        if hand.stock is not None:
            item["stock"] = _cards_text(hand.stock)
        item["actions"] = list(hand.actions)
        if hand.result is not None:
            item["result"] = _thaw(_result_data(hand.result))
        for key, value in hand.extra:
            item[key] = _thaw(value)
        if hand.notes:
            item["notes"] = [_note_data(n) for n in hand.notes]
        hands.append(item)
    data["hands"] = hands
    return data


# --- the stored form ---------------------------------------------------------------

STORED_WRITTEN: Final = "written"  # a hand's actions as written (the stored form's own key, not BRN's)
_STORED_TIME: Final = "$toml"  # a TOML date or time in an x- value, which JSON has no type for


def dumps_stored(record: Record) -> str:
    """The record as a service keeps it once read: BRN's JSON form, and what that form cannot
    say (each hand's actions as written, where their spelling is not the canonical one; a TOML
    date or time in an ``x-`` value). :func:`loads_stored` reads it back, the equal record, in a
    fraction of the time the TOML takes (JSON is parsed in C; tomllib in Python).

    >>> from buraco.selfplay import play_match
    >>> record = play_match("cerrado", players=2, hands=1, seed=3)
    >>> loads_stored(dumps_stored(record)) == record
    True
    """
    data = _to_data(record, _stored_value)
    for item, hand in zip(data["hands"], record.hands, strict=True):
        if hand.written and tuple(hand.written) != hand.actions:
            item[STORED_WRITTEN] = list(hand.written)
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def loads_stored(text: str | bytes, *, source: str | None = None, source_format: str = "toml") -> Record:
    """The record :func:`dumps_stored` wrote. Positions (a line and column in an error) point
    into ``source``, the record as it was uploaded, in its ``source_format``. A stored form
    this reader cannot read raises NotationError: read ``source`` itself then."""
    data = _parse_json(text.decode("utf-8") if isinstance(text, bytes) else text)
    written = [item.pop(STORED_WRITTEN, None) if isinstance(item, dict) else None for item in data.get("hands") or []]
    for key in list(data):
        data[key] = _stored_back(data[key]) if key.startswith("x-") else data[key]
    for item in data.get("hands") or []:
        for key in [k for k in item if isinstance(k, str) and k.startswith("x-")]:
            item[key] = _stored_back(item[key])
    record = _Reader("", "json").record(data)
    hands = tuple(
        replace(hand, written=tuple(spelled)) if spelled else hand
        for hand, spelled in zip(record.hands, written, strict=True)
    )
    return replace(record, hands=hands, source=source, source_format=source_format)


def _stored_value(value: Any) -> Any:
    if isinstance(value, Table):
        return {k: _stored_value(v) for k, v in value}
    if isinstance(value, tuple):
        return [_stored_value(v) for v in value]
    if isinstance(value, (_dt.date, _dt.time)):  # datetime is a date
        kind = "datetime" if isinstance(value, _dt.datetime) else "date" if isinstance(value, _dt.date) else "time"
        return {_STORED_TIME: kind, "value": value.isoformat()}
    return value


def _stored_back(value: Any) -> Any:
    if isinstance(value, dict):
        if set(value) == {_STORED_TIME, "value"}:
            kind, text = value[_STORED_TIME], value["value"]
            if kind == "datetime":
                return _dt.datetime.fromisoformat(text)
            return _dt.date.fromisoformat(text) if kind == "date" else _dt.time.fromisoformat(text)
        return {k: _stored_back(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_stored_back(v) for v in value]
    return value


def _note_data(note: Note) -> dict[str, Any]:
    data: dict[str, Any] = {"ply": note.ply, "author": note.author, "text": note.text}
    if note.tag is not None:
        data["tag"] = note.tag
    return data


def _result_data(result: Result) -> Table:
    items: list[tuple[str, Any]] = [("scores", result.scores)]
    if result.totals is not None:
        items.append(("totals", result.totals))
    return Table((*items, *result.extra))


def _thaw(value: Any) -> Any:
    if isinstance(value, Table):
        return {k: _thaw(v) for k, v in value}
    if isinstance(value, tuple):
        return [_thaw(v) for v in value]
    if isinstance(value, (_dt.date, _dt.time)):  # a TOML date in an x- value: JSON has none (datetime is a date)
        return value.isoformat()
    return value


def _cards_text(cards: tuple[Card, ...]) -> str:
    return " ".join(CARD_TEXT[c] for c in cards)


def _toml_card_lists(key: str, lists: tuple[tuple[Card, ...], ...]) -> str:
    if not lists:
        return f"{key} = []"
    return f"{key} = [\n" + "".join(f'  "{_cards_text(c)}",\n' for c in lists) + "]"


_BARE_KEY: Final = re.compile(r"[A-Za-z0-9_-]+")


def _toml_key(key: str) -> str:
    return key if _BARE_KEY.fullmatch(key) else _toml_string(key)  # fullmatch: "$" would let "x-\n" through


def _toml_string(text: str) -> str:
    out = ['"']
    for char in text:
        if char == '"':
            out.append('\\"')
        elif char == "\\":
            out.append("\\\\")
        elif char == "\n":
            out.append("\\n")
        elif char == "\t":
            out.append("\\t")
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, (_dt.datetime, _dt.date, _dt.time)):
        return value.isoformat()
    if isinstance(value, Table):
        return "{ " + ", ".join(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in value) + " }"
    if isinstance(value, tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return _toml_value(_freeze(value))
    if isinstance(value, list):
        return _toml_value(_freeze(value))
    raise ValueError(f"cannot write {value!r} as TOML")

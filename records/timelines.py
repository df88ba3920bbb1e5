"""Each hand's timeline kept ready to send: reads never parse or replay a stored record again.

A hand's timeline (every table from the deal on, ``buraco.replay.iter_timeline``) is made
once, the first time it is read, and stored on its :class:`~records.models.Hand` row as
the gzip of the whole ``/timeline/`` answer (``Hand.timeline``), with an index
(``Hand.timeline_index``): the engine version that made it, where each state's JSON starts
and ends in the answer, and the first illegal action's error. The timeline answer is then
the stored bytes themselves (gzip for clients that take it), one state a slice of them:
no record is parsed, nothing replayed, no JSON decoded or encoded. A stored record is
never changed, so only another engine version makes a timeline again.

A first read costs one hand's replay of the record as read at upload (``records.reading``:
the stored read form, not the upload's TOML), its size bounded at upload (``buraco.notation``
limits).
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from typing import Any

from django.db import connection

from apikit.errors import Conflict
from buraco.errors import BuracoError
from buraco.replay import iter_timeline

from .models import Hand, Match
from .reading import record_of
from .services import ENGINE_VERSION


class ReplayConflict(Conflict):
    """What was asked lies past what the stored record can replay (its first illegal
    action; ``error``: that action's error as a dict), or the stored record cannot be read
    by this engine. The API answers 409."""

    def __init__(self, message: str, error: dict[str, Any]) -> None:
        super().__init__(message, extra={"error": error})
        self.error = error


@dataclass(frozen=True)
class Timeline:
    """A hand's stored timeline answer: ``{"match", "hand", "states", "error"}``."""

    gzipped: bytes
    spans: list[list[int]]  # per ply: where its state's JSON starts and ends in the answer
    error: dict[str, Any] | None  # the first illegal action's (None for a legal hand)

    @property
    def plies(self) -> int:
        """The last ply that has a state (the deal is ply 0)."""
        return len(self.spans) - 1

    def body(self) -> bytes:
        return gzip.decompress(self.gzipped)

    def state_json(self, ply: int) -> bytes:
        """The JSON of the table after ``ply`` actions (``0 <= ply <= plies``)."""
        start, end = self.spans[ply]
        return self.body()[start:end]


def _dump(value: Any) -> str:
    # ASCII: the answer's bytes are its characters, so spans index either.
    return json.dumps(value, separators=(",", ":"))


def timeline_build(*, match_id: int, number: int) -> tuple[bytes, dict[str, Any]]:
    """The gzipped timeline answer of hand ``number`` of match ``match_id``'s record (as read at
    upload: ``records.reading``), and its index.

    A record this engine cannot read gives an answer with no states and its error.
    """
    states: list[str] = []
    error: dict[str, Any] | None = None
    readable = True
    try:
        record = record_of(match_id=match_id)
    except BuracoError as failure:
        readable, error = False, failure.as_dict()
    else:
        try:
            for entry in iter_timeline(record, number - 1):
                states.append(_dump(entry))
        except BuracoError as failure:  # the states stop at the first illegal action
            error = failure.as_dict()
    head = f'{{"match":{int(match_id)},"hand":{int(number)},"states":['
    spans = []
    offset = len(head)
    for text in states:
        spans.append([offset, offset + len(text)])
        offset += len(text) + 1  # the comma
    body = head + ",".join(states) + '],"error":' + _dump(error) + "}"
    index = {"engine": ENGINE_VERSION, "spans": spans, "error": error, "readable": readable}
    return gzip.compress(body.encode("ascii"), compresslevel=6), index


def hand_timeline(*, match: Match, number: int) -> Timeline:
    """Hand ``number``'s stored timeline, made and stored first if this engine has none.

    A record the engine cannot read at all raises :class:`ReplayConflict`.
    """
    # No ordering: Hand's default (by match, then number) would join the match to sort one row.
    row = Hand.objects.filter(match_id=match.pk, number=number).order_by().values(
        "pk", "timeline", "timeline_index").first()
    return timeline_of_row(match.pk, number, dict(row) if row else None)


# What the read path needs of a match to check who may read it and to name the answer's
# version, read with the hand's stored timeline in one query (stored_timeline).
READ_COLUMNS = ("owner_id", "visibility", "share_token", "sha256", "hand_count")


def stored_timeline_row(*, match_id: int, number: int) -> tuple[Match, dict[str, Any]] | None:
    """The hand's stored timeline row and the few columns of its match that say who may read
    it, in one query (the thin read path); None when there is no such hand row (no such
    match, no such hand, or a record whose hands were never stored: the full path answers).
    Check who may read it before :func:`timeline_of_row`, which may replay the hand.

    The match comes unsaved, with only :data:`READ_COLUMNS` and its id: enough for
    ``records.permissions.can_read``, not to be saved.
    """
    # SQL written once, not built per request by the ORM: the read path's largest cost was
    # composing this one query.
    with connection.cursor() as cursor:
        cursor.execute(_READ_SQL, [match_id, number])
        found = cursor.fetchone()
    if found is None:
        return None
    pk, gzipped, index, *columns = found
    if isinstance(index, str):
        index = json.loads(index)
    return Match(pk=match_id, **dict(zip(READ_COLUMNS, columns))), {
        "pk": pk, "timeline": gzipped, "timeline_index": index}


_READ_SQL = (
    "SELECT h.id, h.timeline, h.timeline_index, " + ", ".join(f"m.{name}" for name in READ_COLUMNS)
    + f" FROM {Hand._meta.db_table} h JOIN {Match._meta.db_table} m ON m.id = h.match_id"
    " WHERE h.match_id = %s AND h.number = %s"
)


def timeline_of_row(match_id: int, number: int, row: dict[str, Any] | None) -> Timeline:
    """The Timeline of a stored hand row (made, and stored, first when this engine has none)."""
    index = row["timeline_index"] if row else None
    gzipped = row["timeline"] if row else None
    if not index or index.get("engine") != ENGINE_VERSION or gzipped is None:
        gzipped, index = timeline_build(match_id=match_id, number=number)
        if row is not None:  # (no row: a stored record its hands were never read from)
            # Filling a cache, not changing what is stored: two first reads at once write the same.
            Hand.objects.filter(pk=row["pk"]).update(timeline=gzipped, timeline_index=index)
    if not index["readable"]:
        error = index["error"]
        raise ReplayConflict(f"the stored record cannot be replayed: {error['message']}", error)
    return Timeline(gzipped=bytes(gzipped), spans=index["spans"], error=index["error"])

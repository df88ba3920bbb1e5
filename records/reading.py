"""A stored match's record, read once at upload and kept (``Match.parsed``): verification,
analysis, timelines, the canonical BRN and a review's export read it back from there
(``buraco.notation.loads_stored``, JSON: about a seventh of the TOML's time), with positions
in errors still pointing into the upload. A match stored before the read form existed, or
one this engine cannot read from it, is read from its upload.
"""

from __future__ import annotations

from buraco.errors import NotationError
from buraco.notation import Record, loads, loads_stored

from .models import Match


def record_from(*, parsed: str | None, source: bytes, source_format: str) -> Record:
    """The record of a match's stored read form ``parsed`` and upload ``source``."""
    if parsed:
        text = bytes(source).decode("utf-8", errors="replace").removeprefix("\ufeff")
        try:
            return loads_stored(parsed, source=text, source_format=source_format)
        except NotationError:
            pass  # written by another engine version: the upload says what it holds
    return loads(bytes(source))


def record_of(*, match_id: int) -> Record:
    """Match ``match_id``'s record (its read form, else its upload)."""
    parsed, source, source_format = Match.objects.values_list("parsed", "source", "source_format").get(pk=match_id)
    return record_from(parsed=parsed, source=source, source_format=source_format)

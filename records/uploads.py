"""Reading an upload: unpacking zips within one budget, and parsing every file, before
anything is stored (:func:`records.services.upload_create` stores what this reads).

Every problem is reported with its file, line and column; nothing here writes.
"""

from __future__ import annotations

import io
import json
import lzma
import zipfile
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from apikit.errors import ServiceError
from buraco.errors import NotationError
from buraco.notation import Record, loads


class UploadError(ServiceError):
    """One or more uploaded files are not readable BRN; nothing was stored. ``errors``: each
    problem with its file, line and column; ``hint``: what to send instead, when the way it
    was sent is the likely cause."""

    def __init__(self, errors: list[dict[str, Any]], hint: str | None = None) -> None:
        super().__init__(
            f"nothing was stored: {len(errors)} problem{'s' if len(errors) != 1 else ''} with the upload",
            extra={"hint": hint} if hint else {}, errors=errors,
        )
        self.errors: list[dict[str, Any]] = errors
        self.hint = hint


# What a damaged zip raises, from its headers or while a member is unpacked: zipfile's own
# errors, and those of the decompressors it calls (deflate: zlib.error; bzip2: OSError,
# EOFError; lzma: LZMAError), of names it decodes (UnicodeDecodeError is a ValueError).
_ZIP_ERRORS = (zipfile.BadZipFile, OSError, EOFError, RuntimeError, NotImplementedError, ValueError, zlib.error,
               lzma.LZMAError)


@dataclass
class UploadedFile:
    name: str
    content: bytes


def expand_upload(files: Iterable[UploadedFile]) -> list[UploadedFile]:
    """Unpack zips into their ``.brn`` and ``.json`` members; keep other files as they are.

    A record (a file, or a zip's member) has at most ``BURACO_MAX_RECORD_BYTES``; the
    whole request has one budget (``DATA_UPLOAD_MAX_MEMORY_SIZE`` x 4 bytes unpacked, at
    most ``BURACO_MAX_UPLOAD_RECORDS`` records), checked on every zip's headers
    (``ZipInfo.file_size``) before any member is unpacked: several zips share it.
    """
    limit = settings.BURACO_MAX_UPLOAD_RECORDS
    max_bytes = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    budget = max_bytes * 4  # what one request may unpack to, in all
    record_bytes = settings.BURACO_MAX_RECORD_BYTES
    planned: list[tuple[UploadedFile, zipfile.ZipFile | None, list[zipfile.ZipInfo]]] = []
    records = size = 0
    try:
        for upload in files:
            if len(upload.content) > max_bytes:
                raise UploadError([{"file": upload.name, "line": None, "column": None,
                                    "message": f"the file has {len(upload.content)} bytes; the limit is {max_bytes}"}])
            if upload.content[:4] == b"PK\x03\x04" or upload.name.lower().endswith(".zip"):
                opened, members = _zip_plan(upload)
                planned.append((upload, opened, members))
                records += len(members)
                for info in members:
                    size += info.file_size
                    if info.file_size > record_bytes:
                        raise UploadError([{"file": f"{upload.name}/{info.filename}", "line": None, "column": None,
                                            "message": f"the record unpacks to {info.file_size} bytes; the limit is "
                                                       f"{record_bytes} bytes a record"}])
                    if info.file_size > max_bytes or size > budget:
                        raise UploadError([{"file": f"{upload.name}/{info.filename}", "line": None, "column": None,
                                            "message": "the zip unpacks to more than the upload limit allows "
                                                       f"({budget} bytes for the whole upload)"}])
            else:
                if len(upload.content) > record_bytes:
                    raise UploadError([{"file": upload.name, "line": None, "column": None,
                                        "message": f"the record has {len(upload.content)} bytes; the limit is "
                                                   f"{record_bytes} bytes a record"}])
                planned.append((upload, None, []))
                records += 1
                size += len(upload.content)
                if size > budget:
                    raise UploadError([{"file": upload.name, "line": None, "column": None,
                                        "message": f"the upload unpacks to more than {budget} bytes in all"}])
            if records > limit:
                raise UploadError([{"file": upload.name, "line": None, "column": None,
                                    "message": f"an upload holds at most {limit} records"}])
        out: list[UploadedFile] = []
        for upload, archive, members in planned:
            out.extend(_zip_read(upload, archive, members) if archive is not None else [upload])
        return out
    finally:
        for _, unpacked, _ in planned:
            if unpacked is not None:
                unpacked.close()


def _zip_plan(upload: UploadedFile) -> tuple[zipfile.ZipFile, list[zipfile.ZipInfo]]:
    """The zip, opened, and the members to unpack (from its headers: nothing is unpacked)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(upload.content))
    except _ZIP_ERRORS:
        raise UploadError([{"file": upload.name, "line": None, "column": None,
                            "message": "not a readable zip archive"}]) from None
    members = [
        info for info in archive.infolist()
        if not info.is_dir() and not info.filename.startswith("__MACOSX/")
        and info.filename.lower().endswith((".brn", ".json", ".toml"))
    ]
    if not members:
        archive.close()
        raise UploadError([{"file": upload.name, "line": None, "column": None,
                            "message": "the zip holds no .brn files"}])
    return archive, members


def _zip_read(upload: UploadedFile, archive: zipfile.ZipFile, members: list[zipfile.ZipInfo]) -> list[UploadedFile]:
    out = []
    for info in members:
        name = f"{upload.name}/{info.filename}"
        try:
            # zipfile stops at the header's file_size: a member cannot unpack to more than was checked.
            out.append(UploadedFile(name, archive.read(info)))
        except _ZIP_ERRORS as error:
            raise UploadError([{"file": name, "line": None, "column": None,
                                "message": f"cannot unpack: {error}"}]) from None
    return out


def parse_uploads(files: Sequence[UploadedFile]) -> list[tuple[UploadedFile, Record]]:
    """Read every file; raise UploadError listing every unreadable one with its position."""
    parsed, errors = read_uploads(files)
    if errors:
        raise UploadError(errors)
    return parsed


def read_uploads(files: Sequence[UploadedFile]) -> tuple[list[tuple[UploadedFile, Record]], list[dict[str, Any]]]:
    """Read every file: the readable ones with their records, and each unreadable one's
    error with its file and position."""
    parsed = []
    errors: list[dict[str, Any]] = []
    for upload in files:
        not_object = _json_not_object(upload.content)
        if not_object:
            errors.append({"file": upload.name, "line": 1, "column": 1,
                           "message": f"a BRN record is a JSON object ({{...}}); this is JSON {not_object}"})
            continue
        try:
            record = loads(upload.content)
        except NotationError as error:
            errors.append({"file": upload.name, **error.as_dict()})
            continue
        too_many = _notes_past_the_cap(record)
        if too_many is not None:
            errors.append({"file": upload.name, **too_many})
            continue
        parsed.append((upload, record))
    return parsed, errors


def _notes_past_the_cap(record: Record) -> dict[str, Any] | None:
    """A record whose notes (they become the match's comments) pass
    ``BURACO_MAX_COMMENTS_PER_MATCH``: the error, at the first note past it."""
    cap = settings.BURACO_MAX_COMMENTS_PER_MATCH
    total = sum(len(hand.notes) for hand in record.hands)
    if total <= cap:
        return None
    seen = 0
    for index, hand in enumerate(record.hands):
        if seen + len(hand.notes) > cap:
            where = record.position(("hands", index, "notes", cap - seen))
            return {"line": where.line if where else None, "column": where.column if where else None,
                    "message": f"the record holds {total} notes; a match keeps at most {cap} comments, "
                               f"so at most {cap} notes (this is note {cap + 1}, in hand {index + 1})"}
        seen += len(hand.notes)
    return None


def _json_not_object(content: bytes) -> str | None:
    """What JSON value other than an object the content is (``a list``, ``null``...), or None:
    such a body is JSON, not TOML, and is said to be the wrong kind of JSON."""
    head = content.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    if not head or head == b"{" or head not in b'[n"tf-0123456789':
        return None
    try:
        value = json.loads(content.decode("utf-8-sig"))
    except (ValueError, RecursionError):
        return None
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "null"
    return {str: "a string", bool: "a boolean"}.get(type(value), "a number")

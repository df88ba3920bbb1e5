"""Who reaches a match through the API: the match a request may read, manage or review
(``records.permissions``), its hand numbers, and answers sent as stored (a record, a gzipped
timeline)."""

from __future__ import annotations

import gzip
from typing import Any

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework import exceptions, renderers, status
from rest_framework.request import Request

from buraco.notation import dumps, loads
from records import permissions, selectors
from records.models import Match

SHARE_PARAMETER = OpenApiParameter(
    "share", OpenApiTypes.STR, description="a share-link token: reads the match without an account"
)





def readable_match(request: Request, match_id: int) -> Match:
    """The match, if the requester may read it (``permissions.can_read``, the share link
    in ``?share=`` too); else 404, as for a match that does not exist."""
    match = selectors.match_for_reader(user=request.user, match_id=match_id, share=request.query_params.get("share"))
    if match is None:
        raise exceptions.NotFound(f"no match {match_id} that you may read")
    return match


def managed_match(request: Request, match_id: int) -> Match:
    """The match, if the requester may manage it (``permissions.can_manage``); 404 when
    they may not even read it, 403 when they may read it only."""
    match = readable_match(request, match_id)
    if not permissions.can_manage(request.user, match):
        raise exceptions.PermissionDenied("only the match's owner may do this")
    return match


def reviewable_match(request: Request, match_id: int) -> Match:
    """The match, if the requester may review it (``permissions.can_review``: the owner or a
    user it is shared with); 404 when they may not read it, 403 when they may read it only."""
    match = readable_match(request, match_id)
    if not permissions.can_review(request.user, match):
        raise exceptions.PermissionDenied("only the match's owner and those it is shared with may review it")
    return match


def stored_json(request: Request, gzipped: bytes, *, etag: str) -> HttpResponse:
    """A stored gzipped JSON answer: as stored to clients that accept gzip, unpacked to the
    others; 304 when the client holds it already (``If-None-Match``). ``private, no-cache``:
    a client asks again each time, so who may read it is checked each time."""
    if etag in (request.headers.get("If-None-Match") or ""):
        response = HttpResponse(status=status.HTTP_304_NOT_MODIFIED)
    elif "gzip" in (request.headers.get("Accept-Encoding") or ""):
        response = HttpResponse(gzipped, content_type="application/json")
        response["Content-Encoding"] = "gzip"
    else:
        response = HttpResponse(gzip.decompress(gzipped), content_type="application/json")
    response["ETag"] = etag
    response["Cache-Control"] = "private, no-cache"
    response["Vary"] = "Accept-Encoding"
    return response


def hand_number(match: Match, number: int) -> int:
    if not 1 <= number <= match.hand_count:
        raise exceptions.NotFound(f"match {match.pk} has hands 1 to {match.hand_count}")
    return number


class RecordRenderer(renderers.BaseRenderer):
    """Lets a client ask for the record as the schema says it comes (``Accept: application/toml``)
    instead of a 406: the view answers the record itself, so this renders nothing (errors
    are JSON, ``exception_handler``)."""

    media_type = "application/toml"
    format = "toml"
    charset = "utf-8"

    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None) -> bytes:
        return data if isinstance(data, bytes) else str(data).encode()


# The views answering a record: TOML (the default), or its JSON form (?format=json, or
# Accept: application/json), as :func:`record_answer` writes it.
RECORD_RENDERERS = [RecordRenderer, renderers.JSONRenderer]
RECORD_FORMATS = {
    (200, "application/toml"): OpenApiTypes.BINARY,
    (200, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT, description="BRN's JSON form"),
}


def record_answer(request: Request, *, toml: str, filename: str) -> HttpResponse:
    """A record to download: ``toml`` as it is, or its JSON form when the client asked for it
    (``?format=json``, ``Accept: application/json``: the negotiated renderer)."""
    if request.accepted_renderer.format == "json":
        response = HttpResponse(dumps(loads(toml), "json"), content_type="application/json; charset=utf-8")
        filename = filename.removesuffix(".brn") + ".json"
    else:
        response = HttpResponse(toml, content_type="application/toml; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


class SourceRenderer(renderers.BaseRenderer):
    """The upload as it came, whatever the client accepts: one renderer, so no ``format``."""

    media_type = "*/*"
    format = "source"

    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None) -> bytes:
        return data if isinstance(data, bytes) else str(data).encode()

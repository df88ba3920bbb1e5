"""Matches: the list and uploads, one match, its report, its canonical BRN and its source."""

from __future__ import annotations

import hashlib
from typing import Any, cast

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.http import HttpResponse
from django.utils.http import content_disposition_header
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import exceptions, parsers, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apikit.errors import ANY, RETRY_AFTER, errors
from apikit.filtering import filter_parameters, refuse_empty
from apikit.paging import page_parameters, paged, paged_schema
from records import selectors, services, throttling
from records.filters import MatchFilter
from records.models import Match

from .access import (
    RECORD_FORMATS,
    RECORD_RENDERERS,
    SHARE_PARAMETER,
    SourceRenderer,
    managed_match,
    readable_match,
    record_answer,
)
from .serializers import (
    MatchDetailSerializer,
    MatchSummarySerializer,
)
from .shapes import ReportAnswerSerializer
from .uploads import (
    FormRecordParser,
    JsonRecordParser,
    RecordFileField,
    TomlRecordParser,
    UploadAcceptedSerializer,
    uploaded_files,
)

# How long a client may wait before asking how an upload stands (a match is verified within a
# second or so; its analysis takes longer).
POLL_AFTER_SECONDS = 1


def _accepted(request: Request, body: dict[str, Any], location: str) -> Response:
    """202: stored, to be verified; ``Location`` says where to ask, ``Retry-After`` when."""
    return Response(body, status=status.HTTP_202_ACCEPTED,
                    headers={"Location": request.build_absolute_uri(location), "Retry-After": str(POLL_AFTER_SECONDS)})


IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key", {"type": "string", "pattern": "^[!-~]*$"},
    OpenApiParameter.HEADER,
    description=f"any key of the client's: the same upload sent again with it (within {services.UPLOAD_KEY_HOURS} h) "
                "is answered as the first time and stores nothing twice (`Idempotent-Replayed: true`); another "
                "upload with it is a 422",
)
ACCEPTED_HEADERS = [
    OpenApiParameter("Location", OpenApiTypes.URI, OpenApiParameter.HEADER, response=[202], required=True,
                     description="the match (one file) or the batch (several, a zip) to ask how it stands"),
    OpenApiParameter("Retry-After", OpenApiTypes.INT, OpenApiParameter.HEADER, response=[202], required=True,
                     description="seconds to wait before asking"),
    OpenApiParameter("Idempotent-Replayed", {"type": "string", "enum": ["true"]}, OpenApiParameter.HEADER,
                     response=[202], description="this is the first answer to the same upload with the same "
                                                 "Idempotency-Key, sent again; nothing more was stored"),
]


# The list's orders (?ordering=), the newest upload first by default; ties by id.
MATCH_ORDERINGS = {
    "-created_at": ("-created_at", "-id"), "created_at": ("created_at", "id"),
    "-played_on": ("-played_on", "-id"), "played_on": ("played_on", "id"),
    "variant": ("variant", "-created_at", "-id"), "id": ("id",), "-id": ("-id",),
}


class MatchListApi(APIView):
    # What the upload reads, as the schema says; and curl's default form body, read as the record.
    parser_classes = [parsers.MultiPartParser, TomlRecordParser, JsonRecordParser, FormRecordParser]
    throttle_classes = [throttling.UploadThrottle]  # POST only: listing is not limited

    @extend_schema(
        summary="List matches you may read",
        operation_id="matches_list",  # not matches_retrieve: that is one match's (GET /api/matches/{id}/)
        parameters=[*filter_parameters(MatchFilter), *page_parameters(list(MATCH_ORDERINGS))],  # the page's filters too
        responses={200: paged_schema("PaginatedMatchSummaryList", MatchSummarySerializer(many=True)),
                   **errors(*ANY, 404)},
    )
    def get(self, request: Request) -> Response:
        refuse_empty(request.query_params, MatchFilter)
        filters = MatchFilter(request.query_params, user=request.user)
        if not filters.is_valid():
            raise exceptions.ValidationError(filters.errors)
        matches = selectors.match_list(user=request.user, filters=filters)
        return paged(request, matches, MatchSummarySerializer, self, orderings=MATCH_ORDERINGS)

    @extend_schema(
        summary="Upload records",
        description=(
            "A BRN file (TOML), its JSON form, several files or a zip of .brn files, as multipart "
            "`file`/`files` fields, or one record as the raw request body. Of several files, every readable "
            "record is stored and each unreadable one is listed in `errors` with its line and column; when no "
            "file (or the one file) is readable, nothing is stored and the 400 lists every error. Several files "
            "make a batch whose progress is at /api/batches/{id}/. A game the owner stored before (an exported "
            "review uploaded again) answers that match, its notes a new review of it when no review holds them. "
            "(A body sent as application/x-www-form-urlencoded, curl's default for --data, is read as a TOML record "
            "too, with a hint on what to send when it is not one.)"
        ),
        request={
            "multipart/form-data": inline_serializer(
                "Upload",
                {
                    # Files, not strings: a tool following the schema sends them as file parts.
                    "files": serializers.ListField(
                        child=RecordFileField(), required=False,
                        help_text="BRN records (.brn, .json) or zips of them (`files` or `file`)",
                    ),
                    "file": RecordFileField(required=False, help_text="one record (`files` or `file`)"),
                    "visibility": serializers.ChoiceField(choices=Match.Visibility.values, required=False),
                    "label": serializers.CharField(required=False, allow_blank=True,
                                                   help_text="the batch's label: its first 200 characters"),
                },
            ),
            "application/toml": OpenApiTypes.BINARY,
            "application/json": OpenApiTypes.OBJECT,
        },
        parameters=[RETRY_AFTER, *ACCEPTED_HEADERS, IDEMPOTENCY_KEY],
        responses={202: UploadAcceptedSerializer, **errors(*ANY, 403, 415, 422, 429)},
    )
    def post(self, request: Request) -> Response:
        if not request.user.is_authenticated:
            raise exceptions.NotAuthenticated("log in, or send a token, to upload")
        owner = cast(User, request.user)
        files = uploaded_files(request)
        fields = request.data if hasattr(request.data, "get") else {}
        visibility = fields.get("visibility") or Match.Visibility.PRIVATE
        if visibility not in Match.Visibility.values:
            raise exceptions.ValidationError({"visibility": [f"one of {Match.Visibility.values}"]})
        label = str(fields.get("label") or "")[:200]
        if "\x00" in label:
            raise exceptions.ValidationError({"label": ["a label cannot hold NUL characters"]})
        key = _idempotency_key(request)
        if key is None:
            return _accepted(request, *_stored(owner=owner, files=files, visibility=visibility, label=label))
        digest = services.upload_digest(files=files, visibility=visibility, label=label)
        earlier = services.upload_key_answer(owner=owner, key=key, digest=digest)
        if earlier is None:
            try:
                with transaction.atomic():
                    answer, location = _stored(owner=owner, files=files, visibility=visibility, label=label)
                    services.upload_key_keep(owner=owner, key=key, digest=digest, status=202, answer=answer,
                                             location=location)
                return _accepted(request, answer, location)
            except IntegrityError:  # the same key, stored meanwhile by a concurrent request
                earlier = services.upload_key_answer(owner=owner, key=key, digest=digest)
                if earlier is None:
                    raise
        replayed = _accepted(request, earlier.answer, earlier.location)
        replayed["Idempotent-Replayed"] = "true"
        return replayed


def _idempotency_key(request: Request) -> str | None:
    """The request's ``Idempotency-Key`` header (visible ASCII characters; empty: none), kept
    as its digest: a key of any length fits the row."""
    key = request.headers.get("Idempotency-Key")
    if not key:  # an empty header is no key (a client library may drop it on the way)
        return None
    if not all(33 <= ord(c) <= 126 for c in key):
        raise exceptions.ValidationError({"Idempotency-Key": ["visible ASCII characters only"]})
    return hashlib.sha256(key.encode("ascii")).hexdigest()


def _stored(*, owner: User, files: list[services.UploadedFile], visibility: str, label: str) -> tuple[dict[str, Any], str]:
    """Store the upload: the 202's body and where to ask how it stands."""
    result = services.upload_create(owner=owner, files=files, visibility=visibility, label=label)
    statuses = selectors.match_statuses(match_ids=[m.pk for m in result.matches])
    items = [
        {"id": m.pk, "status": statuses[m.pk], "duplicate": not new, "file": name,
         **({"review": review} if review is not None else {})}
        for m, new, name, review in zip(result.matches, result.created, result.names, result.reviews, strict=True)
    ]
    if result.batch is None:
        return items[0], f"/api/matches/{items[0]['id']}/"
    answer = {
        "batch": result.batch.pk,
        # Nothing new stored (duplicates only): the batch has nothing to wait for.
        "status": "pending" if result.batch.total else "finished",
        "total": result.batch.total,
        "duplicates": len(items) - result.batch.total,
        "rejected": len(result.errors),
        "matches": items,
        "errors": result.errors,
    }
    return answer, f"/api/batches/{result.batch.pk}/"


class MatchDetailApi(APIView):
    @extend_schema(summary="One match, with its hands' verdicts", operation_id="matches_retrieve",
                   parameters=[SHARE_PARAMETER], responses={200: MatchDetailSerializer, **errors(*ANY, 404)})
    def get(self, request: Request, match_id: int) -> Response:
        match = readable_match(request, match_id)
        return Response(MatchDetailSerializer(match, context={"request": request}).data)

    @extend_schema(summary="Delete a match (owner only)", responses={204: None, **errors(*ANY, 403, 404)})
    def delete(self, request: Request, match_id: int) -> Response:
        match = managed_match(request, match_id)
        services.match_delete(match=match)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MatchReportApi(APIView):
    @extend_schema(
        summary="The verification report: each hand's verdict, scores and parts, the first illegal action",
        parameters=[SHARE_PARAMETER],
        responses={200: ReportAnswerSerializer, **errors(*ANY, 404)},
    )
    def get(self, request: Request, match_id: int) -> Response:
        match = readable_match(request, match_id)
        return Response(
            {
                "id": match.pk,
                "status": match.status,  # type: ignore[attr-defined]
                "engine_version": match.engine_version or None,
                "verified_at": match.verified_at,
                "report": selectors.match_report(match=match),
            }
        )


class MatchBrnApi(APIView):
    renderer_classes = RECORD_RENDERERS

    @extend_schema(summary="The record in canonical BRN: TOML, or its JSON form (?format=json)",
                   parameters=[SHARE_PARAMETER], responses={**RECORD_FORMATS, **errors(*ANY, 404, 409)})
    def get(self, request: Request, match_id: int) -> HttpResponse:
        match = readable_match(request, match_id)
        return record_answer(request, toml=selectors.match_canonical_brn(match=match), filename=f"match-{match.pk}.brn")


class MatchSourceApi(APIView):
    renderer_classes = [SourceRenderer]

    @extend_schema(
        summary="The record exactly as uploaded, with its original file name",
        parameters=[SHARE_PARAMETER],
        responses={(200, "application/toml"): OpenApiTypes.BINARY, (200, "application/json"): OpenApiTypes.BINARY,
                   **errors(*ANY, 404)},
    )
    def get(self, request: Request, match_id: int) -> HttpResponse:
        match = readable_match(request, match_id)
        content, name, content_type = selectors.match_source(match=match)
        response = HttpResponse(content, content_type=content_type)
        response["Content-Disposition"] = content_disposition_header(as_attachment=True, filename=name) or "attachment"
        return response

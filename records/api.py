"""The REST API: one view per operation, small serializers, one error format.

Every error answers ``{"message": ..., "extra": {...}}``; an unreadable upload
adds ``errors``: one entry per problem with its file, line and column.
"""

from __future__ import annotations

import gzip
from typing import Any, cast

from django.contrib.auth.models import User
from django.http import HttpResponse
from django.urls import reverse
from django.utils.html import escape
from django.utils.http import content_disposition_header
from drf_spectacular.renderers import (
    OpenApiJsonRenderer,
    OpenApiJsonRenderer2,
    OpenApiYamlRenderer,
    OpenApiYamlRenderer2,
)
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
    inline_serializer,
)
from drf_spectacular.views import SpectacularAPIView
from rest_framework import exceptions, parsers, renderers, serializers, status
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.api import UsernameField
from accounts.services import user_named
from apikit.errors import ANY, RETRY_AFTER, errors
from buraco.rules import VARIANTS

from . import permissions, selectors, services, throttling
from .models import Batch, Job, Match

SHARE_PARAMETER = OpenApiParameter(
    "share", OpenApiTypes.STR, description="a share-link token: reads the match without an account"
)


class RawBody:
    """A request body read as the record itself: its own type, so that no form field
    (one named ``raw``, say) is ever taken for it."""

    def __init__(self, content: bytes, form_encoded: bool = False) -> None:
        self.content = content
        self.form_encoded = form_encoded


class RawRecordParser(parsers.BaseParser):
    """A record sent as the whole request body (TOML or its JSON form)."""

    media_type = "*/*"

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> RawBody:  # type: ignore[override]
        return RawBody(stream.read() if stream is not None else b"")


FORM_HINT = (
    "the body came as application/x-www-form-urlencoded (curl's default for -d and --data-binary) and was read "
    "as the record itself; if the record is fine, -d may have dropped its line breaks: send it with "
    "--data-binary @match.brn -H 'Content-Type: application/toml' (or application/json), or as a file: -F files=@match.brn"
)


class FormRecordParser(parsers.BaseParser):
    """A record sent as a form-encoded body (curl's default content type for ``--data``):
    no form of this API is sent that way, so the body is read as the record itself."""

    media_type = "application/x-www-form-urlencoded"

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> RawBody:  # type: ignore[override]
        return RawBody(stream.read() if stream is not None else b"", form_encoded=True)


# --- serializers ---------------------------------------------------------------------


class AnalysisStatusSerializer(serializers.Serializer[Any]):
    """The match's analysis job: null status until the match has a verdict to analyse."""

    status = serializers.ChoiceField(choices=Job.Status.choices, allow_null=True)
    version = serializers.CharField(allow_null=True, help_text="the analysis version of the stored findings")


def analysis_status(match: Match) -> dict[str, Any]:
    job = match.job(Job.Kind.ANALYZE)
    if job is None:
        return {"status": None, "version": None}
    return {"status": job.status, "version": job.version or None}


class MatchSummarySerializer(serializers.ModelSerializer[Match]):
    owner = serializers.CharField(source="owner.username", read_only=True)
    status = serializers.ChoiceField(choices=Match.Status.choices, read_only=True)
    analysis = serializers.SerializerMethodField()

    class Meta:
        model = Match
        fields = [
            "id", "variant", "players", "status", "valid", "scores_match", "hand_count", "totals", "winner",
            "filename", "visibility", "owner", "batch", "created_at", "verified_at", "engine_version", "analysis",
        ]

    @extend_schema_field(AnalysisStatusSerializer)
    def get_analysis(self, match: Match) -> dict[str, Any]:
        return analysis_status(match)


class HandSummarySerializer(serializers.Serializer[Any]):
    number = serializers.IntegerField()
    dealer = serializers.IntegerField()
    actions = serializers.IntegerField(source="action_count")
    valid = serializers.BooleanField(allow_null=True)
    finished = serializers.BooleanField(allow_null=True)
    scores = serializers.JSONField()
    claimed = serializers.JSONField()
    mismatches = serializers.JSONField()
    ended_by = serializers.CharField()
    out_by = serializers.IntegerField(allow_null=True)
    error = serializers.JSONField()


class AbilitiesSerializer(serializers.Serializer[Any]):
    """``records.permissions``: read it, manage it (share, delete: the owner), review it
    (the owner or a user it is shared with)."""

    read = serializers.BooleanField()
    manage = serializers.BooleanField()
    review = serializers.BooleanField()


class MatchDetailSerializer(MatchSummarySerializer):
    hands = serializers.SerializerMethodField()
    metadata = serializers.JSONField()
    error = serializers.SerializerMethodField(
        help_text="the first illegal action; while the match is failed, why its verification could not finish"
    )
    share_token = serializers.SerializerMethodField()
    can = serializers.SerializerMethodField(help_text="what the requester may do with this match")
    totals_through_hand = serializers.SerializerMethodField(
        help_text="how many hands (from hand 1) `totals` sums: up to the first without a score; 0: no total is known"
    )

    class Meta(MatchSummarySerializer.Meta):
        fields = [
            *MatchSummarySerializer.Meta.fields, "metadata", "error", "hands", "share_token", "can", "totals_through_hand",
        ]

    def get_totals_through_hand(self, match: Match) -> int:
        return selectors.totals_through_hand(hands=list(match.hands.all()))

    @extend_schema_field(HandSummarySerializer(many=True))
    def get_hands(self, match: Match) -> list[Any]:
        hands: list[Any] = []
        for hand in match.hands.all():
            hand.action_count = len(hand.actions)  # type: ignore[attr-defined]
            hands.append(HandSummarySerializer(hand).data)
        return hands

    @extend_schema_field({"type": "object", "additionalProperties": {}, "nullable": True})  # null: no error
    def get_error(self, match: Match) -> dict[str, Any] | None:
        return selectors.match_failure(match=match) or match.error

    @extend_schema_field(serializers.CharField(allow_null=True, help_text="the share-link token (to its owner only)"))
    def get_share_token(self, match: Match) -> str | None:
        request = self.context.get("request")
        return match.share_token if request is not None and permissions.can_manage(request.user, match) else None

    @extend_schema_field(AbilitiesSerializer)
    def get_can(self, match: Match) -> dict[str, bool]:
        request = self.context.get("request")
        if request is None:
            return {"read": True, "manage": False, "review": False}
        return permissions.abilities(request.user, match, request.query_params.get("share"))


MAX_ID = 2**31 - 1  # integer query parameters stay in every database's integer range


class MatchFilterSerializer(serializers.Serializer[Any]):
    variant = serializers.ChoiceField(choices=list(VARIANTS), required=False)
    player = serializers.CharField(required=False, max_length=100)
    status = serializers.ChoiceField(choices=Match.Status.values, required=False)
    date_from = serializers.DateField(required=False, help_text="uploaded on or after")
    date_to = serializers.DateField(required=False, help_text="uploaded on or before")
    played_from = serializers.DateField(required=False, help_text="the record's date tag on or after")
    played_to = serializers.DateField(required=False, help_text="the record's date tag on or before")
    batch = serializers.IntegerField(required=False, min_value=1, max_value=MAX_ID)
    mine = serializers.BooleanField(required=False, default=False)


@extend_schema_field(OpenApiTypes.BINARY)
class RecordFileField(serializers.FileField):
    """An uploaded record: a file part, which the schema says (a string of bytes), not a URL."""


class UploadedItemSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    status = serializers.CharField()
    duplicate = serializers.BooleanField(
        help_text="this owner had stored this game already (the same bytes, or the same game with other notes or "
                  "spelling: an exported review uploaded again): `id` is that match"
    )
    file = serializers.CharField(help_text="the file's name in this upload")
    review = serializers.IntegerField(
        required=False, help_text="a duplicate whose notes no review of the match held: the review they made"
    )


class UploadAcceptedSerializer(serializers.Serializer[Any]):
    """One file: the match (id, status, duplicate, file). Several files or a zip: the batch."""

    id = serializers.IntegerField(required=False)
    status = serializers.CharField()
    duplicate = serializers.BooleanField(required=False)
    file = serializers.CharField(required=False)
    batch = serializers.IntegerField(required=False)
    total = serializers.IntegerField(required=False, help_text="matches the batch stored and verifies")
    duplicates = serializers.IntegerField(required=False)
    rejected = serializers.IntegerField(required=False, help_text="files not stored: unreadable, listed in `errors`")
    matches = UploadedItemSerializer(many=True, required=False)
    errors = serializers.ListField(  # type: ignore[assignment]  # a field: DRF's metaclass pops it
        child=serializers.DictField(), required=False,
        help_text="each file not stored, with its error and place: {file, line, column, message, ...}",
    )
    review = serializers.IntegerField(required=False)


PAGINATED_MATCHES = inline_serializer(
    "PaginatedMatchSummaryList",
    {
        "count": serializers.IntegerField(),
        "next": serializers.URLField(allow_null=True),
        "previous": serializers.URLField(allow_null=True),
        "results": MatchSummarySerializer(many=True),
    },
)
PAGE_PARAMETER = OpenApiParameter(
    "page", {"type": "integer", "minimum": 1}, description="page number, from 1 (50 per page); past the last: 404"
)


# --- helpers -------------------------------------------------------------------------


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


# --- views ---------------------------------------------------------------------------


class MatchListApi(APIView):
    parser_classes = [parsers.MultiPartParser, FormRecordParser, RawRecordParser]
    throttle_classes = [throttling.UploadThrottle]  # POST only: listing is not limited

    @extend_schema(
        summary="List matches you may read",
        operation_id="matches_list",  # not matches_retrieve: that is one match's (GET /api/matches/{id}/)
        parameters=[MatchFilterSerializer, PAGE_PARAMETER],
        responses={200: PAGINATED_MATCHES, **errors(*ANY, 404)},
    )
    def get(self, request: Request) -> Response:
        filters = MatchFilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        matches = selectors.match_list(user=request.user, **filters.validated_data)
        paginator = PageNumberPagination()
        page = paginator.paginate_queryset(matches, request, view=self)
        return paginator.get_paginated_response(MatchSummarySerializer(page, many=True).data)

    @extend_schema(
        summary="Upload records",
        description=(
            "A BRN file (TOML), its JSON form, several files or a zip of .brn files, as multipart "
            "`file`/`files` fields, or one record as the raw request body. Of several files, every readable "
            "record is stored and each unreadable one is listed in `errors` with its line and column; when no "
            "file (or the one file) is readable, nothing is stored and the 400 lists every error. Several files "
            "make a batch whose progress is at /api/batches/{id}/. A game the owner stored before (an exported "
            "review uploaded again) answers that match, its notes a new review of it when no review holds them. A raw body sent as "
            "application/x-www-form-urlencoded (curl's default for --data) is read as the record too."
        ),
        request={
            "multipart/form-data": inline_serializer(
                "Upload",
                {
                    # Files, not strings: a tool following the schema sends them as file parts.
                    "files": serializers.ListField(
                        child=RecordFileField(), help_text="BRN records (.brn, .json) or zips of them"
                    ),
                    "file": RecordFileField(required=False, help_text="one record (`files` too)"),
                    "visibility": serializers.ChoiceField(choices=Match.Visibility.values, required=False),
                    "label": serializers.CharField(required=False, help_text="the batch's label: its first 200 characters"),
                },
            ),
            "application/toml": OpenApiTypes.STR,
            "application/json": OpenApiTypes.OBJECT,
            "application/x-www-form-urlencoded": OpenApiTypes.STR,
        },
        parameters=[RETRY_AFTER],
        responses={202: UploadAcceptedSerializer, **errors(*ANY, 403, 429)},
    )
    def post(self, request: Request) -> Response:
        if not request.user.is_authenticated:
            raise exceptions.NotAuthenticated("log in, or send a token, to upload")
        files = _uploaded_files(request)
        fields = request.data if hasattr(request.data, "get") else {}
        visibility = fields.get("visibility") or Match.Visibility.PRIVATE
        if visibility not in Match.Visibility.values:
            raise exceptions.ValidationError({"visibility": f"one of {Match.Visibility.values}"})
        label = str(fields.get("label") or "")[:200]
        if "\x00" in label:
            raise exceptions.ValidationError({"label": "a label cannot hold NUL characters"})
        result = services.upload_create(
            owner=cast(User, request.user), files=files, visibility=visibility, label=label,
        )
        statuses = selectors.match_statuses(match_ids=[m.pk for m in result.matches])
        items = [
            {"id": m.pk, "status": statuses[m.pk], "duplicate": not new, "file": name,
             **({"review": review} if review is not None else {})}
            for m, new, name, review in zip(result.matches, result.created, result.names, result.reviews, strict=True)
        ]
        if result.batch is None:
            return Response(items[0], status=status.HTTP_202_ACCEPTED)
        return Response(
            {
                "batch": result.batch.pk,
                # Nothing new stored (duplicates only): the batch has nothing to wait for.
                "status": "pending" if result.batch.total else "finished",
                "total": result.batch.total,
                "duplicates": len(items) - result.batch.total,
                "rejected": len(result.errors),
                "matches": items,
                "errors": result.errors,
            },
            status=status.HTTP_202_ACCEPTED,
        )


def _uploaded_files(request: Request) -> list[services.UploadedFile]:
    data = request.data
    if isinstance(data, RawBody):
        raw = data.content
        hint = FORM_HINT if data.form_encoded else None
        if not raw:
            raise services.UploadError(
                [{"file": None, "line": None, "column": None, "message": "the body is empty"}], hint=hint
            )
        if hint:
            try:
                services.parse_uploads([services.UploadedFile("upload.brn", raw)])
            except services.UploadError as error:
                raise services.UploadError(error.errors, hint=hint) from None
        return [services.UploadedFile("upload.brn", raw)]
    uploads = [*request.FILES.getlist("files"), *request.FILES.getlist("file")]
    if not uploads and not (request.content_type or "").startswith("multipart/"):
        # DRF runs no parser for an empty body: say so instead of asking for form fields.
        raise services.UploadError([{"file": None, "line": None, "column": None, "message": "the body is empty"}])
    if not uploads:
        raise services.UploadError(
            [{"file": None, "line": None, "column": None, "message": "send the records as 'file' or 'files'"}]
        )
    return [services.UploadedFile(upload.name or "upload.brn", upload.read()) for upload in uploads]


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
        responses={200: OpenApiTypes.OBJECT, **errors(*ANY, 404)},
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


class RecordRenderer(renderers.BaseRenderer):
    """Lets a client ask for the record as the schema says it comes (``Accept: application/toml``)
    instead of a 406: the view answers the record itself, so this renders nothing (errors
    are JSON, ``exception_handler``)."""

    media_type = "application/toml"
    format = "toml"
    charset = "utf-8"

    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None) -> bytes:
        return data if isinstance(data, bytes) else str(data).encode()


# The views answering a record: JSON first (the default, and the record's JSON form), TOML too.
RECORD_RENDERERS = [renderers.JSONRenderer, RecordRenderer]


class MatchBrnApi(APIView):
    renderer_classes = RECORD_RENDERERS

    @extend_schema(summary="The record in canonical BRN (TOML)", parameters=[SHARE_PARAMETER],
                   responses={(200, "application/toml"): OpenApiTypes.STR, **errors(*ANY, 404, 409)})
    def get(self, request: Request, match_id: int) -> HttpResponse:
        match = readable_match(request, match_id)
        text = selectors.match_canonical_brn(match=match)
        response = HttpResponse(text, content_type="application/toml; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="match-{match.pk}.brn"'
        return response


class MatchSourceApi(APIView):
    renderer_classes = RECORD_RENDERERS

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


class HandTimelineApi(APIView):
    @extend_schema(
        summary="Every state of a hand, the deal first (ply 0), each with what was played",
        description=(
            "Each state is the table (`buraco.state.HandState.to_json()`) with `seat`, `action` (as written), "
            "`operation` (what the action did: `drew`, `took`, `melded`, `laid-off`, `picked-dead`, `discarded`) "
            "and `automatic` (the steps that followed it: `dead-to-stock`, `hand-ended`). "
            "States stop at the first illegal action, which `error` then describes."
        ),
        parameters=[SHARE_PARAMETER],
        responses={200: OpenApiTypes.OBJECT, **errors(*ANY, 404, 409)},
    )
    def get(self, request: Request, match_id: int, number: int) -> HttpResponse:
        match = readable_match(request, match_id)
        timeline = selectors.hand_timeline(match=match, number=hand_number(match, number))
        # The stored answer as it is: no replay, no JSON encoding (records/timelines.py).
        return stored_json(request, timeline.gzipped, etag=f'"{match.sha256[:24]}-{services.ENGINE_VERSION}-{number}"')


class HandStateApi(APIView):
    @extend_schema(summary="The table after a number of actions (one timeline entry)", parameters=[SHARE_PARAMETER],
                   responses={200: OpenApiTypes.OBJECT, **errors(*ANY, 404, 409)})
    def get(self, request: Request, match_id: int, number: int, ply: int) -> HttpResponse:
        match = readable_match(request, match_id)
        plies = selectors.hand_plies(match=match, number=hand_number(match, number))
        if not 0 <= ply <= plies:
            raise exceptions.NotFound(f"hand {number} has plies 0 to {plies}")
        state = selectors.hand_state_json(match=match, number=number, ply=ply)
        body = b'{"match":%d,"hand":%d,"state":%s}' % (match.pk, number, state)
        return HttpResponse(body, content_type="application/json")


MAX_TRY_ACTIONS = 200
MAX_ACTION_CHARS = 200


class TryInputSerializer(serializers.Serializer[Any]):
    ply = serializers.IntegerField(min_value=0, help_text="play from the table after this many of the hand's actions")
    actions = serializers.ListField(
        child=serializers.CharField(
            min_length=1, max_length=MAX_ACTION_CHARS, trim_whitespace=True,  # min_length: the schema says "" is refused
            error_messages={"max_length": f"an action has at most {MAX_ACTION_CHARS} characters"},
        ),
        min_length=1,
        max_length=MAX_TRY_ACTIONS,
        help_text=f"BRN actions such as \"p1 draw\", at most {MAX_TRY_ACTIONS}, each at most {MAX_ACTION_CHARS} characters",
        error_messages={"max_length": f"at most {MAX_TRY_ACTIONS} actions are tried at once"},
    )


TRY_RESPONSE = inline_serializer(
    "TryResult",
    {
        "match": serializers.IntegerField(),
        "hand": serializers.IntegerField(),
        "ply": serializers.IntegerField(help_text="the ply played from"),
        "results": serializers.ListField(
            child=inline_serializer(
                "TriedAction",
                {
                    "action": serializers.CharField(),
                    "entry": serializers.DictField(
                        required=False, help_text="the table after it, as a timeline entry"
                    ),
                    "error": serializers.DictField(
                        required=False, help_text="why it cannot be played (the line stops there)"
                    ),
                },
            )
        ),
        "complete": serializers.BooleanField(help_text="every action was played"),
    },
)


class HandTryApi(APIView):
    throttle_classes = [throttling.TryThrottle]

    @extend_schema(
        summary="Try another play from a ply: nothing is stored",
        description=(
            "Replays the hand to `ply`, then plays each action with the engine. Per action: the table after "
            "it (the timeline's entry format) or, for the first that cannot be played, the error, after which "
            "nothing more is tried. Anyone who may read the match may try (a share link too). Replays the "
            "stored hand alone, never the whole record; tries are rate-limited (per account, else per address)."
        ),
        parameters=[SHARE_PARAMETER, RETRY_AFTER],
        request=TryInputSerializer,
        responses={200: TRY_RESPONSE, **errors(*ANY, 403, 404, 409, 415, 429)},
    )
    def post(self, request: Request, match_id: int, number: int) -> Response:
        match = readable_match(request, match_id)
        hand = hand_number(match, number)
        given = TryInputSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        ply, actions = given.validated_data["ply"], given.validated_data["actions"]
        plies = selectors.hand_plies(match=match, number=hand)
        if ply > plies:
            raise exceptions.ValidationError({"ply": f"hand {hand} has plies 0 to {plies}"})
        results = selectors.hand_try(match=match, number=hand, ply=ply, actions=actions)
        complete = len(results) == len(actions) and not any("error" in r for r in results)
        return Response({"match": match.pk, "hand": hand, "ply": ply, "results": results, "complete": complete})


SHARE_LINK = inline_serializer(
    "ShareLink",
    {
        "share_token": serializers.CharField(),
        "api_url": serializers.URLField(help_text="this match in the API, opened by the link"),
        "page_url": serializers.URLField(help_text="this match's page, opened by the link"),
    },
)


class ShareLinkApi(APIView):
    @extend_schema(summary="Create (or replace) the match's share link (owner only)",
                   request=None, responses={201: SHARE_LINK, **errors(*ANY, 403, 404)})
    def post(self, request: Request, match_id: int) -> Response:
        match = managed_match(request, match_id)
        token = services.share_link_create(match=match)
        url = request.build_absolute_uri(f"/api/matches/{match.pk}/?share={token}")
        page = request.build_absolute_uri(f"/matches/{match.pk}/?share={token}")
        return Response({"share_token": token, "api_url": url, "page_url": page}, status=status.HTTP_201_CREATED)

    @extend_schema(summary="Revoke the share link (owner only)", responses={204: None, **errors(*ANY, 403, 404)})
    def delete(self, request: Request, match_id: int) -> Response:
        services.share_link_revoke(match=managed_match(request, match_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class ShareWithSerializer(serializers.Serializer[Any]):
    username = UsernameField(help_text="the account to share the match with (or to stop sharing it with)")


class SharedWithApi(APIView):
    @extend_schema(
        summary="Share the match with another user (owner only)",
        request=ShareWithSerializer,
        responses={204: None, **errors(*ANY, 403, 404, 415)},
    )
    def post(self, request: Request, match_id: int) -> Response:
        match = managed_match(request, match_id)
        services.match_share_with(match=match, user=_user_named(request))
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(summary="Stop sharing the match with a user (owner only)", request=ShareWithSerializer,
                   responses={204: None, **errors(*ANY, 403, 404, 415)})
    def delete(self, request: Request, match_id: int) -> Response:
        match = managed_match(request, match_id)
        services.match_unshare_with(match=match, user=_user_named(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


def _user_named(request: Request) -> Any:
    given = ShareWithSerializer(data=request.data)
    given.is_valid(raise_exception=True)  # empty, too long, NUL or other characters no username has: 400
    username = given.validated_data["username"]
    user = user_named(username)
    if user is None:
        raise exceptions.ValidationError({"username": f"no user {username!r}"})
    return user


class BatchDetailApi(APIView):
    @extend_schema(summary="A batch's progress: done, failed, total (owner only)",
                   responses={200: OpenApiTypes.OBJECT, **errors(*ANY, 404)})
    def get(self, request: Request, batch_id: int) -> Response:
        batch = Batch.objects.filter(pk=batch_id).first()
        if batch is None or not request.user.is_authenticated or batch.owner_id != request.user.pk:
            raise exceptions.NotFound(f"no batch {batch_id} of yours")
        return Response(selectors.batch_progress(batch=batch))


class StatusApi(APIView):
    @extend_schema(
        summary="Queue depths and the oldest waiting job; counts of the matches you may read",
        responses={200: OpenApiTypes.OBJECT, **errors(*ANY)},
    )
    def get(self, request: Request) -> Response:
        return Response(selectors.queue_status(user=request.user))


class SchemaHtmlRenderer(renderers.BaseRenderer):
    """The schema for a browser (it asks for text/html): the YAML shown as a page, with
    links to the interactive docs and the JSON, instead of a file to download."""

    media_type = "text/html"
    format = "html"
    charset = "utf-8"

    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None) -> bytes:
        text = OpenApiYamlRenderer().render(data, accepted_media_type, renderer_context).decode()
        return (
            '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Buraco records API: OpenAPI schema'
            "</title></head><body><p>The OpenAPI 3 schema of this API. "
            f'<a href="{reverse("api-docs")}">Interactive docs</a> &middot; <a href="?format=json">JSON</a> &middot; '
            f'<a href="?format=yaml">YAML</a> (a tool asking for <code>application/vnd.oai.openapi</code> '
            "or <code>application/json</code> gets it directly).</p>"
            f"<pre>{escape(text)}</pre></body></html>"
        ).encode()


class SchemaApi(SpectacularAPIView):
    """/api/schema/: YAML by default (and to tools), JSON with ``?format=json`` (as
    application/json, which browsers show), a page to a browser."""

    renderer_classes = [
        OpenApiYamlRenderer, OpenApiYamlRenderer2, OpenApiJsonRenderer2, OpenApiJsonRenderer, SchemaHtmlRenderer,
    ]


class HealthApi(APIView):
    @extend_schema(exclude=True)
    def get(self, request: Request) -> Response:
        return Response({"ok": True})

"""The one error shape of the API: ``{"message": ..., "extra": {...}}``, and ``errors`` (one
entry per problem with its file, line and column) where an upload cannot be read.

A service raises a :class:`ServiceError` (or a subclass) for what the requester can mend;
:func:`exception_handler` (DRF's ``EXCEPTION_HANDLER``) answers it, DRF's own errors, the
engine's errors on a stored record (409) and Django's request limits, all in this shape and
always as JSON. :func:`errors` documents an operation's error answers in the schema.
"""

from __future__ import annotations

from typing import Any, ClassVar

from django.core.exceptions import SuspiciousOperation
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect, JsonResponse
from django.urls import Resolver404, resolve
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, inline_serializer
from rest_framework import renderers, serializers, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from buraco.errors import BuracoError


class ServiceError(Exception):
    """What a service refuses, said to the requester: ``status_code`` and the one shape's
    ``message``, ``extra`` and (when there are several problems) ``errors``; ``headers``
    go with the answer."""

    status_code: ClassVar[int] = status.HTTP_400_BAD_REQUEST
    headers: ClassVar[dict[str, str]] = {}

    def __init__(self, message: str, *, extra: dict[str, Any] | None = None,
                 errors: list[dict[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.extra = extra or {}
        self.errors = errors

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"message": self.message, "extra": self.extra}
        if self.errors is not None:
            body["errors"] = self.errors
        return body


class Conflict(ServiceError):
    """The request conflicts with what is stored (409)."""

    status_code = status.HTTP_409_CONFLICT


class WrongCredentials(ServiceError):
    """The credentials sent match no account (401, as RFC 9110 has it, with the scheme to use)."""

    status_code = status.HTTP_401_UNAUTHORIZED
    headers = {"WWW-Authenticate": 'Token realm="api"'}


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Every error in the one format, and as JSON whatever the view renders and the client asks
    for: a browser (Accept: text/html) would otherwise get DRF's HTML page, a client asking for
    a record (Accept: application/toml) a body the TOML renderer cannot write, /api/schema/ YAML."""
    response = _error_response(exc, context)
    request = context.get("request")
    if response is not None and request is not None:
        request.accepted_renderer = renderers.JSONRenderer()
        request.accepted_media_type = "application/json"
    return response


def _error_response(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, ServiceError):
        return Response(exc.body(), status=exc.status_code, headers=exc.headers)
    if isinstance(exc, BuracoError):
        # An engine error on a stored record (one the engine of today cannot read or replay):
        # said, never a 500.
        return Response(
            {"message": f"the stored record cannot be replayed: {exc.message}", "extra": {"error": exc.as_dict()}},
            status=status.HTTP_409_CONFLICT,
        )
    if isinstance(exc, SuspiciousOperation):
        # Django's request limits (DATA_UPLOAD_MAX_NUMBER_FILES: TooManyFilesSent, too many
        # fields, too big a body) raised while DRF parses: a 400 in the one format, not Django's page.
        return Response({"message": f"the request is refused: {exc}", "extra": {"error": type(exc).__name__}},
                        status=status.HTTP_400_BAD_REQUEST)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    detail = response.data
    if isinstance(detail, dict) and "detail" in detail:
        message, extra = str(detail["detail"]), {k: v for k, v in detail.items() if k != "detail"}
    elif isinstance(detail, dict):
        message, extra = f"the request is not valid: {first_problem(detail)}", {"fields": _as_lists(detail)}
    else:
        message, extra = str(detail), {}
    response.data = {"message": message, "extra": extra}
    return response


def _as_lists(fields: dict[str, Any]) -> dict[str, Any]:
    """Each field's errors as a list of sentences (a nested field's: its own fields'), whatever
    shape the raiser gave: a client reads one shape."""
    return {
        key: _as_lists(value) if isinstance(value, dict) else list(value) if isinstance(value, list) else [value]
        for key, value in fields.items()
    }


def first_problem(detail: Any, path: str = "") -> str:
    """The first field error as ``field: sentence`` (``actions.3`` inside a list)."""
    if isinstance(detail, dict) and detail:
        key, value = next(iter(detail.items()))
        return first_problem(value, f"{path}.{key}" if path else str(key))
    if isinstance(detail, list) and detail:
        return first_problem(detail[0], path)
    return f"{path}: {detail}" if path else str(detail)


def json_error(request: HttpRequest, status_code: int, message: str) -> JsonResponse:
    """An error in the one format, for what Django answers itself (no DRF view ran)."""
    return JsonResponse({"message": message, "extra": {"path": request.path}}, status=status_code)


@csrf_exempt  # it changes nothing: without this, an unsafe method would get Django's HTML CSRF page, not the 404
def api_not_found(request: HttpRequest) -> HttpResponse:
    """Any /api/ path no endpoint has (a match id that is no number, a path that does not
    exist): a JSON 404 in the one format, with DEBUG on too (Django's own page is HTML).

    A path missing only its final slash is redirected (GET, HEAD) as APPEND_SLASH would; any
    other method is told the path to use, rather than redirected to a GET that drops its body.
    """
    with_slash = f"{request.path}/"
    if not request.path.endswith("/") and _is_endpoint(f"{request.path_info}/"):
        if request.method in ("GET", "HEAD"):
            query = request.META.get("QUERY_STRING", "")
            return HttpResponsePermanentRedirect(f"{with_slash}?{query}" if query else with_slash)
        return json_error(request, 404, f"nothing is at {request.path}: the API's paths end with a slash, {with_slash}")
    return json_error(request, 404, f"nothing is at {request.path}")


def _is_endpoint(path: str) -> bool:
    try:
        return resolve(path).func is not api_not_found
    except Resolver404:
        return False


class ProblemSerializer(serializers.Serializer[Any]):
    """One problem of a request that holds several (an upload's files): where and why."""

    file = serializers.CharField(allow_null=True, help_text="the file's name in the upload (a zip's member: zip/member)")
    line = serializers.IntegerField(allow_null=True)
    column = serializers.IntegerField(allow_null=True)
    message = serializers.CharField()
    kind = serializers.CharField(required=False)
    hand = serializers.IntegerField(required=False, allow_null=True)
    ply = serializers.IntegerField(required=False, allow_null=True)
    action = serializers.CharField(required=False, allow_null=True)


ERROR_RESPONSE = inline_serializer(
    "Error",
    {
        "message": serializers.CharField(help_text="what went wrong, in a sentence"),
        "extra": serializers.DictField(
            help_text="details: `fields` (each field's sentences, always lists), `error` (the engine's error), "
                      "`hint` (what to send instead), `path`"
        ),
        "errors": ProblemSerializer(many=True, required=False),
    },
)

# What each error status means, wherever an operation answers it (always ERROR_RESPONSE).
ERROR_MEANINGS = {
    400: "the request is not valid (`extra.fields` says what, field by field); also a session cookie "
         "the service cannot read (it is dropped)",
    401: "the credentials sent (a token, a session) are not valid; or the operation needs an account and none was sent",
    403: "the requester may read the match but not do this (only its owner may share or delete it; only its "
         "owner and the users it is shared with may review it); also a session-authenticated request without "
         "its CSRF token",
    404: "no such match, or one the requester may not read (the two are not told apart); no such hand, ply, "
         "review, comment, batch or page",
    409: "the stored record cannot be replayed that far (past its first illegal action) or at all by today's "
         "engine; a finished review takes no comments; the match holds as many comments as it may",
    415: "the body's content type is none the operation reads",
    422: "the Idempotency-Key went with another request",
    429: "too many attempts: `Retry-After` says how many seconds to wait",
}


def errors(*codes: int) -> dict[tuple[int, str], OpenApiResponse]:
    """The error answers of an operation, each in the one error format, as JSON (also where
    the operation answers something else: a record in TOML, say)."""
    return {
        (code, "application/json"): OpenApiResponse(ERROR_RESPONSE, description=ERROR_MEANINGS[code]) for code in codes
    }


# What every operation may answer: a session cookie it cannot read (400, before any view), and
# credentials that are not valid (401: DRF refuses a bad token before the view runs).
ANY = (400, 401)
RETRY_AFTER = OpenApiParameter(
    "Retry-After", OpenApiTypes.INT, OpenApiParameter.HEADER, response=[429], required=True,
    description="seconds to wait before trying again",
)


# --- strict fields: what a JSON body's schema says, enforced ---------------------------------
# DRF's fields coerce (a number for a text, 0 for false, "5" for 5): the schema says the type,
# so a body of another type is a 400, as a client generated from the schema expects.


class StrictCharField(serializers.CharField):
    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return str(super().to_internal_value(data))


class StrictBooleanField(serializers.BooleanField):
    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class StrictIntegerField(serializers.IntegerField):
    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return int(super().to_internal_value(data))

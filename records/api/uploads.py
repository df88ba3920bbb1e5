"""Uploads through the API: the bodies a record may come in (files; one record as the body,
TOML or JSON; the form-encoded body curl sends by default, read as the record) and the
answer's shape."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    extend_schema_field,
)
from rest_framework import parsers, serializers
from rest_framework.request import Request

from apikit.errors import ProblemSerializer
from records import services
from records.uploads import parse_uploads


class RawBody:
    """A request body read as the record itself: its own type, so that no form field
    (one named ``raw``, say) is ever taken for it."""

    def __init__(self, content: bytes, form_encoded: bool = False) -> None:
        self.content = content
        self.form_encoded = form_encoded


class TomlRecordParser(parsers.BaseParser):
    """A record sent as the whole request body, as TOML (``application/toml``)."""

    media_type = "application/toml"

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> RawBody:  # type: ignore[override]
        return RawBody(stream.read() if stream is not None else b"")


class JsonRecordParser(TomlRecordParser):
    """A record sent as the whole request body in BRN's JSON form (``application/json``): read
    as the record's own bytes, so that errors point into them."""

    media_type = "application/json"


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
    errors = ProblemSerializer(  # type: ignore[assignment]  # a field: DRF's metaclass pops it
        many=True, required=False, help_text="each file not stored, with its error and place",
    )
    review = serializers.IntegerField(required=False)


def uploaded_files(request: Request) -> list[services.UploadedFile]:
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
                parse_uploads([services.UploadedFile("upload.brn", raw)])
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

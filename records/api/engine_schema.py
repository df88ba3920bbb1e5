"""The engine's JSON in the API schema: ``buraco.schema``'s components (the table, a timeline
entry, each operation kind, an engine error) added under ``#/components/schemas/`` by a
drf-spectacular postprocessing hook, and referred to by the hand endpoints' answers."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema_field
from rest_framework import serializers

from buraco.schema import components


def ref(name: str) -> dict[str, str]:
    """A reference to one of the engine's components.

    >>> ref("TimelineEntry")
    {'$ref': '#/components/schemas/TimelineEntry'}
    """
    return {"$ref": f"#/components/schemas/{name}"}


def with_engine_components(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular postprocessing: the engine's components, beside the serializers'."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    for name, schema in components().items():
        schemas.setdefault(name, schema)
    return result


@extend_schema_field(ref("TimelineEntry"))
class TimelineEntryField(serializers.JSONField):
    """A timeline entry, as the engine writes it (buraco.replay.timeline_entry)."""


@extend_schema_field(ref("EngineError"))
class EngineErrorField(serializers.JSONField):
    """An engine error (buraco.errors.BuracoError.as_dict())."""


ETAG = OpenApiParameter("ETag", str, OpenApiParameter.HEADER, response=[200, 304],
                        description="the timeline's version: send it back in If-None-Match")
IF_NONE_MATCH = OpenApiParameter(
    "If-None-Match", str, OpenApiParameter.HEADER, required=False,
    description="the ETag of a timeline read before: 304 (no body) when it has not changed",
)

TIMELINE = OpenApiResponse(
    response={
        "type": "object",
        "required": ["match", "hand", "states", "error"],
        "properties": {
            "match": {"type": "integer"}, "hand": {"type": "integer"},
            "states": {"type": "array", "items": ref("TimelineEntry"), "description": "the deal (ply 0) first"},
            "error": {"allOf": [ref("EngineError")], "nullable": True,
                      "description": "the first illegal action, where the states stop; null for a legal hand"},
        },
    },
    description="every state of the hand (gzipped to clients that accept it)",
)
NOT_MODIFIED = OpenApiResponse(description="the timeline has not changed since the ETag sent in If-None-Match")
STATE = OpenApiResponse(
    response={"type": "object", "required": ["match", "hand", "state"],
              "properties": {"match": {"type": "integer"}, "hand": {"type": "integer"}, "state": ref("TimelineEntry")}},
    description="the table after that many actions (one timeline entry)",
)

"""/api/schema/: the OpenAPI schema as YAML (to tools), JSON (``?format=json``) or a page (to
a browser)."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.utils.html import escape
from drf_spectacular.renderers import (
    OpenApiJsonRenderer,
    OpenApiJsonRenderer2,
    OpenApiYamlRenderer,
    OpenApiYamlRenderer2,
)
from drf_spectacular.views import SpectacularAPIView
from rest_framework import renderers


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


# Links between operations (OpenAPI 3 "links"): what a create answers feeds the reads of it,
# so that a tool following the schema (schemathesis' stateful tests, a client's docs) knows
# that the match an upload stored is read at GET /api/matches/{match_id}/, and so on.
LINKS: dict[tuple[str, str, str], dict[str, dict[str, Any]]] = {
    ("/api/matches/", "post", "202"): {
        "GetMatch": {"operationId": "matches_retrieve", "parameters": {"match_id": "$response.body#/id"}},
        "GetReport": {"operationId": "matches_report_retrieve", "parameters": {"match_id": "$response.body#/id"}},
        "GetFindings": {"operationId": "matches_findings_retrieve", "parameters": {"match_id": "$response.body#/id"}},
        "GetTimeline": {"operationId": "matches_hands_timeline_retrieve",
                        "parameters": {"match_id": "$response.body#/id", "hand": 1}},
        "StartReview": {"operationId": "matches_reviews_create", "parameters": {"match_id": "$response.body#/id"}},
        "GetBatch": {"operationId": "batches_retrieve", "parameters": {"batch_id": "$response.body#/batch"}},
    },
    ("/api/matches/{match_id}/reviews/", "post", "201"): {
        "GetReview": {"operationId": "matches_reviews_retrieve",
                      "parameters": {"match_id": "$request.path.match_id", "review_id": "$response.body#/id"}},
        "Comment": {"operationId": "matches_reviews_comments_create",
                    "parameters": {"match_id": "$request.path.match_id", "review_id": "$response.body#/id"}},
        "ListComments": {"operationId": "matches_reviews_comments_list",
                         "parameters": {"match_id": "$request.path.match_id", "review_id": "$response.body#/id"}},
    },
    ("/api/matches/{match_id}/reviews/{review_id}/comments/", "post", "201"): {
        "Reply": {"operationId": "matches_reviews_comments_replies_create",
                  "parameters": {"match_id": "$request.path.match_id", "review_id": "$request.path.review_id",
                                 "comment_id": "$response.body#/id"}},
    },
}


def with_links_and_required_bodies(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular postprocessing: every request body the API takes is required (an
    operation with a body reads it), and the links of :data:`LINKS`."""
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
            if isinstance(operation, dict) and "requestBody" in operation:
                operation["requestBody"]["required"] = True
            for status_code, response in (operation.get("responses") or {}).items():
                links = LINKS.get((path, method, status_code))
                if links:
                    response["links"] = links
    return result

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

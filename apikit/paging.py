"""Paged lists: ``{"count", "next", "previous", "results"}``, ``?page=`` from 1 and
``?page_size=`` (at most ``MAX_PAGE_SIZE``), the same on every list of the API."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiParameter, inline_serializer
from rest_framework import serializers
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response

MAX_PAGE_SIZE = 500


class Pages(PageNumberPagination):
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE


PAGE_PARAMETERS = [
    OpenApiParameter("page", {"type": "integer", "minimum": 1},
                     description="page number, from 1; past the last: 404"),
    OpenApiParameter("page_size", {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE},
                     description=f"items a page (the site's default when left out, at most {MAX_PAGE_SIZE})"),
]


def paged(request: Request, items: QuerySet[Any], serializer: type[serializers.BaseSerializer[Any]],
          view: Any = None) -> Response:
    """One page of ``items`` serialized, with the count and the links to the pages around it."""
    pages = Pages()
    page = pages.paginate_queryset(items, request, view=view)
    return pages.get_paginated_response(serializer(page, many=True).data)


def paged_schema(name: str, serializer: serializers.BaseSerializer[Any]) -> Any:
    """The schema of a page of ``serializer``'s items (``many=True``), named ``name``."""
    return inline_serializer(name, {
        "count": serializers.IntegerField(),
        "next": serializers.URLField(allow_null=True),
        "previous": serializers.URLField(allow_null=True),
        "results": serializer,
    })

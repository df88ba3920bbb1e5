"""Paged lists: ``{"count", "next", "previous", "results"}``, the same on every list of the
API: ``?page=`` from 1, ``?page_size=`` (at most ``MAX_PAGE_SIZE``) and ``?ordering=`` (one of
the list's orderings). A page number below 1 or not a number, a size out of range or an
ordering the list does not have is a 400 naming the parameter; a page past the last, a 404
(there is no such page)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiParameter, inline_serializer
from rest_framework import exceptions, serializers
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response

MAX_PAGE_SIZE = 500
DEFAULT_PAGE_SIZE = 50


class Pages(PageNumberPagination):
    page_size = DEFAULT_PAGE_SIZE
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE

    def get_page_size(self, request: Request) -> int:
        given = request.query_params.get(self.page_size_query_param)
        if given is None:
            return DEFAULT_PAGE_SIZE
        if not given.isdigit() or not 1 <= int(given) <= MAX_PAGE_SIZE:
            raise exceptions.ValidationError({"page_size": [f"a number from 1 to {MAX_PAGE_SIZE}"]})
        return int(given)

    def paginate_queryset(self, queryset: Any, request: Request, view: Any = None) -> list[Any] | None:
        given = request.query_params.get(self.page_query_param)
        if given is not None and (not given.isdigit() or int(given) < 1):
            raise exceptions.ValidationError({"page": ["a page number, from 1"]})
        return super().paginate_queryset(queryset, request, view)  # past the last: 404


def page_parameters(orderings: Sequence[str] = ()) -> list[OpenApiParameter]:
    """The paging parameters, and ``ordering`` when the list has several (the first is its default)."""
    parameters = [
        OpenApiParameter("page", {"type": "integer", "minimum": 1},
                         description="page number, from 1 (not a number, or below 1: a 400; past the last: a 404)"),
        OpenApiParameter("page_size", {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE},
                         description=f"items a page ({DEFAULT_PAGE_SIZE} when left out, at most {MAX_PAGE_SIZE})"),
    ]
    if orderings:
        parameters.append(OpenApiParameter(
            "ordering", {"type": "string", "enum": list(orderings)},
            description=f"the order of the list (a leading - reverses it); {orderings[0]} when left out",
        ))
    return parameters


PAGE_PARAMETERS = page_parameters()


def ordered(request: Request, items: QuerySet[Any], orderings: Mapping[str, Sequence[str]]) -> QuerySet[Any]:
    """``items`` in the order ``?ordering=`` names (its fields, ties broken as the mapping says),
    the mapping's first when left out."""
    if not orderings:
        return items
    name = request.query_params.get("ordering") or next(iter(orderings))
    if name not in orderings:
        raise exceptions.ValidationError({"ordering": [f"one of {', '.join(orderings)}"]})
    return items.order_by(*orderings[name])


def paged(request: Request, items: QuerySet[Any], serializer: type[serializers.BaseSerializer[Any]],
          view: Any = None, *, orderings: Mapping[str, Sequence[str]] | None = None,
          context: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> Response:
    """One page of ``items`` (in ``?ordering=``'s order) serialized, with the count, the links to
    the pages around it and ``extra`` keys beside them."""
    pages = Pages()
    page = pages.paginate_queryset(ordered(request, items, orderings or {}), request, view=view)
    response = pages.get_paginated_response(serializer(page, many=True, context=context or {}).data)
    if extra:
        response.data = {**extra, **response.data}
    return response


def paged_schema(name: str, serializer: serializers.BaseSerializer[Any], **extra: serializers.Field[Any, Any, Any, Any]) -> Any:
    """The schema of a page of ``serializer``'s items (``many=True``), named ``name``, with
    ``extra`` fields beside the page's."""
    return inline_serializer(name, {
        **extra,
        "count": serializers.IntegerField(),
        "next": serializers.URLField(allow_null=True),
        "previous": serializers.URLField(allow_null=True),
        "results": serializer,
    })

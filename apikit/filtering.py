"""A django-filter FilterSet's filters as the schema's query parameters, so that a list's
filters are declared once (the FilterSet) for the API, its schema and a page's form."""

from __future__ import annotations

from typing import Any

from django import forms
from drf_spectacular.utils import OpenApiParameter


def _schema_of(field: forms.Field) -> dict[str, Any]:
    if isinstance(field, forms.ChoiceField):
        choices: Any = field.choices
        return {"type": "string", "enum": [value for value, _ in choices if value != ""]}
    if isinstance(field, forms.DateField):
        return {"type": "string", "format": "date"}
    if isinstance(field, forms.IntegerField):
        bounds = {"minimum": field.min_value, "maximum": field.max_value}
        return {"type": "integer", **{k: v for k, v in bounds.items() if v is not None}}
    if isinstance(field, forms.NullBooleanField | forms.BooleanField):
        return {"type": "boolean"}
    schema: dict[str, Any] = {"type": "string"}
    longest = getattr(field, "max_length", None)
    if longest:
        schema["maxLength"] = longest
    return schema


def filter_parameters(filterset_class: Any) -> list[OpenApiParameter]:
    """One query parameter per filter of ``filterset_class``, typed from its form field."""
    parameters = []
    for name, declared in filterset_class.base_filters.items():
        field = declared.field
        description = str(field.help_text or declared.label or name)
        parameters.append(OpenApiParameter(name, _schema_of(field), OpenApiParameter.QUERY, description=description))
    return parameters


def refuse_empty(query: Any, filterset_class: Any) -> None:
    """A filter given empty (``?variant=``) is a 400 in the API, as its schema says: a page's
    form sends empties for "any", an API client leaves the parameter out."""
    from rest_framework import exceptions

    empty = [name for name in filterset_class.base_filters if name in query and query.get(name) == ""]
    if empty:
        raise exceptions.ValidationError({name: ["give a value, or leave the parameter out"] for name in empty})

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
    # Empty: leave the parameter out; a NUL is refused by Django's form field (no text holds one).
    schema: dict[str, Any] = {"type": "string", "minLength": 1, "pattern": "^[^\\x00]*$"}
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
    """In the API a filter is what its schema says: given empty (``?variant=``) or, for a
    boolean, other than ``true`` or ``false``, it is a 400 (a page's form sends empties for
    "any" and a checkbox's "on"; an API client leaves the parameter out)."""
    from django_filters import BooleanFilter
    from rest_framework import exceptions

    bad: dict[str, list[str]] = {}
    for name, declared in filterset_class.base_filters.items():
        if name not in query:
            continue
        value = query.get(name)
        if value == "":
            bad[name] = ["give a value, or leave the parameter out"]
        elif isinstance(declared, BooleanFilter) and value not in ("true", "false"):
            bad[name] = ["true or false"]
    if bad:
        raise exceptions.ValidationError(bad)

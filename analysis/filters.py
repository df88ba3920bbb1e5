"""The findings explorer's filters, declared once (django-filter): the query parameters of
``GET /api/findings/`` (and its schema), of its CSV export, and the ``/findings/`` page's form."""

from __future__ import annotations

from typing import Any

import django_filters
from django import forms
from django.db.models import QuerySet

from buraco.analysis import KINDS, OUTCOMES, SEVERITIES
from buraco.rules import VARIANTS
from records.filters import MAX_ID, IntegerFilter

from .models import Finding, player_key

# ?ordering=: by points at stake (the most first, by default) or by when the match was played
# (the upload's day for a record without a date), each way.
FINDING_EXPLORER_ORDERINGS: dict[str, tuple[str, ...]] = {
    "-points": ("-points", "-id"),
    "points": ("points", "id"),
    "-date": ("-match__created_at", "-id"),
    "date": ("match__created_at", "id"),
}


class FindingFilter(django_filters.FilterSet):
    """Filters over the findings of the matches one may read (``selectors.explore_findings``)."""

    player = django_filters.CharFilter(method="by_player", max_length=100,
                                       help_text="whose findings: a player's name as the records write it, any case")
    kind = django_filters.ChoiceFilter(choices=[(k, k) for k in KINDS], empty_label="any kind")
    severity = django_filters.ChoiceFilter(method="at_least", choices=[(s, s) for s in SEVERITIES],
                                           empty_label="any severity", help_text="this severity or graver")
    outcome = django_filters.ChoiceFilter(choices=[(o, o) for o in OUTCOMES], empty_label="any outcome")
    variant = django_filters.ChoiceFilter(field_name="match__variant", choices=[(v, v) for v in VARIANTS],
                                          empty_label="any rule set")
    date_from = django_filters.DateFilter(field_name="match__created_at", lookup_expr="date__gte",
                                          help_text="matches uploaded on or after",
                                          widget=forms.DateInput(attrs={"type": "date"}))
    date_to = django_filters.DateFilter(field_name="match__created_at", lookup_expr="date__lte",
                                        help_text="matches uploaded on or before",
                                        widget=forms.DateInput(attrs={"type": "date"}))
    min_points = IntegerFilter(field_name="points", lookup_expr="gte", min_value=0, max_value=MAX_ID,
                                             help_text="only findings worth at least this many points")
    match = IntegerFilter(field_name="match_id", min_value=1, max_value=MAX_ID,
                                        help_text="one match's findings")

    class Meta:
        model = Finding
        fields: list[str] = []

    def __init__(self, data: Any = None, **kwargs: Any) -> None:
        super().__init__(data, queryset=Finding.objects.none(), **kwargs)

    def by_player(self, findings: QuerySet[Finding], name: str, value: str) -> QuerySet[Finding]:
        return findings.filter(players__contains=player_key(value)) if value else findings

    def at_least(self, findings: QuerySet[Finding], name: str, value: str) -> QuerySet[Finding]:
        return findings.filter(severity__in=SEVERITIES[SEVERITIES.index(value):]) if value else findings

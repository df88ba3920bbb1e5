"""The match list's filters, declared once (django-filter): the API's query parameters
(GET /api/matches/, and its schema) and the list page's form are this FilterSet."""

from __future__ import annotations

from typing import Any

import django_filters
from django import forms
from django.contrib.auth.models import AnonymousUser, User
from django.db.models import QuerySet

from buraco.rules import VARIANTS

from .models import Match

MAX_ID = 2**31 - 1  # integer query parameters stay in every database's integer range


class IntegerFilter(django_filters.NumberFilter):
    field_class = forms.IntegerField


class Tick(forms.CheckboxInput):
    """A checkbox on the page ("on"), a boolean in a query string (true, false, 1, 0)."""

    def value_from_datadict(self, data: Any, files: Any, name: str) -> Any:
        value = data.get(name)
        if isinstance(value, str):
            return {"true": True, "1": True, "on": True, "yes": True,
                    "false": False, "0": False, "off": False, "no": False, "": False}.get(value.lower())
        return value


class MatchFilter(django_filters.FilterSet):
    """Filters over the matches ``user`` may read (``records.selectors.match_list``, each
    annotated with its ``status``). A visitor, who owns nothing, is not offered ``mine``."""

    variant = django_filters.ChoiceFilter(choices=[(v, v) for v in VARIANTS], empty_label="any rule set")
    player = django_filters.CharFilter(method="by_player", max_length=100, help_text="one of the match's players, any case")
    status = django_filters.ChoiceFilter(choices=Match.Status.choices, empty_label="any status")
    date_from = django_filters.DateFilter(field_name="created_at", lookup_expr="date__gte", help_text="uploaded on or after",
                                          widget=forms.DateInput(attrs={"type": "date"}))
    date_to = django_filters.DateFilter(field_name="created_at", lookup_expr="date__lte", help_text="uploaded on or before",
                                        widget=forms.DateInput(attrs={"type": "date"}))
    played_from = django_filters.DateFilter(field_name="played_on", lookup_expr="gte",
                                            help_text="the record's date tag on or after")
    played_to = django_filters.DateFilter(field_name="played_on", lookup_expr="lte",
                                          help_text="the record's date tag on or before")
    batch = IntegerFilter(field_name="batch_id", min_value=1, max_value=MAX_ID, help_text="uploaded in this batch")
    mine = django_filters.BooleanFilter(method="only_mine", label="only mine", widget=Tick,
                                        help_text="only the matches you uploaded")

    class Meta:
        model = Match
        fields: list[str] = []

    def __init__(self, data: Any = None, *, user: User | AnonymousUser, **kwargs: Any) -> None:
        super().__init__(data, queryset=Match.objects.none(), **kwargs)
        self.user = user
        if not user.is_authenticated:
            del self.filters["mine"]

    def by_player(self, matches: QuerySet[Match], name: str, value: str) -> QuerySet[Match]:
        return matches.filter(player_names__icontains=value.lower()) if value else matches

    def only_mine(self, matches: QuerySet[Match], name: str, value: bool | None) -> QuerySet[Match]:
        return matches.filter(owner=self.user) if value and self.user.is_authenticated else matches


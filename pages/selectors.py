"""Reads the pages need beyond what records, analysis and reviews offer their APIs: what the
match list shows beside each match, in the one query."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Count, Exists, F, IntegerField, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce

from analysis.models import Finding
from records.filters import MatchFilter
from records.models import Hand, Job, Match, MatchQuerySet
from records.selectors import match_list


def match_list_rows(*, user: User | AnonymousUser, filters: MatchFilter | None) -> MatchQuerySet:
    """:func:`records.selectors.match_list` with what the list page shows beside each match, in the same query
    (subqueries, not a query per row): ``scored_hands``, how many hands from hand 1 the
    totals sum (as :func:`records.selectors.totals_through_hand`); ``analysis_status``, its analyze job's status
    (None before its verdict); ``finding_count``, the findings its analysis stored;
    ``shared_with_viewer``, whether it is shared with ``user``; and its batch."""
    first_unscored = Hand.objects.filter(match=OuterRef("pk"), scores__isnull=True).order_by("number").values("number")[:1]
    findings = Finding.objects.filter(match=OuterRef("pk")).order_by().values("match").annotate(n=Count("pk")).values("n")
    analysis = Job.objects.filter(match=OuterRef("pk"), kind=Job.Kind.ANALYZE).values("status")[:1]
    shared = (
        Exists(Match.shared_with.through.objects.filter(match=OuterRef("pk"), user=user.pk))
        if user.is_authenticated else Value(False)
    )
    # The analysis status is a column here, so the jobs need not be prefetched as the API does.
    return match_list(user=user, filters=filters).prefetch_related(None).select_related("batch").annotate(
        scored_hands=Coalesce(Subquery(first_unscored) - 1, F("hand_count"), output_field=IntegerField()),
        analysis_status=Subquery(analysis),
        finding_count=Coalesce(Subquery(findings, output_field=IntegerField()), 0),
        shared_with_viewer=shared,
    )

"""The analysis API: one view per operation, small serializers; the match's permissions.

A match's findings are readable by whoever may read the match (its share link too);
anyone else gets 404, as for every read of a match.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from typing import Any

from django.core.validators import RegexValidator
from django.http import HttpResponseBase, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import exceptions, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apikit.errors import ANY, errors
from apikit.filtering import filter_parameters, refuse_empty
from apikit.paging import ordered, page_parameters, paged, paged_schema
from buraco.analysis import KINDS, OUTCOMES, SEVERITIES
from buraco.rules import VARIANTS
from records.api.access import SHARE_PARAMETER, hand_number, readable_match
from records.api.serializers import AnalysisStatusSerializer, analysis_status

from . import selectors
from .extras import hand_extras
from .filters import FINDING_EXPLORER_ORDERINGS, FindingFilter
from .models import FINDING_FIELDS, Finding, whose_players
from .players import PlayerFilters, player_page


class FindingSerializer(serializers.ModelSerializer[Finding]):
    """The keys of ``buraco.analysis.Finding.as_dict()`` (and of ``python -m buraco analyze --json``):
    its fields, read from the engine's dataclass (``analysis.models.FINDING_FIELDS``)."""

    witness = serializers.ListField(child=serializers.CharField(), help_text="the better line, as BRN actions")
    causes = serializers.ListField(child=serializers.ListField(child=serializers.CharField()))
    kind = serializers.ChoiceField(choices=list(KINDS))
    outcome = serializers.ChoiceField(choices=list(OUTCOMES), allow_null=True,
                                      help_text="a missed chance's: did the side get those points later in the hand")
    severity = serializers.ChoiceField(choices=list(SEVERITIES), allow_null=True,
                                       help_text="what it cost, graded per rule set (docs/analysis.md)")

    class Meta:
        model = Finding
        fields = list(FINDING_FIELDS)


class FindingFilterSerializer(serializers.Serializer[Any]):
    kind = serializers.ChoiceField(choices=list(KINDS), required=False)
    severity = serializers.ChoiceField(
        choices=list(SEVERITIES), required=False,
        help_text="only findings at least this severe (inaccuracy < mistake < blunder)",
    )
    outcome = serializers.ChoiceField(choices=list(OUTCOMES), required=False)
    min_points = serializers.IntegerField(
        required=False, default=0, min_value=-(2**31), max_value=2**31 - 1,  # what every database's integer holds
        help_text="only findings worth at least this many points (those without points only at 0)",
    )


# The lists' orders (?ordering=): the engine's (hand, ply, side, kind) by default.
FINDING_ORDERINGS = {"hand": ("id",), "-points": ("-points", "id"), "points": ("points", "id")}


def findings_schema(name: str, **extra: Any) -> Any:
    return paged_schema(name, FindingSerializer(many=True), match=serializers.IntegerField(),
                        analysis=AnalysisStatusSerializer(), **extra)


def _filters(request: Request) -> dict[str, Any]:
    empty = [str(name) for name in FindingFilterSerializer().fields.keys() if request.query_params.get(str(name)) == ""]
    if empty:
        raise exceptions.ValidationError({name: ["give a value, or leave the parameter out"] for name in empty})
    filters = FindingFilterSerializer(data=request.query_params)
    filters.is_valid(raise_exception=True)
    return dict(filters.validated_data)


class MatchFindingsApi(APIView):
    @extend_schema(
        summary="The analysis of a match: its findings, in hand and ply order, paged",
        parameters=[FindingFilterSerializer, SHARE_PARAMETER, *page_parameters(list(FINDING_ORDERINGS))],
        responses={200: findings_schema("MatchFindings"), **errors(*ANY, 404)},
    )
    def get(self, request: Request, match_id: int) -> Response:
        match = readable_match(request, match_id)
        return paged(request, selectors.findings_of(match=match, **_filters(request)), FindingSerializer, self,
                     orderings=FINDING_ORDERINGS, extra={"match": match.pk, "analysis": analysis_status(match)})


# Keys an app above analysis adds to a hand's answer (analysis.extras): null until it answers.
HAND_EXTRA_KEYS = ("luck",)
LUCK_FIELD = serializers.DictField(
    allow_null=True,
    help_text="the luck of the hand's stock draws, as GET /api/matches/{id}/hands/{n}/luck/ answers it; "
              "null until the luck job has run",
)


class HandFindingsApi(APIView):
    @extend_schema(
        summary="The analysis of one hand of a match, paged",
        parameters=[FindingFilterSerializer, SHARE_PARAMETER, *page_parameters(list(FINDING_ORDERINGS))],
        responses={200: findings_schema("HandFindings", hand=serializers.IntegerField(), luck=LUCK_FIELD),
                   **errors(*ANY, 404)},
    )
    def get(self, request: Request, match_id: int, hand: int) -> Response:
        match = readable_match(request, match_id)
        number = hand_number(match, hand)
        return paged(request, selectors.findings_of(match=match, hand=number, **_filters(request)), FindingSerializer,
                     self, orderings=FINDING_ORDERINGS,
                     extra={"match": match.pk, "hand": number, "analysis": analysis_status(match),
                            **hand_extras(match, number, HAND_EXTRA_KEYS)})


def whose_names(finding: Finding) -> list[str]:
    """The players a finding is about, as the record writes them: its seat's, or its side's."""
    return whose_players(list(finding.match.players or []), finding.match.sides, finding.seat, finding.side)


def replay_path(finding: Finding) -> str:
    """The replay page at the finding's ply (the deal for a scoring mistake, which has none)."""
    return f"/matches/{finding.match_id}/hands/{finding.hand}/replay/?ply={finding.ply or 0}"


class ExplorerFindingSerializer(FindingSerializer):
    """A row of the findings explorer: the finding, its match, whose it is and the replay link."""

    match = serializers.IntegerField(source="match_id")
    variant = serializers.CharField(source="match.variant")
    played_on = serializers.DateField(source="match.played_on", allow_null=True, help_text="the record's date tag")
    uploaded_at = serializers.DateTimeField(source="match.created_at")
    players = serializers.SerializerMethodField(help_text="whose finding: its seat's player, or its side's")
    replay = serializers.SerializerMethodField(help_text="the replay page at the finding's ply")

    class Meta(FindingSerializer.Meta):
        fields = ["match", "variant", "played_on", "uploaded_at", "players", *FINDING_FIELDS, "replay"]

    def get_players(self, finding: Finding) -> list[str]:
        return whose_names(finding)

    def get_replay(self, finding: Finding) -> str:
        return replay_path(finding)


def explorer_filters(request: Request) -> FindingFilter:
    """The explorer's filters from the query, valid, or a 400 naming each bad one."""
    refuse_empty(request.query_params, FindingFilter)
    filters = FindingFilter(request.query_params)
    if not filters.is_valid():
        raise exceptions.ValidationError(filters.errors)
    return filters


class FindingExplorerApi(APIView):
    @extend_schema(
        summary="Every finding of the analysed matches you may read, filtered and sorted, paged",
        description="The findings explorer (/findings/): a game stored twice is listed once. "
                    "The same rows as CSV: GET /api/findings/export/.",
        parameters=[*filter_parameters(FindingFilter), *page_parameters(list(FINDING_EXPLORER_ORDERINGS))],
        responses={200: paged_schema("ExplorerFindings", ExplorerFindingSerializer(many=True)), **errors(*ANY, 404)},
    )
    def get(self, request: Request) -> Response:
        findings = selectors.explore_findings(user=request.user, filters=explorer_filters(request))
        return paged(request, findings, ExplorerFindingSerializer, self, orderings=FINDING_EXPLORER_ORDERINGS)


EXPORT_LIMIT = 50_000  # rows of one CSV export: a spreadsheet's worth, a bounded response
CSV_COLUMNS = ["match", "variant", "played_on", "uploaded_at", "players", "hand", "ply", "seat", "side", "kind",
               "severity", "outcome", "points", "turns", "first_ply", "last_ply", "message", "witness", "replay"]


def spreadsheet_safe(text: str) -> str:
    """A text cell a spreadsheet shows as text: one a record's author wrote (a player's name)
    that starts like a formula gets a leading apostrophe.

    >>> spreadsheet_safe("=HYPERLINK(1)"), spreadsheet_safe("Ana")
    ("'=HYPERLINK(1)", 'Ana')
    """
    return f"'{text}" if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


class FindingExportApi(APIView):
    @extend_schema(
        summary="The findings explorer's rows as CSV (the same filters and orderings, unpaged)",
        description=f"At most {EXPORT_LIMIT} rows; `witness` is the better line's actions joined by `; `, "
                    "`players` the names joined by `, `, `replay` an absolute URL.",
        parameters=[*filter_parameters(FindingFilter), *page_parameters(list(FINDING_EXPLORER_ORDERINGS))[2:]],
        responses={(200, "text/csv"): OpenApiTypes.STR, **errors(*ANY)},
    )
    def get(self, request: Request) -> HttpResponseBase:
        findings = ordered(request, selectors.explore_findings(user=request.user, filters=explorer_filters(request)),
                           FINDING_EXPLORER_ORDERINGS)
        base = request.build_absolute_uri("/").rstrip("/")

        def rows() -> Iterator[str]:
            out = io.StringIO()
            writer = csv.writer(out)
            writer.writerow(CSV_COLUMNS)
            for finding in findings[:EXPORT_LIMIT].iterator(chunk_size=1000):
                writer.writerow([
                    finding.match_id, finding.match.variant, finding.match.played_on or "",
                    finding.match.created_at.isoformat(), spreadsheet_safe(", ".join(whose_names(finding))), finding.hand,
                    "" if finding.ply is None else finding.ply, finding.seat or "", finding.side, finding.kind,
                    finding.severity or "", finding.outcome or "", "" if finding.points is None else finding.points,
                    finding.turns, finding.first_ply or "", finding.last_ply or "", spreadsheet_safe(finding.message),
                    "; ".join(finding.witness or []), base + replay_path(finding),
                ])
                yield out.getvalue()
                out.seek(0)
                out.truncate()
            yield out.getvalue()

        response = StreamingHttpResponse(rows(), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = 'attachment; filename="findings.csv"'
        return response


class PlayerFilterSerializer(serializers.Serializer[Any]):
    """The player page's filters (GET /api/players/{name}/ and /players/{name}/)."""

    variant = serializers.ChoiceField(choices=list(VARIANTS), required=False)
    date_from = serializers.DateField(required=False, help_text="matches uploaded on or after")
    date_to = serializers.DateField(required=False, help_text="matches uploaded on or before")
    opponent = serializers.CharField(required=False, max_length=100, validators=[RegexValidator(r"^[^\x00]*$")],
                                     help_text="only the player's matches against this name (the site's figures keep all)")

    def as_filters(self) -> PlayerFilters:
        return PlayerFilters(**self.validated_data)


def player_filters(query: Any) -> PlayerFilters:
    """The filters from a query, or a 400 naming each bad one (an empty one is left out)."""
    given = {key: query.get(key) for key in PlayerFilterSerializer().fields if query.get(key)}
    filters = PlayerFilterSerializer(data=given)
    filters.is_valid(raise_exception=True)
    return filters.as_filters()


def _figure(name: str) -> Any:
    return inline_serializer(name, {"median": serializers.FloatField(allow_null=True),
                                    "percentile": serializers.FloatField(allow_null=True)})


def _counted(name: str) -> Any:
    return inline_serializer(name, {"findings": serializers.IntegerField(),
                                    "per_100_turns": serializers.FloatField(allow_null=True),
                                    "site": _figure(f"Site{name}")})


PLAYER_RESPONSE = inline_serializer("Player", {
    "player": serializers.CharField(),
    "matches": serializers.IntegerField(help_text="analysed matches of the player you may read (a game stored twice once)"),
    "hands": serializers.IntegerField(),
    "turns": serializers.IntegerField(),
    "findings": serializers.IntegerField(),
    "points_lost": serializers.IntegerField(help_text="the points at stake in the player's findings"),
    "findings_per_100_turns": serializers.FloatField(allow_null=True),
    "points_lost_per_hand": serializers.FloatField(allow_null=True),
    "by_kind": serializers.DictField(child=_counted("PlayerKindCount")),
    "by_severity": serializers.DictField(child=_counted("PlayerSeverityCount")),
    "site": inline_serializer("PlayerSite", {
        "players": serializers.IntegerField(help_text="players of the matches you may read, within the filters"),
        "findings_per_100_turns": _figure("SiteFindingsFigure"),
        "points_lost_per_hand": _figure("SitePointsFigure"),
    }),
    "over_time": inline_serializer("PlayerMatch", {
        "match": serializers.IntegerField(), "variant": serializers.CharField(),
        "uploaded_at": serializers.DateTimeField(), "played_on": serializers.DateField(allow_null=True),
        "seat": serializers.IntegerField(), "opponents": serializers.ListField(child=serializers.CharField()),
        "hands": serializers.IntegerField(), "turns": serializers.IntegerField(), "findings": serializers.IntegerField(),
        "findings_per_100_turns": serializers.FloatField(allow_null=True),
        "points_lost_per_hand": serializers.FloatField(allow_null=True),
    }, many=True),
    "luck": serializers.DictField(
        allow_null=True,
        help_text="the luck of the player's stock draws over these matches: its sum, the side's score and the "
                  "luck-adjusted result (score minus the side's luck); null before any luck job has run",
    ),
})

NAME_PARAMETER = OpenApiParameter("name", {"type": "string", "pattern": "^[^/]+$"}, OpenApiParameter.PATH,
                                  description="a player's name, as the records write it (any case)")


class PlayerApi(APIView):
    @extend_schema(
        summary="A player across their analysed games: figures beside the site's, and per match over time",
        description=(
            "Over the analysed matches you may read. Each figure (findings per 100 turns, points lost per hand: "
            "lower is better) comes with the same figure's median over every player of those matches and the "
            "player's percentile among them (the share of players below, ties counted half)."
        ),
        parameters=[NAME_PARAMETER, PlayerFilterSerializer],
        responses={200: PLAYER_RESPONSE, **errors(*ANY, 404)},
    )
    def get(self, request: Request, name: str) -> Response:
        filters = player_filters(request.query_params)
        page = None if "\x00" in name else player_page(user=request.user, name=name, filters=filters)
        if page is None:
            raise exceptions.NotFound(f"no analysed match of {name!r} that you may read")
        return Response(page)


KIND_SUMMARY = inline_serializer(
    "KindSummary",
    {
        "findings": serializers.IntegerField(),
        "per_100_turns": serializers.FloatField(allow_null=True),
        "points": serializers.IntegerField(help_text="the points at stake in these findings"),
    },
)


class PlayerSummaryApi(APIView):
    @extend_schema(
        summary="A player's findings per 100 turns, by kind, over the analysed matches you may read",
        description=(
            "The player is found by name (without case) among each match's players; their turns are their "
            "draws and takes. A finding is theirs when it is about their seat, or (a scoring mistake) their side."
        ),
        parameters=[NAME_PARAMETER],
        responses={
            200: inline_serializer(
                "PlayerSummary",
                {
                    "player": serializers.CharField(),
                    "matches": serializers.IntegerField(help_text="matches of this player you may read"),
                    "analysed_matches": serializers.IntegerField(),
                    "hands": serializers.IntegerField(),
                    "turns": serializers.IntegerField(),
                    "findings": serializers.IntegerField(),
                    "findings_per_100_turns": serializers.FloatField(allow_null=True),
                    "points_at_stake": serializers.IntegerField(),
                    "by_kind": serializers.DictField(child=KIND_SUMMARY),
                },
            ),
            **errors(*ANY, 404),
        },
    )
    def get(self, request: Request, name: str) -> Response:
        # No record names a player with NUL (a database text cannot even hold it): nobody to find.
        summary = None if "\x00" in name else selectors.player_summary(user=request.user, name=name)
        if summary is None:
            raise exceptions.NotFound(f"no match of {name!r} that you may read")
        return Response(summary)

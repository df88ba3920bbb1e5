"""The analysis API: one view per operation, small serializers; the match's permissions.

A match's findings are readable by whoever may read the match (its share link too);
anyone else gets 404, as for every read of a match.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import exceptions, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apikit.errors import ANY, errors
from buraco.analysis import KINDS
from records.api.access import SHARE_PARAMETER, hand_number, readable_match
from records.api.serializers import AnalysisStatusSerializer, analysis_status

from . import selectors
from .models import Finding


class FindingSerializer(serializers.ModelSerializer[Finding]):
    """The keys of ``buraco.analysis.Finding.as_dict()`` (and of ``python -m buraco analyze --json``)."""

    witness = serializers.ListField(child=serializers.CharField(), help_text="the better line, as BRN actions")
    causes = serializers.ListField(child=serializers.ListField(child=serializers.CharField()))

    class Meta:
        model = Finding
        fields = ["hand", "ply", "seat", "side", "kind", "points", "message", "witness", "cause", "causes", "version"]


class FindingFilterSerializer(serializers.Serializer[Any]):
    kind = serializers.ChoiceField(choices=list(KINDS), required=False)
    min_points = serializers.IntegerField(
        required=False, default=0, min_value=-(2**31), max_value=2**31 - 1,  # what every database's integer holds
        help_text="only findings worth at least this many points (those without points only at 0)",
    )


FINDINGS_RESPONSE = inline_serializer(
    "MatchFindings",
    {
        "match": serializers.IntegerField(),
        "hand": serializers.IntegerField(required=False),
        "analysis": AnalysisStatusSerializer(),
        "count": serializers.IntegerField(),
        "findings": FindingSerializer(many=True),
    },
)


def _filters(request: Request) -> dict[str, Any]:
    empty = [str(name) for name in FindingFilterSerializer().fields.keys() if request.query_params.get(str(name)) == ""]
    if empty:
        raise exceptions.ValidationError({name: ["give a value, or leave the parameter out"] for name in empty})
    filters = FindingFilterSerializer(data=request.query_params)
    filters.is_valid(raise_exception=True)
    return dict(filters.validated_data)


class MatchFindingsApi(APIView):
    @extend_schema(
        summary="The analysis of a match: every finding, in hand and ply order",
        parameters=[FindingFilterSerializer, SHARE_PARAMETER],
        responses={200: FINDINGS_RESPONSE, **errors(*ANY, 404)},
    )
    def get(self, request: Request, match_id: int) -> Response:
        match = readable_match(request, match_id)
        findings = selectors.findings_of(match=match, **_filters(request))
        data = FindingSerializer(findings, many=True).data
        return Response({"match": match.pk, "analysis": analysis_status(match), "count": len(data), "findings": data})


class HandFindingsApi(APIView):
    @extend_schema(
        summary="The analysis of one hand of a match",
        parameters=[FindingFilterSerializer, SHARE_PARAMETER],
        responses={200: FINDINGS_RESPONSE, **errors(*ANY, 404)},
    )
    def get(self, request: Request, match_id: int, hand: int) -> Response:
        match = readable_match(request, match_id)
        hand = hand_number(match, hand)
        findings = selectors.findings_of(match=match, hand=hand, **_filters(request))
        data = FindingSerializer(findings, many=True).data
        return Response(
            {"match": match.pk, "hand": hand, "analysis": analysis_status(match), "count": len(data), "findings": data}
        )


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
        parameters=[OpenApiParameter("name", {"type": "string", "pattern": "^[^/]+$"}, OpenApiParameter.PATH,
                                     description="a player's name, as the records write it (any case)")],
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

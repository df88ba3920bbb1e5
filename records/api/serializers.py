"""The match's answers: summaries, details, hands' verdicts, what the requester may do, and
the list's filters."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import (
    extend_schema_field,
)
from rest_framework import serializers

from records import permissions, selectors
from records.models import Job, Match

from .shapes import (
    ClaimedSerializer,
    EngineErrorSerializer,
    MetadataField,
    MismatchSerializer,
    WinnerSerializer,
)


class UnsearchedSerializer(serializers.Serializer[Any]):
    """A turn decision the analysis's CPU budget cut: not judged, and said so."""

    hand = serializers.IntegerField()
    ply = serializers.IntegerField(help_text="the turn's draw step")
    seat = serializers.IntegerField()
    search = serializers.CharField(help_text="canasta or going out")
    reason = serializers.CharField()


class AnalysisStatusSerializer(serializers.Serializer[Any]):
    """The match's analysis job: null status until the match has a verdict to analyse."""

    status = serializers.ChoiceField(choices=Job.Status.choices, allow_null=True)
    version = serializers.CharField(allow_null=True, help_text="the analysis version of the stored findings")
    partial = serializers.BooleanField(  # type: ignore[assignment]  # a field, popped by DRF's metaclass
        allow_null=True, help_text="its CPU budget cut some decisions (listed in `unsearched`); null until done"
    )
    unsearched = UnsearchedSerializer(many=True)


def analysis_status(match: Match) -> dict[str, Any]:
    job = match.job(Job.Kind.ANALYZE)
    if job is None:
        return {"status": None, "version": None, "partial": None, "unsearched": []}
    result = job.result or {}
    done = job.status == Job.Status.DONE
    return {"status": job.status, "version": job.version or None,
            "partial": bool(result.get("partial")) if done else None, "unsearched": result.get("unsearched", [])}


class MatchSummarySerializer(serializers.ModelSerializer[Match]):
    owner = serializers.CharField(source="owner.username", read_only=True)
    status = serializers.ChoiceField(choices=Match.Status.choices, read_only=True)
    analysis = serializers.SerializerMethodField()
    players = serializers.ListField(child=serializers.CharField(), read_only=True, help_text="in seat order")
    totals = serializers.ListField(child=serializers.IntegerField(), read_only=True, allow_null=True,
                                   help_text="each side's total over the hands that have a score; null until verified")
    winner = WinnerSerializer(read_only=True, allow_null=True)

    class Meta:
        model = Match
        fields = [
            "id", "variant", "players", "status", "valid", "scores_match", "hand_count", "totals", "winner",
            "filename", "visibility", "owner", "batch", "created_at", "verified_at", "engine_version", "analysis",
        ]

    @extend_schema_field(AnalysisStatusSerializer)
    def get_analysis(self, match: Match) -> dict[str, Any]:
        return analysis_status(match)


class HandSummarySerializer(serializers.Serializer[Any]):
    number = serializers.IntegerField()
    dealer = serializers.IntegerField()
    actions = serializers.IntegerField(source="action_count")
    valid = serializers.BooleanField(allow_null=True)
    finished = serializers.BooleanField(allow_null=True)
    scores = serializers.ListField(child=serializers.IntegerField(), allow_null=True,
                                   help_text="each side's score; null for a hand that has none (illegal, unfinished)")
    claimed = ClaimedSerializer(allow_null=True)
    mismatches = MismatchSerializer(many=True)
    ended_by = serializers.CharField()
    out_by = serializers.IntegerField(allow_null=True)
    error = EngineErrorSerializer(allow_null=True)


class AbilitiesSerializer(serializers.Serializer[Any]):
    """``records.permissions``: read it, manage it (share, delete: the owner), review it
    (the owner or a user it is shared with)."""

    read = serializers.BooleanField()
    manage = serializers.BooleanField()
    review = serializers.BooleanField()


class MatchDetailSerializer(MatchSummarySerializer):
    hands = serializers.SerializerMethodField()
    metadata = MetadataField()
    error = serializers.SerializerMethodField(
        help_text="the first illegal action; while the match is failed, why its verification could not finish"
    )
    share_token = serializers.SerializerMethodField()
    can = serializers.SerializerMethodField(help_text="what the requester may do with this match")
    totals_through_hand = serializers.SerializerMethodField(
        help_text="how many hands (from hand 1) `totals` sums: up to the first without a score; 0: no total is known"
    )

    class Meta(MatchSummarySerializer.Meta):
        fields = [
            *MatchSummarySerializer.Meta.fields, "metadata", "error", "hands", "share_token", "can", "totals_through_hand",
        ]

    def get_totals_through_hand(self, match: Match) -> int:
        return selectors.totals_through_hand(hands=list(match.hands.all()))

    @extend_schema_field(HandSummarySerializer(many=True))
    def get_hands(self, match: Match) -> list[Any]:
        hands: list[Any] = []
        for hand in match.hands.all():
            hand.action_count = len(hand.actions)  # type: ignore[attr-defined]
            hands.append(HandSummarySerializer(hand).data)
        return hands

    @extend_schema_field(EngineErrorSerializer(allow_null=True))  # null: no error
    def get_error(self, match: Match) -> dict[str, Any] | None:
        return selectors.match_failure(match=match) or match.error

    @extend_schema_field(serializers.CharField(allow_null=True, help_text="the share-link token (to its owner only)"))
    def get_share_token(self, match: Match) -> str | None:
        request = self.context.get("request")
        return match.share_token if request is not None and permissions.can_manage(request.user, match) else None

    @extend_schema_field(AbilitiesSerializer)
    def get_can(self, match: Match) -> dict[str, bool]:
        request = self.context.get("request")
        if request is None:
            return {"read": True, "manage": False, "review": False}
        return permissions.abilities(request.user, match, request.query_params.get("share"))

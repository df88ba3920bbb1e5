"""Typed components of the answers the engine's verdict fills: an engine error, a score's
parts, a claim and its mismatches, the winner, a match's metadata, a verification report, a
batch's progress and the queues' status. The schema names each (a generated client gets
classes, not free-form dicts); the views answer the engine's own ``as_dict()`` data.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from records.models import Job, Match


class EngineErrorSerializer(serializers.Serializer[Any]):
    """``buraco.errors.BuracoError.as_dict()``: where and why the engine refused."""

    kind = serializers.CharField(help_text="notation (the record cannot be read), illegal (an action breaks a rule), ...")
    hand = serializers.IntegerField(allow_null=True, help_text="from 1")
    ply = serializers.IntegerField(allow_null=True, help_text="the action's number in the hand, from 1")
    line = serializers.IntegerField(allow_null=True, help_text="in the file as uploaded, from 1")
    column = serializers.IntegerField(allow_null=True, help_text="in the file as uploaded, from 1")
    action = serializers.CharField(allow_null=True, help_text="the action as written")
    message = serializers.CharField()


class ScorePartsSerializer(serializers.Serializer[Any]):
    """``buraco.scoring.SideScore.as_dict()``: a side's score and where it comes from."""

    melded = serializers.IntegerField(help_text="the value of the cards it melded")
    canastas = serializers.DictField(child=serializers.IntegerField(), help_text="canastas by kind: how many")
    canasta_bonus = serializers.IntegerField()
    going_out = serializers.IntegerField()
    hand = serializers.IntegerField(help_text="the cards left in its players' hands (zero or less)")
    penalties = serializers.IntegerField(help_text="zero or less")
    penalty_reasons = serializers.ListField(child=serializers.CharField())
    total = serializers.IntegerField()


class ClaimedSerializer(serializers.Serializer[Any]):
    """The result as the players wrote it, per side."""

    scores = serializers.ListField(child=serializers.IntegerField())
    totals = serializers.ListField(child=serializers.IntegerField(), required=False)


@extend_schema_field({"oneOf": [{"type": "integer"}, {"type": "array", "items": {"type": "integer"}}]})
class ClaimField(serializers.JSONField):
    """A side's claimed figure, or every side's when the claim cannot be checked."""


class MismatchSerializer(serializers.Serializer[Any]):
    """A claimed score or total the cards do not give, or a claim that cannot be checked."""

    field = serializers.ChoiceField(choices=["scores", "totals"])
    side = serializers.IntegerField(allow_null=True, help_text="from 1; null: the claim as a whole cannot be checked")
    claimed = ClaimField()
    computed = serializers.IntegerField(allow_null=True)
    message = serializers.CharField()


class WinnerSerializer(serializers.Serializer[Any]):
    """``buraco.replay.MatchReport.winner_dict()``."""

    side = serializers.IntegerField(help_text="from 1")
    seats = serializers.ListField(child=serializers.IntegerField())
    players = serializers.ListField(child=serializers.CharField())
    after_hand = serializers.IntegerField(allow_null=True, help_text="the hand after which it was decided")


@extend_schema_field({
    "type": "object",
    "description": "the record's tags (event, site, date, round, source, annotator; target when the record "
                   "sets one) and its x- keys, whose values are any JSON",
    "properties": {
        **{name: {"type": "string"} for name in ("event", "site", "date", "round", "source", "annotator")},
        "target": {"type": "integer"},
    },
    "additionalProperties": {},
})
class MetadataField(serializers.JSONField):
    """A match's metadata: the record's tags, typed, and its x- keys."""


class ReportHandSerializer(serializers.Serializer[Any]):
    """One hand of the verification report."""

    hand = serializers.IntegerField()
    valid = serializers.BooleanField(allow_null=True)
    finished = serializers.BooleanField(allow_null=True)
    scores = serializers.ListField(child=serializers.IntegerField(), allow_null=True)
    parts = ScorePartsSerializer(many=True, allow_null=True)
    claimed = ClaimedSerializer(allow_null=True)
    mismatches = MismatchSerializer(many=True)
    ended_by = serializers.CharField(allow_null=True, help_text="out (someone went out) or stock (the stock ran out)")
    out_by = serializers.IntegerField(allow_null=True, help_text="the seat that went out")
    plies = serializers.IntegerField(help_text="the actions replayed (to the first illegal one)")
    error = EngineErrorSerializer(allow_null=True)


class MatchReportSerializer(serializers.Serializer[Any]):
    """``buraco.replay.MatchReport.as_dict()``, built from the stored verdict."""

    variant = serializers.CharField()
    valid = serializers.BooleanField()
    scores_match = serializers.BooleanField()
    error = EngineErrorSerializer(allow_null=True)
    sides = serializers.ListField(child=serializers.ListField(child=serializers.IntegerField()))
    hands = ReportHandSerializer(many=True)
    totals = serializers.ListField(child=serializers.IntegerField(), allow_null=True)
    totals_through_hand = serializers.IntegerField()
    winner = WinnerSerializer(allow_null=True)


class ReportAnswerSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Match.Status.choices)
    engine_version = serializers.CharField(allow_null=True)
    verified_at = serializers.DateTimeField(allow_null=True)
    report = MatchReportSerializer(allow_null=True, help_text="null until the match is verified")


class BatchProgressSerializer(serializers.Serializer[Any]):
    """``records.selectors.batch_progress``: a batch's verification and analysis, counted now."""

    id = serializers.IntegerField()
    label = serializers.CharField()  # type: ignore[assignment]  # a field, popped by DRF's metaclass
    created_at = serializers.DateTimeField()
    total = serializers.IntegerField(help_text="matches the batch stored")
    done = serializers.IntegerField(help_text="verified or invalid")
    failed = serializers.IntegerField(help_text="whose verification could not finish")
    verified = serializers.IntegerField()
    invalid = serializers.IntegerField()
    pending = serializers.IntegerField()
    finished = serializers.BooleanField(help_text="every match has its verdict (or failed)")
    analysed = serializers.IntegerField()
    analysing = serializers.IntegerField()
    analysis_waiting = serializers.IntegerField()
    analysis_failed = serializers.IntegerField()
    analysis_finished = serializers.BooleanField(help_text="every verdict's analysis is done or failed")


class QueueDepthSerializer(serializers.Serializer[Any]):
    waiting = serializers.IntegerField(help_text="jobs pending or running on this queue")
    broker_depth = serializers.IntegerField(allow_null=True, help_text="messages in the broker (null: in-process)")
    oldest_enqueued_at = serializers.DateTimeField(allow_null=True)
    oldest_age_seconds = serializers.FloatField(allow_null=True)


class QueueStatusSerializer(serializers.Serializer[Any]):
    """``records.selectors.queue_status``."""

    broker = serializers.ChoiceField(choices=["in-process", "redis"])
    queues = serializers.DictField(child=QueueDepthSerializer(), help_text="by queue, in the order workers take them")
    oldest_waiting_enqueued_at = serializers.DateTimeField(allow_null=True)
    oldest_waiting_age_seconds = serializers.FloatField(allow_null=True)
    counts = serializers.DictField(child=serializers.IntegerField(),
                                   help_text="the matches you may read, by status")
    jobs = serializers.DictField(
        child=serializers.DictField(child=serializers.IntegerField()),
        help_text=f"the jobs of the matches you may read, by kind, then status ({', '.join(Job.Status.values)})",
    )

"""A finding of the engine's analysis, stored as a row: ``buraco.analysis.Finding.as_dict()``."""

from __future__ import annotations

from typing import Any

from django.db import models

from buraco.analysis import Finding as EngineFinding
from records.models import Match


class Finding(models.Model):
    """One judged decision, or one wrong claimed score, of one hand of a match.

    ``hand``, ``seat`` and ``side`` count from 1; ``ply`` (the action the finding is
    about) and ``seat`` are null for a scoring mistake, which belongs to a side's hand.
    ``witness`` is the better line as BRN action strings. All of a match's findings come
    from one run of one ``version``; rows are kept in the engine's order (by id).
    """

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="findings")
    hand = models.PositiveIntegerField()
    ply = models.PositiveIntegerField(null=True, blank=True)
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    side = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=32)
    points = models.BigIntegerField(null=True, blank=True)  # a claim may be off by up to 2 x 10**9 a side
    message = models.TextField()
    witness = models.JSONField(default=list, blank=True)
    cause = models.TextField(null=True, blank=True)
    causes = models.JSONField(default=list, blank=True)
    version = models.CharField(max_length=20)

    class Meta:
        ordering = ["match", "id"]
        indexes = [
            models.Index(fields=["match", "hand"], name="finding_match_hand"),
            models.Index(fields=["match", "kind"], name="finding_match_kind"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} in hand {self.hand} of match {self.match_id}"

    def as_engine(self) -> EngineFinding:
        """The engine's frozen value for this row."""
        return EngineFinding(
            hand=self.hand, ply=self.ply, seat=self.seat, side=self.side, kind=self.kind, points=self.points,
            message=self.message, witness=tuple(self.witness), cause=self.cause,
            causes=tuple(tuple(c) for c in self.causes), version=self.version,
        )

    def as_dict(self) -> dict[str, Any]:
        """The keys of ``buraco.analysis.Finding.as_dict()``."""
        return self.as_engine().as_dict()

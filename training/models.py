"""A puzzle (a finding one user trains on) with its SM-2 schedule, and every attempt at it."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from analysis.models import Finding

from .scheduling import START_EASE


class Puzzle(models.Model):
    """One user's puzzle of one finding: the user's progress on it is its schedule (``ease``,
    ``interval_days``, ``repetitions``, ``due``); ``shared_by`` is the coach who picked it, or
    null for one made from the user's own upload."""

    finding = models.ForeignKey(Finding, on_delete=models.CASCADE, related_name="puzzles")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="puzzles")
    shared_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                  related_name="puzzles_shared")
    created_at = models.DateTimeField(auto_now_add=True)
    ease = models.FloatField(default=START_EASE)
    interval_days = models.PositiveIntegerField(default=0)
    repetitions = models.PositiveIntegerField(default=0)
    due = models.DateField()  # a new puzzle is due the day it is made

    class Meta:
        ordering = ["due", "id"]
        constraints = [models.UniqueConstraint(fields=["finding", "user"], name="puzzle_one_per_user")]
        indexes = [models.Index(fields=["user", "due"], name="puzzle_user_due")]

    def __str__(self) -> str:
        return f"puzzle {self.pk} of {self.finding} for user {self.user_id}"


class Attempt(models.Model):
    """One answer to a puzzle: the turn tried, how it was judged, and the SM-2 quality given."""

    puzzle = models.ForeignKey(Puzzle, on_delete=models.CASCADE, related_name="attempts")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="puzzle_attempts")
    actions = models.JSONField(default=list)
    verdict = models.CharField(max_length=8)
    points = models.BigIntegerField()
    best_points = models.BigIntegerField()
    short_by = models.BigIntegerField()
    quality = models.PositiveSmallIntegerField()
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["puzzle", "id"]

    def __str__(self) -> str:
        return f"{self.verdict} on puzzle {self.puzzle_id}"

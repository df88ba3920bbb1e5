"""Stored records: a match as uploaded (byte for byte), its hands, and their verdicts.

Writes go through :mod:`records.services`, reads through :mod:`records.selectors`.
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models


class Batch(models.Model):
    """Records uploaded together; progress is counted from their matches."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="batches")
    created_at = models.DateTimeField(auto_now_add=True)
    label = models.CharField(max_length=200, blank=True)
    total = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-created_at"]
        verbose_name_plural = "batches"

    def __str__(self) -> str:
        return f"batch {self.pk} of {self.owner} ({self.total} records)"


class Match(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending"
        VERIFYING = "verifying"
        VERIFIED = "verified"
        INVALID = "invalid"
        FAILED = "failed"  # the worker could not finish (kept for a retry by reverify)

    class Visibility(models.TextChoices):
        PRIVATE = "private"
        PUBLIC = "public"

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="matches")
    batch = models.ForeignKey(Batch, null=True, blank=True, on_delete=models.SET_NULL, related_name="matches")
    visibility = models.CharField(max_length=10, choices=Visibility.choices, default=Visibility.PRIVATE)
    shared_with = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="shared_matches")
    share_token = models.CharField(max_length=64, null=True, blank=True, unique=True)

    filename = models.CharField(max_length=255, blank=True)
    source = models.BinaryField()  # the upload, byte for byte
    source_format = models.CharField(max_length=4, default="toml")
    sha256 = models.CharField(max_length=64)
    variant = models.CharField(max_length=32, db_index=True)
    players = models.JSONField(default=list)
    player_names = models.TextField(blank=True)  # lower-cased, one per line: portable player filter
    metadata = models.JSONField(default=dict)
    hand_count = models.PositiveIntegerField(default=0)
    played_on = models.DateField(null=True, blank=True)

    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING, db_index=True)
    queue = models.CharField(max_length=20, default="interactive")
    engine_version = models.CharField(max_length=20, blank=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    enqueued_at = models.DateTimeField(null=True, blank=True)
    verified_at = models.DateTimeField(null=True, blank=True)
    valid = models.BooleanField(null=True)
    scores_match = models.BooleanField(null=True)
    error = models.JSONField(null=True, blank=True)
    totals = models.JSONField(null=True, blank=True)
    winner = models.JSONField(null=True, blank=True)
    report = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "sha256"], name="one_match_per_upload_per_owner"),
        ]
        indexes = [
            models.Index(fields=["owner", "status"]),
            models.Index(fields=["status", "enqueued_at"]),
        ]
        verbose_name_plural = "matches"

    def __str__(self) -> str:
        return f"{self.variant} match {self.pk} ({self.status})"

    @staticmethod
    def new_share_token() -> str:
        return secrets.token_urlsafe(32)


class Hand(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="hands")
    number = models.PositiveIntegerField()
    dealer = models.PositiveSmallIntegerField()
    deal = models.JSONField(default=dict)  # dealt, dead, discard, stock as card strings
    actions = models.JSONField(default=list)
    claimed = models.JSONField(null=True, blank=True)
    valid = models.BooleanField(null=True)
    finished = models.BooleanField(null=True)
    error = models.JSONField(null=True, blank=True)
    scores = models.JSONField(null=True, blank=True)
    parts = models.JSONField(null=True, blank=True)
    mismatches = models.JSONField(default=list, blank=True)
    ended_by = models.CharField(max_length=10, blank=True)
    out_by = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["match", "number"]
        constraints = [models.UniqueConstraint(fields=["match", "number"], name="one_hand_per_number")]

    def __str__(self) -> str:
        return f"hand {self.number} of match {self.match_id}"

"""Stored records: a match as uploaded (byte for byte), its hands, their verdicts, and jobs.

A match's verdict is stored once: each hand's on its :class:`Hand` row, the match's
summary on :class:`Match`. The work done on a match (verifying it, analysing it) is a
:class:`Job` row of its own, with the claim, lease, attempts and status of that job.
A match's ``status`` (pending, verifying, verified, invalid, failed) is read from its
verify job and its verdict: ``Match.objects.with_status()``.

Writes go through :mod:`records.services`, reads through :mod:`records.selectors`.
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.db.models import Case, FilteredRelation, Q, Value, When


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


class MatchQuerySet(models.QuerySet["Match"]):
    def with_status(self) -> MatchQuerySet:
        """Annotate ``status``: the verify job's state while it is pending, running or failed,
        else the verdict (verified or invalid).

        (django-stubs does not see this annotation: lookups of ``status`` carry
        ``type: ignore[misc]``.)
        """
        job = "verify_job__status"
        return self.annotate(
            verify_job=FilteredRelation("jobs", condition=Q(jobs__kind=Job.Kind.VERIFY)),
            status=Case(
                When(**{job: Job.Status.PENDING}, then=Value(Match.Status.PENDING)),
                When(**{job: Job.Status.RUNNING}, then=Value(Match.Status.VERIFYING)),
                When(**{job: Job.Status.FAILED}, then=Value(Match.Status.FAILED)),
                When(valid=True, then=Value(Match.Status.VERIFIED)),
                When(valid=False, then=Value(Match.Status.INVALID)),
                default=Value(Match.Status.PENDING),
                output_field=models.CharField(),
            ),
        )


class MatchManager(models.Manager.from_queryset(MatchQuerySet)):  # type: ignore[misc]
    """Matches without their stored bytes (the upload, its read form, its canonical BRN): lists and pages
    never need them; the reads that do load them by name."""

    def get_queryset(self) -> MatchQuerySet:
        return super().get_queryset().defer("source", "parsed", "canonical_brn")  # type: ignore[no-any-return]


class Match(models.Model):
    class Status(models.TextChoices):
        """What the API and pages say about a match (annotated by ``with_status()``, not stored)."""

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
    # buraco.notation.game_key: the game whatever its notes or spelling (an exported review
    # uploaded again is its match's game); empty for a record today's engine cannot read.
    game_key = models.CharField(max_length=64, blank=True, default="")
    # The record as read at upload (buraco.notation.dumps_stored): verification, analysis,
    # timelines and the canonical BRN read it back in a fraction of the TOML's time; null for
    # a record today's engine could not read (they read ``source`` instead).
    parsed = models.TextField(null=True, blank=True, editable=False)
    variant = models.CharField(max_length=32, db_index=True)
    players = models.JSONField(default=list)
    player_names = models.TextField(blank=True)  # lower-cased, one per line: portable player filter
    metadata = models.JSONField(default=dict)
    hand_count = models.PositiveIntegerField(default=0)
    played_on = models.DateField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    # The verdict's summary (each hand's verdict is on its Hand row); null until verified.
    engine_version = models.CharField(max_length=20, blank=True)
    verified_at = models.DateTimeField(null=True, blank=True)
    valid = models.BooleanField(null=True)
    scores_match = models.BooleanField(null=True)
    error = models.JSONField(null=True, blank=True)  # the first illegal action
    totals = models.JSONField(null=True, blank=True)
    winner = models.JSONField(null=True, blank=True)
    sides = models.JSONField(null=True, blank=True)  # the seats of each side, 1-based

    # The record in canonical BRN, made on the first /brn/ read by engine ``canonical_engine``.
    canonical_brn = models.TextField(null=True, blank=True, editable=False)
    canonical_engine = models.CharField(max_length=20, blank=True, editable=False)

    objects = MatchManager()  # .with_status() annotates each match's status

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "sha256"], name="one_match_per_upload_per_owner"),
        ]
        indexes = [models.Index(fields=["owner", "game_key"], name="match_owner_game")]
        verbose_name_plural = "matches"

    def __str__(self) -> str:
        return f"{self.variant} match {self.pk}"

    @staticmethod
    def new_share_token() -> str:
        return secrets.token_urlsafe(32)

    @property
    def file_name(self) -> str:
        """The uploaded file's name without its folders (a zip's member keeps its path in
        ``filename``); empty when the upload had none (a record sent as the body)."""
        return (self.filename or "").replace("\\", "/").rsplit("/", 1)[-1]

    def job(self, kind: str) -> Job | None:
        """This match's job of ``kind`` (from ``prefetch_related("jobs")`` when prefetched)."""
        return next((job for job in self.jobs.all() if job.kind == kind), None)


class Job(models.Model):
    """One kind of work on one match, claimed atomically by one worker at a time.

    ``claimed_at`` is the lease: a running job whose worker died is claimable again
    once the lease runs out. The table is also the outbox (``sent_at``, records/jobs.py). ``version`` is the engine or analysis version of the run
    that finished it.
    """

    class Kind(models.TextChoices):
        """The kinds records itself reads: its own verification, and the analysis whose status a
        match's summary reports. Other apps register theirs (``records.jobs.register_kind``):
        a kind is any short name, not a choice of this field."""

        VERIFY = "verify"
        ANALYZE = "analyze"

    class Status(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="jobs")
    kind = models.CharField(max_length=20)  # a registered kind (records.jobs.register_kind)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    queue = models.CharField(max_length=20, default="interactive")
    attempts = models.PositiveSmallIntegerField(default=0)
    enqueued_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)  # the broker took its message; null: in the outbox
    claimed_at = models.DateTimeField(null=True, blank=True)
    claimed_by = models.CharField(max_length=64, blank=True)  # the Celery task that holds the claim
    finished_at = models.DateTimeField(null=True, blank=True)
    error = models.JSONField(null=True, blank=True)  # why it failed: {"kind": "failed", "message": ...}
    version = models.CharField(max_length=20, blank=True)
    result = models.JSONField(null=True, blank=True)  # what a done job has to say beside its rows (its kind's own)

    class Meta:
        ordering = ["match", "kind"]
        constraints = [models.UniqueConstraint(fields=["match", "kind"], name="one_job_per_kind_per_match")]
        indexes = [
            models.Index(fields=["status", "queue", "enqueued_at"], name="job_waiting_per_queue"),
            models.Index(fields=["kind", "status"], name="job_kind_status"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} job of match {self.match_id} ({self.status})"


class HandManager(models.Manager["Hand"]):
    """Hands without their stored timelines (hundreds of KB each): only records/timelines.py
    reads those, by name."""

    def get_queryset(self) -> models.QuerySet[Hand]:
        return super().get_queryset().defer("timeline", "timeline_index")


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
    plies = models.PositiveIntegerField(null=True, blank=True)  # actions replayed (to the first illegal one)
    # The timeline answer, ready to send (records/timelines.py): made on its first read.
    timeline = models.BinaryField(null=True, blank=True, editable=False)  # gzip
    timeline_index = models.JSONField(null=True, blank=True, editable=False)  # engine, spans, error

    objects = HandManager()

    class Meta:
        ordering = ["match", "number"]
        constraints = [models.UniqueConstraint(fields=["match", "number"], name="one_hand_per_number")]

    def __str__(self) -> str:
        return f"hand {self.number} of match {self.match_id}"


class UploadKey(models.Model):
    """An upload's ``Idempotency-Key``: the same key sent again with the same upload answers
    the first answer (a client retrying after a lost connection stores nothing twice); with
    another upload it is refused. Kept ``UPLOAD_KEY_HOURS``; ``digest`` is the upload's."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="upload_keys")
    key = models.CharField(max_length=64)  # the header's sha256: a key of any length fits
    digest = models.CharField(max_length=64)
    status = models.PositiveSmallIntegerField()
    answer = models.JSONField()
    location = models.CharField(max_length=255)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["owner", "key"], name="one_upload_per_key_per_owner")]

    def __str__(self) -> str:
        return f"upload key {self.key!r} of {self.owner_id}"

"""Coaching reviews: a :class:`Review` of a match holds :class:`Comment` rows on plies,
and each comment a thread of :class:`Reply` rows.

Replies are their own model rather than comments with a parent: a thread is one level
deep (the owner and the comment's coach answer each other under a comment), and a reply
has no hand, ply or tag of its own.

A review is written through the API (``source`` "api", by a user who may review the
match) or read from the ``[[hands.notes]]`` of an uploaded record (``source`` "record"):
that one is authored by the match's owner and labelled ``author_name`` with the record's
``annotator``; each of its comments keeps its note's ``author``.

Writes go through :mod:`reviews.services`, reads through :mod:`reviews.selectors`.
"""

from __future__ import annotations

from typing import Final

from django.conf import settings
from django.db import models

from records.models import Match

# The tags a comment may carry (or none): what the engine's analysis finds, and a coach's words.
TAGS: Final = ("mistake", "missed-canasta", "missed-going-out", "dangerous-discard", "scoring-mistake", "good", "question")
MAX_TEXT: Final = 5000  # characters of a comment's or a reply's text


class Review(models.Model):
    class Source(models.TextChoices):
        API = "api"  # written here, by a user who may review the match
        RECORD = "record"  # the notes of the uploaded record

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="reviews")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reviews")
    author_name = models.CharField(max_length=150, help_text="who the review is shown as: the username, or the record's annotator")
    source = models.CharField(
        max_length=10, choices=Source.choices, default=Source.API,
        help_text="api: written here; record: the notes of the uploaded record",
    )
    finished = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["match", "created_at", "id"]

    def __str__(self) -> str:
        return f"review {self.pk} of match {self.match_id} by {self.author_name}"


class Comment(models.Model):
    """A comment on one ply of one hand: ``ply`` 0 is the deal, before the first action."""

    review = models.ForeignKey(Review, on_delete=models.CASCADE, related_name="comments")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="review_comments")
    author_name = models.CharField(max_length=150)
    hand = models.PositiveIntegerField()  # 1-based, as the API and pages number hands
    ply = models.PositiveIntegerField()
    tag = models.CharField(max_length=64, blank=True)  # one of TAGS, or empty (a record's note may carry others)
    text = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["review", "hand", "ply", "id"]

    def __str__(self) -> str:
        return f"comment {self.pk} on hand {self.hand} ply {self.ply}"


class Reply(models.Model):
    comment = models.ForeignKey(Comment, on_delete=models.CASCADE, related_name="replies")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="review_replies")
    text = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["comment", "created_at", "id"]
        verbose_name_plural = "replies"

    def __str__(self) -> str:
        return f"reply {self.pk} to comment {self.comment_id}"

"""Writes: reviews, their comments and replies, and the notes of an uploaded record read
into a review. Keyword-only, typed; who may write is asked by the API
(:mod:`reviews.permissions`, on :mod:`records.permissions`) before these are called.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction

from apikit.errors import Conflict
from buraco.notation import Record
from records.models import Match
from records.text import json_safe

from .models import Comment, Reply, Review


class ReviewFinished(Conflict):
    """A finished review takes no new comments (its author may reopen it)."""


class CommentsFull(Conflict):
    """The match holds as many comments as a match may (``BURACO_MAX_COMMENTS_PER_MATCH``)."""


@transaction.atomic
def review_open(*, match: Match, author: User) -> tuple[Review, bool]:
    """The author's open review of the match, started if they have none: the review, and
    whether it was started now. One open review per author and match: a second start (a
    retried request, a second tab) answers the first; a finished one can be reopened, or a new
    one started."""
    Match.objects.select_for_update().filter(pk=match.pk).first()  # two starts at once: one review
    current = Review.objects.filter(match=match, author=author, source=Review.Source.API, finished=False).first()
    if current is not None:
        return current, False
    return Review.objects.create(match=match, author=author, author_name=author.username), True


def review_delete(*, review: Review) -> None:
    """Remove a review with its comments and their threads (the match's owner, or its author)."""
    review.delete()


def review_set_finished(*, review: Review, finished: bool) -> Review:
    review.finished = finished
    review.save(update_fields=["finished", "updated_at"])
    return review


@transaction.atomic
def comment_create(*, review: Review, author: User, hand: int, ply: int, text: str, tag: str = "") -> Comment:
    """A comment on hand ``hand`` (1-based), ply ``ply``; bounds are checked by the caller."""
    review = Review.objects.select_for_update().get(pk=review.pk)
    if review.finished:
        raise ReviewFinished(f"review {review.pk} is finished: its author may reopen it to add comments")
    cap = settings.BURACO_MAX_COMMENTS_PER_MATCH
    if Comment.objects.filter(review__match_id=review.match_id).count() >= cap:
        raise CommentsFull(f"match {review.match_id} holds {cap} comments, as many as a match may")
    comment = Comment.objects.create(
        review=review, author=author, author_name=author.username, hand=hand, ply=ply, text=text, tag=tag
    )
    review.save(update_fields=["updated_at"])
    return comment


@transaction.atomic
def reply_create(*, comment: Comment, author: User, text: str) -> Reply:
    reply = Reply.objects.create(comment=comment, author=author, text=text)
    Review.objects.filter(pk=comment.review_id).update(updated_at=reply.created_at)
    return reply


def review_from_notes(*, match: Match, record: Record) -> Review | None:
    """The record's ``[[hands.notes]]`` as a review of its new match: authored by the
    match's owner, shown as the record's ``annotator`` (else as the first note's author),
    one comment per note with its own author, ply and tag, as the record writes them.
    None when the record has no notes. Called at upload, in the upload's transaction.
    """
    notes = [(number, note) for number, hand in enumerate(record.hands, start=1) for note in hand.notes]
    if not notes:
        return None
    annotator = dict(record.metadata).get("annotator")
    name = str(annotator) if annotator else (notes[0][1].author or match.owner.username)
    review = Review.objects.create(
        match=match, author=match.owner, author_name=json_safe(name[:150]), source=Review.Source.RECORD
    )
    Comment.objects.bulk_create(
        Comment(
            review=review,
            author=match.owner,
            author_name=json_safe((note.author or name)[:150]),
            hand=number,
            ply=note.ply,
            tag=json_safe((note.tag or "")[:64]),
            text=json_safe(note.text),
        )
        for number, note in notes
    )
    return review


def _notes_of(record: Record) -> list[tuple[int, int, str, str, str]]:
    return sorted(
        (number, note.ply, (note.author or "")[:150], note.text, (note.tag or "")[:64])
        for number, hand in enumerate(record.hands, start=1) for note in hand.notes
    )


def review_from_notes_once(*, match: Match, record: Record) -> Review | None:
    """:func:`review_from_notes` on a match the record's game was stored as before (the same
    game uploaded again, an exported review say), unless one of the match's reviews holds
    the same comments already. The review made, or None."""
    wanted = [(hand, ply, json_safe(author), json_safe(text), json_safe(tag))
              for hand, ply, author, text, tag in _notes_of(record)]
    if not wanted:
        return None
    by_review: dict[int, list[tuple[int, int, str, str, str]]] = {}
    for row in Comment.objects.filter(review__match=match).values_list("review_id", "hand", "ply", "author_name",
                                                                       "text", "tag"):
        by_review.setdefault(row[0], []).append(tuple(row[1:]))  # type: ignore[arg-type]
    if any(sorted(comments) == wanted for comments in by_review.values()):
        return None
    cap = settings.BURACO_MAX_COMMENTS_PER_MATCH
    held = sum(len(comments) for comments in by_review.values())
    if held + len(wanted) > cap:
        raise CommentsFull(f"match {match.pk} holds {held} comments: these {len(wanted)} notes would pass the "
                           f"{cap} a match may hold")
    return review_from_notes(match=match, record=record)


def reviews_of_stored_notes(sender: Any, matches: list[Match], records: list[Record], **_: Any) -> None:
    """``records.signals.matches_stored``: each new match's record notes, as its review."""
    for match, record in zip(matches, records, strict=True):
        if any(hand.notes for hand in record.hands):
            review_from_notes(match=match, record=record)


def review_of_notes_again(sender: Any, match: Match, record: Record, **_: Any) -> int | None:
    """``records.signals.game_stored_again``: the id of the review the record's notes made
    on the match stored before (:func:`review_from_notes_once`), or None."""
    review = review_from_notes_once(match=match, record=record)
    return review.pk if review is not None else None

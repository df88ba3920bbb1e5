"""Reads: a match's reviews, a review's comments with their threads, and a review
written into the match's BRN record as ``[[hands.notes]]``."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Count, QuerySet

from buraco.notation import Note, dumps
from buraco.replay import canonical
from records.models import Match
from records.permissions import can_review
from records.selectors import match_record

from .models import Comment, Review
from .permissions import can_remove_review


def reviews_of(*, match: Match) -> QuerySet[Review]:
    return Review.objects.filter(match=match).select_related("author").annotate(comment_count=Count("comments"))


def reviews_for_page(*, match: Match, user: User | AnonymousUser, hand: int) -> dict[str, Any]:
    """The match's reviews as the replay page of hand ``hand`` holds them when it opens (its
    ``#review-data``): each review with its comment count over the match and its comments on
    this hand only (a page shows one hand: a record of 200 hands with 500 notes each sent
    21.9 MB on every view when every hand's came), and what this reader may do."""
    reviews = list(reviews_of(match=match).order_by("id"))
    comments: dict[int, list[Comment]] = {}
    on_hand = (
        Comment.objects.filter(review__match=match, hand=hand).select_related("author")
        .prefetch_related("replies__author").order_by("ply", "id")
    )
    for comment in on_hand:
        comments.setdefault(comment.review_id, []).append(comment)
    return {
        "owner": match.owner.username,
        "me": user.username if user.is_authenticated else "",
        "review": can_review(user, match),
        "reviews": [
            {
                "id": review.pk, "author": review.author.username, "author_name": review.author_name,
                "source": review.source, "finished": review.finished,
                "comment_count": review.comment_count,  # type: ignore[attr-defined]
                "can_remove": can_remove_review(user, review),
                "comments": [
                    {
                        "id": comment.pk, "hand": comment.hand, "ply": comment.ply, "tag": comment.tag,
                        "text": comment.text, "author": comment.author.username, "author_name": comment.author_name,
                        "source": review.source,
                        "replies": [
                            {"id": reply.pk, "author": reply.author.username, "text": reply.text}
                            for reply in comment.replies.all()
                        ],
                    }
                    for comment in comments.get(review.pk, [])
                ],
            }
            for review in reviews
        ],
    }


def review_of(*, match: Match, review_id: int) -> Review | None:
    return reviews_of(match=match).filter(pk=review_id).first()


def comments_of(*, review: Review, hand: int | None = None) -> QuerySet[Comment]:
    """In hand and ply order (of hand ``hand`` only, if given), each with its thread of
    replies (oldest first)."""
    comments = review.comments.select_related("author", "review").prefetch_related("replies__author")
    return comments.filter(hand=hand) if hand is not None else comments


def comment_of(*, review: Review, comment_id: int) -> Comment | None:
    return comments_of(review=review).filter(pk=comment_id).first()


def hand_bounds(*, match: Match) -> dict[int, int]:
    """Each hand's number and its plies (the actions it records: ply 0 to that many)."""
    return {number: len(actions) for number, actions in match.hands.values_list("number", "actions")}


def review_export(*, review: Review) -> str:
    """The match's record in canonical BRN (as ``/api/matches/{id}/brn/``) with each hand's
    notes replaced by this review's comments (``[[hands.notes]]``: ply, author, text, tag)
    and ``annotator`` set to the review's author. Replies are not part of a record.

    Uploaded again, it brings the same comments back as the new match's record review.
    """
    record = canonical(match_record(match=review.match))
    notes: dict[int, list[Note]] = {}
    for comment in review.comments.order_by("hand", "ply", "id"):
        notes.setdefault(comment.hand, []).append(Note(comment.ply, comment.author_name, comment.text, comment.tag or None))
    hands = tuple(replace(hand, notes=tuple(notes.get(number, ()))) for number, hand in enumerate(record.hands, start=1))
    metadata = (*((k, v) for k, v in record.metadata if k != "annotator"), ("annotator", review.author_name))
    return dumps(replace(record, hands=hands, metadata=metadata))

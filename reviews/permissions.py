"""Who may do what with a review: :mod:`records.permissions` (the one policy) asked of the
review's match, and the review's or comment's authorship on top.

- read a review, its comments and threads, export it: ``can_read`` on the match (a share
  link too); anyone else gets 404 on every reviews URL of the match;
- write a review: ``can_review`` (the owner, or a user the match is shared with);
- add comments to a review, finish or reopen it: its author, while ``can_review``;
- reply under a comment: the match's owner and the comment's author, while ``can_review``;
- remove a review: the match's owner (any review on it: a coach's reviews stay after the
  sharing ends otherwise, and a record's notes may name anyone), or the review's author while
  ``can_review``.
"""

from __future__ import annotations

from records.permissions import AnyUser, can_manage, can_review, is_owner

from .models import Comment, Review


def can_write_review(user: AnyUser, review: Review) -> bool:
    return can_review(user, review.match) and user.pk == review.author_id


def can_reply(user: AnyUser, comment: Comment) -> bool:
    match = comment.review.match
    return can_review(user, match) and (is_owner(user, match) or user.pk == comment.author_id)


def can_remove_review(user: AnyUser, review: Review) -> bool:
    return can_manage(user, review.match) or can_write_review(user, review)

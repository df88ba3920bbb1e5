"""The reviews API: one view per operation, small serializers, the one error format
(``apikit.errors.exception_handler``) and the match's permissions (:mod:`reviews.permissions`).

A match the requester may not read answers 404 on every reviews URL, as if it had no
reviews; a reader who may not write (a share-link holder, anyone on a public match) 403.
"""

from __future__ import annotations

from typing import Any

from django.core.validators import RegexValidator
from django.http import HttpResponse
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apikit.errors import ANY, RETRY_AFTER, StrictBooleanField, StrictCharField, StrictIntegerField, errors
from apikit.paging import page_parameters, paged, paged_schema
from records.api.access import (
    RECORD_FORMATS,
    RECORD_RENDERERS,
    SHARE_PARAMETER,
    readable_match,
    record_answer,
    reviewable_match,
)
from records.models import Match

from . import permissions, selectors, services
from .models import MAX_TEXT, TAGS, Comment, Reply, Review
from .throttling import ReviewWriteThrottle

TEXT_ERRORS: dict[str, Any] = {"max_length": f"a text has at most {MAX_TEXT} characters", "blank": "a text may not be empty"}


def visible_text() -> StrictCharField:
    """A comment's or reply's text: its spaces at the ends are dropped, so it must hold a
    visible character, which the schema says as its pattern (a text of spaces is a 400)."""
    return StrictCharField(min_length=1, max_length=MAX_TEXT, error_messages=TEXT_ERRORS,
                           validators=[RegexValidator(r"\S", TEXT_ERRORS["blank"])])


# --- serializers ---------------------------------------------------------------------


class ReplySerializer(serializers.ModelSerializer[Reply]):
    author = serializers.CharField(source="author.username", read_only=True)

    class Meta:
        model = Reply
        fields = ["id", "author", "text", "created_at"]


class CommentSerializer(serializers.ModelSerializer[Comment]):
    author = serializers.CharField(source="author.username", read_only=True, help_text="the account that wrote it")
    author_name = serializers.CharField(read_only=True, help_text="who it is shown as (a record's note: its author)")
    source = serializers.ChoiceField(  # type: ignore[assignment]  # a field, popped by DRF's metaclass
        source="review.source", choices=Review.Source.choices, read_only=True,
        help_text="record: a note of the uploaded record, under whatever name the record gives it (not an account's "
                  "word: the account is the match's owner, who uploaded it); api: written here by `author`",
    )
    replies = ReplySerializer(many=True, read_only=True, help_text="the thread under the comment, oldest first")

    class Meta:
        model = Comment
        fields = ["id", "hand", "ply", "tag", "text", "author", "author_name", "source", "created_at", "replies"]


class ReviewSerializer(serializers.ModelSerializer[Review]):
    author = serializers.CharField(source="author.username", read_only=True)
    author_name = serializers.CharField(read_only=True, help_text="who it is shown as: the author, or the record's annotator")
    comment_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Review
        fields = ["id", "match", "author", "author_name", "source", "finished", "created_at", "updated_at",
                  "comment_count"]


class ReviewDetailSerializer(ReviewSerializer):
    comments = CommentSerializer(many=True, read_only=True, source="comment_list")

    class Meta(ReviewSerializer.Meta):
        fields = [*ReviewSerializer.Meta.fields, "comments"]


class ReviewPatchSerializer(serializers.Serializer[Any]):
    finished = StrictBooleanField(help_text="true: finished (no new comments); false: reopened")


# The PATCH body as the view reads it: `finished` is required (drf-spectacular would document
# a PATCH serializer as partial, every field optional, and the 400 for a body without it a surprise).
REVIEW_PATCH = {
    media_type: {
        "type": "object",
        "properties": {"finished": {"type": "boolean", "description": "true: finished (no new comments); false: reopened"}},
        "required": ["finished"],
    }
    for media_type in ("application/json",)
}


class CommentInputSerializer(serializers.Serializer[Any]):
    hand = StrictIntegerField(min_value=1, help_text="the hand's number, from 1")
    ply = StrictIntegerField(min_value=0, help_text="0: the deal; n: after the hand's n-th action")
    text = visible_text()
    tag = serializers.ChoiceField(choices=TAGS, allow_blank=True, default="",
                                  help_text=f"one of {', '.join(TAGS)}, or empty")

    def validate(self, data: dict[str, Any]) -> dict[str, Any]:
        bounds: dict[int, int] = self.context["bounds"]
        hand, ply = data["hand"], data["ply"]
        if hand not in bounds:
            raise serializers.ValidationError({"hand": f"the match has hands 1 to {len(bounds)}"})
        if ply > bounds[hand]:
            raise serializers.ValidationError({"ply": f"hand {hand} has plies 0 to {bounds[hand]}"})
        return data


class ReplyInputSerializer(serializers.Serializer[Any]):
    text = visible_text()


# --- helpers -------------------------------------------------------------------------


def _review(match: Match, review_id: int) -> Review:
    review = selectors.review_of(match=match, review_id=review_id)
    if review is None:
        raise exceptions.NotFound(f"match {match.pk} has no review {review_id}")
    return review


def _written_review(request: Request, match_id: int, review_id: int) -> Review:
    """The review, if the requester is its author and may still review the match."""
    review = _review(reviewable_match(request, match_id), review_id)
    if not permissions.can_write_review(request.user, review):
        raise exceptions.PermissionDenied("only the review's author may change it or add comments")
    return review


def _detail(review: Review) -> dict[str, Any]:
    review.comment_list = list(selectors.comments_of(review=review))  # type: ignore[attr-defined]
    return dict(ReviewDetailSerializer(review).data)


# --- views ---------------------------------------------------------------------------


# The lists' orders (?ordering=), their first by default.
REVIEW_ORDERINGS = {"created_at": ("created_at", "id"), "-created_at": ("-created_at", "-id"),
                    "-updated_at": ("-updated_at", "-id")}
COMMENT_ORDERINGS = {"hand": ("hand", "ply", "id"), "created_at": ("created_at", "id"),
                     "-created_at": ("-created_at", "-id")}


class ReviewListApi(APIView):
    throttle_classes = [ReviewWriteThrottle]

    @extend_schema(
        summary="A match's coaching reviews (whoever may read the match), paged",
        operation_id="matches_reviews_list",  # a list: not matches_reviews_retrieve, which is one review's
        parameters=[SHARE_PARAMETER, *page_parameters(list(REVIEW_ORDERINGS))],
        responses={200: paged_schema("PaginatedReviewList", ReviewSerializer(many=True)), **errors(*ANY, 404)},
    )
    def get(self, request: Request, match_id: int) -> Response:
        match = readable_match(request, match_id)
        return paged(request, selectors.reviews_of(match=match), ReviewSerializer, self, orderings=REVIEW_ORDERINGS)

    @extend_schema(
        summary="Start a review (the owner, or a coach the match is shared with), or get one's open review",
        description="201 with the review started now; 200 with the author's open (not finished) review of the "
                    "match when they have one: one open review per author and match.",
        request=None,
        parameters=[RETRY_AFTER],
        responses={200: ReviewDetailSerializer, 201: ReviewDetailSerializer, **errors(*ANY, 403, 404, 429)},
    )
    def post(self, request: Request, match_id: int) -> Response:
        match = reviewable_match(request, match_id)
        review, started = services.review_open(match=match, author=request.user)  # type: ignore[arg-type]
        return Response(_detail(_review(match, review.pk)), status=status.HTTP_201_CREATED if started else status.HTTP_200_OK)


class ReviewDetailApi(APIView):
    throttle_classes = [ReviewWriteThrottle]

    @extend_schema(
        summary="One review, with its comments and their threads",
        parameters=[SHARE_PARAMETER],
        responses={200: ReviewDetailSerializer, **errors(*ANY, 404)},
    )
    def get(self, request: Request, match_id: int, review_id: int) -> Response:
        return Response(_detail(_review(readable_match(request, match_id), review_id)))

    @extend_schema(
        summary="Mark a review finished, or reopen it (its author)",
        request=REVIEW_PATCH,
        parameters=[RETRY_AFTER],
        responses={200: ReviewDetailSerializer, **errors(*ANY, 403, 404, 415, 429)},
    )
    def patch(self, request: Request, match_id: int, review_id: int) -> Response:
        review = _written_review(request, match_id, review_id)
        given = ReviewPatchSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        services.review_set_finished(review=review, finished=given.validated_data["finished"])
        return Response(_detail(_review(review.match, review.pk)))

    @extend_schema(
        summary="Remove a review with its comments and threads (the match's owner, or the review's author)",
        parameters=[RETRY_AFTER],
        responses={204: None, **errors(*ANY, 403, 404, 429)},
    )
    def delete(self, request: Request, match_id: int, review_id: int) -> Response:
        review = _review(readable_match(request, match_id), review_id)
        if not permissions.can_remove_review(request.user, review):
            raise exceptions.PermissionDenied("only the match's owner and the review's author may remove it")
        services.review_delete(review=review)
        return Response(status=status.HTTP_204_NO_CONTENT)


class CommentFilterSerializer(serializers.Serializer[Any]):
    hand = serializers.IntegerField(required=False, min_value=1, max_value=2**31 - 1,
                                    help_text="only the comments on this hand")


class CommentListApi(APIView):
    throttle_classes = [ReviewWriteThrottle]

    @extend_schema(
        summary="A review's comments in hand and ply order, each with its thread, paged",
        operation_id="matches_reviews_comments_list",
        parameters=[CommentFilterSerializer, SHARE_PARAMETER, *page_parameters(list(COMMENT_ORDERINGS))],
        responses={200: paged_schema("PaginatedCommentList", CommentSerializer(many=True)), **errors(*ANY, 404)},
    )
    def get(self, request: Request, match_id: int, review_id: int) -> Response:
        review = _review(readable_match(request, match_id), review_id)
        filters = CommentFilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        return paged(request, selectors.comments_of(review=review, **filters.validated_data), CommentSerializer, self,
                     orderings=COMMENT_ORDERINGS)

    @extend_schema(
        summary="Comment on a ply (the review's author, while the review is not finished)",
        description=f"`text` at most {MAX_TEXT} characters; `tag` one of {', '.join(TAGS)} or empty; "
                    "`hand` and `ply` within the match (ply 0 to the hand's actions). 409 on a finished review, "
                    "and when the match holds as many comments as a match may (2,000 by default).",
        request=CommentInputSerializer,
        parameters=[RETRY_AFTER],
        responses={201: CommentSerializer, **errors(*ANY, 403, 404, 409, 415, 429)},
    )
    def post(self, request: Request, match_id: int, review_id: int) -> Response:
        review = _written_review(request, match_id, review_id)
        given = CommentInputSerializer(data=request.data, context={"bounds": selectors.hand_bounds(match=review.match)})
        given.is_valid(raise_exception=True)
        comment = services.comment_create(review=review, author=request.user,  # type: ignore[arg-type]
                                          **given.validated_data)  # a finished review: ReviewFinished, a 409
        return Response(CommentSerializer(comment).data, status=status.HTTP_201_CREATED)


class ReplyListApi(APIView):
    throttle_classes = [ReviewWriteThrottle]

    @extend_schema(
        summary="Answer under a comment (the match's owner and the comment's author)",
        description=f"`text` at most {MAX_TEXT} characters.",
        request=ReplyInputSerializer,
        parameters=[RETRY_AFTER],
        responses={201: ReplySerializer, **errors(*ANY, 403, 404, 415, 429)},
    )
    def post(self, request: Request, match_id: int, review_id: int, comment_id: int) -> Response:
        review = _review(reviewable_match(request, match_id), review_id)
        comment = selectors.comment_of(review=review, comment_id=comment_id)
        if comment is None:
            raise exceptions.NotFound(f"review {review_id} has no comment {comment_id}")
        if not permissions.can_reply(request.user, comment):
            raise exceptions.PermissionDenied("only the match's owner and the comment's author may reply")
        given = ReplyInputSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        reply = services.reply_create(comment=comment, author=request.user,  # type: ignore[arg-type]
                                      text=given.validated_data["text"])
        return Response(ReplySerializer(reply).data, status=status.HTTP_201_CREATED)


class ReviewExportApi(APIView):
    renderer_classes = RECORD_RENDERERS  # Accept: application/toml, as documented, is no 406

    @extend_schema(
        summary="The record in canonical BRN with this review's comments as [[hands.notes]]: TOML, or its JSON form",
        description="Uploaded again, the record brings the comments back as a review (of the match it came from, "
                    "for its owner; shown as the record's `annotator`: this review's author). Replies are not exported.",
        parameters=[SHARE_PARAMETER],
        responses={**RECORD_FORMATS, **errors(*ANY, 404, 409)},
    )
    def get(self, request: Request, match_id: int, review_id: int) -> HttpResponse:
        review = _review(readable_match(request, match_id), review_id)
        return record_answer(request, toml=selectors.review_export(review=review),
                             filename=f"match-{match_id}-review-{review.pk}.brn")

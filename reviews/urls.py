from django.urls import path

from . import api

REVIEW = "matches/<int:match_id>/reviews/<int:review_id>/"

urlpatterns = [
    path("matches/<int:match_id>/reviews/", api.ReviewListApi.as_view(), name="api-review-list"),
    path(REVIEW, api.ReviewDetailApi.as_view(), name="api-review-detail"),
    path(f"{REVIEW}comments/", api.CommentListApi.as_view(), name="api-review-comments"),
    path(f"{REVIEW}comments/<int:comment_id>/replies/", api.ReplyListApi.as_view(), name="api-review-replies"),
    path(f"{REVIEW}export/", api.ReviewExportApi.as_view(), name="api-review-export"),
]

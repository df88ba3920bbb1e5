from django.urls import path

from .api import hands, matches, progress, sharing

HAND = "matches/<int:match_id>/hands/<int:hand>/"

urlpatterns = [
    path("matches/", matches.MatchListApi.as_view(), name="api-match-list"),
    path("matches/<int:match_id>/", matches.MatchDetailApi.as_view(), name="api-match-detail"),
    path("matches/<int:match_id>/report/", matches.MatchReportApi.as_view(), name="api-match-report"),
    path("matches/<int:match_id>/brn/", matches.MatchBrnApi.as_view(), name="api-match-brn"),
    path("matches/<int:match_id>/source/", matches.MatchSourceApi.as_view(), name="api-match-source"),
    path("matches/<int:match_id>/share-link/", sharing.ShareLinkApi.as_view(), name="api-match-share-link"),
    path("matches/<int:match_id>/share-link/rotate/", sharing.ShareLinkRotateApi.as_view(),
         name="api-match-share-link-rotate"),
    path("matches/<int:match_id>/shared-with/", sharing.SharedWithApi.as_view(), name="api-match-shared-with"),
    path("matches/<int:match_id>/shared-with/<str:username>/", sharing.SharedWithUserApi.as_view(),
         name="api-match-shared-with-user"),
    path(f"{HAND}timeline/", hands.HandTimelineApi.as_view(), name="api-hand-timeline"),
    path(f"{HAND}states/<int:ply>/", hands.HandStateApi.as_view(), name="api-hand-state"),
    path(f"{HAND}try/", hands.HandTryApi.as_view(), name="api-hand-try"),
    path("batches/<int:batch_id>/", progress.BatchDetailApi.as_view(), name="api-batch-detail"),
    path("batches/<int:batch_id>/events/", progress.BatchEventsApi.as_view(), name="api-batch-events"),
    path("status/", progress.StatusApi.as_view(), name="api-status"),
    path("health/", progress.HealthApi.as_view(), name="api-health"),
]

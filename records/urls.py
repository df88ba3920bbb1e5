from django.urls import path

from . import api

urlpatterns = [
    path("matches/", api.MatchListApi.as_view(), name="api-match-list"),
    path("matches/<int:match_id>/", api.MatchDetailApi.as_view(), name="api-match-detail"),
    path("matches/<int:match_id>/report/", api.MatchReportApi.as_view(), name="api-match-report"),
    path("matches/<int:match_id>/brn/", api.MatchBrnApi.as_view(), name="api-match-brn"),
    path("matches/<int:match_id>/source/", api.MatchSourceApi.as_view(), name="api-match-source"),
    path("matches/<int:match_id>/share-link/", api.ShareLinkApi.as_view(), name="api-match-share-link"),
    path("matches/<int:match_id>/shared-with/", api.SharedWithApi.as_view(), name="api-match-shared-with"),
    path("matches/<int:match_id>/hands/<int:number>/timeline/", api.HandTimelineApi.as_view(), name="api-hand-timeline"),
    path(
        "matches/<int:match_id>/hands/<int:number>/states/<int:ply>/", api.HandStateApi.as_view(), name="api-hand-state"
    ),
    path("matches/<int:match_id>/hands/<int:number>/try/", api.HandTryApi.as_view(), name="api-hand-try"),
    path("batches/<int:batch_id>/", api.BatchDetailApi.as_view(), name="api-batch-detail"),
    path("status/", api.StatusApi.as_view(), name="api-status"),
    path("health/", api.HealthApi.as_view(), name="api-health"),
]

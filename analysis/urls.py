from django.urls import path

from . import api

urlpatterns = [
    path("findings/", api.FindingExplorerApi.as_view(), name="api-findings"),
    path("findings/export/", api.FindingExportApi.as_view(), name="api-findings-export"),
    path("matches/<int:match_id>/findings/", api.MatchFindingsApi.as_view(), name="api-match-findings"),
    path("matches/<int:match_id>/hands/<int:hand>/findings/", api.HandFindingsApi.as_view(), name="api-hand-findings"),
    path("players/<str:name>/", api.PlayerApi.as_view(), name="api-player"),
    path("players/<str:name>/summary/", api.PlayerSummaryApi.as_view(), name="api-player-summary"),
]

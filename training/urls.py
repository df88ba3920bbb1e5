from django.urls import path

from . import api

urlpatterns = [
    path("players/<str:name>/puzzles/", api.PlayerPuzzlesApi.as_view(), name="api-player-puzzles"),
    path("puzzles/", api.PuzzleShareApi.as_view(), name="api-puzzle-share"),
    path("puzzles/<int:puzzle_id>/", api.PuzzleDetailApi.as_view(), name="api-puzzle-detail"),
    path("puzzles/<int:puzzle_id>/attempts/", api.PuzzleAttemptApi.as_view(), name="api-puzzle-attempts"),
]

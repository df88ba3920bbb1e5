from django.urls import path

from . import views

urlpatterns = [
    path("training/", views.training, name="training"),
    path("training/<int:puzzle_id>/", views.puzzle_page, name="puzzle"),
    path("training/pick/<int:finding_id>/", views.pick_puzzle, name="puzzle-pick"),
]

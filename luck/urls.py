from django.urls import path

from . import api

urlpatterns = [
    path("matches/<int:match_id>/hands/<int:hand>/luck/", api.HandLuckApi.as_view(), name="api-hand-luck"),
]

from django.urls import path

from . import api

urlpatterns = [
    path("auth/token/", api.TokenApi.as_view(), name="api-token"),
    path("auth/signup/", api.SignupApi.as_view(), name="api-signup"),
]

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularSwaggerView
from rest_framework.authtoken.views import obtain_auth_token

from records.api import SchemaApi, SignupApi

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/schema/", SchemaApi.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/auth/token/", obtain_auth_token, name="api-token"),
    path("api/auth/signup/", SignupApi.as_view(), name="api-signup"),
    path("api/", include("records.urls")),
    path("api/", include("analysis.urls")),
    path("api/", include("reviews.urls")),
    path("accounts/", include("django.contrib.auth.urls")),
    path("", include("records.page_urls")),
]

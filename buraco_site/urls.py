from typing import Any

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.urls import include, path, re_path
from django.views import defaults
from drf_spectacular.views import SpectacularSwaggerView

from apikit.errors import api_not_found, json_error
from apikit.schema import SchemaApi

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/schema/", SchemaApi.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/", include("accounts.urls")),
    path("api/", include("records.urls")),
    path("api/", include("analysis.urls")),
    path("api/", include("luck.urls")),
    path("api/", include("reviews.urls")),
    path("api/", include("training.urls")),
    # Last of the API: any other /api/ path is a JSON 404, with DEBUG on too (Django's own 404
    # is then an HTML page, handler404 below is not used).
    re_path(r"^api/", api_not_found, name="api-not-found"),
    path("", include("accounts.page_urls")),  # sign-up, and the log-in page before Django's own
    path("accounts/", include("django.contrib.auth.urls")),
    path("", include("training.page_urls")),
    path("", include("pages.urls")),
]


# Django's own error answers: JSON in the API's one format under /api/, pages elsewhere.
def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def handler400(request: HttpRequest, exception: Any = None) -> HttpResponse:
    if _is_api(request):
        return json_error(request, 400, "the request is not valid")
    return defaults.bad_request(request, exception)


def handler403(request: HttpRequest, exception: Any = None) -> HttpResponse:
    if _is_api(request):
        return json_error(request, 403, "you may not do this")
    return defaults.permission_denied(request, exception)


def handler404(request: HttpRequest, exception: Any = None) -> HttpResponse:
    if _is_api(request):
        return json_error(request, 404, f"nothing is at {request.path}")
    return defaults.page_not_found(request, exception)


def handler500(request: HttpRequest) -> HttpResponse:
    if _is_api(request):
        return json_error(request, 500, "the server failed on this request; it is logged")
    return defaults.server_error(request)

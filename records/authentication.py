"""Credentials the database cannot hold (NUL characters: PostgreSQL text has none) are
refused as credentials, never looked up (the lookup would be a 500)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse
from rest_framework import authentication, exceptions


class TokenAuthentication(authentication.TokenAuthentication):
    def authenticate_credentials(self, key: str) -> Any:
        if "\x00" in key:
            raise exceptions.AuthenticationFailed("Invalid token.")
        return super().authenticate_credentials(key)


class RefuseBadSessionCookie:
    """A session cookie holding NUL is answered 400, and dropped, before the session is read."""

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if "\x00" in request.COOKIES.get(settings.SESSION_COOKIE_NAME, ""):
            message = "the session cookie is not valid; it is dropped: log in again"
            response: HttpResponse
            if request.path.startswith("/api/"):
                response = JsonResponse({"message": message, "extra": {}}, status=400)
            else:
                response = HttpResponseBadRequest(message, content_type="text/plain; charset=utf-8")
            response.delete_cookie(settings.SESSION_COOKIE_NAME)
            return response
        return self.get_response(request)

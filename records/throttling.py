"""Rate limits on what can be tried over and over: API tokens, log-ins, sign-ups, uploads.

DRF's throttling on the cache (``CACHES``), each scope's rate read from
``settings.BURACO_THROTTLE_RATES`` at every request (so ``override_settings`` changes it;
DRF's own ``DEFAULT_THROTTLE_RATES`` is read once at import). A refused request is a 429
with ``Retry-After``. The log-in and sign-up pages use the same counters.
"""

from __future__ import annotations

import math
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from rest_framework.throttling import SimpleRateThrottle


class SettingsRateThrottle(SimpleRateThrottle):
    """Counts the ``methods`` requests of a user (by account, else by address) per ``scope``."""

    methods: tuple[str, ...] = ("POST",)

    def get_rate(self) -> str | None:
        rates: dict[str, str | None] = getattr(settings, "BURACO_THROTTLE_RATES", {})
        return rates.get(self.scope) if self.scope else None

    def allow_request(self, request: Any, view: Any) -> bool:
        if request.method not in self.methods:
            return True
        return bool(super().allow_request(request, view))

    def get_cache_key(self, request: Any, view: Any) -> str:
        user = getattr(request, "user", None)
        ident = f"user-{user.pk}" if user is not None and user.is_authenticated else self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}


class TokenThrottle(SettingsRateThrottle):
    scope = "token"


class LoginThrottle(SettingsRateThrottle):
    scope = "login"


class SignupThrottle(SettingsRateThrottle):
    scope = "signup"


class UploadThrottle(SettingsRateThrottle):
    scope = "upload"


def page_refusal(throttle: SettingsRateThrottle, request: HttpRequest, what: str) -> HttpResponse | None:
    """For a server-rendered page: None if the request may go on, else the 429 to answer."""
    if throttle.allow_request(request, None):
        return None
    wait = math.ceil(throttle.wait() or 1)
    response = HttpResponse(
        f"Too many {what} attempts from here: try again in {wait} seconds.",
        status=429, content_type="text/plain; charset=utf-8",
    )
    response["Retry-After"] = str(wait)
    return response

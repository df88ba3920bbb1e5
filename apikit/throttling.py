"""Rate limits on what can be tried over and over, each scope's rate read from
``settings.BURACO_THROTTLE_RATES`` at every request (so ``override_settings`` changes it;
DRF's own ``DEFAULT_THROTTLE_RATES`` is read once at import). A refused request is a 429
with ``Retry-After``; server-rendered pages ask :func:`page_refusal`.

Who is counted: the account when the request has one, else the client's address, which is
the connection's own (``REMOTE_ADDR``) unless ``settings.REST_FRAMEWORK["NUM_PROXIES"]``
(``TRUSTED_PROXIES``) says how many proxies of the site's own stand in front and add to
``X-Forwarded-For``: a header anyone can make up is never believed beyond them.
"""

from __future__ import annotations

import math
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle


def client_address(request: Any) -> str:
    """The client's address, as every rate limit counts it (DRF's ``get_ident``, which follows
    ``NUM_PROXIES``)."""
    return str(BaseThrottle().get_ident(request))


class SettingsRateThrottle(SimpleRateThrottle):
    """Counts the ``methods`` requests of a user (by account, else by address) per ``scope``."""

    methods: tuple[str, ...] = ("POST",)
    by_address = False  # count the address even when the request has an account

    def get_rate(self) -> str | None:
        rates: dict[str, str | None] = getattr(settings, "BURACO_THROTTLE_RATES", {})
        return rates.get(self.scope) if self.scope else None

    def allow_request(self, request: Any, view: Any) -> bool:
        if request.method not in self.methods:
            return True
        return bool(super().allow_request(request, view))

    def get_cache_key(self, request: Any, view: Any) -> str:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated and not self.by_address:
            ident = f"user-{user.pk}"
        else:
            ident = f"address-{client_address(request)}"
        return self.cache_format % {"scope": self.scope, "ident": ident}


class CountedThrottle(SimpleRateThrottle):
    """A rate limit on events the caller counts itself (a failed log-in of one account, say),
    keyed by ``ident``, its rate from ``settings.BURACO_THROTTLE_RATES[scope]``."""

    duration: int
    num_requests: int

    def __init__(self, scope: str, ident: str) -> None:
        self.scope = scope
        self.ident = ident
        super().__init__()

    def get_rate(self) -> str | None:
        rates: dict[str, str | None] = getattr(settings, "BURACO_THROTTLE_RATES", {})
        return rates.get(self.scope or "")

    def get_cache_key(self, request: Any, view: Any) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.ident}

    def wait_seconds(self) -> int | None:
        """None while under the rate; else how long until the oldest counted event expires."""
        if self.rate is None:
            return None
        self.key = self.get_cache_key(None, None)
        self.history = self.cache.get(self.key, [])
        self.now = self.timer()
        while self.history and self.history[-1] <= self.now - self.duration:
            self.history.pop()
        if len(self.history) < self.num_requests:
            return None
        return math.ceil(self.wait() or 1)

    def count(self) -> None:
        """Count one event now."""
        if self.rate is None:
            return
        self.wait_seconds()
        self.history.insert(0, self.now)
        self.cache.set(self.key, self.history, self.duration)

    def clear(self) -> None:
        self.cache.delete(self.get_cache_key(None, None))


def refusal(wait: int, what: str) -> HttpResponse:
    """A page's 429: plain text that says how long to wait, with ``Retry-After``."""
    response = HttpResponse(
        f"Too many {what} attempts: try again in {wait} seconds.",
        status=429, content_type="text/plain; charset=utf-8",
    )
    response["Retry-After"] = str(wait)
    return response


def page_refusal(throttle: SettingsRateThrottle, request: HttpRequest, what: str) -> HttpResponse | None:
    """For a server-rendered page: None if the request may go on, else the 429 to answer."""
    if throttle.allow_request(request, None):
        return None
    return refusal(math.ceil(throttle.wait() or 1), what)

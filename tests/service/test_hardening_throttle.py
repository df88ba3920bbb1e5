"""Token, log-in, sign-up and upload attempts are rate-limited: past the rate a 429 with
Retry-After (JSON in the one format under /api/). Rates come from
settings.BURACO_THROTTLE_RATES; these tests set low ones and clear the cache."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import override_settings
from rest_framework.test import APIClient

from .conftest import record_text

LOW = {"login": "2/min", "login-failures": "50/hour", "signup": "2/min", "upload": "2/min"}


@pytest.fixture(autouse=True)
def low_rates() -> Iterator[None]:
    cache.clear()
    with override_settings(BURACO_THROTTLE_RATES=LOW):
        yield
    cache.clear()


def _throttled(response: Any) -> None:
    assert response.status_code == 429, response.content[:300]
    assert int(response["Retry-After"]) > 0


def _json_throttled(response: Any) -> None:
    _throttled(response)
    body = response.json()
    assert body["message"] and isinstance(body["extra"], dict)


def test_token_attempts_are_limited(owner: User) -> None:
    client = APIClient()
    for password in ("wrong-1", "wrong-2"):
        assert client.post("/api/auth/token/", {"username": "ana", "password": password}).status_code == 401
    _json_throttled(client.post("/api/auth/token/", {"username": "ana", "password": "pw-ana-123456"}))


def test_api_signup_attempts_are_limited(db: Any) -> None:
    client = APIClient()
    for name in ("one", "two"):
        response = client.post("/api/auth/signup/", {"username": name, "password": "table-for-four-7"}, format="json")
        assert response.status_code == 201, response.content
    _json_throttled(client.post("/api/auth/signup/", {"username": "three", "password": "table-for-four-7"},
                                format="json"))
    assert not User.objects.filter(username="three").exists()


def test_page_signup_attempts_are_limited(db: Any) -> None:
    for name in ("one", "two"):
        client = APIClient()
        response = client.post("/signup/", {"username": name, "password1": "table-for-four-7",
                                            "password2": "table-for-four-7"}, format="multipart")
        assert response.status_code == 302, response.content[:300]
    _throttled(APIClient().post("/signup/", {"username": "three", "password1": "table-for-four-7",
                                             "password2": "table-for-four-7"}, format="multipart"))
    assert not User.objects.filter(username="three").exists()
    assert APIClient().get("/signup/").status_code == 200  # showing the form is no attempt


def test_login_page_attempts_are_limited(owner: User) -> None:
    client = APIClient()
    for password in ("wrong-1", "wrong-2"):
        assert client.post("/accounts/login/", {"username": "ana", "password": password}, format="multipart").status_code == 200
    _throttled(client.post("/accounts/login/", {"username": "ana", "password": "pw-ana-123456"}, format="multipart"))
    assert client.get("/accounts/login/").status_code == 200


def test_uploads_are_limited_per_user(owner_api: APIClient, stranger_api: APIClient, upload: Any) -> None:
    for seed in (1, 2):
        assert upload(owner_api, ("a.brn", record_text(hands=1, seed=700 + seed))).status_code == 202
    _json_throttled(upload(owner_api, ("a.brn", record_text(hands=1, seed=703))))
    assert owner_api.get("/api/matches/").status_code == 200  # reading is not limited
    assert upload(stranger_api, ("a.brn", record_text(hands=1, seed=704))).status_code == 202


def test_the_default_rates_are_set_and_generous(settings: Any) -> None:
    from buraco_site import settings as site

    for scope in ("login", "login-failures", "signup", "upload", "try", "review"):
        count = int(site.BURACO_THROTTLE_RATES[scope].split("/")[0])
        assert count >= 10, scope

"""The second outside probe: rate limits count the real client, not a header anyone can make
up; failed log-ins are counted per account too, one counter for the API and the page.

These run with the site's default rates (settings.BURACO_THROTTLE_RATES), as the probe did.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import override_settings
from rest_framework.test import APIClient

from .helpers import fast_passwords  # noqa: F401 - a fixture

PASSWORD = "table-for-four-7"


def _first_refusal(responses: list[Any]) -> int | None:
    """The 1-based attempt first answered 429, or None."""
    return next((n for n, response in enumerate(responses, start=1) if response.status_code == 429), None)


def test_a_made_up_forwarded_for_does_not_reset_the_token_endpoint_s_count(owner: User) -> None:
    client = APIClient()
    answers = [
        client.post("/api/auth/token/", {"username": "ana", "password": f"wrong-{n}"}, HTTP_X_FORWARDED_FOR=f"10.0.{n}.1")
        for n in range(35)
    ]
    first = _first_refusal(answers)
    assert first is not None and first <= 31, [a.status_code for a in answers]
    assert int(answers[first - 1]["Retry-After"]) > 0


def test_a_made_up_forwarded_for_does_not_reset_the_log_in_page_s_count(owner: User) -> None:
    client = APIClient()
    answers = [
        client.post("/accounts/login/", {"username": "ana", "password": f"wrong-{n}"}, HTTP_X_FORWARDED_FOR=f"10.1.{n}.1", format="multipart")
        for n in range(35)
    ]
    first = _first_refusal(answers)
    assert first is not None and first <= 31, [a.status_code for a in answers]


@pytest.mark.usefixtures("fast_passwords")
def test_sign_ups_from_one_address_stop_at_the_limit_whatever_the_header(db: Any) -> None:
    answers = [
        APIClient().post("/api/auth/signup/", {"username": f"made{n}", "password": PASSWORD},
                         HTTP_X_FORWARDED_FOR=f"10.2.{n}.1", format="json")
        for n in range(55)
    ]
    assert [a.status_code for a in answers[:50]] == [201] * 50
    assert {a.status_code for a in answers[50:]} == {429}
    assert User.objects.filter(username__startswith="made").count() == 50


def test_failed_log_ins_of_one_account_from_many_addresses_lock_it_for_everyone(owner: User, stranger: User) -> None:
    answers = [
        APIClient().post("/api/auth/token/", {"username": "ana", "password": f"wrong-{n}"}, REMOTE_ADDR=f"192.0.2.{n}")
        for n in range(25)
    ]
    assert [a.status_code for a in answers[:20]] == [401] * 20  # wrong credentials
    assert {a.status_code for a in answers[20:]} == {429}
    # The right password too: a guesser must not learn it from the answer.
    right = APIClient().post("/api/auth/token/", {"username": "ANA", "password": "pw-ana-123456"}, REMOTE_ADDR="192.0.2.99")
    assert right.status_code == 429
    page = APIClient().post("/accounts/login/", {"username": "ana", "password": "pw-ana-123456"}, REMOTE_ADDR="192.0.2.98", format="multipart")
    assert page.status_code == 429  # one counter for the API and the page
    other = APIClient().post("/api/auth/token/", {"username": "stranger", "password": "pw-stranger-123456"},
                             REMOTE_ADDR="192.0.2.97")
    assert other.status_code == 200, other.content


@override_settings(BURACO_THROTTLE_RATES={"login": "4/min", "login-failures": "100/hour"})
def test_the_api_and_the_log_in_page_share_one_count_per_address(owner: User) -> None:
    client = APIClient()
    for n in range(2):
        assert client.post("/api/auth/token/", {"username": "ana", "password": f"x{n}"}).status_code == 401
        assert client.post("/accounts/login/", {"username": "ana", "password": f"y{n}"}, format="multipart").status_code == 200
    assert client.post("/accounts/login/", {"username": "ana", "password": "pw-ana-123456"}, format="multipart").status_code == 429
    assert client.post("/api/auth/token/", {"username": "ana", "password": "pw-ana-123456"}).status_code == 429


@override_settings(BURACO_THROTTLE_RATES={"login": "3/min", "login-failures": "100/hour"},
                   REST_FRAMEWORK={**__import__("django.conf").conf.settings.REST_FRAMEWORK, "NUM_PROXIES": 1})
def test_with_a_trusted_proxy_the_address_it_forwards_is_counted(owner: User) -> None:
    client = APIClient()
    # Behind one proxy of the site's own, the last X-Forwarded-For entry is the client.
    for n in range(3):
        assert client.post("/api/auth/token/", {"username": "ana", "password": f"x{n}"},
                           HTTP_X_FORWARDED_FOR="203.0.113.7, 198.51.100.1").status_code == 401
    assert client.post("/api/auth/token/", {"username": "ana", "password": "x"},
                       HTTP_X_FORWARDED_FOR="203.0.113.7, 198.51.100.1").status_code == 429
    assert client.post("/api/auth/token/", {"username": "ana", "password": "x"},
                       HTTP_X_FORWARDED_FOR="203.0.113.7, 198.51.100.2").status_code == 401

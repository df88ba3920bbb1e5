"""One username rule for the API and the page: NFKC before the case-insensitive check, and
no name a reader could take for an existing one (accounts.usernames, from Unicode's
confusables.txt). Sharing by name then reaches the account the owner means."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from accounts.models import UsernameKey

from .conftest import requires_postgres
from .helpers import at_once, fast_passwords  # noqa: F401 - a fixture

PASSWORD = "table-for-four-7"
LOOK_ALIKES = ["ＣＯＡＣＨ", "Ｃoach", "COACH", "\u0421oach", "c0ach", "coach\u200b"]


@pytest.mark.usefixtures("fast_passwords")
@pytest.mark.parametrize("name", LOOK_ALIKES[:5])
def test_the_api_refuses_a_name_that_looks_like_an_existing_one(coach: User, name: str) -> None:
    response = APIClient().post("/api/auth/signup/", {"username": name, "password": PASSWORD}, format="json")
    assert response.status_code == 400, response.content
    assert "username" in response.json()["extra"]["fields"]
    assert User.objects.count() == 1


@pytest.mark.usefixtures("fast_passwords")
@pytest.mark.parametrize("name", LOOK_ALIKES[:5])
def test_the_page_refuses_the_same_names(coach: User, name: str) -> None:
    response = APIClient().post("/signup/", {"username": name, "password1": PASSWORD, "password2": PASSWORD}, format="multipart")
    assert response.status_code == 200, response.content[:200]  # the form again, with the error
    assert b"looks like an existing account" in response.content or b"is taken" in response.content
    assert User.objects.count() == 1


@pytest.mark.usefixtures("fast_passwords")
def test_a_name_no_account_looks_like_is_made_normalised(coach: User) -> None:
    response = APIClient().post("/api/auth/signup/", {"username": "Ｂｉａ", "password": PASSWORD}, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["username"] == "Bia"  # stored NFKC, as Django's own forms store it
    assert User.objects.filter(username="Bia").exists()


def test_sharing_with_another_case_of_a_name_shares_with_that_account(
    owner_api: APIClient, coach: User, upload: Any
) -> None:
    from .conftest import record_text

    match_id = upload(owner_api, ("m.brn", record_text(hands=1, seed=801))).json()["id"]
    assert owner_api.post(f"/api/matches/{match_id}/shared-with/", {"username": "COACH"}).status_code == 204
    assert list(coach.shared_matches.values_list("pk", flat=True)) == [match_id]


def test_every_account_gets_its_key_however_it_is_made(db: Any) -> None:
    first = User.objects.create_user("Ana")  # as the admin or createsuperuser make accounts
    assert UsernameKey.objects.get(user=first).key == "ana"
    late = User.objects.create_user("ＡＮＡ")  # NFKC: "ANA", made around the rule: it keeps no key
    assert not UsernameKey.objects.filter(user=late).exists()
    first.username = "Anabel"
    first.save()
    assert UsernameKey.objects.get(user=first).key == "anabel"


def test_a_log_in_does_not_touch_the_key(owner: User, django_assert_num_queries: Any) -> None:
    owner.save(update_fields=["last_login"])  # what a log-in saves
    with django_assert_num_queries(1):
        owner.save(update_fields=["last_login"])


@requires_postgres
@pytest.mark.usefixtures("fast_passwords")
def test_two_sign_ups_racing_for_look_alike_names_make_one_account(transactional_db: Any) -> None:
    names = iter(["Coach", "ＣＯＡＣＨ", "c0ach", "\u0421oach"])
    lock = threading.Lock()

    def sign_up() -> int:
        with lock:
            name = next(names)
        return int(APIClient().post("/api/auth/signup/", {"username": name, "password": PASSWORD},
                                    format="json").status_code)

    assert sorted(at_once(4, sign_up)) == [201, 400, 400, 400]
    assert User.objects.count() == 1

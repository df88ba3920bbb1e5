"""Writes a client can repeat: an upload with an Idempotency-Key stores once, a second review
start answers the open review, a share link asked for twice is the same link; and the answers
say what they did: 401 for wrong credentials, Location and Retry-After on a 202."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from records.models import Match
from reviews.models import Review

from .conftest import record_text
from .helpers import at_once, fast_passwords, named  # noqa: F401  (a fixture)

pytestmark = pytest.mark.usefixtures("fast_passwords")


def _upload(client: APIClient, text: str, key: str | None = None, name: str = "m.brn") -> Any:
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key is not None else {}
    return client.post("/api/matches/", {"file": named(text, name)}, format="multipart", **headers)


def test_an_upload_sent_again_with_its_key_stores_nothing_twice(owner_api: APIClient, owner: User) -> None:
    text = record_text(hands=1, seed=941)
    first = _upload(owner_api, text, key="try-1")
    again = _upload(owner_api, text, key="try-1")
    assert (first.status_code, again.status_code) == (202, 202)
    assert again.json() == first.json() and again["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first
    assert Match.objects.filter(owner=owner).count() == 1


def test_a_key_sent_with_another_upload_is_refused(owner_api: APIClient, owner: User) -> None:
    assert _upload(owner_api, record_text(hands=1, seed=942), key="k").status_code == 202
    refused = _upload(owner_api, record_text(hands=1, seed=943), key="k")
    assert refused.status_code == 422 and "another upload" in refused.json()["message"]
    assert refused.json()["extra"]["fields"] == {"Idempotency-Key": ["used for another upload"]}
    assert Match.objects.filter(owner=owner).count() == 1
    assert _upload(owner_api, record_text(hands=1, seed=943), key="k2").status_code == 202


def test_a_long_key_is_a_key(owner_api: APIClient, owner: User) -> None:
    text, key = record_text(hands=1, seed=951), "k" * 1000
    assert _upload(owner_api, text, key=key).status_code == 202
    assert _upload(owner_api, text, key=key)["Idempotent-Replayed"] == "true"


def test_keys_are_each_owner_s_own(owner_api: APIClient, stranger_api: APIClient) -> None:
    text = record_text(hands=1, seed=944)
    mine, theirs = _upload(owner_api, text, key="same"), _upload(stranger_api, text, key="same")
    assert mine.json()["id"] != theirs.json()["id"] and "Idempotent-Replayed" not in theirs


def test_a_key_that_is_no_key_is_a_400(owner_api: APIClient) -> None:
    for key in ("has space", "é", "tab\there"):
        response = _upload(owner_api, record_text(hands=1, seed=945), key=key)
        assert response.status_code == 400 and "Idempotency-Key" in response.json()["extra"]["fields"], key


@pytest.mark.django_db(transaction=True)
def test_two_uploads_racing_with_one_key_store_once(owner: User) -> None:
    from rest_framework.authtoken.models import Token

    token = Token.objects.create(user=owner).key
    text = record_text(hands=1, seed=946)

    def send() -> tuple[int, int]:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        response = _upload(client, text, key="race")
        return response.status_code, response.json()["id"]

    answers = at_once(3, send)
    assert {status for status, _ in answers} == {202} and len({match for _, match in answers}) == 1
    assert Match.objects.filter(owner=owner).count() == 1


def test_an_accepted_upload_says_where_and_when_to_ask(owner_api: APIClient) -> None:
    one = _upload(owner_api, record_text(hands=1, seed=947))
    assert one["Location"].endswith(f"/api/matches/{one.json()['id']}/") and int(one["Retry-After"]) >= 1
    batch = owner_api.post("/api/matches/", {"files": [named(record_text(hands=1, seed=948), "a.brn"),
                                                       named(record_text(hands=1, seed=949), "b.brn")]},
                           format="multipart")
    assert batch["Location"].endswith(f"/api/batches/{batch.json()['batch']}/")
    assert owner_api.get(batch["Location"]).status_code == 200


def test_starting_a_review_twice_answers_the_open_review(owner_api: APIClient, upload: Any) -> None:
    from .helpers import upload_one

    match_id = upload_one(upload, owner_api, record_text(hands=1, seed=950))
    first = owner_api.post(f"/api/matches/{match_id}/reviews/")
    again = owner_api.post(f"/api/matches/{match_id}/reviews/")
    assert (first.status_code, again.status_code) == (201, 200) and again.json()["id"] == first.json()["id"]
    owner_api.patch(f"/api/matches/{match_id}/reviews/{first.json()['id']}/", {"finished": True})
    another = owner_api.post(f"/api/matches/{match_id}/reviews/")
    assert another.status_code == 201 and another.json()["id"] != first.json()["id"]
    assert Review.objects.filter(match_id=match_id).count() == 2


def test_wrong_credentials_are_a_401_with_the_scheme_to_use(owner: User) -> None:
    response = APIClient().post("/api/auth/token/", {"username": "ana", "password": "not-hers"})
    assert response.status_code == 401 and response["WWW-Authenticate"].startswith("Token")
    assert set(response.json()) == {"message", "extra"}
    blank = APIClient().post("/api/auth/token/", {"username": "", "password": "x"})
    assert blank.status_code == 400 and "username" in blank.json()["extra"]["fields"]

"""records.permissions: one policy for reading, managing and reviewing a match, asked by
every page and endpoint. Personas: the owner, a coach the match is shared with, a
stranger, an anonymous reader, and a holder of the share link."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser, User
from django.test import Client
from rest_framework.test import APIClient

from records import permissions, services
from records.models import Match

from .conftest import record_text
from .helpers import (
    fast_passwords,  # noqa: F401  (a fixture)
    upload_one,
)

pytestmark = pytest.mark.usefixtures("fast_passwords")


@pytest.fixture
def match(owner_api: APIClient, upload: Any, coach: User) -> Match:
    match_id = upload_one(upload, owner_api, record_text("cerrado", hands=1, seed=401))
    match = Match.objects.get(pk=match_id)
    services.match_share_with(match=match, user=coach)
    services.share_link_create(match=match)
    return match


def who(request: Any, persona: str) -> tuple[Any, str | None]:
    """The user and the share token a persona reads with."""
    if persona == "link holder":
        return AnonymousUser(), "link"
    if persona == "anonymous":
        return AnonymousUser(), None
    return request.getfixturevalue(persona), None


EXPECTED = {  # persona: (read, manage, review) on a private match
    "owner": (True, True, True),
    "coach": (True, False, True),
    "stranger": (False, False, False),
    "anonymous": (False, False, False),
    "link holder": (True, False, False),
}


@pytest.mark.parametrize("persona", list(EXPECTED))
def test_it_answers_read_manage_and_review_for_each_persona(request: Any, match: Match, persona: str) -> None:
    user, share = who(request, persona)
    token = match.share_token if share else None
    answers = (permissions.can_read(user, match, token), permissions.can_manage(user, match),
               permissions.can_review(user, match))
    assert answers == EXPECTED[persona]
    assert permissions.abilities(user, match, token) == dict(zip(("read", "manage", "review"), EXPECTED[persona]))


@pytest.mark.parametrize("persona", ["stranger", "anonymous", "link holder"])
def test_it_lets_everyone_read_a_public_match_but_only_owner_and_coach_review_it(
    request: Any, match: Match, persona: str
) -> None:
    Match.objects.filter(pk=match.pk).update(visibility="public")
    match.refresh_from_db()
    user, share = who(request, persona)
    assert permissions.can_read(user, match, match.share_token if share else None)
    assert not permissions.can_review(user, match) and not permissions.can_manage(user, match)


def test_it_never_lets_a_stranger_holding_the_link_review_or_manage(stranger: User, match: Match) -> None:
    assert permissions.can_read(stranger, match, match.share_token)
    assert not permissions.can_review(stranger, match)
    assert not permissions.can_manage(stranger, match)


def test_it_closes_a_wrong_or_revoked_link(match: Match) -> None:
    token = match.share_token
    assert not permissions.can_read(AnonymousUser(), match, "not-the-token")
    services.share_link_revoke(match=match)
    assert not permissions.can_read(AnonymousUser(), match, token)


def test_it_stops_the_coachs_review_when_the_match_is_unshared(coach: User, match: Match) -> None:
    services.match_unshare_with(match=match, user=coach)
    assert not permissions.can_review(coach, match) and not permissions.can_read(coach, match)


@pytest.mark.parametrize("persona", list(EXPECTED))
def test_it_gives_the_api_the_same_answers(request: Any, match: Match, persona: str) -> None:
    client = request.getfixturevalue(f"{persona}_api") if persona in ("owner", "coach", "stranger") else APIClient()
    query = {"share": match.share_token} if persona == "link holder" else {}
    read, manage, review = EXPECTED[persona]
    response = client.get(f"/api/matches/{match.pk}/", query)
    assert response.status_code == (200 if read else 404)
    if read:
        assert response.json()["can"] == {"read": read, "manage": manage, "review": review}
    for url in (f"/api/matches/{match.pk}/hands/1/timeline/", f"/api/matches/{match.pk}/findings/"):
        assert client.get(url, query).status_code == (200 if read else 404), url
    revoke = client.delete(f"/api/matches/{match.pk}/share-link/?" + "&".join(f"{k}={v}" for k, v in query.items()))
    assert revoke.status_code == (204 if manage else 403 if read else 404)


@pytest.mark.parametrize("persona", list(EXPECTED))
def test_it_gives_the_match_page_the_same_answers(request: Any, match: Match, persona: str) -> None:
    client = Client()
    if persona in ("owner", "coach", "stranger"):
        client.force_login(request.getfixturevalue(persona))
    query = {"share": match.share_token} if persona == "link holder" else {}
    read, manage, _ = EXPECTED[persona]
    response = client.get(f"/matches/{match.pk}/", query)
    assert response.status_code == (200 if read else 404)
    if read:
        assert response.context["can"]["manage"] is manage
        assert ('id="delete-form"' in response.content.decode()) is manage


def test_a_public_match_shared_with_two_users_is_listed_once(
    owner_api: APIClient, coach: User, stranger: User, upload: Any
) -> None:
    from records import services
    from records.models import Match

    match_id = upload_one(upload, owner_api, record_text(hands=1, seed=931), visibility="public")
    match = Match.objects.get(pk=match_id)
    services.match_share_with(match=match, user=coach)
    services.match_share_with(match=match, user=stranger)
    for client in (owner_api, APIClient()):
        listed = client.get("/api/matches/").json()
        assert (listed["count"], [m["id"] for m in listed["results"]]) == (1, [match_id])
    status = owner_api.get("/api/status/").json()
    assert sum(status["counts"].values()) == 1

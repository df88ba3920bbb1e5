"""GET /api/matches/ (filters, paging) and who may read, share and delete one match."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from records.models import Hand, Match

from .conftest import record_text, zip_of
from .helpers import (
    fast_passwords,  # noqa: F401  (a fixture)
    illegal_record,
    named,
    upload_one,
    with_event,
    with_players,
)

READS = ["", "report/", "brn/", "hands/1/timeline/", "hands/1/states/0/"]

pytestmark = pytest.mark.usefixtures("fast_passwords")


def ids(response: Any) -> set[int]:
    assert response.status_code == 200, response.content
    return {m["id"] for m in response.json()["results"]}


def read(client: APIClient, match_id: int, what: str = "", share: str | None = None) -> Any:
    url = f"/api/matches/{match_id}/{what}"
    return client.get(url, {"share": share} if share is not None else {})


@pytest.fixture
def private_match(owner_api: APIClient, upload: Any) -> int:
    return upload_one(upload, owner_api, record_text("cerrado", hands=1, seed=101), "private.brn")


@pytest.fixture
def public_match(owner_api: APIClient, upload: Any) -> int:
    return upload_one(upload, owner_api, record_text("burraco", hands=1, seed=102), "public.brn", visibility="public")


# --- the list: filters and paging ----------------------------------------------------


@pytest.fixture
def library(owner_api: APIClient, upload: Any) -> dict[str, int]:
    """Four matches of the owner: three rule sets, named players, one invalid."""
    cerrado = with_players(record_text("cerrado", hands=1, seed=111), "Ana", "Bia")
    brasil = with_players(record_text("brasil", players=3, hands=1, seed=112), "Ana", "Caio", "Duda")
    burraco = with_players(record_text("burraco", hands=1, seed=113), "Eva", "Fabio")
    return {
        "cerrado": upload_one(upload, owner_api, cerrado, "cerrado.brn"),
        "brasil": upload_one(upload, owner_api, brasil, "brasil.brn"),
        "burraco": upload_one(upload, owner_api, burraco, "burraco.brn"),
        "invalid": upload_one(upload, owner_api, illegal_record(seed=114).text, "illegal.brn"),
    }


def test_it_lists_the_owners_matches_with_a_summary(owner_api: APIClient, library: dict[str, int]) -> None:
    response = owner_api.get("/api/matches/")
    assert ids(response) == set(library.values())
    body = response.json()
    assert body["count"] == 4
    assert body["next"] is None
    item = next(m for m in body["results"] if m["id"] == library["brasil"])
    assert item["variant"] == "brasil"
    assert item["players"] == ["Ana", "Caio", "Duda"]
    assert item["status"] == "verified"
    assert item["owner"] == "ana"
    assert item["hand_count"] == 1
    assert "source" not in item and "share_token" not in item


def test_it_filters_the_list_by_variant(owner_api: APIClient, library: dict[str, int]) -> None:
    assert ids(owner_api.get("/api/matches/", {"variant": "brasil"})) == {library["brasil"]}
    assert ids(owner_api.get("/api/matches/", {"variant": "cerrado"})) == {library["cerrado"], library["invalid"]}
    assert ids(owner_api.get("/api/matches/", {"variant": "abierto"})) == set()


def test_it_filters_the_list_by_player_whatever_the_case(owner_api: APIClient, library: dict[str, int]) -> None:
    assert ids(owner_api.get("/api/matches/", {"player": "Ana"})) == {library["cerrado"], library["brasil"]}
    assert ids(owner_api.get("/api/matches/", {"player": "fabio"})) == {library["burraco"]}
    assert ids(owner_api.get("/api/matches/", {"player": "Zoe"})) == set()


def test_it_filters_the_list_by_status(owner_api: APIClient, library: dict[str, int]) -> None:
    assert ids(owner_api.get("/api/matches/", {"status": "invalid"})) == {library["invalid"]}
    assert ids(owner_api.get("/api/matches/", {"status": "verified"})) == {
        library["cerrado"], library["brasil"], library["burraco"]
    }
    assert ids(owner_api.get("/api/matches/", {"status": "pending"})) == set()


def test_it_filters_the_list_by_upload_date(owner_api: APIClient, library: dict[str, int]) -> None:
    old = timezone.make_aware(dt.datetime(2024, 1, 10, 12, 0))
    Match.objects.filter(pk=library["brasil"]).update(created_at=old)
    today = timezone.now().date().isoformat()

    january = {"date_from": "2024-01-01", "date_to": "2024-01-31"}
    assert ids(owner_api.get("/api/matches/", january)) == {library["brasil"]}
    assert ids(owner_api.get("/api/matches/", {"date_to": "2024-01-10"})) == {library["brasil"]}
    assert ids(owner_api.get("/api/matches/", {"date_from": "2024-01-11"})) == set(library.values()) - {library["brasil"]}
    assert ids(owner_api.get("/api/matches/", {"date_from": today, "date_to": today})) == set(library.values()) - {
        library["brasil"]
    }


def test_it_combines_filters(owner_api: APIClient, library: dict[str, int]) -> None:
    both = {"variant": "cerrado", "status": "verified", "player": "bia"}
    assert ids(owner_api.get("/api/matches/", both)) == {library["cerrado"]}


def test_it_filters_the_list_by_batch(owner_api: APIClient, upload: Any, library: dict[str, int]) -> None:
    texts = {f"b{i}.brn": record_text(hands=1, seed=120 + i) for i in range(2)}
    batch = upload(owner_api, ("night.zip", zip_of(texts))).json()
    assert ids(owner_api.get("/api/matches/", {"batch": batch["batch"]})) == {m["id"] for m in batch["matches"]}


def test_it_refuses_bad_filters_in_the_error_format(owner_api: APIClient) -> None:
    for query in ({"variant": "poker"}, {"status": "lost"}, {"date_from": "yesterday"}, {"batch": "x"}):
        response = owner_api.get("/api/matches/", query)
        assert response.status_code == 400, query
        body = response.json()
        assert set(body) == {"message", "extra"}
        assert list(query)[0] in body["extra"]["fields"]


def test_it_lists_only_ones_own_matches_when_asked_mine(
    owner_api: APIClient, stranger_api: APIClient, upload: Any, public_match: int
) -> None:
    theirs = upload_one(upload, stranger_api, record_text(hands=1, seed=130))
    assert ids(stranger_api.get("/api/matches/")) == {public_match, theirs}
    assert ids(stranger_api.get("/api/matches/", {"mine": "true"})) == {theirs}
    assert ids(owner_api.get("/api/matches/", {"mine": "true"})) == {public_match}


def test_it_pages_the_list_with_count_and_next(owner_api: APIClient) -> None:
    base = record_text(hands=1, seed=140)
    texts = {f"m{i:02}.brn": with_event(base, f"night {i}") for i in range(53)}
    response = owner_api.post("/api/matches/", {"files": [named(zip_of(texts), "many.zip")]}, format="multipart")
    assert response.status_code == 202  # left pending: paging needs no verdicts
    stored = {m["id"] for m in response.json()["matches"]}

    first = owner_api.get("/api/matches/", {"mine": "true"}).json()
    assert first["count"] == 53
    assert len(first["results"]) == 50
    assert first["previous"] is None
    assert first["next"] and "page=2" in first["next"] and "mine=true" in first["next"]

    second = owner_api.get(first["next"]).json()
    assert second["count"] == 53
    assert len(second["results"]) == 3
    assert second["next"] is None
    assert second["previous"]
    seen = [m["id"] for m in first["results"] + second["results"]]
    assert len(seen) == len(set(seen)) == 53
    assert set(seen) == stored
    assert seen == sorted(seen, reverse=True)  # newest first, stable across pages

    beyond = owner_api.get("/api/matches/", {"page": 9})
    assert beyond.status_code == 404  # no such page
    assert set(beyond.json()) == {"message", "extra"}
    sized = owner_api.get("/api/matches/", {"mine": "true", "page_size": 53, "ordering": "id"}).json()
    assert [m["id"] for m in sized["results"]] == sorted(stored) and sized["next"] is None


def test_it_counts_a_match_shared_and_public_once(
    owner_api: APIClient, coach_api: APIClient, public_match: int
) -> None:
    assert owner_api.post(f"/api/matches/{public_match}/shared-with/", {"username": "coach"}).status_code == 204
    body = coach_api.get("/api/matches/").json()
    assert body["count"] == 1
    assert [m["id"] for m in body["results"]] == [public_match]


# --- personas: private, shared, public -----------------------------------------------


def test_it_shows_the_owner_their_private_match(owner_api: APIClient, private_match: int) -> None:
    assert private_match in ids(owner_api.get("/api/matches/"))
    for what in READS:
        assert read(owner_api, private_match, what).status_code == 200, what


@pytest.mark.parametrize("persona", ["stranger_api", "coach_api", "anonymous_api"])
def test_it_hides_a_private_match_from_everyone_else(request: Any, private_match: int, persona: str) -> None:
    client = request.getfixturevalue(persona)
    assert private_match not in ids(client.get("/api/matches/"))
    for what in READS:
        response = read(client, private_match, what)
        assert response.status_code == 404, (what, response.status_code)
        assert set(response.json()) == {"message", "extra"}


def test_it_answers_the_same_404_for_a_missing_match_and_a_private_one(
    stranger_api: APIClient, private_match: int
) -> None:
    hidden = read(stranger_api, private_match)
    missing = read(stranger_api, private_match + 1000)
    assert hidden.status_code == missing.status_code == 404
    assert hidden.json()["message"].replace(str(private_match), "N") == missing.json()["message"].replace(
        str(private_match + 1000), "N"
    )


def test_it_shows_a_match_shared_with_the_coach_until_unshared(
    owner_api: APIClient, coach_api: APIClient, stranger_api: APIClient, private_match: int
) -> None:
    response = owner_api.post(f"/api/matches/{private_match}/shared-with/", {"username": "coach"}, format="json")
    assert response.status_code == 204

    assert private_match in ids(coach_api.get("/api/matches/"))
    for what in READS:
        assert read(coach_api, private_match, what).status_code == 200, what
    assert read(stranger_api, private_match).status_code == 404  # shared with the coach only

    response = owner_api.delete(f"/api/matches/{private_match}/shared-with/COACH/")  # by name, any case
    assert response.status_code == 204
    assert private_match not in ids(coach_api.get("/api/matches/"))
    for what in READS:
        assert read(coach_api, private_match, what).status_code == 404, what


def test_it_keeps_a_shared_match_out_of_the_coachs_own_list(
    owner_api: APIClient, coach_api: APIClient, private_match: int
) -> None:
    owner_api.post(f"/api/matches/{private_match}/shared-with/", {"username": "coach"}, format="json")
    assert private_match in ids(coach_api.get("/api/matches/"))
    assert private_match not in ids(coach_api.get("/api/matches/", {"mine": "true"}))


def test_it_refuses_to_share_with_nobody_or_an_unknown_user(owner_api: APIClient, private_match: int) -> None:
    for payload in ({}, {"username": ""}, {"username": "ghost"}):
        response = owner_api.post(f"/api/matches/{private_match}/shared-with/", payload, format="json")
        assert response.status_code == 400, payload
        assert set(response.json()) == {"message", "extra"}
    assert Match.objects.get(pk=private_match).shared_with.count() == 0


def test_it_lets_only_the_owner_share_with_others(
    owner_api: APIClient, coach_api: APIClient, stranger_api: APIClient, private_match: int, public_match: int
) -> None:
    owner_api.post(f"/api/matches/{private_match}/shared-with/", {"username": "coach"}, format="json")
    # the coach may read it, not pass it on
    response = coach_api.post(f"/api/matches/{private_match}/shared-with/", {"username": "stranger"}, format="json")
    assert response.status_code == 403
    # a stranger cannot even see the private one; the public one is visible but not theirs
    response = stranger_api.post(f"/api/matches/{private_match}/shared-with/", {"username": "stranger"}, format="json")
    assert response.status_code == 404
    response = stranger_api.post(f"/api/matches/{public_match}/shared-with/", {"username": "stranger"}, format="json")
    assert response.status_code == 403
    # and the coach cannot unshare themself from a match they do not own
    response = coach_api.delete(f"/api/matches/{private_match}/shared-with/coach/")
    assert response.status_code == 403
    assert list(Match.objects.get(pk=private_match).shared_with.values_list("username", flat=True)) == ["coach"]
    assert not Match.objects.get(pk=public_match).shared_with.exists()


def test_it_shows_a_public_match_to_everyone(
    anonymous_api: APIClient, stranger_api: APIClient, public_match: int, private_match: int
) -> None:
    for client in (anonymous_api, stranger_api):
        assert ids(client.get("/api/matches/")) == {public_match}
        for what in READS:
            assert read(client, public_match, what).status_code == 200, what


def test_it_gives_anonymous_readers_the_public_list_when_they_ask_mine(
    anonymous_api: APIClient, public_match: int, private_match: int
) -> None:
    assert ids(anonymous_api.get("/api/matches/", {"mine": "true"})) <= {public_match}


# --- share links ---------------------------------------------------------------------


def test_it_opens_a_private_match_to_a_share_link_holder(
    owner_api: APIClient, anonymous_api: APIClient, private_match: int
) -> None:
    response = owner_api.post(f"/api/matches/{private_match}/share-link/")
    assert response.status_code == 201, response.content
    body = response.json()
    token = body["share_token"]
    assert len(token) >= 32
    assert f"/api/matches/{private_match}/?share={token}" in body["api_url"]
    assert f"/matches/{private_match}/?share={token}" in body["page_url"]
    assert read(owner_api, private_match).json()["share_token"] == token

    for what in READS:
        assert read(anonymous_api, private_match, what, share=token).status_code == 200, what
    detail = read(anonymous_api, private_match, share=token).json()
    assert detail["id"] == private_match
    assert detail["share_token"] is None  # a reader never learns the token from the API
    assert private_match not in ids(anonymous_api.get("/api/matches/", {"share": token}))


def test_it_refuses_a_wrong_share_token(owner_api: APIClient, anonymous_api: APIClient, private_match: int) -> None:
    token = owner_api.post(f"/api/matches/{private_match}/share-link/").json()["share_token"]
    for wrong in ("nope", token[:-1], token + "x", token.upper() if token.upper() != token else token.lower(), ""):
        for what in READS:
            assert read(anonymous_api, private_match, what, share=wrong).status_code == 404, (wrong, what)


def test_it_opens_only_the_match_the_link_was_made_for(
    owner_api: APIClient, anonymous_api: APIClient, upload: Any, private_match: int
) -> None:
    other = upload_one(upload, owner_api, record_text(hands=1, seed=150), "other.brn")
    token = owner_api.post(f"/api/matches/{private_match}/share-link/").json()["share_token"]
    for what in READS:
        assert read(anonymous_api, other, what, share=token).status_code == 404, what


def test_it_closes_a_revoked_share_link(owner_api: APIClient, anonymous_api: APIClient, private_match: int) -> None:
    token = owner_api.post(f"/api/matches/{private_match}/share-link/").json()["share_token"]
    assert read(anonymous_api, private_match, share=token).status_code == 200

    assert owner_api.delete(f"/api/matches/{private_match}/share-link/").status_code == 204
    for what in READS:
        assert read(anonymous_api, private_match, what, share=token).status_code == 404, what
    assert read(owner_api, private_match).json()["share_token"] is None


def test_it_keeps_the_share_link_when_asked_again_and_replaces_it_when_rotated(
    owner_api: APIClient, anonymous_api: APIClient, private_match: int
) -> None:
    made = owner_api.post(f"/api/matches/{private_match}/share-link/")
    again = owner_api.post(f"/api/matches/{private_match}/share-link/")
    assert (made.status_code, again.status_code) == (201, 200)
    assert again.json() == made.json()  # a link given out is not broken by asking twice
    old = made.json()["share_token"]
    rotated = owner_api.post(f"/api/matches/{private_match}/share-link/rotate/")
    assert rotated.status_code == 201
    new = rotated.json()["share_token"]
    assert new != old
    assert read(anonymous_api, private_match, share=old).status_code == 404
    assert read(anonymous_api, private_match, share=new).status_code == 200


def test_it_never_shows_the_share_token_to_anyone_but_the_owner(
    owner_api: APIClient, coach_api: APIClient, stranger_api: APIClient, public_match: int
) -> None:
    owner_api.post(f"/api/matches/{public_match}/shared-with/", {"username": "coach"}, format="json")
    token = owner_api.post(f"/api/matches/{public_match}/share-link/").json()["share_token"]
    for client in (coach_api, stranger_api):
        assert read(client, public_match).json()["share_token"] is None
        assert token not in client.get("/api/matches/").content.decode()
        assert token not in read(client, public_match, "report/").content.decode()


def test_it_lets_only_the_owner_make_or_revoke_share_links(
    owner_api: APIClient, coach_api: APIClient, stranger_api: APIClient, anonymous_api: APIClient,
    private_match: int, public_match: int,
) -> None:
    token = owner_api.post(f"/api/matches/{private_match}/share-link/").json()["share_token"]
    owner_api.post(f"/api/matches/{private_match}/shared-with/", {"username": "coach"}, format="json")

    # cannot see it: 404
    assert stranger_api.post(f"/api/matches/{private_match}/share-link/").status_code == 404
    assert stranger_api.delete(f"/api/matches/{private_match}/share-link/").status_code == 404
    # can see it but does not own it: 403
    assert stranger_api.post(f"/api/matches/{public_match}/share-link/").status_code == 403
    assert stranger_api.delete(f"/api/matches/{public_match}/share-link/").status_code == 403
    assert coach_api.post(f"/api/matches/{private_match}/share-link/").status_code == 403
    assert anonymous_api.post(f"/api/matches/{public_match}/share-link/").status_code in (401, 403)
    # the link reads, it does not write
    assert anonymous_api.post(f"/api/matches/{private_match}/share-link/?share={token}").status_code in (401, 403)
    assert anonymous_api.delete(f"/api/matches/{private_match}/share-link/?share={token}").status_code in (401, 403)

    assert Match.objects.get(pk=private_match).share_token == token
    assert Match.objects.get(pk=public_match).share_token is None


# --- delete --------------------------------------------------------------------------


def test_it_lets_the_owner_delete_a_match(owner_api: APIClient, private_match: int) -> None:
    response = owner_api.delete(f"/api/matches/{private_match}/")
    assert response.status_code == 204
    assert read(owner_api, private_match).status_code == 404
    assert private_match not in ids(owner_api.get("/api/matches/"))
    assert not Match.objects.filter(pk=private_match).exists()
    assert not Hand.objects.filter(match_id=private_match).exists()
    assert owner_api.delete(f"/api/matches/{private_match}/").status_code == 404


def test_it_lets_no_one_else_delete_a_match(
    owner_api: APIClient, coach_api: APIClient, stranger_api: APIClient, anonymous_api: APIClient,
    private_match: int, public_match: int,
) -> None:
    token = owner_api.post(f"/api/matches/{private_match}/share-link/").json()["share_token"]
    owner_api.post(f"/api/matches/{private_match}/shared-with/", {"username": "coach"}, format="json")

    assert stranger_api.delete(f"/api/matches/{private_match}/").status_code == 404
    assert anonymous_api.delete(f"/api/matches/{private_match}/").status_code == 404
    assert stranger_api.delete(f"/api/matches/{public_match}/").status_code == 403
    assert anonymous_api.delete(f"/api/matches/{public_match}/").status_code in (401, 403)
    assert coach_api.delete(f"/api/matches/{private_match}/").status_code == 403
    assert anonymous_api.delete(f"/api/matches/{private_match}/?share={token}").status_code in (401, 403)
    assert stranger_api.delete(f"/api/matches/{private_match}/?share={token}").status_code == 403

    assert Match.objects.filter(pk__in=[private_match, public_match]).count() == 2
    response = stranger_api.delete(f"/api/matches/{public_match}/")
    assert set(response.json()) == {"message", "extra"}

"""The match page tells the verdict plainly (scores that differ, totals that cannot be
computed), names sides after their players, fills the claimed column, fits a phone, and
gives its owner buttons to share and delete; a batch page lists records uploaded before."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.test import APIClient

from buraco.notation import loads
from buraco.replay import verify
from records.models import Match

from .conftest import record_text, zip_of
from .helpers import (
    fast_passwords,  # noqa: F401  (a fixture)
    illegal_record,
    upload_one,
    with_event,
    with_players,
)
from .test_pages import hand_card, logged_in, page

pytestmark = pytest.mark.usefixtures("fast_passwords")


def score_rows(card: str) -> list[list[str]]:
    """The cells of a hand's score table, row by row, tags stripped."""
    body = card[card.index('<table class="scores">'):card.index("</table>")]
    rows = re.findall(r"<tr>(.*?)</tr>", body.split("<tbody>", 1)[1], re.S)
    return [[re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
            for row in rows]


# --- the verdict and the score tables ----------------------------------------------------


def test_it_names_sides_after_their_players(owner: User, owner_api: APIClient, upload: Any) -> None:
    text = with_players(record_text("cerrado", players=4, hands=1, seed=701), "Ana", "Bia", "Caio", "Duda")
    match_id = upload_one(upload, owner_api, text)
    body = page(logged_in(owner).get(f"/matches/{match_id}/"))
    sides = verify(loads(text)).sides
    names = [" + ".join(["Ana", "Bia", "Caio", "Duda"][s - 1] for s in seats) for seats in sides]
    assert names == ["Ana + Caio", "Bia + Duda"]
    assert [row[0] for row in score_rows(hand_card(body, 1))] == names
    assert all(f"{name} " in body[body.index('id="totals"'):] for name in names)


def test_it_fills_the_claimed_column(owner: User, owner_api: APIClient, upload: Any) -> None:
    text = record_text("cerrado", hands=2, seed=702)
    match_id = upload_one(upload, owner_api, text)
    body = page(logged_in(owner).get(f"/matches/{match_id}/"))
    for number, hand in enumerate(loads(text).hands, start=1):
        rows = score_rows(hand_card(body, number))
        assert [row[-1] for row in rows] == [str(score) for score in hand.result.scores]
        assert [row[-2] for row in rows] == [str(score) for score in hand.result.scores]  # they match


def test_it_marks_a_claimed_score_that_differs(owner: User, owner_api: APIClient, upload: Any) -> None:
    text = record_text("cerrado", hands=1, seed=703, mistakes=1.0)
    match_id = upload_one(upload, owner_api, text)
    body = page(logged_in(owner).get(f"/matches/{match_id}/"))
    rows = score_rows(hand_card(body, 1))
    claimed = loads(text).hands[0].result.scores
    computed = verify(loads(text)).hands[0].scores
    assert [row[-2] for row in rows] == [str(s) for s in computed]
    for row, mine, theirs in zip(rows, claimed, computed):
        assert row[-1] == (f"{mine} (differs)" if mine != theirs else str(mine))


def test_it_says_verified_scores_differ_distinctly_in_the_header(owner: User, owner_api: APIClient, upload: Any) -> None:
    differs = upload_one(upload, owner_api, record_text("cerrado", hands=1, seed=704, mistakes=1.0))
    agrees = upload_one(upload, owner_api, record_text("cerrado", hands=1, seed=705))
    client = logged_in(owner)
    assert 'class="status-differ" id="match-status"' in page(client.get(f"/matches/{differs}/"))
    assert ">verified, scores differ<" in page(client.get(f"/matches/{differs}/"))
    agreeing = page(client.get(f"/matches/{agrees}/"))
    assert 'class="status-verified" id="match-status">verified<' in agreeing and "scores differ" not in agreeing
    listed = page(client.get("/"))
    assert "verified, scores differ" in listed and 'class="status-differ"' in listed


def test_it_computes_no_total_from_an_illegal_first_hand_that_claims_scores(
    owner: User, owner_api: APIClient, upload: Any
) -> None:
    illegal = illegal_record(seed=706)
    assert loads(illegal.text).hands[0].result is not None  # it claims a result
    match_id = upload_one(upload, owner_api, illegal.text)
    report = owner_api.get(f"/api/matches/{match_id}/report/").json()["report"]
    engine = verify(loads(illegal.text)).as_dict()
    assert report["scores_match"] is False and engine["scores_match"] is False
    assert report["totals_through_hand"] == engine["totals_through_hand"] == 0
    detail = owner_api.get(f"/api/matches/{match_id}/").json()
    assert detail["scores_match"] is False and detail["totals_through_hand"] == 0
    body = page(logged_in(owner).get(f"/matches/{match_id}/"))
    totals = body[body.index('id="totals"'):].split("</p>", 1)[0]
    assert "no total is computed" in totals and "hand 1 is illegal" in totals
    assert "0 / 0" not in totals


def test_it_lets_the_score_table_scroll_on_a_phone(owner: User, owner_api: APIClient, upload: Any) -> None:
    match_id = upload_one(upload, owner_api, record_text("cerrado", hands=1, seed=707))
    body = page(logged_in(owner).get(f"/matches/{match_id}/"))
    assert '<div class="table-scroll">\n  <table class="scores">' in body
    assert re.search(r"\.table-scroll \{[^}]*overflow-x: auto", body)
    assert 'name="viewport" content="width=device-width' in body


def test_it_links_the_file_as_uploaded(owner: User, owner_api: APIClient, upload: Any) -> None:
    match_id = upload_one(upload, owner_api, record_text("cerrado", hands=1, seed=708))
    body = page(logged_in(owner).get(f"/matches/{match_id}/"))
    assert f'href="/api/matches/{match_id}/source/"' in body


# --- the owner's buttons -------------------------------------------------------------------


def csrf_client(user: User) -> Client:
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client


def token_from(body: str) -> str:
    found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', body)
    assert found
    return found.group(1)


@pytest.fixture
def match_id(owner_api: APIClient, upload: Any) -> int:
    return upload_one(upload, owner_api, record_text("cerrado", hands=1, seed=709))


def test_it_gives_the_owner_share_and_delete_forms_with_csrf(owner: User, match_id: int) -> None:
    body = page(csrf_client(owner).get(f"/matches/{match_id}/"))
    for form in ("share-link-form", "share-with-form", "delete-form"):
        start = body.index(f'id="{form}"')
        chunk = body[body.rindex("<form", 0, start):body.index("</form>", start)]
        assert 'method="post"' in chunk and "csrfmiddlewaretoken" in chunk, form
    delete = body[body.index('id="delete-form"'):]
    assert "confirm(" in delete and 'name="confirm" value="yes" required' in delete


@pytest.mark.parametrize("persona", ["coach", "stranger", "anonymous", "link holder"])
def test_it_gives_no_one_else_those_forms(request: Any, owner_api: APIClient, match_id: int, persona: str) -> None:
    token = owner_api.post(f"/api/matches/{match_id}/share-link/").json()["share_token"]
    Match.objects.filter(pk=match_id).update(visibility="public")
    owner_api.post(f"/api/matches/{match_id}/shared-with/", {"username": "coach"}, format="json")
    client = logged_in(request.getfixturevalue(persona)) if persona in ("coach", "stranger") else Client()
    body = page(client.get(f"/matches/{match_id}/", {"share": token} if persona == "link holder" else {}))
    assert 'id="owner-actions"' not in body and 'id="delete-form"' not in body


def test_it_makes_and_revokes_the_share_link_from_the_page(owner: User, match_id: int) -> None:
    client = csrf_client(owner)
    csrf = token_from(page(client.get(f"/matches/{match_id}/")))
    assert client.post(f"/matches/{match_id}/share-link/", {}).status_code == 403  # no CSRF token
    response = client.post(f"/matches/{match_id}/share-link/", {"csrfmiddlewaretoken": csrf})
    assert response.status_code == 302 and response["Location"] == f"/matches/{match_id}/"
    link = Match.objects.get(pk=match_id).share_token
    assert link and link in page(client.get(f"/matches/{match_id}/"))
    assert Client().get(f"/matches/{match_id}/", {"share": link}).status_code == 200
    client.post(f"/matches/{match_id}/share-link/", {"csrfmiddlewaretoken": csrf, "revoke": "1"})
    assert Match.objects.get(pk=match_id).share_token is None
    assert Client().get(f"/matches/{match_id}/", {"share": link}).status_code == 404


def test_it_shares_with_a_coach_and_stops_from_the_page(owner: User, coach: User, match_id: int) -> None:
    client = csrf_client(owner)
    csrf = token_from(page(client.get(f"/matches/{match_id}/")))
    client.post(f"/matches/{match_id}/shared-with/", {"csrfmiddlewaretoken": csrf, "username": "coach"})
    assert logged_in(coach).get(f"/matches/{match_id}/").status_code == 200
    assert ">coach\n" in page(client.get(f"/matches/{match_id}/")) or "<li>coach" in page(client.get(f"/matches/{match_id}/"))
    client.post(f"/matches/{match_id}/shared-with/", {"csrfmiddlewaretoken": csrf, "username": "coach", "unshare": "1"})
    assert logged_in(coach).get(f"/matches/{match_id}/").status_code == 404
    response = client.post(f"/matches/{match_id}/shared-with/", {"csrfmiddlewaretoken": csrf, "username": "nobody"},
                           follow=True)
    assert "There is no user" in page(response)


def test_it_deletes_only_once_confirmed(owner: User, match_id: int) -> None:
    client = csrf_client(owner)
    csrf = token_from(page(client.get(f"/matches/{match_id}/")))
    unconfirmed = client.post(f"/matches/{match_id}/delete/", {"csrfmiddlewaretoken": csrf}, follow=True)
    assert Match.objects.filter(pk=match_id).exists()
    assert "Tick the box" in page(unconfirmed)
    response = client.post(f"/matches/{match_id}/delete/", {"csrfmiddlewaretoken": csrf, "confirm": "yes"})
    assert response.status_code == 302 and response["Location"] == "/"
    assert not Match.objects.filter(pk=match_id).exists()


def test_it_refuses_those_actions_to_anyone_but_the_owner(
    owner_api: APIClient, coach: User, stranger: User, match_id: int
) -> None:
    owner_api.post(f"/api/matches/{match_id}/shared-with/", {"username": "coach"}, format="json")
    for path in ("share-link/", "shared-with/", "delete/"):
        data = {"username": "stranger", "confirm": "yes"}
        assert logged_in(coach).post(f"/matches/{match_id}/{path}", data).status_code == 403  # may read, not manage
        assert logged_in(stranger).post(f"/matches/{match_id}/{path}", data).status_code == 404  # may not read
        assert Client().post(f"/matches/{match_id}/{path}", data).status_code == 302  # to log in
    assert Match.objects.filter(pk=match_id).exists()
    assert not Match.objects.get(pk=match_id).shared_with.filter(username="stranger").exists()


def test_it_refuses_a_get_on_those_actions(owner: User, match_id: int) -> None:
    assert logged_in(owner).get(f"/matches/{match_id}/delete/").status_code == 405


# --- a batch with records uploaded before ----------------------------------------------------


def test_it_lists_a_record_uploaded_before_as_a_duplicate_with_its_match(
    owner: User, owner_api: APIClient, upload: Any, django_capture_on_commit_callbacks: Any
) -> None:
    base = record_text("cerrado", hands=1, seed=710)
    texts = {f"club/m{i}.brn": with_event(base, f"night {i}") for i in range(10)}
    earlier = upload_one(upload, owner_api, texts["club/m3.brn"], "m3.brn")
    client = logged_in(owner)
    from .helpers import named

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/upload/", {"files": [named(zip_of(texts), "week.zip")], "visibility": "private"})
    assert response.status_code == 302
    body = page(client.get(response["Location"]))
    text = " ".join(body.split())
    assert "9 done (9 verified, 0 invalid), 0 failed, of 9" in text
    assert "and 1 already uploaded before (duplicate, not verified again)" in text
    duplicates = body[body.index('id="duplicates"'):body.index("</table>", body.index('id="duplicates"'))]
    assert "week.zip/club/m3.brn" in duplicates
    assert f'href="/matches/{earlier}/"' in duplicates and "(duplicate)" in duplicates

"""The server-rendered pages: sign up, log in, upload, the lists, a match's report, a batch's progress."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.test import APIClient

from buraco.notation import loads
from buraco.replay import verify
from records.models import Batch, Match

from .conftest import record_text
from .helpers import (
    bad_record,
    fast_passwords,  # noqa: F401  (a fixture)
    illegal_record,
    logged_in,
    named,
    status_of,
    upload_one,
    with_players,
)

pytestmark = pytest.mark.usefixtures("fast_passwords")


def page(response: Any) -> str:
    return response.content.decode()


def hand_card(text: str, number: int) -> str:
    """The part of a match page about one hand."""
    start = text.index(f'id="hand-{number}"')
    end = text.find('id="hand-', start + 1)
    return text[start:end if end != -1 else len(text)]


def links_to_matches(text: str) -> set[int]:
    return {int(n) for n in re.findall(r'href="/matches/(\d+)/"', text)}


def post_upload(client: Client, capture: Any, *files: tuple[str, str | bytes], **fields: Any) -> Any:
    with capture(execute=True):
        return client.post("/upload/", {"files": [named(c, n) for n, c in files], "visibility": "private", **fields})


# --- accounts ------------------------------------------------------------------------


def test_it_signs_up_a_new_user_and_logs_them_in(db: Any) -> None:
    client = Client()
    assert client.get("/signup/").status_code == 200
    response = client.post(
        "/signup/", {"username": "newbie", "password1": "a-long-Pass-phrase-77", "password2": "a-long-Pass-phrase-77"}
    )
    assert response.status_code == 302
    assert response["Location"] == "/upload/"
    user = User.objects.get(username="newbie")
    assert user.check_password("a-long-Pass-phrase-77")
    assert client.session["_auth_user_id"] == str(user.pk)
    assert client.get("/upload/").status_code == 200


def test_it_refuses_a_sign_up_whose_passwords_differ(db: Any) -> None:
    client = Client()
    response = client.post("/signup/", {"username": "newbie", "password1": "a-long-Pass-phrase-77",
                                        "password2": "another-Pass-phrase-78"})
    assert response.status_code == 200
    assert "password" in page(response).lower()
    assert not User.objects.filter(username="newbie").exists()
    assert "_auth_user_id" not in client.session


def test_it_shows_the_login_page_and_logs_in(owner: User) -> None:
    client = Client()
    response = client.get("/accounts/login/")
    assert response.status_code == 200
    assert 'name="username"' in page(response) and 'name="password"' in page(response)

    wrong = client.post("/accounts/login/", {"username": "ana", "password": "not-her-password"})
    assert wrong.status_code == 200
    assert "_auth_user_id" not in client.session

    right = client.post("/accounts/login/", {"username": "ana", "password": "pw-ana-123456"})
    assert right.status_code == 302
    assert right["Location"] == "/"
    assert client.session["_auth_user_id"] == str(owner.pk)


# --- upload --------------------------------------------------------------------------


def test_it_sends_an_anonymous_visitor_from_the_upload_page_to_log_in(db: Any) -> None:
    for response in (Client().get("/upload/"), Client().post("/upload/", {"files": [named("x", "a.brn")]})):
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/")
        assert "next=/upload/" in response["Location"]
    assert Match.objects.count() == 0


def test_it_shows_the_upload_form(owner: User) -> None:
    response = logged_in(owner).get("/upload/")
    assert response.status_code == 200
    assert 'type="file" name="files"' in page(response)
    assert 'enctype="multipart/form-data"' in page(response)


def test_it_uploads_a_file_and_sends_the_owner_to_its_match_page(
    owner: User, django_capture_on_commit_callbacks: Any
) -> None:
    client = logged_in(owner)
    response = post_upload(client, django_capture_on_commit_callbacks, ("club.brn", record_text(hands=1, seed=501)))

    match = Match.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/matches/{match.pk}/"
    assert match.owner == owner and match.visibility == "private"
    shown = client.get(response["Location"])
    assert shown.status_code == 200
    assert 'id="match-status">verified<' in page(shown)


def test_it_sends_a_repeated_upload_to_the_match_already_stored(
    owner: User, django_capture_on_commit_callbacks: Any
) -> None:
    client = logged_in(owner)
    text = record_text(hands=1, seed=502)
    first = post_upload(client, django_capture_on_commit_callbacks, ("a.brn", text))
    second = post_upload(client, django_capture_on_commit_callbacks, ("again.brn", text))
    assert second.status_code == 302
    assert second["Location"] == first["Location"]
    assert Match.objects.count() == 1
    assert "already" in page(client.get(second["Location"]))


def test_it_uploads_several_files_and_sends_the_owner_to_the_batch_page(
    owner: User, django_capture_on_commit_callbacks: Any
) -> None:
    client = logged_in(owner)
    response = post_upload(
        client, django_capture_on_commit_callbacks,
        ("a.brn", record_text(hands=1, seed=503)), ("b.brn", record_text(hands=1, seed=504)), label="night",
    )
    batch = Batch.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/batches/{batch.pk}/"
    assert batch.total == 2 and batch.label == "night"


def test_it_stores_the_good_file_and_lists_the_bad_one_with_line_and_column(
    owner: User, django_capture_on_commit_callbacks: Any
) -> None:
    bad = bad_record("bad card")
    client = logged_in(owner)
    response = post_upload(client, django_capture_on_commit_callbacks,
                           ("good.brn", record_text(hands=1, seed=505)), ("bad.brn", bad.text))

    assert response.status_code == 302
    text = page(client.get(response["Location"]))
    assert 'id="upload-errors"' in text
    assert "<code>bad.brn</code>" in text
    assert f"line {bad.line}, column {bad.column}" in text
    assert html.escape(bad.message) in text
    assert "1 file could not be read and was not stored" in " ".join(text.split())
    assert list(Match.objects.values_list("filename", flat=True)) == ["good.brn"] and Batch.objects.count() == 1


def test_it_refuses_a_bad_file_with_a_400_page_listing_line_and_column(
    owner: User, django_capture_on_commit_callbacks: Any
) -> None:
    bad = bad_record("bad card")
    response = post_upload(logged_in(owner), django_capture_on_commit_callbacks, ("bad.brn", bad.text))
    assert response.status_code == 400
    text = page(response)
    assert 'id="upload-errors"' in text and "<code>bad.brn</code>" in text
    assert f"line {bad.line}, column {bad.column}" in text
    assert "Nothing was stored" in text
    assert Match.objects.count() == 0 and Batch.objects.count() == 0


def test_it_refuses_an_upload_without_a_file(owner: User) -> None:
    response = logged_in(owner).post("/upload/", {"visibility": "private"})
    assert response.status_code == 400
    assert 'id="upload-errors"' in page(response)
    assert Match.objects.count() == 0


def test_it_refuses_an_upload_form_post_without_a_csrf_token(owner: User) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)
    response = client.post("/upload/", {"files": [named(record_text(hands=1, seed=506), "a.brn")]})
    assert response.status_code == 403
    assert Match.objects.count() == 0


# --- lists ---------------------------------------------------------------------------


@pytest.fixture
def shelf(owner_api: APIClient, upload: Any) -> dict[str, int]:
    return {
        "cerrado": upload_one(upload, owner_api, record_text("cerrado", hands=1, seed=510)),
        "brasil": upload_one(upload, owner_api, with_players(record_text("brasil", players=3, hands=1, seed=511),
                                                             "Ana", "Caio", "Duda")),
        "invalid": upload_one(upload, owner_api, illegal_record(seed=512).text),
        "public": upload_one(upload, owner_api, record_text("burraco", hands=1, seed=513), visibility="public"),
    }


def test_it_lists_the_owners_matches_with_filters(owner: User, shelf: dict[str, int]) -> None:
    client = logged_in(owner)
    everything = client.get("/")
    assert everything.status_code == 200
    assert "Matches you can read" in page(everything)
    assert links_to_matches(page(everything)) == set(shelf.values())

    assert links_to_matches(page(client.get("/", {"variant": "brasil"}))) == {shelf["brasil"]}
    assert links_to_matches(page(client.get("/", {"status": "invalid"}))) == {shelf["invalid"]}
    assert links_to_matches(page(client.get("/", {"player": "caio"}))) == {shelf["brasil"]}
    assert links_to_matches(page(client.get("/", {"variant": "cerrado", "status": "verified"}))) == {shelf["cerrado"]}
    assert 'class="status-invalid">invalid' in page(client.get("/", {"status": "invalid"}))


def test_it_lists_only_the_owners_own_when_asked(owner: User, stranger: User, upload: Any, shelf: dict[str, int]) -> None:
    client = logged_in(stranger)
    assert links_to_matches(page(client.get("/"))) == {shelf["public"]}
    assert links_to_matches(page(client.get("/", {"mine": "on"}))) == set()


def test_it_lists_public_matches_for_anonymous_visitors(db: Any, shelf: dict[str, int]) -> None:
    response = Client().get("/")
    assert response.status_code == 200
    assert "Public matches" in page(response)
    assert links_to_matches(page(response)) == {shelf["public"]}
    assert links_to_matches(page(Client().get("/", {"variant": "cerrado"}))) == set()


def test_it_escapes_player_names(owner: User, owner_api: APIClient, upload: Any) -> None:
    text = with_players(record_text(hands=1, seed=514), "<script>alert(1)</script>", "Bia")
    match_id = upload_one(upload, owner_api, text)
    for url in ("/", f"/matches/{match_id}/"):
        body = page(logged_in(owner).get(url))
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body
        assert "<script>alert(1)</script>" not in body


# --- a match's page ------------------------------------------------------------------


def test_it_shows_each_hands_scores_on_the_match_page(owner: User, owner_api: APIClient, upload: Any) -> None:
    text = record_text("cerrado", hands=2, seed=520)
    match_id = upload_one(upload, owner_api, text)
    response = logged_in(owner).get(f"/matches/{match_id}/")

    assert response.status_code == 200
    body = page(response)
    expected = verify(loads(text))
    assert f"Totals: {expected.totals[0]} / {expected.totals[1]}" in body
    for hand in expected.hands:
        card = hand_card(body, hand.hand)
        assert hand.parts is not None
        shown = [int(n) for n in re.findall(r"<td><strong>(-?\d+)</strong></td>", card)]
        assert shown == hand.scores
        claimed = loads(text).hands[hand.hand - 1].result
        assert f"Claimed: {claimed.scores[0]} / {claimed.scores[1]}" in card


def test_it_quotes_the_first_illegal_action_with_its_line(owner: User, owner_api: APIClient, upload: Any) -> None:
    illegal = illegal_record(seed=521)
    match_id = upload_one(upload, owner_api, illegal.text)
    body = page(logged_in(owner).get(f"/matches/{match_id}/"))

    assert 'id="match-status">invalid<' in body
    first = body[body.index('id="first-error"'):]
    first = first[:first.index("</div>")]
    assert f"hand {illegal.hand}, ply {illegal.ply}" in first
    assert f"line {illegal.line}, column {illegal.column}" in first
    assert f'<pre class="quote">{illegal.action}</pre>' in first

    card = hand_card(body, illegal.hand)
    source_line = illegal.text.splitlines()[illegal.line - 1]
    assert f'<pre class="quote">{illegal.line} | {html.escape(source_line)}</pre>' in card
    assert "illegal" in card


def test_it_does_not_call_a_worker_failure_an_illegal_action(
    owner: User, owner_api: APIClient, upload: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from records import services

    def broken(record: Any) -> Any:
        raise RuntimeError("the engine broke")

    monkeypatch.setattr(services, "verify", broken)
    match_id = upload_one(upload, owner_api, record_text(hands=1, seed=526))
    assert status_of(match_id) == "failed"
    body = page(logged_in(owner).get(f"/matches/{match_id}/"))
    assert 'id="match-status">failed<' in body
    assert "the engine broke" in body
    assert "illegal" not in body.lower()


def test_it_says_a_pending_match_is_queued(owner: User, owner_api: APIClient) -> None:
    response = owner_api.post("/api/matches/", {"file": named(record_text(hands=1, seed=522), "a.brn")},
                              format="multipart")  # never verified here
    body = page(logged_in(owner).get(f"/matches/{response.json()['id']}/"))
    assert 'id="match-status">pending<' in body
    assert "Verification is queued" in body


def test_it_hides_a_private_match_page_from_others(
    owner_api: APIClient, upload: Any, stranger: User, coach: User
) -> None:
    match_id = upload_one(upload, owner_api, record_text(hands=1, seed=523))
    assert logged_in(stranger).get(f"/matches/{match_id}/").status_code == 404
    assert logged_in(coach).get(f"/matches/{match_id}/").status_code == 404
    assert Client().get(f"/matches/{match_id}/").status_code == 404
    assert Client().get(f"/matches/{match_id}/", {"share": "guess"}).status_code == 404


def test_it_opens_a_private_match_page_to_a_share_link(
    owner: User, owner_api: APIClient, upload: Any, stranger: User
) -> None:
    match_id = upload_one(upload, owner_api, record_text(hands=1, seed=524))
    token = owner_api.post(f"/api/matches/{match_id}/share-link/").json()["share_token"]

    for client in (Client(), logged_in(stranger)):
        response = client.get(f"/matches/{match_id}/", {"share": token})
        assert response.status_code == 200
        assert f"Match {match_id}" in page(response)
        assert f'href="/api/matches/{match_id}/brn/?share={token}"' in page(response)

    owner_api.delete(f"/api/matches/{match_id}/share-link/")
    assert Client().get(f"/matches/{match_id}/", {"share": token}).status_code == 404


def test_it_shows_the_share_link_to_the_owner_only(
    owner: User, owner_api: APIClient, upload: Any, coach: User
) -> None:
    match_id = upload_one(upload, owner_api, record_text(hands=1, seed=525), visibility="public")
    token = owner_api.post(f"/api/matches/{match_id}/share-link/").json()["share_token"]
    owner_api.post(f"/api/matches/{match_id}/shared-with/", {"username": "coach"}, format="json")

    assert token in page(logged_in(owner).get(f"/matches/{match_id}/"))
    for client in (logged_in(coach), Client()):
        response = client.get(f"/matches/{match_id}/")
        assert response.status_code == 200
        assert token not in page(response)


# --- a batch's page ------------------------------------------------------------------


def test_it_shows_a_batchs_progress(owner: User, owner_api: APIClient, upload: Any) -> None:
    body = upload(owner_api, ("a.brn", record_text(hands=1, seed=530)), ("b.brn", illegal_record(seed=531).text),
                  ("c.brn", record_text(hands=1, seed=532))).json()
    response = logged_in(owner).get(f"/batches/{body['batch']}/")

    assert response.status_code == 200
    text = page(response)
    assert re.search(r'<progress id="progress" max="3" value="3">', text)
    assert "3 done (2 verified, 1 invalid), 0 failed, of 3" in " ".join(text.split())
    assert f"/api/batches/{body['batch']}/" in text  # the bar polls the API
    assert links_to_matches(text) == {m["id"] for m in body["matches"]}


def test_it_shows_a_batch_still_waiting(owner: User, owner_api: APIClient) -> None:
    files = [named(record_text(hands=1, seed=533 + i), f"m{i}.brn") for i in range(2)]
    batch = owner_api.post("/api/matches/", {"files": files}, format="multipart").json()["batch"]  # never run
    text = page(logged_in(owner).get(f"/batches/{batch}/"))
    assert '<progress id="progress" max="2" value="0">' in text


def test_it_shows_a_batch_page_to_its_owner_only(owner_api: APIClient, upload: Any, stranger: User) -> None:
    body = upload(owner_api, ("a.brn", record_text(hands=1, seed=535)), ("b.brn", record_text(hands=1, seed=536))).json()
    assert logged_in(stranger).get(f"/batches/{body['batch']}/").status_code == 404
    anonymous = Client().get(f"/batches/{body['batch']}/")
    assert anonymous.status_code == 302 and anonymous["Location"].startswith("/accounts/login/")

"""POST /api/matches/: every way to upload, what is stored, and what is refused."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

import buraco
from buraco.notation import loads
from buraco.replay import verify
from records.models import Batch, Hand, Match

from .conftest import record_text, zip_of
from .helpers import (
    BAD_KINDS,
    as_json,
    bad_record,
    fast_passwords,  # noqa: F401  (a fixture)
    illegal_record,
    named,
    upload_one,
    with_event,
)

pytestmark = pytest.mark.usefixtures("fast_passwords")


def detail(client: APIClient, match_id: int) -> dict[str, Any]:
    response = client.get(f"/api/matches/{match_id}/")
    assert response.status_code == 200, response.content
    return response.json()


def assert_error_format(body: dict[str, Any]) -> None:
    assert set(body) >= {"message", "extra"}
    assert isinstance(body["message"], str) and body["message"]
    assert isinstance(body["extra"], dict)


# --- one record ----------------------------------------------------------------------


def test_it_accepts_one_toml_file_as_pending_then_verifies_it(owner_api: APIClient, upload: Any) -> None:
    text = record_text("cerrado", hands=2, seed=3)
    response = upload(owner_api, ("club.brn", text))

    assert response.status_code == 202
    body = response.json()
    assert body["status"] == "pending"
    assert body["duplicate"] is False
    assert isinstance(body["id"], int)

    match = detail(owner_api, body["id"])
    expected = verify(loads(text))
    assert match["status"] == "verified"
    assert match["valid"] is True
    assert match["variant"] == "cerrado"
    assert match["hand_count"] == 2
    assert match["totals"] == expected.totals
    assert match["engine_version"] == buraco.__version__
    assert [h["scores"] for h in match["hands"]] == [h.scores for h in expected.hands]


def test_it_accepts_the_single_file_field_too(owner_api: APIClient, django_capture_on_commit_callbacks: Any) -> None:
    text = record_text(seed=4, hands=1)
    with django_capture_on_commit_callbacks(execute=True):
        response = owner_api.post("/api/matches/", {"file": named(text, "one.brn")}, format="multipart")
    assert response.status_code == 202, response.content
    assert response.json()["status"] == "pending"
    assert detail(owner_api, response.json()["id"])["status"] == "verified"


def test_it_keeps_the_upload_byte_for_byte(owner_api: APIClient, upload: Any) -> None:
    text = "# my club night\r\n" + record_text(seed=5, hands=1).replace("\n", "\r\n") + "\r\n# end\r\n"
    content = text.encode()
    match_id = upload_one(upload, owner_api, content, "crlf.brn")
    match = Match.objects.get(pk=match_id)
    assert bytes(match.source) == content
    import hashlib

    assert match.sha256 == hashlib.sha256(content).hexdigest()
    assert match.filename == "crlf.brn"


def test_it_accepts_the_json_form_as_a_file(owner_api: APIClient, upload: Any) -> None:
    text = record_text("brasil", players=3, hands=1, seed=2)
    response = upload(owner_api, ("match.json", as_json(text)))
    assert response.status_code == 202, response.content
    match = detail(owner_api, response.json()["id"])
    assert match["status"] == "verified"
    assert match["variant"] == "brasil"
    assert match["totals"] == verify(loads(text)).totals
    assert Match.objects.get(pk=match["id"]).source_format == "json"


@pytest.mark.parametrize(
    "content_type, form",
    [("application/toml", "toml"), ("application/json", "json")],
)
def test_it_accepts_one_record_as_the_raw_request_body(
    owner_api: APIClient, django_capture_on_commit_callbacks: Any, content_type: str, form: str
) -> None:
    text = record_text("burraco", hands=1, seed=6)
    body = (as_json(text) if form == "json" else text).encode()
    with django_capture_on_commit_callbacks(execute=True):
        response = owner_api.generic("POST", "/api/matches/", body, content_type=content_type)
    assert response.status_code == 202, response.content
    assert response.json()["status"] == "pending"
    stored = Match.objects.get(pk=response.json()["id"])
    assert bytes(stored.source) == body
    assert stored.source_format == form
    match = detail(owner_api, stored.pk)
    assert match["status"] == "verified"
    assert match["totals"] == verify(loads(text)).totals


def test_it_accepts_a_raw_body_through_post_with_a_content_type(
    owner_api: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    text = record_text(seed=7, hands=1)
    with django_capture_on_commit_callbacks(execute=True):
        response = owner_api.post("/api/matches/", data=text, content_type="application/toml")
    assert response.status_code == 202, response.content
    assert detail(owner_api, response.json()["id"])["status"] == "verified"


def test_it_makes_uploads_private_unless_asked_public(owner_api: APIClient, upload: Any) -> None:
    private = upload_one(upload, owner_api, record_text(seed=8, hands=1))
    public = upload_one(upload, owner_api, record_text(seed=9, hands=1), visibility="public")
    assert detail(owner_api, private)["visibility"] == "private"
    assert detail(owner_api, public)["visibility"] == "public"


def test_it_refuses_an_unknown_visibility(owner_api: APIClient, upload: Any) -> None:
    before = Match.objects.count()
    response = upload(owner_api, ("a.brn", record_text(seed=8, hands=1)), visibility="friends")
    assert response.status_code == 400
    assert_error_format(response.json())
    assert Match.objects.count() == before


# --- several records -----------------------------------------------------------------


def test_it_makes_a_batch_of_several_files(owner_api: APIClient, upload: Any) -> None:
    texts = {f"m{i}.brn": record_text(seed=20 + i, hands=1) for i in range(3)}
    response = upload(owner_api, *texts.items(), label="club night")

    assert response.status_code == 202, response.content
    body = response.json()
    assert body["status"] == "pending"
    assert body["total"] == 3
    assert isinstance(body["batch"], int)
    assert [m["file"] for m in body["matches"]] == list(texts)
    assert all(m["status"] == "pending" and m["duplicate"] is False for m in body["matches"])
    assert len({m["id"] for m in body["matches"]}) == 3

    batch = Batch.objects.get(pk=body["batch"])
    assert batch.label == "club night"
    assert batch.total == 3
    assert set(batch.matches.values_list("pk", flat=True)) == {m["id"] for m in body["matches"]}
    for item in body["matches"]:
        assert detail(owner_api, item["id"])["status"] == "verified"


def test_it_makes_a_batch_of_a_zip_of_brn_files(owner_api: APIClient, upload: Any) -> None:
    texts = {f"night/m{i}.brn": record_text(seed=30 + i, hands=1) for i in range(4)}
    archive = zip_of({**texts, "README.txt": "not a record", "__MACOSX/night/._m0.brn": "junk"})
    response = upload(owner_api, ("night.zip", archive))

    assert response.status_code == 202, response.content
    body = response.json()
    assert body["total"] == 4
    assert sorted(m["file"] for m in body["matches"]) == sorted(f"night.zip/{name}" for name in texts)
    progress = owner_api.get(f"/api/batches/{body['batch']}/").json()
    assert progress["total"] == 4
    assert progress["done"] == 4
    for item in body["matches"]:
        match = detail(owner_api, item["id"])
        expected = verify(loads(texts[item["file"].removeprefix("night.zip/")]))
        assert match["status"] == "verified"
        assert match["totals"] == expected.totals


def test_it_treats_even_a_one_member_zip_as_a_batch(owner_api: APIClient, upload: Any) -> None:
    response = upload(owner_api, ("one.zip", zip_of({"only.brn": record_text(seed=40, hands=1)})))
    assert response.status_code == 202, response.content
    assert response.json()["total"] == 1
    assert len(response.json()["matches"]) == 1


# --- the same record twice -----------------------------------------------------------


def test_it_keeps_one_match_when_one_owner_uploads_the_same_record_twice(owner_api: APIClient, upload: Any) -> None:
    text = record_text(seed=41, hands=1)
    first = upload(owner_api, ("a.brn", text))
    second = upload(owner_api, ("again.brn", text))

    assert first.status_code == 202 and second.status_code == 202
    assert first.json()["duplicate"] is False
    assert second.json()["duplicate"] is True
    assert second.json()["id"] == first.json()["id"]
    assert Match.objects.filter(owner__username="ana").count() == 1
    assert Hand.objects.filter(match_id=first.json()["id"]).count() == 1


def test_a_duplicate_is_answered_with_the_file_name_just_sent(owner_api: APIClient, upload: Any) -> None:
    text = record_text(seed=45, hands=1)
    upload(owner_api, ("tuesday.brn", text))
    again = upload(owner_api, ("wednesday.brn", text)).json()
    assert (again["duplicate"], again["file"]) == (True, "wednesday.brn")
    batch = upload(owner_api, ("thursday.brn", text), ("b.brn", record_text(seed=46, hands=1))).json()
    assert [m["file"] for m in batch["matches"]] == ["thursday.brn", "b.brn"]


def test_it_keeps_two_matches_when_two_owners_upload_the_same_record(
    owner_api: APIClient, stranger_api: APIClient, upload: Any
) -> None:
    text = record_text(seed=42, hands=1)
    mine = upload(owner_api, ("a.brn", text)).json()
    theirs = upload(stranger_api, ("a.brn", text)).json()

    assert mine["duplicate"] is False and theirs["duplicate"] is False
    assert mine["id"] != theirs["id"]
    assert Match.objects.count() == 2
    assert set(Match.objects.values_list("owner__username", flat=True)) == {"ana", "stranger"}
    assert detail(stranger_api, theirs["id"])["owner"] == "stranger"


def test_it_reports_a_record_already_uploaded_as_a_duplicate_inside_a_batch(owner_api: APIClient, upload: Any) -> None:
    text = record_text(seed=43, hands=1)
    first = upload(owner_api, ("a.brn", text)).json()
    batch = upload(owner_api, ("a.brn", text), ("b.brn", record_text(seed=44, hands=1))).json()
    assert batch["matches"][0]["id"] == first["id"]
    assert batch["matches"][0]["duplicate"] is True
    assert batch["matches"][1]["duplicate"] is False
    assert Match.objects.count() == 2


# --- malformed records ---------------------------------------------------------------


@pytest.mark.parametrize("kind", BAD_KINDS)
def test_it_refuses_an_unreadable_record_with_its_line_and_column(owner_api: APIClient, upload: Any, kind: str) -> None:
    bad = bad_record(kind)
    before = Match.objects.count()
    response = upload(owner_api, ("bad.brn", bad.text))

    assert response.status_code == 400
    body = response.json()
    assert_error_format(body)
    assert len(body["errors"]) == 1
    error = body["errors"][0]
    assert error["file"] == "bad.brn"
    assert (error["line"], error["column"]) == (bad.line, bad.column)
    assert bad.message in error["message"]
    assert Match.objects.count() == before


def test_it_points_into_the_json_form_too(owner_api: APIClient, upload: Any) -> None:
    text = as_json(record_text(seed=45, hands=1)).replace('"event"', '"evnt"', 1)
    line = next(n for n, row in enumerate(text.splitlines(), start=1) if '"evnt"' in row)
    response = upload(owner_api, ("bad.json", text))
    assert response.status_code == 400
    error = response.json()["errors"][0]
    assert error["line"] == line
    assert error["column"] == text.splitlines()[line - 1].index('"evnt"') + 1
    assert "unknown key 'evnt'" in error["message"]


def test_it_stores_every_readable_file_and_lists_each_unreadable_one(owner_api: APIClient, upload: Any) -> None:
    card = bad_record("bad card")
    key = bad_record("unknown key")
    response = upload(
        owner_api,
        ("good-1.brn", record_text(seed=50, hands=1)),
        ("bad-card.brn", card.text),
        ("good-2.brn", record_text(seed=51, hands=1)),
        ("bad-key.brn", key.text),
    )

    assert response.status_code == 202, response.content
    body = response.json()
    errors = {e["file"]: e for e in body["errors"]}
    assert set(errors) == {"bad-card.brn", "bad-key.brn"}
    assert (errors["bad-card.brn"]["line"], errors["bad-card.brn"]["column"]) == (card.line, card.column)
    assert (errors["bad-key.brn"]["line"], errors["bad-key.brn"]["column"]) == (key.line, key.column)
    assert (body["total"], body["rejected"]) == (2, 2)
    assert [m["file"] for m in body["matches"]] == ["good-1.brn", "good-2.brn"]
    assert sorted(Match.objects.values_list("filename", flat=True)) == ["good-1.brn", "good-2.brn"]
    assert Hand.objects.count() == 2 and Batch.objects.get().total == 2


def test_it_stores_the_readable_members_of_a_zip_and_lists_the_unreadable_one(owner_api: APIClient, upload: Any) -> None:
    bad = bad_record("bad action")
    archive = zip_of({"a.brn": record_text(seed=52, hands=1), "b.brn": bad.text, "c.brn": record_text(seed=53, hands=1)})
    response = upload(owner_api, ("night.zip", archive))

    assert response.status_code == 202, response.content
    [error] = response.json()["errors"]
    assert error["file"] == "night.zip/b.brn"
    assert (error["line"], error["column"]) == (bad.line, bad.column)
    assert sorted(Match.objects.values_list("filename", flat=True)) == ["night.zip/a.brn", "night.zip/c.brn"]


def test_it_stores_nothing_when_no_file_of_several_is_readable(owner_api: APIClient, upload: Any) -> None:
    response = upload(owner_api, ("x.brn", bad_record("bad card").text), ("y.brn", bad_record("unknown key").text))
    assert response.status_code == 400
    assert sorted(e["file"] for e in response.json()["errors"]) == ["x.brn", "y.brn"]
    assert (Match.objects.count(), Batch.objects.count()) == (0, 0)


def test_it_refuses_a_raw_body_that_is_not_brn_with_a_position(owner_api: APIClient) -> None:
    bad = bad_record("toml syntax")
    response = owner_api.generic("POST", "/api/matches/", bad.text.encode(), content_type="application/toml")
    assert response.status_code == 400
    [error] = response.json()["errors"]
    assert (error["line"], error["column"]) == (bad.line, bad.column)
    assert Match.objects.count() == 0


def test_it_points_at_a_json_syntax_error(owner_api: APIClient, upload: Any) -> None:
    text = as_json(record_text(seed=46, hands=1))
    lines = text.splitlines()
    row = next(n for n, line in enumerate(lines) if '"variant"' in line)
    lines[row] = lines[row].rstrip(",")  # a missing comma
    response = upload(owner_api, ("bad.json", "\n".join(lines)))
    assert response.status_code == 400
    [error] = response.json()["errors"]
    assert "not valid JSON" in error["message"]
    assert error["line"] == row + 2  # where the next key starts
    assert error["column"] >= 1
    assert Match.objects.count() == 0


def test_it_refuses_a_file_that_is_not_utf8(owner_api: APIClient, upload: Any) -> None:
    response = upload(owner_api, ("latin1.brn", record_text(seed=54, hands=1).replace("self-play", "s\xe9lf").encode("latin-1")))
    assert response.status_code == 400
    [error] = response.json()["errors"]
    assert error["file"] == "latin1.brn"
    assert error["line"] is not None and error["column"] is not None
    assert Match.objects.count() == 0


def test_it_refuses_an_empty_upload(owner_api: APIClient) -> None:
    response = owner_api.post("/api/matches/", {}, format="multipart")
    assert response.status_code == 400
    body = response.json()
    assert_error_format(body)
    assert body["errors"]
    assert Match.objects.count() == 0


def test_it_refuses_an_empty_raw_body(owner_api: APIClient) -> None:
    response = owner_api.generic("POST", "/api/matches/", b"", content_type="application/toml")
    assert response.status_code == 400
    assert_error_format(response.json())
    assert Match.objects.count() == 0


def test_it_refuses_an_empty_file(owner_api: APIClient, upload: Any) -> None:
    response = upload(owner_api, ("empty.brn", b""))
    assert response.status_code == 400
    [error] = response.json()["errors"]
    assert error["file"] == "empty.brn"
    assert (error["line"], error["column"]) == (1, 1)
    assert Match.objects.count() == 0


def test_it_refuses_a_zip_that_is_not_a_zip(owner_api: APIClient, upload: Any) -> None:
    response = upload(owner_api, ("night.zip", record_text(seed=55, hands=1)))
    assert response.status_code == 400
    body = response.json()
    assert_error_format(body)
    [error] = body["errors"]
    assert error["file"] == "night.zip"
    assert "zip" in error["message"]
    assert Match.objects.count() == 0 and Batch.objects.count() == 0


def test_it_refuses_a_zip_without_records(owner_api: APIClient, upload: Any) -> None:
    response = upload(owner_api, ("notes.zip", zip_of({"README.txt": "no records here"})))
    assert response.status_code == 400
    [error] = response.json()["errors"]
    assert error["file"] == "notes.zip"
    assert Match.objects.count() == 0


def test_it_refuses_anonymous_uploads_in_the_error_format(anonymous_api: APIClient, upload: Any) -> None:
    response = upload(anonymous_api, ("a.brn", record_text(seed=56, hands=1)))
    assert response.status_code in (401, 403)
    body = response.json()
    assert_error_format(body)
    assert set(body) == {"message", "extra"}
    assert Match.objects.count() == 0


def test_it_refuses_an_anonymous_raw_body_too(anonymous_api: APIClient) -> None:
    response = anonymous_api.generic("POST", "/api/matches/", record_text(seed=56, hands=1).encode(),
                                     content_type="application/toml")
    assert response.status_code in (401, 403)
    assert_error_format(response.json())
    assert Match.objects.count() == 0


def test_it_refuses_a_bad_token(db: Any) -> None:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    response = client.post("/api/matches/", {"file": named(record_text(seed=57, hands=1), "a.brn")}, format="multipart")
    assert response.status_code == 401
    assert_error_format(response.json())
    assert Match.objects.count() == 0


def test_it_refuses_a_session_upload_without_a_csrf_token(owner: Any) -> None:
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(owner)
    response = client.post("/api/matches/", {"file": named(record_text(seed=61, hands=1), "a.brn")}, format="multipart")
    assert response.status_code == 403
    assert_error_format(response.json())
    assert Match.objects.count() == 0


def test_it_accepts_a_token_obtained_with_a_password(owner: Any, upload: Any) -> None:
    response = APIClient().post("/api/auth/token/", {"username": "ana", "password": "pw-ana-123456"}, format="json")
    assert response.status_code == 200
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")
    answer = upload(client, ("a.brn", record_text(seed=62, hands=1)))
    assert answer.status_code == 202
    assert Match.objects.get(pk=answer.json()["id"]).owner == owner


def test_it_refuses_more_records_than_an_upload_may_hold(owner_api: APIClient, upload: Any, settings: Any) -> None:
    settings.BURACO_MAX_UPLOAD_RECORDS = 2
    base = record_text(seed=63, hands=1)
    response = upload(owner_api, *[(f"m{i}.brn", with_event(base, f"n{i}")) for i in range(3)])
    assert response.status_code == 400
    [error] = response.json()["errors"]
    assert "at most 2" in error["message"]
    assert Match.objects.count() == 0
    assert upload(owner_api, *[(f"m{i}.brn", with_event(base, f"n{i}")) for i in range(2)]).status_code == 202


def test_it_refuses_a_zip_member_larger_than_the_upload_limit(owner_api: APIClient, upload: Any, settings: Any) -> None:
    text = record_text(seed=64, hands=1)
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = len(text) - 1  # UPLOAD_MAX_BYTES
    response = upload(owner_api, ("night.zip", zip_of({"big.brn": text})))
    assert response.status_code == 400
    assert response.json()["errors"][0]["file"] == "night.zip/big.brn"
    assert Match.objects.count() == 0


@pytest.mark.parametrize("how", ["file", "raw body"])
def test_it_refuses_a_record_larger_than_the_upload_limit(
    owner_api: APIClient, upload: Any, settings: Any, how: str
) -> None:
    text = record_text(seed=64, hands=1)
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = len(text) - 1  # UPLOAD_MAX_BYTES
    if how == "file":
        response = upload(owner_api, ("big.brn", text))
    else:
        response = owner_api.generic("POST", "/api/matches/", text.encode(), content_type="application/toml")
    assert response.status_code in (400, 413)
    assert Match.objects.count() == 0


# --- an illegal action ---------------------------------------------------------------


def test_it_stores_a_record_with_an_illegal_action_and_marks_it_invalid(owner_api: APIClient, upload: Any) -> None:
    illegal = illegal_record()
    response = upload(owner_api, ("illegal.brn", illegal.text))

    assert response.status_code == 202, response.content
    assert response.json()["status"] == "pending"
    match = detail(owner_api, response.json()["id"])
    assert match["status"] == "invalid"
    assert match["valid"] is False
    error = match["error"]
    assert error["kind"] == "illegal"
    assert (error["hand"], error["ply"]) == (illegal.hand, illegal.ply)
    assert (error["line"], error["column"]) == (illegal.line, illegal.column)
    assert error["action"] == illegal.action
    assert error["message"]

    first, second = match["hands"]
    assert first["valid"] is False
    assert first["error"]["ply"] == illegal.ply and first["error"]["line"] == illegal.line
    assert first["scores"] is None
    assert second["valid"] is True and second["error"] is None


# --- robustness ----------------------------------------------------------------------


def test_it_never_answers_500_for_a_player_name_holding_a_nul_character(owner_api: APIClient, upload: Any) -> None:
    client = owner_api
    client.raise_request_exception = False
    text = record_text(seed=58, hands=1).replace('"Bot 1"', '"Bot\\u0000 1"', 1)
    assert "\x00" in loads(text).players[0]
    response = upload(client, ("nul.brn", text))
    assert response.status_code in (202, 400), response.status_code
    if response.status_code == 400:
        assert response.json()["errors"][0]["line"] is not None


def test_it_lists_every_problem_of_a_large_upload_and_stores_the_rest(owner_api: APIClient, upload: Any) -> None:
    good = record_text(seed=59, hands=1)
    files = [(f"g{i}.brn", with_event(good, f"night {i}")) for i in range(5)]
    files += [(f"x{i}.brn", bad_record("unknown key").text.replace("self-play", f"n{i}")) for i in range(3)]
    response = upload(owner_api, *files)
    assert response.status_code == 202, response.content
    assert sorted(e["file"] for e in response.json()["errors"]) == ["x0.brn", "x1.brn", "x2.brn"]
    assert Match.objects.count() == 5


"""Input the database cannot hold or that collides with the API's own names is refused
with a 400 (a 401 for a token), never a 500: NUL characters (PostgreSQL text holds none),
a form field named ``raw``, integers past the database's range."""

from __future__ import annotations

import io
import zipfile
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from records.models import Batch, Hand, Job, Match

from .conftest import record_text

NUL = "\x00"


def _json_error(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert body["message"] and isinstance(body["extra"], dict)
    return body


def test_nul_in_a_batch_label_is_a_400(owner_api: APIClient, upload: Any) -> None:
    response = upload(owner_api, ("a.brn", record_text(seed=1)), ("b.brn", record_text(seed=2)), label=f"x{NUL}y")
    body = _json_error(response, 400)
    assert "label" in body["message"]
    assert not Batch.objects.exists() and not Match.objects.exists()


def test_nul_in_a_shared_with_username_is_a_400(owner_api: APIClient, upload: Any) -> None:
    match_id = upload(owner_api, ("a.brn", record_text())).json()["id"]
    response = owner_api.post(f"/api/matches/{match_id}/shared-with/", {"username": f"coach{NUL}"}, format="json")
    _json_error(response, 400)
    # Stopping sharing names the user in the path: no account holds NUL, so there is none to stop.
    _json_error(owner_api.delete(f"/api/matches/{match_id}/shared-with/coach%00/"), 404)


def test_nul_in_the_page_share_form_is_refused(owner: User, upload: Any, owner_api: APIClient) -> None:
    match_id = upload(owner_api, ("a.brn", record_text())).json()["id"]
    client = APIClient()
    client.force_login(owner)
    response = client.post(f"/matches/{match_id}/shared-with/", {"username": f"coach{NUL}"})
    assert response.status_code in (302, 400)


def test_nul_in_a_token_is_a_401(db: Any) -> None:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token abc{NUL}def")
    _json_error(client.get("/api/matches/"), 401)


@pytest.mark.parametrize("path", ["/api/matches/", "/"])
def test_nul_in_the_session_cookie_is_a_400(db: Any, path: str) -> None:
    client = APIClient()
    client.cookies[settings.SESSION_COOKIE_NAME] = f"abc{NUL}def"
    response = client.get(path)
    assert response.status_code == 400, response.content[:300]
    if path.startswith("/api/"):
        _json_error(response, 400)
    # The bad cookie is dropped: the next request works.
    assert response.cookies[settings.SESSION_COOKIE_NAME].value == ""


def test_a_form_field_named_raw_is_not_taken_for_a_raw_body(owner_api: APIClient, upload: Any) -> None:
    response = upload(owner_api, ("a.brn", record_text()), raw="anything")
    assert response.status_code == 202, response.content[:300]
    assert Match.objects.count() == 1


def test_a_raw_body_is_still_read(owner_api: APIClient) -> None:
    response = owner_api.post("/api/matches/", record_text().encode(), content_type="application/toml")
    assert response.status_code == 202, response.content[:300]


@pytest.mark.parametrize("value", ["9223372036854775808", "99999999999999999999999", "2147483648"])
def test_integer_query_parameters_are_bounded(anonymous_api: APIClient, value: str) -> None:
    body = _json_error(anonymous_api.get(f"/api/matches/?batch={value}"), 400)
    assert "batch" in body["message"]


def test_page_min_points_is_bounded(owner_api: APIClient, upload: Any) -> None:
    match_id = upload(owner_api, ("a.brn", record_text(), ), visibility="public").json()["id"]
    response = APIClient().get(f"/matches/{match_id}/?min_points=9223372036854775808")
    assert response.status_code == 200


# --- inputs the fuzz run found (bench/fuzz.py): a 400 naming the file, nothing stored --------


def _damaged_zip(method: int) -> bytes:
    """A zip of two records whose second member's compressed data is overwritten."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as archive:
        archive.writestr("a.brn", record_text(seed=1))
        archive.writestr("b.brn", record_text(seed=2))
    data = bytearray(buffer.getvalue())
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as archive:
        info = archive.getinfo("b.brn")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    data[start + 2: start + 40] = b"\x55" * 38
    return bytes(data)


@pytest.mark.parametrize("method", [zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA])
def test_a_zip_whose_compressed_member_is_damaged_is_a_400(owner_api: APIClient, upload: Any, method: int) -> None:
    # deflate raised zlib.error, which the reader did not catch: a 500
    response = upload(owner_api, ("records.zip", _damaged_zip(method)))
    body = _json_error(response, 400)
    assert body["errors"][0]["file"] == "records.zip/b.brn"
    assert body["errors"][0]["message"].startswith("cannot unpack")
    assert not Match.objects.exists() and not Hand.objects.exists() and not Job.objects.exists()
    assert not Batch.objects.exists()


def test_a_note_ply_past_32_bits_is_a_400_with_its_line(owner_api: APIClient, upload: Any) -> None:
    # the reader took any ply; the review's comment holds 32 bits: a DataError, a 500 on PostgreSQL
    text = record_text() + '\n[[hands.notes]]\nply = 2147483648\ntext = "later"\n'
    body = _json_error(upload(owner_api, ("n.brn", text)), 400)
    [error] = body["errors"]
    assert (error["file"], error["line"], error["column"]) == ("n.brn", text.count("\n") - 1, 7)
    assert not Match.objects.exists() and not Hand.objects.exists() and not Job.objects.exists()

"""Every error under /api/ is JSON in the one format ``{"message", "extra"}``, Django's own
answers (404, 500, request limits) included; raw bodies that are not a record say why."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from .conftest import record_text


def _assert_error(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = response.json()
    assert set(body) >= {"message", "extra"} and isinstance(body["message"], str) and body["message"]
    assert isinstance(body["extra"], dict)
    return body


@pytest.mark.parametrize("path", ["/api/matches/abc/", "/api/nothing-here/", "/api/matches/1/hands/x/timeline/"])
def test_api_404_for_unrouted_paths_is_json(anonymous_api: APIClient, path: str) -> None:
    _assert_error(anonymous_api.get(path), 404)


def test_page_404_stays_html(anonymous_api: APIClient) -> None:
    response = anonymous_api.get("/matches/abc/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


def test_api_500_is_json(db: Any) -> None:
    client = APIClient(raise_request_exception=False)
    with mock.patch("records.selectors.queue_status", side_effect=RuntimeError("boom")):
        body = _assert_error(client.get("/api/status/"), 500)
    assert "boom" not in body["message"]


def test_page_500_stays_html(db: Any) -> None:
    client = APIClient(raise_request_exception=False)
    with mock.patch("pages.selectors.match_list", side_effect=RuntimeError("boom")):  # the list page's query
        response = client.get("/")
    assert response.status_code == 500
    assert response["Content-Type"].startswith("text/html")


def test_too_many_files_is_a_json_400(owner_api: APIClient, upload: Any) -> None:
    text = record_text()
    with override_settings(DATA_UPLOAD_MAX_NUMBER_FILES=2):
        response = upload(owner_api, *[(f"m{i}.brn", text) for i in range(3)])
    _assert_error(response, 400)


@pytest.mark.parametrize("body", [b"[]", b"[1, 2]", b"null", b' "text" ', b"3"])
def test_raw_json_that_is_not_an_object_says_so(owner_api: APIClient, body: bytes) -> None:
    response = owner_api.post("/api/matches/", body, content_type="application/json")
    data = _assert_error(response, 400)
    messages = [e["message"] for e in data["errors"]]
    assert any("a BRN record is a JSON object" in m for m in messages), messages
    assert not any("TOML" in m for m in messages), messages


@pytest.mark.parametrize("content_type", ["application/json", "application/toml"])
def test_raw_empty_body_says_the_body_is_empty(owner_api: APIClient, content_type: str) -> None:
    response = owner_api.post("/api/matches/", b"", content_type=content_type)
    data = _assert_error(response, 400)
    assert [e["message"] for e in data["errors"]] == ["the body is empty"]


def test_toml_starting_with_a_table_is_still_read_as_toml(owner_api: APIClient) -> None:
    response = owner_api.post("/api/matches/", b"[match]\nx = 1\n", content_type="application/toml")
    data = _assert_error(response, 400)
    assert not any("JSON object" in e["message"] for e in data["errors"])

"""A record is read once, at upload (Match.parsed): verification, analysis and the first
timeline read it back from there, never the upload's TOML again; an error still names its
line and column in the file as uploaded."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from rest_framework.test import APIClient

from analysis.models import Finding
from analysis.services import match_analyze
from buraco.analysis import analyze
from buraco.notation import loads
from records import services
from records.models import Match

from .conftest import record_text
from .helpers import illegal_record, named


def _stored_unverified(client: APIClient, text: str) -> int:
    """Upload ``text`` with its jobs left waiting (no on_commit run here)."""
    response = client.post("/api/matches/", {"file": named(text, "m.brn")}, format="multipart")
    assert response.status_code == 202, response.content
    return int(response.json()["id"])


def test_verification_and_analysis_read_the_record_as_read_at_upload(owner: User, owner_api: APIClient) -> None:
    text = record_text("burraco", hands=2, seed=921, mistakes=1.0)
    match_id = _stored_unverified(owner_api, text)
    Match.objects.filter(pk=match_id).update(source=b"the upload is not read again")
    assert services.match_verify(match_id=match_id) == Match.Status.VERIFIED
    assert match_analyze(match_id=match_id) == "analysed"
    expected = [f.as_dict() for f in analyze(loads(text))]
    assert [row.as_dict() for row in Finding.objects.filter(match_id=match_id).order_by("id")] == expected
    timeline = owner_api.get(f"/api/matches/{match_id}/hands/2/timeline/")
    assert timeline.status_code == 200 and timeline.json()["states"]


def test_an_illegal_action_read_from_the_stored_form_is_placed_in_the_upload(owner_api: APIClient, upload: Any) -> None:
    illegal = illegal_record(seed=922)
    response = upload(owner_api, ("illegal.brn", illegal.text))
    error = owner_api.get(f"/api/matches/{response.json()['id']}/").json()["error"]
    assert (error["line"], error["column"], error["action"]) == (illegal.line, illegal.column, illegal.action)

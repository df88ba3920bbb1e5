"""GET /api/matches/{id}/findings/ and /api/matches/{id}/hands/{n}/findings/: what the engine's
analyze() finds, filtered by kind and stake, for whoever may read the match."""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from buraco.analysis import KINDS, OUTCOMES, SEVERITIES, Finding, analyze
from buraco.notation import loads

from .conftest import record_text
from .helpers import (
    fast_passwords,  # noqa: F401  (a fixture)
    upload_one,
)

pytestmark = pytest.mark.usefixtures("fast_passwords")

TEXT = record_text("cerrado", hands=2, seed=61, mistakes=1.0)
PUBLIC_TEXT = record_text("burraco", hands=2, seed=62, mistakes=1.0)
ENDPOINTS = ["findings/", "hands/1/findings/", "hands/2/findings/"]


@functools.cache
def analysed(text: str, min_points: int) -> tuple[Finding, ...]:
    return tuple(analyze(loads(text), min_points=min_points))


def engine(text: str, hand: int | None = None, kind: str | None = None, min_points: int = 0) -> list[dict[str, Any]]:
    """What analyze() finds in the record, as the API sends it, narrowed to a hand or kind."""
    found = [f.as_dict() for f in analysed(text, min_points)]
    return [f for f in found if (hand is None or f["hand"] == hand) and (kind is None or f["kind"] == kind)]


@pytest.fixture
def private_match(owner_api: APIClient, upload: Any) -> int:
    return upload_one(upload, owner_api, TEXT, "private.brn")


@pytest.fixture
def public_match(owner_api: APIClient, upload: Any) -> int:
    return upload_one(upload, owner_api, PUBLIC_TEXT, "public.brn", visibility="public")


def get(client: APIClient, match_id: int, what: str = "findings/", **query: Any) -> Any:
    return client.get(f"/api/matches/{match_id}/{what}", {"page_size": 500, **query})


# --- what is found --------------------------------------------------------------------


def test_it_answers_every_finding_of_the_match_in_the_engines_order(owner_api: APIClient, private_match: int) -> None:
    body = get(owner_api, private_match).json()
    assert body["match"] == private_match
    assert body["results"] == engine(TEXT)
    assert body["count"] == len(body["results"])
    for finding in body["results"]:
        assert set(finding) == {field.name for field in dataclasses.fields(Finding)}


@pytest.mark.parametrize("hand", [1, 2])
def test_it_answers_one_hands_findings(owner_api: APIClient, private_match: int, hand: int) -> None:
    body = get(owner_api, private_match, f"hands/{hand}/findings/").json()
    assert body["hand"] == hand
    assert body["results"] == engine(TEXT, hand=hand)
    assert body["analysis"]["status"] == "done"


def test_it_answers_404_for_a_hand_the_match_does_not_have(owner_api: APIClient, private_match: int) -> None:
    for hand in (0, 3):
        response = get(owner_api, private_match, f"hands/{hand}/findings/")
        assert response.status_code == 404
        assert set(response.json()) == {"message", "extra"}


# --- filters --------------------------------------------------------------------------


def hand_of(what: str) -> int | None:
    return int(what.split("/")[1]) if what.startswith("hands/") else None


def test_it_filters_by_kind(owner_api: APIClient, private_match: int) -> None:
    for what in ENDPOINTS:
        for kind in KINDS:
            body = get(owner_api, private_match, what, kind=kind).json()
            assert body["results"] == engine(TEXT, hand=hand_of(what), kind=kind), (what, kind)
            assert all(f["kind"] == kind for f in body["results"])


def test_it_filters_by_the_smallest_stake_as_the_engine_does(owner_api: APIClient, private_match: int) -> None:
    for what in ENDPOINTS:
        for min_points in (0, 1, 50, 100, 101, 10_000):
            body = get(owner_api, private_match, what, min_points=min_points).json()
            assert body["results"] == engine(TEXT, hand=hand_of(what), min_points=min_points), (what, min_points)


def test_it_combines_the_filters(owner_api: APIClient, private_match: int) -> None:
    body = get(owner_api, private_match, kind="scoring-mistake", min_points=100).json()
    assert body["results"] == engine(TEXT, kind="scoring-mistake", min_points=100)


def test_it_filters_by_severity_at_least_as_grave(owner_api: APIClient, private_match: int) -> None:
    graded = [f for f in engine(TEXT) if f["severity"]]
    assert graded, "the record should have graded findings"
    for index, severity in enumerate(SEVERITIES):
        body = get(owner_api, private_match, severity=severity).json()
        assert body["results"] == [f for f in engine(TEXT) if f["severity"] in SEVERITIES[index:]], severity


def test_it_filters_by_outcome(owner_api: APIClient, private_match: int) -> None:
    for outcome in OUTCOMES:
        body = get(owner_api, private_match, outcome=outcome).json()
        assert body["results"] == [f for f in engine(TEXT) if f["outcome"] == outcome], outcome


def test_its_pages_join_into_the_whole_list_and_order_by_points(owner_api: APIClient, private_match: int) -> None:
    whole = engine(TEXT)
    assert len(whole) > 3
    first = get(owner_api, private_match, page_size=3).json()
    assert first["count"] == len(whole) and first["results"] == whole[:3] and first["next"]
    joined = list(first["results"])
    page = first
    while page["next"]:
        page = owner_api.get(page["next"]).json()
        joined.extend(page["results"])
    assert joined == whole
    by_points = get(owner_api, private_match, ordering="-points").json()["results"]
    assert [f["points"] or 0 for f in by_points] == sorted((f["points"] or 0 for f in whole), reverse=True)


@pytest.mark.parametrize("query", [{"kind": "blunder"}, {"min_points": "many"}, {"severity": "awful"},
                                   {"outcome": "maybe"}])
def test_it_rejects_a_filter_it_does_not_know(owner_api: APIClient, private_match: int, query: dict[str, str]) -> None:
    response = get(owner_api, private_match, **query)
    assert response.status_code == 400
    assert set(response.json()) == {"message", "extra"}
    assert list(query)[0] in response.json()["extra"]["fields"]


# --- who may read them ------------------------------------------------------------------


@pytest.mark.parametrize("what", ENDPOINTS)
def test_the_owner_reads_the_findings_of_a_private_match(owner_api: APIClient, private_match: int, what: str) -> None:
    assert get(owner_api, private_match, what).status_code == 200


@pytest.mark.parametrize("what", ENDPOINTS)
def test_a_coach_reads_them_once_the_match_is_shared_with_them(
    owner_api: APIClient, coach_api: APIClient, private_match: int, what: str
) -> None:
    assert get(coach_api, private_match, what).status_code == 404
    owner_api.post(f"/api/matches/{private_match}/shared-with/", {"username": "coach"}, format="json")
    response = get(coach_api, private_match, what)
    assert response.status_code == 200
    assert response.json()["results"] == get(owner_api, private_match, what).json()["results"]


@pytest.mark.parametrize("what", ENDPOINTS)
def test_anyone_with_the_share_link_reads_them(
    owner_api: APIClient, anonymous_api: APIClient, stranger_api: APIClient, private_match: int, what: str
) -> None:
    token = owner_api.post(f"/api/matches/{private_match}/share-link/").json()["share_token"]
    for client in (anonymous_api, stranger_api):
        response = get(client, private_match, what, share=token)
        assert response.status_code == 200
        assert response.json()["results"] == get(owner_api, private_match, what).json()["results"]
    assert get(anonymous_api, private_match, what, share="not-the-token").status_code == 404
    owner_api.delete(f"/api/matches/{private_match}/share-link/")
    assert get(anonymous_api, private_match, what, share=token).status_code == 404


@pytest.mark.parametrize("persona", ["stranger_api", "anonymous_api"])
@pytest.mark.parametrize("what", ENDPOINTS)
def test_others_get_404_for_a_private_match(request: Any, private_match: int, persona: str, what: str) -> None:
    response = get(request.getfixturevalue(persona), private_match, what)
    assert response.status_code == 404
    assert set(response.json()) == {"message", "extra"}
    assert "findings" not in response.json()


@pytest.mark.parametrize("persona", ["stranger_api", "anonymous_api", "coach_api"])
def test_everyone_reads_the_findings_of_a_public_match(request: Any, public_match: int, persona: str) -> None:
    response = get(request.getfixturevalue(persona), public_match)
    assert response.status_code == 200
    assert response.json()["results"] == engine(PUBLIC_TEXT)


def test_it_answers_404_for_a_match_that_does_not_exist(owner_api: APIClient) -> None:
    assert get(owner_api, 999_999).status_code == 404


# --- the match says how its analysis stands -------------------------------------------


def test_the_match_and_the_list_show_the_analysis_status(owner_api: APIClient, private_match: int) -> None:
    from buraco.analysis import ANALYSIS_VERSION

    analysis = {"status": "done", "version": ANALYSIS_VERSION, "partial": False, "unsearched": []}
    assert owner_api.get(f"/api/matches/{private_match}/").json()["analysis"] == analysis
    listed = owner_api.get("/api/matches/").json()["results"]
    assert [m["analysis"] for m in listed if m["id"] == private_match] == [analysis]


def test_an_analysis_its_budget_cut_is_stored_as_partial_and_says_which_decisions(
    owner_api: APIClient, upload: Any, settings: Any
) -> None:
    from django.test import Client

    settings.BURACO_ANALYSIS_HAND_SECONDS = 1e-9  # no decision gets a search: every search is cut
    match = upload_one(upload, owner_api, TEXT, "cut.brn")
    status = owner_api.get(f"/api/matches/{match}/").json()["analysis"]
    assert status["status"] == "done" and status["partial"] is True
    assert status["unsearched"] and {u["hand"] for u in status["unsearched"]} <= {1, 2}
    assert all(u["search"] in ("canasta", "going out") and u["reason"] == "budget" for u in status["unsearched"])
    # What needs no search (scoring mistakes, dangerous discards) is still found and kept.
    kept = get(owner_api, match).json()["results"]
    assert {f["kind"] for f in kept} <= {"scoring-mistake", "dangerous-discard", "hand-not-scorable"}
    page = Client()
    page.force_login(User.objects.get(username="ana"))
    html = page.get(f"/matches/{match}/").content.decode()
    assert 'id="analysis-partial"' in html and f"{len(status['unsearched'])}\n  decision" in html


def test_the_schema_describes_the_analysis_endpoints(anonymous_api: APIClient) -> None:
    import yaml

    schema = yaml.safe_load(anonymous_api.get("/api/schema/").content)
    for path in ("/api/matches/{match_id}/findings/", "/api/matches/{match_id}/hands/{hand}/findings/",
                 "/api/players/{name}/summary/"):
        assert set(schema["paths"][path]) >= {"get"}, path
    findings = schema["paths"]["/api/matches/{match_id}/findings/"]["get"]
    assert {p["name"] for p in findings["parameters"]} >= {"match_id", "kind", "severity", "outcome", "min_points",
                                                          "share", "page", "page_size", "ordering"}


def test_it_bounds_min_points_to_what_the_database_holds(owner_api: APIClient, upload: Any) -> None:
    match = upload(owner_api, ("m.brn", record_text("cerrado", hands=1, seed=2, mistakes=1.0))).json()["id"]
    response = owner_api.get(f"/api/matches/{match}/findings/?min_points=9223372036854775808")
    assert response.status_code == 400 and "min_points" in response.json()["message"]

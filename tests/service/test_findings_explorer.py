"""The findings explorer (issue 16, 2): GET /api/findings/, its CSV export and the /findings/
page, over every analysed match the caller may read; checked against the engine's own findings."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.test import APIClient

from analysis.models import Finding as StoredFinding
from buraco.analysis import SEVERITIES, analyze
from buraco.notation import loads

from .conftest import record_text
from .helpers import upload_one, with_players

ANA_PRIVATE = with_players(record_text("cerrado", hands=2, seed=71, mistakes=1.0), "Ana", "Bo")
ANA_PUBLIC = with_players(record_text("burraco", hands=1, seed=72, mistakes=1.0), "Ana", "Cy")
STRANGER_PRIVATE = with_players(record_text("cerrado", hands=1, seed=73, mistakes=1.0), "Di", "Ana")


def whose(finding: Any, players: list[str], sides: list[list[int]]) -> list[str]:
    seats = [finding.seat] if finding.seat else sides[finding.side - 1]
    return [players[seat - 1] for seat in seats]


def engine_rows(text: str, match_id: int) -> list[dict[str, Any]]:
    record = loads(text)
    sides = [[1], [2]] if len(record.players) == 2 else [[1, 3], [2, 4]]
    return [{"match": match_id, "players": whose(f, list(record.players), sides), **f.as_dict()}
            for f in analyze(record)]


def explore(client: APIClient, **query: Any) -> list[dict[str, Any]]:
    response = client.get("/api/findings/", {"page_size": 500, **query})
    assert response.status_code == 200, response.content[:300]
    assert response.json()["count"] == len(response.json()["results"])
    return list(response.json()["results"])


def key(row: dict[str, Any]) -> tuple[Any, ...]:
    return (row["match"], row["hand"], row["ply"], row["kind"], row["side"], row["points"], row["message"])


@pytest.fixture
def matches(owner_api: APIClient, stranger_api: APIClient, upload: Any) -> dict[str, int]:
    return {
        "private": upload_one(upload, owner_api, ANA_PRIVATE, "private.brn"),
        "public": upload_one(upload, owner_api, ANA_PUBLIC, "public.brn", visibility="public"),
        "stranger": upload_one(upload, stranger_api, STRANGER_PRIVATE, "theirs.brn"),
    }


@pytest.fixture
def expected(matches: dict[str, int]) -> dict[str, list[dict[str, Any]]]:
    rows = {
        "private": engine_rows(ANA_PRIVATE, matches["private"]),
        "public": engine_rows(ANA_PUBLIC, matches["public"]),
        "stranger": engine_rows(STRANGER_PRIVATE, matches["stranger"]),
    }
    assert all(rows.values()), "every record has a planted scoring mistake at least"
    return rows


def test_each_reader_sees_the_findings_of_the_matches_they_may_read_and_no_other(
    owner_api: APIClient, stranger_api: APIClient, anonymous_api: APIClient, coach_api: APIClient,
    matches: dict[str, int], expected: dict[str, list[dict[str, Any]]],
) -> None:
    def seen(client: APIClient) -> set[tuple[Any, ...]]:
        return {key(row) for row in explore(client)}

    rows = {name: {key(row) for row in found} for name, found in expected.items()}
    assert seen(owner_api) == rows["private"] | rows["public"]
    assert seen(stranger_api) == rows["stranger"] | rows["public"]
    assert seen(anonymous_api) == rows["public"]
    assert seen(coach_api) == rows["public"]
    owner_api.post(f"/api/matches/{matches['private']}/shared-with/", {"username": "coach"}, format="json")
    assert seen(coach_api) == rows["private"] | rows["public"]
    # A share link opens one match, not the explorer: its holder lists only what is public.
    token = owner_api.post(f"/api/matches/{matches['private']}/share-link/").json()["share_token"]
    assert {key(row) for row in explore(anonymous_api, share=token)} == rows["public"]
    export = anonymous_api.get("/api/findings/export/")
    assert {r["match"] for r in csv.DictReader(io.StringIO(b"".join(export.streaming_content).decode()))} == {
        str(matches["public"])}


def test_its_rows_are_the_engines_findings_with_whose_they_are_and_a_replay_link(
    owner_api: APIClient, matches: dict[str, int], expected: dict[str, list[dict[str, Any]]]
) -> None:
    rows = {key(row): row for row in explore(owner_api)}
    for want in expected["private"] + expected["public"]:
        row = rows[key(want)]
        assert row["players"] == want["players"]
        assert {k: row[k] for k in want if k != "players"} == {k: v for k, v in want.items() if k != "players"}
        assert row["replay"] == f"/matches/{want['match']}/hands/{want['hand']}/replay/?ply={want['ply'] or 0}"
        assert row["variant"] == ("cerrado" if want["match"] == matches["private"] else "burraco")
    page = Client()
    page.force_login(User.objects.get(username="ana"))
    some = next(iter(rows.values()))
    assert page.get(some["replay"]).status_code == 200


def test_it_filters_as_the_engines_findings_say(
    owner_api: APIClient, matches: dict[str, int], expected: dict[str, list[dict[str, Any]]]
) -> None:
    mine = expected["private"] + expected["public"]

    def want(keep: Any) -> set[tuple[Any, ...]]:
        return {key(row) for row in mine if keep(row)}

    def got(**query: Any) -> set[tuple[Any, ...]]:
        return {key(row) for row in explore(owner_api, **query)}

    assert got(player="ana") == want(lambda r: "Ana" in r["players"]) != set()
    assert got(player="BO") == want(lambda r: "Bo" in r["players"])
    assert got(player="An") == set()  # a name, not a part of one
    assert got(variant="burraco") == want(lambda r: r["match"] == matches["public"])
    assert got(kind="scoring-mistake") == want(lambda r: r["kind"] == "scoring-mistake") != set()
    for index, severity in enumerate(SEVERITIES):
        assert got(severity=severity) == want(lambda r, i=index: r["severity"] in SEVERITIES[i:]), severity
    for outcome in ("realized", "partly", "lost"):
        assert got(outcome=outcome) == want(lambda r, o=outcome: r["outcome"] == o)
    assert got(min_points=50) == want(lambda r: (r["points"] or 0) >= 50 and r["points"] is not None)
    assert got(match=matches["private"]) == want(lambda r: r["match"] == matches["private"])
    assert got(player="ana", kind="scoring-mistake", variant="cerrado") == want(
        lambda r: "Ana" in r["players"] and r["kind"] == "scoring-mistake" and r["match"] == matches["private"])
    today = StoredFinding.objects.first().match.created_at.date().isoformat()  # type: ignore[union-attr]
    assert got(date_from=today, date_to=today) == want(lambda r: True)
    assert got(date_to="2000-01-01") == set()


def test_it_sorts_by_points_or_date_and_pages(
    owner_api: APIClient, matches: dict[str, int], expected: dict[str, list[dict[str, Any]]]
) -> None:
    by_points = explore(owner_api)
    assert [r["points"] or 0 for r in by_points] == sorted((r["points"] or 0 for r in by_points), reverse=True)
    assert [r["points"] or 0 for r in explore(owner_api, ordering="points")] == sorted(r["points"] or 0 for r in by_points)
    newest = explore(owner_api, ordering="-date")
    assert newest[0]["match"] == matches["public"] and newest[-1]["match"] == matches["private"]
    first = owner_api.get("/api/findings/", {"page_size": 2}).json()
    assert first["count"] == len(by_points) and [key(r) for r in first["results"]] == [key(r) for r in by_points[:2]]
    assert owner_api.get(first["next"]).json()["results"] == by_points[2:4]


def test_the_csv_export_holds_the_same_rows(
    owner_api: APIClient, matches: dict[str, int], expected: dict[str, list[dict[str, Any]]]
) -> None:
    response = owner_api.get("/api/findings/export/", {"player": "ana", "ordering": "-points"})
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    exported = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    listed = explore(owner_api, player="ana")
    assert [(int(r["match"]), int(r["hand"]), r["kind"], r["points"], r["message"]) for r in exported] == [
        (r["match"], r["hand"], r["kind"], "" if r["points"] is None else str(r["points"]), r["message"]) for r in listed
    ]
    assert all(r["replay"].startswith("http://testserver/matches/") for r in exported)
    assert all(r["witness"] == "; ".join(w["witness"]) for r, w in zip(exported, listed))


@pytest.mark.parametrize("query", [{"severity": "awful"}, {"kind": ""}, {"min_points": "many"}, {"ordering": "x"},
                                   {"date_from": "yesterday"}, {"match": "0"}])
def test_a_bad_filter_is_a_400_naming_it(owner_api: APIClient, query: dict[str, str]) -> None:
    for url in ("/api/findings/", "/api/findings/export/"):
        response = owner_api.get(url, query)
        assert response.status_code == 400, (url, query)
        assert list(query)[0] in response.json()["extra"]["fields"]


def test_a_game_stored_twice_is_listed_once(owner_api: APIClient, coach_api: APIClient, upload: Any) -> None:
    text = with_players(record_text("cerrado", hands=1, seed=74, mistakes=1.0), "Ana", "Coach")
    mine = upload_one(upload, owner_api, text, "ours.brn", visibility="public")
    theirs = upload_one(upload, coach_api, text, "ours-too.brn", visibility="public")
    rows = explore(owner_api)
    assert {row["match"] for row in rows} == {mine}
    assert len(rows) == len(analyze(loads(text)))
    assert {row["match"] for row in explore(coach_api, match=theirs)} == set()


def test_the_page_lists_the_rows_with_the_filters_and_links(
    owner_api: APIClient, matches: dict[str, int], expected: dict[str, list[dict[str, Any]]]
) -> None:
    page = Client()
    page.force_login(User.objects.get(username="ana"))
    html = page.get("/findings/", {"player": "ana", "severity": "inaccuracy"}).content.decode()
    rows = explore(owner_api, player="ana", severity="inaccuracy")
    assert rows
    assert html.count('class="finding-row"') == min(len(rows), 50)
    for row in rows[:50]:
        assert row["replay"].replace("&", "&amp;") in html
    assert '/api/findings/export/?player=ana&amp;severity=inaccuracy' in html
    bad = page.get("/findings/", {"severity": "awful"})
    assert bad.status_code == 400 and "severity" in bad.content.decode()


def test_a_name_that_starts_like_a_formula_is_text_in_the_csv(owner_api: APIClient, upload: Any) -> None:
    text = with_players(record_text("cerrado", hands=1, seed=75, mistakes=1.0), "=SUM(A1)", "Bo")
    upload_one(upload, owner_api, text, "formula.brn")
    exported = list(csv.DictReader(io.StringIO(b"".join(
        owner_api.get("/api/findings/export/").streaming_content).decode())))
    mine = [row for row in exported if "SUM" in row["players"]]
    assert mine and all(row["players"].startswith("'=SUM(A1)") for row in mine)
    assert all(not row["players"].startswith("=") for row in exported)

"""A player across their games (issue 16, 1): GET /api/players/{name}/ and /players/{name}/,
their figures beside the site's, from the engine's findings of the matches one may read."""

from __future__ import annotations

import statistics
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.test import APIClient

from analysis.players import percentile
from analysis.selectors import turns_of
from buraco.analysis import SEVERITIES, analyze
from buraco.analysis.slips import HAND_NOT_SCORABLE
from buraco.notation import loads

from .conftest import record_text
from .helpers import upload_one, with_players

GAMES = {
    "one": with_players(record_text("cerrado", hands=2, seed=81, mistakes=1.0), "Ana", "Bo"),
    "two": with_players(record_text("burraco", hands=1, seed=82, mistakes=0.6), "Cy", "Ana"),
    "three": with_players(record_text("cerrado", hands=1, seed=83, mistakes=0.3), "Bo", "Cy"),
}


def tally(text: str, name: str) -> dict[str, Any]:
    """What the engine says of ``name`` in one record: turns, hands, findings, points."""
    record = loads(text)
    seat = [p.lower() for p in record.players].index(name.lower()) + 1
    mine = [f for f in analyze(record) if (f.seat == seat or (f.seat is None and f.side == seat))
            and f.cause != HAND_NOT_SCORABLE]
    return {
        "turns": sum(turns_of(list(hand.actions), seat) for hand in record.hands),
        "hands": len(record.hands),
        "findings": len(mine),
        "points": sum(f.points or 0 for f in mine),
        "severities": [f.severity for f in mine],
    }


def figures(tallies: list[dict[str, Any]]) -> dict[str, float | None]:
    turns = sum(t["turns"] for t in tallies)
    hands = sum(t["hands"] for t in tallies)
    return {
        "findings_per_100_turns": round(100 * sum(t["findings"] for t in tallies) / turns, 2) if turns else None,
        "points_lost_per_hand": round(sum(t["points"] for t in tallies) / hands, 2) if hands else None,
    }


@pytest.fixture
def games(owner_api: APIClient, stranger_api: APIClient, upload: Any) -> dict[str, int]:
    return {
        "one": upload_one(upload, owner_api, GAMES["one"], "one.brn"),
        "two": upload_one(upload, owner_api, GAMES["two"], "two.brn", visibility="public"),
        "three": upload_one(upload, stranger_api, GAMES["three"], "three.brn"),  # private: not the owner's to read
    }


def test_a_players_figures_are_the_engines_over_the_matches_the_viewer_may_read(
    owner_api: APIClient, games: dict[str, int]
) -> None:
    body = owner_api.get("/api/players/ANA/").json()
    mine = [tally(GAMES["one"], "Ana"), tally(GAMES["two"], "Ana")]
    assert body["matches"] == 2 and body["hands"] == 3
    assert body["turns"] == sum(t["turns"] for t in mine)
    assert body["findings"] == sum(t["findings"] for t in mine) > 0
    assert body["points_lost"] == sum(t["points"] for t in mine)
    want = figures(mine)
    assert body["findings_per_100_turns"] == want["findings_per_100_turns"]
    assert body["points_lost_per_hand"] == want["points_lost_per_hand"]
    for severity in SEVERITIES:
        assert body["by_severity"][severity]["findings"] == sum(t["severities"].count(severity) for t in mine)
    assert [row["match"] for row in body["over_time"]] == [games["one"], games["two"]]
    assert body["over_time"][0]["opponents"] == ["Bo"] and body["over_time"][1]["seat"] == 2


def test_each_figure_stands_beside_the_sites_median_and_the_players_percentile(
    owner_api: APIClient, games: dict[str, int]
) -> None:
    body = owner_api.get("/api/players/ana/").json()
    # The owner reads games one and two: Ana in both, Bo in one, Cy in two.
    everyone = {
        "ana": figures([tally(GAMES["one"], "Ana"), tally(GAMES["two"], "Ana")]),
        "bo": figures([tally(GAMES["one"], "Bo")]),
        "cy": figures([tally(GAMES["two"], "Cy")]),
    }
    assert body["site"]["players"] == 3
    for figure in ("findings_per_100_turns", "points_lost_per_hand"):
        values = [f[figure] for f in everyone.values() if f[figure] is not None]
        assert body["site"][figure]["median"] == round(statistics.median(values), 2)
        assert body["site"][figure]["percentile"] == percentile(everyone["ana"][figure], values)
    # Each kind's and severity's rate too, beside every player's rate of it.
    tallies = {"ana": [tally(GAMES["one"], "Ana"), tally(GAMES["two"], "Ana")],
               "bo": [tally(GAMES["one"], "Bo")], "cy": [tally(GAMES["two"], "Cy")]}
    for severity in SEVERITIES:
        rates = {who: round(100 * sum(t["severities"].count(severity) for t in ts) / sum(t["turns"] for t in ts), 2)
                 for who, ts in tallies.items()}
        shown = body["by_severity"][severity]
        assert shown["per_100_turns"] == rates["ana"]
        assert shown["site"] == {"median": round(statistics.median(rates.values()), 2),
                                 "percentile": percentile(rates["ana"], list(rates.values()))}, severity


def test_its_filters_narrow_the_matches(owner_api: APIClient, games: dict[str, int]) -> None:
    assert [r["match"] for r in owner_api.get("/api/players/ana/", {"variant": "burraco"}).json()["over_time"]] == [
        games["two"]]
    assert [r["match"] for r in owner_api.get("/api/players/ana/", {"opponent": "bo"}).json()["over_time"]] == [
        games["one"]]
    assert owner_api.get("/api/players/ana/", {"date_to": "2000-01-01"}).status_code == 404
    bad = owner_api.get("/api/players/ana/", {"variant": "chess"})
    assert bad.status_code == 400 and "variant" in bad.json()["extra"]["fields"]
    assert owner_api.get("/api/players/ana/", {"date_from": "soon"}).status_code == 400


def test_nobody_reads_a_players_figures_from_a_private_match_not_theirs(
    owner_api: APIClient, stranger_api: APIClient, anonymous_api: APIClient, games: dict[str, int]
) -> None:
    # Bo plays in games one (the owner's, private) and three (the stranger's, private).
    assert [r["match"] for r in owner_api.get("/api/players/bo/").json()["over_time"]] == [games["one"]]
    assert [r["match"] for r in stranger_api.get("/api/players/bo/").json()["over_time"]] == [games["three"]]
    assert anonymous_api.get("/api/players/bo/").status_code == 404
    assert [r["match"] for r in anonymous_api.get("/api/players/ana/").json()["over_time"]] == [games["two"]]
    token = owner_api.post(f"/api/matches/{games['one']}/share-link/").json()["share_token"]
    assert anonymous_api.get("/api/players/bo/", {"share": token}).status_code == 404
    assert Client().get("/players/bo/").status_code == 404


def test_the_page_shows_the_figures_a_chart_and_the_matches_and_names_link_to_it(
    owner: User, owner_api: APIClient, games: dict[str, int]
) -> None:
    page = Client()
    page.force_login(owner)
    body = owner_api.get("/api/players/ana/").json()
    html = page.get("/players/Ana/").content.decode()
    assert f"<td>{body['findings_per_100_turns']}</td>" in html
    assert body["luck"] is not None  # the luck job ran after the analysis (jobs run inline here)
    assert 'id="player-luck"' in html and f"<strong>{body['luck']['adjusted']}</strong>" in html
    assert html.count('<circle class="dot"') == 2 * len(body["over_time"])  # two charts, a dot per match
    assert f'href="/matches/{games["one"]}/"' in html and 'href="/players/Bo/"' in html
    assert '/findings/?player=Ana' in html
    assert 'href="/players/Ana/"' in page.get(f"/matches/{games['one']}/").content.decode()
    assert 'href="/players/Ana/"' in page.get("/").content.decode()
    assert 'href="/players/Ana/"' in page.get(f"/matches/{games['one']}/hands/1/replay/").content.decode()
    assert page.get("/players/nobody/").status_code == 404
    assert page.get("/players/ana/", {"variant": "chess"}).status_code == 400
    # A name holding a slash or a space still links to its own page.
    from pages.templatetags.players import player_url

    assert page.get(player_url("Ana")).status_code == 200 and player_url("a/b c") == "/players/a%2Fb%20c/"

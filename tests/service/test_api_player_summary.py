"""GET /api/players/{name}/summary/: a player's findings per 100 turns by kind, and the points
at stake, over the analysed matches the requester may read."""

from __future__ import annotations

import functools
from collections import Counter
from typing import Any

import pytest
from rest_framework.test import APIClient

from analysis.models import Finding as FindingRow
from buraco.analysis import KINDS, Finding, analyze
from buraco.analysis.slips import HAND_NOT_SCORABLE
from buraco.notation import loads

from .conftest import record_text
from .helpers import (
    fast_passwords,  # noqa: F401  (a fixture)
    illegal_record,
    named,
    upload_one,
    with_players,
)

pytestmark = pytest.mark.usefixtures("fast_passwords")

# Ana in seat 1, in seat 2, and in seat 3 of four (a side of seats 1 and 3).
FIRST = with_players(record_text("cerrado", hands=2, seed=71, mistakes=1.0), "Ana", "Bia")
SECOND = with_players(record_text("burraco", hands=2, seed=72, mistakes=1.0), "Caio", "Ana")
FOURS = with_players(record_text("brasil", players=4, hands=1, seed=73, mistakes=1.0), "Bia", "Caio", "Ana", "Duda")


@functools.cache
def analysed(text: str) -> tuple[Finding, ...]:
    return tuple(analyze(loads(text)))


def expected(texts: list[str], name: str) -> dict[str, Any]:
    """The summary worked out from the records and analyze(): turns are the player's draws and
    takes; a finding is theirs when about their seat or (no seat: a scoring mistake) their side."""
    turns, counts, points = 0, Counter[str](), Counter[str]()
    for text in texts:
        record = loads(text)
        seat = [p.lower() for p in record.players].index(name.lower()) + 1
        side = next(i for i, seats in enumerate(record.sides, start=1) if seat in seats)
        for hand in record.hands:
            turns += sum(1 for a in hand.actions if a.split()[:2] in ([f"p{seat}", "draw"], [f"p{seat}", "take"]))
        for finding in analysed(text):
            if finding.cause == HAND_NOT_SCORABLE:
                continue  # a claim on a hand that has no score: no mistake of the player
            if finding.seat == seat or (finding.seat is None and finding.side == side):
                counts[finding.kind] += 1
                points[finding.kind] += finding.points or 0
    return {
        "turns": turns,
        "findings": sum(counts.values()),
        "points_at_stake": sum(points.values()),
        "by_kind": {
            kind: {"findings": counts[kind], "per_100_turns": round(100 * counts[kind] / turns, 2),
                   "points": points[kind]}
            for kind in KINDS
        },
    }


def Finding_rows(match_id: int) -> set[str | None]:
    """The causes of a match's stored findings."""
    return set(FindingRow.objects.filter(match_id=match_id).values_list("cause", flat=True))


def summary(client: APIClient, name: str) -> Any:
    return client.get(f"/api/players/{name}/summary/")


@pytest.fixture
def matches(owner_api: APIClient, upload: Any) -> dict[str, int]:
    return {
        "first": upload_one(upload, owner_api, FIRST, "first.brn"),
        "second": upload_one(upload, owner_api, SECOND, "second.brn"),
        "fours": upload_one(upload, owner_api, FOURS, "fours.brn"),
    }


def test_it_summarises_a_players_findings_per_100_turns_by_kind(owner_api: APIClient, matches: dict[str, int]) -> None:
    response = summary(owner_api, "Ana")
    assert response.status_code == 200
    body = response.json()
    want = expected([FIRST, SECOND, FOURS], "Ana")
    assert body["player"] == "Ana"
    assert (body["matches"], body["analysed_matches"], body["hands"]) == (3, 3, 5)
    assert body["turns"] == want["turns"] > 0
    assert body["findings"] == want["findings"]
    assert body["points_at_stake"] == want["points_at_stake"]
    assert body["by_kind"] == want["by_kind"]
    assert body["findings_per_100_turns"] == round(100 * want["findings"] / want["turns"], 2)
    assert body["by_kind"]["scoring-mistake"]["findings"] > 0  # the planted wrong scores of Ana's sides


def test_it_finds_the_player_whatever_the_case(owner_api: APIClient, matches: dict[str, int]) -> None:
    assert summary(owner_api, "ana").json()["turns"] == summary(owner_api, "ANA").json()["turns"]
    assert summary(owner_api, "ana").json()["matches"] == 3


def test_it_counts_only_the_matches_the_requester_may_read(
    owner_api: APIClient, coach_api: APIClient, stranger_api: APIClient, anonymous_api: APIClient,
    matches: dict[str, int],
) -> None:
    for client in (coach_api, stranger_api, anonymous_api):
        response = summary(client, "Ana")
        assert response.status_code == 404  # every match of Ana is private
        assert set(response.json()) == {"message", "extra"}

    owner_api.post(f"/api/matches/{matches['second']}/shared-with/", {"username": "coach"}, format="json")
    body = summary(coach_api, "Ana").json()
    assert body["matches"] == 1
    assert {k: body[k] for k in ("turns", "findings", "by_kind")} == {
        k: expected([SECOND], "Ana")[k] for k in ("turns", "findings", "by_kind")
    }
    assert summary(stranger_api, "Ana").status_code == 404


def test_a_public_match_counts_for_everyone(owner_api: APIClient, anonymous_api: APIClient, upload: Any) -> None:
    upload_one(upload, owner_api, FIRST, "first.brn", visibility="public")
    body = summary(anonymous_api, "Bia").json()
    assert body["matches"] == 1
    assert body["by_kind"] == expected([FIRST], "Bia")["by_kind"]


def test_it_answers_404_for_a_player_in_no_match(owner_api: APIClient, matches: dict[str, int]) -> None:
    assert summary(owner_api, "Zed").status_code == 404
    assert summary(owner_api, "An").status_code == 404  # a part of a name is no player


def test_it_leaves_matches_not_yet_analysed_out_of_the_counts(owner_api: APIClient, upload: Any) -> None:
    upload_one(upload, owner_api, FIRST, "first.brn")
    owner_api.post("/api/matches/", {"file": named(SECOND, "second.brn")}, format="multipart")  # never run
    body = summary(owner_api, "Ana").json()
    assert (body["matches"], body["analysed_matches"]) == (2, 1)
    assert body["turns"] == expected([FIRST], "Ana")["turns"]


def test_a_claim_on_an_illegal_hand_is_no_scoring_mistake_of_the_player(owner_api: APIClient, upload: Any) -> None:
    illegal = illegal_record(seed=74)
    record = loads(illegal.text)
    name = record.players[0]
    match_id = upload_one(upload, owner_api, illegal.text, "illegal.brn")
    stored = Finding_rows(match_id)
    assert HAND_NOT_SCORABLE in stored  # the analysis reports the claim it cannot check ...
    body = summary(owner_api, name).json()
    assert body["by_kind"]["scoring-mistake"]["findings"] == sum(
        1 for f in analysed(illegal.text) if f.kind == "scoring-mistake" and f.cause != HAND_NOT_SCORABLE
        and f.side == 1
    )  # ... but it is no mistake of the player's


def test_a_game_stored_twice_counts_once(
    owner_api: APIClient, coach_api: APIClient, coach: Any, upload: Any
) -> None:
    first = upload_one(upload, owner_api, FIRST, "first.brn")
    owner_api.post(f"/api/matches/{first}/shared-with/", {"username": "coach"}, format="json")
    # The coach stores the same game too (their own copy, with a note): one game, one count.
    with_note = FIRST.replace("[[hands]]", '[[hands]]\nnotes = [{ ply = 1, author = "coach", text = "hm" }]', 1)
    copy = upload_one(upload, coach_api, with_note, "copy.brn")
    assert copy != first
    body = summary(coach_api, "Ana").json()
    assert (body["matches"], body["analysed_matches"]) == (1, 1)
    assert {k: body[k] for k in ("turns", "findings", "by_kind")} == {
        k: expected([FIRST], "Ana")[k] for k in ("turns", "findings", "by_kind")
    }

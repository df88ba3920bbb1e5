"""The verification report, the canonical BRN download, a hand's timeline and one state by ply."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

import buraco
from buraco.notation import loads
from buraco.replay import timeline, verify

from .conftest import ROOT, record_text
from .helpers import (
    as_json,
    fast_passwords,  # noqa: F401  (a fixture)
    illegal_record,
    upload_one,
)

pytestmark = pytest.mark.usefixtures("fast_passwords")


def plain(data: Any) -> Any:
    """As the API would send it: tuples become lists."""
    return json.loads(json.dumps(data))


def with_target(text: str, target: int) -> str:
    """The record with a low match target, so that it has a winner."""
    marker = 'event = "self-play"'
    assert marker in text
    return text.replace(marker, f"target = {target}\n{marker}", 1)


# --- the report ----------------------------------------------------------------------


def test_it_reports_each_hands_scores_and_parts_as_the_engine_does(owner_api: APIClient, upload: Any) -> None:
    text = record_text("cerrado", hands=2, seed=201)
    match_id = upload_one(upload, owner_api, text)
    response = owner_api.get(f"/api/matches/{match_id}/report/")

    assert response.status_code == 200
    body = response.json()
    expected = verify(loads(text))
    assert body["id"] == match_id
    assert body["status"] == "verified"
    assert body["engine_version"] == buraco.__version__
    assert body["verified_at"]
    report = body["report"]
    assert report == plain(expected.as_dict())
    assert report["valid"] is True and report["scores_match"] is True
    assert len(report["hands"]) == 2
    for hand, engine in zip(report["hands"], expected.hands):
        assert hand["finished"] is True
        assert hand["scores"] == engine.scores
        assert len(hand["parts"]) == len(hand["scores"])
        assert [part["total"] for part in hand["parts"]] == hand["scores"]
        assert hand["mismatches"] == []
    assert report["totals"] == [sum(s) for s in zip(*(h["scores"] for h in report["hands"]))]


def test_it_reports_every_difference_from_the_claimed_scores(owner_api: APIClient, upload: Any) -> None:
    text = record_text("cerrado", hands=2, seed=202, mistakes=1.0)  # every hand claims a wrong score
    match_id = upload_one(upload, owner_api, text)
    body = owner_api.get(f"/api/matches/{match_id}/report/").json()
    report = body["report"]

    assert body["status"] == "verified"  # legal play; only the written scores are wrong
    assert report["valid"] is True
    assert report["scores_match"] is False
    record = loads(text)
    for hand, written in zip(report["hands"], record.hands):
        assert hand["mismatches"], hand
        scores = [m for m in hand["mismatches"] if m["field"] == "scores"]
        assert len(scores) == 1
        side = scores[0]["side"] - 1  # sides are numbered from 1 in JSON
        assert scores[0]["claimed"] == written.result.scores[side]
        assert scores[0]["computed"] == hand["scores"][side]
        assert scores[0]["claimed"] != scores[0]["computed"]
    detail = owner_api.get(f"/api/matches/{match_id}/").json()
    assert detail["scores_match"] is False
    assert [h["mismatches"] for h in detail["hands"]] == [h["mismatches"] for h in report["hands"]]


def test_it_reports_the_winner(owner_api: APIClient, upload: Any) -> None:
    text = with_target(record_text("cerrado", hands=2, seed=203), 100)
    match_id = upload_one(upload, owner_api, text)
    report = owner_api.get(f"/api/matches/{match_id}/report/").json()["report"]
    expected = verify(loads(text))

    assert expected.winner is not None  # a 100-point target is passed in the first hand or two
    winner = report["winner"]
    assert winner == plain(expected.winner_dict())
    assert winner["players"] == [["Bot 1", "Bot 2"][s - 1] for s in winner["seats"]]
    assert winner["after_hand"] in (1, 2)
    assert owner_api.get(f"/api/matches/{match_id}/").json()["winner"] == winner


def test_it_reports_no_winner_before_the_target(owner_api: APIClient, upload: Any) -> None:
    text = with_target(record_text("cerrado", hands=1, seed=204), 100000)
    match_id = upload_one(upload, owner_api, text)
    assert owner_api.get(f"/api/matches/{match_id}/report/").json()["report"]["winner"] is None


def test_it_reports_the_first_illegal_action(owner_api: APIClient, upload: Any) -> None:
    illegal = illegal_record(seed=205)
    match_id = upload_one(upload, owner_api, illegal.text)
    body = owner_api.get(f"/api/matches/{match_id}/report/").json()

    assert body["status"] == "invalid"
    report = body["report"]
    assert report["valid"] is False
    error = report["error"]
    assert (error["hand"], error["ply"], error["line"], error["column"]) == (
        illegal.hand, illegal.ply, illegal.line, illegal.column
    )
    assert error["action"] == illegal.action
    assert report["hands"][0]["valid"] is False and report["hands"][0]["scores"] is None
    assert report["hands"][1]["valid"] is True and report["hands"][1]["scores"]


def test_it_reports_a_pending_match_without_a_verdict(owner_api: APIClient) -> None:
    from .helpers import named

    response = owner_api.post("/api/matches/", {"file": named(record_text(hands=1, seed=206), "a.brn")},
                              format="multipart")  # verification never runs: the job stays queued
    body = owner_api.get(f"/api/matches/{response.json()['id']}/report/").json()
    assert body["status"] == "pending"
    assert body["report"] is None
    assert body["engine_version"] is None


# --- the canonical BRN ---------------------------------------------------------------


def test_it_downloads_canonical_brn_that_reads_back_and_verifies(owner_api: APIClient, upload: Any) -> None:
    text = record_text("brasil", players=3, hands=2, seed=207)
    match_id = upload_one(upload, owner_api, text)
    response = owner_api.get(f"/api/matches/{match_id}/brn/")

    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/toml")
    assert f'filename="match-{match_id}.brn"' in response["Content-Disposition"]
    record = loads(response.content)
    original = loads(text)
    assert record.variant == "brasil"
    assert record.players == original.players
    assert [len(h.actions) for h in record.hands] == [len(h.actions) for h in original.hands]
    assert [h.dealt for h in record.hands] == [h.dealt for h in original.hands]
    report = verify(record)
    assert report.valid and report.scores_match
    assert [h.scores for h in report.hands] == [h.scores for h in verify(original).hands]
    # melds may be written in another (canonical) order, but they leave the same table
    assert timeline(record, 1)[-1] == timeline(original, 1)[-1]
    assert report.totals == owner_api.get(f"/api/matches/{match_id}/").json()["totals"]


def test_it_downloads_a_json_upload_as_toml(owner_api: APIClient, upload: Any) -> None:
    text = record_text("cerrado", hands=1, seed=208)
    match_id = upload_one(upload, owner_api, as_json(text), "match.json")
    body = owner_api.get(f"/api/matches/{match_id}/brn/").content.decode()
    assert body.lstrip().startswith("brn = 1")
    assert verify(loads(body, "toml")).totals == verify(loads(text)).totals


def test_it_keeps_tags_extensions_and_notes_in_the_download(owner_api: APIClient, upload: Any) -> None:
    text = record_text("cerrado", hands=1, seed=209).replace(
        'event = "self-play"', 'event = "Thursday club"\ndate = 2026-11-29\nx-table = "window"', 1
    ) + '\n[[hands.notes]]\nply = 2\nauthor = "coach"\ntext = "keep the pair"\n'
    match_id = upload_one(upload, owner_api, text)
    record = loads(owner_api.get(f"/api/matches/{match_id}/brn/").content)
    assert dict(record.metadata)["event"] == "Thursday club"
    assert dict(record.metadata)["date"] == "2026-11-29"
    assert dict(record.extra)["x-table"] == "window"
    [note] = record.hands[0].notes
    assert (note.ply, note.author, note.text) == (2, "coach", "keep the pair")


@pytest.mark.parametrize("path", sorted((ROOT / "docs" / "examples").glob("*.brn")), ids=lambda p: p.stem)
def test_it_round_trips_every_example_record(owner_api: APIClient, upload: Any, path: Path) -> None:
    match_id = upload_one(upload, owner_api, path.read_bytes(), path.name)
    detail = owner_api.get(f"/api/matches/{match_id}/").json()
    assert detail["status"] == "verified" and detail["scores_match"] is True
    record = loads(owner_api.get(f"/api/matches/{match_id}/brn/").content)
    report = verify(record)
    assert report.valid and report.scores_match
    assert report.totals == detail["totals"]


def test_it_downloads_an_invalid_record_too(owner_api: APIClient, upload: Any) -> None:
    illegal = illegal_record(seed=210)
    match_id = upload_one(upload, owner_api, illegal.text)
    response = owner_api.get(f"/api/matches/{match_id}/brn/")
    assert response.status_code == 200
    record = loads(response.content)
    assert record.hands[0].actions[0] == illegal.action
    assert verify(record).valid is False


# --- the timeline and one state ------------------------------------------------------


@pytest.fixture
def two_hands(owner_api: APIClient, upload: Any) -> tuple[int, str]:
    text = record_text("cerrado", hands=2, seed=211)
    return upload_one(upload, owner_api, text), text


def test_it_gives_every_state_of_a_hand_in_one_request(owner_api: APIClient, two_hands: tuple[int, str]) -> None:
    match_id, text = two_hands
    record = loads(text)
    for number in (1, 2):
        response = owner_api.get(f"/api/matches/{match_id}/hands/{number}/timeline/")
        assert response.status_code == 200
        body = response.json()
        assert (body["match"], body["hand"], body["error"]) == (match_id, number, None)
        states = body["states"]
        actions = record.hands[number - 1].actions
        assert len(states) == len(actions) + 1
        assert [s["ply"] for s in states] == list(range(len(actions) + 1))
        assert states == plain(timeline(record, number - 1))
        assert states[-1]["ended_by"]  # self-play hands are played to their end


def test_it_starts_the_timeline_with_the_deal(owner_api: APIClient, two_hands: tuple[int, str]) -> None:
    match_id, text = two_hands
    record = loads(text)
    deal = owner_api.get(f"/api/matches/{match_id}/hands/1/timeline/").json()["states"][0]
    assert deal["ply"] == 0
    assert deal["melds"] == []
    assert [len(cards) for cards in deal["hands"].values()] == [len(cards) for cards in record.hands[0].dealt]


def test_it_gives_one_state_by_ply_equal_to_the_timelines(owner_api: APIClient, two_hands: tuple[int, str]) -> None:
    match_id, text = two_hands
    states = owner_api.get(f"/api/matches/{match_id}/hands/2/timeline/").json()["states"]
    last = len(states) - 1
    for ply in (0, 1, last // 2, last):
        response = owner_api.get(f"/api/matches/{match_id}/hands/2/states/{ply}/")
        assert response.status_code == 200, ply
        body = response.json()
        assert (body["match"], body["hand"]) == (match_id, 2)
        assert body["state"] == states[ply]


def test_it_answers_404_for_a_ply_out_of_range(owner_api: APIClient, two_hands: tuple[int, str]) -> None:
    match_id, text = two_hands
    plies = len(loads(text).hands[0].actions)
    assert owner_api.get(f"/api/matches/{match_id}/hands/1/states/{plies}/").status_code == 200
    response = owner_api.get(f"/api/matches/{match_id}/hands/1/states/{plies + 1}/")
    assert response.status_code == 404
    assert set(response.json()) == {"message", "extra"}
    assert owner_api.get(f"/api/matches/{match_id}/hands/1/states/100000/").status_code == 404


@pytest.mark.parametrize("number", [0, 3, 99])
def test_it_answers_404_for_a_hand_out_of_range(owner_api: APIClient, two_hands: tuple[int, str], number: int) -> None:
    match_id, _ = two_hands
    for url in (f"/api/matches/{match_id}/hands/{number}/timeline/", f"/api/matches/{match_id}/hands/{number}/states/0/"):
        response = owner_api.get(url)
        assert response.status_code == 404, url
        assert set(response.json()) == {"message", "extra"}


def test_it_stops_an_invalid_hands_timeline_at_the_error(owner_api: APIClient, upload: Any) -> None:
    text = record_text("cerrado", hands=1, seed=212)
    record = loads(text)
    # the fourth action, as the other player: out of turn
    fourth = record.hands[0].actions[3]
    seat = fourth.split()[0]
    other = "p2" if seat == "p1" else "p1"
    bad_action = f"{other} draw"
    lines = text.splitlines()
    line_number = lines.index("actions = [") + 1 + 4  # one action a line, after the opening bracket
    assert lines[line_number - 1].strip() == f'"{fourth}",'
    lines[line_number - 1] = f'  "{bad_action}",'
    bad = "\n".join(lines) + "\n"
    match_id = upload_one(upload, owner_api, bad)

    response = owner_api.get(f"/api/matches/{match_id}/hands/1/timeline/")
    assert response.status_code == 200
    body = response.json()
    assert [s["ply"] for s in body["states"]] == [0, 1, 2, 3]
    error = body["error"]
    assert error["kind"] == "illegal"
    assert (error["hand"], error["ply"], error["line"]) == (1, 4, line_number)
    assert error["column"] == lines[line_number - 1].index(bad_action) + 1
    assert error["action"] == bad_action
    assert owner_api.get(f"/api/matches/{match_id}/hands/1/states/3/").json()["state"] == body["states"][3]


def test_it_gives_no_state_past_an_illegal_action(owner_api: APIClient, upload: Any) -> None:
    illegal = illegal_record(seed=213)
    match_id = upload_one(upload, owner_api, illegal.text)
    assert owner_api.get(f"/api/matches/{match_id}/hands/1/states/0/").status_code == 200
    response = owner_api.get(f"/api/matches/{match_id}/hands/1/states/1/")
    assert response.status_code in (404, 409)
    assert "state" not in response.json()
    assert response.json()["message"]

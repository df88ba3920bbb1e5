"""POST /api/matches/{id}/hands/{n}/try/: another play from a ply, played by the engine,
answered per action (the timeline's entry, or the error that stops the line), stored nowhere."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from buraco.errors import IllegalActionError
from buraco.notation import loads
from records.models import Hand, Match

from .conftest import record_text
from .helpers import (
    fast_passwords,  # noqa: F401  (a fixture)
    illegal_record,
    upload_one,
)

pytestmark = pytest.mark.usefixtures("fast_passwords")


@pytest.fixture
def played(owner_api: APIClient, upload: Any) -> tuple[int, str]:
    text = record_text("cerrado", hands=1, seed=501)
    return upload_one(upload, owner_api, text), text


def try_(client: APIClient, match_id: int, body: Any, share: str | None = None, number: int = 1) -> Any:
    url = f"/api/matches/{match_id}/hands/{number}/try/" + (f"?share={share}" if share else "")
    return client.post(url, body, format="json")


def test_it_plays_the_records_own_actions_to_the_timelines_entries(owner_api: APIClient, played: tuple[int, str]) -> None:
    match_id, text = played
    actions = list(loads(text).hands[0].actions[4:9])
    response = try_(owner_api, match_id, {"ply": 4, "actions": actions})
    assert response.status_code == 200, response.content
    body = response.json()
    timeline = owner_api.get(f"/api/matches/{match_id}/hands/1/timeline/").json()["states"]
    assert (body["match"], body["hand"], body["ply"], body["complete"]) == (match_id, 1, 4, True)
    assert [r["entry"] for r in body["results"]] == timeline[5:10]
    assert [r["action"] for r in body["results"]] == actions


def test_it_stops_at_the_first_action_that_cannot_be_played_with_its_sentence(
    owner_api: APIClient, played: tuple[int, str]
) -> None:
    match_id, _ = played
    body = try_(owner_api, match_id, {"ply": 0, "actions": ["p1 draw", "p2 draw", "p1 discard Kc"]}).json()
    assert body["complete"] is False
    assert len(body["results"]) == 2
    assert body["results"][0]["entry"]["operation"]["kind"] == "drew"
    error = body["results"][1]["error"]
    assert error["message"] == "it is p1's turn, not p2's" and error["ply"] == 2 and error["action"] == "p2 draw"


def test_it_says_why_an_unreadable_action_cannot_be_played(owner_api: APIClient, played: tuple[int, str]) -> None:
    match_id, _ = played
    [result] = try_(owner_api, match_id, {"ply": 0, "actions": ["p1 mled 5h"]}).json()["results"]
    assert result["error"]["kind"] == "notation" and "not a verb" in result["error"]["message"]


def test_it_stores_nothing(owner_api: APIClient, played: tuple[int, str]) -> None:
    match_id, _ = played
    timeline = owner_api.get(f"/api/matches/{match_id}/hands/1/timeline/").json()  # (stores the timeline's answer)
    before = (list(Hand.objects.filter(match_id=match_id).values()), bytes(Match.objects.get(pk=match_id).source))
    try_(owner_api, match_id, {"ply": 0, "actions": ["p1 draw"]})
    after = (list(Hand.objects.filter(match_id=match_id).values()), bytes(Match.objects.get(pk=match_id).source))
    assert after == before
    assert owner_api.get(f"/api/matches/{match_id}/hands/1/timeline/").json() == timeline


@pytest.mark.parametrize(("body", "named"), [
    ({"ply": 0, "actions": ["p1 draw"] * 201}, "at most 200 actions"),
    ({"ply": 0, "actions": ["p1 draw " + "x" * 200]}, "at most 200 characters"),
    ({"ply": -1, "actions": ["p1 draw"]}, "ply"),
    ({"ply": 100000, "actions": ["p1 draw"]}, "plies 0 to"),
    ({"actions": ["p1 draw"]}, "ply"),
    ({"ply": 0, "actions": "p1 draw"}, "actions"),
])
def test_it_bounds_its_input_and_names_the_limit(
    owner_api: APIClient, played: tuple[int, str], body: dict[str, Any], named: str
) -> None:
    match_id, _ = played
    response = try_(owner_api, match_id, body)
    assert response.status_code == 400
    assert set(response.json()) == {"message", "extra"}
    assert named in response.json()["message"]


def test_it_answers_200_actions_of_200_characters(owner_api: APIClient, played: tuple[int, str]) -> None:
    match_id, _ = played
    long = "p1 draw" + " " * 193
    assert len(long) == 200
    response = try_(owner_api, match_id, {"ply": 0, "actions": [long] + ["p1 draw"] * 199})
    assert response.status_code == 200
    assert len(response.json()["results"]) == 2  # the second draw is the first illegal one


@pytest.mark.parametrize(("persona", "code"), [("owner", 200), ("coach", 200), ("stranger", 404), ("anonymous", 404)])
def test_it_lets_whoever_may_read_the_match_try(
    request: Any, owner_api: APIClient, played: tuple[int, str], persona: str, code: int
) -> None:
    match_id, _ = played
    coach = request.getfixturevalue("coach")
    owner_api.post(f"/api/matches/{match_id}/shared-with/", {"username": coach.username}, format="json")
    client = request.getfixturevalue(f"{persona}_api")
    assert try_(client, match_id, {"ply": 0, "actions": ["p1 draw"]}).status_code == code


def test_it_lets_a_share_link_holder_try(owner_api: APIClient, anonymous_api: APIClient, played: tuple[int, str]) -> None:
    match_id, _ = played
    token = owner_api.post(f"/api/matches/{match_id}/share-link/").json()["share_token"]
    assert try_(anonymous_api, match_id, {"ply": 0, "actions": ["p1 draw"]}, share=token).status_code == 200
    assert try_(anonymous_api, match_id, {"ply": 0, "actions": ["p1 draw"]}, share="wrong").status_code == 404


def test_it_answers_409_from_a_ply_past_the_first_illegal_action(owner_api: APIClient, upload: Any) -> None:
    illegal = illegal_record(seed=502)
    match_id = upload_one(upload, owner_api, illegal.text)
    response = try_(owner_api, match_id, {"ply": 1, "actions": ["p1 draw"]})
    assert response.status_code == 409
    assert response.json()["extra"]["error"]["ply"] == 1
    assert try_(owner_api, match_id, {"ply": 0, "actions": ["p1 draw"]}).status_code == 200


def test_it_answers_409_not_500_when_the_engine_raises_on_the_stored_record(
    owner_api: APIClient, played: tuple[int, str], monkeypatch: Any
) -> None:
    match_id, _ = played

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise IllegalActionError("the deal leaves no stock", hand=1)

    monkeypatch.setattr("buraco.state.HandState.deal", broken)  # the try replays the stored hand's deal
    response = try_(owner_api, match_id, {"ply": 0, "actions": ["p1 draw"]})
    assert response.status_code == 409
    assert set(response.json()) == {"message", "extra"}


def test_it_answers_404_for_a_hand_out_of_range(owner_api: APIClient, played: tuple[int, str]) -> None:
    match_id, _ = played
    assert try_(owner_api, match_id, {"ply": 0, "actions": ["p1 draw"]}, number=2).status_code == 404


def test_it_is_in_the_openapi_schema(anonymous_api: APIClient) -> None:
    import yaml

    schema = yaml.safe_load(anonymous_api.get("/api/schema/").content)
    operation = schema["paths"]["/api/matches/{match_id}/hands/{hand}/try/"]["post"]
    assert {"200", "400", "404", "409"} <= set(operation["responses"])
    assert "application/json" in operation["requestBody"]["content"]

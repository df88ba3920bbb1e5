"""A hand's timeline names what happened at each ply, and an engine error on a stored
record is answered by the one error format (409), never a 500."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from buraco.errors import IllegalActionError
from buraco.notation import loads
from buraco.replay import timeline
from records.models import Match

from .conftest import record_text
from .helpers import (
    fast_passwords,  # noqa: F401  (a fixture)
    stored_match,
    upload_one,
)
from .test_api_replay import plain

pytestmark = pytest.mark.usefixtures("fast_passwords")


@pytest.fixture
def one_hand(owner_api: APIClient, upload: Any) -> tuple[int, str]:
    text = record_text("cerrado", hands=1, seed=301)
    return upload_one(upload, owner_api, text), text


def test_it_names_each_plys_seat_action_operation_and_automatic_steps(
    owner_api: APIClient, one_hand: tuple[int, str]
) -> None:
    match_id, text = one_hand
    record = loads(text)
    states = owner_api.get(f"/api/matches/{match_id}/hands/1/timeline/").json()["states"]
    assert states == plain(timeline(record, 0))
    assert states[0]["action"] is None and states[0]["operation"] is None
    for state, action in zip(states[1:], record.hands[0].actions):
        assert state["action"] == action
        assert state["seat"] == int(action.split()[0][1:])
        assert state["operation"]["kind"] in {"drew", "took", "melded", "laid-off", "picked-dead", "discarded"}
    assert states[-1]["automatic"][-1]["kind"] == "hand-ended"


def test_it_gives_the_same_entry_for_one_state(owner_api: APIClient, one_hand: tuple[int, str]) -> None:
    match_id, _ = one_hand
    states = owner_api.get(f"/api/matches/{match_id}/hands/1/timeline/").json()["states"]
    body = owner_api.get(f"/api/matches/{match_id}/hands/1/states/5/").json()
    assert body["state"] == states[5] and body["state"]["action"]


def test_it_answers_409_not_500_for_a_stored_record_the_engine_cannot_read(owner: Any, owner_api: APIClient) -> None:
    match = stored_match(owner, source=b"brn = 1\nthis is not a record\n")
    Match.objects.filter(pk=match.pk).update(hand_count=1)
    for what in ("hands/1/timeline/", "hands/1/states/0/", "brn/"):
        response = owner_api.get(f"/api/matches/{match.pk}/{what}")
        assert response.status_code == 409, (what, response.content)
        body = response.json()
        assert set(body) == {"message", "extra"}
        assert body["message"].startswith("the stored record cannot be replayed")
        assert body["extra"]["error"]["kind"] == "notation"


def test_it_answers_409_not_500_when_the_replay_of_a_stored_record_raises(
    owner_api: APIClient, one_hand: tuple[int, str], monkeypatch: Any
) -> None:
    match_id, _ = one_hand

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise IllegalActionError("the deal leaves no stock", hand=1)

    monkeypatch.setattr("buraco.replay.deal_hand", broken)
    response = owner_api.get(f"/api/matches/{match_id}/hands/1/states/0/")
    assert response.status_code == 409
    assert response.json()["extra"]["error"]["message"] == "the deal leaves no stock"
    timeline_response = owner_api.get(f"/api/matches/{match_id}/hands/1/timeline/")
    assert timeline_response.status_code == 200  # the timeline says where it stops
    assert timeline_response.json()["states"] == []
    assert timeline_response.json()["error"]["message"] == "the deal leaves no stock"

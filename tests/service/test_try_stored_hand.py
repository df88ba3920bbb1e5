"""POST .../try/ replays the stored hand alone (its deal and actions as the upload stored
them), never the whole record, and is rate-limited: the second outside probe found it parsing
a 15.8 MB record on every request (2.4 to 3.6 s of CPU), anonymous on public matches."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from buraco.notation import loads
from buraco.replay import try_actions
from records.models import Match

from .conftest import record_text
from .helpers import fast_passwords, upload_one  # noqa: F401  (a fixture)

pytestmark = pytest.mark.usefixtures("fast_passwords")


def _try(client: APIClient, match_id: int, number: int, body: Any) -> Any:
    return client.post(f"/api/matches/{match_id}/hands/{number}/try/", body, format="json")


def test_a_try_answers_as_the_whole_record_would_at_every_hand_and_ply(owner_api: APIClient, upload: Any) -> None:
    text = record_text("burraco", players=4, hands=3, seed=511)
    record = loads(text)
    match_id = upload_one(upload, owner_api, text)
    for index, hand in enumerate(record.hands):
        last = len(hand.parsed)
        for ply in sorted({0, 1, last // 2, last - 1, last}):
            tried = [*hand.actions[ply:ply + 3], "p1 draw", "p9 draw"]
            body = _try(owner_api, match_id, index + 1, {"ply": ply, "actions": tried}).json()
            assert body["results"] == try_actions(record, index, ply, tried), (index, ply)


def test_a_try_never_reads_the_stored_record(owner_api: APIClient, upload: Any) -> None:
    text = record_text("cerrado", hands=2, seed=512)
    match_id = upload_one(upload, owner_api, text)
    before = _try(owner_api, match_id, 2, {"ply": 3, "actions": ["p2 draw"]}).json()
    Match.objects.filter(pk=match_id).update(source=b"this is not a record any more")
    after = _try(owner_api, match_id, 2, {"ply": 3, "actions": ["p2 draw"]})
    assert after.status_code == 200, after.content
    assert after.json() == before


@override_settings(BURACO_THROTTLE_RATES={"try": "3/min"})
def test_tries_are_limited_per_address_for_anonymous_readers(owner_api: APIClient, upload: Any) -> None:
    match_id = upload_one(upload, owner_api, record_text(hands=1, seed=513), visibility="public")
    anonymous = APIClient()
    for _ in range(3):
        assert _try(anonymous, match_id, 1, {"ply": 0, "actions": ["p1 draw"]}).status_code == 200
    refused = _try(anonymous, match_id, 1, {"ply": 0, "actions": ["p1 draw"]})
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert _try(owner_api, match_id, 1, {"ply": 0, "actions": ["p1 draw"]}).status_code == 200  # counted apart

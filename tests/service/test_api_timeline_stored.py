"""A hand's timeline and the match's canonical BRN are made once, on their first read, and
then sent as stored: later reads never parse or replay the record (records/timelines.py)."""

from __future__ import annotations

import gzip
import json
from typing import Any

import pytest
from rest_framework.test import APIClient

from buraco.notation import loads
from buraco.replay import timeline
from records.models import Hand, Match

from .conftest import record_text
from .helpers import fast_passwords, upload_one  # noqa: F401  (a fixture)
from .test_api_replay import plain

pytestmark = pytest.mark.usefixtures("fast_passwords")


@pytest.fixture
def played(owner_api: APIClient, upload: Any) -> tuple[int, str]:
    text = record_text("brasil", hands=2, seed=311, mistakes=0.3)
    return upload_one(upload, owner_api, text), text


def timeline_url(match_id: int, hand: int = 1) -> str:
    return f"/api/matches/{match_id}/hands/{hand}/timeline/"


def test_later_reads_send_what_the_first_stored_without_reading_the_record(
    owner_api: APIClient, played: tuple[int, str]
) -> None:
    match_id, text = played
    assert Hand.objects.filter(match_id=match_id, timeline__isnull=False).count() == 0
    first = owner_api.get(timeline_url(match_id)).json()
    assert first["states"] == plain(timeline(loads(text), 0))
    assert Hand.objects.filter(match_id=match_id, timeline__isnull=False).count() == 1  # that hand only
    # A record nobody could read: a read that parsed it would now be a 409.
    Match.objects.filter(pk=match_id).update(source=b"not a record")
    assert owner_api.get(timeline_url(match_id)).json() == first
    state = owner_api.get(f"/api/matches/{match_id}/hands/1/states/7/")
    assert state.status_code == 200 and state.json() == {"match": match_id, "hand": 1, "state": first["states"][7]}


def test_every_state_is_the_timelines_entry_at_its_ply(owner_api: APIClient, played: tuple[int, str]) -> None:
    match_id, text = played
    for hand in (1, 2):
        states = owner_api.get(timeline_url(match_id, hand)).json()["states"]
        assert len(states) == len(loads(text).hands[hand - 1].actions) + 1
        for ply in (0, 1, len(states) // 2, len(states) - 1):
            assert owner_api.get(f"/api/matches/{match_id}/hands/{hand}/states/{ply}/").json()["state"] == states[ply]


def test_it_sends_the_stored_gzip_to_clients_that_take_it(owner_api: APIClient, played: tuple[int, str]) -> None:
    match_id, _ = played
    plain_body = owner_api.get(timeline_url(match_id))
    zipped = owner_api.get(timeline_url(match_id), HTTP_ACCEPT_ENCODING="gzip, deflate")
    assert "Content-Encoding" not in plain_body and zipped["Content-Encoding"] == "gzip"
    assert len(zipped.content) * 5 < len(plain_body.content)
    assert json.loads(gzip.decompress(zipped.content)) == plain_body.json()
    assert "Accept-Encoding" in zipped["Vary"]


def test_a_client_holding_the_answer_gets_304_but_only_while_it_may_read_it(
    owner_api: APIClient, stranger_api: APIClient, played: tuple[int, str]
) -> None:
    match_id, _ = played
    etag = owner_api.get(timeline_url(match_id))["ETag"]
    again = owner_api.get(timeline_url(match_id), HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304 and again.content == b""
    assert owner_api.get(timeline_url(match_id, 2), HTTP_IF_NONE_MATCH=etag).status_code == 200  # another hand
    assert stranger_api.get(timeline_url(match_id), HTTP_IF_NONE_MATCH=etag).status_code == 404


def test_another_engine_version_makes_the_timeline_again(owner_api: APIClient, played: tuple[int, str]) -> None:
    match_id, _ = played
    owner_api.get(timeline_url(match_id))
    Hand.objects.filter(match_id=match_id, number=1).update(timeline_index={"engine": "0.9.0"})
    Match.objects.filter(pk=match_id).update(source=b"not a record", parsed="not a record")  # read form too
    response = owner_api.get(timeline_url(match_id))
    assert response.status_code == 409 and response.json()["extra"]["error"]["kind"] == "notation"


def test_listing_hands_does_not_load_their_stored_timelines(owner_api: APIClient, played: tuple[int, str]) -> None:
    match_id, _ = played
    owner_api.get(timeline_url(match_id))
    hand = Match.objects.get(pk=match_id).hands.first()
    assert hand is not None and {"timeline", "timeline_index"} <= hand.get_deferred_fields()


def test_the_canonical_brn_is_made_once_and_then_sent_as_stored(owner_api: APIClient, played: tuple[int, str]) -> None:
    match_id, _ = played
    first = owner_api.get(f"/api/matches/{match_id}/brn/")
    assert first.status_code == 200 and loads(first.content.decode())
    Match.objects.filter(pk=match_id).update(source=b"not a record", parsed="not a record")  # read form too
    assert owner_api.get(f"/api/matches/{match_id}/brn/").content == first.content
    Match.objects.filter(pk=match_id).update(canonical_engine="0.9.0")  # another engine writes it again
    assert owner_api.get(f"/api/matches/{match_id}/brn/").status_code == 409


def test_lists_do_not_load_the_stored_bytes(owner_api: APIClient, played: tuple[int, str]) -> None:
    match = Match.objects.with_status().get(pk=played[0])
    assert {"source", "canonical_brn"} <= match.get_deferred_fields()


def test_a_reader_who_may_not_read_the_match_makes_no_timeline_and_gets_404(
    owner_api: APIClient, stranger_api: APIClient, anonymous_api: APIClient, played: tuple[int, str]
) -> None:
    """The thin read path checks who may read before anything is replayed or stored."""
    match_id, text = played
    assert Hand.objects.filter(match_id=match_id, number=1).values_list("timeline", flat=True).get() is None
    for client in (stranger_api, anonymous_api):
        response = client.get(timeline_url(match_id))
        assert response.status_code == 404 and "states" not in response.json()
        assert client.get(timeline_url(match_id), {"share": "not-the-token"}).status_code == 404
    assert Hand.objects.filter(match_id=match_id, number=1).values_list("timeline", flat=True).get() is None
    token = owner_api.post(f"/api/matches/{match_id}/share-link/").json()["share_token"]
    opened = anonymous_api.get(timeline_url(match_id), {"share": token})
    assert opened.status_code == 200 and len(opened.json()["states"]) == len(timeline(loads(text), 0))
    assert stranger_api.get(timeline_url(match_id, hand=99)).status_code == 404

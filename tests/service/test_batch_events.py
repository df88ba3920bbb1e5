"""GET /api/batches/{id}/events/: a batch's verdicts and analyses as server-sent events, as
they finish, so that a client knows when work is done without polling each match."""

from __future__ import annotations

import json
from typing import Any

import pytest
from rest_framework.test import APIClient

from analysis.services import match_analyze
from records import services
from records.models import Match

from .conftest import record_text, zip_of
from .helpers import illegal_record, named


def parse(stream: bytes) -> list[tuple[str | None, str, Any]]:
    """(id, event, data) of each event of a text/event-stream."""
    events = []
    for block in stream.decode().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if "event" in fields:
            events.append((fields.get("id"), fields["event"], json.loads(fields["data"])))
    return events


def events_of(client: APIClient, batch: int, **headers: Any) -> list[tuple[str | None, str, Any]]:
    response = client.get(f"/api/batches/{batch}/events/", HTTP_ACCEPT="text/event-stream", **headers)
    assert response.status_code == 200 and response["Content-Type"].startswith("text/event-stream")
    return parse(b"".join(response.streaming_content))


def test_it_tells_each_verdict_and_analysis_then_that_the_batch_is_finished(owner_api: APIClient, upload: Any) -> None:
    texts = [record_text(hands=1, seed=961), illegal_record(seed=962).text]
    batch = upload(owner_api, ("a.brn", texts[0]), ("b.brn", texts[1])).json()
    ids = {m["file"]: m["id"] for m in batch["matches"]}
    events = events_of(owner_api, batch["batch"])
    kinds = [(name, data["match"], data["status"]) for _, name, data in events if name in ("verdict", "analysis")]
    assert sorted(kinds) == sorted([("verdict", ids["a.brn"], "verified"), ("verdict", ids["b.brn"], "invalid"),
                                    ("analysis", ids["a.brn"], "done"), ("analysis", ids["b.brn"], "done")])
    assert [ident for ident, name, _ in events if name in ("verdict", "analysis")] == ["1", "2", "3", "4"]
    assert events[0][1] == "progress" and events[-1][1] == "finished" and events[-1][2]["analysis_finished"]


def test_a_client_that_reconnects_gets_what_came_after_its_last_event(owner_api: APIClient, upload: Any) -> None:
    batch = upload(owner_api, ("a.brn", record_text(hands=1, seed=963)), ("b.brn", record_text(hands=1, seed=964)))
    every = events_of(owner_api, batch.json()["batch"])
    later = events_of(owner_api, batch.json()["batch"], HTTP_LAST_EVENT_ID="3")
    assert [e for e in later if e[0]] == [e for e in every if e[0] and int(e[0]) > 3]


def test_events_come_as_the_jobs_finish(owner_api: APIClient, settings: Any) -> None:
    settings.BURACO_EVENTS_POLL_SECONDS = 0
    # Stored with the jobs left waiting (the on_commit sends are not run here).
    batch = owner_api.post("/api/matches/", {"files": [named(zip_of({"a.brn": record_text(hands=1, seed=965)}),
                                                             "z.zip")]}, format="multipart").json()
    match_id = batch["matches"][0]["id"]
    stream = iter(owner_api.get(f"/api/batches/{batch['batch']}/events/").streaming_content)
    seen = [parse(next(stream)) for _ in range(2)]  # the retry line, then the progress
    assert seen[1][0][1] == "progress" and seen[1][0][2]["pending"] == 1
    services.match_verify(match_id=match_id)
    assert parse(next(stream)) == [("1", "verdict", {"match": match_id, "status": "verified"})]
    assert parse(next(stream))[0][1] == "progress"
    assert match_analyze(match_id=match_id) == "analysed"
    assert parse(next(stream)) == [("2", "analysis", {"match": match_id, "status": "done"})]
    assert [name for _, name, _ in parse(b"".join(stream))] == ["progress", "finished"]
    assert Match.objects.with_status().get(pk=match_id).status == "verified"  # type: ignore[attr-defined]


@pytest.mark.parametrize("persona", ["stranger", "anonymous"])
def test_only_the_batch_s_owner_gets_its_events(request: Any, owner_api: APIClient, upload: Any, persona: str) -> None:
    batch = upload(owner_api, ("a.brn", record_text(hands=1, seed=966)), ("b.brn", record_text(hands=1, seed=967)))
    answer = request.getfixturevalue(f"{persona}_api").get(f"/api/batches/{batch.json()['batch']}/events/")
    assert answer.status_code == 404 and set(answer.json()) == {"message", "extra"}

"""Luck apart from skill (issue 16, 4): the luck job runs after the analysis, on the lowest
queue, stores what the engine's draw_luck finds, and is served per hand (its own endpoint
and the hand's findings answer) and per player, with the match's permissions."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from buraco.analysis.luck import LUCK_VERSION, hand_luck
from buraco.cards import CARD_TEXT
from buraco.notation import loads
from luck.models import DrawLuck, SeatLuck
from luck.services import LUCK_KIND, LUCK_QUEUE, match_luck_job
from luck.tasks import luck_match
from records.jobs import kinds
from records.models import Job

from .conftest import record_text
from .helpers import (
    fast_passwords,  # noqa: F401  (a fixture)
    upload_one,
    with_players,
)

pytestmark = pytest.mark.usefixtures("fast_passwords")


def _r(value: Any) -> float | None:
    return None if value is None else round(float(value), 2)


def test_the_luck_job_is_a_kind_on_the_lowest_queue() -> None:
    assert LUCK_KIND in kinds()
    assert settings.BURACO_QUEUES[-1] == LUCK_QUEUE
    assert any(LUCK_QUEUE in lane for lane in settings.BURACO_EMBEDDED_LANES)


def test_it_runs_after_the_analysis_and_stores_what_the_engine_finds(owner_api: APIClient, upload: Any) -> None:
    text = with_players(record_text("cerrado", hands=2, seed=91, mistakes=0.3), "Ana", "Bo")
    match_id = upload_one(upload, owner_api, text)
    analysis = Job.objects.get(match_id=match_id, kind=Job.Kind.ANALYZE)
    job = Job.objects.get(match_id=match_id, kind=LUCK_KIND)
    assert (analysis.status, job.status, job.queue, job.version) == ("done", "done", LUCK_QUEUE, LUCK_VERSION)
    assert job.enqueued_at >= analysis.finished_at  # queued once the analysis was stored
    assert job.result["partial"] is False and job.result["unsearched"] == 0

    record = loads(text)
    for index in range(len(record.hands)):
        engine = hand_luck(record, index)
        body = owner_api.get(f"/api/matches/{match_id}/hands/{index + 1}/luck/").json()
        assert body["job"]["status"] == "done"
        luck = body["luck"]
        assert luck["luck"] == _r(engine.luck)
        assert [(d["ply"], d["seat"], d["card"], d["value"], d["expected"], d["luck"], d["judged"]) for d in luck["draws"]] == [
            (d.ply, d.seat, CARD_TEXT[d.card], d.value, _r(d.expected), _r(d.luck), d.judged) for d in engine.draws
        ]
        for seat in luck["seats"]:
            side = engine.side_of[seat["seat"]]
            assert seat["luck"] == _r(engine.by_seat[seat["seat"]])
            assert seat["score"] == engine.scores[side]
            assert seat["adjusted"] == _r(engine.adjusted(side))
            assert seat["player"] == ["Ana", "Bo"][seat["seat"] - 1]
        # The hand's findings answer carries the same luck.
        findings = owner_api.get(f"/api/matches/{match_id}/hands/{index + 1}/findings/").json()
        assert findings["luck"] == luck


def test_the_job_runs_once_and_again_replaces_its_rows(owner_api: APIClient, upload: Any) -> None:
    match_id = upload_one(upload, owner_api, record_text("burraco", hands=1, seed=92))
    rows = (SeatLuck.objects.filter(match_id=match_id).count(), DrawLuck.objects.filter(match_id=match_id).count())
    assert rows[0] == 2 and rows[1] > 0
    assert luck_match.apply(args=(match_id,)).get() == "skipped"  # delivered again: done already
    Job.objects.filter(match_id=match_id, kind=LUCK_KIND).update(status=Job.Status.PENDING)
    assert match_luck_job(match_id=match_id) == "judged"
    assert (SeatLuck.objects.filter(match_id=match_id).count(), DrawLuck.objects.filter(match_id=match_id).count()) == rows


def test_a_spent_budget_stores_the_draws_unjudged(owner_api: APIClient, upload: Any, settings: Any) -> None:
    settings.BURACO_LUCK_MATCH_SECONDS = 0.0
    match_id = upload_one(upload, owner_api, record_text("cerrado", hands=1, seed=93))
    job = Job.objects.get(match_id=match_id, kind=LUCK_KIND)
    assert job.status == "done" and job.result["partial"] and job.result["unsearched"] > 0
    body = owner_api.get(f"/api/matches/{match_id}/hands/1/luck/").json()
    assert body["luck"]["partial"] and all(not d["judged"] and d["luck"] is None for d in body["luck"]["draws"])
    assert sum(s["unsearched"] for s in body["luck"]["seats"]) == len(body["luck"]["draws"])


def test_luck_is_null_until_the_job_is_done(owner_api: APIClient, upload: Any) -> None:
    match_id = upload_one(upload, owner_api, record_text("cerrado", hands=1, seed=94))
    Job.objects.filter(match_id=match_id, kind=LUCK_KIND).update(status=Job.Status.PENDING)
    assert owner_api.get(f"/api/matches/{match_id}/hands/1/luck/").json()["luck"] is None
    assert owner_api.get(f"/api/matches/{match_id}/hands/1/findings/").json()["luck"] is None


def test_a_stranger_sees_no_luck_of_a_private_match(
    owner_api: APIClient, stranger_api: APIClient, anonymous_api: APIClient, upload: Any
) -> None:
    text = with_players(record_text("cerrado", hands=1, seed=95), "Ana", "Bo")
    match_id = upload_one(upload, owner_api, text)
    for client in (stranger_api, anonymous_api):
        assert client.get(f"/api/matches/{match_id}/hands/1/luck/").status_code == 404
        assert client.get(f"/api/matches/{match_id}/hands/1/findings/").status_code == 404
        assert client.get("/api/players/ana/").status_code == 404
    assert owner_api.get(f"/api/matches/{match_id}/hands/2/luck/").status_code == 404  # no such hand
    token = owner_api.post(f"/api/matches/{match_id}/share-link/").json()["share_token"]
    shared = anonymous_api.get(f"/api/matches/{match_id}/hands/1/luck/", {"share": token})
    assert shared.status_code == 200 and shared.json()["luck"] is not None


def test_the_player_has_the_sum_of_their_luck_and_the_luck_adjusted_result(owner_api: APIClient, upload: Any) -> None:
    texts = [with_players(record_text("cerrado", hands=2, seed=96), "Ana", "Bo"),
             with_players(record_text("burraco", hands=1, seed=97), "Bo", "Ana")]
    luck = score = side_luck = 0.0
    draws = 0
    for text in texts:
        upload_one(upload, owner_api, text)
        record = loads(text)
        seat = [p.lower() for p in record.players].index("ana") + 1
        for index in range(len(record.hands)):
            hand = hand_luck(record, index)
            side = hand.side_of[seat]
            luck += float(hand.by_seat[seat])
            side_luck += float(hand.side_luck(side))
            score += hand.scores[side]
            draws += sum(1 for d in hand.draws if d.seat == seat and d.judged)
    body = owner_api.get("/api/players/ana/").json()["luck"]
    assert body["luck"] == round(luck, 2) and body["score"] == score and body["draws"] == draws
    assert body["adjusted"] == round(score - side_luck, 2) and body["hands"] == 3 and body["unsearched"] == 0


def test_the_match_page_shows_each_hands_luck_as_the_api_answers_it(
    owner: Any, owner_api: APIClient, upload: Any, client: Any
) -> None:
    import re

    text = with_players(record_text("cerrado", hands=2, seed=91, mistakes=0.3), "Ana", "Bo")
    match_id = upload_one(upload, owner_api, text)
    client.force_login(owner)
    page = client.get(f"/matches/{match_id}/").content.decode()
    for number in (1, 2):
        luck = owner_api.get(f"/api/matches/{match_id}/hands/{number}/luck/").json()["luck"]
        section = page.split(f'id="luck-hand-{number}"', 1)[1].split("</details>", 1)[0]
        assert f"{luck['luck']} points in all" in section
        rows = re.findall(r"<tr><td>p(\d)</td><td>.*?>(\w+)</a></td>\s*<td><strong>([-\d.]+)</strong></td><td>(\d+)",
                          section, re.S)
        assert len(rows) == 2 and rows == [(str(s["seat"]), s["player"], str(s["luck"]), str(s["draws"])) for s in luck["seats"]]
        assert all(f"<td>{s['adjusted']}</td>" in section for s in luck["seats"])
    Job.objects.filter(match_id=match_id, kind=LUCK_KIND).update(status=Job.Status.PENDING)
    assert 'id="luck-hand-1"' not in client.get(f"/matches/{match_id}/").content.decode()  # not judged yet


def test_the_schema_has_the_luck_endpoint(anonymous_api: APIClient) -> None:
    schema = anonymous_api.get("/api/schema/", {"format": "json"}).json()
    assert "/api/matches/{match_id}/hands/{hand}/luck/" in schema["paths"]
    assert "luck" in schema["components"]["schemas"]["HandFindings"]["properties"]
    assert "luck" in schema["components"]["schemas"]["Player"]["properties"]

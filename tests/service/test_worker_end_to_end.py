"""End to end under CI: a batch through the API, verified by a real worker on PostgreSQL."""

from __future__ import annotations

import time
from typing import Any

import pytest
from rest_framework.test import APIClient

from buraco.notation import loads
from buraco.replay import verify
from buraco.rules import VARIANTS
from records.models import Match

from .conftest import record_text, requires_broker, requires_postgres, running_worker, zip_of

pytestmark = [pytest.mark.worker, pytest.mark.postgres, requires_postgres, requires_broker]


def wait_for_batch(client: APIClient, batch: int, seconds: float = 240) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        progress = client.get(f"/api/batches/{batch}/").json()
        if progress["finished"]:
            return progress
        time.sleep(0.5)
    raise AssertionError(f"batch {batch} did not finish in {seconds} s: {progress}")


def test_it_verifies_a_200_hand_batch_in_a_real_worker(worker: Any, owner_api: APIClient) -> None:
    variants = list(VARIANTS)
    texts = {
        f"match-{i:03}.brn": record_text(variants[i % len(variants)], players=2, hands=2, seed=i,
                                         mistakes=0.3 if i % 5 == 0 else 0.0)
        for i in range(100)
    }
    assert sum(len(loads(t).hands) for t in texts.values()) == 200
    response = owner_api.post("/api/matches/", {"files": [_named(zip_of(texts), "batch.zip")]}, format="multipart")
    assert response.status_code == 202, response.content
    batch = response.json()["batch"]
    assert response.json()["total"] == 100

    progress = wait_for_batch(owner_api, batch)
    assert progress["done"] == 100 and progress["failed"] == 0

    for item in response.json()["matches"]:
        detail = owner_api.get(f"/api/matches/{item['id']}/").json()
        expected = verify(loads(texts[item["file"].split("/")[-1]]))
        assert detail["status"] == "verified"
        assert detail["valid"] is expected.valid
        assert detail["scores_match"] is expected.scores_match
        assert detail["totals"] == expected.totals
        assert [h["scores"] for h in detail["hands"]] == [h.scores for h in expected.hands]
        assert [len(h["mismatches"]) for h in detail["hands"]] == [len(h.mismatches) for h in expected.hands]
        assert detail["engine_version"]


def test_a_users_own_upload_is_verified_by_the_worker_too(worker: Any, owner_api: APIClient) -> None:
    text = record_text("brasil", players=3, hands=1, seed=4)
    response = owner_api.post("/api/matches/", {"file": _named(text.encode(), "one.brn")}, format="multipart")
    # Answered before the job ends (a fast worker may have claimed it meanwhile).
    assert response.status_code == 202 and response.json()["status"] in ("pending", "verifying")
    match = response.json()["id"]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        detail = owner_api.get(f"/api/matches/{match}/").json()
        if detail["status"] not in ("pending", "verifying"):
            break
        time.sleep(0.2)
    assert detail["status"] == "verified"
    assert detail["totals"] == verify(loads(text)).totals
    status = owner_api.get("/api/status/").json()
    assert status["broker"] == "redis"
    assert status["queues"]["interactive"]["waiting"] == 0


def _named(content: bytes, name: str) -> Any:
    import io

    handle = io.BytesIO(content)
    handle.name = name
    return handle


def test_a_users_own_uploads_go_ahead_of_a_bulk_backlog(broker: str, owner_api: APIClient) -> None:
    """Jobs wait in the broker while no worker runs; one worker then takes the
    interactive queue first, whatever was queued before."""
    variants = list(VARIANTS)
    backlog = {f"bulk-{i:02}.brn": record_text(variants[i % len(variants)], hands=1, seed=500 + i) for i in range(40)}
    batch = owner_api.post(
        "/api/matches/", {"files": [_named(zip_of(backlog), "backlog.zip")]}, format="multipart"
    ).json()["batch"]
    mine = [
        owner_api.post(
            "/api/matches/", {"file": _named(record_text("cerrado", hands=1, seed=900 + i).encode(), f"m{i}.brn")},
            format="multipart",
        ).json()["id"]
        for i in range(5)
    ]
    with running_worker(concurrency=1):
        wait_for_batch(owner_api, batch, seconds=120)
    verified = {m.pk: m.verified_at for m in Match.objects.all()}
    last_of_mine = max(verified[pk] for pk in mine)
    bulk_before = sum(1 for pk, at in verified.items() if pk not in mine and at < last_of_mine)
    assert bulk_before <= 1, f"{bulk_before} bulk jobs were verified before the user's own uploads"

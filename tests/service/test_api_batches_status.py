"""Batch progress, the queues (/api/status/ and who goes where) and `manage.py reverify`."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

import buraco
from records import services
from records.models import Job, Match
from records.tasks import run_chunk, verify_match

from .conftest import record_text, zip_of
from .helpers import (
    fast_passwords,  # noqa: F401  (a fixture)
    illegal_record,
    job_of,
    named,
    status_of,
    upload_one,
)

pytestmark = pytest.mark.usefixtures("fast_passwords")

QUEUES = ("interactive", "bulk", "analysis", "reverify", "luck")


def progress(client: APIClient, batch: int) -> dict[str, Any]:
    response = client.get(f"/api/batches/{batch}/")
    assert response.status_code == 200, response.content
    return response.json()


def status(client: APIClient) -> dict[str, Any]:
    response = client.get("/api/status/")
    assert response.status_code == 200, response.content
    return response.json()


# --- batch progress ------------------------------------------------------------------


def test_it_reports_a_batchs_progress_once_verified(owner_api: APIClient, upload: Any) -> None:
    files = {
        "a.brn": record_text(hands=1, seed=301),
        "b.brn": record_text("brasil", players=3, hands=1, seed=302),
        "c.brn": illegal_record(seed=303).text,
    }
    body = upload(owner_api, ("night.zip", zip_of(files)), label="Thursday").json()
    state = progress(owner_api, body["batch"])

    assert state["id"] == body["batch"]
    assert state["label"] == "Thursday"
    assert (state["total"], state["done"], state["failed"]) == (3, 3, 0)
    assert (state["verified"], state["invalid"], state["pending"]) == (2, 1, 0)
    assert state["finished"] is True


def test_it_reports_a_batch_waiting_for_its_worker(owner_api: APIClient) -> None:
    files = [named(record_text(hands=1, seed=304 + i), f"m{i}.brn") for i in range(3)]
    body = owner_api.post("/api/matches/", {"files": files}, format="multipart").json()  # jobs never run
    state = progress(owner_api, body["batch"])
    assert (state["total"], state["done"], state["failed"], state["pending"]) == (3, 0, 0, 3)
    assert state["finished"] is False


def test_it_counts_a_match_the_worker_could_not_finish_as_failed(
    owner_api: APIClient, upload: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = record_text(hands=1, seed=307)
    real_verify = services.verify

    def verify_or_break(record: Any) -> Any:
        if record.source == broken:
            raise RuntimeError("the engine broke")
        return real_verify(record)

    monkeypatch.setattr(services, "verify", verify_or_break)
    body = upload(owner_api, ("ok.brn", record_text(hands=1, seed=308)), ("broken.brn", broken)).json()
    state = progress(owner_api, body["batch"])

    assert (state["total"], state["done"], state["failed"], state["pending"]) == (2, 1, 1, 0)
    assert state["finished"] is True
    failed = Match.objects.get(filename="broken.brn")
    assert status_of(failed.pk) == "failed"
    assert "the engine broke" in job_of(failed.pk).error["message"]
    assert "the engine broke" in owner_api.get(f"/api/matches/{failed.pk}/").json()["error"]["message"]


@pytest.mark.parametrize("persona", ["stranger_api", "coach_api", "anonymous_api"])
def test_it_shows_a_batch_to_its_owner_only(request: Any, owner_api: APIClient, upload: Any, persona: str) -> None:
    body = upload(owner_api, ("a.brn", record_text(hands=1, seed=309)), ("b.brn", record_text(hands=1, seed=310))).json()
    for match in body["matches"]:  # even when its matches are shared or public
        owner_api.post(f"/api/matches/{match['id']}/shared-with/", {"username": "coach"}, format="json")
    Match.objects.filter(batch_id=body["batch"]).update(visibility="public")

    response = request.getfixturevalue(persona).get(f"/api/batches/{body['batch']}/")
    assert response.status_code == 404
    assert set(response.json()) == {"message", "extra"}


def test_it_answers_404_for_a_batch_that_does_not_exist(owner_api: APIClient) -> None:
    assert owner_api.get("/api/batches/999999/").status_code == 404


def test_it_finishes_a_batch_that_repeats_an_earlier_upload(owner_api: APIClient, upload: Any) -> None:
    again = record_text(hands=1, seed=311)
    upload_one(upload, owner_api, again, "first.brn")
    body = upload(owner_api, ("again.brn", again), ("new.brn", record_text(hands=1, seed=312))).json()
    assert (body["total"], body["duplicates"]) == (1, 1)  # the batch verifies what it stored
    state = progress(owner_api, body["batch"])
    assert state["done"] + state["failed"] == state["total"]
    assert state["pending"] == 0
    assert state["finished"] is True


def test_it_finishes_a_batch_holding_the_same_record_twice(owner_api: APIClient, upload: Any) -> None:
    text = record_text(hands=1, seed=313)
    body = upload(owner_api, ("twice.zip", zip_of({"a.brn": text, "copy/a.brn": text, "b.brn": record_text(hands=1, seed=314)}))).json()
    state = progress(owner_api, body["batch"])
    assert state["done"] + state["failed"] == state["total"]
    assert state["finished"] is True


def test_it_keeps_a_finished_batch_finished_when_one_of_its_matches_is_deleted(
    owner_api: APIClient, upload: Any
) -> None:
    body = upload(owner_api, ("a.brn", record_text(hands=1, seed=315)), ("b.brn", record_text(hands=1, seed=316))).json()
    assert progress(owner_api, body["batch"])["finished"] is True
    assert owner_api.delete(f"/api/matches/{body['matches'][0]['id']}/").status_code == 204
    state = progress(owner_api, body["batch"])
    assert state["pending"] == 0
    assert state["finished"] is True


# --- queues --------------------------------------------------------------------------


def test_it_reports_every_queue_and_the_oldest_waiting_job(anonymous_api: APIClient) -> None:
    body = status(anonymous_api)
    assert body["broker"] == "in-process"
    assert set(body["queues"]) >= set(QUEUES)
    for name in QUEUES:
        queue = body["queues"][name]
        assert queue["waiting"] == 0
        assert "oldest_age_seconds" in queue and queue["oldest_age_seconds"] is None
    assert "oldest_waiting_age_seconds" in body and body["oldest_waiting_age_seconds"] is None


def test_it_counts_waiting_jobs_per_queue(owner_api: APIClient, anonymous_api: APIClient) -> None:
    owner_api.post("/api/matches/", {"file": named(record_text(hands=1, seed=320), "own.brn")}, format="multipart")
    zipped = zip_of({f"m{i}.brn": record_text(hands=1, seed=321 + i) for i in range(2)})
    owner_api.post("/api/matches/", {"files": [named(zipped, "bulk.zip")]}, format="multipart")

    body = status(anonymous_api)  # the jobs were never run: they wait
    assert body["queues"]["interactive"]["waiting"] == 1
    assert body["queues"]["bulk"]["waiting"] == 2
    assert body["queues"]["reverify"]["waiting"] == 0
    assert body["queues"]["bulk"]["oldest_age_seconds"] >= 0
    assert body["queues"]["reverify"]["oldest_age_seconds"] is None
    assert body["oldest_waiting_age_seconds"] >= 0
    assert body["oldest_waiting_age_seconds"] >= max(
        body["queues"][q]["oldest_age_seconds"] for q in ("interactive", "bulk")
    )


def test_it_empties_the_queues_once_verified(owner_api: APIClient, anonymous_api: APIClient, upload: Any) -> None:
    upload_one(upload, owner_api, record_text(hands=1, seed=325))
    body = status(anonymous_api)
    assert all(body["queues"][q]["waiting"] == 0 for q in QUEUES)
    assert body["oldest_waiting_age_seconds"] is None


def test_it_sends_a_users_own_upload_ahead_of_bulk_work(
    owner_api: APIClient, upload: Any, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    sent: list[tuple[int, str]] = []
    monkeypatch.setattr(verify_match, "apply_async", lambda args, queue: sent.append((args[0], queue)))
    # A batch's verifies go several to a message (records.jobs.run_chunk): each id, in order.
    monkeypatch.setattr(run_chunk, "apply_async", lambda args, queue: sent.extend((i, queue) for i in args[1]))

    one = upload(owner_api, ("own.brn", record_text(hands=1, seed=330))).json()
    many = upload(owner_api, ("a.brn", record_text(hands=1, seed=331)), ("b.brn", record_text(hands=1, seed=332))).json()
    assert sent == [(one["id"], "interactive")] + [(m["id"], "bulk") for m in many["matches"]]

    sent.clear()
    Job.objects.filter(match_id=one["id"], kind="verify").update(status="done")
    Match.objects.filter(pk=one["id"]).update(valid=True, engine_version="0.0.1")
    with django_capture_on_commit_callbacks(execute=True):
        call_command("reverify", stdout=io.StringIO())
    assert sent == [(one["id"], "reverify")]


def test_it_names_the_same_queues_in_the_same_order_everywhere() -> None:
    """Workers check queues in the order they list them: settings, `make worker`, the README
    and the test worker agree."""
    import re

    from django.conf import settings

    from .conftest import ROOT, WORKER_QUEUES

    assert ",".join(settings.BURACO_QUEUES) == WORKER_QUEUES
    assert set(QUEUES) == set(settings.BURACO_QUEUES)
    for name in ("Makefile", "README.md"):
        lists = re.findall(r"-Q (interactive,[a-z,]+)", (ROOT / name).read_text())
        assert lists and set(lists) == {WORKER_QUEUES}, (name, lists)


# --- manage.py reverify --------------------------------------------------------------


def test_it_reverifies_matches_of_an_older_engine_and_leaves_current_ones_alone(
    owner_api: APIClient, upload: Any, django_capture_on_commit_callbacks: Any
) -> None:
    old_valid = upload_one(upload, owner_api, record_text(hands=1, seed=340))
    old_invalid = upload_one(upload, owner_api, illegal_record(seed=341).text)
    current = upload_one(upload, owner_api, record_text(hands=1, seed=342))
    Match.objects.filter(pk__in=[old_valid, old_invalid]).update(engine_version="0.0.1")
    before = {m.pk: (m.verified_at, job_of(m.pk).attempts) for m in Match.objects.all()}

    out = io.StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("reverify", stdout=out)

    assert "queued 2" in out.getvalue()
    after = {m.pk: m for m in Match.objects.with_status()}
    assert after[old_valid].status == "verified"
    assert after[old_invalid].status == "invalid"
    for pk in (old_valid, old_invalid):
        assert after[pk].engine_version == buraco.__version__
        assert after[pk].verified_at > before[pk][0]
        assert job_of(pk).attempts == before[pk][1] + 1
        assert job_of(pk).queue == "reverify"
    assert after[current].verified_at == before[current][0]
    assert job_of(current).attempts == before[current][1]
    assert job_of(current).queue == "interactive"
    assert owner_api.get(f"/api/matches/{old_valid}/").json()["engine_version"] == buraco.__version__


def test_it_reverifies_nothing_when_every_match_is_current(
    owner_api: APIClient, upload: Any, django_capture_on_commit_callbacks: Any
) -> None:
    match_id = upload_one(upload, owner_api, record_text(hands=1, seed=343))
    before = Match.objects.get(pk=match_id).verified_at
    out = io.StringIO()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        call_command("reverify", stdout=out)
    assert "queued 0" in out.getvalue()
    assert callbacks == []
    assert Match.objects.get(pk=match_id).verified_at == before


def test_it_puts_reverification_on_its_own_queue(
    owner_api: APIClient, anonymous_api: APIClient, upload: Any, django_capture_on_commit_callbacks: Any
) -> None:
    match_id = upload_one(upload, owner_api, record_text(hands=1, seed=344))
    Match.objects.filter(pk=match_id).update(engine_version="0.0.1")
    with django_capture_on_commit_callbacks(execute=False):  # queued, not yet run
        call_command("reverify", stdout=io.StringIO())
    assert status_of(match_id) == "pending"
    body = status(anonymous_api)
    assert body["queues"]["reverify"]["waiting"] == 1
    assert body["queues"]["interactive"]["waiting"] == 0


def test_it_retries_failed_matches_unless_told_to_skip_them(
    owner_api: APIClient, upload: Any, django_capture_on_commit_callbacks: Any
) -> None:
    match_id = upload_one(upload, owner_api, record_text(hands=1, seed=345))
    Job.objects.filter(match_id=match_id, kind="verify").update(
        status="failed", error={"kind": "failed", "message": "time limit"}
    )

    with django_capture_on_commit_callbacks(execute=True):
        call_command("reverify", "--skip-failed", stdout=io.StringIO())
    assert status_of(match_id) == "failed"

    with django_capture_on_commit_callbacks(execute=True):
        call_command("reverify", stdout=io.StringIO())
    assert status_of(match_id) == "verified"
    assert job_of(match_id).error is None
    assert Match.objects.get(pk=match_id).error is None

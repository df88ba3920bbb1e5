"""Progress on the pages: the match page keeps refreshing while its analysis is pending or
running; a batch's progress (its page and GET /api/batches/{id}/) counts the analyses of its
matches beside their verification."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from records import selectors
from records.jobs import job_claim, job_fail
from records.models import Batch, Job

from .conftest import record_text
from .helpers import (
    fast_passwords,  # noqa: F401  (a fixture)
    illegal_record,
    logged_in,
    named,
    upload_one,
)

pytestmark = pytest.mark.usefixtures("fast_passwords")

RELOAD = "location.reload()"


def analysis_pending(*match_ids: int) -> None:
    Job.objects.filter(match_id__in=match_ids, kind=Job.Kind.ANALYZE).update(
        status=Job.Status.PENDING, finished_at=None, version="")


@pytest.mark.parametrize("running", [False, True])
def test_it_refreshes_the_match_page_while_its_analysis_is_not_done(
    owner: User, owner_api: APIClient, upload: Any, running: bool
) -> None:
    match_id = upload_one(upload, owner_api, record_text(hands=1, seed=901))
    client = logged_in(owner)
    done = client.get(f"/matches/{match_id}/").content.decode()
    assert 'id="match-status">verified<' in done and RELOAD not in done

    analysis_pending(match_id)
    if running:
        assert job_claim(match_id=match_id, kind=Job.Kind.ANALYZE)
    body = client.get(f"/matches/{match_id}/").content.decode()
    assert f'id="analysis-status">Analysis: {"running" if running else "pending"}' in body
    assert RELOAD in body
    assert 'id="analysis-progress"' in body and "this page refreshes itself" in body

    if running:
        job_fail(match_id=match_id, kind=Job.Kind.ANALYZE, reason="the analysis broke")
        failed = client.get(f"/matches/{match_id}/").content.decode()
        assert "Analysis: failed" in failed and RELOAD not in failed


def test_it_counts_a_batchs_analyses_beside_its_verification(owner: User, owner_api: APIClient, upload: Any) -> None:
    body = upload(owner_api, *[(f"m{i}.brn", record_text(hands=1, seed=910 + i)) for i in range(3)],
                  ("bad.brn", illegal_record(seed=913).text)).json()
    first, second, third, invalid = [m["id"] for m in body["matches"]]
    analysis_pending(second, third)
    assert job_claim(match_id=second, kind=Job.Kind.ANALYZE)
    assert job_claim(match_id=invalid, kind=Job.Kind.ANALYZE) is False  # analysed already: done
    Job.objects.filter(match_id=invalid, kind=Job.Kind.ANALYZE).update(status=Job.Status.FAILED)

    state = owner_api.get(f"/api/batches/{body['batch']}/").json()
    # What the API said before stays as it was.
    assert {k: state[k] for k in ("total", "done", "failed", "verified", "invalid", "pending", "finished")} == {
        "total": 4, "done": 4, "failed": 0, "verified": 3, "invalid": 1, "pending": 0, "finished": True}
    assert {k: state[k] for k in ("analysed", "analysing", "analysis_waiting", "analysis_failed")} == {
        "analysed": 1, "analysing": 1, "analysis_waiting": 1, "analysis_failed": 1}
    assert state["analysis_finished"] is False
    assert selectors.batch_progress(batch=Batch.objects.get(pk=body["batch"])) == {
        **state, "created_at": Batch.objects.get(pk=body["batch"]).created_at}

    text = " ".join(logged_in(owner).get(f"/batches/{body['batch']}/").content.decode().split())
    assert 'id="analysis-text">1 analysed, 1 analysing, 1 waiting, 1 failed' in text

    Job.objects.filter(match_id__in=[second, third], kind=Job.Kind.ANALYZE).update(status=Job.Status.DONE)
    assert owner_api.get(f"/api/batches/{body['batch']}/").json()["analysis_finished"] is True


def test_it_does_not_call_a_batch_analysed_before_its_matches_are_verified(owner_api: APIClient) -> None:
    files = [named(record_text(hands=1, seed=920 + i), f"m{i}.brn") for i in range(2)]
    batch = owner_api.post("/api/matches/", {"files": files}, format="multipart").json()["batch"]  # never run
    state = owner_api.get(f"/api/batches/{batch}/").json()
    assert (state["analysed"], state["analysing"], state["analysis_waiting"], state["analysis_failed"]) == (0, 0, 0, 0)
    assert state["finished"] is False and state["analysis_finished"] is False

"""Progress as a browser shows it: the match page refreshes itself until the match's
analysis is done, not only until its verdict; the batch page counts the analyses beside
the verification, from GET /api/batches/{id}/ as it polls."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any, TypeVar

import pytest
from django.db.utils import OperationalError

from analysis import services as analysis_services
from analysis.models import Finding
from buraco.analysis import analyze
from buraco.notation import dumps, loads
from buraco.selfplay import play_match
from records.jobs import job_claim, job_fail
from records.models import Batch, Job, Match

from .test_replay import RECORD, upload

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

T = TypeVar("T")


def written(work: Callable[[], T]) -> T:
    """``work()``, a write, tried again while SQLite reports a locked table: its shared-cache
    in-memory test database locks a table (at once, with no busy wait) while the live server
    reads it for the page that polls. PostgreSQL never refuses here."""
    for _ in range(100):
        try:
            return work()
        except OperationalError as error:
            if "locked" not in str(error):
                raise
            time.sleep(0.02)
    return work()


def analysis_back_to_pending(match_ids: list[int]) -> None:
    """As if the analysis worker had not yet come to these matches (the upload ran it inline)."""
    Finding.objects.filter(match_id__in=match_ids).delete()
    Job.objects.filter(match_id__in=match_ids, kind=Job.Kind.ANALYZE).update(
        status=Job.Status.PENDING, version="", finished_at=None, claimed_at=None, claimed_by="")


def test_the_match_page_refreshes_until_the_analysis_is_done(new_page: Any, player: Any) -> None:
    page = new_page()
    match_id = upload(page, player)
    analysis_back_to_pending([match_id])  # the page is not open yet: nothing polls
    page.goto(f"/matches/{match_id}/")
    assert "pending" in page.inner_text("#analysis-status")
    assert written(lambda: job_claim(match_id=match_id, kind=Job.Kind.ANALYZE))
    page.wait_for_function("document.getElementById('analysis-status').textContent.includes('running')")
    findings = analyze(loads(RECORD))
    written(lambda: analysis_services.findings_store(match_id=match_id, findings=findings))  # the claim's run ends
    page.wait_for_function("document.getElementById('analysis-status').textContent.includes('done')")
    assert Finding.objects.filter(match_id=match_id).exists()
    assert page.locator(".findings").count() >= 1, "the reloaded page lists the findings"
    assert page.errors == []


def test_the_batch_page_counts_the_analyses_as_they_run(new_page: Any, player: Any) -> None:
    page = new_page()
    upload(page, player)  # logs in
    page.goto("/upload/")
    files = [{"name": f"night-{seed}.brn", "mimeType": "text/plain",
              "buffer": dumps(play_match("cerrado", players=2, hands=1, seed=seed)).encode()} for seed in (21, 22)]
    page.set_input_files("input[type=file]", files=files)
    page.locator("main form button[type=submit]").click()
    page.wait_for_url(re.compile(r"/batches/\d+/$"))
    batch = Batch.objects.get()
    first, second = batch.matches.order_by("id").values_list("id", flat=True)
    written(lambda: analysis_back_to_pending([first, second]))
    page.reload()
    text = lambda: " ".join(page.inner_text("#analysis-text").split())  # noqa: E731
    assert "0 analysed, 0 analysing, 2 waiting, 0 failed" in text()
    assert written(lambda: job_claim(match_id=first, kind=Job.Kind.ANALYZE))
    page.wait_for_function("document.getElementById('analysis-text').textContent.includes('1 analysing')")
    assert written(lambda: job_claim(match_id=second, kind=Job.Kind.ANALYZE))
    found = analyze(loads(bytes(Match.objects.only("source").get(pk=second).source)))
    written(lambda: analysis_services.findings_store(match_id=second, findings=found))
    page.wait_for_function("document.getElementById('analysis-text').textContent.includes('1 analysed')")
    written(lambda: job_fail(match_id=first, kind=Job.Kind.ANALYZE, reason="the analysis broke"))
    page.wait_for_function("document.getElementById('analysis-text').textContent.includes('1 failed')")
    assert "1 analysed, 0 analysing, 0 waiting, 1 failed" in text()
    assert "2 done (2 verified, 0 invalid)" in " ".join(page.inner_text("#progress-text").split())
    assert page.errors == []

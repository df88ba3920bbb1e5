"""`manage.py reanalyze`: analyses again what an older analysis version found (and failed or
missing analyses), on the analysis queue, which /api/status/ reports."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from analysis.models import Finding
from analysis.tasks import analyze_match
from buraco.analysis import ANALYSIS_VERSION, analyze
from buraco.notation import loads
from records.models import Job

from .conftest import record_text
from .helpers import (
    fast_passwords,  # noqa: F401  (a fixture)
    job_of,
    named,
    upload_one,
)

pytestmark = pytest.mark.usefixtures("fast_passwords")


def reanalyze(*args: str) -> str:
    out = io.StringIO()
    call_command("reanalyze", *args, stdout=out)
    return out.getvalue()


def make_outdated(match_id: int) -> None:
    """As if an older analysis version had stored this match's findings."""
    Job.objects.filter(match_id=match_id, kind="analyze").update(version="0")
    Finding.objects.filter(match_id=match_id).update(version="0", message="found by version 0")


def test_it_reanalyses_matches_of_an_older_analysis_and_leaves_current_ones_alone(
    owner_api: APIClient, upload: Any, django_capture_on_commit_callbacks: Any
) -> None:
    old_text = record_text("cerrado", hands=2, seed=81, mistakes=1.0)
    old = upload_one(upload, owner_api, old_text)
    current = upload_one(upload, owner_api, record_text("cerrado", hands=1, seed=82, mistakes=1.0))
    make_outdated(old)
    before = job_of(current, "analyze")

    with django_capture_on_commit_callbacks(execute=True):
        out = reanalyze()

    assert "queued 1" in out
    job = job_of(old, "analyze")
    assert (job.status, job.version, job.queue, job.attempts) == ("done", ANALYSIS_VERSION, "analysis", 2)
    body = owner_api.get(f"/api/matches/{old}/findings/?page_size=500").json()
    assert body["results"] == [f.as_dict() for f in analyze(loads(old_text))]
    assert body["analysis"] == {"status": "done", "version": ANALYSIS_VERSION, "partial": False, "unsearched": []}
    assert not Finding.objects.filter(version="0").exists()
    after = job_of(current, "analyze")
    assert (after.attempts, after.finished_at) == (before.attempts, before.finished_at)


def test_it_reanalyses_nothing_when_every_analysis_is_current(
    owner_api: APIClient, upload: Any, django_capture_on_commit_callbacks: Any
) -> None:
    upload_one(upload, owner_api, record_text(hands=1, seed=83))
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        out = reanalyze()
    assert "queued 0" in out
    assert callbacks == []


def test_it_retries_failed_analyses_unless_told_to_skip_them(
    owner_api: APIClient, upload: Any, django_capture_on_commit_callbacks: Any
) -> None:
    match_id = upload_one(upload, owner_api, record_text(hands=1, seed=84))
    Job.objects.filter(match_id=match_id, kind="analyze").update(
        status="failed", error={"kind": "failed", "message": "time limit"}
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert "queued 0" in reanalyze("--skip-failed")
    assert job_of(match_id, "analyze").status == "failed"
    with django_capture_on_commit_callbacks(execute=True):
        assert "queued 1" in reanalyze()
    job = job_of(match_id, "analyze")
    assert job.status == "done" and job.error is None


def test_it_analyses_verified_matches_that_were_never_analysed(
    owner_api: APIClient, upload: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """Matches verified before analysis existed have no analysis job (the migration made none)."""
    text = record_text(hands=2, seed=85, mistakes=1.0)
    match_id = upload_one(upload, owner_api, text)
    Job.objects.filter(match_id=match_id, kind="analyze").delete()
    Finding.objects.filter(match_id=match_id).delete()
    unverified = owner_api.post(
        "/api/matches/", {"file": named(record_text(hands=1, seed=86), "later.brn")}, format="multipart"
    ).json()["id"]
    with django_capture_on_commit_callbacks(execute=True):
        assert "queued 1" in reanalyze()
    assert owner_api.get(f"/api/matches/{match_id}/findings/?page_size=500").json()["results"] == [
        f.as_dict() for f in analyze(loads(text))
    ]
    assert not Job.objects.filter(match_id=unverified, kind="analyze").exists()  # nothing to analyse yet


def test_it_puts_reanalysis_on_the_analysis_queue_which_the_status_reports(
    owner_api: APIClient, anonymous_api: APIClient, upload: Any, monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    match_id = upload_one(upload, owner_api, record_text(hands=1, seed=87))
    make_outdated(match_id)
    sent: list[tuple[int, str]] = []
    monkeypatch.setattr(analyze_match, "apply_async", lambda args, queue: sent.append((args[0], queue)))
    with django_capture_on_commit_callbacks(execute=True):
        reanalyze()
    assert sent == [(match_id, "analysis")]

    body = anonymous_api.get("/api/status/").json()
    assert body["queues"]["analysis"]["waiting"] == 1
    assert body["queues"]["analysis"]["oldest_age_seconds"] >= 0
    assert body["queues"]["interactive"]["waiting"] == 0
    # Counts are of the matches the caller may read: the owner's private match to the owner only.
    assert body["counts"] == {} and body["jobs"]["analyze"] == {}
    body = owner_api.get("/api/status/").json()
    assert body["jobs"]["analyze"] == {"pending": 1}
    assert body["jobs"]["verify"] == {"done": 1}
    assert body["counts"] == {"verified": 1}

"""Jobs of every kind (verify, analyze) on their own rows, claimed by one function: once, with
a lease a dead worker's job is taken over after, handed back on a transient error, marked
failed otherwise, and run again by a redelivered message without doing the work twice."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import OperationalError
from django.utils import timezone

from analysis.models import Finding
from analysis.services import ANALYSIS_QUEUE
from analysis.tasks import analyze_match
from records import jobs, services
from records.jobs import run_job
from records.models import Job, Match
from records.tasks import verify_match

from .conftest import record_text, requires_postgres
from .helpers import at_once, job_of, status_of, stored_match

KINDS = [Job.Kind.VERIFY, Job.Kind.ANALYZE]
TASKS = {Job.Kind.VERIFY: verify_match, Job.Kind.ANALYZE: analyze_match}


def pending_job(owner: User, kind: str, text: str | None = None) -> Match:
    """A stored match with a pending job of ``kind`` whose message was never sent."""
    match = stored_match(owner, text)
    if kind == Job.Kind.ANALYZE:
        jobs.jobs_requeue(match_ids=[match.pk], kind=kind, queue=ANALYSIS_QUEUE, send=False)
    return match


@pytest.mark.django_db
@pytest.mark.parametrize("kind", KINDS)
def test_it_claims_a_job_only_once(owner: User, kind: str) -> None:
    match = pending_job(owner, kind)
    assert jobs.job_claim(match_id=match.pk, kind=kind) is True
    assert jobs.job_claim(match_id=match.pk, kind=kind) is False
    job = job_of(match.pk, kind)
    assert job.status == Job.Status.RUNNING and job.attempts == 1 and job.claimed_at is not None


@pytest.mark.django_db
def test_it_claims_each_kind_of_job_of_a_match_apart(owner: User) -> None:
    match = pending_job(owner, Job.Kind.ANALYZE)
    assert jobs.job_claim(match_id=match.pk, kind=Job.Kind.VERIFY) is True
    assert jobs.job_claim(match_id=match.pk, kind=Job.Kind.ANALYZE) is True
    assert Job.objects.filter(match=match).count() == 2


@pytest.mark.django_db
@pytest.mark.parametrize("kind", KINDS)
def test_the_task_that_held_a_claim_takes_it_back_within_its_lease_and_no_other_does(owner: User, kind: str) -> None:
    # A retry after the database went away mid-job, or the message redelivered after its
    # worker process was killed, keeps the task's id: it need not wait out the lease.
    match = pending_job(owner, kind)
    with jobs.claiming_as("task-1"):
        assert jobs.job_claim(match_id=match.pk, kind=kind)
    assert job_of(match.pk, kind).claimed_by == "task-1"
    with jobs.claiming_as("task-2"):  # e.g. a message the sweep sent meanwhile
        assert jobs.job_claim(match_id=match.pk, kind=kind) is False
    assert jobs.job_claim(match_id=match.pk, kind=kind) is False  # nor a claim with no task
    with jobs.claiming_as("task-1"):
        assert jobs.job_claim(match_id=match.pk, kind=kind) is True
    assert job_of(match.pk, kind).attempts == 2


@pytest.mark.django_db
@pytest.mark.parametrize("kind", KINDS)
def test_it_takes_over_a_claim_whose_lease_ran_out(owner: User, kind: str) -> None:
    match = pending_job(owner, kind)
    assert jobs.job_claim(match_id=match.pk, kind=kind)
    Job.objects.filter(match=match, kind=kind).update(claimed_at=timezone.now() - jobs.claim_lease() / 2)
    assert jobs.job_claim(match_id=match.pk, kind=kind) is False  # the lease still runs
    Job.objects.filter(match=match, kind=kind).update(claimed_at=timezone.now() - jobs.claim_lease() * 2)
    assert jobs.job_claim(match_id=match.pk, kind=kind) is True
    assert job_of(match.pk, kind).attempts == 2


@pytest.mark.django_db
@pytest.mark.parametrize("kind", KINDS)
def test_it_hands_a_job_back_on_a_transient_database_error(owner: User, kind: str) -> None:
    match = pending_job(owner, kind)

    def work() -> str:
        assert jobs.job_claim(match_id=match.pk, kind=kind)
        raise OperationalError("the database went away")

    with pytest.raises(OperationalError):  # Celery retries the task
        run_job(kind=kind, match_id=match.pk, work=work)
    assert job_of(match.pk, kind).status == Job.Status.PENDING
    assert jobs.job_claim(match_id=match.pk, kind=kind) is True


@pytest.mark.django_db
@pytest.mark.parametrize("kind", KINDS)
def test_it_marks_a_job_failed_when_its_last_retry_fails_too(owner: User, kind: str) -> None:
    match = pending_job(owner, kind)

    def work() -> str:
        assert jobs.job_claim(match_id=match.pk, kind=kind)
        raise OperationalError("the database went away")

    with pytest.raises(OperationalError):
        run_job(kind=kind, match_id=match.pk, work=work, last_try=True)
    job = job_of(match.pk, kind)
    assert job.status == Job.Status.FAILED and "the database went away" in job.error["message"]


@pytest.mark.django_db
@pytest.mark.parametrize("kind", KINDS)
def test_a_job_that_breaks_is_marked_failed_not_lost(
    owner: User, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from analysis import services as analysis_services

    def broken(record: Any, **budgets: Any) -> Any:
        raise RuntimeError("the engine broke")

    monkeypatch.setattr(services if kind == Job.Kind.VERIFY else analysis_services,
                        "verify" if kind == Job.Kind.VERIFY else "analyze_record", broken)
    match = pending_job(owner, kind)
    assert TASKS[kind].apply(args=(match.pk,)).get() == "failed"
    job = job_of(match.pk, kind)
    assert job.status == Job.Status.FAILED
    assert job.error == {"kind": "failed", "message": "RuntimeError: the engine broke"}
    assert jobs.job_claim(match_id=match.pk, kind=kind) is False  # failed stays failed until requeued


@pytest.mark.django_db
@pytest.mark.parametrize("kind", KINDS)
def test_a_redelivered_job_is_skipped_and_changes_nothing(owner: User, kind: str) -> None:
    match = pending_job(owner, kind, record_text("burraco", hands=2, seed=3, mistakes=1.0))
    assert TASKS[kind].apply(args=(match.pk,)).get() in ("verified", "analysed")
    job = job_of(match.pk, kind)
    findings = list(Finding.objects.filter(match=match).values_list("pk", flat=True))
    assert TASKS[kind].apply(args=(match.pk,)).get() == "skipped"
    again = job_of(match.pk, kind)
    assert (again.status, again.attempts, again.finished_at) == (Job.Status.DONE, 1, job.finished_at)
    assert list(Finding.objects.filter(match=match).values_list("pk", flat=True)) == findings


@pytest.mark.django_db
def test_a_match_is_pending_verifying_failed_verified_or_invalid_as_before(owner: User) -> None:
    match = stored_match(owner)
    assert status_of(match.pk) == "pending"
    jobs.job_claim(match_id=match.pk, kind=Job.Kind.VERIFY)
    assert status_of(match.pk) == "verifying"
    jobs.job_fail(match_id=match.pk, kind=Job.Kind.VERIFY, reason="time limit")
    assert status_of(match.pk) == "failed"
    jobs.jobs_requeue(match_ids=[match.pk], kind=Job.Kind.VERIFY, queue="reverify", send=False)
    assert status_of(match.pk) == "pending"
    verify_match.apply(args=(match.pk,))
    assert status_of(match.pk) == "verified"
    # An analysis job, whatever its state, says nothing about the match's verification.
    jobs.job_claim(match_id=match.pk, kind=Job.Kind.ANALYZE)
    jobs.job_fail(match_id=match.pk, kind=Job.Kind.ANALYZE, reason="broke")
    assert status_of(match.pk) == "verified"


@requires_postgres
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("kind", KINDS)
def test_concurrent_workers_claim_a_job_exactly_once(owner: User, kind: str) -> None:
    match = pending_job(owner, kind)
    results = at_once(8, lambda: jobs.job_claim(match_id=match.pk, kind=kind))
    assert sorted(results) == [False] * 7 + [True]
    assert job_of(match.pk, kind).attempts == 1

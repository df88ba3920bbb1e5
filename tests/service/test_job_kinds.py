"""A kind of job is one module plus one line: a task that runs a service through
records.jobs.run_job, registered with records.jobs.register_kind. The queue, the claim, the
outbox, the embedded runner and /api/status/ then carry it with no change to records."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from celery import shared_task
from django.utils import timezone
from rest_framework.test import APIClient

from records import jobs
from records.models import Job

from .helpers import stored_match

KIND = "count-hands"  # a kind records knows nothing of
RUNS: list[int] = []


def count_hands(*, match_id: int) -> str:
    """The kind's service: claim, work, finish, as every job service does."""
    if not jobs.job_claim(match_id=match_id, kind=KIND):
        return "skipped"
    RUNS.append(match_id)
    jobs.job_finish(match_id=match_id, kind=KIND, version="1")
    return "counted"


@shared_task(**jobs.JOB_TASK_OPTIONS)
def count_hands_task(self, match_id: int) -> str:  # type: ignore[no-untyped-def]
    return jobs.run_job(kind=KIND, match_id=match_id, work=lambda: count_hands(match_id=match_id),
                        task_id=self.request.id or "")


@pytest.fixture
def registered() -> Iterator[None]:
    jobs.register_kind(KIND, count_hands_task)  # the one line (an app's ready())
    RUNS.clear()
    yield
    jobs._TASKS.pop(KIND)


def test_a_new_kind_of_job_is_queued_claimed_run_once_and_reported(
    registered: None, owner: Any, owner_api: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    match = stored_match(owner)
    with django_capture_on_commit_callbacks(execute=True):
        jobs.jobs_requeue(match_ids=[match.pk], kind=KIND, queue="analysis")
    assert RUNS == [match.pk]
    job = Job.objects.get(match=match, kind=KIND)
    assert (job.status, job.attempts, job.version) == (Job.Status.DONE, 1, "1")
    count_hands_task.apply(args=(match.pk,))  # delivered again: claimed by nobody, run by nobody
    assert RUNS == [match.pk]
    assert owner_api.get("/api/status/").json()["jobs"][KIND] == {"done": 1}


def test_the_sweep_sends_a_new_kind_s_stranded_job(registered: None, owner: Any) -> None:
    match = stored_match(owner)
    Job.objects.create(match=match, kind=KIND, queue="analysis",
                       enqueued_at=timezone.now() - timezone.timedelta(hours=1))
    assert jobs.jobs_sweep() >= 1
    assert RUNS == [match.pk] and Job.objects.get(match=match, kind=KIND).status == Job.Status.DONE

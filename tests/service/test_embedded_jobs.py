"""The embedded default (no broker): the upload answers at once, and the jobs run after
the response in the web process's own thread (records.jobs.EmbeddedRunner)."""

from __future__ import annotations

import datetime as dt
import os
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from celery.signals import task_prerun
from django.utils import timezone
from rest_framework.test import APIClient

from records import jobs
from records.models import Job, Match

from .conftest import record_text, zip_of
from .helpers import named, publish_give_up_bound


@pytest.fixture
def thread_mode(settings: Any, transactional_db: Any) -> Iterator[None]:
    """Jobs in the embedded thread, as `make run` has them (the other tests run them inline)."""
    settings.BURACO_EMBEDDED_JOBS = "thread"
    settings.BURACO_SWEEP_SECONDS = 0.5
    yield
    runner = jobs.EmbeddedRunner._instance
    if runner is not None:
        runner.stop()
    jobs.EmbeddedRunner._instance = None


@pytest.fixture
def job_threads() -> Iterator[list[int]]:
    """The thread each job task ran in."""
    seen: list[int] = []

    def note(**_: Any) -> None:
        seen.append(threading.get_ident())

    task_prerun.connect(note, weak=False)
    yield seen
    task_prerun.disconnect(note)


def wait_until_done(match_ids: list[int], seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        done = Job.objects.filter(match_id__in=match_ids, kind__in=(Job.Kind.VERIFY, Job.Kind.ANALYZE),
                                  status=Job.Status.DONE).count()  # (the luck job follows: not waited for)
        if done == 2 * len(match_ids):  # verified and analysed
            return
        time.sleep(0.1)
    raise AssertionError(f"{done} of {2 * len(match_ids)} jobs done after {seconds} s")


def test_it_answers_the_upload_before_any_job_runs_and_runs_them_after(
    thread_mode: None, owner_api: APIClient, job_threads: list[int]
) -> None:
    texts = {f"m{i}.brn": record_text(hands=1, seed=600 + i) for i in range(12)}
    response = owner_api.post("/api/matches/", {"files": [named(zip_of(texts), "club.zip")]}, format="multipart")
    assert response.status_code == 202, response.content
    assert threading.get_ident() not in job_threads  # nothing ran in the request
    ids = [match["id"] for match in response.json()["matches"]]
    jobs.EmbeddedRunner.get().join()
    wait_until_done(ids)
    assert job_threads and threading.get_ident() not in job_threads
    statuses = set(Match.objects.with_status().filter(pk__in=ids).values_list("status", flat=True))  # type: ignore[misc]
    assert statuses == {Match.Status.VERIFIED}


def test_a_restarted_server_runs_the_jobs_the_stopped_one_left_pending(thread_mode: None, owner_api: APIClient) -> None:
    # The stopped process had taken the job (sent_at set) into a queue that died with it.
    response = owner_api.post("/api/matches/", {"files": [named(record_text(hands=1, seed=640), "m.brn")]},
                              format="multipart")
    assert response.status_code == 202, response.content
    match_id = response.json()["id"]
    jobs.EmbeddedRunner.get().stop()
    earlier = timezone.now() - dt.timedelta(minutes=1)
    Job.objects.filter(match_id=match_id).delete()
    Job.objects.create(match_id=match_id, kind=Job.Kind.VERIFY, queue="interactive", enqueued_at=earlier, sent_at=earlier)
    Match.objects.filter(pk=match_id).update(valid=None)
    jobs.embedded_start()  # what buraco_site.wsgi does when the server starts
    wait_until_done([match_id])
    assert Job.objects.get(match_id=match_id, kind=Job.Kind.VERIFY).attempts == 1


def test_a_job_the_broker_never_took_waits_in_the_outbox_until_the_sweep(
    owner_api: APIClient, django_capture_on_commit_callbacks: Any, settings: Any
) -> None:
    # A broker nobody listens on: the upload is stored and answered all the same.
    from buraco_site.celery import app as celery_app

    previous = celery_app.conf.broker_url
    settings.BURACO_JOBS = "broker"
    celery_app.conf.task_always_eager = False
    celery_app.conf.broker_url = "redis://127.0.0.1:1/0"
    celery_app._pool = None
    celery_app.amqp._producer_pool = None
    try:
        started = time.monotonic()
        with django_capture_on_commit_callbacks(execute=True):
            response = owner_api.post("/api/matches/", {"files": [named(record_text(hands=1, seed=650), "m.brn")]},
                                      format="multipart")
        answered_in = time.monotonic() - started
    finally:
        settings.BURACO_JOBS = "embedded"
        celery_app.conf.task_always_eager = True
        celery_app.conf.broker_url = previous
        celery_app._pool = None
        celery_app.amqp._producer_pool = None
    assert response.status_code == 202, response.content
    assert answered_in < publish_give_up_bound()  # the publish retry policy gives up instead of holding the answer
    job = Job.objects.get(match_id=response.json()["id"], kind=Job.Kind.VERIFY)
    assert (job.status, job.sent_at) == (Job.Status.PENDING, None)
    assert jobs.jobs_sweep() == 0  # within the grace the request's own send may still come
    Job.objects.filter(pk=job.pk).update(enqueued_at=timezone.now() - dt.timedelta(minutes=5))
    assert jobs.jobs_sweep() == 1  # eager here: the sweep's send runs it
    assert Match.objects.with_status().get(pk=job.match_id).status == Match.Status.VERIFIED  # type: ignore[attr-defined]


def test_jobs_another_process_stored_run_in_the_server_s_threads(thread_mode: None, owner_api: APIClient) -> None:
    # load_examples or a shell stores matches with no runner of its own: the jobs wait in
    # the table, and the serving process's runner finds them at its next poll.
    assert jobs.EmbeddedRunner.running() is None
    response = owner_api.post("/api/matches/", {"files": [named(record_text(hands=1, seed=660), "m.brn")]},
                              format="multipart")
    assert response.status_code == 202, response.content
    match_id = response.json()["id"]
    assert jobs.EmbeddedRunner.running() is None  # storing a match started no thread here
    assert Job.objects.get(match_id=match_id, kind=Job.Kind.VERIFY).status == Job.Status.PENDING
    jobs.embedded_start()
    wait_until_done([match_id])


def _dead_pid() -> int:
    import subprocess
    import sys

    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_a_job_left_running_by_a_process_that_ended_runs_again(thread_mode: None, owner_api: APIClient) -> None:
    response = owner_api.post("/api/matches/", {"files": [named(record_text(hands=1, seed=670), "m.brn")]},
                              format="multipart")
    match_id = response.json()["id"]
    gone = jobs.embedded_claimant().replace(f":{os.getpid()}@", f":{_dead_pid()}@")
    alive = jobs.embedded_claimant()  # this process: alive, its claim is left alone
    Job.objects.filter(match_id=match_id).update(status=Job.Status.RUNNING, claimed_by=gone, claimed_at=timezone.now())
    other = owner_api.post("/api/matches/", {"files": [named(record_text(hands=1, seed=671), "n.brn")]},
                           format="multipart").json()["id"]
    Job.objects.filter(match_id=other).update(status=Job.Status.RUNNING, claimed_by=alive, claimed_at=timezone.now())
    assert jobs.jobs_release_abandoned() == 1
    assert Job.objects.get(match_id=match_id, kind=Job.Kind.VERIFY).status == Job.Status.PENDING
    assert Job.objects.get(match_id=other, kind=Job.Kind.VERIFY).status == Job.Status.RUNNING
    jobs.embedded_start()
    wait_until_done([match_id])
    assert Job.objects.get(match_id=other, kind=Job.Kind.VERIFY).status == Job.Status.RUNNING


def test_an_upload_is_verified_while_another_users_analysis_runs(
    thread_mode: None, owner_api: APIClient, stranger_api: APIClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 13, 5: the verify lane is its own thread; a long analysis holds only its lane."""
    from analysis import services as analysis_services

    started, release = threading.Event(), threading.Event()
    real = analysis_services.analyze_record

    def slow_analysis(*args: Any, **kwargs: Any) -> Any:
        started.set()
        assert release.wait(60), "the test never let the analysis finish"
        return real(*args, **kwargs)

    monkeypatch.setattr(analysis_services, "analyze_record", slow_analysis)
    first = owner_api.post("/api/matches/", {"file": named(record_text(hands=1, seed=660), "a.brn")}, format="multipart")
    assert first.status_code == 202
    jobs.EmbeddedRunner.get()  # as the server starts it
    if not started.wait(60):
        raise AssertionError(f"the first match's analysis never started: {list(Job.objects.values_list('kind', 'status', 'queue', 'error'))}")
    try:
        second = stranger_api.post(
            "/api/matches/", {"file": named(record_text(hands=1, seed=661), "b.brn")}, format="multipart"
        ).json()["id"]
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and Match.objects.with_status().get(pk=second).status != "verified":
            time.sleep(0.05)
        assert Match.objects.with_status().get(pk=second).status == "verified"
        assert Job.objects.get(match_id=first.json()["id"], kind="analyze").status == Job.Status.RUNNING
    finally:
        release.set()
    wait_until_done([first.json()["id"], second])

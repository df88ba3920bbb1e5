"""A batch's verify jobs go BURACO_JOB_CHUNK to a message (records.jobs.run_chunk): fewer
messages, the same verdicts; a chunk that runs long sends the rest back one by one."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from records import jobs
from records.models import Job, Match
from records.tasks import run_chunk, verify_match

from .conftest import record_text, zip_of
from .helpers import named


def test_a_batch_goes_in_chunks_and_every_match_is_verified(
    owner_api: APIClient, settings: Any, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    settings.BURACO_JOB_CHUNK = 4
    chunks: list[list[int]] = []
    singles: list[int] = []
    real_chunk, real_single = run_chunk.apply_async, verify_match.apply_async
    monkeypatch.setattr(run_chunk, "apply_async", lambda args, queue: (chunks.append(list(args[1])),
                                                                        real_chunk(args=args, queue=queue)))
    monkeypatch.setattr(verify_match, "apply_async", lambda args, queue: (singles.append(args[0]),
                                                                           real_single(args=args, queue=queue)))
    texts = {f"m{i}.brn": record_text(hands=1, seed=700 + i) for i in range(10)}
    with django_capture_on_commit_callbacks(execute=True):
        response = owner_api.post("/api/matches/", {"files": [named(zip_of(texts), "ten.zip")]}, format="multipart")
    assert response.status_code == 202
    ids = [m["id"] for m in response.json()["matches"]]
    assert [len(c) for c in chunks] == [4, 4, 2] and sum(chunks, []) == ids and singles == []
    assert set(Match.objects.with_status().filter(pk__in=ids).values_list("status", flat=True)) == {"verified"}
    assert set(Job.objects.filter(match_id__in=ids, kind="verify").values_list("attempts", flat=True)) == {1}


def test_a_users_own_upload_is_one_message_of_its_own(
    owner_api: APIClient, monkeypatch: pytest.MonkeyPatch, upload: Any
) -> None:
    chunks: list[Any] = []
    monkeypatch.setattr(run_chunk, "apply_async", lambda args, queue: chunks.append(args))
    upload(owner_api, ("own.brn", record_text(hands=1, seed=720)))
    assert chunks == []


def test_a_chunk_past_its_time_sends_the_rest_back_one_by_one(
    owner_api: APIClient, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    sent: list[tuple[str, int]] = []
    monkeypatch.setattr(run_chunk, "apply_async", lambda args, queue: sent.append(("chunk", len(args[1]))))
    monkeypatch.setattr(verify_match, "apply_async", lambda args, queue: sent.append((queue, args[0])))
    texts = {f"m{i}.brn": record_text(hands=1, seed=730 + i) for i in range(3)}
    with django_capture_on_commit_callbacks(execute=True):
        ids = [m["id"] for m in owner_api.post("/api/matches/", {"files": [named(zip_of(texts), "three.zip")]},
                                                format="multipart").json()["matches"]]
    assert sent == [("chunk", 3)]
    sent.clear()
    results = jobs.run_chunk(kind="verify", match_ids=ids, seconds=0.0)  # no time at all: one job, then back
    assert results == ["verified"]
    assert sent == [("bulk", ids[1]), ("bulk", ids[2])]
    assert Job.objects.get(match_id=ids[0], kind="verify").status == Job.Status.DONE
    assert set(Job.objects.filter(match_id__in=ids[1:], kind="verify").values_list("status", flat=True)) == {"pending"}

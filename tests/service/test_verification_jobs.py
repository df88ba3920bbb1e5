"""Verification jobs: claimed once, idempotent, never lost or left half-done."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.utils import timezone

from records import services
from records.models import Match
from records.tasks import verify_match

from .conftest import record_text, requires_postgres

T = TypeVar("T")


def stored_match(owner: User, text: str | None = None, source: bytes | None = None) -> Match:
    """A pending match stored without queueing its job (the test runs the job itself)."""
    content = source if source is not None else (text or record_text()).encode()
    upload = services.UploadedFile("m.brn", content)
    record = services.parse_uploads([upload])[0][1] if source is None else None
    if record is not None:
        match, _ = services._match_store(owner=owner, upload=upload, record=record, batch=None,
                                         visibility="private", queue="interactive")
        return match
    return Match.objects.create(owner=owner, source=content, sha256="x" * 64, variant="cerrado", players=["a", "b"])


@pytest.mark.django_db
def test_it_claims_a_job_only_once(owner: User) -> None:
    match = stored_match(owner)
    assert services.match_claim(match_id=match.pk) is True
    assert services.match_claim(match_id=match.pk) is False
    match.refresh_from_db()
    assert match.status == Match.Status.VERIFYING and match.attempts == 1


@pytest.mark.django_db
def test_it_takes_over_a_claim_whose_lease_ran_out(owner: User) -> None:
    match = stored_match(owner)
    assert services.match_claim(match_id=match.pk)
    Match.objects.filter(pk=match.pk).update(claimed_at=timezone.now() - services.CLAIM_LEASE * 2)
    assert services.match_claim(match_id=match.pk) is True


@pytest.mark.django_db
def test_a_redelivered_job_is_skipped_and_changes_nothing(owner: User) -> None:
    match = stored_match(owner, record_text("burraco", hands=2, seed=3))
    assert verify_match.apply(args=(match.pk,)).get() == "verified"
    match.refresh_from_db()
    verified_at, totals = match.verified_at, match.totals
    assert verify_match.apply(args=(match.pk,)).get() == "skipped"
    match.refresh_from_db()
    assert (match.verified_at, match.totals, match.status) == (verified_at, totals, Match.Status.VERIFIED)


@pytest.mark.django_db
def test_it_stores_each_hands_verdict_and_the_first_error(owner: User) -> None:
    text = record_text("cerrado", hands=2, seed=8)
    lines = text.split("\n")
    index = next(i for i, line in enumerate(lines) if line.startswith('  "p2 discard'))
    lines[index] = '  "p2 draw",'
    match = stored_match(owner, "\n".join(lines))
    verify_match.apply(args=(match.pk,))
    match.refresh_from_db()
    assert match.status == Match.Status.INVALID and match.valid is False
    assert match.error["line"] == index + 1 and match.error["action"] == "p2 draw"
    first, second = match.hands.all()
    assert first.valid is False and first.scores is None and first.error["ply"] >= 1
    assert second.valid is True and second.finished is True and len(second.scores) == 2


@pytest.mark.django_db
def test_a_job_that_cannot_read_its_record_is_marked_failed_not_lost(owner: User) -> None:
    match = stored_match(owner, source=b"this is not BRN")
    assert verify_match.apply(args=(match.pk,)).get() == "failed"
    match.refresh_from_db()
    assert match.status == Match.Status.FAILED
    assert "NotationError" in match.error["message"]
    assert services.matches_requeue_outdated(include_failed=True) == 1


def at_once(count: int, work: Callable[[], T]) -> list[T]:
    """Run ``work`` in ``count`` threads released together; each closes its own connection."""
    barrier = threading.Barrier(count)
    results: list[T] = []

    def run() -> None:
        barrier.wait()
        try:
            results.append(work())
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


@requires_postgres
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_workers_claim_a_job_exactly_once(owner: User) -> None:
    match = stored_match(owner)
    results = at_once(8, lambda: services.match_claim(match_id=match.pk))
    assert sorted(results) == [False] * 7 + [True]


@requires_postgres
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_one_owner_uploading_the_same_record_twice_at_once_gets_one_match(owner: User) -> None:
    text = record_text("brasil", players=4, hands=1, seed=2).encode()

    def upload() -> int:
        result = services.upload_create(owner=owner, files=[services.UploadedFile("a.brn", text)])
        return result.matches[0].pk

    ids = at_once(4, upload)
    assert len(set(ids)) == 1 and len(ids) == 4
    assert Match.objects.filter(owner=owner).count() == 1

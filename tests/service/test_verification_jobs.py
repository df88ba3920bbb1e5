"""Verification jobs: claimed once, idempotent, never lost or left half-done; the verdict stored once."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from records import jobs, selectors, services
from records.models import Job, Match
from records.tasks import verify_match

from .conftest import record_text, requires_postgres
from .helpers import at_once, job_of, status_of, stored_match


@pytest.mark.django_db
def test_it_claims_a_job_only_once(owner: User) -> None:
    match = stored_match(owner)
    assert jobs.job_claim(match_id=match.pk, kind=Job.Kind.VERIFY) is True
    assert jobs.job_claim(match_id=match.pk, kind=Job.Kind.VERIFY) is False
    assert status_of(match.pk) == Match.Status.VERIFYING
    assert job_of(match.pk).attempts == 1


@pytest.mark.django_db
def test_it_takes_over_a_claim_whose_lease_ran_out(owner: User) -> None:
    match = stored_match(owner)
    assert jobs.job_claim(match_id=match.pk, kind=Job.Kind.VERIFY)
    Job.objects.filter(match=match).update(claimed_at=timezone.now() - jobs.claim_lease() * 2)
    assert jobs.job_claim(match_id=match.pk, kind=Job.Kind.VERIFY) is True
    assert job_of(match.pk).attempts == 2


@pytest.mark.django_db
def test_a_redelivered_job_is_skipped_and_changes_nothing(owner: User) -> None:
    match = stored_match(owner, record_text("burraco", hands=2, seed=3))
    assert verify_match.apply(args=(match.pk,)).get() == "verified"
    match.refresh_from_db()
    verified_at, totals = match.verified_at, match.totals
    assert verify_match.apply(args=(match.pk,)).get() == "skipped"
    match.refresh_from_db()
    assert (match.verified_at, match.totals, status_of(match.pk)) == (verified_at, totals, Match.Status.VERIFIED)
    assert job_of(match.pk).status == Job.Status.DONE and job_of(match.pk).attempts == 1


@pytest.mark.django_db
def test_it_stores_each_hands_verdict_and_the_first_error(owner: User) -> None:
    text = record_text("cerrado", hands=2, seed=8)
    lines = text.split("\n")
    index = next(i for i, line in enumerate(lines) if line.startswith('  "p2 discard'))
    lines[index] = '  "p2 draw",'
    match = stored_match(owner, "\n".join(lines))
    verify_match.apply(args=(match.pk,))
    match.refresh_from_db()
    assert status_of(match.pk) == Match.Status.INVALID and match.valid is False
    assert match.error["line"] == index + 1 and match.error["action"] == "p2 draw"
    first, second = match.hands.all()
    assert first.valid is False and first.scores is None and first.error["ply"] >= 1
    assert second.valid is True and second.finished is True and len(second.scores) == 2


@pytest.mark.django_db
def test_it_stores_the_verdict_once_and_builds_the_report_from_it(owner: User) -> None:
    from buraco.notation import loads
    from buraco.replay import verify

    text = record_text("brasil", players=4, hands=2, seed=12, mistakes=1.0)
    match = stored_match(owner, text)
    verify_match.apply(args=(match.pk,))
    match.refresh_from_db()
    assert not hasattr(match, "report")  # no stored copy: the rows are the verdict
    expected = verify(loads(text))
    assert match.sides == [list(s) for s in expected.sides]
    assert [h.plies for h in match.hands.all()] == [h.plies for h in expected.hands]
    import json

    assert selectors.match_report(match=match) == json.loads(json.dumps(expected.as_dict()))


@pytest.mark.django_db
def test_a_job_that_cannot_read_its_record_is_marked_failed_not_lost(owner: User) -> None:
    match = stored_match(owner, source=b"this is not BRN")
    assert verify_match.apply(args=(match.pk,)).get() == "failed"
    assert status_of(match.pk) == Match.Status.FAILED
    job = job_of(match.pk)
    assert job.status == Job.Status.FAILED and "NotationError" in job.error["message"]
    assert Match.objects.get(pk=match.pk).error is None  # a failure is no illegal action
    assert services.matches_requeue_outdated(include_failed=True) == 1


@pytest.mark.django_db
def test_a_deleted_match_leaves_nothing_to_verify(owner: User) -> None:
    match = stored_match(owner)
    match_id = match.pk
    match.delete()
    assert not Job.objects.filter(match_id=match_id).exists()
    assert verify_match.apply(args=(match_id,)).get() == "skipped"


@requires_postgres
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_workers_claim_a_job_exactly_once(owner: User) -> None:
    match = stored_match(owner)
    results = at_once(8, lambda: jobs.job_claim(match_id=match.pk, kind=Job.Kind.VERIFY))
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
    assert Job.objects.filter(match__owner=owner, kind=Job.Kind.VERIFY).count() == 1

"""Uploads stored in bulk (records.services._matches_store) and verdicts written in one
statement (_hand_verdicts_store): the same rows as one match at a time, duplicates answered
as before, concurrent uploads of one batch stored once, nothing half-written on errors."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import DatabaseError

from buraco.notation import Note, dumps, loads
from records import services
from records.models import Batch, Hand, Job, Match
from reviews.models import Review

from .conftest import record_text, requires_postgres, zip_of
from .helpers import at_once, illegal_record, stored_match

TEXTS = [record_text(variant, players=2, hands=2, seed=seed)
         for seed, variant in enumerate(("cerrado", "brasil", "burraco", "abierto", "cerrado-stcl"), start=40)]


def rows_of(match: Match) -> dict[str, Any]:
    """A match's stored columns and its hands', without ids, owners and times."""
    fields = ("variant", "players", "player_names", "metadata", "hand_count", "played_on", "source_format",
              "sha256", "filename", "visibility", "valid", "scores_match", "error", "totals", "winner", "sides",
              "engine_version")
    match.refresh_from_db()
    hands = list(Hand.objects.filter(match=match).order_by("number").values(
        "number", "dealer", "deal", "actions", "claimed", "valid", "finished", "error", "scores", "parts",
        "mismatches", "ended_by", "out_by", "plies"))
    jobs = list(Job.objects.filter(match=match).order_by("kind").values_list("kind", "status", "queue", "attempts"))
    return {**{name: getattr(match, name) for name in fields}, "source": bytes(match.source), "hands": hands,
            "jobs": jobs}


@pytest.mark.django_db
def test_a_batch_stores_the_same_rows_as_one_match_at_a_time(owner: User) -> None:
    other = User.objects.create_user("bo")
    illegal = illegal_record(seed=5).text
    files = [services.UploadedFile(f"zip.zip/{i}.brn", t.encode()) for i, t in enumerate([*TEXTS, illegal])]
    result = services.upload_create(owner=owner, files=files)
    assert result.created == [True] * len(files) and result.batch is not None and result.batch.total == len(files)
    for upload, match in zip(files, result.matches, strict=True):
        record = services.parse_uploads([upload])[0][1]
        one, _ = services._match_store(owner=other, upload=upload, record=record, batch=None,
                                       visibility="private", queue="bulk")
        services.match_verify(match_id=one.pk)
        services.match_verify(match_id=match.pk)
        assert rows_of(match) == rows_of(one)
    assert [m.valid for m in result.matches] == [True] * len(TEXTS) + [False]


@pytest.mark.django_db
def test_copies_and_records_uploaded_before_are_duplicates_of_one_match(owner: User) -> None:
    before = services.upload_create(owner=owner, files=[services.UploadedFile("a.brn", TEXTS[1].encode())])
    files = [services.UploadedFile(name, text.encode()) for name, text in
             (("x.brn", TEXTS[0]), ("a-again.brn", TEXTS[1]), ("x-copy.brn", TEXTS[0]), ("y.brn", TEXTS[2]))]
    result = services.upload_create(owner=owner, files=files)
    first, again, copy, new = result.matches
    assert result.created == [True, False, False, True]
    assert again.pk == before.matches[0].pk and copy.pk == first.pk
    assert [name for name, _ in result.duplicates] == ["a-again.brn", "x-copy.brn"]
    assert result.batch is not None and result.batch.total == 2
    assert Match.objects.filter(owner=owner).count() == 3
    assert Job.objects.filter(match__owner=owner, kind=Job.Kind.VERIFY).count() == 3
    assert Hand.objects.filter(match__owner=owner).count() == 3 * 2
    assert Match.objects.get(pk=first.pk).filename == "x.brn" and new.filename == "y.brn"


@pytest.mark.django_db
def test_a_batch_larger_than_one_insert_keeps_its_order(owner: User, monkeypatch: Any) -> None:
    monkeypatch.setattr(services, "MATCHES_PER_INSERT", 2)
    monkeypatch.setattr(services, "HANDS_PER_INSERT", 3)
    monkeypatch.setattr(services, "DIGESTS_PER_QUERY", 2)
    services.upload_create(owner=owner, files=[services.UploadedFile("old.brn", TEXTS[3].encode())])
    files = [services.UploadedFile(f"{i}.brn", t.encode()) for i, t in enumerate(TEXTS)]
    result = services.upload_create(owner=owner, files=files)
    assert [m.filename for m in result.matches] == ["0.brn", "1.brn", "2.brn", "old.brn", "4.brn"]
    assert result.created == [True, True, True, False, True]
    assert [bytes(Match.objects.get(pk=m.pk).source) for m in result.matches] == [t.encode() for t in TEXTS]
    assert all(Hand.objects.filter(match=m).count() == 2 for m in result.matches)


@pytest.mark.django_db
def test_notes_become_a_review_only_of_the_records_that_have_them(owner: User) -> None:
    record = loads(TEXTS[2])
    noted = dumps(replace(record, hands=(replace(record.hands[0], notes=(Note(1, "coach", "why?"),)),
                                         *record.hands[1:])))
    result = services.upload_create(owner=owner, files=[services.UploadedFile("a.brn", TEXTS[0].encode()),
                                                        services.UploadedFile("b.brn", noted.encode())])
    assert not Review.objects.filter(match=result.matches[0]).exists()
    review = Review.objects.get(match=result.matches[1])
    assert [(c.hand, c.ply, c.author_name, c.text) for c in review.comments.all()] == [(1, 1, "coach", "why?")]


@pytest.mark.django_db(transaction=True)
def test_an_error_while_storing_a_batch_leaves_nothing(owner: User, monkeypatch: Any) -> None:
    def broken(**_: Any) -> None:
        raise DatabaseError("the disk is full")

    monkeypatch.setattr(services, "_matches_complete", broken)
    files = [services.UploadedFile(f"{i}.brn", t.encode()) for i, t in enumerate(TEXTS)]
    with pytest.raises(DatabaseError):
        services.upload_create(owner=owner, files=files)
    assert not Match.objects.exists() and not Batch.objects.exists() and not Job.objects.exists()


@pytest.mark.django_db
def test_a_verdict_changes_only_its_own_matchs_hands(owner: User) -> None:
    one, two = stored_match(owner, TEXTS[0]), stored_match(owner, TEXTS[1])
    assert services.match_verify(match_id=one.pk) == "verified"
    assert set(Hand.objects.filter(match=two).values_list("valid", "plies")) == {(None, None)}
    assert all(h.valid and h.plies for h in Hand.objects.filter(match=one))


@pytest.mark.django_db
def test_a_hand_verdict_with_an_error_is_stored_as_json(owner: User) -> None:
    record = illegal_record(seed=2)
    match = stored_match(owner, record.text)
    assert services.match_verify(match_id=match.pk) == "invalid"
    errors = [h.error for h in Hand.objects.filter(match=match).order_by("number") if h.error]
    assert len(errors) == 1 and isinstance(errors[0], dict) and errors[0]["line"]


@requires_postgres
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_one_owner_uploading_the_same_batch_at_once_gets_one_match_per_record(owner: User) -> None:
    archive = zip_of({f"{i}.brn": t for i, t in enumerate(TEXTS)})

    def upload() -> list[int]:
        result = services.upload_create(owner=owner, files=[services.UploadedFile("b.zip", archive)])
        return [m.pk for m in result.matches]

    results = at_once(4, upload)
    assert all(ids == results[0] for ids in results)
    assert Match.objects.filter(owner=owner).count() == len(TEXTS)
    assert Job.objects.filter(match__owner=owner, kind=Job.Kind.VERIFY).count() == len(TEXTS)
    assert Hand.objects.filter(match__owner=owner).count() == 2 * len(TEXTS)

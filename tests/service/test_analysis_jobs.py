"""Analysis runs after verification, as its own job on its own queue, and stores exactly what
the engine's analyze() finds: once, however often the job runs."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from analysis import services as analysis_services
from analysis.models import Finding
from analysis.tasks import analyze_match
from buraco.analysis import ANALYSIS_VERSION, analyze
from buraco.notation import loads
from records.models import Job
from records.tasks import verify_match

from .conftest import record_text
from .helpers import (
    fast_passwords,  # noqa: F401  (a fixture)
    illegal_record,
    job_of,
    stored_match,
    upload_one,
)

pytestmark = pytest.mark.usefixtures("fast_passwords")


def engine_findings(text: str, **options: Any) -> list[dict[str, Any]]:
    return [finding.as_dict() for finding in analyze(loads(text), **options)]


def api_findings(client: APIClient, match_id: int, **query: Any) -> list[dict[str, Any]]:
    response = client.get(f"/api/matches/{match_id}/findings/", {"page_size": 500, **query})
    assert response.status_code == 200, response.content
    return list(response.json()["results"])


def test_it_stores_what_the_engine_finds_once_a_match_is_verified(owner_api: APIClient, upload: Any) -> None:
    text = record_text("cerrado", hands=2, seed=41, mistakes=1.0)
    match_id = upload_one(upload, owner_api, text)

    assert api_findings(owner_api, match_id) == engine_findings(text)
    detail = owner_api.get(f"/api/matches/{match_id}/").json()
    assert detail["status"] == "verified"
    assert detail["analysis"] == {"status": "done", "version": ANALYSIS_VERSION, "partial": False, "unsearched": []}


def test_it_finds_the_planted_scoring_mistakes(owner_api: APIClient, upload: Any) -> None:
    text = record_text("burraco", hands=2, seed=42, mistakes=1.0)  # a wrong claimed score in every hand
    expected = engine_findings(text)
    assert expected, "analyze() finds nothing in a record with a planted scoring mistake in every hand"
    match_id = upload_one(upload, owner_api, text)
    body = owner_api.get(f"/api/matches/{match_id}/findings/?page_size=500").json()
    assert body["count"] == len(expected) and body["results"] == expected
    assert body["analysis"]["status"] == "done"


def test_it_analyses_an_invalid_match_too(owner_api: APIClient, upload: Any) -> None:
    text = illegal_record(seed=43).text
    match_id = upload_one(upload, owner_api, text)
    assert owner_api.get(f"/api/matches/{match_id}/").json()["status"] == "invalid"
    assert api_findings(owner_api, match_id) == engine_findings(text)


def test_it_queues_the_analysis_on_its_own_queue_once_the_verdict_is_stored(
    owner_api: APIClient, upload: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[tuple[int, str]] = []
    monkeypatch.setattr(analyze_match, "apply_async", lambda args, queue: sent.append((args[0], queue)))
    match_id = upload_one(upload, owner_api, record_text(hands=1, seed=44))
    assert sent == [(match_id, "analysis")]
    assert job_of(match_id, "analyze").status == "pending"
    assert owner_api.get(f"/api/matches/{match_id}/").json()["analysis"] == {"status": "pending", "version": None, "partial": None, "unsearched": []}


def test_it_does_not_analyse_a_match_before_its_verdict(owner_api: APIClient) -> None:
    from .helpers import named

    response = owner_api.post("/api/matches/", {"file": named(record_text(hands=1, seed=45), "a.brn")},
                              format="multipart")  # verification never ran
    match_id = response.json()["id"]
    assert not Job.objects.filter(match_id=match_id, kind="analyze").exists()
    detail = owner_api.get(f"/api/matches/{match_id}/").json()
    assert detail["analysis"] == {"status": None, "version": None, "partial": None, "unsearched": []}
    assert owner_api.get(f"/api/matches/{match_id}/findings/?page_size=500").json()["results"] == []


def test_running_the_analysis_twice_stores_its_findings_once(owner_api: APIClient, upload: Any) -> None:
    text = record_text("brasil", players=4, hands=2, seed=46, mistakes=1.0)
    match_id = upload_one(upload, owner_api, text)
    stored = api_findings(owner_api, match_id)

    assert analyze_match.apply(args=(match_id,)).get() == "skipped"  # a redelivered message
    # A retry after its lease ran out, or a requeue: the job runs again and replaces its findings.
    Job.objects.filter(match_id=match_id, kind="analyze").update(status="pending")
    assert analyze_match.apply(args=(match_id,)).get() == "analysed"
    analysis_services.findings_store(match_id=match_id, findings=analyze(loads(text)))

    assert api_findings(owner_api, match_id) == stored == engine_findings(text)
    assert Finding.objects.filter(match_id=match_id).count() == len(stored)
    assert job_of(match_id, "analyze").attempts == 2


def test_a_reverified_match_is_analysed_again_without_duplicates(
    owner_api: APIClient, upload: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from records import jobs

    text = record_text("cerrado", hands=2, seed=47, mistakes=1.0)
    match_id = upload_one(upload, owner_api, text)
    with django_capture_on_commit_callbacks(execute=True):
        jobs.jobs_requeue(match_ids=[match_id], kind="verify", queue="reverify")
    assert job_of(match_id, "verify").attempts == 2
    assert job_of(match_id, "analyze").attempts == 2
    assert api_findings(owner_api, match_id) == engine_findings(text)


def test_an_analysis_that_breaks_is_marked_failed_and_leaves_the_verdict_alone(
    owner_api: APIClient, upload: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(record: Any, **budgets: Any) -> Any:
        raise RuntimeError("the analysis broke")

    monkeypatch.setattr(analysis_services, "analyze_record", broken)
    match_id = upload_one(upload, owner_api, record_text(hands=1, seed=48))
    detail = owner_api.get(f"/api/matches/{match_id}/").json()
    assert detail["status"] == "verified" and detail["error"] is None
    assert detail["analysis"] == {"status": "failed", "version": None, "partial": None, "unsearched": []}
    assert "the analysis broke" in job_of(match_id, "analyze").error["message"]


def test_the_verify_task_and_the_analyze_task_run_one_after_the_other(owner: Any) -> None:
    text = record_text(hands=2, seed=49, mistakes=1.0)
    match = stored_match(owner, text)
    assert analyze_match.apply(args=(match.pk,)).get() == "skipped"  # no analysis job before a verdict
    assert verify_match.apply(args=(match.pk,)).get() == "verified"
    assert analyze_match.apply(args=(match.pk,)).get() == "analysed"
    assert [f.as_dict() for f in Finding.objects.filter(match=match)] == engine_findings(text)


COLUMNS = [field.name for field in Finding._meta.concrete_fields if field.name not in ("id", "match")]


def test_findings_stored_by_copy_are_the_rows_bulk_create_stores(owner: Any) -> None:
    """``records.bulk.rows_insert`` writes a plain column's int or str as it is and a JSON
    column's text, and lets every other value go through its field; ``Finding.rows_of`` scans
    a finding's texts for a NUL at once. Stored both ways, the same findings read back the
    same, a NUL included."""
    text = record_text("brasil", players=4, hands=2, seed=46, mistakes=1.0)
    findings = analyze(loads(text))
    assert {f.kind for f in findings} >= {"scoring-mistake", "dangerous-discard", "missed-canasta"}
    nul = dataclasses.replace(findings[-1], message="a\x00b", witness=(*findings[-1].witness, "p1 \x00"))
    findings = [*findings, nul]
    other = User.objects.create_user("bo")  # the same game, stored once an owner
    copied, created = stored_match(owner, text), stored_match(other, text)
    analysis_services.findings_store(match_id=copied.pk, findings=findings)
    Finding.objects.bulk_create([Finding.of(created, finding) for finding in findings])

    def stored(match: Any) -> list[tuple[Any, ...]]:
        return list(Finding.objects.filter(match=match).order_by("pk").values_list(*COLUMNS))

    assert stored(copied) == stored(created)
    assert len(stored(copied)) == len(findings)
    last = Finding.objects.filter(match=copied).order_by("pk").last()
    assert last is not None and last.message == "a\ufffdb" and last.witness[-1] == "p1 \ufffd"


def test_a_row_left_short_takes_the_defaults_and_a_row_with_a_stray_key_stores_nothing(owner: Any) -> None:
    from django.db import transaction

    from records.bulk import rows_insert

    match = stored_match(owner, record_text("cerrado", players=2, hands=1, seed=47))
    row = {"match_id": match.pk, "hand": 1, "side": 1, "kind": "scoring-mistake", "message": "m", "version": "v"}
    rows_insert(Finding, [row])
    stored = Finding.objects.get(match=match)
    assert (stored.witness, stored.causes, stored.turns, stored.ply, stored.players) == ([], [], 1, None, "")
    with pytest.raises(TypeError, match="nonsense"), transaction.atomic():
        rows_insert(Finding, [row, {**row, "nonsense": 1}])
    assert Finding.objects.filter(match=match).count() == 1


def test_a_callable_default_is_called_for_each_row_that_leaves_its_field_out(owner: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import itertools

    from records.bulk import rows_insert

    match = stored_match(owner, record_text("cerrado", players=2, hands=1, seed=47))
    field = Finding._meta.get_field("message")
    field.get_default()  # its cached default, put back after the test
    numbers = itertools.count(1)
    monkeypatch.setattr(field, "default", lambda: f"default {next(numbers)}")
    monkeypatch.delitem(field.__dict__, "_get_default")
    row = {"match_id": match.pk, "hand": 1, "side": 1, "kind": "scoring-mistake", "version": "v"}
    rows_insert(Finding, [row, row, {**row, "message": "given"}])
    assert list(Finding.objects.filter(match=match).order_by("pk").values_list("message", flat=True)) == [
        "default 1", "default 2", "given"]


def test_a_field_that_prepares_its_values_itself_is_not_plain() -> None:
    from django.db import models

    from records.bulk import plain_type

    class Upper(models.CharField):  # type: ignore[type-arg]
        def get_prep_value(self, value: Any) -> Any:
            return str(value).upper()

    class Stamped(models.IntegerField):  # type: ignore[type-arg]
        def pre_save(self, model_instance: Any, add: bool) -> Any:
            return 1

    assert [plain_type(field) for field in (models.CharField(), models.PositiveSmallIntegerField(), models.TextField())] == [str, int, str]
    assert [plain_type(field) for field in (Upper(), Stamped(), models.JSONField(), models.DateTimeField())] == [None] * 4


def test_a_json_field_that_prepares_its_values_itself_is_not_written_as_its_text() -> None:
    from django.db import connection, models

    from records.bulk import _writer, json_text

    class Sorted(models.JSONField):  # type: ignore[type-arg]
        def get_prep_value(self, value: Any) -> Any:
            return sorted(value)

    class Encoded(json.JSONEncoder):
        def default(self, o: Any) -> Any:
            return sorted(o) if isinstance(o, set) else super().default(o)

    assert [json_text(field) for field in (models.JSONField(), models.JSONField(encoder=Encoded), Sorted())] == [True, True, False]
    assert [json_text(field) for field in (models.TextField(), models.IntegerField())] == [False, False]
    write = _writer(models.JSONField(encoder=Encoded), connection)
    assert (write({"a": {2, 1}}), write(None), write("x")) == ('{"a": [1, 2]}', None, '"x"')

"""Writes: analysing a verified match and storing its findings; re-queueing outdated analyses.

An analysis is a job like verification (:func:`records.jobs.job_claim`): a
redelivered or retried job is skipped or replaces the match's findings in one
transaction, so it never duplicates them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef, Q

from buraco.analysis import ANALYSIS_VERSION, analyze_record
from buraco.analysis import Finding as EngineFinding
from records.bulk import rows_insert
from records.jobs import job_claim, job_finish, jobs_requeue
from records.models import Job, Match
from records.reading import record_of

from .models import Finding
from .signals import analysis_stored

# Analyses wait below a user's own uploads and batches (settings.BURACO_QUEUES).
ANALYSIS_QUEUE = "analysis"


def analysis_queue_after_verdict(sender: Any, match_id: int, **_: Any) -> None:
    """``records.signals.verdict_stored``: a new verdict is analysed again (after a reverify
    too), queued in the verdict's transaction and sent once it commits."""
    jobs_requeue(match_ids=[match_id], kind=Job.Kind.ANALYZE, queue=ANALYSIS_QUEUE)


def match_analyze(*, match_id: int) -> str:
    """Analyse one stored match with the engine and store its findings. Idempotent."""
    if not job_claim(match_id=match_id, kind=Job.Kind.ANALYZE):
        return "skipped"
    analysis = analyze_record(
        record_of(match_id=match_id),
        hand_budget=settings.BURACO_ANALYSIS_HAND_SECONDS, match_budget=settings.BURACO_ANALYSIS_MATCH_SECONDS,
    )
    findings_store(match_id=match_id, findings=analysis.findings, unsearched=[u.as_dict() for u in analysis.unsearched])
    return "partial" if analysis.partial else "analysed"


@transaction.atomic
def findings_store(
    *, match_id: int, findings: Sequence[EngineFinding], unsearched: Sequence[dict[str, Any]] = ()
) -> None:
    """Replace the match's findings with these, and mark its analysis job done, with the
    decisions a CPU budget cut (``unsearched``: the analysis is then partial, and says so).

    The job's row is locked first, so that two runs of one job (a lease taken over)
    replace the findings one after the other instead of adding to each other's.
    """
    Job.objects.select_for_update().filter(match_id=match_id, kind=Job.Kind.ANALYZE).first()
    Finding.objects.filter(match_id=match_id).delete()
    match = Match.objects.only("pk", "players", "sides").get(pk=match_id)
    rows_insert(Finding, (Finding.of(match, finding) for finding in findings))
    result = {"partial": bool(unsearched), "unsearched": list(unsearched)}
    job_finish(match_id=match_id, kind=Job.Kind.ANALYZE, version=ANALYSIS_VERSION, result=result)
    analysis_stored.send(sender=Finding, match_id=match_id)


def analyses_requeue_outdated(*, include_failed: bool = True) -> int:
    """Queue again the analysis of every verified match whose findings come from another
    analysis version, or that was never analysed (and failed analyses)."""
    jobs = Job.objects.filter(match=OuterRef("pk"))
    verified = Exists(jobs.filter(kind=Job.Kind.VERIFY, status=Job.Status.DONE))
    analyses = jobs.filter(kind=Job.Kind.ANALYZE)
    outdated = Q(Exists(analyses.filter(status=Job.Status.DONE).exclude(version=ANALYSIS_VERSION)))
    outdated |= ~Q(Exists(analyses))
    if include_failed:
        outdated |= Q(Exists(analyses.filter(status=Job.Status.FAILED)))
    ids = list(Match.objects.filter(Q(verified) & outdated).values_list("pk", flat=True))
    if not ids:
        return 0
    with transaction.atomic():
        jobs_requeue(match_ids=ids, kind=Job.Kind.ANALYZE, queue=ANALYSIS_QUEUE)
    return len(ids)

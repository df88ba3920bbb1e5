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
from .signals import analysis_stored, findings_replaced

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
    replace the findings one after the other instead of adding to each other's. A match
    analysed again announces which new finding follows each old one
    (``signals.findings_replaced``) before the old ones go: a user's puzzle of a chance
    the new analysis still finds is kept, with its progress.
    """
    Job.objects.select_for_update().filter(match_id=match_id, kind=Job.Kind.ANALYZE).first()
    old = list(Finding.objects.filter(match_id=match_id).order_by("pk").values_list(*IDENTITY))
    match = Match.objects.only("pk", "players", "sides").get(pk=match_id)
    rows_insert(Finding, Finding.rows_of(match, findings))
    if old:
        # The new rows' ids come after every old one's (one sequence; the old rows committed).
        last = old[-1][0]
        new = Finding.objects.filter(match_id=match_id, pk__gt=last).order_by("pk").values_list(*IDENTITY)
        findings_replaced.send(sender=Finding, match_id=match_id, successors=finding_successors(old, list(new)))
        Finding.objects.filter(match_id=match_id, pk__lte=last).delete()
    result = {"partial": bool(unsearched), "unsearched": list(unsearched)}
    job_finish(match_id=match_id, kind=Job.Kind.ANALYZE, version=ANALYSIS_VERSION, result=result)
    analysis_stored.send(sender=Finding, match_id=match_id)


# What tells a finding's chance apart, after its id: a run's ply may move within its span.
IDENTITY = ("pk", "hand", "seat", "kind", "ply", "first_ply", "last_ply")
Identity = tuple[int, int, int | None, str, int | None, int | None, int | None]


def finding_successors(old: Sequence[Identity], new: Sequence[Identity]) -> dict[int, int]:
    """Each old finding's successor among ``new`` (rows of :data:`IDENTITY`): the new finding
    of the same hand, seat and kind at the same ply, or else the first whose span (its run's
    first to last ply) holds the old ply. An old finding with neither has none.

    >>> old = [(1, 1, 2, "missed-canasta", 30, 26, 30), (2, 1, 2, "dangerous-discard", 41, 41, 41),
    ...        (3, 2, 1, "missed-going-out", 12, 12, 12)]
    >>> new = [(7, 1, 2, "missed-canasta", 22, 18, 34), (8, 1, 2, "dangerous-discard", 41, 41, 41)]
    >>> finding_successors(old, new)
    {1: 7, 2: 8}
    """
    by_chance: dict[tuple[int, int | None, str], list[Identity]] = {}
    for row in new:
        by_chance.setdefault((row[1], row[2], row[3]), []).append(row)
    successors = {}
    for pk, hand, seat, kind, ply, _, _ in old:
        rows = by_chance.get((hand, seat, kind), [])
        same = next((row for row in rows if row[4] == ply), None)
        if same is None and ply is not None:
            same = next((row for row in rows if _span(row)[0] <= ply <= _span(row)[1]), None)
        if same is not None:
            successors[pk] = same[0]
    return successors


def _span(row: Identity) -> tuple[int, int]:
    ply = row[4] or 0
    return (row[5] or ply, row[6] or ply)


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

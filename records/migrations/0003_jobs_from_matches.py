"""Each existing match gets its verify job (status, queue, lease, attempts moved over), and the
parts of the stored report that the rows did not hold yet (sides, plies) move to the rows."""

from django.db import migrations

# Match.status (as stored until now) -> the verify job's status.
JOB_STATUS = {
    "pending": "pending",
    "verifying": "running",
    "verified": "done",
    "invalid": "done",
    "failed": "failed",
}


def jobs_from_matches(apps, schema_editor):  # type: ignore[no-untyped-def]
    Match = apps.get_model("records", "Match")
    Hand = apps.get_model("records", "Hand")
    Job = apps.get_model("records", "Job")
    matches = Match.objects.order_by("pk").only(
        "pk", "status", "queue", "attempts", "claimed_at", "enqueued_at", "verified_at", "engine_version",
        "error", "report",
    )
    jobs = []
    for match in matches.iterator(chunk_size=500):
        status = JOB_STATUS.get(match.status, "pending")
        report = match.report or None
        failure = None
        if status == "failed":
            # Until now a failed match kept the failure in its error; it is the job's now,
            # and the match's error is its verdict's first illegal action again (if any).
            failure = match.error
            match.error = report.get("error") if report else None
        if report:
            match.sides = report.get("sides")
            for hand in report.get("hands") or []:
                Hand.objects.filter(match_id=match.pk, number=hand.get("hand")).update(plies=hand.get("plies"))
        match.save(update_fields=["error", "sides"])
        jobs.append(
            Job(
                match_id=match.pk,
                kind="verify",
                status=status,
                queue=match.queue or "interactive",
                attempts=match.attempts,
                claimed_at=match.claimed_at,
                enqueued_at=match.enqueued_at,
                finished_at=match.verified_at if status == "done" else None,
                error=failure,
                version=match.engine_version if status == "done" else "",
            )
        )
        if len(jobs) >= 500:
            Job.objects.bulk_create(jobs)
            jobs = []
    Job.objects.bulk_create(jobs)


MATCH_STATUS = {"pending": "pending", "running": "verifying", "failed": "failed"}


def matches_from_jobs(apps, schema_editor):  # type: ignore[no-untyped-def]
    """Back to the stored status and report, rebuilt from the verify jobs and the rows."""
    Match = apps.get_model("records", "Match")
    Hand = apps.get_model("records", "Hand")
    Job = apps.get_model("records", "Job")
    jobs = {job.match_id: job for job in Job.objects.filter(kind="verify")}
    for match in Match.objects.order_by("pk").iterator(chunk_size=500):
        job = jobs.get(match.pk)
        if job is not None and job.status in MATCH_STATUS:
            match.status = MATCH_STATUS[job.status]
        elif match.valid is not None:
            match.status = "verified" if match.valid else "invalid"
        else:
            match.status = "pending"
        if job is not None:
            match.queue, match.attempts = job.queue, job.attempts
            match.claimed_at, match.enqueued_at = job.claimed_at, job.enqueued_at
        report = None
        if match.valid is not None:
            hands = [
                {
                    "hand": hand.number, "valid": hand.valid, "finished": hand.finished, "scores": hand.scores,
                    "parts": hand.parts, "claimed": hand.claimed, "mismatches": hand.mismatches,
                    "ended_by": hand.ended_by or None, "out_by": hand.out_by, "plies": hand.plies or 0,
                    "error": hand.error,
                }
                for hand in Hand.objects.filter(match_id=match.pk).order_by("number")
            ]
            report = {
                "variant": match.variant, "valid": match.valid, "scores_match": match.scores_match,
                "error": match.error, "sides": match.sides, "hands": hands, "totals": match.totals,
                "winner": match.winner,
            }
        match.report = report
        if job is not None and job.status == "failed":
            match.error = job.error
        match.save(update_fields=["status", "queue", "attempts", "claimed_at", "enqueued_at", "report", "error"])


class Migration(migrations.Migration):

    dependencies = [
        ("records", "0002_job"),
    ]

    operations = [
        migrations.RunPython(jobs_from_matches, matches_from_jobs),
    ]

"""Writes: judging the luck of an analysed match's draws and storing it.

A luck job is a job like the analysis (:func:`records.jobs.job_claim`), queued once the
analysis is stored (``analysis.signals.analysis_stored``) on the lowest-priority queue: a
redelivered or retried job is skipped or replaces the match's rows in one transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.db import transaction

from buraco.analysis.luck import LUCK_VERSION, HandLuck, match_luck
from buraco.cards import CARD_TEXT
from records.jobs import job_claim, job_finish, jobs_requeue
from records.models import Job
from records.reading import record_of

from .models import DrawLuck, SeatLuck

LUCK_KIND = "luck"
# Below everything else (settings.BURACO_QUEUES lists it last).
LUCK_QUEUE = "luck"


def luck_queue_after_analysis(sender: Any, match_id: int, **_: Any) -> None:
    """``analysis.signals.analysis_stored``: a stored analysis has its luck judged (again),
    queued in the analysis's transaction and sent once it commits."""
    jobs_requeue(match_ids=[match_id], kind=LUCK_KIND, queue=LUCK_QUEUE)


def match_luck_job(*, match_id: int) -> str:
    """Judge the luck of one match's stock draws with the engine and store it. Idempotent."""
    if not job_claim(match_id=match_id, kind=LUCK_KIND):
        return "skipped"
    hands = match_luck(record_of(match_id=match_id), match_budget=settings.BURACO_LUCK_MATCH_SECONDS)
    luck_store(match_id=match_id, hands=hands)
    return "partial" if any(h.unsearched for h in hands) else "judged"


@transaction.atomic
def luck_store(*, match_id: int, hands: Sequence[HandLuck]) -> None:
    """Replace the match's luck rows with these and mark its luck job done, saying how many
    draws were judged and how many the CPU budget left (the job is then partial)."""
    Job.objects.select_for_update().filter(match_id=match_id, kind=LUCK_KIND).first()
    SeatLuck.objects.filter(match_id=match_id).delete()
    DrawLuck.objects.filter(match_id=match_id).delete()
    seats = []
    draws = []
    for hand in hands:
        for seat, luck in hand.by_seat.items():
            side = hand.side_of[seat]
            mine = [d for d in hand.draws if d.seat == seat]
            seats.append(SeatLuck(
                match_id=match_id, hand=hand.hand, seat=seat, side=side + 1, luck=float(luck),
                score=hand.scores[side], draws=sum(1 for d in mine if d.judged),
                unsearched=sum(1 for d in mine if not d.judged),
            ))
        for draw in hand.draws:
            draws.append(DrawLuck(
                match_id=match_id, hand=draw.hand, ply=draw.ply, seat=draw.seat, card=CARD_TEXT[draw.card],
                value=draw.value, expected=None if draw.expected is None else float(draw.expected),
                luck=None if draw.luck is None else float(draw.luck), low=draw.low, high=draw.high,
                unseen=draw.unseen, judged=draw.judged,
            ))
    SeatLuck.objects.bulk_create(seats)
    DrawLuck.objects.bulk_create(draws)
    judged = sum(1 for h in hands for d in h.draws if d.judged)
    unsearched = sum(1 for h in hands for d in h.draws if not d.judged)
    result = {"hands": len(hands), "draws": judged, "unsearched": unsearched, "partial": bool(unsearched),
              "seconds": round(sum(h.seconds for h in hands), 3)}
    job_finish(match_id=match_id, kind=LUCK_KIND, version=LUCK_VERSION, result=result)

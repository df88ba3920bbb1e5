"""Reads: who may see what, filtered lists, the verification report, replay states, queue status."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Count, Min
from django.utils import timezone

from buraco.actions import ActionSyntaxError, parse_action
from buraco.cards import parse_cards
from buraco.errors import BuracoError
from buraco.notation import Record, dumps
from buraco.replay import canonical, deal_hand, try_from
from buraco.rules import find_variant
from buraco.state import HandState

from . import jobs, permissions, timelines
from .filters import MatchFilter
from .jobs import embedded
from .models import Batch, Hand, Job, Match, MatchQuerySet
from .reading import record_of
from .services import ENGINE_VERSION
from .timelines import ReplayConflict


def visible_matches(*, user: User | AnonymousUser) -> MatchQuerySet:
    """Own matches, matches shared with the user, and public ones (``permissions.readable_matches``)."""
    return permissions.readable_matches(user=user)


def match_for_reader(*, user: User | AnonymousUser, match_id: int, share: str | None) -> Match | None:
    """The match if this reader may read it (``permissions.can_read``): visible to the user,
    or opened by its share link.

    It comes with its ``status`` and its jobs (``match.job(kind)``).
    """
    match = Match.objects.with_status().prefetch_related("jobs").filter(pk=match_id).first()
    if match is None or not permissions.can_read(user, match, share):
        return None
    return match


def match_list(*, user: User | AnonymousUser, filters: MatchFilter | None = None) -> MatchQuerySet:
    """The matches ``user`` may read, with their status, filtered by ``filters`` (a bound
    :class:`~records.filters.MatchFilter`, valid; None: all)."""
    matches = visible_matches(user=user).with_status()
    if filters is not None:
        matches = filters.filter_queryset(matches)
    return matches.defer("source").select_related("owner").prefetch_related("jobs")


def match_statuses(*, match_ids: list[int]) -> dict[int, str]:
    """Each match's status, by id."""
    return dict(Match.objects.with_status().filter(pk__in=match_ids).values_list("pk", "status"))  # type: ignore[misc]


def match_failure(*, match: Match) -> dict[str, Any] | None:
    """Why the match's verification could not finish, while it stands failed."""
    job = match.job(Job.Kind.VERIFY)
    return job.error if job is not None and job.status == Job.Status.FAILED else None


def match_report(*, match: Match) -> dict[str, Any] | None:
    """The verification report, as ``buraco.replay.MatchReport.as_dict()`` gives it, built
    from the stored verdict (the match's summary and its hands' rows); None until verified."""
    if match.valid is None:
        return None
    hands = [
        {
            "hand": hand.number,
            "valid": hand.valid,
            "finished": hand.finished,
            "scores": hand.scores,
            "parts": hand.parts,
            "claimed": hand.claimed,
            "mismatches": hand.mismatches,
            "ended_by": hand.ended_by or None,
            "out_by": hand.out_by,
            "plies": hand.plies if hand.plies is not None else 0,
            "error": hand.error,
        }
        for hand in match.hands.all()
    ]
    return {
        "variant": match.variant,
        "valid": match.valid,
        "scores_match": match.scores_match,
        "error": match.error,
        "sides": match.sides or [],
        "hands": hands,
        "totals": match.totals,
        "totals_through_hand": totals_through_hand(hands=hands),
        "winner": match.winner,
    }


def totals_through_hand(*, hands: list[dict[str, Any]] | list[Hand]) -> int:
    """How many hands (from hand 1) the totals sum: up to the first without a score (illegal
    or unfinished), as ``buraco.replay.MatchReport.totals_through``; 0 means no total is known."""
    count = 0
    for hand in hands:
        scores = hand["scores"] if isinstance(hand, dict) else hand.scores
        if scores is None:
            break
        count += 1
    return count


def match_source(*, match: Match) -> tuple[bytes, str, str]:
    """The upload byte for byte, a file name for it (the original one's last part) and its
    content type."""
    name = match.file_name or f"match-{match.pk}.brn"
    content_type = "application/json" if match.source_format == "json" else "application/toml"
    return bytes(match.source), name, content_type


def match_record(*, match: Match) -> Record:
    """The match's record, as read at upload (``records.reading``)."""
    return record_of(match_id=match.pk)


def match_canonical_brn(*, match: Match) -> str:
    """The record written canonically (melds in layout order where legal): made on the first
    read and stored on the match, so later reads do not parse the record again."""
    stored = Match.objects.filter(pk=match.pk).values_list("canonical_brn", "canonical_engine").first()
    if stored is not None and stored[0] is not None and stored[1] == ENGINE_VERSION:
        return stored[0]
    text = dumps(canonical(match_record(match=match)))
    # Filling a cache, not changing what is stored: two first reads at once write the same.
    Match.objects.filter(pk=match.pk).update(canonical_brn=text, canonical_engine=ENGINE_VERSION)
    return text


def hand_timeline(*, match: Match, number: int) -> timelines.Timeline:
    """Hand ``number``'s timeline (``buraco.replay.iter_timeline``: the deal first, up to the
    first illegal action, whose error it holds), as stored ready to send (records/timelines.py).

    A stored record the engine cannot read raises :class:`ReplayConflict`."""
    return timelines.hand_timeline(match=match, number=number)


def readable_timeline(
    *, user: User | AnonymousUser, match_id: int, number: int, share: str | None
) -> tuple[Match, timelines.Timeline] | None:
    """The thin read path: hand ``number``'s stored timeline if this reader may read the match
    (``permissions.can_read``), from one query (``timelines.stored_timeline_row``); None when it
    is not to be had that way (no such hand row, or not theirs to read): the full path
    (:func:`match_for_reader`, :func:`hand_timeline`) then gives the answer and its reason."""
    found = timelines.stored_timeline_row(match_id=match_id, number=number)
    if found is None or not permissions.can_read(user, found[0], share):
        return None  # checked before anything is replayed
    match, row = found
    return match, timelines.timeline_of_row(match_id, number, row)


def hand_plies(*, match: Match, number: int) -> int:
    """How many actions hand ``number`` records (as stored at upload)."""
    actions = Hand.objects.filter(match=match, number=number).values_list("actions", flat=True).first()
    if actions is None:  # no hand rows: read the record itself (its error is a 409)
        return len(match_record(match=match).hands[number - 1].parsed)
    return len(actions)


def hand_state_json(*, match: Match, number: int, ply: int) -> bytes:
    """The JSON of the timeline entry after ``ply`` actions (``0 <= ply <= hand_plies()``);
    ReplayConflict when ``ply`` lies past the first illegal action."""
    timeline = hand_timeline(match=match, number=number)
    if ply > timeline.plies:
        error = timeline.error or {"message": f"the replay of hand {number} stops at ply {timeline.plies}"}
        raise ReplayConflict(f"ply {ply} lies past the first illegal action", error)
    return timeline.state_json(ply)


def hand_try(*, match: Match, number: int, ply: int, actions: list[str]) -> list[dict[str, Any]]:
    """Other actions played from the table after ``ply`` actions (``buraco.replay.try_from``):
    per action the entry after it, or the error that stops the line. Nothing is stored.

    Replayed from the stored hand alone (its deal and actions, as the upload stored them),
    never from the whole record: a try costs one hand's replay up to ``ply``, whatever the
    record's size."""
    hand = Hand.objects.filter(match=match, number=number).values("dealer", "deal", "actions", "error").first()
    stopped: dict[str, Any] = (hand["error"] if hand is not None else None) or {}
    if stopped.get("ply") is not None and ply >= stopped["ply"]:  # the verdict found it: no replay
        raise ReplayConflict(f"ply {ply} lies past the first illegal action", stopped)
    if hand is None:  # no hand rows: a stored record its hands were never read from
        record = match_record(match=match)
        state = deal_hand(record, number - 1)
        recorded = len(record.hands[number - 1].parsed)
        played = [action.text for action in record.hands[number - 1].parsed[:ply]]
    else:
        deal = hand["deal"]
        try:
            state = HandState.deal(
                find_variant(match.variant), len(match.players), hand["dealer"],
                [parse_cards(cards) for cards in deal["dealt"]],
                [parse_cards(cards) for cards in deal.get("dead", [])],
                parse_cards(deal["discard"])[0] if deal.get("discard") else None,
                parse_cards(deal["stock"]) if "stock" in deal else None,
            )
        except BuracoError as failure:
            raise ReplayConflict("the stored hand's deal cannot be replayed", failure.as_dict()) from None
        recorded = len(hand["actions"])
        played = list(hand["actions"][:ply])
    players = len(match.players)
    for done, text in enumerate(played, start=1):
        try:
            state.apply(parse_action(text, players))
        except BuracoError as failure:  # before the verdict: found here
            raise ReplayConflict(f"ply {ply} lies past the first illegal action",
                                 failure.located(hand=number, ply=done, action=text).as_dict()) from None
        except ActionSyntaxError as failure:
            raise ReplayConflict(f"ply {ply} lies past the first illegal action",
                                 {"hand": number, "ply": done, "action": text, "message": str(failure)}) from None
    if 0 < ply == recorded:
        state.finish_by_stock()  # as buraco.replay.iter_hand: the record stops at an empty stock
    return try_from(state, actions, hand=number, ply=ply)


def status_counts(*, matches: MatchQuerySet) -> dict[str, int]:
    """How many of these matches stand in each status."""
    by_status = matches.with_status().order_by().values("status").annotate(n=Count("id"))  # type: ignore[misc]
    return {row["status"]: row["n"] for row in by_status}


def batch_progress(*, batch: Batch) -> dict[str, Any]:
    """Counted from the batch's matches as they are now (a deleted match leaves the count):
    their verification, then their analysis (the analyze jobs, queued once a verdict is
    stored, by status: ``analysed``, ``analysing``, ``analysis_waiting``, ``analysis_failed``).
    ``analysis_finished`` once every verdict's analysis is done or failed."""
    counts = status_counts(matches=Match.objects.filter(batch=batch))
    total = sum(counts.values())
    done = counts.get(Match.Status.VERIFIED, 0) + counts.get(Match.Status.INVALID, 0)
    failed = counts.get(Match.Status.FAILED, 0)
    analyses = dict(
        Job.objects.filter(match__batch=batch, kind=Job.Kind.ANALYZE).order_by().values_list("status")
        .annotate(n=Count("id")).values_list("status", "n")
    )
    analysed, analysis_failed = analyses.get(Job.Status.DONE, 0), analyses.get(Job.Status.FAILED, 0)
    return {
        "id": batch.pk,
        "label": batch.label,
        "created_at": batch.created_at,
        "total": total,
        "done": done,
        "failed": failed,
        "verified": counts.get(Match.Status.VERIFIED, 0),
        "invalid": counts.get(Match.Status.INVALID, 0),
        "pending": total - done - failed,
        "finished": done + failed >= total,
        "analysed": analysed,
        "analysing": analyses.get(Job.Status.RUNNING, 0),
        "analysis_waiting": analyses.get(Job.Status.PENDING, 0),
        "analysis_failed": analysis_failed,
        # Every verdict (verified or invalid) is analysed; a match whose verification failed is not.
        "analysis_finished": done + failed >= total and analysed + analysis_failed >= done,
    }


def batch_events(*, batch: Batch) -> list[dict[str, Any]]:
    """What has finished in a batch, in the order it finished: each verdict (``verify``) and
    each analysis (``analyze``) of its matches, ``{"event", "match", "status"}`` (status
    ``verified``, ``invalid`` or ``failed`` for a verdict; ``done`` or ``failed`` for an
    analysis). A job done again (a reverify) counts where it finished last."""
    finished = (
        Job.objects.filter(match__batch=batch, kind__in=(Job.Kind.VERIFY, Job.Kind.ANALYZE),
                           status__in=(Job.Status.DONE, Job.Status.FAILED))
        .order_by("finished_at", "id").values_list("kind", "match_id", "status", "match__valid")
    )
    events = []
    for kind, match_id, status, valid in finished:
        if kind == Job.Kind.VERIFY:
            verdict = Match.Status.FAILED if status == Job.Status.FAILED else (
                Match.Status.VERIFIED if valid else Match.Status.INVALID)
            events.append({"event": "verdict", "match": match_id, "status": verdict})
        else:
            events.append({"event": "analysis", "match": match_id, "status": status})
    return events


def queue_status(*, user: User | AnonymousUser) -> dict[str, Any]:
    """Depth of each queue (jobs of every kind) and the oldest job still waiting; the counts
    of matches and jobs by status only of the matches ``user`` may read (``permissions.readable_matches``)."""
    queues: dict[str, Any] = {}
    pending = (
        Job.objects.filter(status__in=[Job.Status.PENDING, Job.Status.RUNNING])
        .order_by()
        .values("queue")
        .annotate(n=Count("id"), oldest=Min("enqueued_at"))
    )
    by_queue = {row["queue"]: row for row in pending}
    broker = _broker_depths()
    # A subquery: the shared-with join would count a match once per row otherwise.
    readable = Match.objects.filter(pk__in=visible_matches(user=user).values("pk"))
    now = timezone.now()
    oldest_overall = None
    for name in settings.BURACO_QUEUES:
        row = by_queue.get(name, {"n": 0, "oldest": None})
        oldest = row["oldest"]
        if oldest is not None and (oldest_overall is None or oldest < oldest_overall):
            oldest_overall = oldest
        queues[name] = {
            "waiting": row["n"],
            "broker_depth": broker.get(name) if broker is not None else None,
            "oldest_enqueued_at": oldest,
            "oldest_age_seconds": round((now - oldest).total_seconds(), 1) if oldest else None,
        }
    return {
        "broker": "in-process" if embedded() else "redis",
        "queues": queues,
        "oldest_waiting_enqueued_at": oldest_overall,
        "oldest_waiting_age_seconds": round((now - oldest_overall).total_seconds(), 1) if oldest_overall else None,
        "counts": status_counts(matches=readable),
        "jobs": {
            kind: dict(
                Job.objects.filter(kind=kind, match__in=readable).order_by().values_list("status")
                .annotate(n=Count("id"))
                .values_list("status", "n")
            )
            for kind in jobs.kinds()
        },
    }


def _broker_depths() -> dict[str, int] | None:
    """Messages waiting in the broker per queue: kombu's passive declare of each queue (on
    Redis it counts every priority step's list)."""
    if embedded():
        return None
    try:
        from kombu import Connection
        from kombu.exceptions import ChannelError

        with Connection(settings.CELERY_BROKER_URL, connect_timeout=2, transport_options={"socket_timeout": 2}) as conn:
            channel = conn.default_channel
            depths = {}
            for name in settings.BURACO_QUEUES:
                try:
                    depths[name] = int(channel.queue_declare(queue=name, passive=True).message_count)
                except ChannelError:  # Redis keeps no list for an empty queue: nothing waits there
                    depths[name] = 0
            return depths
    except Exception:  # the status page must answer even when the broker does not (or has no such queue yet)
        return None

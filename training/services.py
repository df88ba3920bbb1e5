"""Making puzzles, and answering them: the engine judges (``buraco.analysis.puzzles``), SM-2
schedules (``training.scheduling``).

Which findings make a user's puzzles (docs/analysis.md, "Training"): every finding with a seat
and a witness (missed canasta, missed going out, dangerous discard) of the matches the user
uploaded, of the seats whose player name is the user's username (compared without case), or
of every seat when no seat's name is; and any finding a coach (a user who may review the
match) shares with the match's owner.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from analysis.models import Finding
from buraco.analysis.puzzles import PUZZLE_KINDS, IllegalAttempt, Judgement, judge, makes_puzzle
from records import selectors as records_selectors

from .models import Attempt, Puzzle
from .scheduling import Schedule, quality_of, review


def own_seats(players: list[str], username: str) -> list[int]:
    """The seats (from 1) a user trains on in their own upload: those named as the user, or all.

    >>> own_seats(["Ana", "Bo"], "ana"), own_seats(["Ana", "Bo"], "cy")
    ([1], [1, 2])
    """
    mine = [seat for seat, name in enumerate(players, start=1) if str(name).casefold() == username.casefold()]
    return mine or list(range(1, len(players) + 1))


def candidate_findings(user: AbstractBaseUser) -> Any:
    """The findings of the user's own uploads that may make puzzles, not yet the user's."""
    return (Finding.objects.filter(match__owner_id=user.pk, kind__in=PUZZLE_KINDS, seat__isnull=False,
                                   ply__isnull=False)
            .exclude(witness=[]).exclude(puzzles__user_id=user.pk))


def sync_puzzles(user: AbstractBaseUser) -> int:
    """Make the user's missing puzzles from their own uploads (each new one due today); how many."""
    username = str(user.get_username())
    seats: dict[int, set[int]] = {}
    new = []
    today = timezone.now().date()
    rows = candidate_findings(user).values_list("id", "match_id", "seat", "match__players")
    for finding_id, match_id, seat, players in rows:  # one query, whatever the number of matches
        if match_id not in seats:
            seats[match_id] = set(own_seats(list(players or []), username))
        if seat in seats[match_id]:
            new.append(Puzzle(finding_id=finding_id, user_id=user.pk, due=today))
    if new:
        Puzzle.objects.bulk_create(new, ignore_conflicts=True)
    return len(new)


def puzzles_follow_findings(sender: Any, match_id: int, successors: dict[int, int], **_: Any) -> None:
    """``analysis.signals.findings_replaced``: each puzzle of the match's old findings moves,
    with its schedule and attempts, onto the new finding of the same chance; a puzzle whose
    chance the new analysis no longer finds is deleted. Where two old findings have one
    successor, a user keeps the puzzle trained on most (then the older)."""
    puzzles = Puzzle.objects.filter(finding__match_id=match_id).order_by("-repetitions", "pk")
    moved: list[Puzzle] = []
    gone: list[int] = []
    taken: set[tuple[int, int]] = set()
    for puzzle in puzzles.only("pk", "finding_id", "user_id"):
        successor = successors.get(puzzle.finding_id)
        if successor is None or (successor, puzzle.user_id) in taken:
            gone.append(puzzle.pk)
            continue
        taken.add((successor, puzzle.user_id))
        puzzle.finding_id = successor
        moved.append(puzzle)
    if gone:
        Puzzle.objects.filter(pk__in=gone).delete()
    if moved:
        Puzzle.objects.bulk_update(moved, ["finding"])


class NotAPuzzle(ValueError):
    pass


def share_puzzle(*, coach: AbstractBaseUser, finding: Finding) -> tuple[Puzzle, bool]:
    """The puzzle of ``finding`` for its match's owner, picked by ``coach`` (who may review the
    match: the caller checks); whether it is new. One a user already has is left as it is."""
    if not makes_puzzle(finding.as_engine()):
        raise NotAPuzzle("only a missed canasta, a missed going out or a dangerous discard with a witness makes a puzzle")
    return Puzzle.objects.get_or_create(
        finding=finding, user_id=finding.match.owner_id,
        defaults={"shared_by_id": coach.pk, "due": timezone.now().date()},
    )


@dataclass(frozen=True)
class Answer:
    judgement: Judgement
    attempt: Attempt
    puzzle: Puzzle


def answer(*, puzzle: Puzzle, actions: list[str]) -> Answer:
    """Judge ``actions`` on the puzzle, keep the attempt and the new schedule. Raises
    :class:`buraco.analysis.puzzles.IllegalAttempt` for a turn that cannot be played."""
    finding = puzzle.finding
    record = records_selectors.match_record(match=finding.match)
    engine_finding = finding.as_engine()
    judgement = judge(record, engine_finding, actions)
    quality = quality_of(judgement.verdict, judgement.short_by, int(engine_finding.points or 0))
    today = timezone.now().date()
    with transaction.atomic():
        locked = Puzzle.objects.select_for_update().get(pk=puzzle.pk)
        after = review(Schedule(locked.ease, locked.interval_days, locked.repetitions, locked.due), quality, today)
        locked.ease, locked.interval_days, locked.repetitions = after.ease, after.interval, after.repetitions
        locked.due = after.due or today
        locked.save(update_fields=["ease", "interval_days", "repetitions", "due"])
        attempt = Attempt.objects.create(
            puzzle=locked, user_id=locked.user_id, actions=list(actions), verdict=judgement.verdict,
            points=judgement.points, best_points=judgement.best_points, short_by=judgement.short_by, quality=quality,
        )
    locked.finding = finding
    return Answer(judgement, attempt, locked)


__all__ = ["Answer", "IllegalAttempt", "NotAPuzzle", "answer", "candidate_findings", "own_seats", "share_puzzle",
           "sync_puzzles"]

"""SM-2 spaced repetition (docs/analysis.md, "Training"): a pure function of the last schedule,
the answer's quality (0 to 5) and the day.

>>> from datetime import date
>>> today = date(2026, 1, 1)
>>> first = review(Schedule(), 5, today)
>>> first.repetitions, first.interval, first.due.isoformat(), first.ease
(1, 3, '2026-01-04', 2.6)
>>> failed = review(first, 2, today)
>>> failed.repetitions, failed.interval, failed.due.isoformat()
(0, 1, '2026-01-02')
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

START_EASE = 2.5
MIN_EASE = 1.3
# SM-2's first interval is 1 day, the same as after a failure; here a first solve waits 3 days,
# so that a puzzle failed always comes back sooner than one solved (the one change to SM-2).
FIRST_INTERVAL = 3
SECOND_INTERVAL = 6
PASSING = 3  # a quality below this is a failure


@dataclass(frozen=True)
class Schedule:
    ease: float = START_EASE
    interval: int = 0  # days
    repetitions: int = 0  # correct answers in a row
    due: date | None = None  # None: new, due now


def review(schedule: Schedule, quality: int, today: date) -> Schedule:
    """The schedule after an answer of ``quality``: SM-2 (Wozniak, 1987), with the first
    interval of :data:`FIRST_INTERVAL` days."""
    if not 0 <= quality <= 5:
        raise ValueError("quality is 0 to 5")
    ease = schedule.ease + (0.1 - (5 - quality) * (0.08 + (5 - quality) * 0.02))
    ease = round(max(MIN_EASE, ease), 4)
    if quality < PASSING:
        repetitions, interval = 0, 1
    else:
        repetitions = schedule.repetitions + 1
        if repetitions == 1:
            interval = FIRST_INTERVAL
        elif repetitions == 2:
            interval = SECOND_INTERVAL
        else:
            interval = max(1, round(schedule.interval * ease))
    return Schedule(ease=ease, interval=interval, repetitions=repetitions, due=today + timedelta(days=interval))


def quality_of(verdict: str, short_by: int, stake: int) -> int:
    """The SM-2 quality of an answer: best 5; good (better than the turn as played, short of the
    best) 3; short 2 when it did no worse than the turn as played (short by at most the
    finding's ``stake``), 1 when worse, 0 when short by more than twice the stake.

    >>> quality_of("best", 0, 100), quality_of("good", 40, 100), quality_of("short", 100, 100)
    (5, 3, 2)
    >>> quality_of("short", 150, 100), quality_of("short", 250, 100)
    (1, 0)
    """
    if verdict == "best":
        return 5
    if verdict == "good":
        return 3
    stake = max(1, stake)
    if short_by <= stake:
        return 2
    if short_by <= 2 * stake:
        return 1
    return 0

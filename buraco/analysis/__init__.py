"""Analysis: where the points went in each hand of a record.

``analyze(record)`` replays every hand and reports, as :class:`Finding` values,
scoring mistakes in the claimed results, canastas and going out the player could
have reached in a turn and did not, and discards that handed the next player the
pile. Every finding of a turn carries its witness: the better play of the whole
turn, which the engine replays. docs/analysis.md says what each kind means.

The package is pure Python, like the rest of the engine; it judges plays only
through the engine's own state machine (:mod:`buraco.moves` proposes, the
:class:`~buraco.state.HandState` judges).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..notation import Record
from ..replay import verify
from .findings import (
    ANALYSIS_VERSION,
    DANGEROUS_DISCARD,
    KINDS,
    MISSED_CANASTA,
    MISSED_GOING_OUT,
    SCORING_MISTAKE,
    Finding,
    sort_key,
)
from .slips import scoring_findings
from .turns import Unsearched, turn_findings


@dataclass(frozen=True)
class Analysis:
    """What :func:`analyze_record` found, and the decisions it could not search in full."""

    findings: list[Finding]
    unsearched: list[Unsearched]


def analyze_record(record: Record, *, min_points: int = 0) -> Analysis:
    """Every finding of every hand, in hand and ply order, with the turns whose search
    stopped at its limit (see docs/analysis.md).

    ``min_points`` drops findings worth fewer points; findings without points (a
    missed going out in an unfinished hand) are kept only when it is 0.
    """
    report = verify(record)
    findings: list[Finding] = list(scoring_findings(record, report))
    unsearched: list[Unsearched] = []
    for index, hand in enumerate(report.hands):
        if hand.error is not None and hand.error.ply is None:
            continue  # a broken deal, or a hand after an unfinished one: nothing was played
        findings.extend(turn_findings(record, index, unsearched))
    kept = sorted((f for f in findings if _worth(f, min_points)), key=sort_key)
    return Analysis(kept, unsearched)


def analyze(record: Record, *, min_points: int = 0) -> list[Finding]:
    """Every finding of every hand, in hand and ply order (:func:`analyze_record`'s findings).

    >>> from buraco.selfplay import play_match
    >>> record = play_match("cerrado", players=2, hands=1, seed=1, mistakes=1.0)
    >>> [f.kind for f in analyze(record) if f.kind == SCORING_MISTAKE]
    ['scoring-mistake']
    """
    return analyze_record(record, min_points=min_points).findings


def _worth(finding: Finding, min_points: int) -> bool:
    if finding.points is None:
        return min_points <= 0
    return finding.points >= min_points


__all__ = [
    "ANALYSIS_VERSION", "Analysis", "Unsearched", "analyze_record", "DANGEROUS_DISCARD", "Finding", "KINDS", "MISSED_CANASTA", "MISSED_GOING_OUT",
    "SCORING_MISTAKE", "analyze",
]

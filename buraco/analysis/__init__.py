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

from ..notation import Record
from ..replay import verify
from .findings import ANALYSIS_VERSION, DANGEROUS_DISCARD, KINDS, MISSED_CANASTA, MISSED_GOING_OUT, SCORING_MISTAKE
from .findings import Finding, sort_key
from .slips import scoring_findings


def analyze(record: Record, *, min_points: int = 0) -> list[Finding]:
    """Every finding of every hand, in hand and ply order.

    ``min_points`` drops findings worth fewer points; findings without points (a
    missed going out in an unfinished hand) are kept only when it is 0.
    """
    findings: list[Finding] = []
    findings.extend(scoring_findings(record, verify(record)))
    return sorted((f for f in findings if _worth(f, min_points)), key=sort_key)


def _worth(finding: Finding, min_points: int) -> bool:
    if finding.points is None:
        return min_points <= 0
    return finding.points >= min_points


__all__ = [
    "ANALYSIS_VERSION", "DANGEROUS_DISCARD", "Finding", "KINDS", "MISSED_CANASTA", "MISSED_GOING_OUT",
    "SCORING_MISTAKE", "analyze",
]

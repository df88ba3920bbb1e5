"""Analysis: where the points went in each hand of a record.

``analyze(record)`` replays every hand and reports, as :class:`Finding` values,
scoring mistakes in the claimed results, canastas and going out the player could
have reached in a turn and did not, and discards that handed the next player the
pile. Every finding of a turn carries its witness: the better play of the whole
turn, which the engine replays. docs/analysis.md says what each kind means.

The package is pure Python, like the rest of the engine; it judges plays only
through the engine's own state machine (:mod:`buraco.moves` proposes, the
:class:`~buraco.state.HandState` judges). Its searches may run compiled from the same
source, where a build of it is as new as the source (:mod:`.compiled`; ``COMPILED`` says
whether they do).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ..errors import BuracoError
from ..notation import Record
from ..replay import replay_hand, verify
from ..state import HandState
from . import compiled

# The compiled searches, where a fresh build of them exists, are found before their
# sources; so the package's own modules are imported after this line.
__path__[:0] = compiled.search_path()

from . import exits, proposals, search, turns  # noqa: E402
from .collector import collector_paused  # noqa: E402
from .findings import (  # noqa: E402
    ANALYSIS_VERSION,
    BLUNDER,
    DANGEROUS_DISCARD,
    INACCURACY,
    KINDS,
    LOST,
    MISSED_CANASTA,
    MISSED_GOING_OUT,
    MISTAKE,
    OUTCOMES,
    PARTLY,
    REALIZED,
    SCORING_MISTAKE,
    SEVERITIES,
    SEVERITY_THRESHOLDS,
    Finding,
    Thresholds,
    severity_of,
    sort_key,
    thresholds_for,
)
from .search import Budget, SearchContext  # noqa: E402
from .slips import scoring_findings  # noqa: E402
from .turns import Unsearched, played_turns, turn_findings  # noqa: E402

# Whether the searches run compiled (a fresh build, and BURACO_COMPILED not "off").
COMPILED = compiled.loaded([exits, proposals, search, turns])


@dataclass(frozen=True)
class Analysis:
    """What :func:`analyze_record` found, and the decisions it did not judge.

    ``unsearched`` lists every turn decision a CPU budget cut (one entry per decision:
    hand, the turn's draw ply, seat, search); ``partial`` says whether there is any, and
    ``cut_hands`` which hands. What was judged before a cut is kept in ``findings``.
    """

    findings: list[Finding]
    unsearched: list[Unsearched]

    @property
    def partial(self) -> bool:
        return bool(self.unsearched)

    @property
    def cut_hands(self) -> list[int]:
        return sorted({u.hand for u in self.unsearched})


def analyze_record(
    record: Record,
    *,
    min_points: int = 0,
    hand_budget: float | None = None,
    match_budget: float | None = None,
) -> Analysis:
    """Every finding of every hand, in hand and ply order, with the decisions a CPU
    budget cut (see docs/analysis.md).

    ``min_points`` drops findings worth fewer points; findings without points are kept
    only when it is 0. ``hand_budget`` and ``match_budget`` are seconds of CPU
    (``time.process_time``) for one hand's replay and turn searches and for the whole
    record's (each hand is replayed once, for its verdict and its searches); None
    (the default) is no limit. When a budget runs out, the decisions left are listed in
    ``Analysis.unsearched`` (the result is then ``partial``), and what was found is kept;
    the scoring mistakes and dangerous discards, which need no search, are always judged.

    >>> from buraco.selfplay import play_match
    >>> record = play_match("cerrado", players=2, hands=2, seed=1)
    >>> cut = analyze_record(record, match_budget=0.0)
    >>> cut.partial, cut.cut_hands
    (True, [1, 2])
    >>> analyze_record(record).partial
    False
    """
    context = SearchContext(record.rules)
    searched: list[Finding] = []
    unsearched: list[Unsearched] = []
    match_deadline = None if match_budget is None else time.process_time() + match_budget

    def replay_and_judge(record: Record, index: int) -> HandState:
        # One replay per hand serves the verdict and the turn searches, which judge the
        # hand at once (its tables are freed before the next hand's are made). An illegal
        # action or deal is replayed again by verify's own replay, which places it in the record.
        deadlines = [d for d in (match_deadline, None if hand_budget is None else time.process_time() + hand_budget) if d is not None]
        context.budget = Budget(min(deadlines) if deadlines else None)
        with collector_paused():  # as in the turn searches (see .collector)
            final = _judged_replay(record, index, context, searched, unsearched)
        return final if final is not None else replay_hand(record, index)

    report = verify(record, replay=replay_and_judge)
    findings = [*scoring_findings(record, report), *searched]
    kept = sorted((f for f in findings if _worth(f, min_points)), key=sort_key)
    return Analysis(kept, unsearched)


def _judged_replay(
    record: Record, index: int, context: SearchContext, found: list[Finding], unsearched: list[Unsearched]
) -> HandState | None:
    """Replay hand ``index`` turn by turn and add its turn findings to ``found``: the table
    at its end, or None where the engine refused its deal or an action (the turns before
    that action judged). Its own frame, so that the hand's turns are freed when it returns.
    An engine error raised by the searches is not a verdict on the record: verify would
    take it for one, so it leaves as a RuntimeError (the analysis fails, and says where)."""
    try:
        played = played_turns(record, index, context)
    except BuracoError:
        return None  # the deal: nothing was played
    try:
        found.extend(turn_findings(record, index, unsearched, context, played))
    except BuracoError as error:
        raise RuntimeError(f"the analysis of hand {index + 1} failed: {error}") from error
    return None if played.stopped else played.final


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
    "ANALYSIS_VERSION", "Analysis", "BLUNDER", "COMPILED", "DANGEROUS_DISCARD", "Finding", "INACCURACY", "KINDS", "LOST",
    "MISSED_CANASTA", "MISSED_GOING_OUT", "MISTAKE", "OUTCOMES", "PARTLY", "REALIZED", "SCORING_MISTAKE",
    "SEVERITIES", "SEVERITY_THRESHOLDS", "Thresholds", "Unsearched", "analyze", "analyze_record", "severity_of",
    "thresholds_for",
]

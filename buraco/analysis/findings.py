"""What an analysis reports: :class:`Finding`, a frozen value with a replayable witness.

>>> finding = Finding(hand=1, ply=12, seat=1, side=1, kind=MISSED_CANASTA, points=200,
...                   message="p1 could have laid 3h..9h as a clean canasta (200)",
...                   witness=("p1 draw 9h", "p1 meld 3h 4h 5h 6h 7h 8h 9h", "p1 discard Kc"))
>>> finding.as_dict()["witness"][1]
'p1 meld 3h 4h 5h 6h 7h 8h 9h'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final, NamedTuple

from ..rules import VARIANTS, Variant

# Bumped whenever what the analysis finds could change: the service re-runs older versions.
# 2: one finding per run of turns (first_ply, last_ply, turns, outcome, severity); a missed
# going out valued over every draw choice, and on an unfinished hand; D1 in brasil.
ANALYSIS_VERSION: Final = "2"

SCORING_MISTAKE: Final = "scoring-mistake"
MISSED_CANASTA: Final = "missed-canasta"
MISSED_GOING_OUT: Final = "missed-going-out"
DANGEROUS_DISCARD: Final = "dangerous-discard"
KINDS: Final = (SCORING_MISTAKE, MISSED_CANASTA, MISSED_GOING_OUT, DANGEROUS_DISCARD)

# How a missed chance turned out later in the hand (docs/analysis.md, "Runs"): the side
# got at least the points at stake from it, less, or nothing.
REALIZED: Final = "realized"
PARTLY: Final = "partly"
LOST: Final = "lost"
OUTCOMES: Final = (REALIZED, PARTLY, LOST)

# How much a finding cost, mildest first, as lichess grades moves.
INACCURACY: Final = "inaccuracy"
MISTAKE: Final = "mistake"
BLUNDER: Final = "blunder"
SEVERITIES: Final = (INACCURACY, MISTAKE, BLUNDER)


class Thresholds(NamedTuple):
    """The points a finding must cost to be a mistake, and a blunder; below, an inaccuracy."""

    mistake: int
    blunder: int


# Per rule set: a mistake costs a canasta's worth (the dirty canasta bonus), a blunder a
# clean canasta and going out together (clean bonus + going-out bonus). docs/analysis.md
# says why; every rule set's bonuses are 100, 200 and 100 today (rules.md 3), so the rows
# agree, and a house rule changing them gets its own row.
SEVERITY_THRESHOLDS: Final[Mapping[str, Thresholds]] = MappingProxyType({
    "abierto": Thresholds(mistake=100, blunder=300),
    "abierto-sucio": Thresholds(mistake=100, blunder=300),
    "cerrado": Thresholds(mistake=100, blunder=300),
    "cerrado-stcl": Thresholds(mistake=100, blunder=300),
    "cerrado-sucio": Thresholds(mistake=100, blunder=300),
    "burraco": Thresholds(mistake=100, blunder=300),
    "fechado-stbl": Thresholds(mistake=100, blunder=300),
    "brasil": Thresholds(mistake=100, blunder=300),
    "burraco-106": Thresholds(mistake=100, blunder=300),
})


def severity_of(cost: int | None, outcome: str | None, thresholds: Thresholds) -> str:
    """The severity of a finding that cost ``cost`` points (what the side did not get
    back later in the hand), given its ``outcome``: a realized chance is at most an
    inaccuracy; unknown costs (None) are inaccuracies.

    >>> cerrado = SEVERITY_THRESHOLDS["cerrado"]
    >>> severity_of(60, LOST, cerrado), severity_of(200, LOST, cerrado), severity_of(300, PARTLY, cerrado)
    ('inaccuracy', 'mistake', 'blunder')
    >>> severity_of(500, REALIZED, cerrado)
    'inaccuracy'
    """
    if outcome == REALIZED or cost is None:
        return INACCURACY
    if cost >= thresholds.blunder:
        return BLUNDER
    if cost >= thresholds.mistake:
        return MISTAKE
    return INACCURACY


def thresholds_for(variant: Variant) -> Thresholds:
    """The rule set's row of SEVERITY_THRESHOLDS; a house rule (a preset changed with
    ``Variant.override``) gets the rule of the table read from its own bonuses.

    >>> from buraco.rules import VARIANTS
    >>> thresholds_for(VARIANTS["brasil"])
    Thresholds(mistake=100, blunder=300)
    >>> thresholds_for(VARIANTS["brasil"].override(bonus_dirty=150, going_out_bonus=200))
    Thresholds(mistake=150, blunder=400)
    """
    found = SEVERITY_THRESHOLDS.get(variant.id)
    if found is not None and VARIANTS.get(variant.id) == variant:
        return found
    return Thresholds(variant.bonus_dirty, variant.bonus_clean + variant.going_out_bonus)


@dataclass(frozen=True)
class Finding:
    """One judged decision (or one wrong claimed score) of one hand.

    ``hand``, ``seat`` and ``side`` count from 1. ``ply`` is the action the finding
    is about (None for scoring mistakes, which belong to the hand). ``witness`` is
    the better play of the whole turn as BRN action strings, from that turn's draw
    step: replayed after the hand's actions before it, it is legal and gives what
    the finding claims. ``cause`` (scoring mistakes only) names the slips that
    explain the difference, ``+`` joining the slips of one explanation and `` | ``
    separating explanations that fit equally; ``causes`` holds the same as lists.

    A missed canasta or going out is one finding for a *run*: the player's turns one
    after another in which the chance stood open. ``ply``, ``witness`` and ``points``
    are those of the run's turn with the most at stake, ``first_ply`` and ``last_ply``
    those of its first and last turns, ``turns`` how many; ``outcome`` says whether the
    side got those points later in the hand, and ``severity`` grades what it cost
    (:func:`severity_of`, docs/analysis.md).
    """

    hand: int
    ply: int | None
    seat: int | None
    side: int
    kind: str
    points: int | None
    message: str
    witness: tuple[str, ...] = ()
    cause: str | None = None
    causes: tuple[tuple[str, ...], ...] = ()
    version: str = ANALYSIS_VERSION
    first_ply: int | None = None  # None: the same as ply
    last_ply: int | None = None  # None: the same as ply
    turns: int = 1  # the player's turns the finding spans (0 for a scoring mistake)
    outcome: str | None = None  # OUTCOMES, for a missed chance; None for the other kinds
    severity: str | None = None  # SEVERITIES; None only where a caller built it ungraded

    def __post_init__(self) -> None:
        if self.first_ply is None:
            object.__setattr__(self, "first_ply", self.ply)
        if self.last_ply is None:
            object.__setattr__(self, "last_ply", self.ply)
        if self.outcome is not None and self.outcome not in OUTCOMES:
            raise ValueError(f"outcome must be one of {OUTCOMES}, not {self.outcome!r}")
        if self.severity is not None and self.severity not in SEVERITIES:
            raise ValueError(f"severity must be one of {SEVERITIES}, not {self.severity!r}")

    def as_dict(self) -> dict[str, Any]:
        """Plain data with the keys of ``python -m buraco analyze --json``."""
        return {
            "hand": self.hand,
            "ply": self.ply,
            "seat": self.seat,
            "side": self.side,
            "kind": self.kind,
            "points": self.points,
            "message": self.message,
            "witness": list(self.witness),
            "cause": self.cause,
            "causes": [list(c) for c in self.causes],
            "version": self.version,
            "first_ply": self.first_ply,
            "last_ply": self.last_ply,
            "turns": self.turns,
            "outcome": self.outcome,
            "severity": self.severity,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Finding:
        """The inverse of :meth:`as_dict` (the service stores findings as plain data)."""
        return cls(
            hand=int(data["hand"]),
            ply=data.get("ply"),
            seat=data.get("seat"),
            side=int(data["side"]),
            kind=str(data["kind"]),
            points=data.get("points"),
            message=str(data["message"]),
            witness=tuple(data.get("witness") or ()),
            cause=data.get("cause"),
            causes=tuple(tuple(c) for c in data.get("causes") or ()),
            version=str(data.get("version", ANALYSIS_VERSION)),
            first_ply=data.get("first_ply"),
            last_ply=data.get("last_ply"),
            turns=int(data["turns"]) if data.get("turns") is not None else (1 if data.get("ply") is not None else 0),
            outcome=data.get("outcome"),
            severity=data.get("severity"),
        )


def sort_key(finding: Finding) -> tuple[int, int, int, int]:
    """Hand order, then ply (scoring mistakes, which have none, last), then side and kind."""
    return (finding.hand, finding.ply if finding.ply is not None else 1 << 30, finding.side, KINDS.index(finding.kind))

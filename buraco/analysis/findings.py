"""What an analysis reports: :class:`Finding`, a frozen value with a replayable witness.

>>> finding = Finding(hand=1, ply=12, seat=1, side=1, kind=MISSED_CANASTA, points=200,
...                   message="p1 could have laid 3h..9h as a clean canasta (200)",
...                   witness=("p1 draw 9h", "p1 meld 3h 4h 5h 6h 7h 8h 9h", "p1 discard Kc"))
>>> finding.as_dict()["witness"][1]
'p1 meld 3h 4h 5h 6h 7h 8h 9h'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

# Bumped whenever what the analysis finds could change: the service re-runs older versions.
ANALYSIS_VERSION: Final = "1"

SCORING_MISTAKE: Final = "scoring-mistake"
MISSED_CANASTA: Final = "missed-canasta"
MISSED_GOING_OUT: Final = "missed-going-out"
DANGEROUS_DISCARD: Final = "dangerous-discard"
KINDS: Final = (SCORING_MISTAKE, MISSED_CANASTA, MISSED_GOING_OUT, DANGEROUS_DISCARD)


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
        )


def sort_key(finding: Finding) -> tuple[int, int, int, int]:
    """Hand order, then ply (scoring mistakes, which have none, last), then side and kind."""
    return (finding.hand, finding.ply if finding.ply is not None else 1 << 30, finding.side, KINDS.index(finding.kind))

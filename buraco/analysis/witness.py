"""Replaying a finding's witness, so that anyone can check what it claims.

>>> from buraco.selfplay import play_match
>>> from buraco.analysis import analyze
>>> record = play_match("cerrado", players=2, hands=1, seed=3)
>>> all(replay_witness(record, f).ply >= 0 for f in analyze(record) if f.witness)
True
"""

from __future__ import annotations

from ..actions import DRAW, TAKE, parse_action
from ..notation import Record
from ..replay import deal_hand
from ..state import HandState
from .findings import Finding


def witness_start(record: Record, finding: Finding) -> int:
    """The ply where the witness begins: the draw step of the turn the finding judges."""
    if finding.ply is None:
        raise ValueError("a scoring mistake has no witness")
    actions = record.hands[finding.hand - 1].parsed
    ply = finding.ply
    while ply > 1 and not (actions[ply - 1].verb in (DRAW, TAKE) and actions[ply - 1].seat == finding.seat):
        ply -= 1
    return ply


def before_witness(record: Record, finding: Finding) -> HandState:
    """The table at the witness's draw step: the hand's actions before it replayed."""
    state = deal_hand(record, finding.hand - 1)
    actions = record.hands[finding.hand - 1].parsed
    for action in actions[: witness_start(record, finding) - 1]:
        state.apply(action)
    return state


def replay_witness(record: Record, finding: Finding) -> HandState:
    """The table after the witness: raises IllegalActionError if it is not legal."""
    state = before_witness(record, finding)
    for text in finding.witness:
        state.apply(parse_action(text, state.players))
    return state


__all__ = ["before_witness", "replay_witness", "witness_start"]

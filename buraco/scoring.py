"""Scores: each side's parts at the end of a hand, and the match's totals.

score = melded card values + canasta bonuses + going-out bonus
        - cards left in hand - penalties            (rules.md section 3)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .melds import CANASTA_KINDS, canasta_bonus
from .rules import Variant
from .state import OUT, HandState


@dataclass(frozen=True)
class SideScore:
    """One side's score for one hand, with the parts that make it."""

    melded: int
    canastas: dict[str, int]
    canasta_bonus: int
    going_out: int
    hand: int  # value of the cards left in the side's hands (subtracted)
    penalties: int  # subtracted
    penalty_reasons: tuple[str, ...] = field(default=())

    @property
    def total(self) -> int:
        return self.melded + self.canasta_bonus + self.going_out - self.hand - self.penalties

    def as_dict(self) -> dict[str, Any]:
        return {
            "melded": self.melded,
            "canastas": dict(self.canastas),
            "canasta_bonus": self.canasta_bonus,
            "going_out": self.going_out,
            "hand": -self.hand,
            "penalties": -self.penalties,
            "penalty_reasons": list(self.penalty_reasons),
            "total": self.total,
        }


def score_hand(state: HandState) -> list[SideScore]:
    """Each side's score; the hand must be over."""
    if not state.is_over:
        raise ValueError("the hand is not over: it has no score yet")
    return scores_if_ended(state, state.ended_by, state.out_by)


def scores_if_ended(state: HandState, ended_by: str | None, out_by: int = 0) -> list[SideScore]:
    """Each side's score were the hand to end on this table: by ``out_by`` going out
    (``ended_by`` OUT) or by the stock. The analysis values tables the hand never
    reached, or an unfinished hand as it stands.

    >>> from buraco.selfplay import play_match
    >>> from buraco.replay import deal_hand
    >>> state = deal_hand(play_match("cerrado", seed=1), 0)
    >>> [s.total for s in scores_if_ended(state, "stock")] == [-s.hand - 100 for s in scores_if_ended(state, "stock")]
    True
    """
    variant = state.variant
    values = variant.card_values
    scores = []
    for side, seats in enumerate(state.sides):
        counts = dict.fromkeys(CANASTA_KINDS, 0)
        bonus = 0
        for meld in state.melds:
            if meld.side != side:
                continue
            kind = meld.kind(variant)
            if kind is not None:
                counts[kind] += 1
                bonus += canasta_bonus(kind, variant)
        in_hand = 0
        for seat in seats:
            hand = state.hands[seat]
            in_hand += sum(values[c] * n for c, n in enumerate(hand) if n)
        going_out = variant.going_out_bonus if ended_by == OUT and state.side_of[out_by] == side else 0
        penalties = 0
        reasons = []
        if variant.has_dead_piles and not state.dead_taken[side] and variant.penalty_dead_not_taken:
            penalties += variant.penalty_dead_not_taken
            reasons.append("dead pile not taken")
        if state.dead_unplayed[side] and variant.penalty_dead_unplayed:
            penalties += variant.penalty_dead_unplayed
            reasons.append("dead pile taken but never played")
        scores.append(
            SideScore(state.melded_points[side], counts, bonus, going_out, in_hand, penalties, tuple(reasons))
        )
    return scores


def match_winner(
    variant: Variant, target: int, hand_scores: Sequence[Sequence[int] | None], starter_side: int
) -> tuple[list[int], int | None, int | None]:
    """Totals, the winning side (a 0-based index, or None) and the hand after which it was decided.

    The winner is decided after the first hand in which a side reaches the
    target: the highest total wins; a tie goes to the side that began hand 1 in
    the 000 rule sets, and to nobody in the others (rules.md section 4).

    A hand without a score (None: illegal or unfinished) stops the count: no
    total can be computed from it on, so the totals are those of the hands
    before it, and no winner is named unless one was decided before it.
    """
    scored: list[Sequence[int]] = []
    for scores in hand_scores:
        if scores is None:
            break
        scored.append(scores)
    hand_scores = scored
    sides = len(hand_scores[0]) if hand_scores else 0
    totals = [0] * sides
    for number, scores in enumerate(hand_scores, start=1):
        for side, score in enumerate(scores):
            totals[side] += score
        if max(totals) >= target:
            best = max(totals)
            leaders = [side for side, total in enumerate(totals) if total == best]
            if len(leaders) == 1:
                return _running_totals(hand_scores), leaders[0], number
            if variant.tie_to_starter and starter_side in leaders:
                return _running_totals(hand_scores), starter_side, number
            return _running_totals(hand_scores), None, number
    return totals, None, None


def _running_totals(hand_scores: Sequence[Sequence[int]]) -> list[int]:
    totals = [0] * len(hand_scores[0])
    for scores in hand_scores:
        for side, score in enumerate(scores):
            totals[side] += score
    return totals

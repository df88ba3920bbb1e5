"""Scoring mistakes: each claimed result against the cards, the difference explained by slips.

A *slip* is one common way of scoring a hand wrongly, with an *effect*: the
claimed score minus the computed one, derived from the hand's own parts and
table (counting a dirty canasta as clean adds the clean bonus minus the dirty
one, and only where the side holds a dirty canasta). For every side whose
claimed score differs, :func:`scoring_findings` reports the smallest
combinations of slips whose effects add up to the difference: all of them when
several fit equally, ``unexplained`` when none of at most :data:`MOST_SLIPS` does.
Claimed totals are checked as arithmetic (each the previous total plus the
hand's claimed score), and the winner the claimed totals name against the one
the cards give. docs/analysis.md lists the vocabulary.

>>> from buraco.selfplay import play_match
>>> from buraco.replay import verify
>>> record = play_match("cerrado", players=2, hands=1, seed=3)
>>> scoring_findings(record, verify(record))  # the bots score their own hands right
[]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import combinations_with_replacement
from typing import Final

from ..cards import JOKER_CODE, RANK_OF
from ..errors import BuracoError
from ..melds import ACE_TO_ACE, ACE_TO_KING, CLEAN, DIRTY
from ..notation import Record
from ..replay import MatchReport, replay_hand
from ..scoring import SideScore, match_winner, score_hand
from ..state import OUT, HandState, LaidOff, Melded
from .findings import BLUNDER, SCORING_MISTAKE, Finding, Thresholds, severity_of, thresholds_for

# --- the vocabulary -------------------------------------------------------------------

DIRTY_COUNTED_CLEAN: Final = "dirty-counted-clean"
CLEAN_COUNTED_DIRTY: Final = "clean-counted-dirty"
ACE_TO_KING_COUNTED_CLEAN: Final = "ace-to-king-counted-clean"
CLEAN_COUNTED_ACE_TO_KING: Final = "clean-counted-ace-to-king"
ACE_TO_ACE_COUNTED_CLEAN: Final = "ace-to-ace-counted-clean"
CLEAN_COUNTED_ACE_TO_ACE: Final = "clean-counted-ace-to-ace"
GOING_OUT_MISSING: Final = "going-out-missing"
GOING_OUT_WRONG_SIDE: Final = "going-out-wrong-side"
HAND_NOT_SUBTRACTED: Final = "hand-not-subtracted"
PENALTY_MISSED: Final = "penalty-missed"
PENALTY_ADDED: Final = "penalty-added"
TWO_COUNTED_AS_JOKER: Final = "two-counted-as-joker"
JOKER_COUNTED_AS_TWO: Final = "joker-counted-as-two"

# The slips of one hand's score, in the order combinations are written.
SLIPS: Final = (
    DIRTY_COUNTED_CLEAN, CLEAN_COUNTED_DIRTY, ACE_TO_KING_COUNTED_CLEAN, CLEAN_COUNTED_ACE_TO_KING,
    ACE_TO_ACE_COUNTED_CLEAN, CLEAN_COUNTED_ACE_TO_ACE, GOING_OUT_MISSING, GOING_OUT_WRONG_SIDE,
    HAND_NOT_SUBTRACTED, PENALTY_MISSED, PENALTY_ADDED, TWO_COUNTED_AS_JOKER, JOKER_COUNTED_AS_TWO,
)

# Causes that are not slips of one hand's score.
TOTAL_NOT_SUM: Final = "total-not-sum"
WRONG_WINNER: Final = "wrong-winner"
HAND_NOT_SCORABLE: Final = "hand-not-scorable"
UNEXPLAINED: Final = "unexplained"
CAUSES: Final = (*SLIPS, TOTAL_NOT_SUM, WRONG_WINNER, HAND_NOT_SCORABLE, UNEXPLAINED)

MOST_SLIPS: Final = 4  # the largest combination searched

# What a player reads: the slip once, and the slip n times ("{n}" is a number word).
_TEXT: Final[dict[str, tuple[str, str]]] = {
    DIRTY_COUNTED_CLEAN: ("a dirty canasta counted as clean", "{n} dirty canastas counted as clean"),
    CLEAN_COUNTED_DIRTY: ("a clean canasta counted as dirty", "{n} clean canastas counted as dirty"),
    ACE_TO_KING_COUNTED_CLEAN: ("an A..K canasta scored as a plain clean one",
                                "{n} A..K canastas scored as plain clean ones"),
    CLEAN_COUNTED_ACE_TO_KING: ("a plain clean canasta scored as A..K", "{n} plain clean canastas scored as A..K"),
    ACE_TO_ACE_COUNTED_CLEAN: ("an A..A canasta scored as a plain clean one",
                               "{n} A..A canastas scored as plain clean ones"),
    CLEAN_COUNTED_ACE_TO_ACE: ("a plain clean canasta scored as A..A", "{n} plain clean canastas scored as A..A"),
    GOING_OUT_MISSING: ("the going-out bonus left out", "the going-out bonus left out {n} times"),
    GOING_OUT_WRONG_SIDE: ("the going-out bonus given to the wrong side",
                           "the going-out bonus given to the wrong side {n} times"),
    HAND_NOT_SUBTRACTED: ("the cards left in hand not subtracted", "the cards left in {n} hands not subtracted"),
    PENALTY_MISSED: ("a penalty left out", "{n} penalties left out"),
    PENALTY_ADDED: ("a penalty charged that the side did not incur",
                    "{n} penalties charged that the side did not incur"),
    TWO_COUNTED_AS_JOKER: ("a melded 2 counted as a joker", "{n} melded 2s counted as jokers"),
    JOKER_COUNTED_AS_TWO: ("a melded joker counted as a 2", "{n} melded jokers counted as 2s"),
}
_NUMBERS: Final = ("", "one", "two", "three", "four")


@dataclass(frozen=True)
class Slip:
    """One slip that could have happened in one side's score for one hand.

    ``effect`` is what it does to the claimed score (claimed minus computed).
    ``resource`` names what it uses up: a canasta is misjudged at most once, the
    hand left out once; ``capacity`` (in :class:`SideSlips`) says how many times
    the slips of one resource may happen together.
    """

    id: str
    effect: int
    resource: Hashable


@dataclass(frozen=True)
class SideSlips:
    """Every slip one side could have made in one hand, and how often each resource allows."""

    side: int  # 0-based
    slips: tuple[Slip, ...]
    capacity: Mapping[Hashable, int]


def side_slips(state: HandState, parts: Sequence[SideScore]) -> list[SideSlips]:
    """The slips each side could have made in the hand that ``state`` ended.

    Every effect comes from the table: the canastas the side holds by kind, the
    cards left in its hands, its penalties, the 2s and jokers it laid (in
    ``brasil``, where anyone lays off on anyone's melds, each card counts for the
    player who laid it: the Melded and LaidOff operations say who).
    """
    variant = state.variant
    laid = _laid_wilds(state)
    out_side = state.side_of[state.out_by] if state.ended_by == OUT and state.out_by else None
    result = []
    for side, seats in enumerate(state.sides):
        slips: list[Slip] = []
        capacity: Counter[Hashable] = Counter()
        canastas: Counter[tuple[tuple[str, int], ...]] = Counter()
        for meld in state.melds:
            if meld.side == side:
                options = _canasta_options(meld.kind(variant), meld.shape.is_run and (
                    meld.shape.low == 1 or meld.shape.high == 14), variant.bonus_dirty, variant.bonus_clean,
                    variant.bonus_ace_to_king, variant.bonus_ace_to_ace)
                if options:
                    canastas[options] += 1
        for options, count in canastas.items():
            for slip_id, effect in options:
                _add(slips, capacity, slip_id, effect, ("canasta", options), count)
        bonus = variant.going_out_bonus
        if out_side == side:
            _add(slips, capacity, GOING_OUT_MISSING, -bonus, "going-out")
        elif out_side is not None:
            _add(slips, capacity, GOING_OUT_WRONG_SIDE, bonus, "going-out")
        values = variant.card_values
        held = [sum(values[c] * n for c, n in enumerate(state.hands[seat]) if n) for seat in seats]
        _add(slips, capacity, HAND_NOT_SUBTRACTED, parts[side].hand, "hand")
        if sum(1 for value in held if value) > 1:  # a partnership: one partner's hand left out
            for value in held:
                _add(slips, capacity, HAND_NOT_SUBTRACTED, value, "hand")
        charged = _charged(parts[side], variant.penalty_dead_not_taken, variant.penalty_dead_unplayed)
        for index, amount in enumerate(charged):
            _add(slips, capacity, PENALTY_MISSED, amount, ("penalty-missed", index))
        if variant.has_dead_piles and state.dead_taken[side]:
            uncharged = [variant.penalty_dead_not_taken]
            if not state.dead_unplayed[side]:
                uncharged.append(variant.penalty_dead_unplayed)
            for index, amount in enumerate(uncharged):
                _add(slips, capacity, PENALTY_ADDED, -amount, ("penalty-added", index))
        twos, jokers = laid[side]
        if variant.jokers:
            _add(slips, capacity, TWO_COUNTED_AS_JOKER, variant.value_joker - variant.value_two, "twos", twos)
        _add(slips, capacity, JOKER_COUNTED_AS_TWO, variant.value_two - variant.value_joker, "jokers", jokers)
        result.append(SideSlips(side, tuple(slips), dict(capacity)))
    return result


def _add(
    slips: list[Slip], capacity: Counter[Hashable], slip_id: str, effect: int, resource: Hashable, times: int = 1
) -> None:
    """One more slip the side could have made, ``times`` at most (with the others of its resource)."""
    if effect == 0 or times <= 0:
        return
    slip = Slip(slip_id, effect, resource)
    if slip not in slips:
        slips.append(slip)
    capacity[resource] = max(capacity[resource], times)


def _canasta_options(
    kind: str | None, ace_run: bool, dirty: int, clean: int, ace_to_king: int, ace_to_ace: int
) -> tuple[tuple[str, int], ...]:
    """How a canasta of ``kind`` might have been misjudged, with each effect.

    A plain clean canasta is taken for an A..K or A..A one only when it is a run
    holding an ace (a 2..A run, or one not laid in one action in fechado-stbl):
    nobody takes a set or a 5..J run for A..K.
    """
    if kind == DIRTY:
        return ((DIRTY_COUNTED_CLEAN, clean - dirty),)
    if kind == CLEAN:
        options = [(CLEAN_COUNTED_DIRTY, dirty - clean)]
        if ace_run and ace_to_king:
            options.append((CLEAN_COUNTED_ACE_TO_KING, ace_to_king - clean))
        if ace_run and ace_to_ace:
            options.append((CLEAN_COUNTED_ACE_TO_ACE, ace_to_ace - clean))
        return tuple(options)
    if kind == ACE_TO_KING:
        return ((ACE_TO_KING_COUNTED_CLEAN, clean - ace_to_king),)
    if kind == ACE_TO_ACE:
        return ((ACE_TO_ACE_COUNTED_CLEAN, clean - ace_to_ace),)
    return ()


def _charged(parts: SideScore, not_taken: int, unplayed: int) -> list[int]:
    amounts = {"dead pile not taken": not_taken, "dead pile taken but never played": unplayed}
    charged = [amounts.get(reason, 0) for reason in parts.penalty_reasons]
    if sum(charged) != parts.penalties:  # a reason this module does not know: charge the rest as one penalty
        charged = [a for a in charged if a] + [parts.penalties - sum(charged)]
    return [a for a in charged if a]


def _laid_wilds(state: HandState) -> list[tuple[int, int]]:
    """The 2s and jokers each side laid on the table (melds and lay-offs)."""
    laid = [[0, 0] for _ in state.sides]
    for operation in state.operations:
        if isinstance(operation, Melded | LaidOff):
            counts = laid[state.side_of[operation.seat]]
            for card in operation.shape.cards if isinstance(operation, Melded) else operation.cards:
                if card == JOKER_CODE:
                    counts[1] += 1
                elif RANK_OF[card] == 2:
                    counts[0] += 1
    return [(twos, jokers) for twos, jokers in laid]


# --- the search ---------------------------------------------------------------------


def explain(
    difference: int, slips: Sequence[Slip], capacity: Mapping[Hashable, int], most: int = MOST_SLIPS
) -> list[tuple[Slip, ...]]:
    """Every smallest combination of slips whose effects add up to ``difference``.

    A slip may repeat (two dirty canastas counted as clean) as long as its
    resource allows; combinations with the same slip ids are listed once.
    None of at most ``most`` slips: an empty list.

    >>> dirty = Slip(DIRTY_COUNTED_CLEAN, 100, "canasta")
    >>> out = Slip(GOING_OUT_WRONG_SIDE, 100, "going-out")
    >>> [[s.id for s in c] for c in explain(200, [dirty, out], {"canasta": 2, "going-out": 1})]
    [['dirty-counted-clean', 'dirty-counted-clean'], ['dirty-counted-clean', 'going-out-wrong-side']]
    >>> explain(300, [dirty], {"canasta": 2})
    []
    """
    if difference == 0:
        return [()]
    ordered = sorted(slips, key=lambda s: (SLIPS.index(s.id) if s.id in SLIPS else len(SLIPS), -abs(s.effect)))
    for size in range(1, most + 1):
        found: dict[tuple[str, ...], tuple[Slip, ...]] = {}
        for combination in combinations_with_replacement(ordered, size):
            if sum(s.effect for s in combination) != difference:
                continue
            used = Counter(s.resource for s in combination)
            if any(n > capacity.get(resource, 0) for resource, n in used.items()):
                continue
            found.setdefault(tuple(s.id for s in combination), combination)
        if found:
            return [found[ids] for ids in sorted(found, key=_ids_key)]
    return []


def _ids_key(ids: tuple[str, ...]) -> tuple[int, ...]:
    return tuple(CAUSES.index(i) if i in CAUSES else len(CAUSES) for i in ids)


def cause_text(causes: Iterable[Sequence[str]]) -> str:
    """The string form of ``causes``: ``+`` within one, `` | `` between them.

    >>> cause_text([("dirty-counted-clean", "dirty-counted-clean"), ("penalty-missed",)])
    'dirty-counted-clean+dirty-counted-clean | penalty-missed'
    >>> cause_text([])
    'unexplained'
    """
    text = " | ".join("+".join(c) for c in causes)
    return text or UNEXPLAINED


def describe(combination: Sequence[Slip]) -> str:
    """A combination as a player reads it, each slip with its effect.

    >>> describe([Slip(DIRTY_COUNTED_CLEAN, 100, "c"), Slip(DIRTY_COUNTED_CLEAN, 100, "c")])
    'two dirty canastas counted as clean (+200)'
    """
    grouped: dict[str, list[int]] = {}
    for slip in combination:
        grouped.setdefault(slip.id, []).append(slip.effect)
    words = []
    for slip_id, effects in grouped.items():
        once, times = _TEXT.get(slip_id, (slip_id, slip_id + " ({n} times)"))
        count = len(effects)
        text = once if count == 1 else times.format(n=_NUMBERS[count] if count < len(_NUMBERS) else count)
        words.append(f"{text} ({sum(effects):+d})")
    return " and ".join(words)


# --- findings -----------------------------------------------------------------------


def scoring_findings(record: Record, report: MatchReport) -> list[Finding]:
    """Every scoring mistake of a record: ``report`` is ``buraco.replay.verify(record)``.

    One finding per hand and side whose claimed score differs from the computed
    one (``points`` the size of the difference, ``causes`` every smallest
    explanation); one per side whose claimed total is not the previous total plus
    the claimed score (``total-not-sum``); one where the claimed totals name
    another winner than the cards (``wrong-winner``, no points: those are
    counted by the findings that led to it); one per side of a claimed result on
    a hand that has no score (``hand-not-scorable``, no points). ``ply`` and
    ``seat`` are always None: a scoring mistake belongs to the hand.
    """
    sides = record.sides
    names = [_side_name(number, seats, record.players) for number, seats in enumerate(sides, start=1)]
    findings: list[Finding] = []
    for index, (hand, hand_report) in enumerate(zip(record.hands, report.hands)):
        claimed = hand.result
        if claimed is None:
            continue
        if hand_report.scores is None or hand_report.parts is None:
            why = _why_unscored(hand_report.valid, hand_report.error)
            for side in range(len(sides)):
                findings.append(_finding(
                    index + 1, side, None,
                    f"{names[side]} claimed {claimed.scores[side]} in hand {index + 1}, but the hand cannot be "
                    f"scored: {why}",
                    ((HAND_NOT_SCORABLE,),),
                ))
            continue
        differences = [c - s for c, s in zip(claimed.scores, hand_report.scores)]
        if not any(differences):
            continue
        state = replay_hand(record, index)
        findings.extend(_score_findings(index + 1, state, hand_report.parts, claimed.scores, hand_report.scores,
                                        differences, names))
    findings.extend(_total_findings(record, report, names))
    findings.extend(_winner_findings(record, report, names))
    thresholds = thresholds_for(record.rules)
    return [replace(f, turns=0, severity=scoring_severity(f, thresholds)) for f in findings]


def scoring_severity(finding: Finding, thresholds: Thresholds) -> str:
    """A wrong score or total is graded by its size, as a play by what it cost; a wrong
    winner is a blunder (it decides the match); a claim on a hand that has no score is an
    inaccuracy (it cannot be checked, which is no proof of an error)."""
    if finding.causes == ((WRONG_WINNER,),):
        return BLUNDER
    return severity_of(finding.points, None, thresholds)


def _score_findings(
    hand: int, state: HandState, parts: Sequence[SideScore], claimed: Sequence[int], computed: Sequence[int],
    differences: Sequence[int], names: Sequence[str],
) -> list[Finding]:
    options = side_slips(state, parts)
    explained = [explain(d, o.slips, o.capacity) if d else [] for d, o in zip(differences, options)]
    _credit_wrong_side(state, explained)
    findings = []
    for side, difference in enumerate(differences):
        if not difference:
            continue
        combinations = explained[side]
        head = f"{names[side]} claimed {claimed[side]} in hand {hand}; the cards give {computed[side]}"
        if combinations:
            message = f"{head}: " + ", or ".join(describe(c) for c in combinations)
        else:
            message = (f"{head}: no combination of up to {MOST_SLIPS} common slips explains the difference "
                       f"of {difference:+d}")
        findings.append(_finding(hand, side, abs(difference), message,
                                 tuple(tuple(s.id for s in c) for c in combinations)))
    return findings


def _credit_wrong_side(state: HandState, explained: list[list[tuple[Slip, ...]]]) -> None:
    """The going-out side's missing bonus is ``going-out-wrong-side`` where another
    side claimed it: surely so when every explanation of that side has it, and as
    an equal alternative when only some do."""
    if state.ended_by != OUT or not state.out_by:
        return
    out_side = state.side_of[state.out_by]
    others = [e for side, e in enumerate(explained) if side != out_side and e]
    claimed_always = any(all(_has(c, GOING_OUT_WRONG_SIDE) for c in e) for e in others)
    claimed_maybe = any(any(_has(c, GOING_OUT_WRONG_SIDE) for c in e) for e in others)
    if not claimed_maybe:
        return
    combos = explained[out_side]
    moved = [tuple(replace(s, id=GOING_OUT_WRONG_SIDE) if s.id == GOING_OUT_MISSING else s for s in c)
             for c in combos if _has(c, GOING_OUT_MISSING)]
    kept = combos if not claimed_always else [c for c in combos if not _has(c, GOING_OUT_MISSING)]
    merged: dict[tuple[str, ...], tuple[Slip, ...]] = {}
    for combination in (*kept, *moved):
        merged.setdefault(tuple(s.id for s in combination), combination)
    explained[out_side] = [merged[ids] for ids in sorted(merged, key=_ids_key)]


def _has(combination: Sequence[Slip], slip_id: str) -> bool:
    return any(s.id == slip_id for s in combination)


def _total_findings(record: Record, report: MatchReport, names: Sequence[str]) -> list[Finding]:
    """Claimed totals that are not the previous total plus the hand's claimed score."""
    findings = []
    sides = len(record.sides)
    computed: list[int] | None = [0] * sides  # the running total the cards give; None once a hand has no score
    previous: list[int] | None = [0] * sides  # what this hand's total should build on
    for number, (hand, hand_report) in enumerate(zip(record.hands, report.hands), start=1):
        claimed = hand.result
        if computed is not None:
            computed = None if hand_report.scores is None else [t + s for t, s in zip(computed, hand_report.scores)]
        if claimed is not None and claimed.totals is not None and previous is not None:
            for side in range(sides):
                expected = previous[side] + claimed.scores[side]
                written = claimed.totals[side]
                if written != expected:
                    findings.append(_finding(
                        number, side, abs(written - expected),
                        f"{names[side]} wrote a total of {written} after hand {number}; the {previous[side]} "
                        f"before it and the {claimed.scores[side]} claimed for the hand make {expected}",
                        ((TOTAL_NOT_SUM,),),
                    ))
        if claimed is not None and claimed.totals is not None:
            previous = list(claimed.totals)
        else:
            previous = None if computed is None else list(computed)
    return findings


def _winner_findings(record: Record, report: MatchReport, names: Sequence[str]) -> list[Finding]:
    """The winner the claimed totals name against the one the cards give.

    Judged over the hands from hand 1 that have a score (after a hand without one
    no winner is computed, rules.md 4). A hand without a claimed result counts
    with its computed score, a claim without totals with its claimed score.
    """
    variant = record.rules
    computed: list[list[int]] = []
    claimed: list[list[int]] = []
    running = [0] * len(record.sides)
    for hand, hand_report in zip(record.hands, report.hands):
        if hand_report.scores is None:
            break
        computed.append(list(hand_report.scores))
        result = hand.result
        if result is None:
            totals = [t + s for t, s in zip(running, hand_report.scores)]
        elif result.totals is None:
            totals = [t + s for t, s in zip(running, result.scores)]
        else:
            totals = list(result.totals)
        claimed.append([t - r for t, r in zip(totals, running)])
        running = totals
    if not computed:
        return []
    starter = record.hands[0].dealer % len(record.players) + 1
    starter_side = next(i for i, seats in enumerate(record.sides) if starter in seats)
    target = record.match_target
    _, true_winner, true_hand = match_winner(variant, target, computed, starter_side)
    _, claimed_winner, claimed_hand = match_winner(variant, target, claimed, starter_side)
    if claimed_winner == true_winner:
        return []
    if claimed_winner is not None:
        assert claimed_hand is not None
        side = claimed_winner
        truth = (f"the cards give {names[true_winner]} after hand {true_hand}" if true_winner is not None
                 else "by the cards nobody has won by then")
        message = f"the claimed totals make {names[side]} the winner after hand {claimed_hand}; {truth}"
        number = claimed_hand
    else:
        assert true_winner is not None and true_hand is not None
        side = true_winner
        message = f"the cards make {names[side]} the winner after hand {true_hand}; the claimed totals name nobody"
        number = true_hand
    return [_finding(number, side, None, message, ((WRONG_WINNER,),))]


def _finding(hand: int, side: int, points: int | None, message: str, causes: tuple[tuple[str, ...], ...]) -> Finding:
    return Finding(hand=hand, ply=None, seat=None, side=side + 1, kind=SCORING_MISTAKE, points=points,
                   message=message, cause=cause_text(causes), causes=causes)


def _side_name(number: int, seats: Sequence[int], players: Sequence[str]) -> str:
    who = " and ".join(players[s - 1] for s in seats if 0 < s <= len(players))
    return f"side {number} ({who})" if who else f"side {number}"


def _why_unscored(valid: bool, error: BuracoError | None) -> str:
    if valid:
        return "it is unfinished"
    if error is not None and error.ply is not None:
        return f"it has an illegal action at ply {error.ply}"
    if error is not None:
        return error.message  # a broken deal, or a hand after an unfinished one
    return "it is not a legal hand"


def plantable_slips(state: HandState) -> list[tuple[int, str, int]]:
    """``(side, slip id, effect)`` for each slip that one side could make alone in
    this finished hand (sides 0-based), for self-play to plant: changing that
    side's claimed score by ``effect`` makes that slip.

    >>> from buraco.selfplay import play_match
    >>> from buraco.replay import replay_hand
    >>> all(effect != 0 for _, _, effect in plantable_slips(replay_hand(play_match("burraco", seed=1), 0)))
    True
    """
    seen = []
    for options in side_slips(state, score_hand(state)):
        for slip in options.slips:
            entry = (options.side, slip.id, slip.effect)
            if entry not in seen:
                seen.append(entry)
    return seen


__all__ = [
    "CAUSES", "HAND_NOT_SCORABLE", "MOST_SLIPS", "SLIPS", "SideSlips", "Slip", "TOTAL_NOT_SUM", "UNEXPLAINED",
    "WRONG_WINNER", "cause_text", "describe", "explain", "plantable_slips", "scoring_findings", "side_slips",
]

"""Shared helpers for the turn-analysis tests: a scripted hand written back as a BRN
record, and checks that replay a finding's witness and test what the finding claims.

The checks read the table through the engine's state machine and scoring only; they
never ask the analysis how it reached a finding.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from buraco.actions import DEAD, DISCARD, DRAW, TAKE, parse_action
from buraco.analysis import DANGEROUS_DISCARD, Finding, analyze
from buraco.analysis.search import SearchContext, side_bonus
from buraco.analysis.turns import turn_findings
from buraco.analysis.witness import before_witness, replay_witness, witness_start
from buraco.cards import CARD_TEXT, Card
from buraco.errors import BuracoError
from buraco.melds import CardToken, resolve_add
from buraco.notation import Record
from buraco.replay import deal_hand, replay_hand
from buraco.scoring import score_hand, scores_if_ended
from buraco.selfplay import play_match
from buraco.state import DEAD_INDIRECT_STEP, OUT, STOCK, HandState

from ..helpers import Deal, actions_of, load_record


def record_of(deal: Deal, state: HandState, players: int | None = None) -> Record:
    """The record of the hand played on ``state`` through the helpers' ``act``/``play``."""
    return load_record(deal.variant.id, players or deal.players, [deal.hand_table(actions_of(state))])


def play_steps(variant_id: str, seed: int) -> list[HandState]:
    """The tables of a self-play hand (2 players) just after each draw step (the play step)."""
    record = play_match(variant_id, players=2, hands=1, seed=seed)
    state = deal_hand(record, 0)
    tables = []
    for action in record.hands[0].parsed:
        state.apply(action)
        if action.verb in ("draw", "take") and not state.is_over:
            tables.append(state.copy(log=False))
    return tables


def search_self_play(variant_id: str, seeds: Iterable[int]) -> None:
    """Run the turn searches of every hand of a two-hand self-play match (2 players) per
    seed, for a test that watches them through a method it patches."""
    for seed in seeds:
        record = play_match(variant_id, players=2, hands=2, seed=seed)
        for index in range(len(record.hands)):
            turn_findings(record, index, [], SearchContext(record.rules))


def found(record: Record, kind: str) -> list[Finding]:
    return [f for f in analyze(record) if f.kind == kind]


def only(record: Record, kind: str) -> Finding:
    findings = found(record, kind)
    assert len(findings) == 1, findings
    return findings[0]


def ply_of(record: Record, text: str, hand: int = 1) -> int:
    """The 1-based ply of the first action written ``text`` in the record."""
    written = [a.strip() for a in record.hands[hand - 1].actions]
    return written.index(text) + 1


def margin(scores: Sequence[int], side: int) -> int:
    """The side's (0-based) score minus the best other side's."""
    return scores[side] - max(s for i, s in enumerate(scores) if i != side)


def totals(state: HandState) -> list[int]:
    return [s.total for s in score_hand(state)]


# --- the turn as played ----------------------------------------------------------------


def end_of_played_turn(record: Record, finding: Finding) -> HandState:
    """The table when the turn the finding judges ended as the record plays it: the
    hand's actions up to the witness's draw step, then the player's actions from there
    until another player acts (or the hand ends)."""
    state = before_witness(record, finding)
    actions = record.hands[finding.hand - 1].parsed
    for action in actions[witness_start(record, finding) - 1:]:
        if action.seat != finding.seat or state.is_over:
            break
        state.apply(action)
    return state


def played_bonus(record: Record, finding: Finding) -> int:
    return side_bonus(end_of_played_turn(record, finding), finding.side - 1)


# --- witnesses ----------------------------------------------------------------------------


def check_witness_knowledge(record: Record, finding: Finding) -> None:
    """A witness starts with the turn's draw step and then spends only what the player
    held after it: the card actually drawn (never another card of the stock), or the
    pile's cards taken; no second draw, no card entering the hand. A dead pile only where
    the player did pick it up: a dangerous discard's witness is the turn as played up to
    another discard, so where that turn picked up a dead pile directly, at that point, the
    witness does too, and the player knows those cards (exactly that pile) from there."""
    state = before_witness(record, finding)
    seat = finding.seat
    assert seat is not None
    witness = [parse_action(text, state.players) for text in finding.witness]
    assert witness and witness[0].verb in (DRAW, TAKE), finding
    assert witness[0].seat == seat
    assert all(a.seat == seat for a in witness), finding
    assert not any(a.verb in (DRAW, TAKE) for a in witness[1:]), finding
    turn_played = record.hands[finding.hand - 1].parsed[witness_start(record, finding) - 1:]
    for offset, action in enumerate(witness):
        if action.verb == DEAD:
            assert finding.kind == DANGEROUS_DISCARD, finding
            assert (turn_played[offset].seat, turn_played[offset].verb) == (seat, DEAD), finding
    played = turn_played[0]
    before = list(state.hands[seat])
    pile = list(state.discard_pile)
    state.apply(witness[0])
    known = list(state.hands[seat])
    if witness[0].verb == DRAW:
        assert played.verb == DRAW, "a witness draws only where the player drew"
        gained = [c for c in range(len(known)) for _ in range(known[c] - before[c])]
        assert len(gained) == 1
        actual = before_witness(record, finding)
        actual.apply(played)
        assert list(actual.hands[seat]) == known, "the witness drew another card than the one drawn"
    else:
        taken = pile[-witness[0].depth:] if witness[0].depth else pile
        for card in taken:
            before[card] += 1
        assert before == known, "a take brings exactly the pile's cards taken"
    for action in witness[1:]:
        hand_before = list(state.hands[seat])
        if action.verb == DEAD:
            pile = state.dead[0]  # the next dead pile in deal order, the one the player took
            state.apply(action)
            gained = [after - was for after, was in zip(state.hands[seat], hand_before)]
            assert gained == [pile.count(c) for c in range(len(gained))], "the dead pile the player picked up"
            continue
        state.apply(action)
        assert all(after <= was for after, was in zip(state.hands[seat], hand_before)), (
            f"{action.text}: a card entered the hand after the draw step"
        )


def check_canasta_finding(record: Record, finding: Finding, *, knowledge: bool = True) -> HandState:
    """The witness replays and leaves the side holding the bonus of the turn as played
    plus the finding's points (and, with ``knowledge``, spends only known cards)."""
    assert finding.points is not None and finding.points > 0
    state = replay_witness(record, finding)
    # The witness plays the whole turn: the next player is to draw, the hand is over, or
    # the emptied hand waits for its indirect dead-pile pick-up (never part of a witness).
    assert state.is_over or state.turn != finding.seat or state.step == DEAD_INDIRECT_STEP, finding
    assert side_bonus(state, finding.side - 1) == played_bonus(record, finding) + finding.points
    if knowledge:
        check_witness_knowledge(record, finding)
    return state


def check_going_out_finding(record: Record, finding: Finding, *, knowledge: bool = True) -> HandState:
    """The witness goes out, and ``points`` is its margin minus the hand's real one."""
    state = replay_witness(record, finding)
    assert state.is_over and state.ended_by == OUT and state.out_by == finding.seat
    side = finding.side - 1
    if_out = margin(totals(state), side)
    final = replay_hand(record, finding.hand - 1)
    # The real margin: the hand's as it ended; on an unfinished hand, its last table scored
    # as it stands (as if it ended there by the stock: no going-out bonus).
    real = totals(final) if final.is_over else [s.total for s in scores_if_ended(final, STOCK)]
    assert finding.points == if_out - margin(real, side)
    assert finding.points is not None and finding.points > 0
    if knowledge:
        check_witness_knowledge(record, finding)
    return state


def fits(state: HandState, card: Card, seat: int) -> list[int]:
    """The melds ``seat`` may extend (own side's; anyone's in brasil) that ``card`` fits."""
    fitting = []
    for meld in state.melds:
        if not (state.variant.lay_off_anyone or meld.side == state.side_of[seat]):
            continue
        try:
            resolve_add(meld.shape, (CardToken(card),), state.variant)
        except (BuracoError, ValueError):
            continue
        fitting.append(meld.number)
    return fitting


def next_seat(state: HandState, seat: int) -> int:
    return seat % state.players + 1


def check_discard_finding(record: Record, finding: Finding, *, knowledge: bool = True) -> HandState:
    """The witness is the turn as played up to a discard that fits no meld the next
    player may extend, and it replays; ``points`` is the pile the next player took."""
    assert finding.seat is not None
    state = before_witness(record, finding)
    witness = [parse_action(text, state.players) for text in finding.witness]
    assert witness[-1].verb == DISCARD
    for action in witness[:-1]:
        state.apply(action)
    card = witness[-1].cards[0]
    assert fits(state, card, next_seat(state, finding.seat)) == [], CARD_TEXT[card]
    state.apply(witness[-1])
    if knowledge:
        check_witness_knowledge(record, finding)
    return state


def pile_taken_value(record: Record, finding: Finding) -> int:
    """The value of the cards the next player took from the pile after the discard."""
    state = before_witness(record, finding)
    actions = record.hands[finding.hand - 1].parsed
    for action in actions[witness_start(record, finding) - 1:]:
        if action.verb == TAKE and action.seat != finding.seat:
            pile = state.discard_pile
            taken = pile[-action.depth:] if action.depth else pile
            values = state.variant.card_values
            return sum(values[c] for c in taken)
        state.apply(action)
    raise AssertionError("nobody took the pile after the discard")


__all__ = [
    "check_canasta_finding", "check_discard_finding", "check_going_out_finding", "check_witness_knowledge",
    "end_of_played_turn", "fits", "found", "margin", "next_seat", "only", "pile_taken_value", "played_bonus",
    "ply_of", "record_of", "totals",
]

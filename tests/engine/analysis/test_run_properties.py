"""Properties of runs and of the searches on self-play matches, every rule set and player
count (hypothesis):

- every turn inside a run's span had that chance open (the turn's own search finds a
  better line), and the seat's turn just before and just after did not;
- no two findings of one kind and seat cover the same or adjacent turns of that seat;
- every witness replays legally;
- the searches give what the search they replaced gives (tests/engine/analysis/reference.py,
  a plain walk on copies of the state machine), wherever that one settles.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from buraco.analysis import MISSED_CANASTA, MISSED_GOING_OUT, Finding, analyze_record
from buraco.analysis.exits import best_exit
from buraco.analysis.search import SearchContext, Start, best_canasta_line
from buraco.analysis.turns import PlayedHand, _HandJudge, played_turns
from buraco.analysis.witness import replay_witness
from buraco.moves import draw_step_actions
from buraco.notation import Record
from buraco.selfplay import play_match

from ..records import EVERY_PAIR, per_pair
from . import reference

SETTINGS = per_pair(20)
# From 1: hypothesis tries the smallest seed first, for every pair, and brasil-2's seed-0
# hand (441 plies) takes 12 s of analysis and minutes of the reference search.
SEEDS = st.integers(1, 10_000)


def match(case: tuple[str, int], seed: int) -> Record:
    variant, players = case
    return play_match(variant, players=players, hands=1, seed=seed)


def chances_by_turn(record: Record, index: int) -> tuple[PlayedHand, dict[str, list[object]]]:
    """Each turn judged alone, kind by kind: the turn's better line, or None."""
    played = played_turns(record, index)
    judge = _HandJudge(record, index, played, SearchContext(record.rules))
    chances: dict[str, list[object]] = {MISSED_CANASTA: [], MISSED_GOING_OUT: []}
    for position in range(len(played.turns)):
        chances[MISSED_CANASTA].append(judge.canasta_chance(position))
        chances[MISSED_GOING_OUT].append(judge.going_out_chance(position))
    return played, chances


def span(played: PlayedHand, chances: list[object], finding: Finding) -> list[int]:
    """The positions (in played.turns) of the finding's seat's turns from first_ply to last_ply."""
    positions = [p for p, t in enumerate(played.turns) if t.seat == finding.seat]
    plies = {p: getattr(chances[p], "ply", None) for p in positions}
    first = next(p for p in positions if plies[p] == finding.first_ply)
    last = next(p for p in positions if plies[p] == finding.last_ply)
    return positions[positions.index(first): positions.index(last) + 1]


@EVERY_PAIR
@SETTINGS
@given(seed=SEEDS)
def test_a_runs_turns_had_the_chance_open_and_its_neighbours_did_not(case: tuple[str, int], seed: int) -> None:
    record = match(case, seed)
    analysis = analyze_record(record)
    assert not analysis.partial
    played, chances = chances_by_turn(record, 0)
    for finding in analysis.findings:
        if finding.kind not in chances:
            continue
        by_turn = chances[finding.kind]
        inside = span(played, by_turn, finding)
        assert len(inside) == finding.turns, finding
        assert all(by_turn[p] is not None for p in inside), finding  # open on every turn of the run
        mine = [p for p, t in enumerate(played.turns) if t.seat == finding.seat]
        at = mine.index(inside[0])
        if at > 0:
            assert by_turn[mine[at - 1]] is None, finding  # the seat's turn before: closed
        after = mine.index(inside[-1]) + 1
        if after < len(mine):
            assert by_turn[mine[after]] is None, finding  # and the turn after
        stake = max(by_turn[p].points for p in inside)  # type: ignore[attr-defined]
        assert finding.points == stake


@EVERY_PAIR
@SETTINGS
@given(seed=SEEDS)
def test_no_two_findings_of_a_kind_and_seat_cover_the_same_or_adjacent_turns(case: tuple[str, int], seed: int) -> None:
    record = match(case, seed)
    findings = analyze_record(record).findings
    played, chances = chances_by_turn(record, 0)
    for kind in (MISSED_CANASTA, MISSED_GOING_OUT):
        spans: dict[int, list[tuple[int, int]]] = {}
        for finding in (f for f in findings if f.kind == kind):
            assert finding.seat is not None
            mine = [p for p, t in enumerate(played.turns) if t.seat == finding.seat]
            inside = span(played, chances[kind], finding)
            spans.setdefault(finding.seat, []).append((mine.index(inside[0]), mine.index(inside[-1])))
        for seat_spans in spans.values():
            seat_spans.sort()
            for (_, end), (start, _) in zip(seat_spans, seat_spans[1:]):
                assert start > end + 1, seat_spans  # a gap of at least one turn between two runs


@EVERY_PAIR
@SETTINGS
@given(seed=SEEDS)
def test_every_witness_of_a_run_replays(case: tuple[str, int], seed: int) -> None:
    record = match(case, seed)
    for finding in analyze_record(record).findings:
        if finding.witness:
            replay_witness(record, finding)  # raises if the engine refuses a step


@EVERY_PAIR
@per_pair(25)
@given(seed=SEEDS)
def test_the_searches_find_what_the_search_they_replaced_finds(case: tuple[str, int], seed: int) -> None:
    compare_searches(case, seed)


def test_the_canasta_search_agrees_with_the_reference_in_abierto_sucio_4_seed_698() -> None:
    """Found by the property: p3's take at ply 75, where the reference's line makes 500 (Jh on
    the hearts run, dirty; 2s in its own place on 3s..8s, clean; Kc Kd Ks on the K set, clean)
    and the search stopped at 400: its suit-by-suit bound let the K set, which needs no wild,
    compete with the spades run for the one wild in hand."""
    compare_searches(("abierto-sucio", 4), 698)


def test_the_canasta_search_agrees_with_the_reference_in_cerrado_2_seed_12() -> None:
    """Found by a sweep of seeds: p1's take of the pile under 8d at ply 132, where the
    reference makes 100 by 8c 8d 2s and 4c 7c 9c on 3c 2h 5c 6c (the 2h to the 8), and the
    search found none: its lay-offs never left a gap whose natural card the hand held."""
    compare_searches(("cerrado", 2), 12)


@pytest.mark.parametrize("seed", [57, 77, 80])
def test_the_reference_agrees_with_the_searches_in_brasil_3(seed: int) -> None:
    """Found by a sweep of seeds, where the new searches beat the reference (each line
    replayed by the engine): its obligation plays once left out those spending more cards
    (57, 77), and it took an exit laying off on another side's meld as ideal (80)."""
    compare_searches(("brasil", 3), seed)


def test_the_going_out_search_agrees_with_the_reference_in_abierto_4_seed_0() -> None:
    """Found when the property first ran for every pair (p2's draw of 8d at ply 122): the
    reference's exit lays off 'Ah>low Qh' on 3h..Jh 2d=Qh Kh Ah, the 2d moving to the 2
    the low ace opens, while the 2h in hand goes into 7d 8d 2h=9d Td. The search's
    lay-offs never left a gap whose natural card (here the suit's 2) the hand held
    (``held_gaps`` in buraco.moves, on for the analysis)."""
    compare_searches(("abierto", 4), 0)


def compare_searches(case: tuple[str, int], seed: int) -> None:
    """On every turn's draw steps (the one played and each take passed over): the same most
    canasta bonus above the turn as played, and the same best going-out margin, wherever
    the reference settles within its node limit."""
    record = match(case, seed)
    context = SearchContext(record.rules)
    compared = 0
    for turn in played_turns(record, 0).turns:
        after = turn.before_draw.copy()
        after.apply(turn.draw)
        starts = [(after, turn.start(), turn.discard)]
        if turn.draw.verb == "draw":
            for take in draw_step_actions(turn.before_draw):
                if take.verb == "take":
                    trial = turn.before_draw.copy()
                    trial.apply(take)
                    starts.append((trial, Start.taking(turn.before_draw, take), None))
        for state, start, discard in starts:
            try:
                old_line = reference.best_canasta_line(state, discard, to_beat=turn.end_bonus)
                old_exit = reference.best_exit(state)
            except reference.SearchLimit:
                continue
            line = best_canasta_line(start, discard, to_beat=turn.end_bonus, context=context)
            exit_ = best_exit(start, context)
            old_bonus = old_line.bonus if old_line is not None and old_line.bonus > turn.end_bonus else None
            assert (line.bonus if line is not None else None) == old_bonus, (turn.draw_ply, start.draw)
            assert (exit_.margin if exit_ is not None else None) == (old_exit.margin if old_exit is not None else None), (
                turn.draw_ply, start.draw,
            )
            compared += 1
    assert compared > 0  # the reference settled somewhere: something was compared

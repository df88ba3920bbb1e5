"""buraco.analysis.puzzles: over self-play hands of several rule sets, every finding with a seat
and a witness is a puzzle its witness solves ("best") and the turn as played fails ("short" by
the finding's points); attempts that cannot be played are refused naming the action."""

from __future__ import annotations

import pytest

from buraco.analysis import analyze
from buraco.analysis.puzzles import BEST, SHORT, IllegalAttempt, judge, makes_puzzle, position, seat_view
from buraco.analysis.witness import witness_start
from buraco.notation import Record
from buraco.replay import state_at
from buraco.selfplay import play_match

CASES = [("cerrado", 2, 1), ("brasil", 4, 2), ("burraco", 2, 4), ("abierto", 2, 5)]


def played_turn(record: Record, hand: int, start: int, seat: int) -> list[str]:
    turn = []
    for action in record.hands[hand - 1].parsed[start - 1:]:
        if action.seat != seat:
            break
        turn.append(action.text)
    return turn


@pytest.mark.parametrize(("variant", "players", "seed"), CASES)
def test_the_witness_solves_each_puzzle_and_the_turn_as_played_falls_short(variant: str, players: int, seed: int) -> None:
    record = play_match(variant, players=players, hands=1, seed=seed, mistakes=0.3)
    puzzles = [f for f in analyze(record) if makes_puzzle(f)]
    assert puzzles
    for finding in puzzles:
        assert finding.seat is not None
        solved = judge(record, finding, finding.witness)
        assert (solved.verdict, solved.short_by) == (BEST, 0)
        assert solved.best_points - solved.played_points == finding.points
        start = witness_start(record, finding)
        failed = judge(record, finding, played_turn(record, finding.hand, start, finding.seat))
        assert (failed.verdict, failed.short_by) == (SHORT, finding.points)
        table = state_at(record, finding.hand - 1, start - 1)
        view = seat_view(position(record, finding), finding.seat)
        assert view["hand"] == table.to_json()["hands"][str(finding.seat)]
        assert (view["turn"], view["step"]) == (finding.seat, "draw")


def test_an_attempt_that_cannot_be_played_is_refused_naming_the_action() -> None:
    record = play_match("cerrado", players=2, hands=1, seed=3, mistakes=0.3)
    finding = next(f for f in analyze(record) if makes_puzzle(f))
    seat = finding.seat
    other = 1 if seat == 2 else 2
    for actions, index, words in [
        ([f"p{seat} draw", f"p{seat} discard 9x"], 1, "not a card"),
        ([f"p{other} draw"], 0, "is not p"),
        ([f"p{seat} discard As"], 0, "cannot be played"),
        ([*finding.witness, f"p{other} draw"], len(finding.witness), "after the turn ended"),
        ([f"p{seat} draw"], None, "not over"),
    ]:
        with pytest.raises(IllegalAttempt) as refused:
            judge(record, finding, actions)
        assert refused.value.index == index and words in refused.value.message, refused.value.message


def test_a_turn_better_than_the_one_played_but_short_of_the_witness_is_good() -> None:
    import dataclasses

    record = play_match("cerrado", players=2, hands=1, seed=3, mistakes=0.3)
    finding = next(f for f in analyze(record) if makes_puzzle(f) and f.kind == "missed-canasta")
    assert finding.seat is not None and finding.points is not None
    played = played_turn(record, finding.hand, witness_start(record, finding), finding.seat)
    # Said to have cost 50 more than it did, the turn as played now beats "the turn as played"
    # by 50 without reaching the witness.
    inflated = dataclasses.replace(finding, points=finding.points + 50)
    judged = judge(record, inflated, played)
    assert (judged.verdict, judged.short_by, judged.points - judged.played_points) == ("good", finding.points, 50)

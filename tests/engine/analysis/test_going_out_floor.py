"""A turn inside a run of missed chances to go out is searched only for a better margin than
the run's best so far (``_HandJudge.going_out_chance`` with ``above``), and where none is,
only for whether a way out is open. On self-play hands, against the whole search of each
turn: the floored search finds a chance exactly where the whole one does; where the whole
search's best margin is above the floor, the same chance (margin, points, ply, witness);
elsewhere an open-only chance (no points) whose way out, replayed by the engine, goes out
with a margin no better than the floor; and where that way out follows the draw as played
and holds the floor itself, the whole search's ply is the played turn's (what lets
``_GoingOutRuns`` leave such a run's last turn unsearched)."""

from __future__ import annotations

from dataclasses import dataclass

from buraco.analysis.search import SearchContext, Start, margin_of
from buraco.analysis.turns import _HandJudge, played_turns
from buraco.scoring import score_hand
from buraco.selfplay import play_match
from buraco.state import OUT

MATCHES = [("brasil", 3), ("brasil", 4), ("brasil", 10), ("cerrado", 9), ("abierto-sucio", 4)]


@dataclass
class Judged:
    better: int = 0  # turns inside a run whose best beat the run's so far
    open_only: int = 0  # turns inside a run judged open-only
    played_at_floor: int = 0  # of them, opened by the draw as played at the floor itself


def test_a_turn_inside_a_going_out_run_judged_above_its_best_agrees_with_the_whole_search() -> None:
    judged = Judged()
    for variant_id, seed in MATCHES:
        judge_above_best(variant_id, seed, judged)
    assert judged.better > 0  # runs of several turns were reached, some turn beating the run's best
    assert judged.open_only > 0  # and some turn holding no more
    assert judged.played_at_floor > 0  # one of them opened at the floor by the draw as played


def judge_above_best(variant_id: str, seed: int, judged: Judged) -> None:
    record = play_match(variant_id, players=2, hands=1, seed=seed)
    played = played_turns(record, 0)
    whole = _HandJudge(record, 0, played, SearchContext(record.rules))
    floored = _HandJudge(record, 0, played, SearchContext(record.rules))
    best: dict[int, int] = {}  # seat -> its run's best margin so far
    for position, turn in enumerate(played.turns):
        truth = whole.going_out_chance(position)
        seat = turn.seat
        if seat not in best:
            if truth is not None:
                best[seat] = truth.margin
            continue
        above = best[seat]
        chance = floored.going_out_chance(position, above)
        if truth is None:
            assert chance is None
            del best[seat]
            continue
        assert chance is not None
        if truth.margin > above:
            judged.better += 1
            assert (chance.points, chance.margin, chance.ply, chance.witness) == (truth.points, truth.margin, truth.ply, truth.witness)
        else:
            judged.open_only += 1
            assert chance.points is None and chance.margin <= above
            draw, *plays = chance.witness
            start = turn.start() if draw == turn.draw else Start.taking(turn.before_draw, draw)
            table = start.replay(plays)
            assert table is not None and table.is_over and table.ended_by == OUT and table.out_by == seat
            assert margin_of(tuple(p.total for p in score_hand(table)), turn.side) == chance.margin
            if chance.margin == above and draw == turn.draw:
                judged.played_at_floor += 1
                assert truth.ply == turn.ply
        best[seat] = max(above, truth.margin)

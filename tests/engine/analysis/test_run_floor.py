"""A turn inside a run of missed canastas is searched only above the run's best so far
(``buraco.analysis.search.canasta_lines_above``), and a line of the seat's last turn,
replayed by the engine, may prove the chance still open (``_HandJudge.reopened``, after a
take reaching the same card of the pile where the line took from it). Both
must give what the whole search gives: on self-play tables and turns, the floored search
keeps a line exactly where the whole search's best holds more than the floor, and says the
chance is open exactly where the whole search finds a line (searched, or read from the
whole search the context remembers for the table); a turn judged with its run's
stake and its last turn's chance is open-only exactly where the whole search finds no more
at stake than that, and its witness replays legally and holds more bonus than the turn;
where that witness holds as much as the run's stake, the turn's chance worked out from it
(``_HandJudge.chance_at_best``, what ends a run) has the whole search's points and ply."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from buraco.analysis.search import SearchContext, Start, best_canasta_line, canasta_lines_above
from buraco.analysis.turns import Chance, _HandJudge, played_turns
from buraco.selfplay import play_match

from .builders import play_steps


@pytest.mark.parametrize("variant_id,seed", [("brasil", 1), ("brasil", 3), ("abierto", 2), ("burraco-106", 4), ("cerrado-sucio", 5)])
def test_a_floored_search_keeps_a_line_exactly_where_the_best_is_above_the_floor(variant_id: str, seed: int) -> None:
    tables = play_steps(variant_id, seed)
    context = SearchContext(tables[0].variant)
    checked = 0
    for table in tables:
        start = Start.after(table)
        best = best_canasta_line(start, None, -1, SearchContext(table.variant))
        floors = [-1, 0] if best is None else [-1, best.bonus - 1, best.bonus, best.bonus + 100]
        for floor in floors:  # the first, -1, is the whole search: the context remembers it for the others
            answer = canasta_lines_above(start, None, -1, floor, context, whole=-1)
            assert answer.open == (best is not None)
            if best is None or best.bonus <= floor:
                assert answer.line is None
            else:
                assert answer.line is not None and (answer.line.actions, answer.line.bonus) == (best.actions, best.bonus)
            if answer.opener is not None:
                assert answer.opener.bonus > -1
                replayed = start.replay(answer.opener.actions)
                assert replayed is not None  # the engine accepts the line proving it open
            checked += best is not None
    assert checked  # some table had a line to find


MATCHES = [("brasil", 1), ("brasil", 2), ("brasil", 5), ("burraco", 3), ("abierto-sucio", 4)]


def test_a_turn_inside_a_run_judged_above_its_stake_agrees_with_the_whole_search() -> None:
    judged = [judge_above_stakes(variant_id, seed) for variant_id, seed in MATCHES]
    assert sum(j.open_only for j in judged) > 0  # runs of several turns were reached
    assert sum(j.proved for j in judged) > 0  # and a last turn's line proved one open
    # and one after the take reaching the same card, once the pile's top had changed
    assert sum(j.proved_on_changed_pile for j in judged) > 0
    assert sum(j.at_best for j in judged) > 0  # and one holding the stake itself


@dataclass
class Judged:
    open_only: int = 0  # turns judged open-only
    proved: int = 0  # of them, proved open by the seat's last turn's line, replayed
    proved_on_changed_pile: int = 0  # of those, after a take, the pile's top changed since
    at_best: int = 0  # turns whose witness holds the run's stake


def judge_above_stakes(variant_id: str, seed: int) -> Judged:
    """Check every turn of the match's hand, counting what :class:`Judged` counts."""
    record = play_match(variant_id, players=2, hands=1, seed=seed)
    played = played_turns(record, 0)
    whole = _HandJudge(record, 0, played, SearchContext(record.rules))
    floored = _HandJudge(record, 0, played, SearchContext(record.rules))
    last: dict[int, Chance] = {}  # the seat's last chance, as the floored judge saw it
    stakes: dict[int, int] = {}
    judged = Judged()
    for position, turn in enumerate(played.turns):
        truth = whole.canasta_chance(position)
        seat = turn.seat
        if seat not in stakes:
            chance = floored.canasta_chance(position)
        else:
            chance = floored.canasta_chance(position, stakes[seat], last[seat])
        if truth is None:
            assert chance is None
            stakes.pop(seat, None)
            last.pop(seat, None)
            continue
        assert chance is not None and truth.points is not None
        if chance.points is None:  # open-only: no more at stake than the run so far
            judged.open_only += 1
            assert truth.points <= stakes[seat]
            draw, *plays = chance.witness
            ended = Start.taking(turn.before_draw, draw) if draw.verb == "take" else turn.start()
            replayed = ended.replay(plays)
            assert replayed is not None  # the engine accepts the witness
            assert floored.context.bonus_of(replayed, turn.side) > turn.end_bonus
            reopened = floored.reopened(turn, last[seat], turn.end_bonus)
            if reopened is not None:
                judged.proved += 1
                proof_draw, proof = reopened
                proving = Start.taking(turn.before_draw, proof_draw) if proof_draw.verb == "take" else turn.start()
                assert proving.replay(proof.actions) is not None  # the engine accepts the proof
                was, pile = last[seat].start.discard_pile, turn.before_draw.discard_pile
                judged.proved_on_changed_pile += proof_draw.verb == "take" and pile[:len(was)] != was
            if chance.best is not None:
                judged.at_best += 1
                assert truth.points == stakes[seat]  # the witness holds the most of any draw choice
                found = floored.chance_at_best(position, chance.best)
                assert (found.points, found.ply) == (truth.points, truth.ply)
                draw, *plays = found.witness
                ended = Start.taking(turn.before_draw, draw) if draw.verb == "take" else turn.start()
                assert ended.replay(plays) is not None
        else:
            assert chance.points == truth.points and chance.ply == truth.ply
            assert seat not in stakes or chance.points > stakes[seat]
        stakes[seat] = max(stakes.get(seat, 0), truth.points)
        last[seat] = chance
    return judged

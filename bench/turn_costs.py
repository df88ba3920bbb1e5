"""Where a median hand's analysis time goes, part by part, in multiples of its verify.

Issue 13 asks the analysis of a hand to cost at most 10x its verify (median over a rule
set's hands, ``bench/analysis.py``). This splits that cost for the hands the median is
read on: it plays ``--hands`` hands of one rule set as ``bench/analysis.py`` does (2
players, 5 hands a match, seeds 0, 1, ...), times each hand's turn searches and verify,
keeps the middle ``--middle`` share of them by that ratio (or those ``--between`` two shares
of all, such as the tail the 95th percentile is read in), and times there:

* **verify**: ``buraco.replay.verify_hand``, best of three (CPU time);
* **replay**: ``played_turns``, the hand replayed turn by turn for the searches;
* **reach**: on such a replay, each turn's reach bound (``Turn.reach().bonus_bound``)
  and going out's quick test on it (``may_qualify``): what stops most turns before any
  search. In the analysis it is paid inside the canasta judge, and is taken out of it below;
* then the analysis as it runs (``_HandJudge.findings``), with the canasta judge, the
  going-out judge and the dangerous-discard test each timed where it is called (wall
  clock, ``time.perf_counter``: CPU time costs a system call, which would weigh on parts
  this small), the rest being the runs and the judge's own work;
* **freeing**: dropping the hand's tables once judged (``forget_hand`` and the replay).

Then the canasta and going-out judges' calls by what they found, each with its count and
its time (the reach bound included, as the judge pays it): a turn stopped by the reach, a
turn searched with nothing open, a chance (outside a run, one that opens a run), and inside
a run (from its second turn, searched only above the run's stake so far) a turn found open
but worth no more than that stake. Last, the exit searches the judges ask for (the going-out
judge's, and the canasta judge's for the most bonus where a turn went out), by what each
was asked (whole, over a margin to beat, finding open, the most bonus) and found, and
whether it walked any table: their count, tables and time.

The cycle collector is paused throughout, as the analysis pauses it. It prints each
part in microseconds a turn and in multiples of verify, and what every turn pays before
any search. A figure, not a test: the parts are private functions of the engine, wrapped
for the run and restored after. Compiled searches would call their own functions past such
wrappers, so this reads the source: it sets ``BURACO_COMPILED=off`` before the engine loads
(buraco/analysis/compiled.py).

Run: ``.venv/bin/python bench/turn_costs.py [--variant brasil] [--hands 150] [--middle 0.4 | --between 0.88 0.98]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(1, str(ROOT))
os.environ["BURACO_COMPILED"] = "off"  # the wrappers below must see every call (see above)

from bench.analysis import records_for  # noqa: E402
from bench.harness import cpu_best  # noqa: E402
from buraco.analysis import turns  # noqa: E402
from buraco.analysis.collector import collector_paused  # noqa: E402
from buraco.analysis.search import SearchContext  # noqa: E402
from buraco.notation import Record  # noqa: E402
from buraco.replay import verify_hand  # noqa: E402

HANDS_PER_MATCH = 5  # bench/analysis.py's default
PARTS = ("canasta", "going out", "discards")


def hands_of(variant: str, hands: int) -> list[tuple[Record, int]]:
    """``hands`` self-play hands of ``variant``, as (record, index): the matches that
    bench/analysis.py measures, made by its own :func:`records_for`."""
    records, _ = records_for(variant, 2, hands, HANDS_PER_MATCH)
    return [(record, index) for _, record in records for index in range(len(record.hands))]


def middle_hands(hands: list[tuple[Record, int]], share: float) -> list[tuple[Record, int]]:
    """The hands whose ratio of analysis to verify lies in the middle ``share`` of all."""
    return hands_between(hands, (1 - share) / 2, 1 - (1 - share) / 2)


def hands_between(hands: list[tuple[Record, int]], low: float, high: float) -> list[tuple[Record, int]]:
    """The hands whose ratio of analysis to verify lies between the ``low`` and ``high``
    shares of all, by rank (0.3 and 0.7: the middle 40%; 0.88 and 0.98: the tail the 95th
    percentile is read in)."""
    ratios = []
    for record, index in hands:
        context = SearchContext(record.rules)
        analysis = cpu_best(lambda: turns.turn_findings(record, index, [], context))  # noqa: B023
        ratios.append((analysis / cpu_best(lambda: verify_hand(record, index), 3), record, index))  # noqa: B023
    ratios.sort(key=lambda entry: entry[0])
    kept = ratios[round(len(ratios) * low):round(len(ratios) * high)]
    if not kept:
        raise SystemExit(f"no hand of {len(ratios)} lies between the shares {low} and {high}: ask for more hands")
    print(f"{len(kept)} hands of {len(ratios)}, ratio {kept[0][0]:.1f}x to {kept[-1][0]:.1f}x "
          f"(median of all {statistics.median(r for r, _, _ in ratios):.1f}x)")
    return [(record, index) for _, record, index in kept]


Outcome = Callable[[tuple[Any, ...], Any], str]  # a judge's (arguments, answer) -> what it found


def canasta_outcome(args: tuple[Any, ...], chance: turns.Chance | None) -> str:
    """What one call of ``_HandJudge.canasta_chance`` found (read after it returned: the
    turn keeps its reach, so reading it again costs nothing)."""
    judge, position, *above = args
    turn = judge.played.turns[position]
    where = "inside a run" if above else "outside a run (or a run's last turn searched again)"
    if turn.went_out:
        found = "went out (ways of going out only)"
    elif turn.reach().bonus_bound(judge.context) <= turn.end_bonus:
        found = "stopped by the reach"
    elif chance is None:
        found = "searched, nothing open"
    elif chance.points is None:
        found = "open, worth no more than the run's stake"
    else:
        found = "a chance"
    return f"canasta: {where}: {found}"


def going_out_outcome(args: tuple[Any, ...], chance: turns.Chance | None) -> str:
    """What one call of ``_HandJudge.going_out_chance`` found."""
    judge, position, *above = args
    turn = judge.played.turns[position]
    if turn.went_out or not turn.reach().counted(judge.context).may_qualify():
        return "going out: no canasta to qualify by the reach"
    where = "inside a run" if above and above[0] is not None else "outside a run (or a run's last turn searched again)"
    if chance is None:
        found = "searched, no way out"
    elif chance.points is None:
        found = "open, worth no more than the run's best margin"
    else:
        found = "a way out"
    return f"going out: {where}: {found}"


class _Timed:
    """The judge's parts wrapped with a clock each, while the block runs; the canasta and
    going-out judges' calls also by what they found (:func:`canasta_outcome`)."""

    def __init__(self) -> None:
        self.seconds = dict.fromkeys(PARTS, 0.0)
        self.outcomes: dict[str, list[float]] = {}  # what was found -> [calls, seconds]
        self.exits: dict[str, list[float]] = {}  # how an exit search was asked, what it found -> [calls, tables, seconds]
        self.telling = 0.0  # seconds spent telling what was found: the bench's, not the analysis's
        self.telling_in = dict.fromkeys(PARTS, 0.0)  # the part of it each judge's own clock ran through
        self._saved: list[tuple[Any, str, Any]] = []

    def wrap(self, owner: Any, name: str, part: str, outcome: Outcome | None = None) -> None:
        function = getattr(owner, name)
        seconds, outcomes, clock = self.seconds, self.outcomes, time.perf_counter

        def timed(*args: Any) -> Any:
            start = clock()
            answer = None
            try:
                answer = function(*args)
                return answer
            finally:
                spent = clock() - start
                seconds[part] += spent
                if outcome is not None:
                    tally = outcomes.setdefault(outcome(args, answer), [0, 0.0])
                    tally[0] += 1
                    tally[1] += spent
                    self.telling += clock() - start - spent

        self._saved.append((owner, name, function))
        setattr(owner, name, timed)

    def wrap_exits(self) -> None:
        """Each exit search the judges ask for (``best_exit``), tallied by what it was asked
        and found, and whether it walked any table (most end on a test at its start)."""
        function = getattr(turns, "best_exit")  # noqa: B009 (not exported: read as the judges read it)
        exits, clock = self.exits, time.perf_counter

        def timed(start: Any, context: SearchContext, **asked: Any) -> Any:
            nodes, begun = context.nodes, clock()
            answer = function(start, context, **asked)
            spent = clock() - begun
            how = "most bonus" if asked.get("most_bonus") else "whole" if asked.get("margin_to_beat") is None else "a margin to beat"
            if asked.get("find_open"):
                how += ", finding open"
            found = "a way out" if answer is not None else "no way out"
            walked = "walked" if context.nodes > nodes else "no table"
            tally = exits.setdefault(f"{how}: {found}, {walked}", [0, 0, 0.0])
            tally[0] += 1
            tally[1] += context.nodes - nodes
            tally[2] += spent
            telling = clock() - begun - spent
            self.telling += telling
            # Inside the clock of the judge that asked: the canasta judge asks for the most bonus.
            self.telling_in["canasta" if asked.get("most_bonus") else "going out"] += telling
            return answer

        self._saved.append((turns, "best_exit", function))
        setattr(turns, "best_exit", timed)  # noqa: B010

    def __enter__(self) -> _Timed:
        self.wrap(turns._HandJudge, "canasta_chance", "canasta", canasta_outcome)
        self.wrap(turns._HandJudge, "going_out_chance", "going out", going_out_outcome)
        self.wrap(turns, "_discard_findings", "discards")
        self.wrap_exits()
        return self

    def __exit__(self, *_: object) -> None:
        for owner, name, function in reversed(self._saved):
            setattr(owner, name, function)


Outcomes = dict[str, list[float]]


def measure(hands: Sequence[tuple[Record, int]]) -> tuple[int, dict[str, float], dict[str, int], Outcomes, Outcomes]:
    seconds = dict.fromkeys(("verify", "replay", "reach", "judging", "freeing"), 0.0)
    counts = {"reach lets through": 0, "could go out": 0}
    turn_count = 0
    with collector_paused(), _Timed() as timed:
        for record, index in hands:
            seconds["verify"] += cpu_best(lambda: verify_hand(record, index), 3)  # noqa: B023
            context = SearchContext(record.rules)
            played = turns.played_turns(record, index, context)
            start = time.process_time()
            for turn in played.turns:
                counts["reach lets through"] += turn.reach().bonus_bound(context) > turn.end_bonus
                counts["could go out"] += not turn.went_out and turn.reach().counted(context).may_qualify()
            seconds["reach"] += time.process_time() - start
            turn_count += len(played.turns)
            del played
            context = SearchContext(record.rules)
            start = time.process_time()
            played = turns.played_turns(record, index, context)
            replayed = time.process_time()
            judge = turns._HandJudge(record, index, played, context)
            judge.findings()
            judged = time.process_time()
            context.forget_hand()
            del judge, played
            seconds["freeing"] += time.process_time() - judged
            seconds["replay"] += replayed - start
            seconds["judging"] += judged - replayed
    seconds.update(timed.seconds)
    seconds["judging"] -= timed.telling
    for part, telling in timed.telling_in.items():
        seconds[part] -= telling
    return turn_count, seconds, counts, timed.outcomes, timed.exits


def report(turn_count: int, seconds: dict[str, float], counts: dict[str, int], outcomes: Outcomes, exits: Outcomes) -> None:
    verify = seconds["verify"]
    # The reach is paid inside the canasta judge: shown apart, taken out of it.
    rows = [
        ("replaying the turns", seconds["replay"]),
        ("the reach bound", seconds["reach"]),
        ("dangerous discards", seconds["discards"]),
        ("freeing the hand's tables", seconds["freeing"]),
    ]
    every_turn = sum(s for _, s in rows)
    searches = [
        ("canasta searches", seconds["canasta"] - seconds["reach"]),
        ("going-out searches", seconds["going out"]),
        ("the runs, the judge's own work", seconds["judging"] - sum(seconds[p] for p in PARTS)),
    ]
    total = seconds["replay"] + seconds["judging"] + seconds["freeing"]
    print(f"{turn_count} turns; verify {verify / turn_count * 1e6:.1f} us a turn; "
          f"analysis {total / turn_count * 1e6:.1f} us a turn, {total / verify:.1f}x verify")
    print(f"the reach lets {counts['reach lets through']} turns through; "
          f"{counts['could go out']} could go out by it")
    print("| part | us a turn | x verify |\n|---|--:|--:|")
    for name, part in [*rows, ("**what every turn pays, before any search**", every_turn), *searches]:
        print(f"| {name} | {part / turn_count * 1e6:.1f} | {part / verify:.1f}x |")
    print("\nThe judges' calls by what they found (the reach bound included):\n")
    print("| what the judge found | calls | us a call | x verify |\n|---|--:|--:|--:|")
    for name, (calls, spent) in sorted(outcomes.items(), key=lambda item: -item[1][1]):
        print(f"| {name} | {calls:.0f} | {spent / calls * 1e6:.0f} | {spent / verify:.2f}x |")
    print("\nThe exit searches (inside the judges' time) by what they were asked and found:\n")
    print("| exit search | calls | tables | us a call | x verify |\n|---|--:|--:|--:|--:|")
    for name, (calls, tables, spent) in sorted(exits.items(), key=lambda item: -item[1][2]):
        print(f"| {name} | {calls:.0f} | {tables:.0f} | {spent / calls * 1e6:.0f} | {spent / verify:.2f}x |")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--variant", default="brasil")
    parser.add_argument("--hands", type=int, default=150)
    chosen = parser.add_mutually_exclusive_group()
    chosen.add_argument("--middle", type=float, default=0.4, help="share of the hands kept, by ratio (default 0.4)")
    chosen.add_argument("--between", type=float, nargs=2, metavar=("LOW", "HIGH"),
                        help="the hands between these shares of all, by ratio (0.88 0.98: the tail)")
    args = parser.parse_args(argv)
    if args.between and not 0 <= args.between[0] < args.between[1] <= 1:
        parser.error(f"--between {args.between[0]} {args.between[1]}: LOW and HIGH must be shares, LOW below HIGH")
    played = hands_of(args.variant, args.hands)
    hands = hands_between(played, *args.between) if args.between else middle_hands(played, args.middle)
    report(*measure(hands))


if __name__ == "__main__":
    main()

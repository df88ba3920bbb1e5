"""Analysis cost per hand, per rule set, against the cost of verifying the same hand.

For each rule set this plays self-play matches (2 players, ``--hands-per-match``
hands each, seeds 0, 1, 2, ...) until ``--hands`` hands, then for every hand measures,
in CPU time of this process (``time.process_time``; the machine is shared):

* verify: ``buraco.replay.verify_hand(record, index)``, best of ``--verify-repeat``;
* analysis: ``buraco.analysis.turns.turn_findings(record, index, unsearched, context)``
  (the turn searches: missed canastas, missed going out, dangerous discards; one
  ``SearchContext`` per match, as ``analyze_record`` shares one), best of ``--repeat``
  passes over the match, each with a new context (a context remembers its searches: a
  hand run twice on one would be measured from memory), plus the hand's share of
  ``buraco.analysis.slips.scoring_findings(record, report)`` (timed once per match,
  divided by its hands; best of ``--repeat``).  ``analyze_record`` also runs one
  ``verify(record)`` first; that is not in the analysis figure (it is the verify
  figure, once more).

It reports per rule set the median, 95th percentile and max of analysis time per hand,
the ratio to verify time on the same hands (median, 95th percentile, max), the decisions
not judged (``Unsearched``: only a CPU budget cuts one, and the bench sets none), the
most tables one search visited, and the findings per kind per 100 turns.  The aim
(issue 13): median at most 10x verify, 95th percentile at most 30x, no hand over 1 s.

Then cProfile over the analysis of the slowest rule set's hands (``--profile-hands``
of them, the slowest first), written to ``bench/out/analysis-<rule set>.prof`` and
``.txt``; raw per-hand times go to ``bench/out/analysis.json`` (``analysis-<rule sets>.json``
with ``--variants``).  Generation is not
timed.  ``--jobs N`` measures N rule sets at a time in separate processes (CPU time
is per process; on a loaded 2-core machine keep it at 1 or 2).

Run: ``.venv/bin/python bench/analysis.py [--hands 500] [--variants brasil,cerrado] [--jobs 2]``
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import platform
import pstats
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(1, str(ROOT))

from bench import harness  # noqa: E402
from buraco.analysis import KINDS  # noqa: E402
from buraco.analysis.findings import Finding  # noqa: E402
from buraco.analysis.search import SearchContext  # noqa: E402
from buraco.analysis.slips import scoring_findings  # noqa: E402
from buraco.analysis.turns import Unsearched, played_turns, turn_findings  # noqa: E402
from buraco.notation import Record  # noqa: E402
from buraco.replay import verify, verify_hand  # noqa: E402
from buraco.rules import VARIANTS  # noqa: E402
from buraco.selfplay import play_match  # noqa: E402

OUT = ROOT / "bench" / "out"
GOAL_RATIO = 10.0  # median analysis at most 10x verify
GOAL_P95_RATIO = 30.0  # 95th percentile at most 30x
GOAL_MAX_S = 1.0  # no hand over 1 s
MAX_SKIPPED_SEEDS = 100


@dataclass
class HandTiming:
    seed: int
    index: int
    verify_s: float
    analysis_s: float  # turn_findings + share of scoring_findings
    turns: int
    unsearched: int
    largest: int = 0  # the most tables one search of the hand visited


@dataclass
class VariantResult:
    variant: str
    players: int
    hands: list[HandTiming]
    findings: dict[str, int]
    turns: int
    unsearched: dict[str, int]  # by search ("canasta", "going out")
    unsearched_hands: int
    skipped_seeds: int
    generate_s: float
    measure_s: float
    examples: list[str] = field(default_factory=list)  # a few Unsearched texts


def records_for(variant: str, players: int, hands: int, per_match: int) -> tuple[list[tuple[int, Record]], int]:
    records: list[tuple[int, Record]] = []
    total = 0
    skipped = 0
    seed = 0
    while total < hands:
        wanted = min(per_match, hands - total)
        try:
            record = play_match(variant, players=players, hands=wanted, seed=seed)
        except RuntimeError:  # self-play got stuck: not an analysis cost
            skipped += 1
            if skipped > MAX_SKIPPED_SEEDS:
                raise SystemExit(f"{variant}: self-play got stuck {skipped} times") from None
        else:
            records.append((seed, record))
            total += len(record.hands)
        seed += 1
    return records, skipped


def best(function: object, repeat: int) -> tuple[float, object]:
    result: object = None
    times = []
    for _ in range(repeat):
        start = time.process_time()
        result = function()  # type: ignore[operator]
        times.append(time.process_time() - start)
    return min(times), result


def _analysis_pass(record: Record) -> list[tuple[float, list[Finding], list[Unsearched], int]]:
    """The turn searches of every hand of ``record`` in order, with one new context (as
    ``analyze_record`` shares one): per hand, its CPU seconds, findings, decisions not
    judged and the most tables one of its searches visited."""
    context = SearchContext(record.rules)
    results = []
    for index in range(len(record.hands)):
        unsearched: list[Unsearched] = []
        context.largest = 0
        start = time.process_time()
        found = turn_findings(record, index, unsearched, context)
        results.append((time.process_time() - start, found, unsearched, context.largest))
    return results


def measure_variant(variant: str, players: int, hands: int, per_match: int, repeat: int,
                    verify_repeat: int) -> VariantResult:
    start = time.process_time()
    records, skipped = records_for(variant, players, hands, per_match)
    generate_s = time.process_time() - start
    start = time.process_time()
    timings: list[HandTiming] = []
    findings: Counter[str] = Counter()
    unsearched_by: Counter[str] = Counter()
    unsearched_hands = 0
    turns_total = 0
    examples: list[str] = []
    for number, (seed, record) in enumerate(records, start=1):
        report = verify(record)
        scoring_s, scoring = best(lambda: scoring_findings(record, report), repeat)  # noqa: B023
        share = scoring_s / len(record.hands)
        findings.update(f.kind for f in scoring)  # type: ignore[attr-defined]
        # Each repeat is a pass over the match's hands in order with a new context, as
        # analyze_record makes one: a second run of a hand with the same context would find
        # its own searches remembered, and measure the memory, not the analysis.
        passes = [_analysis_pass(record) for _ in range(repeat)]
        for index in range(len(record.hands)):
            verify_s, _ = best(lambda: verify_hand(record, index), verify_repeat)  # noqa: B023
            analysis_s = min(p[index][0] for p in passes)
            _, found, unsearched, largest = passes[0][index]
            findings.update(f.kind for f in found)
            turns = len(played_turns(record, index).turns)
            turns_total += turns
            unsearched_by.update(u.search for u in unsearched)
            unsearched_hands += bool(unsearched)
            if unsearched and len(examples) < 3:
                examples.append(f"seed {seed}: {unsearched[0]}")
            timings.append(HandTiming(seed, index, verify_s, analysis_s + share, turns, len(unsearched), largest))
        print(f"  {variant}: {number}/{len(records)} matches, {len(timings)} hands, "
              f"{time.process_time() - start:.0f} s CPU", file=sys.stderr, flush=True)
    return VariantResult(variant, players, timings, dict(findings), turns_total, dict(unsearched_by),
                         unsearched_hands, skipped, generate_s, time.process_time() - start, examples)


def _measure(args: tuple[str, int, int, int, int, int]) -> VariantResult:
    return measure_variant(*args)


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    position = share * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def profile_variant(result: VariantResult, per_match: int, count: int, top: int) -> tuple[str, float, float]:
    """cProfile over the analysis of the variant's ``count`` slowest hands; returns the summary,
    the profiled CPU seconds and the same hands' unprofiled analysis seconds."""
    slowest = sorted(result.hands, key=lambda h: h.analysis_s, reverse=True)[:count]
    seeds = sorted({h.seed for h in slowest})
    wanted = {(h.seed, h.index) for h in slowest}
    records = {}
    for seed in seeds:
        hands = sum(1 for h in result.hands if h.seed == seed)
        records[seed] = play_match(result.variant, players=result.players, hands=hands, seed=seed)
    profiler = cProfile.Profile()
    start = time.process_time()
    profiler.enable()
    for seed in seeds:
        record = records[seed]
        report = verify(record)
        scoring_findings(record, report)
        for index in range(len(record.hands)):
            if (seed, index) in wanted:
                turn_findings(record, index, [], SearchContext(record.rules))
    profiler.disable()
    profiled_s = time.process_time() - start
    OUT.mkdir(parents=True, exist_ok=True)
    profiler.dump_stats(str(OUT / f"analysis-{result.variant}.prof"))
    stream = io.StringIO()
    stats = pstats.Stats(profiler, stream=stream)
    stats.sort_stats("cumulative").print_stats(top)
    stream.write("\n--- by own time ---\n")
    stats.sort_stats("tottime").print_stats(top)
    text = stream.getvalue().replace(str(ROOT) + "/", "")
    (OUT / f"analysis-{result.variant}.txt").write_text(text)
    return text, profiled_s, sum(h.analysis_s for h in slowest)


def commit() -> str:
    """HEAD, the tree of buraco/ at HEAD and whether buraco/ differs from it: the engine measured
    is the one imported at the start (others may commit meanwhile; see ``report``)."""
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False).stdout.strip()

    dirty = git("status", "--porcelain", "--", "buraco")
    return (f"{git('rev-parse', '--short', 'HEAD')} (buraco/ tree {git('rev-parse', '--short', 'HEAD:buraco')}"
            f"{', with uncommitted changes' if dirty else ''})")


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}" if seconds < 10 else f"{seconds * 1000:.0f}"


def report(results: list[VariantResult], args: argparse.Namespace, wall_s: float) -> None:
    out = print
    at_end = commit()
    changed = "" if at_end == args.commit else f" (at the end: {at_end}; the engine measured is the one at the start)"
    out(f"Commit {args.commit} at the start{changed}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
        f"Python {platform.python_version()}, {os.cpu_count()} cores, load average before "
        f"{args.load_before:.2f}, after {os.getloadavg()[0]:.2f} (other jobs share the machine: "
        f"CPU time of this process, not wall time).")
    out(f"Command: `.venv/bin/python bench/analysis.py --hands {args.hands} --hands-per-match "
        f"{args.hands_per_match} --repeat {args.repeat}`; {len(results)} rule sets, 2 players, "
        f"{wall_s:.0f} s wall in all; no CPU budget (searches run to the end).")
    out(f"The analysis's searches ran {harness.searches_as_run()}; verify runs interpreted either way.")
    out("")
    out("Analysis per hand (turn_findings + share of scoring_findings), CPU ms; verify = verify_hand, CPU ms.")
    out("")
    out("| rule set | hands | analysis median | p95 | max | verify median | ratio median | p95 | max "
        "| ratio of totals | hands over 1 s | largest search | aim (median <= 10x, p95 <= 30x, max <= 1 s) |")
    out("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|")
    for r in results:
        a = [h.analysis_s for h in r.hands]
        v = [h.verify_s for h in r.hands]
        ratios = [h.analysis_s / h.verify_s for h in r.hands if h.verify_s > 0]
        median_ratio = statistics.median(ratios) if ratios else float("nan")
        p95_ratio = percentile(ratios, 0.95)
        over = sum(1 for x in a if x > GOAL_MAX_S)
        missed = [
            *(["median"] if median_ratio > GOAL_RATIO else []), *(["p95"] if p95_ratio > GOAL_P95_RATIO else []),
            *(["max"] if max(a) > GOAL_MAX_S else []),
        ]
        verdict = "met" if not missed else "missed (" + ", ".join(missed) + ")"
        out(f"| {r.variant} | {len(r.hands)} | {ms(statistics.median(a))} | {ms(percentile(a, 0.95))} "
            f"| {ms(max(a))} | {ms(statistics.median(v))} | {median_ratio:.1f}x | {p95_ratio:.1f}x | {max(ratios):.0f}x "
            f"| {sum(a) / sum(v):.1f}x | {over} | {max(h.largest for h in r.hands):,} | {verdict} |")
    out("")
    out("Decisions not judged (cut by a CPU budget; the bench sets none), and findings per 100 turns:")
    out("")
    kinds = [k for k in KINDS]
    out("| rule set | turns | unsearched: canasta | going out | hands with any | "
        + " | ".join(kinds) + " |")
    out("|---|--:|--:|--:|--:|" + "--:|" * len(kinds))
    for r in results:
        per100 = " | ".join(f"{100 * r.findings.get(k, 0) / max(1, r.turns):.2f}" for k in kinds)
        out(f"| {r.variant} | {r.turns} | {r.unsearched.get('canasta', 0)} | {r.unsearched.get('going out', 0)} "
            f"| {r.unsearched_hands} | {per100} |")
    others = {k for r in results for k in r.unsearched if k not in ("canasta", "going out")}
    if others:
        out(f"(other search names seen: {sorted(others)})")
    out("")
    for r in results:
        if r.skipped_seeds:
            out(f"- {r.variant}: {r.skipped_seeds} seeds skipped (self-play stuck).")
        for example in r.examples[:1]:
            out(f"- {r.variant}, e.g. {example}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--hands", type=int, default=500, help="hands per rule set (default 500)")
    parser.add_argument("--hands-per-match", type=int, default=5)
    parser.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated rule sets (default all)")
    parser.add_argument("--repeat", type=int, default=1, help="analysis runs per hand, best taken (default 1)")
    parser.add_argument("--verify-repeat", type=int, default=3, help="verify runs per hand, best taken (default 3)")
    parser.add_argument("--jobs", type=int, default=1, help="rule sets measured at a time, one process each")
    parser.add_argument("--profile", default="slowest", help="rule set to profile: 'slowest', a name, or 'none'")
    parser.add_argument("--profile-hands", type=int, default=50, help="slowest hands of it to profile (default 50)")
    parser.add_argument("--top", type=int, default=30, help="profile lines")
    parser.add_argument("--quick", action="store_true", help="smoke run: 20 hands per rule set")
    args = parser.parse_args(argv)
    if args.quick:
        args.hands, args.profile_hands = 20, 10
    args.load_before = os.getloadavg()[0]
    args.commit = commit()
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        parser.error(f"unknown rule sets: {unknown}")
    tasks = [(v, 2, args.hands, args.hands_per_match, args.repeat, args.verify_repeat) for v in variants]
    wall = time.perf_counter()
    if args.jobs > 1:
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            results = list(pool.map(_measure, tasks))
    else:
        results = [_measure(task) for task in tasks]
    wall_s = time.perf_counter() - wall
    OUT.mkdir(parents=True, exist_ok=True)
    name = "analysis.json" if len(variants) == len(VARIANTS) else f"analysis-{'-'.join(variants)[:100]}.json"
    (OUT / name).write_text(json.dumps([asdict(r) for r in results]))
    report(results, args, wall_s)
    if args.profile != "none" and results:
        if args.profile == "slowest":
            target = max(results, key=lambda r: sum(h.analysis_s for h in r.hands))
        else:
            target = next((r for r in results if r.variant == args.profile), results[0])
        print(f"profiling {target.variant} ...", file=sys.stderr, flush=True)
        text, profiled_s, plain_s = profile_variant(target, args.hands_per_match, args.profile_hands, args.top)
        print("")
        print(f"cProfile of the {target.variant} analysis, its {min(args.profile_hands, len(target.hands))} slowest "
              f"hands: {profiled_s:.1f} s CPU under the profiler ({plain_s:.1f} s unprofiled); "
              f"full listing in bench/out/analysis-{target.variant}.txt, stats in .prof. Top by cumulative time:")
        print("")
        print("```")
        lines = text.splitlines()
        start = next((i for i, line in enumerate(lines) if line.strip().startswith("ncalls")), 0)
        print("\n".join(line for line in lines[start:start + 1 + args.top] if line.strip()))
        print("```")


if __name__ == "__main__":
    main()

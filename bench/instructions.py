"""Instructions, not seconds: the analysis of a fixed set of hands, counted by callgrind.

On the shared machines these benches run on, the timings of one commit move by 10% to 25%
from one run to the next (docs/benchmarks.md, "Analysis", sixteenth round on), while the
analysis's steps now take 0.5% to 4% off. The instructions the interpreter executes move by
about 0.3% between runs of one commit: they show such a step, and what it costs elsewhere.
They are not time (a cache miss costs more than an instruction), so a step is still timed
with ``bench/analysis.py`` before its figures are written down.

Two commands:

* ``select``: plays ``--hands`` self-play hands of ``--variant`` as ``bench/analysis.py``
  does (2 players, 5 hands a match, seeds 0, 1, ...) and writes a hand set to ``--out``
  (JSON: each match's BRN text and the hands of it chosen): the first ``--first`` hands, or
  the middle ``--middle`` share of them by their ratio of analysis to verify, as
  ``bench/turn_costs.py`` chooses them (timed once; the file then fixes the choice).
* ``count``: the analysis of every hand of a set (``turn_findings``, a new context per
  hand, as ``bench/turn_costs.py`` runs it), under ``valgrind --tool=callgrind`` with
  ``PYTHONHASHSEED=0``, in each checkout given (``--tree``; by default this one), all at
  once (each count is its own process): the instructions and the findings of each. The
  records are read from their BRN text by each checkout's own reader, so that a checkout
  whose self-play or reader differs still analyses the same hands.

Run (valgrind is the Debian package of that name)::

    .venv/bin/python bench/instructions.py select --variant brasil --hands 150 --middle 0.4 --out /tmp/middle.json
    git worktree add /tmp/base <base>
    .venv/bin/python bench/instructions.py count /tmp/middle.json --tree /tmp/base --tree .
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
COLLECTED = re.compile(r"Collected : (\d+)")
FINDINGS = re.compile(r"^findings (\d+) in (\d+) hands$", re.MULTILINE)


def select(args: argparse.Namespace) -> None:
    sys.path.insert(1, str(ROOT))
    from bench.turn_costs import hands_of, middle_hands
    from buraco.notation import dumps

    hands = hands_of(args.variant, args.hands)
    chosen = hands[: args.first] if args.first else middle_hands(hands, args.middle)
    matches: dict[int, dict[str, Any]] = {}  # by the record's identity, in the order first chosen
    for record, index in chosen:
        entry = matches.setdefault(id(record), {"brn": dumps(record), "hands": []})
        entry["hands"].append(index)
    how = f"the first {args.first}" if args.first else f"the middle {args.middle:.0%} by ratio"
    data = {"variant": args.variant, "of": args.hands, "chosen": how, "matches": list(matches.values())}
    Path(args.out).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"{len(chosen)} hands of {args.hands} ({how}) in {len(matches)} matches -> {args.out}")


def run(args: argparse.Namespace) -> None:
    """The counted work, in the checkout ``--root`` (run under callgrind by ``count``)."""
    sys.path.insert(0, str(Path(args.root).resolve()))
    from buraco.analysis.search import SearchContext
    from buraco.analysis.turns import turn_findings
    from buraco.notation import loads

    data = json.loads(Path(args.set).read_text(encoding="utf-8"))
    findings = hands = 0
    for match in data["matches"]:
        record = loads(match["brn"])
        for index in match["hands"]:
            findings += len(turn_findings(record, index, [], SearchContext(record.rules)))
            hands += 1
    print(f"findings {findings} in {hands} hands")


def count_one(set_path: str, tree: str) -> tuple[int, str]:
    """Callgrind's instruction count of :func:`run` in ``tree``, and what it printed."""
    with tempfile.TemporaryDirectory() as scratch:
        command = [
            "valgrind", "--tool=callgrind", f"--callgrind-out-file={scratch}/callgrind.out",
            sys.executable, str(Path(__file__).resolve()), "run", set_path, "--root", tree,
        ]
        done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"},
                              cwd=scratch, check=False)
    collected = COLLECTED.search(done.stderr)
    found = FINDINGS.search(done.stdout)
    if done.returncode or collected is None or found is None:
        raise SystemExit(f"the count in {tree} failed ({done.returncode}):\n{done.stdout}{done.stderr[-2000:]}")
    return int(collected.group(1)), found.group(0)


def count(args: argparse.Namespace) -> None:
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (Debian: apt-get install valgrind)")
    trees = args.tree or [str(ROOT)]
    set_path = str(Path(args.set).resolve())
    with ThreadPoolExecutor(max_workers=len(trees)) as pool:
        counts = list(pool.map(lambda tree: count_one(set_path, str(Path(tree).resolve())), trees))
    first = counts[0][0]
    print("| checkout | instructions | change | findings |\n|---|--:|--:|---|")
    for tree, (instructions, found) in zip(trees, counts, strict=True):
        print(f"| {tree} | {instructions / 1e6:,.0f} M | {(instructions - first) / first:+.2%} | {found} |")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    commands = parser.add_subparsers(dest="command", required=True)
    chooser = commands.add_parser("select", help="write a hand set")
    chooser.add_argument("--variant", default="brasil")
    chooser.add_argument("--hands", type=int, default=150, help="hands played (default 150)")
    chooser.add_argument("--middle", type=float, default=0.4, help="share kept, by ratio (default 0.4)")
    chooser.add_argument("--first", type=int, default=0, help="keep the first N hands instead")
    chooser.add_argument("--out", required=True)
    counter = commands.add_parser("count", help="count a hand set's analysis in each checkout")
    counter.add_argument("set")
    counter.add_argument("--tree", action="append", help="a checkout (repeatable; default this one)")
    runner = commands.add_parser("run", help="the counted work (count runs it under callgrind)")
    runner.add_argument("set")
    runner.add_argument("--root", default=str(ROOT))
    args = parser.parse_args(argv)
    {"select": select, "count": count, "run": run}[args.command](args)


if __name__ == "__main__":
    main()

"""The analysis's findings over a fixed set of self-play matches, as a digest to compare
before and after a change meant to make the analysis faster without changing what it finds.

The matches: every rule set, 2 players seeds 0-4 and 4 players seeds 0-1 (burraco-106 is
2-player only), ``--hands`` hands each (61 matches, 5 hands by default). For each one it writes
``[f.as_dict() for f in analyze_record(r).findings]`` and the unsearched decisions to a
JSON file (``--out``), and prints one sha256 per rule set and one of everything; with
``--against FILE`` it names the matches whose findings differ from that earlier run.

Run: ``.venv/bin/python bench/findings_digest.py --out /tmp/before.json`` then, after the
change, ``... --out /tmp/after.json --against /tmp/before.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(1, str(ROOT))

from buraco.analysis import analyze_record  # noqa: E402
from buraco.rules import VARIANTS  # noqa: E402
from buraco.selfplay import play_match  # noqa: E402


def matches() -> list[tuple[str, int, int]]:
    """(rule set, players, seed) of every match digested."""
    found = []
    for variant, rules in VARIANTS.items():
        for players in (2, 4):
            if players not in rules.player_counts:
                continue
            for seed in range(5 if players == 2 else 2):
                found.append((variant, players, seed))
    return found


def digest_one(job: tuple[str, int, int, int]) -> tuple[str, object, float]:
    variant, players, seed, hands = job
    record = play_match(variant, players=players, hands=hands, seed=seed)
    start = time.process_time()
    analysis = analyze_record(record)
    spent = time.process_time() - start
    found = {
        "findings": [f.as_dict() for f in analysis.findings],
        "unsearched": [u.as_dict() for u in analysis.unsearched],
    }
    return f"{variant}/{players}p/seed{seed}", found, spent


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--hands", type=int, default=5, help="hands per match (default 5)")
    parser.add_argument("--jobs", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--out", type=Path, required=True, help="where to write the findings (JSON)")
    parser.add_argument("--against", type=Path, help="an earlier --out to compare with")
    parser.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated rule sets (default all)")
    args = parser.parse_args(argv)
    wanted = set(args.variants.split(","))
    jobs = [(v, p, s, args.hands) for v, p, s in matches() if v in wanted]
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(pool.map(digest_one, jobs))
    everything = {name: found for name, found, _ in results}
    args.out.write_text(json.dumps(everything, indent=1, sort_keys=True))
    by_variant: dict[str, hashlib._Hash] = {}
    cpu: dict[str, float] = {}
    for name, found, spent in results:
        variant = name.split("/")[0]
        by_variant.setdefault(variant, hashlib.sha256()).update(json.dumps(found, sort_keys=True).encode())
        cpu[variant] = cpu.get(variant, 0.0) + spent
    findings = sum(len(f["findings"]) for f in everything.values())  # type: ignore[index, arg-type]
    for variant, h in by_variant.items():
        print(f"{variant:14} {h.hexdigest()[:16]}  {cpu[variant]:7.2f} s CPU")
    whole = hashlib.sha256(json.dumps(everything, sort_keys=True).encode()).hexdigest()
    print(f"{len(everything)} matches, {findings} findings, all: {whole[:16]}")
    if args.against:
        before = json.loads(args.against.read_text())
        differ = [name for name in everything if before.get(name) != everything[name]]
        missing = [name for name in before if name not in everything]
        print(f"differ from {args.against}: {len(differ)}" + (f" {differ}" if differ else ""))
        if missing:
            print(f"not run this time: {len(missing)}")
        if differ:
            raise SystemExit(1)


if __name__ == "__main__":
    main()

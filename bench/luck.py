"""The luck of the draws' cost per hand, per rule set, against the analysis's on the same hands.

For each rule set this plays self-play hands (2 players, one hand a match, seeds 0, 1, 2, ...,
``mistakes=0.3``) and for every hand measures, in CPU time of this process
(``time.process_time``; the machine is shared), best of ``--repeat``:

* analysis: ``buraco.analysis.turns.turn_findings(record, 0, [], SearchContext(...))``, the turn
  searches of the hand (what ``analyze_record`` spends per hand beyond its one ``verify``);
* luck: ``buraco.analysis.luck.hand_luck(record, 0)``, every stock draw's value for every
  distinct unseen card (one search per kind of card, one for all inert cards).

It reports per rule set the median and max of each, the ratio luck/analysis (median of the
per-hand ratios, and total over total), the stock draws and the searches per draw. The
aim (issue 16): luck at most 5x the analysis per hand. Generation is not timed.

Run: ``.venv/bin/python bench/luck.py [--hands 20] [--variants cerrado,brasil] [--markdown out.md]``
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(1, str(ROOT))

from bench.harness import cpu_best  # noqa: E402
from buraco.analysis.luck import hand_luck  # noqa: E402
from buraco.analysis.search import SearchContext  # noqa: E402
from buraco.analysis.turns import Unsearched, turn_findings  # noqa: E402
from buraco.notation import Record  # noqa: E402
from buraco.rules import VARIANTS  # noqa: E402
from buraco.selfplay import play_match  # noqa: E402


def measure(variant: str, hands: int, repeat: int) -> dict[str, float]:
    analysis: list[float] = []
    luck: list[float] = []
    draws = searches = 0
    for seed in range(hands):
        record = play_match(variant, players=2, hands=1, seed=seed, mistakes=0.3)

        def analyse(record: Record = record) -> None:
            unsearched: list[Unsearched] = []
            turn_findings(record, 0, unsearched, SearchContext(record.rules))

        def judge(record: Record = record) -> None:
            hand_luck(record, 0)

        analysis.append(cpu_best(analyse, repeat))
        luck.append(cpu_best(judge, repeat))
        found = hand_luck(record, 0)
        draws += len(found.draws)
        searches += sum(d.searches for d in found.draws)
    ratios = [b / a for a, b in zip(analysis, luck) if a > 0]
    return {
        "hands": hands,
        "analysis_median_ms": 1000 * statistics.median(analysis),
        "analysis_max_ms": 1000 * max(analysis),
        "luck_median_ms": 1000 * statistics.median(luck),
        "luck_max_ms": 1000 * max(luck),
        "ratio_median": statistics.median(ratios),
        "ratio_total": sum(luck) / sum(analysis),
        "draws_per_hand": draws / hands,
        "searches_per_draw": searches / draws if draws else 0.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=20, help="hands per rule set")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--markdown", type=Path, help="also write the table here")
    options = parser.parse_args()
    header = ("| rule set | hands | analysis median / max (ms) | luck median / max (ms) | luck/analysis median | "
              "luck/analysis total | stock draws a hand | searches a draw |")
    lines = [header, "|" + "---|" * 8]
    for variant in options.variants.split(","):
        row = measure(variant, options.hands, options.repeat)
        lines.append(
            f"| {variant} | {row['hands']:.0f} | {row['analysis_median_ms']:.0f} / {row['analysis_max_ms']:.0f} | "
            f"{row['luck_median_ms']:.0f} / {row['luck_max_ms']:.0f} | {row['ratio_median']:.1f}x | "
            f"{row['ratio_total']:.1f}x | {row['draws_per_hand']:.0f} | {row['searches_per_draw']:.1f} |"
        )
        print(lines[-1], flush=True)
    if options.markdown:
        options.markdown.parent.mkdir(parents=True, exist_ok=True)
        options.markdown.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()

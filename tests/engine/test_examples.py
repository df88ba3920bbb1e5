"""The example records in docs/examples: legal, finished, and scored as worked by hand.

Each example carries its score worked by hand in TOML comments, ending in one line
per hand such as ``# worked: side 1 = 590, side 2 = -70``. Those numbers come from
rules.md, not from the engine, so a change in the engine's scoring fails here.

An example whose hand-worked score the engine disputes is listed in
``ENGINE_DISAGREES`` with the reason: its test is then an expected failure
(strict, so a fix in the engine is noticed too). The numbers in the file stay as
worked by hand.
"""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from pathlib import Path

import pytest

from buraco.notation import Record, loads
from buraco.replay import MatchReport, verify
from buraco.rules import VARIANTS

EXAMPLES_DIR = Path(__file__).resolve().parents[2] / "docs" / "examples"
EXAMPLES = sorted(EXAMPLES_DIR.glob("*.brn"))

# file name -> why the engine's score differs from the one worked by hand (rules.md)
ENGINE_DISAGREES: dict[str, str] = {}

WORKED_LINE = re.compile(r"^#\s*worked:\s*(.+)$", re.MULTILINE)
WORKED_SIDE = re.compile(r"side\s+(\d+)\s*=\s*(-?\d+)")

# rules.md section 2: two 52-card decks plus the set's jokers
JOKERS = {"abierto": 0, "burraco-106": 2}
RANKS = "A23456789TJQK"
SUITS = "cdhs"


def _example_params(paths: list[Path]) -> list[object]:
    params: list[object] = []
    for path in paths:
        reason = ENGINE_DISAGREES.get(path.name)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        params.append(pytest.param(path, id=path.stem, marks=marks))
    return params


def worked_scores(text: str) -> list[list[int]]:
    """The hand-worked scores, one list per hand (sides in order), from the comments."""
    hands = []
    for line in WORKED_LINE.findall(text):
        sides = [(int(side), int(score)) for side, score in WORKED_SIDE.findall(line)]
        assert sides, f"a worked line names no side: {line!r}"
        assert [side for side, _ in sides] == list(range(1, len(sides) + 1)), f"sides out of order: {line!r}"
        hands.append([score for _, score in sides])
    return hands


def read(path: Path) -> tuple[str, Record, MatchReport]:
    text = path.read_text(encoding="utf-8")
    record = loads(text)
    return text, record, verify(record)


def test_it_has_examples() -> None:
    assert EXAMPLES, f"no .brn files in {EXAMPLES_DIR}"


def test_it_has_an_example_for_every_rule_set() -> None:
    covered = {loads(path.read_text(encoding="utf-8")).variant for path in EXAMPLES}
    assert set(VARIANTS) <= covered, f"no example for {sorted(set(VARIANTS) - covered)}"


def test_it_has_a_four_player_partnership_example() -> None:
    records = [loads(path.read_text(encoding="utf-8")) for path in EXAMPLES]
    assert any(len(r.players) == 4 and r.sides == ((1, 3), (2, 4)) for r in records)


@pytest.mark.parametrize("path", _example_params(EXAMPLES))
def test_its_examples_deal_the_whole_deck_once(path: Path) -> None:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    jokers = JOKERS.get(data["variant"], 4)
    deck = Counter({rank + suit: 2 for rank in RANKS for suit in SUITS})
    if jokers:
        deck["JK"] = jokers
    for number, hand in enumerate(data["hands"], start=1):
        assert "stock" in hand, f"hand {number} gives no stock: the deal is not complete"
        piles = [*hand["dealt"], *hand.get("dead", []), hand.get("discard", ""), hand["stock"]]
        dealt = Counter("JK" if w.upper() == "JK" else w[0].upper() + w[1:].lower() for p in piles for w in p.split())
        assert dealt == deck, f"hand {number}: extra {dealt - deck}, missing {deck - dealt}"


@pytest.mark.parametrize("path", _example_params(EXAMPLES))
def test_its_examples_are_legal_finished_and_match_their_claims(path: Path) -> None:
    _, record, report = read(path)
    assert report.valid, f"{path.name}: {report.error}"
    assert record.hands, f"{path.name} has no hand"
    for hand, hand_report in zip(record.hands, report.hands, strict=True):
        assert hand_report.finished, f"{path.name} hand {hand_report.hand} is unfinished"
        assert hand.result is not None, f"{path.name} hand {hand_report.hand} claims no result"
        assert hand_report.mismatches == [], f"{path.name}: {hand_report.mismatches}"
    assert report.scores_match


@pytest.mark.parametrize("path", _example_params(EXAMPLES))
def test_its_examples_score_as_worked_by_hand(path: Path) -> None:
    text, record, report = read(path)
    worked = worked_scores(text)
    assert len(worked) == len(record.hands), f"{path.name}: {len(worked)} worked lines for {len(record.hands)} hands"
    for number, (hand, expected) in enumerate(zip(record.hands, worked, strict=True), start=1):
        assert hand.result is not None
        assert list(hand.result.scores) == expected, f"{path.name} hand {number}: result differs from the worked line"
    computed = [hand_report.scores for hand_report in report.hands]
    assert computed == worked, f"{path.name}: engine {computed}, worked by hand {worked}"

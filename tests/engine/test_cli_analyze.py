"""`python -m buraco analyze` is a contract for scripts: its options, exit codes and JSON keys."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from buraco.analysis import analyze
from buraco.notation import dumps, loads
from buraco.selfplay import play_match

FINDING_KEYS = {
    "file", "hand", "ply", "seat", "side", "kind", "points", "message", "witness", "cause",
    "first_ply", "last_ply", "turns", "outcome", "severity",
}


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "buraco", "analyze", *args], capture_output=True, text=True, timeout=300)


@pytest.fixture
def mistaken(tmp_path: Path) -> Path:
    path = tmp_path / "mistaken.brn"
    path.write_text(dumps(play_match("cerrado", players=2, hands=2, seed=5, mistakes=1.0)))
    return path


def test_it_prints_one_json_object_per_finding_with_the_contract_keys(mistaken: Path) -> None:
    result = run("--json", str(mistaken))
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    expected = analyze(loads(mistaken.read_text()))
    assert len(lines) == len(expected) > 0
    for line, finding in zip(lines, expected):
        assert FINDING_KEYS <= set(line)
        assert line["file"] == str(mistaken)
        assert {k: line[k] for k in FINDING_KEYS - {"file"}} == {
            k: v for k, v in finding.as_dict().items() if k in FINDING_KEYS
        }
    scoring = [line for line in lines if line["kind"] == "scoring-mistake"]
    assert len(scoring) == 2 and all(line["ply"] is None and line["cause"] for line in scoring)
    assert all(line["cause"] is None for line in lines if line["kind"] != "scoring-mistake")


def test_min_points_drops_smaller_findings(mistaken: Path) -> None:
    every = [json.loads(line) for line in run("--json", str(mistaken)).stdout.splitlines()]
    floor = sorted(f["points"] for f in every if f["points"] is not None)[len(every) // 2]
    kept = [json.loads(line) for line in run("--json", "--min-points", str(floor), str(mistaken)).stdout.splitlines()]
    assert kept == [f for f in every if f["points"] is not None and f["points"] >= floor]


def test_it_exits_1_for_an_illegal_hand_and_still_prints_the_findings_before_it(tmp_path: Path) -> None:
    record = play_match("cerrado", players=2, hands=2, seed=5, mistakes=1.0)
    text = dumps(record)
    first = record.hands[1].actions[0]  # hand 2 turns illegal at once: a discard before the draw
    broken = tmp_path / "broken.brn"
    broken.write_text(text.replace(f'"{first}"', f'"{first.split()[0]} discard 3c"', 1))
    result = run("--json", str(broken))
    assert result.returncode == 1, result.stdout + result.stderr
    hands = {json.loads(line)["hand"] for line in result.stdout.splitlines()}
    assert 1 in hands


def test_it_exits_2_for_a_file_that_is_not_readable_brn(tmp_path: Path, mistaken: Path) -> None:
    bad = tmp_path / "bad.brn"
    bad.write_text('brn = 1\nvariant = "cerrado"\nplayers = ["A", "B"]\n[[hands]]\ndealer = "x"\n')
    result = run("--json", str(bad), str(mistaken))
    assert result.returncode == 2
    assert "not readable BRN" in result.stderr and "line" in result.stderr
    assert all(json.loads(line)["file"] == str(mistaken) for line in result.stdout.splitlines())


def test_text_output_lists_findings_by_hand(mistaken: Path) -> None:
    result = run(str(mistaken))
    assert result.returncode == 0
    assert "  hand 1\n" in result.stdout and "scoring-mistake" in result.stdout and "cause:" in result.stdout


def test_the_examples_analyse_with_exit_0() -> None:
    examples = sorted(str(p) for p in (Path(__file__).resolve().parents[2] / "docs" / "examples").glob("*.brn"))
    result = run("--json", *examples)
    assert result.returncode == 0, result.stderr

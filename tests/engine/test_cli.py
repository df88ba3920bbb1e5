"""The command line is a contract: options, exit codes and JSON keys."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from .records import selfplay_text

HAND_KEYS = {"hand", "valid", "scores", "parts", "claimed", "mismatches", "ended_by", "out_by"}
FILE_KEYS = {"file", "variant", "valid", "error", "hands", "totals", "winner"}
ERROR_KEYS = {"hand", "ply", "line", "column", "action", "message"}


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "buraco", *args], capture_output=True, text=True, input=stdin, timeout=120
    )


@pytest.fixture
def good(tmp_path: Path) -> Path:
    path = tmp_path / "good.brn"
    path.write_text(selfplay_text("cerrado", 2, 2, 5))
    return path


def test_it_exits_0_for_a_legal_record_with_matching_scores(good: Path) -> None:
    result = run("verify", str(good))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "ok" in result.stdout


def test_it_prints_one_json_object_per_file_with_the_contract_keys(good: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.brn"
    other.write_text(selfplay_text("brasil", 3, 1, 5))
    result = run("verify", "--json", str(good), str(other))
    lines = result.stdout.strip().splitlines()
    assert result.returncode == 0 and len(lines) == 2
    for line in lines:
        data = json.loads(line)
        assert FILE_KEYS <= data.keys()
        assert data["valid"] is True and data["error"] is None
        for hand in data["hands"]:
            assert HAND_KEYS <= hand.keys()
            assert hand["ended_by"] in ("out", "stock")
            assert len(hand["scores"]) == len(hand["parts"]) == len(data["totals"])
    assert json.loads(lines[1])["variant"] == "brasil"


def test_it_exits_1_and_positions_an_illegal_action(good: Path) -> None:
    text = good.read_text()
    lines = text.split("\n")
    index = next(i for i, line in enumerate(lines) if line.startswith('  "p1 discard'))
    lines[index] = '  "p1 discard JK",' if "JK" not in lines[index] else '  "p1 discard 3c",'
    good.write_text("\n".join(lines))
    result = run("verify", "--json", str(good))
    assert result.returncode == 1
    data = json.loads(result.stdout)
    assert data["valid"] is False
    assert ERROR_KEYS <= data["error"].keys()
    assert data["error"]["line"] == index + 1 and data["error"]["column"] == 4
    assert data["error"]["action"].startswith("p1 discard")


def test_it_exits_1_when_a_claimed_score_differs(tmp_path: Path) -> None:
    path = tmp_path / "wrong.brn"
    path.write_text(selfplay_text("burraco", 2, 2, 5, mistakes=1.0))
    result = run("verify", "--json", str(path))
    assert result.returncode == 1
    data = json.loads(result.stdout)
    assert data["valid"] is True and data["error"] is None
    assert all(hand["mismatches"] for hand in data["hands"])


def test_it_exits_2_for_a_file_that_is_not_brn(tmp_path: Path, good: Path) -> None:
    bad = tmp_path / "bad.brn"
    bad.write_text("brn = 1\nvariant = \"cerrado\"\nplayers = [\"a\", \"b\"]\nnonsense = 3\n")
    result = run("verify", "--json", str(good), str(bad))
    assert result.returncode == 2
    data = json.loads(result.stdout.strip().splitlines()[1])
    assert data["valid"] is False
    assert (data["error"]["line"], data["error"]["column"]) == (4, 1)


def test_it_exits_2_for_a_missing_file(tmp_path: Path) -> None:
    assert run("verify", str(tmp_path / "nope.brn")).returncode == 2


def test_it_reads_stdin(good: Path) -> None:
    assert run("verify", "-", stdin=good.read_text()).returncode == 0


def test_meld_reports_kind_layout_and_stand_in() -> None:
    result = run("meld", "--variant", "cerrado", "2h", "4h", "5h", "6h", "2s")
    assert result.returncode == 0
    data = json.loads(result.stdout)
    assert data["legal"] is True and data["type"] == "run" and data["clean"] is False
    assert data["wild"] == {"card": "2s", "as": "3h"}
    assert data["cards"] == ["2h", "2s", "4h", "5h", "6h"]


def test_meld_says_why_a_meld_is_illegal() -> None:
    result = run("meld", "--variant", "abierto", "7c", "7d", "7h")
    assert result.returncode == 1
    assert "no sets" in json.loads(result.stdout)["error"]


def test_meld_names_a_canasta() -> None:
    result = run("meld", "--variant", "cerrado", *"Ah 2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh".split())
    assert json.loads(result.stdout)["canasta"] == "ace-to-king"


def test_show_prints_the_table_at_a_ply(good: Path) -> None:
    result = run("show", str(good), "--hand", "1", "--ply", "3")
    assert result.returncode == 0
    assert "ply 3" in result.stdout and "p1 " in result.stdout


def test_show_json_is_the_replay_state(good: Path) -> None:
    data = json.loads(run("show", str(good), "--hand", "2", "--ply", "0", "--json").stdout)
    assert data["ply"] == 0 and set(data["hands"]) == {"1", "2"}


def test_selfplay_is_deterministic_by_seed(tmp_path: Path) -> None:
    first, second = tmp_path / "a.brn", tmp_path / "b.brn"
    for path in (first, second):
        assert run("selfplay", "--variant", "fechado-stbl", "--players", "4", "--hands", "2", "--seed", "9",
                   "-o", str(path)).returncode == 0
    assert first.read_text() == second.read_text()
    assert run("verify", str(first)).returncode == 0


def test_selfplay_refuses_a_player_count_the_rule_set_forbids() -> None:
    result = run("selfplay", "--variant", "burraco-106", "--players", "4")
    assert result.returncode == 2 and "not 4" in result.stderr

"""The searches compiled by mypyc (buraco/analysis/compiled.py) give the findings their
source gives, and a build is used only while it is as new as the engine's sources."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from buraco import analysis
from buraco.analysis import analyze_record, compiled
from buraco.notation import dumps, loads
from buraco.selfplay import play_match

ROOT = Path(__file__).resolve().parents[3]

# Each rule set's kind of going out and of pile (dig in brasil, a wild's move in burraco-106).
MATCHES = [("brasil", 2, 3), ("burraco-106", 2, 11), ("cerrado", 4, 5), ("abierto-sucio", 2, 8)]

_INTERPRETED = """
import json, sys
from buraco import analysis
from buraco.notation import loads
assert not analysis.COMPILED
records = json.load(sys.stdin)
print(json.dumps([[f.as_dict() for f in analysis.analyze_record(loads(text)).findings] for text in records]))
"""


def test_the_searches_find_what_their_source_finds() -> None:
    records = [dumps(play_match(variant, players=players, hands=2, seed=seed)) for variant, players, seed in MATCHES]
    here = [[f.as_dict() for f in analyze_record(loads(text)).findings] for text in records]
    done = subprocess.run([sys.executable, "-c", _INTERPRETED], input=json.dumps(records), capture_output=True,
                          text=True, cwd=ROOT, env={**os.environ, "BURACO_COMPILED": "off"}, check=True, timeout=600)
    interpreted = json.loads(done.stdout)
    assert sum(map(len, here)) > 20  # findings of every kind to compare, not an empty list twice
    assert json.loads(json.dumps(here)) == interpreted


def test_the_searches_run_compiled_exactly_where_a_fresh_build_is_allowed() -> None:
    expected = compiled.mode() != "off" and compiled.fresh()
    assert analysis.COMPILED == expected
    assert str(analysis.search.__file__).endswith(".py") != expected


def _engine(tmp_path: Path) -> Path:
    """A package directory laid out as buraco/analysis, with a stamped build of its sources."""
    package = tmp_path / "buraco" / "analysis"
    package.mkdir(parents=True)
    (tmp_path / "buraco" / "rules.py").write_text("RULES = 1\n")
    for name in compiled.MODULES:
        (package / f"{name}.py").write_text(f"# {name}\n")
    (package / compiled.DIRECTORY).mkdir()
    (package / compiled.DIRECTORY / compiled.STAMP).write_text(compiled.sources_digest(package) + "\n")
    return package


def test_a_build_as_new_as_the_sources_comes_first_on_the_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = _engine(tmp_path)
    monkeypatch.setenv("BURACO_COMPILED", "auto")
    assert compiled.search_path(package) == [str(package / compiled.DIRECTORY)]
    monkeypatch.setenv("BURACO_COMPILED", "off")
    assert compiled.search_path(package) == []


@pytest.mark.parametrize("edited", ["analysis/search.py", "rules.py", "analysis/witness.py"])
def test_a_build_older_than_any_source_of_the_engine_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edited: str
) -> None:
    package = _engine(tmp_path)
    source = tmp_path / "buraco" / edited
    source.write_text((source.read_text() if source.exists() else "") + "CHANGED = True\n")
    monkeypatch.setenv("BURACO_COMPILED", "auto")
    assert compiled.search_path(package) == []  # interpreted, from the sources as they are
    monkeypatch.setenv("BURACO_COMPILED", "required")
    with pytest.raises(ImportError, match="no build of the analysis's sources as they are now"):
        compiled.search_path(package)

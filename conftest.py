"""Where the analysis's searches run compiled (buraco/analysis/compiled.py), what only their
interpreted source can run is left to the pass of tests/run.py that runs them interpreted:
their doctests (a compiled function shows doctest no docstring, and pytest refuses a module
whose file is not the source it collects) and the tests marked ``interpreted``, which
replace part of a search to compare its answers with and without it."""

from __future__ import annotations

from pathlib import Path

import pytest

from buraco import analysis
from buraco.analysis import compiled

_COMPILED_SOURCES = {Path(analysis.__file__).parent / f"{name}.py" for name in compiled.MODULES}


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    if analysis.COMPILED and collection_path in _COMPILED_SOURCES:
        return True
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not analysis.COMPILED:
        return
    interpreted_only = pytest.mark.skip(
        reason="replaces part of the searches, which run compiled here: tests/run.py runs it with BURACO_COMPILED=off")
    for item in items:
        if item.get_closest_marker("interpreted"):
            item.add_marker(interpreted_only)

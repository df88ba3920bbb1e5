"""The cycle collector paused while an analysis runs.

The turn searches allocate containers by the million (transposition keys, light
tables, lines tried) and keep a table per turn; reference counting frees every one of
them, for the engine makes no reference cycles on these paths (a test checks it). The
cycle collector still walks each of them once they are young enough, and finds nothing:
5-9% of the analysis' CPU in the bench (docs/benchmarks.md). So it is paused for the
length of an analysis, as ``timeit`` pauses it, and resumed after: nothing it would have
found is left behind. Shared by threads (the embedded default runs analyses in a job
thread beside the web requests): paused while any analysis runs, resumed by the last.

>>> import gc
>>> was = gc.isenabled()
>>> with collector_paused():
...     gc.isenabled()
False
>>> gc.isenabled() == was
True
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_running = 0  # analyses running now, all threads
_was_enabled = False  # the collector's state before the first of them


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cycle collector for the block (nested and threaded uses count)."""
    global _running, _was_enabled
    with _lock:
        if _running == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _running += 1
    try:
        yield
    finally:
        with _lock:
            _running -= 1
            if _running == 0 and _was_enabled:
                gc.enable()


__all__ = ["collector_paused"]

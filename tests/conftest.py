"""Every Hypothesis test draws the same examples on every run, so that a run's verdict is
the code's and not the draw's; ``HYPOTHESIS_RANDOM=1`` draws new ones (a longer hunt,
run by hand: what it finds is pinned as an example test)."""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("fixed", derandomize=True, database=None)
settings.register_profile("random", database=None)
settings.load_profile("random" if os.environ.get("HYPOTHESIS_RANDOM") else "fixed")

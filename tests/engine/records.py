from __future__ import annotations

import functools
import os

import pytest
from hypothesis import HealthCheck, settings

from buraco.notation import Record, dumps, loads
from buraco.rules import VARIANTS
from buraco.selfplay import play_match

PLAYER_COUNTS = {v.id: sorted(v.player_counts) for v in VARIANTS.values()}
VARIANT_PLAYERS = [(v, n) for v, counts in PLAYER_COUNTS.items() for n in counts]


@functools.cache
def selfplay_text(variant: str, players: int = 2, hands: int = 2, seed: int = 1, mistakes: float = 0.0) -> str:
    """A self-play match as BRN text (cached: several tests read the same one)."""
    return dumps(play_match(variant, players=players, hands=hands, seed=seed, mistakes=mistakes))


def selfplay_record(variant: str, players: int = 2, hands: int = 2, seed: int = 1) -> Record:
    return loads(selfplay_text(variant, players, hands, seed))


# Property tests run for every (rule set, player count) pair the rule sets allow, each
# pair its own test with its own hypothesis-drawn seeds: one sampled_from over the pairs
# reached only 9 of the 18 in one measured run.
EVERY_PAIR = pytest.mark.parametrize("case", VARIANT_PLAYERS, ids=[f"{v}-{n}" for v, n in VARIANT_PLAYERS])


def per_pair(examples: int) -> settings:
    """Hypothesis settings giving about ``examples`` in all over the pairs, one per pair at least."""
    # Derandomized: the same seeds on every run, so that CI's verdict is the code's, not the
    # draw's (a random run found two search disagreements, now pinned as tests of their own);
    # more seeds are a longer run away: HYPOTHESIS_RANDOM=1 draws new ones.
    return settings(max_examples=max(1, round(examples / len(VARIANT_PLAYERS))), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow],
                    derandomize=not os.environ.get("HYPOTHESIS_RANDOM"), database=None)

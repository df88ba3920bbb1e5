from __future__ import annotations

import functools

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

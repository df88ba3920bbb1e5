"""Keys that apps above analysis add to its answers, registered from their ``AppConfig.ready()``
(analysis imports none of them). Each answer's key is null while no app answers it.

- :data:`HAND_EXTRAS`: a key of a hand's findings answer (GET /api/matches/{id}/hands/{n}/findings/),
  called with the match (one the reader may read) and the hand number;
- :data:`PLAYER_EXTRAS`: a key of the player's answer (GET /api/players/{name}/), called with the
  player's name and their ``(match id, seat)`` in the matches counted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from records.models import Match

HAND_EXTRAS: dict[str, Callable[[Match, int], Any]] = {}
PLAYER_EXTRAS: dict[str, Callable[[str, Sequence[tuple[int, int]]], Any]] = {}


def hand_extras(match: Match, hand: int, keys: Sequence[str]) -> dict[str, Any]:
    """Each of ``keys`` answered by its app, or None."""
    return {key: HAND_EXTRAS[key](match, hand) if key in HAND_EXTRAS else None for key in keys}


def player_extras(name: str, seats: Sequence[tuple[int, int]], keys: Sequence[str]) -> dict[str, Any]:
    return {key: PLAYER_EXTRAS[key](name, seats) if key in PLAYER_EXTRAS else None for key in keys}

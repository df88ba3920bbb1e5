"""The nine rule sets as data: one frozen :class:`Variant` per preset.

Every rule the engine consults is a field here, so a club can play house rules
with ``VARIANTS["cerrado"].override(target=2000)``. The spec's interpretation
choices are marked ``# choice:`` beside the field they set; docs/rules.md lists
them all.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from .cards import CARD_KINDS, JOKER_CODE, RANK_OF

Pickup = Literal["open", "use-top", "dig"]
WildMove = Literal["high-then-low", "either-end", "anywhere", "fixed"]

PICKUPS: Final = ("open", "use-top", "dig")
WILD_MOVES: Final = ("high-then-low", "either-end", "anywhere", "fixed")


@dataclass(frozen=True)
class Variant:
    """One rule set. Checks its own consistency when built."""

    id: str
    seed: str
    player_counts: frozenset[int]
    partnerships: bool  # 4 players play as two pairs, seats 1+3 and 2+4
    jokers: int
    hand_size: int
    dead_piles: int
    dead_pile_size: int
    first_discard: bool
    sets: bool
    set_suits_distinct: bool
    set_max: int | None
    ace_to_ace: bool
    pickup: Pickup
    wild_move: WildMove
    lay_off_anyone: bool
    direct_dead: bool
    dead_to_stock: bool
    out_needs_dead: bool
    out_needs_clean: bool
    out_by_meld: bool
    # card values: 3-7, 8-K, ace, 2, joker; face_value makes 3..10 count their pips
    value_low: int
    value_high: int
    value_ace: int
    value_two: int
    value_joker: int
    face_value: bool
    bonus_dirty: int
    bonus_clean: int
    bonus_ace_to_king: int  # 0: no such bonus, the plain clean bonus applies
    bonus_ace_to_ace: int
    special_runs_in_one_action: bool
    going_out_bonus: int
    penalty_dead_not_taken: int
    penalty_dead_unplayed: int
    target: int
    tie_to_starter: bool
    min_naturals: int = 2
    aliases: tuple[str, ...] = ()
    card_values: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        problems = []
        if not self.player_counts or not self.player_counts <= {2, 3, 4}:
            problems.append("player counts must be among 2, 3 and 4")
        if self.partnerships and 3 in self.player_counts:
            problems.append("partnerships need 2 or 4 players")
        if self.jokers not in (0, 2, 4):
            problems.append("jokers must be 0, 2 or 4")
        if self.pickup not in PICKUPS:
            problems.append(f"pickup must be one of {PICKUPS}")
        if self.wild_move not in WILD_MOVES:
            problems.append(f"wild_move must be one of {WILD_MOVES}")
        if self.dead_piles not in (0, 2) or (self.dead_piles and self.dead_pile_size < 1):
            problems.append("dead piles: none, or two of at least one card")
        if not self.dead_piles and (self.out_needs_dead or self.direct_dead or self.penalty_dead_not_taken):
            problems.append("dead-pile rules set without dead piles")
        if self.set_max is not None and self.set_max < 3:
            problems.append("set_max below 3 allows no set")
        dealt = max(self.player_counts, default=0) * self.hand_size
        if dealt + self.dead_piles * self.dead_pile_size + self.first_discard >= 104 + self.jokers:
            problems.append("the deal uses the whole deck")
        if problems:
            raise ValueError(f"rule set {self.id!r}: " + "; ".join(problems))
        object.__setattr__(self, "card_values", tuple(self._value(code) for code in range(CARD_KINDS)))

    def _value(self, code: int) -> int:
        if code == JOKER_CODE:
            return self.value_joker
        rank = RANK_OF[code]
        if rank == 1:
            return self.value_ace
        if rank == 2:
            return self.value_two
        if self.face_value and rank <= 10:
            return rank
        return self.value_low if rank <= 7 else self.value_high

    @property
    def deck_size(self) -> int:
        return 104 + self.jokers

    @property
    def has_dead_piles(self) -> bool:
        return self.dead_piles > 0

    def sides_for(self, players: int) -> tuple[tuple[int, ...], ...]:
        """Seats (1-based) of each side, in side order."""
        if self.partnerships and players == 4:
            return ((1, 3), (2, 4))
        return tuple((seat,) for seat in range(1, players + 1))

    def override(self, **changes: Any) -> Variant:
        """House rules: a copy with some fields changed, checked again."""
        return dataclasses.replace(self, **changes)


_COMMON_000: Final[dict[str, Any]] = dict(
    seed="000",
    player_counts=frozenset({2, 4}),
    partnerships=True,
    jokers=4,
    hand_size=11,
    dead_piles=2,
    dead_pile_size=11,
    first_discard=False,
    sets=True,
    set_suits_distinct=False,  # choice: a set must reach 7 cards to be a canasta
    set_max=None,
    ace_to_ace=True,
    pickup="use-top",
    wild_move="high-then-low",
    lay_off_anyone=False,
    direct_dead=True,
    dead_to_stock=True,
    out_needs_dead=True,
    out_needs_clean=True,
    out_by_meld=True,
    value_low=5,
    value_high=10,
    value_ace=15,
    value_two=10,
    value_joker=20,
    face_value=False,
    bonus_dirty=100,
    bonus_clean=200,
    bonus_ace_to_king=500,
    bonus_ace_to_ace=1000,
    special_runs_in_one_action=False,
    going_out_bonus=100,
    penalty_dead_not_taken=100,
    penalty_dead_unplayed=100,
    target=3000,
    tie_to_starter=True,
)


def _preset(base: dict[str, Any], **changes: Any) -> Variant:
    return Variant(**{**base, **changes})


ABIERTO: Final = _preset(
    _COMMON_000, id="abierto", jokers=0, sets=False, pickup="open",  # choice: no jokers, 2s stay wild
)
ABIERTO_SUCIO: Final = _preset(
    _COMMON_000, id="abierto-sucio", pickup="open", ace_to_ace=False, bonus_ace_to_ace=0,
    direct_dead=False, out_needs_clean=False, out_by_meld=False, value_two=20, value_joker=30,
    penalty_dead_unplayed=0,
)
CERRADO: Final = _preset(_COMMON_000, id="cerrado")
CERRADO_STCL: Final = _preset(_COMMON_000, id="cerrado-stcl", sets=False)
CERRADO_SUCIO: Final = _preset(_COMMON_000, id="cerrado-sucio", out_needs_clean=False)
BURRACO: Final = _preset(
    _COMMON_000, id="burraco", seed="001", hand_size=13, first_discard=True, ace_to_ace=False,
    dead_to_stock=False, out_needs_clean=False, value_two=20, value_joker=30,  # choice: Italian values
    bonus_ace_to_king=0, bonus_ace_to_ace=0, penalty_dead_unplayed=0, target=2005,
    tie_to_starter=False, aliases=("pozzetto",),
)
FECHADO_STBL: Final = _preset(
    _COMMON_000, id="fechado-stbl", seed="002", value_joker=50, special_runs_in_one_action=True,
    penalty_dead_unplayed=0, wild_move="either-end", sets=False, tie_to_starter=False,
    aliases=("fechado",),
)
BRASIL: Final = _preset(
    _COMMON_000, id="brasil", seed="003", player_counts=frozenset({2, 3, 4}), partnerships=False,
    dead_piles=0, set_suits_distinct=True, set_max=4, ace_to_ace=False, pickup="dig",
    wild_move="fixed", lay_off_anyone=True, direct_dead=False, dead_to_stock=False,
    out_needs_dead=False, out_by_meld=False, value_two=2, value_joker=20, face_value=True,
    bonus_ace_to_king=0, bonus_ace_to_ace=0, penalty_dead_not_taken=0, penalty_dead_unplayed=0,
    tie_to_starter=False, aliases=("brazil",),
)
BURRACO_106: Final = _preset(
    _COMMON_000, id="burraco-106", seed="004", player_counts=frozenset({2}), jokers=2,
    first_discard=True, ace_to_ace=False, pickup="open", wild_move="anywhere",
    out_needs_clean=False, out_by_meld=False, value_two=20, value_joker=30,
    bonus_ace_to_king=0, bonus_ace_to_ace=0, penalty_dead_unplayed=0, target=2005,
    tie_to_starter=False, aliases=("burraco106",),
)

VARIANTS: Final[dict[str, Variant]] = {
    v.id: v
    for v in (ABIERTO, ABIERTO_SUCIO, CERRADO, CERRADO_STCL, CERRADO_SUCIO, BURRACO, FECHADO_STBL, BRASIL, BURRACO_106)
}
_ALIASES: Final[dict[str, str]] = {alias: v.id for v in VARIANTS.values() for alias in v.aliases}


def find_variant(name: str) -> Variant:
    """The preset called ``name`` (its id or an alias, any case)."""
    key = name.strip().lower()
    variant = VARIANTS.get(key) or VARIANTS.get(_ALIASES.get(key, ""))
    if variant is None:
        raise KeyError(f"unknown rule set {name!r}; known: {', '.join(VARIANTS)}")
    return variant

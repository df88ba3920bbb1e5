"""rules.md section 2, "Wild cards in runs": what happens to a wild when the
natural card it stands for is laid on its run (with notation.md's lay-off rules)."""

from __future__ import annotations

import pytest

from buraco.errors import IllegalActionError

from .helpers import ALL_IDS, V, act, add_shape, build, layout, play

HIGH_THEN_LOW = ("abierto", "abierto-sucio", "cerrado", "cerrado-stcl", "cerrado-sucio", "burraco")
JOKERED = tuple(v for v in HIGH_THEN_LOW if V(v).jokers)


def test_wild_move_rule_per_rule_set() -> None:
    expected = {v: "high-then-low" for v in HIGH_THEN_LOW}
    expected |= {"fechado-stbl": "either-end", "burraco-106": "anywhere", "brasil": "fixed"}
    assert {v: V(v).wild_move for v in ALL_IDS} == expected


# --- high-then-low ----------------------------------------------------------------------


@pytest.mark.parametrize("variant_id", HIGH_THEN_LOW)
def test_high_then_low_displaced_two_of_the_runs_suit_becomes_natural(variant_id: str) -> None:
    shape = add_shape(variant_id, "3h 4h 2h", "5h")
    assert layout(shape) == "2h 3h 4h 5h"
    assert shape.wild_index == -1


@pytest.mark.parametrize("variant_id", HIGH_THEN_LOW)
def test_high_then_low_displaced_wild_goes_high(variant_id: str) -> None:
    assert layout(add_shape(variant_id, "5h 6h 2c", "7h")) == "5h 6h 7h 2c=8h"


@pytest.mark.parametrize("variant_id", JOKERED)
def test_high_then_low_displaced_joker_goes_high(variant_id: str) -> None:
    assert layout(add_shape(variant_id, "5h 6h JK", "7h")) == "5h 6h 7h JK=8h"


@pytest.mark.parametrize("variant_id", HIGH_THEN_LOW)
def test_high_then_low_displaced_wild_goes_low_when_the_high_end_is_closed(variant_id: str) -> None:
    assert layout(add_shape(variant_id, "Jh 2c Kh Ah", "Qh")) == "2c=Th Jh Qh Kh Ah"


@pytest.mark.parametrize("variant_id", HIGH_THEN_LOW)
def test_high_then_low_two_of_the_runs_suit_goes_high_when_its_own_place_is_taken(variant_id: str) -> None:
    assert layout(add_shape(variant_id, "Ah 2h 3h 4h 2h", "5h")) == "Ah 2h 3h 4h 5h 2h=6h"


@pytest.mark.parametrize("variant_id", HIGH_THEN_LOW)
def test_high_then_low_displaced_wild_may_not_be_sent_to_the_other_end(variant_id: str) -> None:
    with pytest.raises(IllegalActionError, match="cannot be placed"):
        add_shape(variant_id, "5h 6h 2c", "7h 2c>low")
    with pytest.raises(IllegalActionError, match="cannot be placed"):
        add_shape(variant_id, "5h 6h 2c", "7h 2c=4h")


@pytest.mark.parametrize("variant_id", ("abierto", "cerrado", "cerrado-stcl", "cerrado-sucio"))
def test_high_then_low_wild_in_a_complete_ace_to_ace_run_cannot_be_displaced(variant_id: str) -> None:
    run = "Ah 2h 3h 4h 5h 6h 2c 8h 9h Th Jh Qh Kh Ah"
    with pytest.raises(IllegalActionError, match="nowhere to go"):
        add_shape(variant_id, run, "7h")


@pytest.mark.parametrize("variant_id", HIGH_THEN_LOW)
def test_wild_moves_only_when_a_card_takes_its_place_outside_anywhere(variant_id: str) -> None:
    with pytest.raises(IllegalActionError, match="moves only when"):
        add_shape(variant_id, "7h 8h 9h 2c", "6h 2c=5h")


@pytest.mark.parametrize("variant_id", HIGH_THEN_LOW + ("fechado-stbl",))
def test_displaced_wild_fills_the_gap_the_new_cards_leave(variant_id: str) -> None:
    assert layout(add_shape(variant_id, "5h 6h 2c", "7h 9h")) == "5h 6h 7h 2c=8h 9h"


# --- new wilds laid off ------------------------------------------------------------------


@pytest.mark.parametrize("variant_id", ALL_IDS)
def test_new_wild_laid_off_goes_high_or_low_when_high_is_closed(variant_id: str) -> None:
    assert layout(add_shape(variant_id, "5h 6h 7h", "2c")) == "5h 6h 7h 2c=8h"
    assert layout(add_shape(variant_id, "Qh Kh Ah", "2c")) == "2c=Jh Qh Kh Ah"
    assert layout(add_shape(variant_id, "5h 6h 7h", "2c>low")) == "2c=4h 5h 6h 7h"


# --- either-end (fechado-stbl) ---------------------------------------------------------------


def test_either_end_displaced_wild_goes_low_by_default() -> None:
    # the seed's example: J-2-K + Q gives 2(=10)-J-Q-K
    assert layout(add_shape("fechado-stbl", "Jh 2c Kh", "Qh")) == "2c=Th Jh Qh Kh"


def test_either_end_record_may_send_the_displaced_wild_high() -> None:
    assert layout(add_shape("fechado-stbl", "Jh 2c Kh", "Qh 2c>high")) == "Jh Qh Kh 2c=Ah"
    assert layout(add_shape("fechado-stbl", "Jh 2c Kh", "Qh 2c=Ah")) == "Jh Qh Kh 2c=Ah"


def test_either_end_displaced_wild_goes_high_when_the_low_end_is_closed() -> None:
    assert layout(add_shape("fechado-stbl", "Ah 2c 3h", "2h")) == "Ah 2h 3h 2c=4h"


def test_either_end_in_a_state_the_directive_is_not_a_laid_card() -> None:
    state = build("fechado-stbl", ["Jh 2c Kh Qh", ""], stock="5s").state()
    play(state, "p1 draw", "p1 meld Jh 2c Kh")
    size = state.hand_sizes[1]
    act(state, "p1 add m1 Qh 2c>high")
    assert state.hand_sizes[1] == size - 1
    assert layout(state.melds[0].shape) == "Jh Qh Kh 2c=Ah"


# --- anywhere (burraco-106) ------------------------------------------------------------------


def test_anywhere_wild_fills_a_gap_made_by_the_lay_off() -> None:
    # the rules' example: 7-8-9-2 + 5 gives 5-2-7-8-9
    assert layout(add_shape("burraco-106", "7h 8h 9h 2c", "5h")) == "5h 2c=6h 7h 8h 9h"


def test_anywhere_without_gap_or_named_place_moves_as_high_then_low() -> None:
    assert layout(add_shape("burraco-106", "5h 6h JK", "7h")) == "5h 6h 7h JK=8h"
    assert layout(add_shape("burraco-106", "Jh JK Kh Ah", "Qh")) == "JK=Th Jh Qh Kh Ah"
    assert layout(add_shape("burraco-106", "3h 4h 2h", "5h")) == "2h 3h 4h 5h"


def test_anywhere_displaced_wild_may_go_to_a_named_legal_place() -> None:
    assert layout(add_shape("burraco-106", "4h 5h 6h 2c", "7h 2c=3h")) == "2c=3h 4h 5h 6h 7h"


def test_anywhere_wild_may_move_without_being_displaced() -> None:
    assert layout(add_shape("burraco-106", "7h 8h 9h 2c", "6h 2c=5h")) == "2c=5h 6h 7h 8h 9h"


def test_anywhere_wild_may_not_move_to_an_illegal_place() -> None:
    with pytest.raises(IllegalActionError):
        add_shape("burraco-106", "7h 8h 9h 2c", "6h 2c=3h")


# --- fixed (brasil) -------------------------------------------------------------------------


def test_brasil_wild_on_the_table_is_fixed() -> None:
    with pytest.raises(IllegalActionError, match="stays"):
        add_shape("brasil", "5h 6h JK", "7h")
    with pytest.raises(IllegalActionError, match="stays"):
        add_shape("brasil", "5h JK 7h", "6h")


def test_brasil_run_with_a_fixed_wild_still_grows_at_its_ends() -> None:
    assert layout(add_shape("brasil", "5h 6h JK", "8h")) == "5h 6h JK=7h 8h"
    assert layout(add_shape("brasil", "5h 6h JK", "4h")) == "4h 5h 6h JK=7h"


def test_brasil_two_on_the_table_does_not_turn_natural() -> None:
    with pytest.raises(IllegalActionError, match="stays"):
        add_shape("brasil", "3h 4h 2h", "5h")


# --- canastas turning clean ---------------------------------------------------------------


@pytest.mark.parametrize("variant_id", ("cerrado", "abierto", "burraco", "burraco-106"))
def test_dirty_canasta_turns_clean_when_its_two_becomes_natural(variant_id: str) -> None:
    state = build(variant_id, ["3h 4h 5h 6h 7h 8h 2h 9h", ""], stock="Ks").state()
    play(state, "p1 draw", "p1 meld 3h 4h 5h 6h 7h 8h 2h")
    assert layout(state.melds[0].shape).endswith("8h 2h=9h")
    assert state.melds[0].kind(state.variant) == "dirty"
    act(state, "p1 add m1 9h")
    assert layout(state.melds[0].shape) == "2h 3h 4h 5h 6h 7h 8h 9h"
    assert state.melds[0].kind(state.variant) == "clean"


@pytest.mark.parametrize("variant_id", [v for v in ALL_IDS if V(v).jokers and v != "brasil"])
def test_dirty_canasta_holding_a_joker_never_turns_clean(variant_id: str) -> None:
    state = build(variant_id, ["3h 4h 5h 6h 7h 8h JK 9h", ""], stock="Ks").state()
    play(state, "p1 draw", "p1 meld 3h 4h 5h 6h 7h 8h JK", "p1 add m1 9h")
    shape = state.melds[0].shape
    assert "9h" in shape.text() and shape.wild is not None and shape.wild.is_joker
    assert state.melds[0].kind(state.variant) == "dirty"


# --- displaced 2s of the run's suit ------------------------------------------------------------


@pytest.mark.parametrize("variant_id", HIGH_THEN_LOW + ("burraco-106",))
def test_high_then_low_displaced_two_that_cannot_take_its_natural_place_goes_high(variant_id: str) -> None:
    # 4h 5h 2h(=6h) + 6h: the 2h cannot stand as 2h (3h is missing), so it goes high
    assert layout(add_shape(variant_id, "4h 5h 2h", "6h")) == "4h 5h 6h 2h=7h"
    assert layout(add_shape(variant_id, "Jh Qh 2h", "Kh")) == "Jh Qh Kh 2h=Ah"


def test_either_end_displaced_two_that_cannot_take_its_natural_place_goes_low() -> None:
    assert layout(add_shape("fechado-stbl", "4h 5h 2h", "6h")) == "2h=3h 4h 5h 6h"


@pytest.mark.parametrize("variant_id", HIGH_THEN_LOW)
def test_high_then_low_directive_cannot_keep_a_two_of_the_runs_suit_wild(variant_id: str) -> None:
    with pytest.raises(IllegalActionError):
        add_shape(variant_id, "3h 4h 2h", "5h 2h>high")

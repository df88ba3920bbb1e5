"""rules.md: the shared meld rules (section 1), the Melds table and the Lay-offs
paragraph (section 2), and the ace-ends fine point (section 4)."""

from __future__ import annotations

import pytest

from buraco.errors import AmbiguousActionError, IllegalActionError
from buraco.state import LaidOff, Melded

from .helpers import ALL_IDS, V, act, add_shape, build, hand, layout, meld_shape, play

A_TO_A = "Ah 2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh Ah"
A_TO_K = "Ah 2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh"
TWO_TO_K = "2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh"

SETS = {
    "abierto": False,
    "abierto-sucio": True,
    "cerrado": True,
    "cerrado-stcl": False,
    "cerrado-sucio": True,
    "burraco": True,
    "fechado-stbl": False,
    "brasil": True,
    "burraco-106": True,
}
ACE_TO_ACE = {v: v in ("abierto", "cerrado", "cerrado-stcl", "cerrado-sucio", "fechado-stbl") for v in ALL_IDS}
WILD = {v: ("2d" if v == "abierto" else "JK") for v in ALL_IDS}  # abierto has no jokers


# --- the Melds table: sets ------------------------------------------------------------


@pytest.mark.parametrize("variant_id", ALL_IDS)
def test_sets_per_rule_set(variant_id: str) -> None:
    if SETS[variant_id]:
        shape = meld_shape(variant_id, "7h 7s 7d")
        assert not shape.is_run and shape.rank == 7
    else:
        with pytest.raises(IllegalActionError, match="has no sets"):
            meld_shape(variant_id, "7h 7s 7d")


def test_abierto_has_no_sets() -> None:
    with pytest.raises(IllegalActionError, match="abierto has no sets"):
        meld_shape("abierto", "Kc Kd 2s")


def test_fechado_stbl_has_no_sets() -> None:
    with pytest.raises(IllegalActionError, match="no sets"):
        meld_shape("fechado-stbl", "Kc Kd Kh")


def test_cerrado_stcl_has_no_sets() -> None:
    with pytest.raises(IllegalActionError, match="no sets"):
        meld_shape("cerrado-stcl", "Kc Kd Kh")


@pytest.mark.parametrize("variant_id", [v for v in ALL_IDS if SETS[v] and v != "brasil"])
def test_set_suits_may_repeat_except_in_brasil(variant_id: str) -> None:
    shape = meld_shape(variant_id, "7h 7h 7s 7s 7d 7d 7c")
    assert len(shape.cards) == 7 and shape.wild_index == -1


def test_brasil_set_suits_must_all_differ() -> None:
    with pytest.raises(IllegalActionError, match="different suits"):
        meld_shape("brasil", "7h 7h 7s")
    with pytest.raises(IllegalActionError, match="different suits"):
        add_shape("brasil", "7h 7s 7d", "7h")
    assert len(add_shape("brasil", "7h 7s 7d", "7c").cards) == 4


def test_brasil_set_holds_at_most_four_cards() -> None:
    assert len(meld_shape("brasil", "7h 7s 7d 7c").cards) == 4
    assert len(meld_shape("brasil", "7h 7s 7d JK").cards) == 4
    with pytest.raises(IllegalActionError, match="at most 4"):
        meld_shape("brasil", "7h 7s 7d 7c JK")
    with pytest.raises(IllegalActionError, match="at most 4"):
        add_shape("brasil", "7h 7s JK", "7d 7c")


def test_brasil_meld_needs_two_natural_cards() -> None:
    with pytest.raises(IllegalActionError):
        meld_shape("brasil", "7h JK 2c")
    assert meld_shape("brasil", "7h 8h JK").wild_index == 2


@pytest.mark.parametrize("variant_id", ALL_IDS)
def test_set_of_twos_is_never_legal(variant_id: str) -> None:
    with pytest.raises(IllegalActionError):
        meld_shape(variant_id, "2c 2d 2h")
    with pytest.raises(IllegalActionError):
        meld_shape(variant_id, "2c 2d 2h 2s")
    if V(variant_id).jokers:
        with pytest.raises(IllegalActionError):
            meld_shape(variant_id, "2c 2d JK")


@pytest.mark.parametrize("variant_id", [v for v in ALL_IDS if SETS[v]])
def test_set_takes_one_wild(variant_id: str) -> None:
    shape = meld_shape(variant_id, "7h 7s JK")
    assert shape.wild_index == 2 and shape.stand_in() == "7"
    with pytest.raises(IllegalActionError, match="at most one wild"):
        add_shape(variant_id, "7h 7s 7d", "JK 2c")
    with pytest.raises(IllegalActionError, match="does not fit"):
        add_shape(variant_id, "7h 7s 7d", "8h")


# --- shared rules: wilds, natural 2s, runs ------------------------------------------


@pytest.mark.parametrize("variant_id", ALL_IDS)
def test_runs_are_legal_in_every_rule_set(variant_id: str) -> None:
    shape = meld_shape(variant_id, "7h 8h 9h")
    assert shape.is_run and shape.low == 7 and shape.wild_index == -1


@pytest.mark.parametrize("variant_id", ALL_IDS)
def test_run_is_of_one_suit(variant_id: str) -> None:
    with pytest.raises(IllegalActionError):
        meld_shape(variant_id, "7h 8h 9s")


@pytest.mark.parametrize("variant_id", ALL_IDS)
def test_meld_has_at_most_one_wild(variant_id: str) -> None:
    with pytest.raises(IllegalActionError, match="at most one wild"):
        meld_shape(variant_id, "7h 8h 9h 2c 2d")
    with pytest.raises(IllegalActionError):
        add_shape(variant_id, f"7h 8h {WILD[variant_id]}", "2s")


@pytest.mark.parametrize("variant_id", ALL_IDS)
def test_second_two_may_sit_in_a_run_only_as_the_natural_two(variant_id: str) -> None:
    assert layout(meld_shape(variant_id, "Ah 2h 3h 2c")) == "Ah 2h 3h 2c=4h"
    with pytest.raises(IllegalActionError):
        meld_shape(variant_id, "3h 4h 2c 2d")


def test_two_in_its_own_place_is_natural_and_elsewhere_wild() -> None:
    natural = meld_shape("cerrado", "2h 3h 4h")
    assert natural.wild_index == -1 and natural.low == 2
    wild = meld_shape("cerrado", "3h 4h 5h 2h")
    assert layout(wild) == "3h 4h 5h 2h=6h"


def test_new_two_laid_where_it_could_be_natural_is_natural_unless_placed() -> None:
    assert layout(add_shape("cerrado", "3h 4h 5h", "2h")) == "2h 3h 4h 5h"
    assert layout(add_shape("cerrado", "3h 4h 5h", "2h=6h")) == "3h 4h 5h 2h=6h"


@pytest.mark.parametrize("variant_id", ALL_IDS)
def test_run_never_wraps_past_the_ace(variant_id: str) -> None:
    with pytest.raises(IllegalActionError):
        meld_shape(variant_id, "Kh Ah 2h 3h")
    with pytest.raises(IllegalActionError):
        meld_shape(variant_id, "Qh Kh Ah 2h 3h")


@pytest.mark.parametrize("variant_id", ALL_IDS)
def test_ace_sits_low_or_high(variant_id: str) -> None:
    assert meld_shape(variant_id, "Ah 2h 3h").low == 1
    assert meld_shape(variant_id, "Qh Kh Ah").high == 14


def test_natural_ace_fitting_both_ends_goes_low_unless_written_high() -> None:
    assert add_shape("cerrado", TWO_TO_K, "Ah").low == 1
    high = add_shape("cerrado", TWO_TO_K, "Ah>high")
    assert (high.low, high.high) == (2, 14)


@pytest.mark.parametrize("variant_id", ALL_IDS)
def test_ace_to_ace_run_per_rule_set(variant_id: str) -> None:
    if ACE_TO_ACE[variant_id]:
        shape = meld_shape(variant_id, A_TO_A)
        assert (shape.low, shape.high, shape.wild_index) == (1, 14, -1)
        assert add_shape(variant_id, A_TO_K, "Ah").high == 14
    else:
        with pytest.raises(IllegalActionError, match="ace-to-ace"):
            meld_shape(variant_id, A_TO_A)
        with pytest.raises(IllegalActionError):
            add_shape(variant_id, A_TO_K, "Ah>high")


def test_abierto_has_ace_to_ace_run_without_jokers() -> None:
    assert len(meld_shape("abierto", A_TO_A).cards) == 14


@pytest.mark.parametrize("variant_id", ALL_IDS)
def test_run_holds_at_most_14_cards(variant_id: str) -> None:
    wild = WILD[variant_id]
    with pytest.raises(IllegalActionError):
        meld_shape(variant_id, f"{A_TO_A} {wild}")
    if not ACE_TO_ACE[variant_id]:
        assert len(meld_shape(variant_id, f"{A_TO_K} {wild}").cards) == 14
        with pytest.raises(IllegalActionError):
            add_shape(variant_id, f"{A_TO_K} {wild}", "Ah")


# --- ace ends (section 4): a wild for the ace at the other end ---------------------


@pytest.mark.parametrize("variant_id", [v for v in ALL_IDS if not ACE_TO_ACE[v]])
def test_ace_to_king_plus_a_wild_on_top_is_legal_without_ace_to_ace(variant_id: str) -> None:
    shape = meld_shape(variant_id, f"{A_TO_K} JK")
    assert (shape.low, shape.high) == (1, 14)
    assert shape.stand_in() == "Ah"
    laid_off = add_shape(variant_id, A_TO_K, "JK")
    assert laid_off.high == 14 and laid_off.stand_in() == "Ah"


def test_abierto_sucio_ace_to_king_plus_wild_on_top() -> None:
    assert layout(meld_shape("abierto-sucio", f"{A_TO_K} 2c")).endswith("Kh 2c=Ah")


def test_burraco_wild_may_stand_for_the_low_ace_below_a_high_natural_ace() -> None:
    shape = meld_shape("burraco", "JK 2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh Ah")
    assert layout(shape).startswith("JK=Ah 2h 3h")
    assert shape.high == 14


def test_burraco_run_of_13_plus_wild_is_the_longest() -> None:
    with pytest.raises(IllegalActionError):
        meld_shape("burraco", f"{A_TO_A}")
    with pytest.raises(IllegalActionError):
        add_shape("burraco", f"{A_TO_K} JK", "2c")


# --- reading a meld (notation.md, as rules.md section 4 defers to it) -------------


def test_meld_laid_out_several_ways_without_a_named_place_is_ambiguous() -> None:
    with pytest.raises(AmbiguousActionError):
        meld_shape("cerrado", "5h JK 6h")  # JK could be 4h or 7h
    assert layout(meld_shape("cerrado", "5h JK=7h 6h")) == "5h 6h JK=7h"
    with pytest.raises(IllegalActionError, match="written order places every card"):
        meld_shape("cerrado", "5h JK>low 6h")  # an end belongs to add: write JK 5h 6h


def test_meld_written_out_of_order_reads_when_one_layout_is_legal() -> None:
    assert layout(meld_shape("cerrado", "2h 4h 5h 6h 2s")) == "2h 2s=3h 4h 5h 6h"
    with pytest.raises(IllegalActionError):
        meld_shape("cerrado", "2s 4h 5h 6h 2c")


# --- lay-offs and meld numbering -----------------------------------------------------


def two_runs(variant_id: str):  # noqa: ANN201
    """p1 lays m1 = 3c 4c 5c; the next player lays m2 = 3d 4d 5d."""
    named = [["3c", "4c", "5c", "6c", "6d"], ["3d", "4d", "5d", "6d", "6c"]]
    state = build(variant_id, [" ".join(h) for h in named], stock="Kh Kh Qs Qs Jh Jh").state()
    play(state, "p1 draw", "p1 meld 3c 4c 5c", "p1 discard Kh", "p2 draw", "p2 meld 3d 4d 5d", "p2 discard Kh")
    return state


@pytest.mark.parametrize("variant_id", [v for v in ALL_IDS if v != "brasil"])
def test_lay_off_on_the_other_sides_meld_is_illegal(variant_id: str) -> None:
    state = two_runs(variant_id)
    act(state, "p1 draw")
    with pytest.raises(IllegalActionError, match="belongs to the other side"):
        act(state, "p1 add m2 6d")
    act(state, "p1 add m1 6c")


def test_brasil_lay_off_onto_anyones_meld() -> None:
    state = two_runs("brasil")
    act(state, "p1 draw")
    act(state, "p1 add m2 6d")
    assert state.melds[1].shape.high == 6
    assert state.melds[1].owner == 2


@pytest.mark.parametrize("variant_id", [v for v in ALL_IDS if 4 in V(v).player_counts and v != "brasil"])
def test_partners_share_their_melds(variant_id: str) -> None:
    state = build(variant_id, ["3c 4c 5c", "", "6c 9s", ""], stock="Kh Qs Qs Jh").state()
    play(state, "p1 draw", "p1 meld 3c 4c 5c", "p1 discard Kh", "p2 draw", "p2 discard Qs", "p3 draw")
    act(state, "p3 add m1 6c")
    assert state.melds[0].shape.high == 6
    assert state.melds[0].side == 0


def test_melds_are_numbered_in_the_order_laid_whoever_lays_them() -> None:
    state = two_runs("cerrado")
    assert [(m.number, m.owner) for m in state.melds] == [(1, 1), (2, 2)]
    op = act(state, "p1 draw")
    op = act(state, "p1 add m1 6c")
    assert isinstance(op, LaidOff) and op.number == 1
    assert len(state.melds) == 2  # a lay-off never creates a meld
    with pytest.raises(IllegalActionError, match="no meld m3"):
        act(state, "p1 add m3 9s")


def test_meld_operation_reports_the_meld_number() -> None:
    state = build("cerrado", ["3c 4c 5c 8h 9h Th"], players=2, stock="Kh").state()
    act(state, "p1 draw")
    first = act(state, "p1 meld 3c 4c 5c")
    second = act(state, "p1 meld 8h 9h Th")
    assert isinstance(first, Melded) and (first.number, second.number) == (1, 2)
    assert "3c" not in hand(state, 1)

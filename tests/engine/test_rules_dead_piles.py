"""rules.md section 2 "Dead piles", the dead-pile penalties of section 3 and the
dead-pile fine points of section 4."""

from __future__ import annotations

import pytest

from buraco.errors import IllegalActionError
from buraco.state import DEAD_DIRECT_STEP, DEAD_INDIRECT_STEP, OUT, PLAY_STEP, STOCK, PickedDead

from .helpers import WITH_DEAD, V, act, build, burn_stock, empty_by_discard, end_by_stock, hand, pass_turn, play, scores

DIRECT = tuple(v for v in WITH_DEAD if v != "abierto-sucio")
TO_STOCK = ("abierto", "abierto-sucio", "cerrado", "cerrado-stcl", "cerrado-sucio", "fechado-stbl", "burraco-106")
UNPLAYED_PENALTY = ("abierto", "cerrado", "cerrado-stcl", "cerrado-sucio")

# Hands that can be melded out completely, as runs (every rule set has runs), with
# no canasta among them. P1 melds these; the drawn card is discarded or melded.
P1_MELDS = {11: ["3c 4c 5c 6c 7c", "9d Td Jd", "5s 6s 7s"], 13: ["3c 4c 5c 6c 7c", "9d Td Jd Qd", "5s 6s 7s 8s"]}
P2_MELDS = {11: ["3h 4h 5h 6h 7h", "9s Ts Js", "5d 6d 7d"], 13: ["3h 4h 5h 6h 7h", "9s Ts Js Qs", "5d 6d 7d 8d"]}
P2_CANASTA = {11: ["3h 4h 5h 6h 7h 8h 9h", "9s Ts Js Qs"], 13: ["3h 4h 5h 6h 7h 8h 9h", "9s Ts Js Qs Ks As"]}
PILE_1 = "3d 4d 5d 6d 7d 9c Tc Jc Jh Qh Kh"  # meldable: 3d..7d, 9c Tc Jc, Jh Qh Kh
PILE_1_MELDS = ["3d 4d 5d 6d 7d", "9c Tc Jc", "Jh Qh Kh"]


def n(variant_id: str) -> int:
    return V(variant_id).hand_size


def joined(melds: list[str]) -> str:
    return " ".join(melds)


def setup(variant_id: str, *, players: int = 2, p2: list[str] | None = None, stock: str = "Kc Kc Qc Qc Ad Ad"):  # noqa: ANN201
    size = n(variant_id)
    hands = [joined(P1_MELDS[size]), joined(p2 or P2_MELDS[size])] + [""] * (players - 2)
    deal = build(variant_id, hands, dead=[PILE_1], stock=stock)
    return deal, deal.state()


# --- direct and indirect pick-up ----------------------------------------------------------


@pytest.mark.parametrize("variant_id", DIRECT)
def test_direct_pickup_continues_the_turn(variant_id: str) -> None:
    deal, state = setup(variant_id, stock="8c")
    melds = P1_MELDS[n(variant_id)]
    act(state, "p1 draw")
    act(state, f"p1 meld {melds[0]} 8c")
    for meld in melds[1:]:
        act(state, f"p1 meld {meld}")
    assert state.hand_sizes[1] == 0 and state.step == DEAD_DIRECT_STEP
    op = act(state, "p1 dead")
    assert isinstance(op, PickedDead) and op.pile == 1
    assert state.turn == 1 and state.step == PLAY_STEP
    assert state.hand_sizes[1] == 11
    play(state, "p1 meld 3d 4d 5d", "p1 discard Kh")
    assert state.turn == 2


def test_abierto_sucio_has_no_direct_pickup() -> None:
    deal, state = setup("abierto-sucio", stock="8c")
    melds = P1_MELDS[11]
    act(state, "p1 draw")
    act(state, f"p1 meld {melds[0]} 8c")
    act(state, f"p1 meld {melds[1]}")
    with pytest.raises(IllegalActionError, match="cannot play the last card"):
        act(state, f"p1 meld {melds[2]}")


@pytest.mark.parametrize("variant_id", DIRECT)
def test_laying_off_the_last_card_counts_as_melding_it_for_a_direct_pickup(variant_id: str) -> None:
    deal, state = setup(variant_id, stock="8c")
    melds = P1_MELDS[n(variant_id)]
    act(state, "p1 draw")
    for meld in melds:
        act(state, f"p1 meld {meld}")
    act(state, "p1 add m1 8c")
    assert state.step == DEAD_DIRECT_STEP
    act(state, "p1 dead")
    assert state.turn == 1 and state.step == PLAY_STEP


@pytest.mark.parametrize("variant_id", WITH_DEAD)
def test_indirect_pickup_is_played_from_the_next_turn(variant_id: str) -> None:
    deal, state = setup(variant_id)
    empty_by_discard(state, 1, P1_MELDS[n(variant_id)])
    assert state.step == DEAD_INDIRECT_STEP and state.turn == 1
    act(state, "p1 dead")
    assert state.turn == 2 and state.step == "draw"
    assert hand(state, 1) == sorted(PILE_1.split())
    with pytest.raises(IllegalActionError, match="p2's turn"):
        act(state, "p1 meld 3d 4d 5d")


@pytest.mark.parametrize("variant_id", WITH_DEAD)
def test_dead_is_the_next_action_after_emptying_the_hand(variant_id: str) -> None:
    deal, state = setup(variant_id)
    empty_by_discard(state, 1, P1_MELDS[n(variant_id)])
    with pytest.raises(IllegalActionError, match="pick up the dead pile"):
        act(state, "p1 draw")
    with pytest.raises(IllegalActionError):
        act(state, "p2 draw")


@pytest.mark.parametrize("variant_id", WITH_DEAD)
def test_dead_pile_is_picked_up_only_on_emptying_the_hand(variant_id: str) -> None:
    deal, state = setup(variant_id)
    with pytest.raises(IllegalActionError, match="only on emptying the hand"):
        act(state, "p1 dead")
    act(state, "p1 draw")
    with pytest.raises(IllegalActionError, match="only on emptying the hand"):
        act(state, "p1 dead")


# --- one per side, in deal order ---------------------------------------------------------


@pytest.mark.parametrize("variant_id", WITH_DEAD)
def test_dead_piles_are_picked_up_in_deal_order(variant_id: str) -> None:
    deal, state = setup(variant_id)
    pass_turn(state)  # p1
    empty_by_discard(state, 2, P2_MELDS[n(variant_id)])
    op = act(state, "p2 dead")
    assert op.pile == 1 and list(op.cards) == deal.dead[0]
    empty_by_discard(state, 1, P1_MELDS[n(variant_id)])
    op = act(state, "p1 dead")
    assert op.pile == 2 and list(op.cards) == deal.dead[1]
    assert state.dead == [] and state.dead_taken == [True, True]


@pytest.mark.parametrize("variant_id", WITH_DEAD)
def test_each_side_picks_up_one_dead_pile(variant_id: str) -> None:
    deal, state = setup(variant_id)
    empty_by_discard(state, 1, P1_MELDS[n(variant_id)])
    act(state, "p1 dead")
    pass_turn(state)  # p2
    act(state, "p1 draw")
    for meld in PILE_1_MELDS:
        act(state, f"p1 meld {meld}")
    assert state.hand_sizes[1] == 1  # the card drawn; no canasta on the table
    last = state.hand_of(1)[0]
    with pytest.raises(IllegalActionError, match="cannot discard the last card"):
        act(state, f"p1 discard {last}")


@pytest.mark.parametrize("variant_id", [v for v in WITH_DEAD if 4 in V(v).player_counts])
def test_partners_pick_up_one_dead_pile_between_them(variant_id: str) -> None:
    size = n(variant_id)
    p3 = P2_MELDS[size]  # the cards p2 would hold, given to p1's partner
    deal = build(variant_id, [joined(P1_MELDS[size]), "", joined(p3), ""], stock="Kc Kc Qc Qc Ad Ad")
    state = deal.state()
    empty_by_discard(state, 1, P1_MELDS[size])
    act(state, "p1 dead")
    pass_turn(state)  # p2
    act(state, "p3 draw")
    for meld in p3:
        act(state, f"p3 meld {meld}")
    last = state.hand_of(3)[0]
    with pytest.raises(IllegalActionError, match="cannot discard the last card"):
        act(state, f"p3 discard {last}")


# --- into the stock or not ---------------------------------------------------------------


@pytest.mark.parametrize("variant_id", TO_STOCK)
def test_untaken_dead_piles_move_into_the_stock_in_deal_order(variant_id: str) -> None:
    deal, state = setup(variant_id)
    burn_stock(state)
    assert not state.is_over
    assert state.stock_count == 22 and state.dead == []
    seat = state.turn
    op = act(state, f"p{seat} draw")
    assert op.card == deal.dead[0][0]
    assert state.stock[-1] == deal.dead[0][1]
    assert state.stock[0] == deal.dead[1][-1]


@pytest.mark.parametrize("variant_id", TO_STOCK)
def test_only_untaken_dead_piles_move_into_the_stock(variant_id: str) -> None:
    deal, state = setup(variant_id)
    empty_by_discard(state, 1, P1_MELDS[n(variant_id)])
    act(state, "p1 dead")
    burn_stock(state)
    assert state.stock_count == 11
    op = act(state, f"p{state.turn} draw")
    assert op.card == deal.dead[1][0]


def test_burraco_dead_piles_do_not_move_into_stock() -> None:
    deal, state = setup("burraco")
    burn_stock(state)
    assert state.stock_count == 0
    assert len(state.dead) == 2
    state.finish_by_stock()
    assert state.is_over and state.ended_by == STOCK


# --- penalties -----------------------------------------------------------------------------


@pytest.mark.parametrize("variant_id", WITH_DEAD)
def test_dead_pile_not_taken_costs_100_even_after_the_piles_went_into_the_stock(variant_id: str) -> None:
    deal, state = setup(variant_id)
    end_by_stock(state)
    for side in scores(state):
        assert side.penalties == 100
        assert side.penalty_reasons == ("dead pile not taken",)
        assert side.going_out == 0


def scenario_unplayed(variant_id: str, *, p1_plays_again: bool):  # noqa: ANN201
    """p2 lays a clean canasta and takes pile 1; p1 empties by discarding and takes
    pile 2; p2 then goes out from pile 1 (at once, or after p1 has had a turn)."""
    size = n(variant_id)
    deal, state = setup(variant_id, p2=P2_CANASTA[size])
    pass_turn(state)  # p1
    empty_by_discard(state, 2, P2_CANASTA[size])
    act(state, "p2 dead")
    empty_by_discard(state, 1, P1_MELDS[size])
    act(state, "p1 dead")
    if p1_plays_again:
        pass_turn(state)  # p2
        pass_turn(state)  # p1 plays from the pile
    empty_by_discard(state, 2, PILE_1_MELDS)
    assert state.is_over and state.ended_by == OUT and state.out_by == 2
    return deal, state


@pytest.mark.parametrize("variant_id", WITH_DEAD)
def test_cerrado_penalty_dead_pile_taken_but_never_played(variant_id: str) -> None:
    deal, state = scenario_unplayed(variant_id, p1_plays_again=False)
    p1, p2 = scores(state)
    if variant_id in UNPLAYED_PENALTY:
        assert p1.penalties == 100
        assert p1.penalty_reasons == ("dead pile taken but never played",)
    else:
        assert p1.penalties == 0
    assert p2.penalties == 0


@pytest.mark.parametrize("variant_id", UNPLAYED_PENALTY)
def test_dead_pile_played_from_next_turn_has_no_penalty(variant_id: str) -> None:
    deal, state = scenario_unplayed(variant_id, p1_plays_again=True)
    p1, p2 = scores(state)
    assert p1.penalties == 0 and p2.penalties == 0


def test_brasil_has_no_dead_piles_and_no_dead_pile_penalty() -> None:
    state = build("brasil", [[], []]).state()
    assert state.dead == []
    end_by_stock(state)
    assert [s.penalties for s in scores(state)] == [0, 0]

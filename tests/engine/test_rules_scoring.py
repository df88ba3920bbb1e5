"""rules.md section 3 (card values, bonuses, penalties, the match) and the
scoring, unfinished-hand and winner fine points of section 4."""

from __future__ import annotations

from dataclasses import replace

import pytest

from buraco.cards import Card
from buraco.melds import canasta_bonus, canasta_kind
from buraco.replay import verify
from buraco.scoring import match_winner
from buraco.selfplay import play_match

from .helpers import (
    ALL_IDS,
    ANY_HAND,
    SETS_000,
    WITH_DEAD,
    V,
    act,
    actions_of,
    build,
    empty_by_discard,
    end_by_stock,
    load_record,
    meld_shape,
    pass_turn,
    play,
    scores,
)
from .independent_scoring import hand_scores

# --- the card-value table, written out independently of the engine ---------------------

JOKER_VALUE = {v: 20 for v in SETS_000} | {"abierto-sucio": 30, "burraco": 30, "fechado-stbl": 50, "brasil": 20,
                                           "burraco-106": 30}
TWO_VALUE = {v: 10 for v in SETS_000} | {"abierto-sucio": 20, "burraco": 20, "fechado-stbl": 10, "brasil": 2,
                                         "burraco-106": 20}


def spec_value(variant_id: str, text: str) -> int:
    card = Card.parse(text)
    if card.is_joker:
        return JOKER_VALUE[variant_id]
    if card.rank == 2:
        return TWO_VALUE[variant_id]
    if card.rank == 1:
        return 15
    if variant_id == "brasil":
        return min(card.rank, 10)
    return 5 if card.rank <= 7 else 10


def spec_total(variant_id: str, cards: str) -> int:
    return sum(spec_value(variant_id, c) for c in cards.split())


@pytest.mark.parametrize(("variant_id", "card"), [
    (v, c) for v in ALL_IDS for c in ("3h", "5d", "7s", "8c", "9h", "Td", "Js", "Qc", "Kh", "Ad", "2s", "JK")
    if c != "JK" or V(v).jokers  # abierto's deck has no joker (rules.md 2)
])
def test_card_values_per_rule_set(variant_id: str, card: str) -> None:
    assert V(variant_id).card_values[Card.parse(card)] == spec_value(variant_id, card)


def test_brasil_cards_count_their_face_value() -> None:
    values = V("brasil").card_values
    assert [values[Card.parse(f"{r}h")] for r in "3456789T"] == [3, 4, 5, 6, 7, 8, 9, 10]
    assert [values[Card.parse(c)] for c in ("Jh", "Qh", "Kh", "Ah", "2h", "JK")] == [10, 10, 10, 15, 2, 20]


# --- a whole hand scored: values, canasta, going out, cards in hand, penalty ----------

P2_HAND = {11: "3h 7s 8s 9h Ts Js Qs Ks As 2s JK", 13: "3h 7d 8s 9h Ts Js Qs Ks As 2s JK 4h 6d"}
PILE_1 = "3d 4d 5d 6d 7d 9c Tc Jc Jh Qh Kh"
PILE_1_MELDS = ["3d 4d 5d 6d 7d", "9c Tc Jc", "Jh Qh Kh"]
CLEAN = "3c 4c 5c 6c 7c 8c 9c"


def first_melds(variant_id: str) -> list[str]:
    if V(variant_id).hand_size == 13:
        return [CLEAN, "9d Td Jd", "5s 6s 7s"]
    return [CLEAN, "9d Td Jd Qd"]


@pytest.mark.parametrize("variant_id", WITH_DEAD)
def test_hand_score_is_melded_plus_bonuses_plus_going_out_minus_hand_minus_penalties(variant_id: str) -> None:
    size = V(variant_id).hand_size
    p2 = P2_HAND[size] if V(variant_id).jokers else P2_HAND[size].replace("JK", "2c")
    melds = first_melds(variant_id)
    state = build(variant_id, [" ".join(melds), p2], dead=[PILE_1], stock="Kc Qc 8d").state()
    empty_by_discard(state, 1, melds)
    act(state, "p1 dead")
    pass_turn(state)
    empty_by_discard(state, 1, PILE_1_MELDS)
    assert state.ended_by == "out"
    p1, two = scores(state)
    melded = spec_total(variant_id, " ".join(melds + PILE_1_MELDS))
    assert (p1.melded, p1.canasta_bonus, p1.going_out, p1.hand, p1.penalties) == (melded, 200, 100, 0, 0)
    assert p1.canastas["clean"] == 1
    assert p1.total == melded + 300
    assert two.hand == spec_total(variant_id, p2)
    assert (two.melded, two.canasta_bonus, two.going_out, two.penalties) == (0, 0, 0, 100)
    assert two.total == -spec_total(variant_id, p2) - 100


def test_brasil_hand_score_has_no_penalties() -> None:
    p2 = P2_HAND[11]
    melds = [CLEAN, "9d Td Jd Qd"]
    state = build("brasil", [" ".join(melds), p2], stock="Kc").state()
    empty_by_discard(state, 1, melds)
    p1, two = scores(state)
    assert p1.total == spec_total("brasil", " ".join(melds)) + 200 + 100
    assert two.total == -spec_total("brasil", p2)
    assert two.penalties == 0


def test_no_going_out_bonus_when_the_stock_ends_the_hand() -> None:
    state = build("cerrado", [[], []]).state()
    end_by_stock(state)
    assert [s.going_out for s in scores(state)] == [0, 0]


# --- canasta bonuses ----------------------------------------------------------------------

BONUSES = {  # dirty, clean, A..K clean, A..A clean (None: no such canasta)
    "abierto": (100, 200, 500, 1000),
    "cerrado": (100, 200, 500, 1000),
    "cerrado-stcl": (100, 200, 500, 1000),
    "cerrado-sucio": (100, 200, 500, 1000),
    "abierto-sucio": (100, 200, 500, None),
    "burraco": (100, 200, 200, None),
    "fechado-stbl": (100, 200, 500, 1000),  # when laid in one meld action
    "brasil": (100, 200, 200, None),
    "burraco-106": (100, 200, 200, None),
}
A_TO_K = "Ah 2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh"
EVERY_POSITION = sum(1 << p for p in range(1, 15))


def bonus_of(variant_id: str, meld: str) -> int:
    variant = V(variant_id)
    return canasta_bonus(canasta_kind(meld_shape(variant_id, meld), variant, EVERY_POSITION), variant)


@pytest.mark.parametrize("variant_id", ALL_IDS)
def test_canasta_bonuses_per_rule_set(variant_id: str) -> None:
    dirty, clean, ace_king, ace_ace = BONUSES[variant_id]
    wild = "2d" if variant_id == "abierto" else "JK"
    assert bonus_of(variant_id, f"3h 4h 5h 6h 7h 8h {wild}") == dirty
    assert bonus_of(variant_id, "3h 4h 5h 6h 7h 8h 9h") == clean
    assert bonus_of(variant_id, A_TO_K) == ace_king
    if ace_ace is not None:
        assert bonus_of(variant_id, A_TO_K + " Ah") == ace_ace
    assert bonus_of(variant_id, "3h 4h 5h 6h 7h 8h") == 0  # six cards: no canasta


@pytest.mark.parametrize("variant_id", [v for v in ALL_IDS if V(v).sets and v != "brasil"])  # brasil: 4 at most
def test_seven_card_set_is_a_canasta(variant_id: str) -> None:
    set_of_7 = "7c 7d 7h 7s 7c 7d 7h"
    assert bonus_of(variant_id, set_of_7) == 200
    assert bonus_of(variant_id, "7c 7d 7h 7s 7c 7d JK") == 100


@pytest.mark.parametrize("variant_id", ALL_IDS)
def test_clean_two_to_ace_run_earns_the_plain_clean_bonus(variant_id: str) -> None:
    assert bonus_of(variant_id, "2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh Ah") == 200


@pytest.mark.parametrize("variant_id", ALL_IDS)
def test_ace_to_king_with_a_wild_is_dirty(variant_id: str) -> None:
    wild = "2d" if variant_id == "abierto" else "JK"
    assert bonus_of(variant_id, f"Ah 2h 3h 4h 5h 6h {wild} 8h 9h Th Jh Qh Kh") == 100


def partner_built_ace_to_king(variant_id: str):  # noqa: ANN201
    """4 players: p1 melds Ah..7h, partner p3 lays off 8h..Kh: A..K over two actions."""
    state = build(variant_id, ["Ah 2h 3h 4h 5h 6h 7h", "", "8h 9h Th Jh Qh Kh", ""],
                  stock="Kc Kc Qs Qs").state()
    play(state, "p1 draw", "p1 meld Ah 2h 3h 4h 5h 6h 7h", "p1 discard Kc")
    pass_turn(state)
    play(state, "p3 draw", "p3 add m1 8h 9h Th Jh Qh Kh", "p3 discard Qs")
    assert state.melds[0].shape.text() == A_TO_K
    return state


@pytest.mark.parametrize("variant_id", ("abierto", "cerrado", "cerrado-stcl", "cerrado-sucio", "abierto-sucio"))
def test_ace_to_king_built_by_lay_offs_scores_500_in_000_sets(variant_id: str) -> None:
    state = partner_built_ace_to_king(variant_id)
    assert state.melds[0].kind(state.variant) == "ace-to-king"
    end_by_stock(state)
    side = scores(state)[0]
    assert side.canastas["ace-to-king"] == 1 and side.canasta_bonus == 500


def test_fechado_ace_to_king_built_by_lay_offs_scores_the_clean_200() -> None:
    state = partner_built_ace_to_king("fechado-stbl")
    assert state.melds[0].kind(state.variant) == "clean"
    end_by_stock(state)
    assert scores(state)[0].canasta_bonus == 200


def fechado_one_action(run: str, pile_cards: list[str], stock: str = "Kc Qd Kc Qd Ks Qs"):  # noqa: ANN201
    """fechado-stbl: p1 holds Ah..Jh; p2 discards the cards of ``pile_cards`` one a
    turn; p1 takes the pile and melds ``run`` in one action."""
    deal = build("fechado-stbl", ["Ah 2h 3h 4h 5h 6h 7h 8h 9h Th Jh", " ".join(pile_cards)],
                 stock=stock)
    state = deal.state()
    for card in pile_cards:
        pass_turn(state)  # p1
        play(state, "p2 draw", f"p2 discard {card}")
    act(state, "p1 take")
    act(state, f"p1 meld {run}")
    act(state, f"p1 discard {state.hand_of(1)[0]}")
    return state


def test_fechado_ace_to_king_laid_in_one_action_scores_500() -> None:
    state = fechado_one_action(A_TO_K, ["Qh", "Kh"])
    assert state.melds[0].kind(state.variant) == "ace-to-king"
    end_by_stock(state)
    side = scores(state)[0]
    assert side.canastas["ace-to-king"] == 1 and side.canasta_bonus == 500


def test_fechado_ace_to_ace_laid_in_one_action_scores_1000() -> None:
    state = fechado_one_action(A_TO_K + " Ah", ["Qh", "Kh", "Ah"])
    assert state.melds[0].kind(state.variant) == "ace-to-ace"
    assert canasta_bonus("ace-to-ace", state.variant) == 1000


def test_fechado_ace_to_king_laid_in_one_action_keeps_500_when_extended_to_ace_to_ace() -> None:
    state = fechado_one_action(A_TO_K, ["Qh", "Kh"], stock="Kc Qd Kc Qd Ks Ah")
    pass_turn(state)  # p2
    act(state, "p1 draw")
    act(state, "p1 add m1 Ah")
    assert state.melds[0].shape.high == 14 and state.melds[0].shape.low == 1
    assert state.melds[0].kind(state.variant) == "ace-to-king"


def test_fechado_ace_to_ace_not_laid_in_one_action_scores_the_clean_200() -> None:
    variant = V("fechado-stbl")
    shape = meld_shape("fechado-stbl", A_TO_K + " Ah")
    two_to_ace = sum(1 << p for p in range(2, 15))  # 2..A laid in one action, the low ace added later
    assert canasta_kind(shape, variant, two_to_ace) == "clean"
    assert canasta_kind(shape, variant, 0) == "clean"
    assert canasta_kind(shape, variant, EVERY_POSITION) == "ace-to-ace"


@pytest.mark.parametrize("variant_id", ("abierto", "cerrado", "cerrado-stcl", "cerrado-sucio"))
def test_ace_to_ace_built_by_lay_offs_scores_1000_outside_fechado(variant_id: str) -> None:
    variant = V(variant_id)
    assert canasta_kind(meld_shape(variant_id, A_TO_K + " Ah"), variant, 0) == "ace-to-ace"
    assert canasta_kind(meld_shape(variant_id, A_TO_K), variant, 0) == "ace-to-king"


# --- lay-offs in brasil: points to the layer, bonus to the owner -------------------------


def test_brasil_lay_off_scores_for_the_player_who_laid_it_and_bonus_goes_to_the_owner() -> None:
    p1 = "9h 3c 4c 5c"
    state = build("brasil", [p1, "3h 4h 5h 6h 7h 8h"], stock="Kc Kc Ks").state()
    pass_turn(state)
    play(state, "p2 draw", "p2 meld 3h 4h 5h 6h 7h 8h", "p2 discard Kc")
    play(state, "p1 draw", "p1 add m1 9h", "p1 meld 3c 4c 5c", "p1 discard Ks")
    end_by_stock(state)
    one, two = scores(state)
    assert one.melded == 9 + 3 + 4 + 5
    assert one.canasta_bonus == 0
    assert two.melded == 3 + 4 + 5 + 6 + 7 + 8
    assert two.canasta_bonus == 200 and two.canastas["clean"] == 1


# --- the match -----------------------------------------------------------------------------

TARGETS = {v: 3000 for v in ALL_IDS} | {"burraco": 2005, "burraco-106": 2005}


@pytest.mark.parametrize("variant_id", ALL_IDS)
def test_match_target_per_rule_set(variant_id: str) -> None:
    assert load_record(variant_id, 2, [ANY_HAND]).match_target == TARGETS[variant_id]


def test_record_may_set_its_own_target() -> None:
    assert load_record("cerrado", 2, [ANY_HAND], extra="target = 1500").match_target == 1500


def test_first_side_at_or_over_the_target_after_a_hand_wins() -> None:
    totals, winner, after = match_winner(V("cerrado"), 3000, [[1500, 1000], [1500, 900], [0, 5000]], 0)
    assert (winner, after) == (0, 2)
    # The totals are every hand's: 1500 + 1500 + 0 and 1000 + 900 + 5000, not those of
    # the deciding hand (3000, 1900); side 2's lead after hand 3 does not change the winner.
    assert totals == [3000, 6900]
    totals, winner, after = match_winner(V("cerrado"), 3000, [[1500, 1000], [1499, 900]], 0)
    assert (winner, after) == (None, None)


def test_highest_total_wins_when_both_sides_reach_the_target() -> None:
    totals, winner, after = match_winner(V("burraco"), 2005, [[1000, 1000], [1100, 1500]], 0)
    assert (winner, after) == (1, 2)


@pytest.mark.parametrize("variant_id", SETS_000)
@pytest.mark.parametrize("starter_side", [0, 1])
def test_winner_tie_goes_to_starting_side_in_000_sets(variant_id: str, starter_side: int) -> None:
    totals, winner, after = match_winner(V(variant_id), 3000, [[3000, 3000]], starter_side)
    assert (winner, after) == (starter_side, 1)


@pytest.mark.parametrize("variant_id", ("burraco", "fechado-stbl", "brasil", "burraco-106"))
def test_winner_tie_names_no_winner_outside_000_sets(variant_id: str) -> None:
    totals, winner, after = match_winner(V(variant_id), 3000, [[3100, 3100]], 0)
    assert winner is None and after == 1


def tie_hand(variant_id: str, dealer: int):  # noqa: ANN201
    """A finished hand in which both sides score 5: each melds two five-card runs
    worth 110, keeps one 5-point card and pays 100 for the untaken dead pile."""
    first = "Tc Jc Qc Kc Ac Td Jd Qd Kd Ad 3h"
    second = "Th Jh Qh Kh Ah Ts Js Qs Ks As 3s"
    deal = build(variant_id, [first, second], dealer=dealer, stock="4c 4d")
    state = deal.state()
    starter = state.turn
    for seat in (starter, starter % 2 + 1):
        runs = ("Tc Jc Qc Kc Ac", "Td Jd Qd Kd Ad") if seat == 1 else ("Th Jh Qh Kh Ah", "Ts Js Qs Ks As")
        drawn = str(state.stock[-1])
        play(state, f"p{seat} draw", f"p{seat} meld {runs[0]}", f"p{seat} meld {runs[1]}", f"p{seat} discard {drawn}")
    end_by_stock(state)
    assert [s.total for s in scores(state)] == [5, 5]
    return deal, actions_of(state)


@pytest.mark.parametrize(("dealer", "starting_side"), [(2, 0), (1, 1)])
def test_verified_match_tie_goes_to_the_side_that_began_hand_1(dealer: int, starting_side: int) -> None:
    deal, actions = tie_hand("cerrado", dealer)
    report = verify(load_record("cerrado", 2, [deal.hand_table(actions)], extra="target = 5"))
    assert report.valid and report.totals == [5, 5]
    assert report.winner == starting_side and report.decided_after == 1


def test_verified_match_tie_outside_000_sets_has_no_winner() -> None:
    deal, actions = tie_hand("fechado-stbl", 2)
    report = verify(load_record("fechado-stbl", 2, [deal.hand_table(actions)], extra="target = 5"))
    assert report.valid and report.totals == [5, 5]
    assert report.winner is None


def test_later_hands_are_still_verified_after_the_winner_is_decided() -> None:
    deal, actions = tie_hand("cerrado", 2)
    bad = build("cerrado", [[], []])
    report = verify(load_record("cerrado", 2, [deal.hand_table(actions), bad.hand_table(["p2 draw"])],
                                extra="target = 5"))
    assert report.winner == 0 and report.decided_after == 1
    assert report.hands[0].valid
    assert not report.hands[1].valid and report.hands[1].error.ply == 1


def test_a_match_that_goes_on_after_the_target_totals_every_hand_and_keeps_its_winner() -> None:
    """cerrado self-play, seed 11, three hands, the target set to side 1's hand-1 score:
    side 1 reaches it after hand 1 with the higher total and wins; side 2 passes it in
    hand 2 and leads at the end. The scores come from the scorer written apart."""
    record = play_match("cerrado", players=2, hands=3, seed=11)
    scored = [hand_scores(record, index) for index in range(3)]
    first = scored[0]
    assert first[0] > first[1] > 0  # side 1 leads after hand 1 (660 to 310 as written)
    everything = [sum(side) for side in zip(*scored)]
    assert everything[1] > everything[0]  # and side 2 after hand 3 (2365 to 1350)
    report = verify(replace(record, target=first[0]))
    assert report.ok
    assert report.totals == everything and report.totals_through == 3
    assert (report.winner, report.decided_after) == (0, 1)
    assert report.as_dict()["totals"] == everything
    assert report.as_dict()["winner"]["side"] == 1


# --- unfinished hands -------------------------------------------------------------------------


def test_unfinished_hand_is_legal_but_has_no_score() -> None:
    deal = build("cerrado", [[], []], stock="Kc")
    report = verify(load_record("cerrado", 2, [deal.hand_table(["p1 draw", "p1 discard Kc"])]))
    hand = report.hands[0]
    assert report.valid and hand.valid and not hand.finished
    assert hand.scores is None


def test_claimed_result_on_an_unfinished_hand_is_a_mismatch() -> None:
    deal = build("cerrado", [[], []], stock="Kc")
    table = deal.hand_table(["p1 draw", "p1 discard Kc"], result="{ scores = [0, 0] }")
    report = verify(load_record("cerrado", 2, [table]))
    assert report.valid and not report.scores_match
    assert report.hands[0].mismatches


def test_another_hand_after_an_unfinished_one_is_an_error() -> None:
    deal = build("cerrado", [[], []], stock="Kc")
    second = build("cerrado", [[], []])
    report = verify(load_record("cerrado", 2, [deal.hand_table(["p1 draw"]), second.hand_table()]))
    assert report.hands[0].valid and not report.hands[0].finished
    assert not report.hands[1].valid
    assert "unfinished" in report.hands[1].error.message

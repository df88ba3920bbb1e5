"""rules.md section 2, the rule-set table: decks, hands, dead piles, first
discard and players; and section 4's broken deals and unreadable records."""

from __future__ import annotations

import pytest

from buraco.cards import JOKER, Card
from buraco.errors import IllegalActionError, NotationError
from buraco.replay import verify

from .helpers import ALL_IDS, ANY_HAND, act, build, load_record, record

DECK_SIZES = {
    "abierto": 104,
    "abierto-sucio": 108,
    "cerrado": 108,
    "cerrado-stcl": 108,
    "cerrado-sucio": 108,
    "burraco": 108,
    "fechado-stbl": 108,
    "brasil": 108,
    "burraco-106": 106,
}
HAND_SIZES = {v: (13 if v == "burraco" else 11) for v in ALL_IDS}
DEAD_PILES = {v: ((0, 0) if v == "brasil" else (2, 11)) for v in ALL_IDS}
FIRST_DISCARD = {v: v in ("burraco", "burraco-106") for v in ALL_IDS}
PLAYER_COUNTS = {v: {2, 4} for v in ALL_IDS} | {"brasil": {2, 3, 4}, "burraco-106": {2}}


def all_cards(deal) -> list[Card]:  # noqa: ANN001
    out = [c for h in deal.dealt for c in h] + [c for p in deal.dead for c in p] + list(deal.stock)
    return out + ([deal.discard] if deal.discard is not None else [])


# --- deck sizes ----------------------------------------------------------------------


@pytest.mark.parametrize("variant_id", ALL_IDS)
def test_deck_size_per_rule_set(variant_id: str) -> None:
    deal = build(variant_id, [[], []])
    assert len(all_cards(deal)) == DECK_SIZES[variant_id]
    deal.state()  # the exact deck is a legal deal


def test_abierto_deck_has_no_jokers() -> None:
    deal = build("abierto", [[], []])
    deal.stock.append(JOKER)
    with pytest.raises(IllegalActionError, match="JK appears 1 times"):
        deal.state()


def test_burraco_106_deck_has_two_jokers() -> None:
    deal = build("burraco-106", ["JK JK", []])
    assert all_cards(deal).count(JOKER) == 2
    deal.stock.append(JOKER)
    with pytest.raises(IllegalActionError, match="JK appears 3 times"):
        deal.state()


@pytest.mark.parametrize("variant_id", [v for v in ALL_IDS if DECK_SIZES[v] == 108])
def test_108_card_rule_sets_have_four_jokers(variant_id: str) -> None:
    deal = build(variant_id, ["JK JK", "JK JK"])
    deal.state()
    deal.stock.append(JOKER)
    with pytest.raises(IllegalActionError, match="JK appears 5 times"):
        deal.state()


def test_identical_cards_appear_twice_in_the_deck() -> None:
    build("cerrado", ["7h 7h", []]).state()
    with pytest.raises(ValueError):
        build("cerrado", ["7h 7h", "7h"])  # the builder itself cannot find a third 7h


def test_card_more_often_than_the_deck_holds_is_a_broken_deal() -> None:
    deal = build("cerrado", ["7h 7h", []])
    deal.dealt[1][0] = Card.parse("7h")
    with pytest.raises(IllegalActionError, match="7h appears 3 times"):
        deal.state()


def test_stock_that_does_not_complete_the_deck_is_a_broken_deal() -> None:
    deal = build("cerrado", [[], []])
    deal.stock.pop()
    with pytest.raises(IllegalActionError, match="does not complete the deck"):
        deal.state()


def test_without_a_stock_every_draw_names_its_card() -> None:
    deal = build("cerrado", ["7h 7h", []])
    deal.stock = None
    state = deal.state()
    assert state.stock_count == 108 - 22 - 22
    with pytest.raises(IllegalActionError, match="must name the card"):
        act(state, "p1 draw")
    with pytest.raises(IllegalActionError, match="every 7h is already in play"):
        act(state, "p1 draw 7h")
    act(state, "p1 draw 7c")
    assert state.hand_sizes[1] == 12


def test_draw_naming_a_card_that_is_not_on_top_of_the_stock_is_illegal() -> None:
    state = build("cerrado", [[], []], stock="Kd 7s").state()
    with pytest.raises(IllegalActionError, match="top card of the stock is Kd"):
        act(state, "p1 draw 7s")
    act(state, "p1 draw Kd")


# --- hand sizes, dead piles, first discard ------------------------------------------


@pytest.mark.parametrize("variant_id", ALL_IDS)
def test_hand_size_per_rule_set(variant_id: str) -> None:
    deal = build(variant_id, [[], []])
    assert [len(h) for h in deal.dealt] == [HAND_SIZES[variant_id]] * 2
    deal.state()


def test_burraco_deals_13_cards_and_an_11_card_hand_is_broken() -> None:
    deal = build("burraco", [[], []])
    deal.stock.append(deal.dealt[0].pop())
    deal.stock.append(deal.dealt[0].pop())
    with pytest.raises(IllegalActionError, match="p1 was dealt 11 cards; burraco deals 13"):
        deal.state()


@pytest.mark.parametrize("variant_id", [v for v in ALL_IDS if v != "burraco"])
def test_hand_of_13_cards_is_broken_outside_burraco(variant_id: str) -> None:
    deal = build(variant_id, [[], []])
    deal.dealt[1].append(deal.stock.pop())
    deal.dealt[1].append(deal.stock.pop())
    with pytest.raises(IllegalActionError, match="p2 was dealt 13 cards"):
        deal.state()


@pytest.mark.parametrize("variant_id", ALL_IDS)
def test_dead_piles_per_rule_set(variant_id: str) -> None:
    deal = build(variant_id, [[], []])
    count, size = DEAD_PILES[variant_id]
    assert len(deal.dead) == count
    assert all(len(p) == size for p in deal.dead)
    assert deal.state().dead_total == count


@pytest.mark.parametrize("variant_id", [v for v in ALL_IDS if v != "brasil"])
def test_dead_pile_of_ten_cards_is_a_broken_deal(variant_id: str) -> None:
    deal = build(variant_id, [[], []])
    deal.stock.append(deal.dead[1].pop())
    with pytest.raises(IllegalActionError, match="dead pile 2 has 10 cards"):
        deal.state()


@pytest.mark.parametrize("variant_id", [v for v in ALL_IDS if v != "brasil"])
def test_one_dead_pile_instead_of_two_is_a_broken_deal(variant_id: str) -> None:
    deal = build(variant_id, [[], []])
    deal.stock.extend(deal.dead.pop())
    with pytest.raises(IllegalActionError, match="1 dead piles"):
        deal.state()


def test_brasil_has_no_dead_piles() -> None:
    deal = build("brasil", [[], []])
    deal.dead = [[deal.stock.pop() for _ in range(11)], [deal.stock.pop() for _ in range(11)]]
    with pytest.raises(IllegalActionError, match="brasil has 0"):
        deal.state()


@pytest.mark.parametrize("variant_id", ALL_IDS)
def test_first_discard_per_rule_set(variant_id: str) -> None:
    deal = build(variant_id, [[], []])
    state = deal.state()
    if FIRST_DISCARD[variant_id]:
        assert state.discard_pile == [deal.discard]
        deal.stock.append(deal.discard)
        deal.discard = None
        with pytest.raises(IllegalActionError, match="turns up a first discard"):
            deal.state()
    else:
        assert state.discard_pile == []
        deal.discard = deal.stock.pop()
        with pytest.raises(IllegalActionError, match="has no first discard"):
            deal.state()


# --- players, sides and turn order --------------------------------------------------


@pytest.mark.parametrize("variant_id", ALL_IDS)
@pytest.mark.parametrize("players", [1, 2, 3, 4, 5])
def test_player_counts_per_rule_set(variant_id: str, players: int) -> None:
    names = ", ".join(f'"P{i}"' for i in range(players))
    text = f'brn = 1\nvariant = "{variant_id}"\nplayers = [{names}]\n'
    if players in PLAYER_COUNTS[variant_id]:
        assert len(load_record(variant_id, players, [ANY_HAND]).players) == players
    else:
        with pytest.raises(NotationError, match="is played by") as caught:
            from buraco.notation import loads

            loads(text)
        assert (caught.value.line, caught.value.column) == (3, 11)


@pytest.mark.parametrize("variant_id", [v for v in ALL_IDS if 4 in PLAYER_COUNTS[v] and v != "brasil"])
def test_four_players_play_in_pairs_seats_1_3_and_2_4(variant_id: str) -> None:
    assert load_record(variant_id, 4, [ANY_HAND]).sides == ((1, 3), (2, 4))
    state = build(variant_id, [[], [], [], []]).state()
    assert state.side_of[1:] == [0, 1, 0, 1]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_brasil_players_play_each_for_themself(players: int) -> None:
    assert load_record("brasil", players, [ANY_HAND]).sides == tuple((s,) for s in range(1, players + 1))


def test_teams_other_than_1_3_and_2_4_are_a_notation_error() -> None:
    with pytest.raises(NotationError, match="teams may only be") as caught:
        load_record("cerrado", 4, [ANY_HAND], extra="teams = [[1, 2], [3, 4]]")
    assert caught.value.line == 4


def test_teams_in_brasil_are_a_notation_error() -> None:
    with pytest.raises(NotationError, match="has no teams"):
        load_record("brasil", 4, [ANY_HAND], extra="teams = [[1, 3], [2, 4]]")


@pytest.mark.parametrize(("dealer", "starter"), [(1, 2), (2, 3), (3, 4), (4, 1)])
def test_the_player_after_the_dealer_starts(dealer: int, starter: int) -> None:
    state = build("cerrado", [[], [], [], []], dealer=dealer).state()
    assert state.turn == starter
    for seat in range(1, 5):
        if seat != starter:
            with pytest.raises(IllegalActionError, match=f"it is p{starter}'s turn"):
                act(state, f"p{seat} draw")


def test_seat_order_is_turn_order() -> None:
    state = build("brasil", [[], [], []], stock="3c 4c 5c 6c", dealer=2).state()
    order = []
    for _ in range(4):
        seat = state.turn
        order.append(seat)
        drawn = state.stock[-1]
        state.draw(seat)
        state.discard(seat, drawn)
    assert order == [3, 1, 2, 3]


# --- broken deals and unreadable records (section 4) --------------------------------


def test_broken_deal_is_an_error_of_that_hand_not_a_notation_error() -> None:
    broken = build("cerrado", [[], []])
    broken.stock.pop()
    report = verify(load_record("cerrado", 2, [broken.hand_table()]))  # reads fine
    assert not report.valid
    error = report.hands[0].error
    assert error.kind == "illegal"
    assert error.hand == 1
    assert "does not complete the deck" in error.message


def test_first_discard_where_the_set_has_none_is_a_broken_deal_in_a_record() -> None:
    deal = build("cerrado", [[], []])
    deal.discard = deal.stock.pop()
    report = verify(load_record("cerrado", 2, [deal.hand_table()]))
    assert not report.valid
    assert "has no first discard" in report.error.message


def test_text_that_is_not_a_card_is_a_notation_error_with_line_and_column() -> None:
    deal = build("cerrado", [[], []])
    text = record("cerrado", 2, [deal.hand_table(["p1 draw", "p1 discard Xq"])])
    from buraco.notation import loads

    with pytest.raises(NotationError) as caught:
        loads(text)
    assert caught.value.line is not None and caught.value.column is not None
    assert "Xq" in caught.value.message


def test_unknown_key_is_a_notation_error_but_x_keys_are_kept() -> None:
    with pytest.raises(NotationError, match="unknown key 'colour'"):
        load_record("cerrado", 2, [ANY_HAND], extra='colour = "red"')
    assert load_record("cerrado", 2, [ANY_HAND], extra='x-colour = "red"').extra == (("x-colour", "red"),)

"""Properties of the luck of stock draws (buraco.analysis.luck) over self-play hands of
every rule set: the luck of a draw is its value minus the mean over the unseen cards, 0
when every unseen card reaches the same best result, a hand's luck is the sum of its
draws', sharing one search among the cards of a class changes no value, and a CPU budget that
runs out lists the draws left, never drops them."""

from __future__ import annotations

from fractions import Fraction

import pytest

from buraco.actions import DRAW
from buraco.analysis.luck import INERT, DrawClasses, _DrawJudge, hand_luck, match_luck, unseen_counts
from buraco.analysis.search import SearchContext
from buraco.analysis.turns import played_turns
from buraco.cards import CARD_KINDS, Card
from buraco.notation import Record
from buraco.rules import VARIANTS
from buraco.selfplay import play_match

SEEDS = (1, 2)


def record_of(variant: str, seed: int) -> Record:
    return play_match(variant, players=2, hands=1, seed=seed, mistakes=0.3)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("seed", SEEDS)
def test_a_draws_luck_is_its_value_minus_the_unseen_mean(variant: str, seed: int) -> None:
    record = record_of(variant, seed)
    hand = hand_luck(record, 0)
    stock_draws = [t for t in played_turns(record, 0).turns if t.draw.verb == DRAW]
    assert [(d.ply, d.seat, d.card) for d in hand.draws] == [(t.draw_ply, t.seat, t.draw.cards[0]) for t in stock_draws]
    for draw in hand.draws:
        assert draw.judged and draw.value is not None and draw.expected is not None and draw.luck is not None
        assert draw.luck == draw.value - draw.expected
        assert draw.low is not None and draw.high is not None
        assert draw.low <= draw.expected <= draw.high and draw.low <= draw.value <= draw.high
        if draw.low == draw.high:  # every unseen card reaches the same best result
            assert draw.luck == 0
        if draw.value == draw.expected:  # a card worth the mean
            assert draw.luck == 0
    # The hand's luck is the sum of its draws', and of its seats'.
    assert hand.luck == sum((d.luck for d in hand.draws if d.luck is not None), Fraction(0))
    assert sum(hand.by_seat.values(), Fraction(0)) == hand.luck
    for side in range(len(hand.scores)):
        assert hand.adjusted(side) == hand.scores[side] - hand.side_luck(side)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_cards_of_one_class_share_a_search_without_changing_any_value(variant: str) -> None:
    """Every stock draw of two hands: each unseen card's value with the cards' classes
    (inert cards, and cards of one rank no run could take) sharing a search and the ranks
    settled by one bound, against each card searched alone."""
    classes: set[str] = set()
    for seed in SEEDS:
        record = record_of(variant, seed)
        for turn in played_turns(record, 0).turns:
            if turn.draw.verb != DRAW:
                continue
            state = turn.before_draw
            unseen = unseen_counts(state, turn.seat)
            shared = _DrawJudge(state, SearchContext(record.rules), unseen)
            alone = _DrawJudge(state, SearchContext(record.rules))  # no rank settled at once
            alone.share = False
            for card in range(CARD_KINDS):
                if unseen[card]:
                    assert shared.value(card) == alone.value(card), (seed, turn.draw_ply, card)
                    key = shared.key(card)
                    classes.add("inert" if key == INERT else "rank" if isinstance(key, tuple) else "card")
            assert shared.searches <= alone.searches
    # The draws met both kinds of class, where the rule set has them.
    sets_share_suits = VARIANTS[variant].sets and not VARIANTS[variant].set_suits_distinct
    assert classes >= ({"inert", "rank", "card"} if sets_share_suits else {"inert", "card"})


def test_a_card_no_run_could_take_shares_its_ranks_search() -> None:
    """Where a set's cards may share a suit, a card of a rank held that no run could take
    (no card of its suit beside it, or a rank further with a wild held, no run of its suit
    on the table) shares one search with the others of its rank; a card a run could take,
    or a wild, is searched alone."""
    record = record_of("burraco", 1)
    state = played_turns(record, 0).turns[0].before_draw
    hand = [0] * CARD_KINDS
    for text in ("Kc", "Kd", "Jh", "8h"):
        hand[Card.parse(text)] += 1
    assert not state.melds
    classes = DrawClasses(state, hand)
    assert classes.of(Card.parse("Kh")) == classes.of(Card.parse("Ks")) == ("rank", 13)
    assert classes.of(Card.parse("Qh")) == Card.parse("Qh")  # beside the Jh: a run may take it
    assert classes.of(Card.parse("5d")) == INERT
    assert classes.of(Card.parse("2s")) == Card.parse("2s")
    hand[Card.parse("2c")] += 1  # a wild: the Jh, a wild and the Kh make a run
    classes = DrawClasses(state, hand)
    assert classes.of(Card.parse("Kh")) == Card.parse("Kh") and classes.of(Card.parse("Ks")) == ("rank", 13)


def test_luck_is_zero_when_every_unseen_card_reaches_the_same_result() -> None:
    """On the tables where every unseen card is inert (it could only be thrown away), the
    draw's value is the same whatever card comes: its luck is 0."""
    found = 0
    for variant in sorted(VARIANTS):
        for seed in SEEDS:
            record = record_of(variant, seed)
            for draw in hand_luck(record, 0).draws:
                if draw.low == draw.high:
                    assert draw.luck == 0 and draw.value == draw.expected
                    found += 1
    assert found  # such tables occur (the first turns often)


def test_the_unseen_cards_are_the_stock_the_other_hands_and_the_dead_piles() -> None:
    record = record_of("cerrado", 1)
    for turn in played_turns(record, 0).turns[:6]:
        state = turn.before_draw
        unseen = unseen_counts(state, turn.seat)
        seen = state.hand_sizes[turn.seat] + len(state.discard_pile) + sum(len(m.shape.cards) for m in state.melds)
        assert sum(unseen) == sum(state.deck) - seen
        assert turn.draw.verb != DRAW or unseen[turn.draw.cards[0]] >= 1


def test_a_spent_budget_lists_every_draw_unjudged() -> None:
    record = play_match("cerrado", players=2, hands=2, seed=1)
    hands = match_luck(record, match_budget=0.0)
    counted = [sum(1 for t in played_turns(record, h.hand - 1).turns if t.draw.verb == DRAW) for h in hands]
    assert [len(h.draws) for h in hands] == counted and sum(counted) > 0
    assert all(not d.judged and d.luck is None for h in hands for d in h.draws)
    assert all(h.luck == 0 and len(h.unsearched) == len(h.draws) for h in hands)
    full = match_luck(record)
    assert all(d.judged for h in full for d in h.draws)

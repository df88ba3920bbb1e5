"""Properties of the luck of stock draws (buraco.analysis.luck) over self-play hands of
every rule set: the luck of a draw is its value minus the mean over the unseen cards, 0
when every unseen card reaches the same best result, a hand's luck is the sum of its
draws', sharing one search among inert cards changes no value, and a CPU budget that
runs out lists the draws left, never drops them."""

from __future__ import annotations

from fractions import Fraction

import pytest

from buraco.actions import DRAW
from buraco.analysis.luck import _DrawJudge, hand_luck, match_luck, unseen_counts
from buraco.analysis.search import SearchContext
from buraco.analysis.turns import played_turns
from buraco.cards import CARD_KINDS
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
def test_inert_cards_share_a_search_without_changing_any_value(variant: str) -> None:
    record = record_of(variant, 1)
    checked = 0
    for turn in played_turns(record, 0).turns[:12]:
        if turn.draw.verb != DRAW:
            continue
        state = turn.before_draw
        unseen = unseen_counts(state, turn.seat)
        shared = _DrawJudge(state, SearchContext(record.rules))
        alone = _DrawJudge(state, SearchContext(record.rules))
        alone.share_inert = False
        for card in range(CARD_KINDS):
            if unseen[card]:
                assert shared.value(card) == alone.value(card), (turn.draw_ply, card)
        assert shared.searches <= alone.searches
        checked += 1
    assert checked


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

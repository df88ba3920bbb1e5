"""A take whose card no meld or lay-off could hold without a wild from the hand
(``Walk._obligation_wild_parts``): every line of its search lays the card with a wild, so the
search's cap (``Walk.root_cap``) gives one wild to the card's part of the suit-by-suit bound.
The premise is checked against the plays the engine's generator finds, and the cap against
the searches it bounds; the bound the take loop stops on (``root_bound``) stays as it was."""

from __future__ import annotations

import pytest

from buraco.actions import Action
from buraco.analysis.search import (
    SearchContext,
    Start,
    Walk,
    best_canasta_line,
    card_may_be_held,
    may_use_take,
    obligation_plays,
)
from buraco.analysis.turns import _HandJudge, played_turns
from buraco.cards import parse_cards
from buraco.melds import IS_WILD_KIND, CardToken, resolve_meld
from buraco.rules import VARIANTS
from buraco.selfplay import play_match

WITH_OBLIGATION = sorted(v for v, rules in VARIANTS.items() if rules.pickup in ("use-top", "dig"))


def takes_asking_a_wild(variant: str, seed: int, hands: int = 2) -> list[tuple[Start, Walk, Action]]:
    """Every take passed over in a self-play match whose card only a wild could place, with
    its start (which a walk holds only weakly) and its walk."""
    record = play_match(variant, players=2, hands=hands, seed=seed)
    context = SearchContext(record.rules)
    found = []
    for index in range(len(record.hands)):
        played = played_turns(record, index)
        judge = _HandJudge(record, index, played, context)
        for turn in played.turns:
            for start, take in judge.takes(turn):
                walk = Walk.at(start, context)
                if start.obligation is not None and walk._obligation_wild_parts() is not None:
                    found.append((start, walk, take))
    return found


@pytest.mark.parametrize("variant", WITH_OBLIGATION)
def test_every_play_meeting_an_obligation_the_counts_give_to_a_wild_lays_one(variant: str) -> None:
    found = takes_asking_a_wild(variant, seed=11)
    assert found, variant  # the premise is reached
    for _start, walk, take in found:
        for _kind, _index, play in obligation_plays(walk):
            assert any(IS_WILD_KIND[card] for card in play.laid), (variant, take, play)


def test_the_cap_bounds_every_line_and_is_tighter_than_the_bound_somewhere() -> None:
    tighter = 0
    for start, walk, take in takes_asking_a_wild("brasil", seed=3, hands=3):
        cap, bound = walk.root_cap(), walk.root_bound()
        assert cap <= bound
        tighter += cap < bound
        if not may_use_take(start, walk.context):
            continue
        best = best_canasta_line(start, None, -1, SearchContext(start.base.variant))
        if best is not None:
            assert best.bonus <= cap, (take, best.bonus, cap)
    assert tighter


def test_a_run_whose_wild_stays_bridges_no_gap_to_the_card() -> None:
    """In brasil a wild on the table stays: 5c 6c 7c 2h 9c cannot take a Jc without the Tc,
    so the Jc is the hand's to meld with a wild; where wilds move the counts allow it."""
    hand = [0] * 53
    for code in parse_cards("Jc Js Qc 8c"):
        hand[code] += 1
    jack = parse_cards("Jc")[0]
    for variant, held in (("brasil", False), ("abierto", True)):
        rules = VARIANTS[variant]
        run = resolve_meld([CardToken(c) for c in parse_cards("5c 6c 7c 2h 9c")], rules)
        assert card_may_be_held(jack, hand, False, [run], [], rules) is held
    clean = resolve_meld([CardToken(c) for c in parse_cards("7c 8c 9c")], VARIANTS["brasil"])
    assert card_may_be_held(jack, hand, True, [clean], [], VARIANTS["brasil"])  # the hand's wild as the Tc
    assert not card_may_be_held(jack, hand, False, [clean], [], VARIANTS["brasil"])


def test_the_bound_the_take_loop_stops_on_only_shrinks_with_shallower_takes() -> None:
    """``_HandJudge.canasta_chance`` weighs the takes deepest first and stops at the first
    whose ``root_bound`` cannot beat what it seeks: that bound must not grow as the takes get
    shallower, which ``root_cap`` may (a deeper take's card may ask a wild where a
    shallower one's does not). A first version put the cap in the bound and lost findings."""
    record = play_match("brasil", players=2, hands=2, seed=1)
    context = SearchContext(record.rules)
    cap_grew = 0
    for index in range(len(record.hands)):
        played = played_turns(record, index)
        judge = _HandJudge(record, index, played, context)
        for turn in played.turns[:60]:
            bounds = [(Walk.at(start, context).root_bound(), Walk.at(start, context).root_cap(), start)
                      for start, _take in judge.takes(turn)]
            for (deeper, deeper_cap, _start), (shallower, cap, _) in zip(bounds, bounds[1:], strict=False):
                assert shallower <= deeper, (turn.draw_ply, shallower, deeper)
                cap_grew += cap > deeper_cap
    assert cap_grew  # where the cap grew with a shallower take, a loop stopping on it would lose that take

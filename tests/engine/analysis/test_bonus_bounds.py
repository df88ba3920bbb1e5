"""The bound from card counts on what a meld can become (``meld_bonus_bound``) never
falls below what lay-offs really make of it: checked against every sequence of lay-offs
from small hands, on runs with no wild, a 2 of their suit (which may turn natural where
wilds move), another suit's 2 or a joker, in every rule set; and is exact on the cases the
wild's rules decide (a wild moves only for its natural card; a suit's 2 is clean only at
place 2). Also the run windows it is built on, against their definition."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator

import pytest

from buraco.analysis import turns as turns_module
from buraco.analysis.proposals import Proposals
from buraco.analysis.search import (
    CountedTable,
    MeldState,
    SearchContext,
    Start,
    Walk,
    _counts_of,
    meld_bonus_bound,
    sets_hold_canastas,
)
from buraco.analysis.turns import played_turns
from buraco.cards import CARD_KINDS, parse_cards
from buraco.errors import BuracoError
from buraco.melds import CardToken, Shape, canasta_bonus, canasta_kind, founding_of, moved_founding, resolve_meld
from buraco.replay import deal_hand
from buraco.rules import VARIANTS, Variant
from buraco.selfplay import play_match
from buraco.state import PLAY_STEP

MOVING = [v for v in VARIANTS.values() if v.wild_move != "fixed"]


def run_of(text: str, variant: Variant) -> Shape:
    return resolve_meld([CardToken(card) for card in parse_cards(text)], variant)


def best_reached(
    variant: Variant, proposals: Proposals, shape: Shape, founding: int, hand: list[int], seen: set[object] | None = None
) -> int:
    """The most canasta bonus any sequence of lay-offs from ``hand`` leaves on the meld
    (``seen``: the tables walked, as a wild moved alone can come back to where it was)."""
    seen = set() if seen is None else seen
    key = (shape, founding, tuple(hand))
    if key in seen:
        return 0
    seen.add(key)
    best = canasta_bonus(canasta_kind(shape, variant, founding), variant)
    for play in proposals.lay_offs(shape, hand).plays:
        if any(hand[card] < play.laid.count(card) for card in set(play.laid)):
            continue
        for card in play.laid:
            hand[card] -= 1
        moved = moved_founding(founding, play.wild_from, play.wild_to) if founding else founding
        best = max(best, best_reached(variant, proposals, play.shape, moved, hand, seen))
        for card in play.laid:
            hand[card] += 1
    return best


def melds_and_hands(texts: list[str], pool: str, sizes: tuple[int, ...], variant: Variant) -> Iterator[tuple[str, Shape, list[int]]]:
    """Each of ``texts`` the rule set allows as a meld, with each hand of ``sizes`` cards
    drawn from ``pool`` (as counts)."""
    for text in texts:
        try:
            shape = run_of(text, variant)
        except BuracoError:
            continue  # not a meld this rule set allows
        for size in sizes:
            for cards in itertools.combinations(parse_cards(pool), size):
                hand = [0] * CARD_KINDS
                for card in cards:
                    hand[card] += 1
                yield text, shape, hand


def counts(text: str) -> list[int]:
    hand = [0] * CARD_KINDS
    for card in parse_cards(text):
        hand[card] += 1
    return hand


@pytest.mark.parametrize("variant", MOVING, ids=lambda v: v.id)
def test_a_run_whose_wild_is_its_suits_2_is_clean_only_with_place_2(variant: Variant) -> None:
    """The 2 stays in the meld: clean only as the natural 2, so the clean window holds place
    2. With 9d the run below fills 4..11 without a gap, yet the 2d is still its wild."""
    shape = run_of("4d 5d 6d 7d 8d 2d Td Jd", variant)
    meld = MeldState(1, shape, 0, 1, founding_of(shape))
    hand = counts("9d Qd 5s")
    bound = meld_bonus_bound(variant, meld, hand)
    assert bound == canasta_bonus("dirty", variant)
    assert best_reached(variant, Proposals(variant), shape, meld.founding, hand) == bound
    # With the 3d too the 2d can turn natural below it: clean is then within reach.
    hand = counts("9d 3d")
    bound = meld_bonus_bound(variant, meld, hand)
    assert bound == canasta_bonus("clean", variant)
    assert best_reached(variant, Proposals(variant), shape, meld.founding, hand) == bound


@pytest.mark.parametrize("variant", [v for v in MOVING if v.wild_move != "anywhere"], ids=lambda v: v.id)
def test_a_wild_whose_natural_is_not_held_stays_where_it_is(variant: Variant) -> None:
    """5d..9d with the 2c at 10: the 3d alone would need the wild at 4, and the wild leaves 10
    only for the Td. With the Td too, both laid at once, it fills the gap the 3d leaves."""
    shape = run_of("5d 6d 7d 8d 9d 2c", variant)
    meld = MeldState(1, shape, 0, 1, founding_of(shape))
    proposals = Proposals(variant)
    for text, expected in (("3d Ks", 0), ("3d Td", canasta_bonus("dirty", variant))):
        hand = counts(text)
        assert meld_bonus_bound(variant, meld, hand) == expected
        assert best_reached(variant, proposals, shape, meld.founding, hand) == expected


@pytest.mark.parametrize("variant", list(VARIANTS.values()), ids=lambda v: v.id)
def test_a_hands_one_wild_being_the_suits_2_fills_place_2_or_a_gap_not_both(variant: Variant) -> None:
    """4d..8d with the 2d as the hand's one wild: at place 2 it needs the 3d, as a wild it
    makes seven only with the 9d (or the 3d)."""
    shape = run_of("4d 5d 6d 7d 8d", variant)
    meld = MeldState(1, shape, 0, 1, founding_of(shape))
    proposals = Proposals(variant)
    for text, expected in (("2d Jh Qh", 0), ("2d 9d", canasta_bonus("dirty", variant)), ("2d 3d", canasta_bonus("clean", variant))):
        hand = counts(text)
        assert meld_bonus_bound(variant, meld, hand) == expected, text
        assert best_reached(variant, proposals, shape, meld.founding, hand) == expected, text


@pytest.mark.parametrize("variant", list(VARIANTS.values()), ids=lambda v: v.id)
def test_the_bound_holds_every_lay_off_sequence(variant: Variant) -> None:
    """Runs with no wild, their suit's 2, another suit's 2 or a joker as the wild, and hands
    of up to three cards from a pool holding naturals of the suit and wilds. (The bound
    once missed a 2 turned natural at place 2 with a wild from the hand beside it:
    3h 4h 5h 6h 2h, then 7h and 2c, is a dirty canasta it put at nothing.)"""
    proposals = Proposals(variant)
    runs = [
        "5h 6h 2h 8h 9h", "3h 4h 5h 6h 2h", "6h 7h 8h 9h 2h Jh", "Ah 2h 3h 4h 5h", "8h 9h Th 2h Qh Kh",
        "5h 6h 7h 8h 9h", "5h 6h 2c 8h 9h", "9h Th Jh Qh Kh Ah", "Th Jh Qh 2s Ah", "4h 5h 6h 7h 2s",
        "3h 4h 5h 6h", "4h 5h 6h 7h 8h",
    ]
    pool = "Ah 2h 3h 4h 7h 9h Th Jh Qh Kh 2c"
    if variant.jokers:
        runs += ["5h 6h JK 8h 9h", "Ah 2h 3h JK 5h 6h"]
        pool += " JK"
    checked = 0
    for text, shape, hand in melds_and_hands(runs, pool, (1, 2, 3), variant):
        meld = MeldState(1, shape, 0, 1, founding_of(shape))
        reached = best_reached(variant, proposals, shape, meld.founding, hand)
        assert meld_bonus_bound(variant, meld, hand) >= reached, (text, hand)
        checked += 1
    assert checked > 1000


def test_window_lengths_is_the_longest_window_by_its_definition() -> None:
    """The one-pass ``_window_lengths`` against every window of 1..14, on a seventh of the
    fills of the 14 places (spread over them all) and spans of one and five places."""
    from buraco.analysis.search import _window_lengths

    for bits in range(0, 1 << 14, 7):  # a seventh of all fills, spread over them
        fill = bytes([0] + [bits >> i & 1 for i in range(14)])
        for gaps in (0, 1):
            for low, high in [(0, 0), *((a, b) for a in range(1, 15, 3) for b in (a, min(14, a + 4)))]:
                expected = max(
                    (b - a + 1 for a in range(1, 15) for b in range(a, 15)
                     if (not low or (a <= low and b >= high)) and sum(not fill[p] for p in range(a, b + 1)) <= gaps),
                    default=0,
                )
                assert _window_lengths(fill, low, high, gaps) == expected, (bits, low, high, gaps)



def _walk(variant: Variant) -> Walk:
    """A walk at the first play step of a self-play hand (``kind_bound`` reads only its hand)."""
    record = play_match(variant.id, players=2, hands=1, seed=1)
    state = deal_hand(record, 0)
    for action in record.hands[0].parsed:
        if state.step == PLAY_STEP:
            break
        state.apply(action)
    return Walk.at(Start.after(state), SearchContext(variant))


@pytest.mark.parametrize("variant", list(VARIANTS.values()), ids=lambda v: v.id)
def test_a_dirty_canasta_whose_wild_is_not_its_suits_2_stays_dirty_whatever_the_hand(variant: Variant) -> None:
    """``kind_bound`` answers such a canasta without reading the hand (its wild never leaves
    the meld): the same as the bound read from the hand and as every sequence of lay-offs
    from hands of up to three cards. A run whose wild is its suit's 2 is still read from
    the hand: with the 9h and 3h, where wilds move, the 2h turns natural and the run clean."""
    walk = _walk(variant)
    proposals = Proposals(variant)
    melds = ["5h 6h 2c 8h 9h Th Jh", "4h 5h 6h 7h 8h 9h 2s"]
    pool = "3h Th Qh 7h 2h 2c"
    if variant.jokers:
        melds.append("5h 6h JK 8h 9h Th Jh")
        pool += " JK"
    if variant.sets and (variant.set_max is None or variant.set_max >= 7):
        melds.append("9h 9s 9d 9c 9h 9s 2c")
        pool += " 9d"
    dirty = canasta_bonus("dirty", variant)
    checked = 0
    for text, shape, hand in melds_and_hands(melds, pool, (0, 1, 2, 3), variant):
        assert canasta_kind(shape, variant) == "dirty"
        meld = MeldState(1, shape, walk.side, walk.seat, founding_of(shape))
        walk.hand = hand
        assert walk.kind_bound(meld) == dirty == meld_bonus_bound(variant, meld, hand), (text, hand)
        assert best_reached(variant, proposals, shape, meld.founding, list(hand)) == dirty, (text, hand)
        checked += 1
    assert checked >= 84  # two runs every rule set allows, 42 hands each
    if variant.wild_move != "fixed":
        shape = run_of("4h 5h 6h 7h 8h 2h Th Jh", variant)
        meld = MeldState(1, shape, walk.side, walk.seat, founding_of(shape))
        walk.hand = counts("9h 3h")
        assert walk.kind_bound(meld) == canasta_bonus("clean", variant) == best_reached(variant, proposals, shape, meld.founding, list(walk.hand))


@pytest.mark.parametrize("variant", list(VARIANTS.values()), ids=lambda v: v.id)
def test_the_bonuses_rise_from_dirty_to_clean_to_the_runs_of_aces(variant: Variant) -> None:
    """What ``StartTable.may_qualify`` rests on: a canasta going out may count on is
    bounded at its own bonus at least, and that is at least the bonus going out needs."""
    need = variant.bonus_clean if variant.out_needs_clean else variant.bonus_dirty
    assert variant.bonus_dirty <= variant.bonus_clean
    assert all(bonus >= need for bonus in (variant.bonus_ace_to_king, variant.bonus_ace_to_ace) if bonus)  # 0: no such kind


@pytest.mark.parametrize("variant", list(VARIANTS.values()), ids=lambda v: v.id)
def test_a_starts_bounds_worked_out_once_agree_with_the_walks(variant: Variant) -> None:
    """A start's table answers the canasta bound and going out's quick test from its meld
    bounds worked out once; a walk at the same table works them out meld by meld as plays
    go. Both at every turn's start of a played match, and at every take passed over."""
    record = play_match(variant.id, players=2, hands=2, seed=11)
    context = SearchContext(variant)
    compared = qualified = 0
    for index in range(len(record.hands)):
        played = played_turns(record, index, context)
        judge = turns_module._HandJudge(record, index, played, context)  # for the takes passed over
        for turn in played.turns:
            for start in (turn.start(), *(start for start, _ in judge.takes(turn))):
                table = start.counted(context)
                walk = Walk(start, context)  # not Walk.at: a walk of its own, nothing read yet
                assert table.bonus_bound() == CountedTable.bonus_bound(walk)
                assert table.may_qualify() == CountedTable.may_qualify(walk)
                assert table.new_bound(single=True) == CountedTable.new_bound(walk, single=True)
                compared += 1
                qualified += table.may_qualify()
        context.forget_hand()
    assert compared >= 100 and 0 < qualified < compared


@pytest.mark.parametrize("variant_id", ["brasil", "cerrado"])
def test_turns_holding_the_very_same_melds_share_one_reading_of_them(variant_id: str) -> None:
    """A context reads a table's melds once for the tables of one turn after another that
    hold the very same melds (and so the side's melds the bounds read, once): each table's
    reading is still what a fresh context reads of it alone."""
    record = play_match(variant_id, players=2, hands=2, seed=11)
    context = SearchContext(record.rules)
    shared = changed = 0
    for index in range(len(record.hands)):
        played = played_turns(record, index, context)
        readings = [context.table_of(turn.before_draw) for turn in played.turns]
        for turn, reading in zip(played.turns, readings):
            assert reading == SearchContext(record.rules).table_of(turn.before_draw)
            side = turn.side
            read = [m for m, *_ in context.side_melds(reading[0], side)]
            assert read == [m for m in reading[0] if m.side == side and (m.shape.is_run or sets_hold_canastas(record.rules))]
        for (earlier, before), (later, after) in zip(zip(played.turns, readings), zip(played.turns[1:], readings[1:])):
            if earlier.before_draw.melds == later.before_draw.melds:
                assert after[0] is before[0]
                shared += 1
            else:
                changed += 1
        context.forget_hand()
    assert shared > 0 and changed > 0


def test_a_take_built_from_the_deeper_take_is_the_take_built_from_the_table() -> None:
    """In ``dig`` the takes passed over are built deepest first, each from the deeper one
    before it (its hand less the cards it took more, counted from it where it was counted):
    the hand, obligation and counts are those of the take built from the table."""
    record = play_match("brasil", players=2, hands=2, seed=3)
    context = SearchContext(record.rules)
    derived = 0
    for index in range(len(record.hands)):
        played = played_turns(record, index, context)
        judge = turns_module._HandJudge(record, index, played, context)
        for turn in played.turns:
            for start, take in judge.takes(turn):
                if "_counts" in start.__dict__:  # counted from the deeper take
                    derived += 1
                assert start.counts() == _counts_of(start.hand)
                built = Start.taking(turn.before_draw, take)
                assert (start.hand, start.obligation) == (built.hand, built.obligation)
        context.forget_hand()
    assert derived > 0


@pytest.mark.parametrize("variant", list(VARIANTS.values()), ids=lambda v: v.id)
def test_a_walks_bound_read_slot_by_slot_is_the_sum_over_its_melds(variant: Variant) -> None:
    """A walk reads its bound from card counts slot by slot (the runs of a suit, the sets
    of a rank), each slot's sum remembered: at every table of random lines of lay-offs and
    new melds from the turns of played hands, and back after each line is undone, it is
    the sum over the side's melds (:meth:`CountedTable.bonus_bound`)."""
    rng = random.Random(7)
    record = play_match(variant.id, players=2, hands=3, seed=5)
    context = SearchContext(variant)
    compared = grown = 0
    for index in range(len(record.hands)):
        for turn in played_turns(record, index, context).turns:
            # The whole pile in hand besides: more cards, more melds that could grow.
            hand = list(turn.start().hand)
            for card in turn.before_draw.discard_pile:
                hand[card] += 1
            root = Walk(Start.holding(turn.before_draw, tuple(hand)), context)
            walk = root.fork()
            undo: list[tuple[str, object, object]] = []
            for _ in range(4):
                options: list[tuple[str, int, object]] = [
                    ("add", place, play)
                    for place, meld in enumerate(walk.melds) if walk.may_extend(meld)
                    for play in walk.proposals.lay_offs(meld.shape, walk.hand).plays
                ]
                options += [("meld", -1, play) for suit in range(4) for play in walk.proposals.run_melds(suit, walk.hand).plays]
                if variant.sets:
                    options += [("meld", -1, play) for rank in (1, *range(3, 14)) for play in walk.proposals.set_melds(rank, walk.hand).plays]
                options = [o for o in options if len(o[2].laid) < walk.size]  # type: ignore[attr-defined]
                if not options:
                    break
                new_melds = [o for o in options if o[0] == "meld"]
                kind, place, play = rng.choice(new_melds if new_melds and rng.random() < 0.5 else options)
                if kind == "add":
                    undo.append((kind, play, walk.lay_off(place, play)))  # type: ignore[arg-type]
                else:
                    undo.append((kind, play, walk.meld(play)))  # type: ignore[arg-type]
                assert walk.bonus_bound() == CountedTable.bonus_bound(walk)
                compared += 1
                grown += walk.bonus_bound() > walk.bonus
            assert root.bonus_bound() == CountedTable.bonus_bound(root)  # the fork's plays left it as it was
            for kind, play, done in reversed(undo):
                if kind == "add":
                    walk.undo_lay_off(play, done)  # type: ignore[arg-type]
                else:
                    walk.undo_meld(play, done)  # type: ignore[arg-type]
            assert walk.bonus_bound() == CountedTable.bonus_bound(walk)
        context.forget_hand()
    assert compared >= 100 and grown

"""A table of plays the proposals share between hands by what the generator reads of them
(:func:`~buraco.analysis.proposals.lay_off_reading` for lay-offs, the projection capped
for new melds), or derive for new melds from a table judged for a hand holding more
(``Proposals._within``), holds the very plays, in the very order, that judging the asking
hand afresh gives: in all nine rule sets, at every table the searches of self-play hands ask."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

import pytest

from buraco.analysis.proposals import _RUN_ACE_AT, RUN_CODES, RUN_PROJECTIONS, LayOffTable, MeldTable, Proposals
from buraco.cards import CARD_KINDS, JOKER_CODE, card_of, parse_cards
from buraco.melds import CardToken, Shape, resolve_meld
from buraco.moves import WILD_CODES, counts_of, rank_set_melds, suit_run_melds
from buraco.rules import VARIANTS

from .builders import search_self_play


@pytest.mark.interpreted  # replaces the proposals' methods: the compiled searches would not see it
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_table_shared_by_reading_holds_the_asking_hands_own_plays(variant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: Counter[str] = Counter()
    lay_offs, run_melds, set_melds = Proposals.lay_offs, Proposals.run_melds, Proposals.set_melds

    def checked_lay_offs(proposals: Proposals, shape: Shape, hand: Sequence[int]) -> LayOffTable:
        projections, readings = len(proposals._lay_offs), len(proposals._lay_offs_read)
        table = lay_offs(proposals, shape, hand)
        own = Proposals(proposals.variant)._judge_lay_offs(shape, hand)
        assert table.plays == own.plays, (variant, shape, list(hand))
        seen["lay-off tables"] += 1
        # A projection not seen before, whose reading was: the table judged for another hand.
        seen["lay-off tables shared by reading"] += len(proposals._lay_offs) > projections and len(proposals._lay_offs_read) == readings
        return table

    def checked_runs(proposals: Proposals, suit: int, hand: Sequence[int]) -> MeldTable:
        projections, readings = len(proposals._runs), len(proposals._melds_read)
        table = run_melds(proposals, suit, hand)
        assert table.plays == Proposals(proposals.variant)._judge_melds(suit_run_melds(hand, suit)).plays, (variant, suit)
        seen["run tables shared by reading"] += len(proposals._runs) > projections and len(proposals._melds_read) == readings
        return table

    def checked_sets(proposals: Proposals, rank: int, hand: Sequence[int]) -> MeldTable:
        table = set_melds(proposals, rank, hand)
        own = Proposals(proposals.variant)._judge_melds(rank_set_melds(proposals.variant, hand, rank))
        assert table.plays == own.plays, (variant, rank)
        seen["set tables"] += 1
        return table

    within = Proposals._within

    def counted_within(proposals: Proposals, slot: int, *args: object) -> MeldTable | None:
        table = within(proposals, slot, *args)  # type: ignore[arg-type]
        seen["run tables derived" if slot < 4 else "set tables derived"] += table is not None
        return table

    monkeypatch.setattr(Proposals, "_within", counted_within)
    monkeypatch.setattr(Proposals, "lay_offs", checked_lay_offs)
    monkeypatch.setattr(Proposals, "run_melds", checked_runs)
    monkeypatch.setattr(Proposals, "set_melds", checked_sets)
    search_self_play(variant, (3, 4))
    assert seen["lay-off tables"], f"no search of {variant} asked for lay-offs"
    assert seen["lay-off tables shared by reading"], f"no lay-off table of {variant} was shared by its reading"
    assert seen["run tables derived"], f"no run table of {variant} was derived from a larger hand's"
    if VARIANTS[variant].sets:
        assert seen["set tables derived"], f"no set table of {variant} was derived from a larger hand's"
    if variant == "brasil":  # two copies of a card held are common there: elsewhere these hands may share none
        assert seen["run tables shared by reading"], "no run table of brasil was shared by its reading"
    if VARIANTS[variant].sets:
        assert seen["set tables"], f"no search of {variant} asked for sets"


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_new_melds_of_a_hand_holding_fewer_cards_are_the_larger_hands_it_holds(variant: str) -> None:
    """Random hands and hands holding fewer of their cards, asked one after the other of
    one set of proposals (so the smaller hand's tables are derived where they can be): the
    plays are those the smaller hand's own proposals judge afresh, in their order."""
    rules = VARIANTS[variant]
    rng = random.Random(f"within {variant}")
    derived = 0
    for _ in range(150):
        suit, rank = rng.randrange(4), rng.choice((1, *range(3, 14)))
        focus = [card_of(place, suit) for place in range(1, 14)] + [(rank - 1) * 4 + s for s in range(4)] + list(WILD_CODES)
        larger = [0] * CARD_KINDS
        for _ in range(rng.randint(4, 24)):
            card = rng.choice(focus)
            larger[card] = min(larger[card] + 1, 4 if card == JOKER_CODE else 2)
        proposals = Proposals(rules)
        proposals.run_melds(suit, larger)
        proposals.set_melds(rank, larger)
        hand = list(larger)
        for card in rng.sample([c for c in range(CARD_KINDS) for _ in range(larger[c])], rng.randint(1, 3)):
            hand[card] -= 1
            fresh = Proposals(rules)
            # Whether the run table will be derived (asked first: _within only reads).
            derived += proposals._within(suit, RUN_PROJECTIONS[suit](hand), hand, RUN_CODES[suit], _RUN_ACE_AT[suit]) is not None
            assert proposals.run_melds(suit, hand).plays == fresh.run_melds(suit, hand).plays, (variant, larger, hand)
            assert proposals.set_melds(rank, hand).plays == fresh.set_melds(rank, hand).plays, (variant, larger, hand)
    assert derived, f"no run table of {variant} was derived"


@pytest.mark.parametrize("variant", sorted(v for v, rules in VARIANTS.items() if rules.ace_to_ace))
def test_a_run_with_one_ace_fewer_is_judged_afresh(variant: str) -> None:
    """With two aces, A..A may hold a wild for one ace and the other natural: one ace
    alone is not proposed that (the other place is read as held), so such a hand's runs
    are not derived from the two aces' table."""
    rules = VARIANTS[variant]
    larger = counts_of(parse_cards("Ah Ah 2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh 2c"))
    hand = counts_of(parse_cards("Ah 2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh 2c"))
    proposals = Proposals(rules)
    proposals.run_melds(2, larger)
    assert proposals.run_melds(2, hand).plays == Proposals(rules).run_melds(2, hand).plays


@pytest.mark.parametrize("variant", sorted(v for v, rules in VARIANTS.items() if rules.ace_to_ace))
def test_lay_offs_with_one_ace_fewer_are_not_shared(variant: str) -> None:
    """Both ends of 2h..Kh take an ace with two held, one end with one: the two hands read
    the same places beyond the run, and differ in the aces counted."""
    rules = VARIANTS[variant]
    run = resolve_meld([CardToken(c) for c in parse_cards("2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh")], rules)
    proposals = Proposals(rules)
    two = proposals.lay_offs(run, counts_of(parse_cards("Ah Ah 5c")))
    one = proposals.lay_offs(run, counts_of(parse_cards("Ah 5c")))
    assert one.plays == Proposals(rules).lay_offs(run, counts_of(parse_cards("Ah 5c"))).plays
    assert len(two.plays) > len(one.plays)

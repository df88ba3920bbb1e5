"""The plays the canasta search branches on, as the proposals tables remember them
(``LayOffTable.raising``, ``MeldTable.canastas``), are exactly those the search picked
out of each table's plays itself before they were remembered: checked on every table the
turns of self-play hands meet, in every rule set."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from buraco.analysis.proposals import LayOff, NewMeld, Proposals
from buraco.analysis.turns import played_turns
from buraco.cards import parse_cards
from buraco.melds import CardToken, canasta_bonus, canasta_kind, founding_of, moved_founding
from buraco.moves import counts_of
from buraco.rules import VARIANTS, Variant
from buraco.selfplay import play_match
from buraco.state import HandState


def raising_by_hand(variant: Variant, plays: tuple[LayOff, ...], is_run: bool, founding: int, was: int) -> list[tuple[int, LayOff]]:
    """The lay-offs leaving the meld a better canasta, with the gain, as the search read them."""
    found: list[tuple[int, LayOff]] = []
    seen: set[tuple[CardToken, ...]] = set()
    for play in plays:
        if len(play.shape.cards) < 7 or play.tokens in seen:
            continue
        after = moved_founding(founding, play.wild_from, play.wild_to) if is_run and founding else founding
        gain = canasta_bonus(canasta_kind(play.shape, variant, after), variant) - was
        if gain > 0:
            seen.add(play.tokens)
            found.append((gain, play))
    return found


def canastas_by_hand(variant: Variant, plays: tuple[NewMeld, ...]) -> list[tuple[int, NewMeld]]:
    found: list[tuple[int, NewMeld]] = []
    seen: set[tuple[CardToken, ...]] = set()
    for play in plays:
        if len(play.laid) < 7 or play.tokens in seen:
            continue
        kind = canasta_kind(play.shape, variant, founding_of(play.shape))
        if kind is not None:
            seen.add(play.tokens)
            found.append((canasta_bonus(kind, variant), play))
    return found


# Hands holding a new canasta to lay whatever the table: a run of hearts with a joker
# and a club 2, and seven fives with a joker.
LONG_HANDS = ("3h 4h 5h 6h 7h 8h 9h Th JK 2c", "5c 5d 5h 5s 5c 5d 5h JK")


def tables(variant_id: str, seeds: range) -> Iterator[tuple[HandState, list[int]]]:
    """Each turn's table and the hand of the player to move there, with the whole pile
    taken (more cards: more canastas to be had), and with each of LONG_HANDS."""
    for seed in seeds:
        record = play_match(variant_id, players=2, hands=1, seed=seed)
        for turn in played_turns(record, 0).turns:
            state = turn.before_draw
            hand = list(state.hands[turn.seat])
            for card in state.discard_pile:
                hand[card] += 1
            yield state, hand
            for text in LONG_HANDS:
                yield state, counts_of(parse_cards(text))


@pytest.mark.parametrize("variant_id", sorted(VARIANTS))
def test_remembered_raising_plays_are_the_searchs_own(variant_id: str) -> None:
    variant = VARIANTS[variant_id]
    proposals = Proposals(variant)
    raising = canastas = 0
    for state, hand in tables(variant_id, range(3)):
        for meld in state.melds:
            table = proposals.lay_offs(meld.shape, hand)
            was = canasta_bonus(canasta_kind(meld.shape, variant, meld.founding), variant)
            expected = raising_by_hand(variant, table.plays, meld.shape.is_run, meld.founding, was)
            assert list(table.raising(meld.founding, was, variant)) == expected
            assert list(table.raising(meld.founding, was, variant)) == expected  # remembered, the same
            raising += len(expected)
        for suit in range(4):
            new_runs = proposals.run_melds(suit, hand)
            expected_runs = canastas_by_hand(variant, new_runs.plays)
            assert list(new_runs.canastas(variant)) == expected_runs
            canastas += len(expected_runs)
        if variant.sets:
            for rank in (1, *range(3, 14)):
                new_sets = proposals.set_melds(rank, hand)
                expected_sets = canastas_by_hand(variant, new_sets.plays)
                assert list(new_sets.canastas(variant)) == expected_sets
                canastas += len(expected_sets)
    assert raising and canastas  # the hands met both, or the test checked nothing

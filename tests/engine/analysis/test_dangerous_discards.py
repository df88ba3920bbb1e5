"""Dangerous discards: the discard fits a meld on the table that the next player may
extend (their side's melds; anyone's in brasil), a discard that fitted none was in hand
and legal, and the next player then took the pile with it (the issue's contract).

``points`` is the value of the cards taken (rules.md section 3). Each finding's witness
is the turn as played up to a discard that fits no meld the next player may extend.
"""

from __future__ import annotations

import pytest

from buraco.analysis import DANGEROUS_DISCARD
from buraco.analysis.turns import _may_fit_run
from buraco.cards import CARDS, JOKER_CODE, SUIT_OF, card_of
from buraco.errors import BuracoError
from buraco.melds import IS_WILD_KIND, CardToken, Shape, resolve_add
from buraco.notation import Record
from buraco.rules import VARIANTS

from ..helpers import ALL_IDS, V, build, play
from .builders import check_discard_finding, found, only, pile_taken_value, ply_of, record_of


def scripted(variant_id: str, hands: list[str], stock: str, *actions: str, players: int | None = None) -> Record:
    deal = build(variant_id, hands, stock=stock, players=players)
    state = deal.state()
    play(state, *actions)
    return record_of(deal, state)


# p2 lays 5h 6h 7h; p1 throws 8h (holding cards that fit nothing); then ``after``.
def eight_of_hearts(after: tuple[str, ...], variant_id: str = "cerrado") -> Record:
    return scripted(
        variant_id, ["8h", "5h 6h 7h"], "Kd Qs Jd Kc",
        "p1 draw", "p1 discard Kd",
        "p2 draw", "p2 meld 5h 6h 7h", "p2 discard Qs",
        "p1 draw", "p1 discard 8h",
        *after,
    )


@pytest.mark.parametrize("variant_id", [v for v in ALL_IDS if v != "brasil"])
def test_it_finds_a_discard_that_handed_the_next_player_the_pile(variant_id: str) -> None:
    record = eight_of_hearts(("p2 take", "p2 add m1 8h", "p2 discard Qs"), variant_id)
    finding = only(record, DANGEROUS_DISCARD)
    assert (finding.ply, finding.seat, finding.side) == (ply_of(record, "p1 discard 8h"), 1, 1)
    # Kd Qs 8h, the pile p2 took, 10 each; burraco and burraco-106 turn up a first discard (Ks)
    assert finding.points == 10 + 10 + 10 + (10 if V(variant_id).first_discard else 0)
    assert finding.points == pile_taken_value(record, finding)
    assert finding.witness[0] == "p1 draw Jd" and finding.witness[-1] != "p1 discard 8h"
    check_discard_finding(record, finding)


def test_it_reports_nothing_when_the_next_player_drew_instead() -> None:
    record = eight_of_hearts(("p2 draw", "p2 discard Kc"))
    assert found(record, DANGEROUS_DISCARD) == []


def test_it_reports_nothing_when_every_legal_discard_fitted_a_meld() -> None:
    """p1 is down to 8h and draws 4h: both fit p2's 5h 6h 7h, no discard was safe."""
    record = scripted(
        "cerrado", ["3c 4c 5c 6c 7c 8c 9c Jd Qd Kd 8h", "5h 6h 7h"], "Ks Qs 4h",
        "p1 draw", "p1 meld 3c 4c 5c 6c 7c 8c 9c", "p1 meld Jd Qd Kd", "p1 discard Ks",
        "p2 draw", "p2 meld 5h 6h 7h", "p2 discard Qs",
        "p1 draw", "p1 discard 8h",
        "p2 take", "p2 add m3 8h", "p2 discard Qs",
    )
    assert found(record, DANGEROUS_DISCARD) == []


def test_it_counts_the_next_players_partners_melds() -> None:
    """cerrado, four players: the 8h fits p4's 5h 6h 7h, and p2 (p4's partner) takes it."""
    record = scripted(
        "cerrado", ["8h", "", "", "5h 6h 7h"], "Kd Qs Kc Jd Qc Js",
        "p1 draw", "p1 discard Kd", "p2 draw", "p2 discard Qs", "p3 draw", "p3 discard Kc",
        "p4 draw", "p4 meld 5h 6h 7h", "p4 discard Jd",
        "p1 draw", "p1 discard 8h",
        "p2 take", "p2 add m1 8h", "p2 discard Qs",
        players=4,
    )
    finding = only(record, DANGEROUS_DISCARD)
    assert (finding.ply, finding.seat, finding.side) == (ply_of(record, "p1 discard 8h"), 1, 1)
    assert finding.points == pile_taken_value(record, finding) == 10 * 5  # Kd Qs Kc Jd 8h
    check_discard_finding(record, finding)


def test_it_counts_the_discarders_own_meld_in_brasil() -> None:
    """brasil: anyone lays off on anyone's meld, so 8h onto p1's own 5h 6h 7h is a gift;
    p2 takes the top card alone (8 points, face value)."""
    record = scripted(
        "brasil", ["5h 6h 7h 8h", "Kc"], "Kd Qs Jd",
        "p1 draw", "p1 meld 5h 6h 7h", "p1 discard Kd",
        "p2 draw", "p2 discard Qs",
        "p1 draw", "p1 discard 8h",
        "p2 take 1", "p2 add m1 8h", "p2 discard Kc",
    )
    finding = only(record, DANGEROUS_DISCARD)
    assert (finding.ply, finding.points) == (ply_of(record, "p1 discard 8h"), 8)
    assert finding.points == pile_taken_value(record, finding)
    check_discard_finding(record, finding)


def test_it_does_not_count_the_discarders_own_meld_outside_brasil() -> None:
    """cerrado: the 8h fits p1's own 5h 6h 7h, which p2 may not extend; p2 takes the pile
    for a set of eights of its own."""
    record = scripted(
        "cerrado", ["5h 6h 7h 8h", "8c 8d"], "Kd Qs Jd",
        "p1 draw", "p1 meld 5h 6h 7h", "p1 discard Kd",
        "p2 draw", "p2 discard Qs",
        "p1 draw", "p1 discard 8h",
        "p2 take", "p2 meld 8c 8d 8h", "p2 discard Qs",
    )
    assert found(record, DANGEROUS_DISCARD) == []


@pytest.mark.parametrize("variant_id", ALL_IDS)
def test_a_natural_card_the_quick_run_test_turns_away_is_one_the_engine_refuses(variant_id: str) -> None:
    """_may_fit_run spares resolve_add: every run shape of a suit (clean, or its wild any
    kind at any place), every natural card of the suit it says cannot fit, refused."""
    variant = VARIANTS[variant_id]
    suit = 1
    turned_away = 0
    for low in range(1, 15):
        for length in range(3, 16 - low):
            for wild_index in range(-1, length):
                for wild in [None] if wild_index < 0 else [JOKER_CODE, *(card_of(2, s) for s in range(4))]:
                    cards = tuple(wild if i == wild_index else card_of(low + i, suit) for i in range(length))
                    shape = Shape(True, suit, 0, low, cards, wild_index)  # type: ignore[arg-type]
                    for card in range(JOKER_CODE):
                        if SUIT_OF[card] != suit or IS_WILD_KIND[card] or _may_fit_run(shape, card, variant):
                            continue
                        turned_away += 1
                        with pytest.raises(BuracoError):
                            resolve_add(shape, (CardToken(CARDS[card]),), variant)
    assert turned_away > 10_000

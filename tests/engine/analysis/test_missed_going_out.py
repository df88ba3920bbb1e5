"""Missed going out: the player could have gone out this turn, every condition of the
rule set met, and did not (the issue's contract; rules.md section 2 "Going out").

``points`` is the side's margin had it gone out then minus the margin the hand really
ended with: each test works it out by hand and checks it against the scores of the
witness's final table (buraco.scoring.score_hand) and of the record's.
"""

from __future__ import annotations

import pytest

from buraco.analysis import MISSED_GOING_OUT
from buraco.analysis.exits import best_exit, may_go_out
from buraco.analysis.search import SearchContext, Start, Walk
from buraco.analysis.witness import before_witness
from buraco.cards import CARDS
from buraco.notation import Record
from buraco.replay import replay_hand
from buraco.rules import VARIANTS

from ..helpers import build, cards, deal, play
from .builders import check_going_out_finding, found, margin, only, ply_of, record_of, totals

# p1's dealt hand, laid out on the first turn: a clean canasta and a run; the discard
# that follows empties the hand onto dead pile 1.
FIRST_MELDS = ("3c 4c 5c 6c 7c 8c 9c", "Ts Js Qs Ks")
DIRTY_FIRST_MELDS = ("3c 4c 5c 6c 7c 8c JK", "Ts Js Qs Ks")
PILE_1 = "3d 4d 5d 6d 7d 9c Tc Jc Jh Qh Kh"
PILE_1_MELDS = ("3d 4d 5d 6d 7d", "9c Tc Jc", "Jh Qh Kh")

# Rule sets dealing 11 cards with dead piles; which ones go out by melding the last card.
ELEVEN_WITH_DEAD = ("abierto", "abierto-sucio", "cerrado", "cerrado-stcl", "cerrado-sucio", "fechado-stbl", "burraco-106")
VALUE_8_TO_K = 10  # rules.md section 3, every rule set here


def after_dead(variant_id: str, later: tuple[str, ...], *, first: tuple[str, ...] = FIRST_MELDS,
               pile: str = PILE_1, stock: str = "Kc Qs 5s 4h Kd", p2: str = "8h 9h Th") -> Record:
    """p1 melds ``first``, discards Kc and takes dead pile 1 (``pile``); p2 passes (Qs);
    then ``later`` is played: p1 is to draw 5s, which fits nothing, holding the pile."""
    deal = build(variant_id, [" ".join(first), p2], dead=[pile], stock=stock)
    state = deal.state()
    play(state, "p1 draw", *(f"p1 meld {m}" for m in first), "p1 discard Kc", "p1 dead", "p2 draw", "p2 discard Qs")
    play(state, *later)
    return record_of(deal, state)


# p1 draws 5s and throws it instead of melding the pile and going out (the 5s fits
# nothing, so that is the one way out: its margin is plain); p2 lays 8h 9h Th (worth 30,
# so p2 gains 60: melded instead of held); p1 goes out next turn, throwing the Kd drawn.
MISSED_THEN_OUT = (
    "p1 draw", "p1 discard 5s",
    "p2 draw", "p2 meld 8h 9h Th", "p2 discard 4h",
    "p1 draw", *(f"p1 meld {m}" for m in PILE_1_MELDS), "p1 discard Kd",
)


@pytest.mark.parametrize("variant_id", ELEVEN_WITH_DEAD)
def test_it_finds_a_missed_going_out_and_its_points(variant_id: str) -> None:
    """Going out by discard only (abierto-sucio, burraco-106) or also by meld (cerrado,
    ...): the 5s must be the going-out discard either way. p2's later meld (60) is lost."""
    record = after_dead(variant_id, MISSED_THEN_OUT)
    finding = only(record, MISSED_GOING_OUT)
    assert (finding.ply, finding.seat, finding.side) == (ply_of(record, "p1 discard 5s"), 1, 1)
    assert finding.points == 2 * 30
    state = check_going_out_finding(record, finding)
    assert finding.witness[-1] == "p1 discard 5s"
    assert state.hand_sizes[1] == 0


def test_it_finds_a_missed_going_out_in_brasil_where_no_dead_pile_is_needed() -> None:
    """brasil: p1 lays 3c..9c and 9d Td Jd, throws the Qd that would have let the run
    take it and the drawn Ks go; p2 lays 9s Ts Js (face values 9+10+10: p2 gains 58);
    p1 goes out next turn with the other Qd."""
    deal = build("brasil", ["3c 4c 5c 6c 7c 8c 9c 9d Td Jd Qd", "9s Ts Js"], stock="Ks Kc Qd")
    state = deal.state()
    play(state, "p1 draw", "p1 meld 3c 4c 5c 6c 7c 8c 9c", "p1 meld 9d Td Jd", "p1 discard Qd",
         "p2 draw", "p2 meld 9s Ts Js", "p2 discard Kc",
         "p1 draw", "p1 add m2 Qd", "p1 discard Ks")
    assert state.is_over
    record = record_of(deal, state)
    finding = only(record, MISSED_GOING_OUT)
    assert (finding.ply, finding.seat, finding.points) == (ply_of(record, "p1 discard Qd"), 1, 2 * (9 + 10 + 10))
    assert finding.witness[-1] == "p1 discard Ks"
    check_going_out_finding(record, finding)


def test_it_counts_a_brasil_lay_off_on_another_players_meld_for_going_out() -> None:
    """brasil: the 9s goes onto p2's 6s 7s 8s; the hand is left unfinished, so the real
    margin is its last table's as it stands: going out melds the 9s p1 holds there (+9
    melded, -9 no longer in hand) and earns the going-out bonus (100)."""
    deal = build("brasil", ["3c 4c 5c 6c 7c 8c 9c 9d Td Jd 9s", "6s 7s 8s"], stock="Kh Kc Qh")
    state = deal.state()
    play(state, "p1 draw", "p1 meld 3c 4c 5c 6c 7c 8c 9c", "p1 discard Kh",
         "p2 draw", "p2 meld 6s 7s 8s", "p2 discard Kc",
         "p1 draw", "p1 meld 9d Td Jd", "p1 discard Qh")
    record = record_of(deal, state)
    finding = only(record, MISSED_GOING_OUT)
    assert (finding.ply, finding.seat, finding.points) == (ply_of(record, "p1 discard Qh"), 1, 2 * 9 + 100)
    assert "p1 add m2 9s" in finding.witness
    check_going_out_finding(record, finding)


def test_it_finds_going_out_only_by_taking_the_pile_at_the_draw() -> None:
    """cerrado: p1's dead pile lacks the Jc that p2 throws onto the 8d; taking the pile
    (Jc into 9c Tc Jc, a new meld with two hand cards) lets p1 meld everything but the Kd.
    p1 drew 5s instead and went out a turn later without the 8d (10 less)."""
    pile = "3d 4d 5d 6d 7d 9c Tc Jh Qh Kh Kd"
    deal = build("cerrado", [" ".join(FIRST_MELDS), ""], dead=[pile], stock="8d Jc 5s 4h Jc")
    state = deal.state()
    play(state, "p1 draw", *(f"p1 meld {m}" for m in FIRST_MELDS), "p1 discard 8d", "p1 dead",
         "p2 draw", "p2 discard Jc",
         "p1 draw", "p1 discard 5s",
         "p2 draw", "p2 discard 4h",
         "p1 draw", "p1 meld 3d 4d 5d 6d 7d", "p1 meld 9c Tc Jc", "p1 meld Jh Qh Kh", "p1 discard Kd")
    assert state.is_over
    record = record_of(deal, state)
    finding = only(record, MISSED_GOING_OUT)
    assert (finding.ply, finding.seat, finding.points) == (8, 1, VALUE_8_TO_K)
    assert record.hands[0].actions[finding.ply - 1].strip() == "p1 draw"  # the second turn's draw
    assert finding.witness[0] == "p1 take"
    check_going_out_finding(record, finding)


def test_it_values_a_missed_going_out_on_an_unfinished_hand_against_its_last_table() -> None:
    """The record stops after p1 throws the 5s: no real margin exists, so the going out is
    valued against the last table scored as it stands. There p1 holds the dead pile's 85
    points; going out melds them instead (+85 melded, -85 no longer in hand) and earns the
    going-out bonus (100); p2's side is the same either way."""
    record = after_dead("cerrado", ("p1 draw", "p1 discard 5s"))
    finding = only(record, MISSED_GOING_OUT)
    pile_value = 5 * 5 + 3 * VALUE_8_TO_K + 3 * VALUE_8_TO_K  # 3d..7d, 9c Tc Jc, Jh Qh Kh
    assert finding.points == 2 * pile_value + 100
    assert "unfinished" in finding.message
    check_going_out_finding(record, finding)


# --- several ways out: the best one counts --------------------------------------------

# p1 draws 8d and throws it instead of going out; p2 lays 8h 9h Th (p2 gains 60); p1 goes
# out next turn throwing the Kd drawn. 8d, unlike the 5s above, fits
# the pile's 3d..7d: several ways out, which do not score the same.
MISSED_WITH_8D = (
    "p1 draw", "p1 discard 8d",
    "p2 draw", "p2 meld 8h 9h Th", "p2 discard 4h",
    "p1 draw", *(f"p1 meld {m}" for m in PILE_1_MELDS), "p1 discard Kd",
)
# The best way out: by meld, every card melded (10 more than throwing a 10-point card);
# by discard only, the 3d thrown (5 more).
BEST_EXIT = {
    "cerrado": ("p1 meld 3d 4d 5d 6d 7d 8d", "p1 meld 9c Tc Jc", "p1 meld Jh Qh Kh"),
    "abierto-sucio": ("p1 meld 4d 5d 6d 7d 8d", "p1 meld 9c Tc Jc", "p1 meld Jh Qh Kh", "p1 discard 3d"),
}


@pytest.mark.parametrize("variant_id,points", [("cerrado", 60 + 10), ("abierto-sucio", 60 + 5)])
def test_missed_going_out_points_come_from_the_best_way_out(variant_id: str, points: int) -> None:
    record = after_dead(variant_id, MISSED_WITH_8D, stock="Kc Qs 8d 4h Kd")
    finding = only(record, MISSED_GOING_OUT)
    assert finding.ply == ply_of(record, "p1 discard 8d")
    check_going_out_finding(record, finding)
    better = before_witness(record, finding)
    play(better, "p1 draw", *BEST_EXIT[variant_id])
    assert better.is_over and better.ended_by == "out"
    real = totals(replay_hand(record, 0))
    assert margin(totals(better), 0) - margin(real, 0) == points
    assert finding.points == points


def test_a_missed_going_out_is_reported_when_only_the_best_way_out_beats_the_real_margin() -> None:
    """cerrado: p1 throws 8d instead of going out; p2 passes; p1 goes out next turn with
    the same melds. Melding all twelve cards (8d too) would have scored 10 more; the
    analysis's way out throws a 10-point card, ties the real margin, and reports nothing."""
    later = ("p1 draw", "p1 discard 8d", "p2 draw", "p2 discard 4h",
             "p1 draw", *(f"p1 meld {m}" for m in PILE_1_MELDS), "p1 discard Kd")
    record = after_dead("cerrado", later, stock="Kc Qs 8d 4h Kd")
    finding = only(record, MISSED_GOING_OUT)
    assert finding.points == 10
    check_going_out_finding(record, finding)


# --- controls ----------------------------------------------------------------------------


def test_it_reports_nothing_when_going_out_later_scored_the_same() -> None:
    """abierto-sucio (by discard): p1 throws 5s instead of going out, p2 only passes, and
    p1 goes out next turn with the same melds: the margin is the same, so nothing is lost."""
    record = after_dead("abierto-sucio", (
        "p1 draw", "p1 discard 5s", "p2 draw", "p2 discard 4h",
        "p1 draw", *(f"p1 meld {m}" for m in PILE_1_MELDS), "p1 discard Kd",
    ))
    assert found(record, MISSED_GOING_OUT) == []


@pytest.mark.parametrize("variant_id", ["cerrado", "abierto-sucio"])
def test_it_reports_nothing_before_the_dead_pile_is_taken(variant_id: str) -> None:
    """p1 holds a clean canasta and a run and could empty the hand, but that would only
    pick up the dead pile: going out was not possible."""
    deal = build(variant_id, [" ".join(FIRST_MELDS), ""], stock="Kc Qs")
    state = deal.state()
    play(state, "p1 draw", "p1 meld 3c 4c 5c 6c 7c 8c 9c", "p1 discard Ks")
    assert found(record_of(deal, state), MISSED_GOING_OUT) == []


@pytest.mark.parametrize("variant_id,needs_clean", [("cerrado", True), ("cerrado-sucio", False)])
def test_a_dirty_canasta_allows_going_out_only_where_any_canasta_will_do(variant_id: str, needs_clean: bool) -> None:
    record = after_dead(variant_id, ("p1 draw", "p1 discard 5s"), first=DIRTY_FIRST_MELDS)
    findings = found(record, MISSED_GOING_OUT)
    if needs_clean:
        assert findings == []
    else:
        assert len(findings) == 1
        check_going_out_finding(record, findings[0])


def test_going_out_on_a_clean_canasta_is_not_promised_by_two_dirty_ones() -> None:
    """The quick test before an exit search asks for one canasta of the kind going out
    needs: a hand that could lay two dirty canastas (bonus 100 each) but no clean one
    (200) cannot go out in brasil, and its search is never walked (a brasil hand of 36
    cards once spent 19 s proving it could not go out, the sum of dirty bonuses having
    passed for a clean canasta)."""
    variant = VARIANTS["brasil"]
    state = deal("brasil", ["3h 4h 5h 6h 7h 8h 3s 4s 5s 6s 7s"], stock="Kd")
    play(state, "p1 draw")
    two_dirty = cards("3h 4h 5h 6h 7h 8h 3s 4s 5s 6s 7s 8s JK 2c")
    start = Start(state, None, 1, tuple(two_dirty.count(c) for c in CARDS), None)
    context = SearchContext(variant)
    walk = Walk.at(start, context)
    assert walk.new_bound() == 2 * variant.bonus_dirty == variant.bonus_clean  # the sum the test once read
    assert walk.new_bound(single=True) == variant.bonus_dirty
    assert not may_go_out(start, context)
    assert best_exit(start, context) is None
    one_clean = cards("3h 4h 5h 6h 7h 8h 9h 3s 4s 5s 6s 7s 8s JK")
    assert may_go_out(Start(state, None, 1, tuple(one_clean.count(c) for c in CARDS), None), SearchContext(variant))

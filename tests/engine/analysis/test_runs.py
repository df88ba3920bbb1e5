"""Runs (docs/analysis.md, "Runs"): a missed chance open over several turns of one player,
one after another, is one finding with its span, outcome and severity; and the going-out
lines the issue names (a lay-off on a wild's place, a take worth more than the draw's
going out).

Every hand is scripted card by card, written back as a BRN record and analysed; every
finding's witness is replayed by the engine (builders.check_*_finding).
"""

from __future__ import annotations

from buraco.analysis import (
    BLUNDER,
    INACCURACY,
    LOST,
    MISSED_CANASTA,
    MISSED_GOING_OUT,
    MISTAKE,
    OUTCOMES,
    PARTLY,
    REALIZED,
    SEVERITIES,
    SEVERITY_THRESHOLDS,
    Finding,
    analyze_record,
    severity_of,
    thresholds_for,
)
from buraco.analysis.witness import before_witness, replay_witness
from buraco.notation import Record
from buraco.replay import replay_hand
from buraco.rules import VARIANTS
from buraco.scoring import scores_if_ended
from buraco.state import OUT, STOCK

from ..helpers import build, play
from .builders import check_canasta_finding, check_going_out_finding, found, margin, only, ply_of, record_of, totals
from .test_missed_going_out import MISSED_THEN_OUT, after_dead

DIRTY, CLEAN = 100, 200  # rules.md 3, every rule set


def scripted(variant_id: str, hands: list[str], stock: str, *actions: str, dead: list[str] | None = None,
             discard: str | None = None) -> Record:
    deal = build(variant_id, hands, stock=stock, dead=dead, discard=discard)
    state = deal.state()
    play(state, *actions)
    return record_of(deal, state)


# --- a dirty canasta waited on ----------------------------------------------------------------

# cerrado: p1 lays 3h..8h and keeps the 2c that would make it a dirty canasta (100), three
# turns in a row, each time throwing the card drawn; p2 only passes.
WAITING = (
    "p1 draw", "p1 meld 3h 4h 5h 6h 7h 8h", "p1 discard Kd",
    "p2 draw", "p2 discard Qs",
    "p1 draw", "p1 discard Jc",
    "p2 draw", "p2 discard Qd",
    "p1 draw", "p1 discard Kc",
    "p2 draw", "p2 discard Qc",
)
WAITING_STOCK = "Kd Qs Jc Qd Kc Qc 9h Jd"


def test_a_dirty_canasta_waited_on_and_made_clean_later_is_one_realized_run_at_most_an_inaccuracy() -> None:
    """The fourth turn p1 draws the 9h and makes m1 clean (200): the three turns before
    are one run, its outcome realized (the side got at least the 100 later), and its
    severity at most an inaccuracy however much was at stake."""
    record = scripted(
        "cerrado", ["3h 4h 5h 6h 7h 8h 2c", ""], WAITING_STOCK,
        *WAITING, "p1 draw", "p1 add m1 9h", "p1 discard 2c",
    )
    finding = only(record, MISSED_CANASTA)
    assert (finding.seat, finding.points, finding.turns) == (1, DIRTY, 3)
    assert finding.first_ply == ply_of(record, "p1 discard Kd")
    assert finding.last_ply == ply_of(record, "p1 discard Kc")
    assert finding.ply == finding.first_ply  # every turn had 100 at stake: the first of them
    assert finding.outcome == REALIZED
    assert finding.severity == INACCURACY
    state = check_canasta_finding(record, finding)
    assert [m.kind(state.variant) for m in state.melds if m.side == 0] == ["dirty"]
    assert replay_hand(record, 0).melds[0].kind(VARIANTS["cerrado"]) == "clean"


def test_a_dirty_canasta_never_made_is_one_lost_run_graded_by_its_points() -> None:
    record = scripted("cerrado", ["3h 4h 5h 6h 7h 8h 2c", ""], WAITING_STOCK, *WAITING)
    finding = only(record, MISSED_CANASTA)
    assert (finding.points, finding.turns, finding.outcome) == (DIRTY, 3, LOST)
    assert finding.severity == MISTAKE  # cerrado: a mistake costs the dirty bonus (100)
    assert "3 turns in a row" in finding.message
    check_canasta_finding(record, finding)


def test_a_run_ends_where_the_chance_is_taken() -> None:
    """p1 waits two turns and makes the dirty canasta on the third: one run of two turns
    (the third turn took the chance), realized."""
    record = scripted(
        "cerrado", ["3h 4h 5h 6h 7h 8h 2c", ""], WAITING_STOCK,
        *WAITING[:9], "p1 draw", "p1 add m1 2c", "p1 discard Kc",
    )
    finding = only(record, MISSED_CANASTA)
    assert (finding.turns, finding.first_ply, finding.last_ply) == (2, ply_of(record, "p1 discard Kd"), ply_of(record, "p1 discard Jc"))
    assert finding.outcome == REALIZED
    check_canasta_finding(record, finding)


# --- going out missed twice in a row ---------------------------------------------------------


def test_a_going_out_missed_twice_in_a_row_is_one_run() -> None:
    """cerrado: holding the dead pile's melds, p1 throws the 5s, then the Kd, instead of
    going out; p2 passes; p1 goes out on the third turn. One finding over two turns, its
    stake the turn that would have thrown the cheaper card; partly: the side went out later
    with less."""
    record = after_dead("cerrado", (
        "p1 draw", "p1 discard 5s",
        "p2 draw", "p2 meld 8h 9h Th", "p2 discard 4h",
        "p1 draw", "p1 discard Kd",
        "p2 draw", "p2 discard 6c",
        "p1 draw", "p1 meld 3d 4d 5d 6d 7d", "p1 meld 9c Tc Jc", "p1 meld Jh Qh Kh", "p1 discard 7s",
    ), stock="Kc Qs 5s 4h Kd 6c 7s")
    finding = only(record, MISSED_GOING_OUT)
    assert (finding.seat, finding.turns) == (1, 2)
    assert (finding.first_ply, finding.last_ply) == (ply_of(record, "p1 discard 5s"), ply_of(record, "p1 discard Kd"))
    assert finding.ply == ply_of(record, "p1 discard 5s")
    # Going out on the first turn (throwing the 5s) keeps p2 from melding 8h 9h Th (30
    # melded instead of held: 60); p1's real going out throws the 7s, as cheap as the 5s.
    # The second turn would have thrown the Kd (5 more): the first is the stake.
    assert finding.points == 2 * 30
    real = totals(replay_hand(record, 0))
    out = check_going_out_finding(record, finding)
    assert finding.points == margin(totals(out), 0) - margin(real, 0)
    assert finding.outcome == PARTLY
    assert finding.severity in SEVERITIES


def test_the_turns_before_and_after_a_run_are_not_in_it() -> None:
    """MISSED_THEN_OUT: p1 misses going out once, then goes out: a run of one turn."""
    record = after_dead("cerrado", MISSED_THEN_OUT)
    finding = only(record, MISSED_GOING_OUT)
    assert finding.turns == 1 and finding.first_ply == finding.last_ply == finding.ply
    check_going_out_finding(record, finding)


# --- a lay-off on a wild's place that goes out (burraco-106, "anywhere") ----------------------

# p1 lays a clean burraco 3c..9c and 5h 6h JK(=7h) 8h, throws the 6s drawn and picks up the
# side pile, whose Th fits m2 only past a 9h; p2 throws the 7h. Next turn p1 draws the 9h:
# going out was open (9h and Th on m2) and worth what p1 really got a turn later (throwing
# the Kd instead of the Jc), so that draw's own way out shows nothing. Taking the pile
# instead (Qd 6s 7h) went out too: the 7h on the joker's place, the joker moving into the
# gap at 9h, the Th above it; and it melds the pile's 20 points. The analysis that valued a
# turn by the draw as played, and looked at takes only where it found no way out, missed it.
SIDE_PILE = "9d Td Jd 3s 4s 5s Qh Kh Ah Th Jc"
WILDS_PLACE = (
    "p1 draw", "p1 meld 3c 4c 5c 6c 7c 8c 9c", "p1 meld 5h 6h JK=7h 8h", "p1 discard 6s", "p1 dead",
    "p2 draw", "p2 discard 7h",
    "p1 draw", "p1 discard Jc",
    "p2 draw", "p2 discard Kc",
    "p1 draw", "p1 add m2 9h Th", "p1 meld Qh Kh Ah", "p1 meld 3s 4s 5s", "p1 meld 9d Td Jd", "p1 discard Kd",
)


def test_taking_the_pile_and_laying_a_natural_on_the_jokers_place_goes_out() -> None:
    record = scripted(
        "burraco-106", ["3c 4c 5c 6c 7c 8c 9c 5h 6h JK 8h", "7h"], "6s Qc 9h Kc Kd", *WILDS_PLACE,
        dead=[SIDE_PILE, ""], discard="Qd",
    )
    assert replay_hand(record, 0).ended_by == OUT
    finding = only(record, MISSED_GOING_OUT)
    draw_plies = [i + 1 for i, a in enumerate(record.hands[0].actions) if a.strip() == "p1 draw"]
    assert (finding.seat, finding.ply, finding.turns) == (1, draw_plies[1], 1)
    assert finding.witness[0] == "p1 take"
    # Qd, 6s and 7h melded (burraco-106: 3-7 count 5, 8-K 10), less the 9h the real going
    # out melded a turn later; both throw a 10 (Jc, Kd) and p2's hand is the same.
    assert finding.points == (10 + 5 + 5) - 10
    state = check_going_out_finding(record, finding)
    run = state.melds[1].shape
    assert run.text() == "5h 6h 7h 8h JK Th" and run.wild_index == 4  # the joker moved into the gap at 9h
    assert finding.outcome == PARTLY  # p1 went out a turn later, with less


# --- a take that scores more than the draw's going out (abierto) -----------------------------


def test_a_take_worth_more_than_going_out_after_the_draw_gives_the_points() -> None:
    """abierto: after the draw of the 5s p1 could go out throwing it; taking the pile
    (8d As) instead melds both, the last card too (abierto goes out by melding it): 8d and
    As melded (25 more). The finding is at the draw step and worth the take."""
    record = scripted(
        "abierto", ["3c 4c 5c 6c 7c 8c 9c Ts Js Qs Ks", "As"], "8d Qc 5s Kd",
        "p1 draw", "p1 meld 3c 4c 5c 6c 7c 8c 9c", "p1 meld Ts Js Qs Ks", "p1 discard 8d", "p1 dead",
        "p2 draw", "p2 discard As",
        "p1 draw", "p1 discard 5s",
        dead=["3d 4d 5d 6d 7d 9c Tc Jc Jh Qh Kh", ""],
    )
    finding = only(record, MISSED_GOING_OUT)
    draw_plies = [i + 1 for i, a in enumerate(record.hands[0].actions) if a.strip() == "p1 draw"]
    assert finding.ply == draw_plies[1] and finding.witness[0] == "p1 take"
    taken = check_going_out_finding(record, finding)
    # The draw's own way out, played from the same table: 25 + 5 less than the take's.
    after_draw = before_witness(record, finding)
    play(after_draw, "p1 draw", "p1 meld 3d 4d 5d 6d 7d", "p1 meld 9c Tc Jc", "p1 meld Jh Qh Kh", "p1 discard 5s")
    assert after_draw.ended_by == OUT
    assert margin(totals(taken), 0) - margin(totals(after_draw), 0) == 10 + 15
    last = replay_hand(record, 0)  # unfinished: valued against its last table as it stands
    assert not last.is_over
    assert finding.points == margin(totals(taken), 0) - margin([s.total for s in scores_if_ended(last, STOCK)], 0)


# --- budgets -----------------------------------------------------------------------------------


def test_a_cpu_budget_that_runs_out_makes_the_analysis_partial_and_names_what_it_cut() -> None:
    record = scripted("cerrado", ["3h 4h 5h 6h 7h 8h 2c", ""], WAITING_STOCK, *WAITING)
    whole = analyze_record(record)
    assert not whole.partial and whole.unsearched == [] and whole.cut_hands == []
    cut = analyze_record(record, match_budget=0.0)
    assert cut.partial and cut.cut_hands == [1]
    turns = {u.ply for u in cut.unsearched}
    assert {u.search for u in cut.unsearched} == {"canasta", "going out"}
    assert len(turns) == 6  # every turn's two decisions, listed by the turn's draw ply
    assert all(u.reason == "budget" and u.as_dict()["hand"] == 1 for u in cut.unsearched)
    assert found(record, MISSED_CANASTA) and not [f for f in cut.findings if f.kind == MISSED_CANASTA]
    cut_by_hand = analyze_record(record, hand_budget=0.0)
    assert cut_by_hand.unsearched == cut.unsearched


def test_a_budget_large_enough_cuts_nothing() -> None:
    record = scripted("cerrado", ["3h 4h 5h 6h 7h 8h 2c", ""], WAITING_STOCK, *WAITING)
    assert analyze_record(record, hand_budget=600.0, match_budget=600.0) == analyze_record(record)


# --- severity as data --------------------------------------------------------------------------


def test_every_rule_set_has_a_row_of_thresholds_read_from_its_bonuses() -> None:
    assert set(SEVERITY_THRESHOLDS) == set(VARIANTS)
    for variant in VARIANTS.values():
        row = SEVERITY_THRESHOLDS[variant.id]
        assert row == thresholds_for(variant)
        assert (row.mistake, row.blunder) == (variant.bonus_dirty, variant.bonus_clean + variant.going_out_bonus)


def test_severity_grades_the_cost_and_caps_a_realized_chance() -> None:
    row = SEVERITY_THRESHOLDS["cerrado"]
    assert [severity_of(cost, LOST, row) for cost in (1, 99, 100, 299, 300, 5000)] == [
        INACCURACY, INACCURACY, MISTAKE, MISTAKE, BLUNDER, BLUNDER,
    ]
    assert all(severity_of(5000, REALIZED, row) == INACCURACY for _ in OUTCOMES)
    assert severity_of(None, None, row) == INACCURACY


def test_a_finding_round_trips_with_its_run_keys() -> None:
    finding = Finding(hand=1, ply=12, seat=1, side=1, kind=MISSED_CANASTA, points=100, message="m",
                      first_ply=8, last_ply=16, turns=3, outcome=PARTLY, severity=MISTAKE)
    data = finding.as_dict()
    assert {k: data[k] for k in ("first_ply", "last_ply", "turns", "outcome", "severity")} == {
        "first_ply": 8, "last_ply": 16, "turns": 3, "outcome": PARTLY, "severity": MISTAKE,
    }
    assert Finding.from_dict(data) == finding
    old = Finding(hand=1, ply=5, seat=2, side=2, kind=MISSED_CANASTA, points=100, message="m")
    assert (old.first_ply, old.last_ply, old.turns, old.outcome, old.severity) == (5, 5, 1, None, None)
    assert Finding.from_dict({k: v for k, v in old.as_dict().items() if k not in ("first_ply", "turns")}) == old


def test_every_witness_of_these_hands_replays() -> None:
    record = scripted("cerrado", ["3h 4h 5h 6h 7h 8h 2c", ""], WAITING_STOCK, *WAITING)
    findings = [f for f in analyze_record(record).findings if f.witness]
    assert findings
    for finding in findings:
        replay_witness(record, finding)  # raises if the engine refuses it

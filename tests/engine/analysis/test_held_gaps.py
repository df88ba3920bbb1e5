"""Going out through a lay-off that leaves a gap where the hand holds the natural card,
for the run's own wild to move into (rules.md 2, "Wild cards in runs"): the natural card
is kept back for another meld. The exit search places one card at a time, so it must see
such a lay-off while that natural card is still in hand."""

from __future__ import annotations

from buraco.analysis import MISSED_CANASTA, analyze_record
from buraco.analysis.exits import best_exit
from buraco.analysis.witness import replay_witness
from buraco.selfplay import play_match
from buraco.state import HandState

from ..helpers import build, hand, play

FIRST = ("3c 4c 5c 6c 7c 8c 9c", "7h 8h 9h 2d=Th")  # a clean canasta and a run with a wild


def after_dead(variant_id: str, pile: str, drawn: str) -> HandState:
    """p1 lays FIRST, throws the Kc drawn and takes dead pile 1 (``pile``); p2 passes;
    p1 has drawn ``drawn`` and is to play."""
    dealt = " ".join(FIRST).replace("=Th", "")
    deal = build(variant_id, [dealt, ""], dead=[pile], stock=f"Kc Qs {drawn}")
    state = deal.state()
    play(state, "p1 draw", *(f"p1 meld {m}" for m in FIRST), "p1 discard Kc", "p1 dead",
         "p2 draw", "p2 discard Qs", "p1 draw")
    return state


def test_going_out_lays_off_a_card_whose_gap_the_wild_fills_while_the_natural_is_held() -> None:
    """burraco-106 (a wild moves anywhere, gaps included): the 6h is needed for 6h 6s 6d,
    so the 5h goes onto 7h 8h 9h 2d alone, the 2d moving down into the 6's place
    (5h 2d 7h 8h 9h); 5h 6h onto the run would leave 6s 6d with no meld. Every other
    card has its one place, and the 3d is thrown. (The search found this one before
    held gaps too, placing a 6 first: the test below is the one it missed.)"""
    state = after_dead("burraco-106", "5h 6h 6s 6d Jd Qd Kd Ts Js Qs Ks", "3d")
    assert sorted(hand(state, 1)) == sorted("3d 5h 6h 6s 6d Jd Qd Kd Ts Js Qs Ks".split())
    exit_ = best_exit(state)
    assert exit_ is not None
    texts = [a.text for a in exit_.actions]
    assert "p1 add m2 5h" in texts, texts
    assert texts[-1] == "p1 discard 3d"
    assert exit_.state.is_over and exit_.state.out_by == 1
    run = exit_.state.melds[1]
    assert run.shape.text() == "5h 2d 7h 8h 9h"  # the 2d stands for the 6h


def test_going_out_lays_off_a_low_ace_and_the_card_whose_wild_fills_its_gap() -> None:
    """cerrado-sucio (high-then-low, A..A runs): p1 lays 3h..Jh 2d Kh Ah, the 2d standing
    for the Qh, and picks up the dead pile directly. Holding Ah Qh 2h, the way out lays off
    Ah>low Qh: the Qh displaces the 2d, which cannot go high (the run ends at the ace) and
    so fills the 2's place the low ace leaves; Ah>low alone is illegal. The 2h is needed
    for 7d 8d 2h (2h 2h Ah>low would spend it), and the ace, with the one play holding
    it while the 2h is held, is the card the search places first."""
    deal = build("cerrado-sucio", ["3h 4h 5h 6h 7h 8h 9h Th Jh 2d Kh", ""],
                 dead=["Ah Qh 2h 7d 8d 4c 5c 6c Js Qs 3d"], stock="Ah Kd Ks")
    state = deal.state()
    play(state, "p1 draw", "p1 meld 3h 4h 5h 6h 7h 8h 9h Th Jh 2d Kh Ah", "p1 dead", "p1 discard 3d",
         "p2 draw", "p2 discard Kd", "p1 draw")
    assert sorted(hand(state, 1)) == sorted("Ah Qh 2h 7d 8d 4c 5c 6c Js Qs Ks".split())
    exit_ = best_exit(state)
    assert exit_ is not None
    texts = [a.text for a in exit_.actions]
    assert "p1 add m1 Ah>low Qh" in texts, texts
    assert exit_.state.is_over and exit_.state.out_by == 1


def test_the_canasta_search_lays_off_leaving_the_gap_of_a_card_a_meld_needs() -> None:
    """The canasta search, on a self-play hand (cerrado, 2 players, seed 12, mistakes 0.3):
    at ply 139 p1 could take the pile and lay 7c 9c 4c off on m1 (3c 2h 5c 6c): the 4c
    displaces the 2h into the 8's place the 7c and 9c leave, a dirty canasta of seven,
    while the 8c held goes into 8c 8d 2s, the meld that uses the pile's card. With the
    8c still in hand the generator used to fill the 8's place with it, and the pile's
    obligation is met last, so the search never saw that lay-off."""
    record = play_match("cerrado", players=2, hands=1, seed=12, mistakes=0.3)
    findings = [f for f in analyze_record(record).findings if f.kind == MISSED_CANASTA and f.ply == 139]
    assert len(findings) == 1, findings
    finding = findings[0]
    assert (finding.seat, finding.points) == (1, 100)
    assert "p1 add m1 7c 9c 4c" in finding.witness
    state = replay_witness(record, finding)
    assert state.melds[0].shape.text() == "3c 4c 5c 6c 7c 2h 9c"

"""Missed canastas: during a turn the player could have completed a canasta, or a
better kind of canasta, and did not (the issue's contract; rules.md sections 2-4).

Every hand is scripted card by card, checked legal by playing it on a table, written
back as a BRN record and analysed. Each expected finding's witness is replayed: the
side then holds the canasta bonus of the turn as played plus the finding's points,
and the witness spends no card the player could not know.
"""

from __future__ import annotations

import pytest

from buraco.analysis import MISSED_CANASTA
from buraco.analysis.search import best_canasta_line, side_bonus
from buraco.notation import Record
from buraco.replay import replay_hand
from buraco.state import HandState

from ..helpers import ALL_IDS, build, play
from .builders import check_canasta_finding, found, only, ply_of, record_of
from .test_missed_going_out import after_dead

# rules.md section 3: the bonuses these hands reach
DIRTY, CLEAN, ACE_TO_KING, ACE_TO_ACE = 100, 200, 500, 1000


def scripted(variant_id: str, hands: list[str], stock: str, *actions: str, players: int | None = None) -> Record:
    deal = build(variant_id, hands, stock=stock, players=players)
    state = deal.state()
    play(state, *actions)
    return record_of(deal, state)


def kinds_after(state: HandState, side: int) -> list[str | None]:
    return [m.kind(state.variant) for m in state.melds if m.side == side]


# --- a canasta in hand ---------------------------------------------------------------------


@pytest.mark.parametrize("variant_id", ALL_IDS)
def test_it_finds_a_clean_canasta_held_and_broken_by_the_discard(variant_id: str) -> None:
    record = scripted(variant_id, ["3h 4h 5h 6h 7h 8h 9h", ""], "Kd Qs", "p1 draw", "p1 discard 9h")
    finding = only(record, MISSED_CANASTA)
    assert (finding.hand, finding.ply, finding.seat, finding.side) == (1, 2, 1, 1)
    assert finding.points == CLEAN
    assert finding.witness[0] == "p1 draw Kd"
    state = check_canasta_finding(record, finding)
    assert kinds_after(state, 0) == ["clean"]


def test_it_reports_nothing_for_a_well_played_turn() -> None:
    record = scripted(
        "cerrado", ["3h 4h 5h 6h 7h 8h 9h", ""], "Kd Qs", "p1 draw", "p1 meld 3h 4h 5h 6h 7h 8h 9h", "p1 discard Kd"
    )
    assert found(record, MISSED_CANASTA) == []


# --- partners' melds -----------------------------------------------------------------------


def test_it_finds_a_canasta_completed_only_on_a_partners_meld() -> None:
    record = scripted(
        "cerrado", ["3h 4h 5h 6h 7h 8h", "", "9h", ""], "Kd Qs Kc",
        "p1 draw", "p1 meld 3h 4h 5h 6h 7h 8h", "p1 discard Kd",
        "p2 draw", "p2 discard Qs",
        "p3 draw", "p3 discard 9h",
        players=4,
    )
    finding = only(record, MISSED_CANASTA)
    assert (finding.ply, finding.seat, finding.side, finding.points) == (ply_of(record, "p3 discard 9h"), 3, 1, CLEAN)
    assert any(w.startswith("p3 add m1") for w in finding.witness)
    check_canasta_finding(record, finding)


def test_it_does_not_count_a_lay_off_on_the_other_sides_meld() -> None:
    record = scripted(
        "cerrado", ["3h 4h 5h 6h 7h 8h", "9h", "", ""], "Kd Qs",
        "p1 draw", "p1 meld 3h 4h 5h 6h 7h 8h", "p1 discard Kd",
        "p2 draw", "p2 discard 9h",
        players=4,
    )
    assert found(record, MISSED_CANASTA) == []


def test_it_does_not_count_a_brasil_lay_off_that_completes_another_players_canasta() -> None:
    """In brasil anyone lays off on anyone's meld, but the bonus is the meld owner's."""
    record = scripted(
        "brasil", ["9h", "3h 4h 5h 6h 7h 8h"], "Kd Qs Jc",
        "p1 draw", "p1 discard Kd",
        "p2 draw", "p2 meld 3h 4h 5h 6h 7h 8h", "p2 discard Qs",
        "p1 draw", "p1 discard 9h",
    )
    assert [f for f in found(record, MISSED_CANASTA) if f.seat == 1] == []


# --- through the discard pile: one test per pick-up rule -----------------------------------


@pytest.mark.parametrize("variant_id", ["abierto", "abierto-sucio", "burraco-106", "cerrado", "cerrado-sucio"])
def test_it_finds_a_canasta_reachable_only_by_taking_the_whole_pile(variant_id: str) -> None:
    """open (abierto, burraco-106): no condition; use-top (cerrado): 9h goes into a new
    meld with two hand cards. p2 drew from the stock: ``ply`` is that draw."""
    record = scripted(
        variant_id, ["9h", "3h 4h 5h 6h 7h 8h"], "Kd Qs", "p1 draw", "p1 discard 9h", "p2 draw", "p2 discard Qs"
    )
    finding = only(record, MISSED_CANASTA)
    assert (finding.ply, finding.seat, finding.side, finding.points) == (ply_of(record, "p2 draw"), 2, 2, CLEAN)
    assert finding.witness[0] == "p2 take"
    state = check_canasta_finding(record, finding)
    assert kinds_after(state, 1) == ["clean"]


def test_it_finds_a_canasta_reachable_only_by_digging_into_the_pile() -> None:
    """dig (brasil, three players): 9h lies under Kd; ``take 2`` reaches it and melds it."""
    record = scripted(
        "brasil", ["9h", "", "3h 4h 5h 6h 7h 8h"], "Qc Kd Qs",
        "p1 draw", "p1 discard 9h", "p2 draw", "p2 discard Kd", "p3 draw", "p3 discard Qs",
        players=3,
    )
    finding = only(record, MISSED_CANASTA)
    assert (finding.ply, finding.seat, finding.side, finding.points) == (ply_of(record, "p3 draw"), 3, 3, CLEAN)
    assert finding.witness[0] == "p3 take 2"
    check_canasta_finding(record, finding)


def test_it_finds_a_dig_whose_deepest_card_goes_onto_another_players_meld() -> None:
    """brasil: p1 holds 3h..7h alone; the pile is Qc Kd 8h 9h (top last). ``take 2`` would
    leave no card to discard after the canasta; ``take 3`` reaches Kd, which fits nothing;
    only ``take 4`` works, Qc laid off on p2's 9c Tc Jc and Kd thrown."""
    record = scripted(
        "brasil", ["3h 4h 5h 6h 7h 9s Ts Js 9d Td Jd", "9c Tc Jc"], "Qc Kd 8h 9h Ks Qs",
        "p1 draw", "p1 meld 9s Ts Js", "p1 meld 9d Td Jd", "p1 discard Qc",
        "p2 draw", "p2 meld 9c Tc Jc", "p2 discard Kd",
        "p1 draw", "p1 discard 8h",
        "p2 draw", "p2 discard 9h",
        "p1 draw", "p1 discard Ks",
    )
    finding = only(record, MISSED_CANASTA)
    assert (finding.ply, finding.seat, finding.points) == (len(record.hands[0].actions) - 1, 1, CLEAN)
    assert finding.witness[0] == "p1 take 4"
    assert "p1 add m3 Qc" in finding.witness
    check_canasta_finding(record, finding)


# --- wild cards that move, natural 2s -------------------------------------------------------


@pytest.mark.parametrize("variant_id", ["cerrado", "fechado-stbl", "burraco-106"])
def test_it_finds_a_canasta_made_by_displacing_the_wild(variant_id: str) -> None:
    """4h 5h 2c=6h 7h 8h 9h on the table; 6h displaces the 2c, which moves to an end
    (high-then-low, either-end, anywhere): seven cards, a dirty canasta."""
    record = scripted(
        variant_id, ["4h 5h 2c 7h 8h 9h", ""], "Kd Qs 6h",
        "p1 draw", "p1 meld 4h 5h 2c 7h 8h 9h", "p1 discard Kd", "p2 draw", "p2 discard Qs",
        "p1 draw", "p1 discard 6h",
    )
    finding = only(record, MISSED_CANASTA)
    assert (finding.ply, finding.seat, finding.points) == (ply_of(record, "p1 discard 6h"), 1, DIRTY)
    state = check_canasta_finding(record, finding)
    assert kinds_after(state, 0) == ["dirty"] and len(state.melds[0].shape.cards) == 7


def test_it_finds_no_canasta_where_the_wild_never_moves() -> None:
    """brasil's wild is fixed: 6h cannot displace 2c, so no canasta was possible."""
    record = scripted(
        "brasil", ["4h 5h 2c 7h 8h 9h", ""], "Kd Qs 6h",
        "p1 draw", "p1 meld 4h 5h 2c 7h 8h 9h", "p1 discard Kd", "p2 draw", "p2 discard Qs",
        "p1 draw", "p1 discard 6h",
    )
    assert [f for f in found(record, MISSED_CANASTA) if f.seat == 1] == []


def test_it_reads_a_2_in_its_own_place_as_natural_for_a_clean_canasta() -> None:
    record = scripted("cerrado", ["2h 3h 4h 5h 6h 7h 8h", ""], "Kd Qs", "p1 draw", "p1 discard 8h")
    finding = only(record, MISSED_CANASTA)
    assert finding.points == CLEAN
    state = check_canasta_finding(record, finding)
    assert kinds_after(state, 0) == ["clean"]
    assert state.melds[0].shape.wild_index < 0


def test_it_finds_a_dirty_canasta_turned_clean_by_its_2_moving_to_its_own_place() -> None:
    """3h 2h=4h 5h..9h is dirty; 4h sends the 2h to its own place: 2h..9h, clean."""
    record = scripted(
        "cerrado", ["3h 2h 5h 6h 7h 8h 9h", ""], "Kd Qs 4h",
        "p1 draw", "p1 meld 3h 2h 5h 6h 7h 8h 9h", "p1 discard Kd", "p2 draw", "p2 discard Qs",
        "p1 draw", "p1 discard 4h",
    )
    finding = only(record, MISSED_CANASTA)
    assert (finding.ply, finding.points) == (ply_of(record, "p1 discard 4h"), CLEAN - DIRTY)
    state = check_canasta_finding(record, finding)
    assert kinds_after(state, 0) == ["clean"]


# --- a better kind of canasta ---------------------------------------------------------------


def test_it_finds_a_dirty_canasta_laid_where_a_clean_one_was_possible() -> None:
    record = scripted(
        "cerrado", ["3h 4h 5h 6h 7h 8h 9h 2c", ""], "Kd Qs",
        "p1 draw", "p1 meld 3h 4h 5h 6h 7h 8h 2c", "p1 discard Kd",
    )
    finding = only(record, MISSED_CANASTA)
    assert (finding.ply, finding.points) == (ply_of(record, "p1 discard Kd"), CLEAN - DIRTY)
    state = check_canasta_finding(record, finding)
    assert "clean" in kinds_after(state, 0)


def test_it_finds_an_ace_to_king_canasta_on_a_partners_meld() -> None:
    """cerrado, four players: p1 lays 7h..Kh; p3 adds only 3h..6h (clean, 200) where
    Ah 2h 3h..6h made A..K (500)."""
    record = scripted(
        "cerrado", ["7h 8h 9h Th Jh Qh Kh", "", "Ah 2h 3h 4h 5h 6h", ""], "Kd Qs Kc",
        "p1 draw", "p1 meld 7h 8h 9h Th Jh Qh Kh", "p1 discard Kd",
        "p2 draw", "p2 discard Qs",
        "p3 draw", "p3 add m1 3h 4h 5h 6h", "p3 discard Kc",
        players=4,
    )
    finding = only(record, MISSED_CANASTA)
    assert (finding.seat, finding.side, finding.points) == (3, 1, ACE_TO_KING - CLEAN)
    state = check_canasta_finding(record, finding)
    assert kinds_after(state, 0) == ["ace-to-king"]


def test_it_finds_an_ace_to_ace_canasta_missed_for_an_ace_to_king() -> None:
    """p1 lays Ah..7h; p3 makes it A..K (500) and throws the Ah that made it A..A (1000)."""
    record = scripted(
        "cerrado", ["Ah 2h 3h 4h 5h 6h 7h", "", "8h 9h Th Jh Qh Kh Ah", ""], "Kd Qs Kc",
        "p1 draw", "p1 meld Ah 2h 3h 4h 5h 6h 7h", "p1 discard Kd",
        "p2 draw", "p2 discard Qs",
        "p3 draw", "p3 add m1 8h 9h Th Jh Qh Kh", "p3 discard Ah",
        players=4,
    )
    finding = only(record, MISSED_CANASTA)
    assert (finding.seat, finding.side, finding.points) == (3, 1, ACE_TO_ACE - ACE_TO_KING)
    state = check_canasta_finding(record, finding)
    assert kinds_after(state, 0) == ["ace-to-ace"]


def test_a_set_that_needs_no_wild_does_not_compete_for_the_one_wild_in_hand() -> None:
    """cerrado, 4 players: p1 draws 2s holding Kc Kd Ks, with 3s..8s (p1's) and Kc Kh Kh Ks
    (p3's) on the table. 2s goes to its own place (2s..8s, clean) and Kc Kd Ks make the set
    clean: 400. The suit-by-suit bound once weighed the sets only as an increase brought by
    wilds, so the set and the spades run shared the one wild (2s) and the bound said 200."""
    deal = build("cerrado", ["3s 4s 5s 6s 7s 8s Kc Kd Ks 9d Jc", "", "Kc Kh Kh Ks"], stock="Jd Qc Qd Qh 2s", players=4)
    state = deal.state()
    play(
        state, "p1 draw", "p1 meld 3s 4s 5s 6s 7s 8s", "p1 discard Jd", "p2 draw", "p2 discard Qc",
        "p3 draw", "p3 meld Kc Kh Kh Ks", "p3 discard Qd", "p4 draw", "p4 discard Qh", "p1 draw",
    )
    better = play(state.copy(), "p1 add m1 2s", "p1 add m2 Kc Kd Ks", "p1 discard 9d")  # the engine judges it
    assert kinds_after(better, 0) == ["clean", "clean"] and side_bonus(better, 0) == 2 * CLEAN
    line = best_canasta_line(state)
    assert line is not None and line.bonus == 2 * CLEAN
    play(state, "p1 discard 9d")
    finding = only(record_of(deal, state), MISSED_CANASTA)
    assert (finding.ply, finding.points) == (12, 2 * CLEAN)
    check_canasta_finding(record_of(deal, state), finding)


def test_a_lay_off_may_leave_the_wild_a_gap_whose_card_the_hand_keeps_for_the_pile() -> None:
    """cerrado: p1 takes the pile under 8d, whose 8d must go into a new meld with two cards
    held before (8c 2s). 4c 7c 9c on 3c 2h 5c 6c sends the 2h to the 8: 3c..7c 2h 9c, dirty,
    and the 8c stays for 8c 8d 2s. With the 8c on the run the 8d has no meld left. The
    lay-offs proposed once filled every place the hand could, so the 8c always."""
    deal = build("cerrado", ["3c 2h 5c 6c 4c 7c 8c 9c 2s Qs Jh", ""], stock="Kd 3d")
    state = deal.state()
    play(state, "p1 draw", "p1 meld 3c 2h 5c 6c", "p1 discard Kd", "p2 draw", "p2 discard 8d", "p1 take")
    better = play(state.copy(), "p1 add m1 4c 7c 9c", "p1 meld 8c 8d 2s", "p1 discard Qs")  # the engine judges it
    assert kinds_after(better, 0) == ["dirty", None] and side_bonus(better, 0) == DIRTY
    line = best_canasta_line(state)
    assert line is not None and line.bonus == DIRTY


# --- canastas the rules do not allow --------------------------------------------------------

SEVEN_KINGS = "Kc Kc Kd Kd Kh Kh Ks"


def test_it_finds_a_seven_card_set_where_sets_are_allowed() -> None:
    record = scripted("cerrado", [SEVEN_KINGS, ""], "Qd Qs", "p1 draw", "p1 discard Ks")
    finding = only(record, MISSED_CANASTA)
    assert finding.points == CLEAN
    check_canasta_finding(record, finding)


@pytest.mark.parametrize("variant_id", ["cerrado-stcl", "brasil"])
def test_it_finds_no_set_canasta_the_rule_set_forbids(variant_id: str) -> None:
    """cerrado-stcl has no sets; brasil's sets hold at most four cards."""
    record = scripted(variant_id, [SEVEN_KINGS, ""], "Qd Qs", "p1 draw", "p1 discard Ks")
    assert found(record, MISSED_CANASTA) == []


def test_it_counts_a_2_taken_from_the_top_of_a_use_top_pile_in_its_own_place() -> None:
    """cerrado: 2h on top of the pile; p2 holds 3h..8h. Taking is legal (the 2h goes into
    a new meld with hand cards) and 2h..8h is a clean canasta."""
    record = scripted(
        "cerrado", ["2h", "3h 4h 5h 6h 7h 8h"], "Kd Qs", "p1 draw", "p1 discard 2h", "p2 draw", "p2 discard Qs"
    )
    finding = only(record, MISSED_CANASTA)
    assert (finding.ply, finding.seat, finding.points) == (ply_of(record, "p2 draw"), 2, CLEAN)
    assert finding.witness[0] == "p2 take"
    state = check_canasta_finding(record, finding)
    assert kinds_after(state, 1) == ["clean"]


def test_a_turn_that_goes_out_is_judged_for_a_missed_canasta() -> None:
    """cerrado: p1 goes out laying 3d..8d 2c (dirty, 100) and throwing the 9d, where
    3d..9d (clean, 200) and throwing the 2c went out as well."""
    pile = "3d 4d 5d 6d 7d 8d 2c Jh Qh Kh Tc"
    played = ("p1 draw", "p1 add m1 Tc", "p1 meld 3d 4d 5d 6d 7d 8d 2c", "p1 meld Jh Qh Kh", "p1 discard 9d")
    record = after_dead("cerrado", played, pile=pile, stock="Kc Qs 9d 4h")
    real = replay_hand(record, 0)
    assert real.ended_by == "out" and side_bonus(real, 0) == 200 + 100
    better = after_dead("cerrado", (), pile=pile, stock="Kc Qs 9d 4h")
    state = replay_hand(better, 0)
    play(state, "p1 draw", "p1 add m1 Tc", "p1 meld 3d 4d 5d 6d 7d 8d 9d", "p1 meld Jh Qh Kh", "p1 discard 2c")
    assert state.ended_by == "out" and side_bonus(state, 0) == 200 + 200
    finding = only(record, MISSED_CANASTA)
    assert (finding.ply, finding.points) == (ply_of(record, "p1 discard 9d"), 100)
    check_canasta_finding(record, finding)

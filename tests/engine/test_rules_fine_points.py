"""The fine points that rules.md section 4 and notation.md now say in words:
ends and stand-ins as written in melds and lay-offs, a new 2 at its own end,
what an illegal hand does to claims, totals and the winner, sides numbered
from 1 in JSON, and a record that holds no hand."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from buraco.errors import IllegalActionError, NotationError
from buraco.notation import loads
from buraco.replay import verify

from .helpers import ALL_IDS, add_shape, build, deal, layout, load_record, meld_shape, play, record
from .test_rules_scoring import tie_hand

HIGH_THEN_LOW = ("abierto", "abierto-sucio", "cerrado", "cerrado-stcl", "cerrado-sucio", "burraco")


# --- end directives belong to add, not to meld ---------------------------------------------


@pytest.mark.parametrize("written", ["3h 4h 5h>high", "Ah>low 2h 3h", "Qh Kh Ah>high", "2c>low 4h 5h", "5h 6h 2c>high"])
def test_end_directive_in_a_meld_is_illegal(written: str) -> None:
    with pytest.raises(IllegalActionError, match="written order places every card"):
        meld_shape("cerrado", written)


def test_end_directive_in_a_meld_is_refused_at_the_table() -> None:
    state = deal("cerrado", ["3h 4h 5h", []], stock="Kd")
    play(state, "p1 draw")
    with pytest.raises(IllegalActionError, match=r"5h>high: in a meld the written order"):
        play(state, "p1 meld 3h 4h 5h>high")
    play(state, "p1 meld 3h 4h 5h")
    assert layout(state.melds[0].shape) == "3h 4h 5h"


# --- only a wild names a stand-in, never itself --------------------------------------------


@pytest.mark.parametrize("written", ["3h=3h 4h 5h", "2d=2d 3d 4d", "Ad 2d 3d 2d=2d", "7h 7s 7h=7h"])
def test_card_naming_itself_as_stand_in_is_illegal_in_a_meld(written: str) -> None:
    with pytest.raises(IllegalActionError, match="names no stand-in|never stands in for itself"):
        meld_shape("cerrado", written)


@pytest.mark.parametrize(("meld", "added"), [("3c 4c 5c", "2c=2c"), ("3c 4c 5c", "6c=6c"), ("3h 4h JK", "2h=2h")])
def test_card_naming_itself_as_stand_in_is_illegal_in_a_lay_off(meld: str, added: str) -> None:
    with pytest.raises(IllegalActionError, match="names no stand-in|never stands in for itself"):
        add_shape("cerrado", meld, added)


def test_two_in_its_own_place_is_written_plainly() -> None:
    assert layout(meld_shape("cerrado", "2d 3d 4d")) == "2d 3d 4d"
    assert meld_shape("cerrado", "2d 3d 4d").wild_index == -1
    assert layout(meld_shape("cerrado", "Ad 2d 3d 2d")) == "Ad 2d 3d 2d=4d"  # a second 2d is a wild
    assert layout(add_shape("cerrado", "3c 4c 5c", "2c")) == "2c 3c 4c 5c"


def test_wild_never_stands_in_for_a_joker() -> None:
    # docs/rules.md choice 19.
    with pytest.raises(IllegalActionError, match="never for a joker"):
        meld_shape("cerrado", "2c=JK 4h 5h")


@pytest.mark.parametrize(("kind", "meld", "added"), [("meld", "7h 7s 7d=7c", ""), ("add", "7h 7s 7d", "7c=7h")])
def test_only_a_wild_names_a_stand_in(kind: str, meld: str, added: str) -> None:
    with pytest.raises(IllegalActionError, match="only a wild names a stand-in"):
        if kind == "meld":
            meld_shape("cerrado", meld)
        else:
            add_shape("cerrado", meld, added)


# --- a new 2 whose named end is its own place --------------------------------------------


def test_new_two_whose_named_end_is_its_own_place_is_natural_there() -> None:
    shape = add_shape("cerrado", "3c JK 5c", "2c>low")  # notation.md's own example
    assert layout(shape) == "2c 3c JK=4c 5c"


@pytest.mark.parametrize("variant_id", ALL_IDS)
def test_new_two_named_low_beside_a_three_is_natural_in_every_rule_set(variant_id: str) -> None:
    shape = add_shape(variant_id, "3c 2h 5c", "2c>low")
    assert layout(shape) == "2c 3c 2h=4c 5c"


def test_new_two_named_low_away_from_its_own_place_is_a_wild_at_the_low_end() -> None:
    assert layout(add_shape("cerrado", "5c 6c 7c", "2c>low")) == "2c=4c 5c 6c 7c"


def test_new_two_named_low_below_an_ace_is_illegal() -> None:
    # docs/rules.md choice 20: the ace, not the 2, would be the low end.
    with pytest.raises(IllegalActionError, match="not an end of the run: write 2c without an end"):
        add_shape("cerrado", "3c 4c 5c", "Ac 2c>low")
    assert layout(add_shape("cerrado", "3c 4c 5c", "Ac 2c")) == "Ac 2c 3c 4c 5c"


def test_new_two_whose_named_end_is_its_own_place_is_natural_at_the_table() -> None:
    state = deal("cerrado", ["3c JK 5c 2c", []], stock="Kd")
    play(state, "p1 draw", "p1 meld 3c JK 5c", "p1 add m1 2c>low")
    assert layout(state.melds[0].shape) == "2c 3c JK=4c 5c"


# --- a displaced own-suit 2 that must go high says why ----------------------------------------


@pytest.mark.parametrize("variant_id", HIGH_THEN_LOW)
@pytest.mark.parametrize("directive", ["2h>low", "2h=3h"])
def test_displaced_own_suit_two_sent_low_says_why_it_must_go_high(variant_id: str, directive: str) -> None:
    with pytest.raises(IllegalActionError) as caught:
        add_shape(variant_id, "4h 5h 2h", f"6h {directive}")
    message = caught.value.message
    assert "gap" not in message
    assert "2h cannot be placed at 3h" in message and "high end (7h)" in message
    assert "natural 2 only at the bottom of a run that starts at 3h" in message


# --- an illegal hand: claims, totals and the winner -----------------------------------------


def illegal_hand(result: str | None = None) -> str:
    """A hand whose first action is out of turn (p2 draws where p1 plays first)."""
    return build("cerrado", [[], []]).hand_table(["p2 draw"], result=result)


def test_claimed_result_on_an_illegal_hand_is_a_mismatch() -> None:
    report = verify(load_record("cerrado", 2, [illegal_hand("{ scores = [0, 0] }")]))
    hand = report.hands[0]
    assert not hand.valid and hand.scores is None
    assert [(m["field"], m["computed"]) for m in hand.mismatches] == [("scores", None)]
    assert "illegal" in hand.mismatches[0]["message"]
    assert not report.scores_match


def test_no_winner_is_named_after_an_illegal_hand() -> None:
    deal_, actions = tie_hand("cerrado", 2)  # both sides score 5: the starter wins at target 5
    report = verify(load_record("cerrado", 2, [illegal_hand(), deal_.hand_table(actions)], extra="target = 5"))
    assert report.hands[1].valid and report.hands[1].scores == [5, 5]
    assert report.winner is None and report.winner_dict() is None
    assert report.totals == [0, 0] and report.totals_through == 0


def test_winner_decided_before_an_illegal_hand_is_still_named() -> None:
    deal_, actions = tie_hand("cerrado", 2)
    report = verify(load_record("cerrado", 2, [deal_.hand_table(actions), illegal_hand()], extra="target = 5"))
    assert report.winner == 0 and report.decided_after == 1
    assert report.totals == [5, 5] and report.totals_through == 1


def test_claimed_totals_after_an_illegal_hand_are_not_checkable() -> None:
    deal_, actions = tie_hand("cerrado", 2)
    second = deal_.hand_table(actions, result="{ scores = [5, 5], totals = [5, 5] }")
    report = verify(load_record("cerrado", 2, [illegal_hand(), second]))
    mismatches = report.hands[1].mismatches
    assert [(m["field"], m["side"], m["computed"]) for m in mismatches] == [("totals", None, None)]
    assert "cannot be checked: hand 1 is illegal" in mismatches[0]["message"]
    assert report.valid is False and not report.scores_match


def test_claimed_totals_on_an_unfinished_hand_are_not_checkable() -> None:
    deal_, actions = tie_hand("cerrado", 2)
    short = build("cerrado", [[], []], stock="Kc")
    table = short.hand_table(["p1 draw", "p1 discard Kc"], result="{ scores = [0, 0], totals = [5, 5] }")
    report = verify(load_record("cerrado", 2, [deal_.hand_table(actions), table]))
    fields = [(m["field"], m["computed"]) for m in report.hands[1].mismatches]
    assert fields == [("scores", None), ("totals", None)]
    assert "hand 2 is unfinished" in report.hands[1].mismatches[1]["message"]


# --- sides numbered from 1 in JSON ---------------------------------------------------------


def test_mismatch_numbers_sides_from_1_in_json() -> None:
    deal_, actions = tie_hand("cerrado", 2)
    report = verify(load_record("cerrado", 2, [deal_.hand_table(actions, result="{ scores = [5, 7] }")]))
    [mismatch] = report.hands[0].mismatches
    assert mismatch["side"] == 2 and mismatch["message"].startswith("side 2 score")
    assert json.loads(json.dumps(report.as_dict()))["hands"][0]["mismatches"][0]["side"] == 2


def test_winner_numbers_sides_from_1_in_json() -> None:
    deal_, actions = tie_hand("cerrado", 1)  # p2 begins hand 1: the tie goes to side 2
    report = verify(load_record("cerrado", 2, [deal_.hand_table(actions)], extra="target = 5"))
    assert report.winner_dict() == {"side": 2, "seats": [2], "players": ["P2"], "after_hand": 1}


# --- a record holds at least one hand ------------------------------------------------------


def test_record_without_hands_is_not_readable() -> None:
    with pytest.raises(NotationError, match="at least one") as caught:
        loads('brn = 1\nvariant = "cerrado"\nplayers = ["a", "b"]\n')
    assert (caught.value.line, caught.value.column) == (1, 1)


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('brn = 1\nvariant = "cerrado"\nplayers = ["a", "b"]\nhands = []\n', (4, 9)),
        ('{"brn": 1, "variant": "cerrado", "players": ["a", "b"],\n "hands": []}', (2, 11)),
    ],
)
def test_record_with_an_empty_hands_array_is_not_readable(text: str, where: tuple[int, int]) -> None:
    with pytest.raises(NotationError, match="at least one") as caught:
        loads(text)
    assert (caught.value.line, caught.value.column) == where


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "buraco", *args], capture_output=True, text=True, timeout=120)


def test_cli_verify_exits_2_for_a_record_without_hands(tmp_path: Path) -> None:
    path = tmp_path / "empty.brn"
    path.write_text('brn = 1\nvariant = "cerrado"\nplayers = ["a", "b"]\n')
    result = run_cli("verify", "--json", str(path))
    assert result.returncode == 2
    data = json.loads(result.stdout)
    assert data["valid"] is False and "at least one" in data["error"]["message"]
    assert (data["error"]["line"], data["error"]["column"]) == (1, 1)


# --- the CLI's text output ---------------------------------------------------------------


def test_cli_text_output_counts_one_hand_and_names_the_winner(tmp_path: Path) -> None:
    deal_, actions = tie_hand("cerrado", 1)
    path = tmp_path / "tie.brn"
    path.write_text(record("cerrado", 2, [deal_.hand_table(actions)], extra="target = 5"))
    result = run_cli("verify", str(path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "cerrado, 1 hand: ok" in result.stdout
    assert "winner: P2\n" in result.stdout


def test_cli_text_output_joins_partners_names(tmp_path: Path) -> None:
    from buraco.notation import dumps
    from buraco.selfplay import play_match

    path = tmp_path / "pairs.brn"
    text = dumps(play_match("cerrado", players=4, hands=1, seed=3)).replace("[[hands]]", "target = 1\n\n[[hands]]", 1)
    path.write_text(text)
    report = verify(loads(text))
    assert report.winner is not None
    names = " + ".join(report.winner_dict()["players"])  # type: ignore[index]
    result = run_cli("verify", str(path))
    assert f"winner: {names}\n" in result.stdout and "[" not in result.stdout.split("winner:")[1]

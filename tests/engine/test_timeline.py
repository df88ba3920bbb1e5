"""A hand's timeline: every table state, and for each ply who played, the action as
written, what it did (its operation) and the automatic steps that followed it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from buraco.notation import Record, dumps
from buraco.replay import entry_text, iter_hand, iter_timeline, timeline, try_actions
from buraco.selfplay import play_match

from .helpers import act, actions_of, build, burn_stock, end_by_stock, load_record

ROOT = Path(__file__).resolve().parents[2]
NEW_KEYS = {"seat", "action", "operation", "automatic"}


def recorded(variant_id: str, state: object, deal: object, players: int = 2) -> Record:
    """The hand played through the helpers, as a record."""
    return load_record(variant_id, players, [deal.hand_table(actions_of(state))])  # type: ignore[attr-defined]


def kinds_of(entries: list[dict[str, object]]) -> set[str]:
    return {e["operation"]["kind"] for e in entries if e["operation"]}  # type: ignore[index]


@pytest.fixture(scope="module")
def played() -> Record:
    return play_match("cerrado", players=2, hands=1, seed=3)


def test_it_keeps_every_key_of_the_table_state_and_adds_what_happened(played: Record) -> None:
    states = [state.to_json() for state in iter_hand(played, 0)]
    entries = timeline(played, 0)
    assert len(entries) == len(states)
    for state, entry in zip(states, entries):
        assert {k: v for k, v in entry.items() if k not in NEW_KEYS} == state
        assert NEW_KEYS <= entry.keys()
    json.dumps(entries)  # plain data


def test_it_starts_with_the_deal_which_no_one_played(played: Record) -> None:
    deal = timeline(played, 0)[0]
    assert (deal["ply"], deal["seat"], deal["action"], deal["operation"], deal["automatic"]) == (0, None, None, None, [])


def test_it_names_each_plys_action_as_written_and_its_seat(played: Record) -> None:
    hand = played.hands[0]
    for entry in timeline(played, 0)[1:]:
        assert entry["action"] == hand.written[entry["ply"] - 1]
        assert entry["seat"] == int(entry["action"].split()[0][1:])
        assert entry["operation"]["seat"] == entry["seat"]


def test_it_tells_draws_takes_melds_lay_offs_dead_piles_and_discards(played: Record) -> None:
    entries = timeline(played, 0)
    assert kinds_of(entries) == {"drew", "took", "melded", "laid-off", "picked-dead", "discarded"}
    for before, entry in zip(entries, entries[1:]):
        op, seat = entry["operation"], str(entry["seat"])
        if op["kind"] == "drew":
            assert entry["stock"] == before["stock"] - 1
            assert sorted(entry["hands"][seat]) == sorted([*before["hands"][seat], op["card"]])
        elif op["kind"] == "took":
            assert before["discard"][-len(op["cards"]):] == op["cards"]
        elif op["kind"] == "melded":
            [meld] = [m for m in entry["melds"] if m["id"] == op["meld"]]
            assert meld["cards"] == op["cards"] and op["meld"] not in [m["id"] for m in before["melds"]]
        elif op["kind"] == "laid-off":
            [old] = [m for m in before["melds"] if m["id"] == op["meld"]]
            [new] = [m for m in entry["melds"] if m["id"] == op["meld"]]
            assert sorted(new["cards"]) == sorted([*old["cards"], *op["cards"]])
        elif op["kind"] == "picked-dead":
            assert len(entry["dead"]) == len(before["dead"]) - 1 and op["count"] == len(op["cards"]) == before["dead"][0]
            assert op["pile"] in (1, 2)
        elif op["kind"] == "discarded":
            assert entry["discard"][-1] == op["card"]


def test_it_tells_a_take_with_its_cards() -> None:
    deal = build("cerrado", ["7d", "7h 7s"], stock="Kd")
    state = deal.state()
    act(state, "p1 draw")
    act(state, "p1 discard 7d")
    act(state, "p2 take")
    entries = timeline(recorded("cerrado", state, deal), 0)
    assert entries[3]["operation"] == {"kind": "took", "seat": 2, "cards": ["7d"]}
    assert entries[3]["must_meld"] == "7d"


def test_it_tells_the_wild_that_moved_in_a_lay_off() -> None:
    deal = build("cerrado", ["5h 2c 7h 6h", ""], stock="Kd")
    state = deal.state()
    act(state, "p1 draw")
    act(state, "p1 meld 5h 2c 7h")
    act(state, "p1 add m1 6h")
    entries = timeline(recorded("cerrado", state, deal), 0)
    assert entries[2]["operation"]["cards"] == ["5h", "2c", "7h"]
    assert entries[3]["operation"] == {
        "kind": "laid-off", "seat": 1, "meld": "m1", "cards": ["6h"],
        "wild_moved": [{"card": "2c", "from": "6h", "to": "8h"}],
    }
    assert entries[3]["melds"][0]["wild"] == {"card": "2c", "as": "8h"}


def test_it_tells_no_wild_move_when_the_wild_stays() -> None:
    deal = build("cerrado", ["5h 2c 7h 8h", ""], stock="Kd")
    state = deal.state()
    act(state, "p1 draw")
    act(state, "p1 meld 5h 2c 7h")
    act(state, "p1 add m1 8h")
    entry = timeline(recorded("cerrado", state, deal), 0)[3]
    assert entry["operation"]["cards"] == ["8h"] and entry["operation"]["wild_moved"] == []


def test_it_tells_the_dead_piles_moving_into_the_stock_after_the_discard_that_emptied_it() -> None:
    deal = build("cerrado", ["", ""])
    state = deal.state()
    burn_stock(state)
    entries = timeline(recorded("cerrado", state, deal), 0)
    moved = [e for e in entries if e["automatic"]]
    assert len(moved) == 1
    entry = moved[0]
    assert entry["operation"]["kind"] == "discarded"
    assert entry["automatic"] == [{"kind": "dead-to-stock", "seat": None, "piles": 2, "count": 22}]
    assert entry["dead"] == [] and entry["stock"] == 22


def test_it_tells_the_hand_ended_by_the_stock() -> None:
    deal = build("cerrado", ["", ""])
    state = deal.state()
    end_by_stock(state)
    last = timeline(recorded("cerrado", state, deal), 0)[-1]
    assert last["automatic"][-1] == {"kind": "hand-ended", "seat": None, "how": "stock"}
    assert last["ended_by"] == "stock"


def test_it_tells_the_hand_ended_by_who_went_out(played: Record) -> None:
    last = timeline(played, 0)[-1]
    assert last["automatic"] == [{"kind": "hand-ended", "seat": last["out_by"], "how": "out"}]
    assert all(not e["automatic"] for e in timeline(played, 0)[:-1])


def test_it_gives_the_entries_before_an_illegal_action(played: Record) -> None:
    text = dumps(played).replace('"p2 draw"', '"p1 draw"', 1)
    from buraco.notation import loads

    bad = loads(text)
    entries = []
    with pytest.raises(Exception, match="turn"):
        for entry in iter_timeline(bad, 0):
            entries.append(entry)
    assert entries and entries == timeline(played, 0)[: len(entries)]


def test_it_says_what_each_action_did_in_a_sentence(played: Record) -> None:
    entries = timeline(played, 0)
    assert entry_text(entries[0]) == "the deal"
    assert entry_text(entries[1]) == f"ply 1, p1 draw: p1 drew {entries[1]['operation']['card']}"
    assert entry_text(entries[-1]).endswith(f"the hand ended: p{entries[-1]['out_by']} went out")


# --- trying other plays ------------------------------------------------------------------


def test_it_tries_the_records_own_actions_to_the_same_entries(played: Record) -> None:
    entries = timeline(played, 0)
    actions = list(played.hands[0].written[10:20])
    results = try_actions(played, 0, 10, actions)
    assert [r["action"] for r in results] == actions
    assert [r["entry"] for r in results] == entries[11:21]


def test_it_stops_trying_at_the_first_illegal_action_with_its_sentence(played: Record) -> None:
    results = try_actions(played, 0, 0, ["p1 draw", "p2 draw", "p1 discard Kc"])
    assert len(results) == 2
    assert "entry" in results[0] and "error" not in results[0]
    error = results[1]["error"]
    assert error["kind"] == "illegal" and error["message"] == "it is p1's turn, not p2's"
    assert (error["hand"], error["ply"], error["action"]) == (1, 2, "p2 draw")


def test_it_answers_an_unreadable_action_as_a_notation_error(played: Record) -> None:
    [result] = try_actions(played, 0, 0, ["p1 mled 5h"])
    assert result["error"]["kind"] == "notation" and "not a verb" in result["error"]["message"]


def test_it_leaves_the_record_as_it_was(played: Record) -> None:
    before = timeline(played, 0)
    try_actions(played, 0, 0, ["p1 draw"])
    assert timeline(played, 0) == before


def test_it_refuses_a_ply_out_of_range(played: Record) -> None:
    with pytest.raises(ValueError, match="plies 0 to"):
        try_actions(played, 0, 10_000, ["p1 draw"])


# --- the CLI ---------------------------------------------------------------------------


def test_show_says_which_action_was_just_played(tmp_path: Path, played: Record) -> None:
    path = tmp_path / "m.brn"
    path.write_text(dumps(played))
    result = subprocess.run([sys.executable, "-m", "buraco", "show", str(path), "--ply", "1"],
                            capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0
    assert result.stdout.splitlines()[1].startswith("just played: ply 1, p1 draw: p1 drew ")
    data = json.loads(subprocess.run([sys.executable, "-m", "buraco", "show", str(path), "--ply", "1", "--json"],
                                     capture_output=True, text=True, cwd=ROOT).stdout)
    assert data["action"] == "p1 draw" and data["operation"]["kind"] == "drew"

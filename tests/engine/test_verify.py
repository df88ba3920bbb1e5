"""Verifying whole records: unfinished hands, claims, positions, the replay states."""

from __future__ import annotations

import dataclasses
import json

from buraco.notation import Result, dumps, loads
from buraco.replay import canonical, iter_hand, state_at, timeline, verify

from .records import selfplay_record


def test_it_leaves_an_unfinished_hand_legal_but_unscored() -> None:
    record = selfplay_record("cerrado")
    hand = record.hands[0]
    short = dataclasses.replace(hand, actions=hand.actions[:20], parsed=hand.parsed[:20], written=hand.written[:20])
    report = verify(dataclasses.replace(record, hands=(short,)))
    assert report.valid and not report.hands[0].finished
    assert report.hands[0].scores is None
    assert report.hands[0].mismatches and report.hands[0].mismatches[0]["computed"] is None


def test_it_refuses_a_hand_after_an_unfinished_one() -> None:
    record = selfplay_record("burraco")
    first = record.hands[0]
    short = dataclasses.replace(first, actions=first.actions[:9], parsed=first.parsed[:9], written=first.written[:9])
    reloaded = loads(dumps(dataclasses.replace(record, hands=(short, record.hands[1]))))
    report = verify(reloaded)
    assert not report.valid
    assert report.error is not None and report.error.hand == 2
    assert "follows hand 1, which is unfinished" in report.error.message
    assert report.error.line is not None


def test_it_compares_claimed_totals_too() -> None:
    record = selfplay_record("abierto")
    second = record.hands[1]
    assert second.result is not None and second.result.totals is not None
    wrong = Result(second.result.scores, tuple(t + 5 for t in second.result.totals))
    report = verify(dataclasses.replace(record, hands=(record.hands[0], dataclasses.replace(second, result=wrong))))
    assert [m["field"] for m in report.hands[1].mismatches] == ["totals", "totals"]
    assert not report.ok and report.valid


def test_it_yields_the_table_after_every_action() -> None:
    record = selfplay_record("brasil", players=3)
    plies = [state.ply for state in iter_hand(record, 0)]
    assert plies == list(range(len(record.hands[0].actions) + 1))


def test_its_timeline_serialises_to_json_with_the_whole_table() -> None:
    record = selfplay_record("fechado-stbl", players=4)
    states = timeline(record, 0)
    assert len(states) == len(record.hands[0].actions) + 1
    last = json.loads(json.dumps(states[-1]))
    assert last["ended_by"] in ("out", "stock")
    assert {"hands", "melds", "discard", "stock", "dead", "running"} <= last.keys()
    for meld in last["melds"]:
        assert meld["cards"] == [entry["card"] for entry in meld["layout"]]
        if meld["wild"]:
            assert any(entry.get("as") == meld["wild"]["as"] for entry in meld["layout"])


def test_it_counts_cards_the_same_at_every_ply() -> None:
    record = selfplay_record("burraco-106")
    deck = record.rules.deck_size
    for state in iter_hand(record, 0):
        table = sum(len(m.shape.cards) for m in state.melds)
        held = sum(state.hand_sizes[1:])
        dead = sum(len(p) for p in state.dead)
        assert table + held + dead + len(state.discard_pile) + state.stock_count == deck


def test_state_at_returns_the_table_of_that_ply() -> None:
    record = selfplay_record("cerrado-sucio")
    assert state_at(record, 1, 5).ply == 5


def test_canonical_rewrites_melds_in_layout_order_and_still_verifies() -> None:
    record = selfplay_record("cerrado", seed=11)
    rewritten = canonical(record)
    assert verify(loads(dumps(rewritten))).ok
    assert rewritten.hands[0].actions != () and len(rewritten.hands[0].actions) == len(record.hands[0].actions)

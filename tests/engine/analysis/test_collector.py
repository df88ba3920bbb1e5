"""The analysis pauses the cycle collector (buraco.analysis.collector): safe only while
the analysis and the replay it drives make no reference cycles, which these tests check."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

from buraco.analysis import analyze_record
from buraco.analysis.collector import collector_paused
from buraco.rules import VARIANTS
from buraco.selfplay import play_match


@pytest.fixture
def saving_all() -> Iterator[list[object]]:
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        yield gc.garbage
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_the_analysis_leaves_no_cycle_for_the_collector(variant: str, saving_all: list[object]) -> None:
    record = play_match(variant, players=2, hands=2, seed=3)
    analysis = analyze_record(record)
    assert analysis.findings  # the searches, the replays and the refused lay-offs all ran
    gc.collect()
    kinds = sorted({type(o).__name__ for o in saving_all})
    assert saving_all == [], f"cyclic garbage left by the analysis: {kinds}"


def test_a_refused_lay_off_leaves_no_cycle(saving_all: list[object]) -> None:
    # _add_to_run keeps the first error of its attempts and raises it at the end: without
    # its traceback, or the error and the frame would hold each other.
    from buraco.cards import parse_cards
    from buraco.errors import IllegalActionError
    from buraco.melds import CardToken, resolve_add, resolve_meld

    variant = VARIANTS["cerrado"]
    shape = resolve_meld([CardToken(c) for c in parse_cards("5h 6h 7h")], variant)
    for _ in range(3):
        with pytest.raises(IllegalActionError):
            resolve_add(shape, [CardToken(c) for c in parse_cards("9h Ks")], variant)
    gc.collect()
    assert saving_all == []


def test_the_collector_comes_back_after_the_last_of_several_threads() -> None:
    assert gc.isenabled()
    inside = threading.Barrier(3)
    leave = threading.Event()
    seen: list[bool] = []

    def analyse() -> None:
        with collector_paused():
            inside.wait()
            leave.wait()
            seen.append(gc.isenabled())

    threads = [threading.Thread(target=analyse) for _ in range(2)]
    for thread in threads:
        thread.start()
    inside.wait()
    assert not gc.isenabled()
    leave.set()
    for thread in threads:
        thread.join()
    assert seen == [False, False]
    assert gc.isenabled()

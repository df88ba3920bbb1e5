"""Properties that must hold for every rule set (hypothesis)."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from buraco.errors import BuracoError, IllegalActionError, NotationError
from buraco.notation import dumps, loads
from buraco.replay import verify
from buraco.selfplay import play_match

from .records import EVERY_PAIR, per_pair, selfplay_text

SETTINGS = per_pair(30)


@EVERY_PAIR
@SETTINGS
@given(seed=st.integers(0, 10_000))
def test_it_verifies_every_self_play_match(case: tuple[str, int], seed: int) -> None:
    variant, players = case
    record = play_match(variant, players=players, hands=2, seed=seed)
    report = verify(loads(dumps(record)))
    assert report.error is None, report.error
    assert report.ok
    assert all(hand.finished for hand in report.hands)


@EVERY_PAIR
@SETTINGS
@given(seed=st.integers(0, 10_000))
def test_it_finds_every_planted_scoring_mistake(case: tuple[str, int], seed: int) -> None:
    variant, players = case
    record = play_match(variant, players=players, hands=2, seed=seed, mistakes=1.0)
    report = verify(loads(dumps(record)))
    assert report.valid
    for hand, hand_report in zip(record.hands, report.hands):
        planted = dict(hand.extra).get("x-planted")
        assert planted is not None
        side = int(str(planted).split()[1])  # "side 1": sides are numbered from 1, in JSON too
        assert any(m["field"] == "scores" and m["side"] == side for m in hand_report.mismatches)


@EVERY_PAIR
@SETTINGS
@given(seed=st.integers(0, 10_000))
def test_it_round_trips_on_the_reloaded_object(case: tuple[str, int], seed: int) -> None:
    variant, players = case
    reloaded = loads(dumps(play_match(variant, players=players, hands=1, seed=seed)))
    assert loads(dumps(reloaded)) == reloaded
    assert loads(dumps(reloaded, "json")) == reloaded


def _mutate(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    kind = rng.randrange(6)
    index = rng.randrange(len(lines))
    if kind == 0:  # one character changed
        position = rng.randrange(len(text))
        return text[:position] + rng.choice("abcdhsJKT0123456789 =\"[],#pm-") + text[position + 1:]
    if kind == 1:  # a line lost
        del lines[index]
    elif kind == 2:  # two lines swapped
        other = rng.randrange(len(lines))
        lines[index], lines[other] = lines[other], lines[index]
    elif kind == 3:  # a line repeated
        lines.insert(index, lines[index])
    elif kind == 4:  # a card inside an action replaced by another card
        actions = [i for i, line in enumerate(lines) if line.startswith('  "p')]
        if actions:
            target = rng.choice(actions)
            words = lines[target].split(" ")
            word_index = rng.randrange(3, len(words)) if len(words) > 3 else len(words) - 1
            words[word_index] = rng.choice(["7h", "JK", "2c", "As", "Kd", "m9", "take", "3"]) + (
                '",' if words[word_index].endswith('",') else ""
            )
            lines[target] = " ".join(words)
    else:  # the text cut short
        return text[: rng.randrange(len(text))]
    return "\n".join(lines)


@EVERY_PAIR
@per_pair(300)
@given(seed=st.integers(0, 2**32 - 1))
def test_it_never_crashes_on_a_mutated_record(case: tuple[str, int], seed: int) -> None:
    variant, players = case
    text = _mutate(selfplay_text(variant, players, 1, 3), random.Random(seed))
    try:
        record = loads(text)
    except NotationError as error:
        assert error.message
        assert error.line is not None or "required" in error.message
        return
    report = verify(record)
    error = report.error
    if error is not None:
        assert isinstance(error, BuracoError)
        assert error.hand is not None and error.message
        if isinstance(error, IllegalActionError) and error.ply is not None:
            assert error.action is not None and error.line is not None and error.column is not None

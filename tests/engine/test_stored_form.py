"""buraco.notation.dumps_stored / loads_stored: the record as the service keeps it once read
reads back equal, spelled as written, dated as TOML dates it, positioned in the upload."""

from __future__ import annotations

import datetime as dt

import pytest

from buraco.errors import IllegalActionError
from buraco.notation import dumps, dumps_stored, loads, loads_stored
from buraco.replay import iter_timeline, verify
from buraco.rules import VARIANTS
from buraco.selfplay import play_match


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_the_stored_form_reads_back_the_equal_record(variant: str) -> None:
    for players in sorted(VARIANTS[variant].player_counts):
        record = loads(dumps(play_match(variant, players=players, hands=2, seed=11)))
        again = loads_stored(dumps_stored(record))
        assert again == record
        assert [h.parsed for h in again.hands] == [h.parsed for h in record.hands]
        assert verify(again).as_dict() == verify(record).as_dict()


def test_actions_keep_their_spelling_and_x_values_their_toml_type() -> None:
    record = play_match("cerrado", players=2, hands=1, seed=12)
    text = dumps(record).replace('"p1 draw', '"P1   Draw', 1).replace(
        "[[hands]]", "x-when = 2026-11-29T20:15:00\nx-day = 2026-11-29\n\n[[hands]]", 1)
    original = loads(text)
    again = loads_stored(dumps_stored(original), source=text)
    assert again.hands[0].written == original.hands[0].written and again.hands[0].written[0].startswith("P1   Draw")
    assert dict(again.extra) == {"x-when": dt.datetime(2026, 11, 29, 20, 15), "x-day": dt.date(2026, 11, 29)}
    assert dumps(again) == dumps(original)
    first = next(iter_timeline(again, 0))
    assert first == next(iter_timeline(original, 0))


def test_an_illegal_action_is_placed_in_the_upload_not_in_the_stored_form() -> None:
    record = play_match("cerrado", players=2, hands=1, seed=13)
    text = dumps(record).replace('"p1 draw",', '"p2 draw",', 1)
    stored = loads_stored(dumps_stored(loads(text)), source=text, source_format="toml")
    error = verify(stored).hands[0].error
    assert isinstance(error, IllegalActionError)
    assert error.as_dict() == verify(loads(text)).hands[0].error.as_dict()  # type: ignore[union-attr]
    assert text.splitlines()[error.line - 1].strip().startswith('"p2 draw"')  # type: ignore[operator]

"""Reading and writing BRN: the contract of notation.md."""

from __future__ import annotations

import json

import pytest

from buraco.errors import NotationError
from buraco.notation import dumps, loads, to_data

from .records import selfplay_text

SMALL = """\
brn = 1
variant = "brasil"
players = ["Ana", "Bia"]
event = "Thursday club"
date = 2026-11-29
x-club = { name = "Clube", tables = [1, 2] }

[[hands]]
dealer = 2
dealt = [
  "7h 8h 9h Kd Kc 3s 4s 5s 6d 6c 2c",
  "Ah Ad Ac 9s 9d Tc Jc Qc 4h 5h JK",
]
actions = [
  "p1 draw 4c",   # the stock is not given, so draws name their card
  "p1 meld 7h 8h 9h",
  "p1 discard Kd",
  "p2 take 1",
  "p2 meld kd ks jk",
]
x-comment = "kept"
"""


def error_of(text: str) -> NotationError:
    with pytest.raises(NotationError) as caught:
        loads(text)
    return caught.value


def test_it_reads_players_variant_and_metadata() -> None:
    record = loads(SMALL)
    assert record.variant == "brasil"
    assert record.players == ("Ana", "Bia")
    assert dict(record.metadata) == {"event": "Thursday club", "date": "2026-11-29"}
    assert record.hands[0].dealer == 2
    assert record.hands[0].stock is None


def test_it_writes_cards_and_actions_canonically() -> None:
    record = loads(SMALL)
    assert record.hands[0].actions[-1] == "p2 meld Kd Ks JK"
    assert '"p2 meld Kd Ks JK",' in dumps(record)


def test_it_keeps_unknown_x_keys() -> None:
    text = dumps(loads(SMALL))
    assert 'x-club = { name = "Clube", tables = [1, 2] }' in text
    assert 'x-comment = "kept"' in text
    assert to_data(loads(text))["x-club"] == {"name": "Clube", "tables": [1, 2]}


def test_an_x_key_ending_in_a_newline_is_written_quoted() -> None:
    # A bare TOML key is [A-Za-z0-9_-]+ and nothing more; "$" in a pattern also matches
    # before a final newline, which once wrote the key bare and broke the record.
    data = json.loads(dumps(loads(SMALL), "json"))
    data["x-\n"] = "kept"
    text = dumps(loads(json.dumps(data)))
    assert '"x-\\n" = "kept"' in text
    assert to_data(loads(text))["x-\n"] == "kept"


def test_it_round_trips_toml_on_the_reloaded_object() -> None:
    once = loads(dumps(loads(SMALL)))
    twice = loads(dumps(once))
    assert twice == once
    assert dumps(twice) == dumps(once)


def test_it_reads_the_json_form_as_the_same_record() -> None:
    record = loads(SMALL)
    as_json = dumps(record, "json")
    assert json.loads(as_json)["hands"][0]["actions"][0] == "p1 draw 4c"
    assert loads(as_json) == record
    assert loads(dumps(loads(as_json))) == record


@pytest.mark.parametrize("variant", ["cerrado", "brasil", "burraco"])
def test_it_round_trips_self_play_records(variant: str) -> None:
    first = loads(selfplay_text(variant))
    again = loads(dumps(first))
    assert again == first
    assert loads(dumps(again, "json")) == again


def test_it_points_at_an_unknown_key() -> None:
    error = error_of(SMALL.replace("event =", "venue ="))
    assert "unknown key 'venue'" in error.message
    assert (error.line, error.column) == (4, 1)


def test_it_points_at_a_card_that_is_not_a_card() -> None:
    error = error_of(SMALL.replace('"7h 8h 9h Kd', '"7h 8h 9x Kd'))
    assert "'9x'" in error.message
    assert (error.line, error.column) == (11, 10)


def test_it_points_at_an_action_that_is_not_an_action() -> None:
    error = error_of(SMALL.replace('"p1 meld 7h 8h 9h"', '"p1 mled 7h 8h 9h"'))
    assert "'mled' is not a verb" in error.message
    assert (error.line, error.column) == (16, 7)
    assert (error.hand, error.ply) == (1, 2)


def test_it_points_at_a_bad_card_inside_an_action() -> None:
    error = error_of(SMALL.replace('"p1 discard Kd"', '"p1 discard Kz"'))
    assert (error.line, error.column) == (17, 15)


def test_it_reports_toml_syntax_errors_with_their_position() -> None:
    error = error_of(SMALL.replace("dealer = 2", "dealer = = 2"))
    assert error.message.startswith("not valid TOML")
    assert error.line == 9


def test_it_reports_json_syntax_errors_with_their_position() -> None:
    error = error_of('{"brn": 1,\n "variant": }')
    assert (error.line, error.column) == (2, 13)


def test_it_refuses_a_player_count_the_rule_set_does_not_allow() -> None:
    error = error_of(SMALL.replace('variant = "brasil"', 'variant = "burraco-106"').replace(
        'players = ["Ana", "Bia"]', 'players = ["Ana", "Bia", "Caio"]'))
    assert "played by 2 players, not 3" in error.message
    assert error.line == 3


def test_it_refuses_teams_other_than_opposite_seats() -> None:
    four = SMALL.replace('variant = "brasil"', 'variant = "cerrado"').replace(
        'players = ["Ana", "Bia"]', 'players = ["Ana", "Bia", "Caio", "Duda"]\nteams = [[1, 2], [3, 4]]')
    error = error_of(four)
    assert "teams may only be [[1, 3], [2, 4]]" in error.message
    assert error.line == 4


def test_it_accepts_the_opposite_seat_teams() -> None:
    four = SMALL.replace('variant = "brasil"', 'variant = "cerrado"').replace(
        'players = ["Ana", "Bia"]', 'players = ["Ana", "Bia", "Caio", "Duda"]\nteams = [[1, 3], [2, 4]]')
    assert loads(four).teams == ((1, 3), (2, 4))


def test_it_refuses_another_format_version() -> None:
    error = error_of(SMALL.replace("brn = 1", "brn = 2"))
    assert "version 1" in error.message and error.line == 1


def test_it_refuses_an_unknown_rule_set() -> None:
    error = error_of(SMALL.replace('"brasil"', '"canasta"'))
    assert "unknown rule set 'canasta'" in error.message and error.line == 2


def test_it_requires_brn_variant_and_players() -> None:
    assert "'variant'" in error_of('brn = 1\nplayers = ["a", "b"]\n').message


def test_it_refuses_a_seat_beyond_the_players() -> None:
    error = error_of(SMALL.replace('"p2 take 1"', '"p3 take 1"'))
    assert "there is no seat 3" in error.message


def test_it_refuses_non_utf8_bytes() -> None:
    error = error_of(b"brn = 1\xff\n")  # type: ignore[arg-type]
    assert "UTF-8" in error.message


def test_it_reads_a_result_and_checks_its_length() -> None:
    text = SMALL.replace('x-comment = "kept"', 'result = { scores = [10, 20, 30] }')
    error = error_of(text)
    assert "has 3 numbers; this match has 2 sides" in error.message


def test_it_reads_coaching_notes() -> None:
    text = SMALL + '\n[[hands.notes]]\nply = 2\nauthor = "coach"\ntext = "meld later"\ntag = "mistake"\n'
    record = loads(text)
    assert record.hands[0].notes[0].tag == "mistake"
    assert loads(dumps(record)) == record


def test_it_refuses_nesting_too_deep_for_the_reader_with_a_clear_error() -> None:
    for text in ("a = " + "[" * 5000 + "]" * 5000, '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}"):
        error = error_of(text)
        assert "nested too deeply" in error.message and error.line == 1

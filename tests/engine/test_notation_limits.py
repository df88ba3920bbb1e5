"""The limits of BRN (docs/notation.md, "Limits"): what a reader refuses so that no record
is unbounded, or kept in a form that cannot be written back."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from buraco.errors import NotationError
from buraco.notation import (
    MAX_ACTIONS,
    MAX_CLAIM,
    MAX_EXTENSION_DEPTH,
    MAX_EXTENSION_TEXT,
    MAX_HANDS,
    MAX_METADATA,
    MAX_NAME,
    MAX_NOTE_TEXT,
    MAX_NOTES,
    dumps,
    loads,
    to_data,
)

BASE = """\
brn = 1
variant = "brasil"
players = ["Ana", "Bia"]
event = "Thursday club"

[[hands]]
dealer = 2
dealt = [
  "7h 8h 9h Kd Kc 3s 4s 5s 6d 6c 2c",
  "Ah Ad Ac 9s 9d Tc Jc Qc 4h 5h JK",
]
actions = [
  "p1 draw 4c",
  "p1 meld 7h 8h 9h",
  "p1 discard Kd",
]
"""


def base_data() -> dict[str, Any]:
    return to_data(loads(BASE))


def as_json(data: dict[str, Any], ascii: bool = False) -> str:
    return json.dumps(data, ensure_ascii=ascii, indent=1)


def error_of(text: str) -> NotationError:
    with pytest.raises(NotationError) as caught:
        loads(text)
    return caught.value


def where(text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    """Line and column (1-based) of the nth occurrence of needle in text."""
    index = -1
    for _ in range(nth + 1):
        index = text.index(needle, index + 1)
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def assert_at(error: NotationError, text: str, needle: str, nth: int = 0) -> None:
    assert (error.line, error.column) == where(text, needle, nth), error


# --- x- values: size and depth ------------------------------------------------------------


def test_it_refuses_x_values_past_the_size_limit_at_their_key() -> None:
    text = BASE.replace('event = "Thursday club"\n', "x-big = [" + ", ".join(["123456"] * 20_000) + "]\n")
    error = error_of(text)
    assert "64 KiB" in error.message and "x-big" in error.message
    assert_at(error, text, "x-big")


def test_the_size_limit_counts_all_x_values_of_a_record_together() -> None:
    half = "a" * (MAX_EXTENSION_TEXT // 2)
    text = BASE.replace('event = "Thursday club"\n', f'x-one = "{half}"\n') + f'x-two = "{half}"\n'
    error = error_of(text)
    assert "x-two" in error.message and "64 KiB" in error.message
    assert_at(error, text, "x-two")
    loads(BASE + f'x-one = "{half[:-100]}"\n')  # one half alone fits


def test_it_refuses_a_6_mb_integer_array_quickly_in_json() -> None:
    data = {**base_data(), "x-big": [123456] * 900_000}
    text = json.dumps(data)
    error = error_of(text)
    assert "x-big" in error.message
    assert_at(error, text, '"x-big"')


def test_it_refuses_x_values_nested_past_the_depth_limit() -> None:
    deep = "[" * (MAX_EXTENSION_DEPTH + 1) + "]" * (MAX_EXTENSION_DEPTH + 1)
    text = BASE + f"x-deep = {deep}\n"
    error = error_of(text)
    assert f"more than {MAX_EXTENSION_DEPTH} deep" in error.message
    assert_at(error, text, "x-deep")
    ok = "[" * MAX_EXTENSION_DEPTH + "]" * MAX_EXTENSION_DEPTH
    record = loads(BASE + f"x-deep = {ok}\n")
    assert loads(dumps(record)) == record


@pytest.mark.parametrize("levels", [340, 900])
def test_it_refuses_deep_json_nesting_in_x_values(levels: int) -> None:
    data = base_data()
    text = as_json(data)[:-2] + ',\n "x-deep": ' + "[" * levels + "]" * levels + "\n}\n"
    error = error_of(text)
    assert "deep" in error.message
    assert_at(error, text, '"x-deep"')


def test_deep_json_nesting_in_a_hand_x_value_is_refused_too() -> None:
    data = base_data()
    nested: Any = []
    for _ in range(340):
        nested = [nested]
    data["hands"][0]["x-deep"] = nested
    text = as_json(data)
    error = error_of(text)
    assert "x-deep" in error.message
    assert_at(error, text, '"x-deep"')


# --- x- values: what TOML cannot hold -------------------------------------------------------


@pytest.mark.parametrize(
    "value, needle",
    [
        (None, "null"),
        ([1, None], "null"),
        ({"a": {"b": None}}, "null"),
        (2**64, "64 bits"),
        ([-(2**63) - 1], "64 bits"),
    ],
)
def test_it_refuses_x_values_toml_cannot_hold(value: Any, needle: str) -> None:
    data = base_data()
    data["x-data"] = value
    text = as_json(data)
    error = error_of(text)
    assert needle in error.message and "x-data" in error.message
    assert_at(error, text, '"x-data"')


def test_it_refuses_null_in_x_values_of_hands_results_and_notes() -> None:
    for place in ("hand", "result", "note"):
        data = base_data()
        hand = data["hands"][0]
        target = {"hand": hand, "result": hand.setdefault("result", {"scores": [0, 0]}),
                  "note": hand.setdefault("notes", [{"ply": 1, "text": "hm"}])[0]}[place]
        target["x-null"] = None
        text = as_json(data)
        error = error_of(text)
        assert "null" in error.message, place
        assert_at(error, text, '"x-null"')


def test_it_refuses_integers_python_cannot_read() -> None:
    for text in (BASE + "x-n = " + "9" * 5000 + "\n", as_json(base_data())[:-2] + ', "x-n": ' + "9" * 5000 + "}"):
        error = error_of(text)
        assert "digits" in error.message
        assert_at(error, text, "9999")


def test_x_values_of_every_toml_kind_round_trip() -> None:
    text = BASE + (
        'x-mixed = [1, "two", 3.5, true, [4], { five = 5 }, 1979-05-27T07:32:00Z, 1979-05-27, 07:32:00.5]\n'
        "x-floats = [inf, -inf, 1e+16, 1e-05, -0.0]\n"
        'x-table = { "dotted.key" = "v", "" = 1, "a\\nb" = "line\\tbreak\\u0001" }\n'
    )
    record = loads(text)
    assert loads(dumps(record)) == record
    assert dumps(loads(dumps(record))) == dumps(record)


# --- property: whatever loads accepts, dumps writes and loads reads back the same -----------

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**64), max_value=2**64)
    | st.floats(allow_nan=False)
    | st.text(max_size=20)
)
_VALUES = st.recursive(
    _SCALARS,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=30,
)
_DEEP = st.integers(min_value=1, max_value=40).map(lambda n: "[" * n + "]" * n)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    top=st.dictionaries(st.text(max_size=6).map(lambda k: "x-" + k), _VALUES, max_size=3),
    hand=st.dictionaries(st.text(max_size=6).map(lambda k: "x-" + k), _VALUES, max_size=3),
)
def test_every_record_loads_accepts_is_written_back_and_read_back_the_same(
    top: dict[str, Any], hand: dict[str, Any]
) -> None:
    data = base_data()
    data.update(top)
    data["hands"][0].update(hand)
    try:
        record = loads(json.dumps(data))
    except NotationError:
        return  # refused at reading: never stored
    written = dumps(record)
    again = loads(written)
    assert again == record
    # == takes 1 for 1.0 and True: the JSON forms tell them apart
    assert json.dumps(to_data(again)) == json.dumps(to_data(record))
    assert dumps(again) == written


@settings(max_examples=60, deadline=None)
@given(deep=_DEEP)
def test_deep_x_values_are_refused_or_round_trip(deep: str) -> None:
    try:
        record = loads(BASE + f"x-deep = {deep}\n")
    except NotationError as error:
        assert deep.count("[") > MAX_EXTENSION_DEPTH and "deep" in error.message
        return
    assert deep.count("[") <= MAX_EXTENSION_DEPTH
    assert loads(dumps(record)) == record


# --- text that is not Unicode -----------------------------------------------------------------


def _with(data: dict[str, Any], place: str, value: str) -> dict[str, Any]:
    if place == "player":
        data["players"][1] = value
    elif place == "action":
        data["hands"][0]["actions"][1] = value
    elif place == "event":
        data["event"] = value
    elif place == "note":
        data["hands"][0]["notes"] = [{"ply": 1, "text": value}]
    elif place == "x-value":
        data["x-text"] = ["ok", value]
    elif place == "x-key":
        data["x-" + value] = 1
    return data


@pytest.mark.parametrize("place", ["player", "action", "event", "note", "x-value", "x-key"])
def test_it_refuses_lone_surrogates_in_json_with_their_position(place: str) -> None:
    text = as_json(_with(base_data(), place, "Bi\ud800a"), ascii=True)  # written as the escape \ud800
    assert "\\ud800" in text
    error = error_of(text)
    assert "not valid Unicode" in error.message
    line, column = where(text, "\\ud800")
    assert error.line == line
    assert error.column is not None and error.column <= column
    assert error.as_dict()["action"] is None  # nothing unencodable in the error itself
    json.dumps(error.as_dict(), ensure_ascii=False).encode("utf-8")


def test_it_refuses_a_low_surrogate_and_a_raw_one_in_a_str() -> None:
    text = as_json(_with(base_data(), "player", "\udc00"), ascii=True)
    assert "not valid Unicode" in error_of(text).message
    raw = BASE.replace('"Bia"', '"Bi\ud83da"')
    error = error_of(raw)
    assert "not valid Unicode" in error.message
    assert (error.line, error.column) == (3, 20)  # the string holding it


def test_a_surrogate_pair_is_one_character_and_is_accepted() -> None:
    text = as_json(_with(base_data(), "player", "Bia \U0001f600"), ascii=True)
    assert "\\ud83d\\ude00" in text
    record = loads(text)
    assert record.players[1] == "Bia \U0001f600"


# --- sizes a real game never reaches -----------------------------------------------------------


def test_it_refuses_a_hand_past_the_action_limit_at_the_first_action_past_it() -> None:
    data = base_data()
    data["hands"][0]["actions"] = ["p1 draw 4c"] * (MAX_ACTIONS + 1)
    text = as_json(data)
    error = error_of(text)
    assert f"{MAX_ACTIONS + 1} actions" in error.message and f"limit is {MAX_ACTIONS}" in error.message
    assert (error.hand, error.ply) == (1, MAX_ACTIONS + 1)
    assert_at(error, text, "p1 draw 4c", MAX_ACTIONS)


def test_a_hand_at_the_action_limit_is_read() -> None:
    data = base_data()
    data["hands"][0]["actions"] = ["p1 draw 4c"] * MAX_ACTIONS
    assert len(loads(as_json(data)).hands[0].actions) == MAX_ACTIONS


def test_it_refuses_100002_actions_in_toml() -> None:
    text = BASE.replace('  "p1 discard Kd",\n', '  "p1 discard Kd",\n' + '  "p2 draw",\n' * 100_000)
    error = error_of(text)
    assert "100003 actions" in error.message and str(MAX_ACTIONS) in error.message
    assert (error.line, error.column) == (13 + MAX_ACTIONS, 4)  # actions[MAX_ACTIONS]: line 13 is actions[0]


def test_it_refuses_a_record_past_the_hand_limit_at_the_first_hand_past_it() -> None:
    hand = BASE[BASE.index("[[hands]]"):]
    text = BASE + ("\n" + hand) * MAX_HANDS
    error = error_of(text)
    assert f"{MAX_HANDS + 1} hands" in error.message and f"limit is {MAX_HANDS}" in error.message
    assert_at(error, text, "[[hands]]", MAX_HANDS)
    assert len(loads(BASE + ("\n" + hand) * (MAX_HANDS - 1)).hands) == MAX_HANDS


def test_it_refuses_a_player_name_past_the_limit() -> None:
    name = "B" * (MAX_NAME + 1)
    text = BASE.replace('"Bia"', f'"{name}"')
    error = error_of(text)
    assert f"player 2 has {MAX_NAME + 1} characters" in error.message and f"limit is {MAX_NAME}" in error.message
    assert_at(error, text, name)
    assert loads(BASE.replace('"Bia"', f'"{name[1:]}"')).players[1] == name[1:]


def test_it_refuses_a_5_mib_player_name_in_json() -> None:
    data = base_data()
    data["players"][0] = "A" * (5 * 1024 * 1024)
    text = as_json(data)
    error = error_of(text)
    assert str(MAX_NAME) in error.message
    assert_at(error, text, "AAAA")


@pytest.mark.parametrize("key", ["event", "site", "round", "source", "annotator"])
def test_it_refuses_a_metadata_value_past_the_limit(key: str) -> None:
    value = "x" * (MAX_METADATA + 1)
    text = BASE.replace('event = "Thursday club"', f'{key} = "{value}"')
    error = error_of(text)
    assert f"{key} has {MAX_METADATA + 1} characters" in error.message
    assert_at(error, text, value)
    assert dict(loads(BASE.replace('event = "Thursday club"', f'{key} = "{value[1:]}"')).metadata)[key] == value[1:]


def test_it_refuses_a_target_or_round_beyond_64_bits() -> None:
    for line in (f"target = {2**63}", f"round = {2**63}"):
        text = BASE.replace('event = "Thursday club"', line)
        error = error_of(text)
        assert "64 bits" in error.message
        assert_at(error, text, str(2**63))


# --- inputs the fuzz run found (bench/fuzz.py): each a NotationError at its place, not a crash ---


@pytest.mark.parametrize("action", ["p\u00b2 draw 4c", "p\u0663 draw 4c", "p1 take \u00b2", "p1 take \uff13",
                                    "p1 add m\u00b2 4c", "p1 add m\u0661 4c"])
def test_digits_of_other_scripts_in_an_action_are_a_notation_error(action: str) -> None:
    # str.isdigit() takes them; int() refuses '²' (a ValueError escaped loads) and reads '٣' as 3
    text = BASE.replace("p1 draw 4c", action)
    error = error_of(text)
    assert (error.hand, error.ply) == (1, 1)
    assert error.line == where(text, action)[0]


@pytest.mark.parametrize("action, needle", [
    ("p" + "1" * 5000 + " draw 4c", "no seat"),
    ("p1 take " + "9" * 9000, "no pile"),
    ("p1 add m" + "7" * 4301 + " 4c", "no meld"),
    ("p1 take " + "9" * 19, "no pile"),
])
def test_numbers_of_thousands_of_digits_in_an_action_are_a_notation_error(action: str, needle: str) -> None:
    # int() refuses more than 4,300 digits: a ValueError escaped loads
    text = BASE.replace("p1 draw 4c", action)
    error = error_of(text)
    assert needle in error.message and len(error.message) < 200
    assert (error.hand, error.ply) == (1, 1)
    assert error.line == where(text, action)[0]


def test_numbers_in_actions_keep_their_value_up_to_18_digits() -> None:
    record = loads(BASE.replace("p1 draw 4c", "p01 draw 4c"))
    assert record.hands[0].actions[0] == "p1 draw 4c"
    assert loads(BASE.replace("p1 draw 4c", "p1 take " + "9" * 18)).hands[0].parsed[0].depth == 10**18 - 1


@pytest.mark.parametrize("tail", ['x-t = "unterminated', "x-t = [1, 2", "x-t = '''a", "x-t", "x-t = "])
def test_a_toml_document_cut_short_is_placed_at_its_end(tail: str) -> None:
    # tomllib says "at end of document": the error had a line but no column
    text = BASE + tail
    error = error_of(text)
    lines = text.split("\n")
    assert (error.line, error.column) == (len(lines), len(lines[-1]) + 1)


def test_hands_made_by_a_dotted_key_are_placed_at_the_key() -> None:
    # hands.notes = "..." makes hands a table; the locator has no place for the table itself
    text = BASE[: BASE.index("[[hands]]")] + 'hands.notes = "x"\n'
    error = error_of(text)
    assert "array of tables" in error.message
    assert_at(error, text, "hands.notes")


def test_x_dates_and_times_are_written_as_text_in_json() -> None:
    # JSON has no dates: dumps(record, "json") raised TypeError on a TOML date in an x- value
    text = BASE + "x-when = [1979-05-27, 07:32:00, 1979-05-27T07:32:00Z]\n"
    record = loads(text)
    written = dumps(record, "json")
    assert json.loads(written)["hands"][0]["x-when"] == ["1979-05-27", "07:32:00", "1979-05-27T07:32:00+00:00"]
    assert dumps(loads(written), "json") == written
    assert loads(dumps(record)) == record  # TOML keeps them dates


@pytest.mark.parametrize("result", [{"scores": None}, {"scores": [0, 0], "totals": None}])
def test_null_scores_or_totals_in_a_json_result_are_a_notation_error(result: dict[str, Any]) -> None:
    # {"scores": null} passed the "has scores" check and hit an assert (AssertionError, not a NotationError)
    data = base_data()
    data["hands"][0]["result"] = result
    text = as_json(data)
    error = error_of(text)
    assert "must be a list of whole numbers" in error.message
    assert_at(error, text, "null")


@pytest.mark.parametrize("ply", [MAX_ACTIONS + 1, 2**31, 2**63 - 1, 10**30])
def test_a_note_past_the_action_limit_is_a_notation_error_at_its_ply(ply: int) -> None:
    # unbounded, a note's ply reached the database as is: past 32 bits an upload was a 500
    for text in (BASE + f'\n[[hands.notes]]\nply = {ply}\ntext = "later"\n',
                 as_json({**base_data(), "hands": [{**base_data()["hands"][0], "notes": [{"ply": ply, "text": "x"}]}]})):
        error = error_of(text)
        assert f"more than {MAX_ACTIONS} actions" in error.message
        assert_at(error, text, str(ply)[:20])


def test_a_note_past_the_hands_end_but_within_the_limit_is_kept() -> None:
    record = loads(BASE + f'\n[[hands.notes]]\nply = {MAX_ACTIONS}\ntext = "past the end"\n')
    assert record.hands[0].notes[0].ply == MAX_ACTIONS


@pytest.mark.parametrize("key", ["scores", "totals"])
@pytest.mark.parametrize("number", [MAX_CLAIM + 1, -MAX_CLAIM - 1, 2**63, 10**4299])
def test_a_claimed_score_past_the_limit_is_a_notation_error_at_it(key: str, number: int) -> None:
    # No game comes near; unbounded, the claim's difference from the true score outgrew the
    # finding's column (a DataError in the analysis job) and past 4,300 digits str() itself
    data = base_data()
    data["hands"][0]["result"] = {"scores": [0, 0], "totals": [0, 0]}
    data["hands"][0]["result"][key] = [0, number]
    text = as_json(data)
    error = error_of(text)
    assert "1,000,000,000" in error.message and key in error.message
    assert_at(error, text, str(number)[:30])
    data["hands"][0]["result"][key] = [0, -MAX_CLAIM]
    loads(as_json(data))  # the limit itself is read


def test_a_hand_with_more_notes_than_the_limit_is_a_notation_error() -> None:
    notes = "".join(f'\n[[hands.notes]]\nply = 1\ntext = "n{i}"\n' for i in range(MAX_NOTES + 1))
    error = error_of(BASE + notes)
    assert f"the limit is {MAX_NOTES} notes per hand" in error.message and error.line is not None
    assert len(loads(BASE + notes.rsplit("\n[[hands.notes]]", 1)[0]).hands[0].notes) == MAX_NOTES


@pytest.mark.parametrize(("key", "size"), [("text", MAX_NOTE_TEXT), ("author", MAX_NAME), ("tag", MAX_NAME)])
def test_a_note_field_past_its_limit_is_a_notation_error_at_it(key: str, size: int) -> None:
    fields = {"text": "a note", key: "x" * (size + 1)}
    note = "".join(f'{k} = "{v}"\n' for k, v in fields.items())
    text = BASE + f"\n[[hands.notes]]\nply = 1\n{note}"
    error = error_of(text)
    assert f"the limit is {size}" in error.message and key in error.message
    assert_at(error, text, 'xxxxx')  # at its value
    loads(text.replace("x" * (size + 1), "x" * size))  # at the limit it is read

"""POST /api/matches/ past the limits of BRN (docs/notation.md, "Limits"): a 400 naming
the limit or the reason, with the file, line and column, and nothing stored."""

from __future__ import annotations

import json
from typing import Any

import pytest
from rest_framework.test import APIClient

from buraco.notation import MAX_ACTIONS, MAX_EXTENSION_DEPTH, MAX_HANDS, MAX_METADATA, MAX_NAME, loads, to_data
from records.models import Batch, Hand, Match

from .conftest import record_text, zip_of


def base_data() -> dict[str, Any]:
    return to_data(loads(record_text("cerrado", hands=1, seed=11)))


def json_text(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1)  # ASCII: a lone surrogate is written as its escape


def with_x(key: str, value: Any) -> str:
    data = base_data()
    data[key] = value
    return json_text(data)


def deep(levels: int) -> Any:
    value: Any = []
    for _ in range(levels - 1):
        value = [value]
    return value


def surrogate_in(place: str) -> str:
    data = base_data()
    if place == "player":
        data["players"][1] = "Bi\ud800a"
    elif place == "action":
        data["hands"][0]["actions"][0] += "\udc00"
    else:
        data["event"] = "club \ud83d"
    return json_text(data)


def many_actions() -> str:
    data = base_data()
    data["hands"][0]["actions"] = ["p1 draw"] * 100_002
    return json_text(data)


def many_hands() -> str:
    data = base_data()
    data["hands"] = data["hands"] * (MAX_HANDS + 1)
    return json_text(data)


def long_name() -> str:
    data = base_data()
    data["players"][0] = "A" * (5 * 1024 * 1024)
    return json_text(data)


def long_event() -> str:
    data = base_data()
    data["event"] = "e" * (MAX_METADATA + 1)
    return json_text(data)


CASES = {
    "x-big": (lambda: with_x("x-big", [123456] * 900_000), "64 KiB"),
    "x-deep": (lambda: with_x("x-deep", deep(340)), f"more than {MAX_EXTENSION_DEPTH} deep"),
    "x-null": (lambda: with_x("x-null", {"a": [1, None]}), "null"),
    "x-huge-int": (lambda: with_x("x-n", 2**70), "64 bits"),
    "surrogate-player": (lambda: surrogate_in("player"), "not valid Unicode"),
    "surrogate-action": (lambda: surrogate_in("action"), "not valid Unicode"),
    "surrogate-event": (lambda: surrogate_in("event"), "not valid Unicode"),
    "actions": (many_actions, f"the limit is {MAX_ACTIONS} actions per hand"),
    "hands": (many_hands, f"the limit is {MAX_HANDS} hands per record"),
    "player-name": (long_name, f"the limit is {MAX_NAME}"),
    "metadata": (long_event, f"the limit is {MAX_METADATA}"),
}


def assert_refused(response: Any, file: str, reason: str) -> dict[str, Any]:
    assert response.status_code == 400, response.content[:500]
    body = response.json()
    assert body["message"].startswith("nothing was stored")
    [error] = body["errors"]
    assert error["file"] == file
    assert error["kind"] == "notation"
    assert reason in error["message"], error["message"]
    assert isinstance(error["line"], int) and isinstance(error["column"], int), error
    assert Match.objects.count() == 0 and Hand.objects.count() == 0 and Batch.objects.count() == 0
    return error


@pytest.mark.parametrize("case", list(CASES))
def test_an_upload_past_a_limit_is_a_400_naming_it_and_nothing_is_stored(
    owner_api: APIClient, upload: Any, case: str
) -> None:
    make, reason = CASES[case]
    assert_refused(upload(owner_api, (f"{case}.json", make())), f"{case}.json", reason)


def test_the_zip_of_a_6_mb_x_array_is_refused_at_its_key(owner_api: APIClient, upload: Any) -> None:
    text = record_text("cerrado", hands=1, seed=11).replace(
        "\n[[hands]]", "x-big = [" + ",".join(["0"] * 3_000_000) + "]\n\n[[hands]]", 1
    )
    archive = zip_of({"club.brn": text})
    assert len(archive) < 64 * 1024 and len(text) > 6_000_000
    # Refused by the x- limit at its key (how long tomllib takes to read the 6 MB first is a
    # figure of bench/fuzz.py's, not a test's).
    error = assert_refused(upload(owner_api, ("night.zip", archive)), "night.zip/club.brn", "64 KiB")
    assert (error["line"], error["column"]) == (text[: text.index("x-big")].count("\n") + 1, 1)


def test_a_record_within_the_limits_is_still_stored(owner_api: APIClient, upload: Any) -> None:
    data = base_data()
    data["x-deep"] = deep(MAX_EXTENSION_DEPTH)
    data["players"][0] = "A" * MAX_NAME
    data["event"] = "e" * MAX_METADATA
    response = upload(owner_api, ("ok.json", json_text(data)))
    assert response.status_code == 202, response.content[:500]
    match_id = response.json()["id"]
    brn = owner_api.get(f"/api/matches/{match_id}/brn/")
    assert brn.status_code == 200, brn.content[:500]
    assert loads(brn.content.decode()).extra == loads(json_text(data)).extra


@pytest.mark.parametrize("zipped", [False, True])
def test_a_record_past_the_byte_limit_is_refused_before_it_is_read(
    owner_api: APIClient, upload: Any, settings: Any, zipped: bool
) -> None:
    text = record_text("cerrado", hands=2, seed=12)
    settings.BURACO_MAX_RECORD_BYTES = len(text.encode()) - 1
    sent = ("club.zip", zip_of({"big.brn": text})) if zipped else ("big.brn", text)
    response = upload(owner_api, sent)
    assert response.status_code == 400, response.content
    [error] = response.json()["errors"]
    assert error["file"] == ("club.zip/big.brn" if zipped else "big.brn")
    assert f"the limit is {len(text.encode()) - 1} bytes a record" in error["message"]
    assert Match.objects.count() == 0 and Hand.objects.count() == 0 and Batch.objects.count() == 0
    settings.BURACO_MAX_RECORD_BYTES = len(text.encode())
    assert upload(owner_api, sent).status_code == 202  # at the limit it is stored

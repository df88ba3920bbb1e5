"""buraco.schema says what the engine writes: every timeline entry of self-played hands in
every (rule set, player count), every operation kind's keys exactly, and the errors of tries,
validate against the schemas the API publishes (issue 15, 2)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import jsonschema
import pytest

from buraco.replay import timeline, try_actions
from buraco.rules import VARIANTS
from buraco.schema import OPERATION_FIELDS, STATE, components
from buraco.selfplay import play_match

PAIRS = [(variant, players) for variant, rules in VARIANTS.items() for players in sorted(rules.player_counts)]


def as_json_schema(node: Any) -> Any:
    """OpenAPI 3.0's ``nullable`` as JSON Schema's null type, for jsonschema to check."""
    if isinstance(node, list):
        return [as_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    converted = {key: as_json_schema(value) for key, value in node.items() if key not in ("nullable", "discriminator")}
    if node.get("nullable"):
        if "type" in converted:
            converted["type"] = [converted["type"], "null"]
        else:
            converted = {"anyOf": [{"type": "null"}, converted]}
    return converted


def validator(name: str) -> jsonschema.Validator:
    schemas = as_json_schema(components())
    root = {"components": {"schemas": schemas}, **schemas[name]}
    return jsonschema.Draft7Validator(root)


ENTRY = validator("TimelineEntry")
ERROR = validator("EngineError")


@pytest.mark.parametrize(("variant", "players"), PAIRS)
def test_every_entry_of_a_hand_is_what_the_schema_says(variant: str, players: int) -> None:
    for seed in (1,):
        record = play_match(variant, players=players, hands=1, seed=seed, mistakes=0.3)
        for entry in timeline(record, 0):
            errors = sorted(ENTRY.iter_errors(entry), key=str)
            assert not errors, (variant, players, seed, entry["ply"], [e.message for e in errors[:3]])
            assert set(entry) == set(STATE["required"]) | {"seat", "action", "operation", "automatic"}
            for operation in [entry["operation"], *entry["automatic"]]:
                if operation is None:
                    continue
                assert set(operation) == {"kind", *OPERATION_FIELDS[operation["kind"]]}, operation


def test_a_tried_actions_error_is_an_engine_error() -> None:
    record = play_match("cerrado", players=2, hands=1, seed=3)
    results = try_actions(record, 0, 0, ["p2 draw"])  # not p2's turn
    assert "error" in results[-1]
    assert not list(ERROR.iter_errors(results[-1]["error"]))
    assert not list(ENTRY.iter_errors(try_actions(record, 0, 0, ["p1 draw"])[0]["entry"]))


def test_the_schema_names_no_operation_kind_the_engine_never_writes() -> None:
    seen: Counter[str] = Counter()
    for variant, players in PAIRS:
        for entry in timeline(play_match(variant, players=players, hands=1, seed=2, mistakes=0.3), 0):
            seen.update(op["kind"] for op in [entry["operation"], *entry["automatic"]] if op is not None)
    assert set(seen) == set(OPERATION_FIELDS), seen


def test_a_schema_that_disagrees_is_caught() -> None:
    entry = timeline(play_match("cerrado", players=2, hands=1, seed=1), 0)[1]
    entry["operation"]["card"] = 7
    assert list(ENTRY.iter_errors(entry))

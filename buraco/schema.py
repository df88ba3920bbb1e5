"""The JSON the engine writes for a hand's table, as OpenAPI 3.0 schemas: one mapping, read by
the service's API schema (its typed components) and checked against every timeline the
engine makes (tests/engine/test_schema.py), so the two cannot drift apart.

``OPERATION_FIELDS`` names each operation kind's keys (``buraco.replay.describe_operation``);
``STATE``, ``ENTRY``, ``ERROR`` the table (``HandState.to_json()``), a timeline entry and an
engine error (``BuracoError.as_dict()``). ``components()`` gives them all, named, with
``$ref``s between them under ``#/components/schemas/``.

>>> sorted(OPERATION_FIELDS)[:3]
['dead-to-stock', 'discarded', 'drew']
>>> components()["Operation"]["discriminator"]["propertyName"]
'kind'
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

from .errors import AmbiguousActionError, BuracoError, IllegalActionError, NotationError
from .melds import CANASTA_KINDS
from .state import DEAD_DIRECT_STEP, DEAD_INDIRECT_STEP, DRAW_STEP, OUT, OVER, PLAY_STEP, STOCK

CARD: Final[dict[str, Any]] = dict({"type": "string", "description": "a card in BRN: 7h, Ts, 2c, JK"})
CARDS: Final[dict[str, Any]] = dict({"type": "array", "items": dict(CARD)})
SEAT: Final[dict[str, Any]] = dict({"type": "integer", "minimum": 1})
MELD_ID: Final[dict[str, Any]] = dict({"type": "string", "pattern": "^m[0-9]+$", "description": "m1, m2, ... in the order laid"})


def _nullable(schema: Mapping[str, Any]) -> dict[str, Any]:
    return {**schema, "nullable": True}


# Each kind's keys besides ``kind``, as describe_operation writes them.
OPERATION_FIELDS: Final[Mapping[str, Mapping[str, Any]]] = MappingProxyType({
    "drew": {"seat": SEAT, "card": CARD},
    "took": {"seat": SEAT, "cards": CARDS},
    "melded": {"seat": SEAT, "meld": MELD_ID, "cards": CARDS},
    "laid-off": {
        "seat": SEAT, "meld": MELD_ID, "cards": {**CARDS, "description": "the cards laid"},
        "wild_moved": {"type": "array", "description": "each wild that changed place, named as the cards it stood for",
                       "items": {"type": "object", "required": ["card", "from", "to"], "additionalProperties": False,
                                 "properties": {"card": CARD, "from": {"type": "string"}, "to": {"type": "string"}}}},
    },
    "picked-dead": {"seat": SEAT, "pile": {"type": "integer", "minimum": 1}, "count": {"type": "integer"}, "cards": CARDS},
    "discarded": {"seat": SEAT, "card": CARD},
    "dead-to-stock": {"seat": {"type": "integer", "nullable": True, "enum": [None]},
                      "piles": {"type": "integer"}, "count": {"type": "integer"}},
    "hand-ended": {"seat": _nullable(SEAT), "how": {"type": "string", "enum": [OUT, STOCK]}},
})
ACTION_OPERATIONS: Final = ("drew", "took", "melded", "laid-off", "picked-dead", "discarded")
AUTOMATIC_OPERATIONS: Final = ("dead-to-stock", "hand-ended")

MELD: Final[dict[str, Any]] = dict({
    "type": "object",
    "required": ["id", "side", "owner", "type", "cards", "layout", "wild", "canasta"],
    "properties": {
        "id": MELD_ID, "side": {"type": "integer", "minimum": 1}, "owner": SEAT,
        "type": {"type": "string", "enum": ["run", "set"]}, "cards": CARDS,
        "layout": {"type": "array", "items": {"type": "object", "required": ["card"],
                                              "properties": {"card": CARD, "as": {"type": "string"}}}},
        "wild": {"type": "object", "nullable": True, "required": ["card", "as"],
                 "properties": {"card": CARD, "as": {"type": "string"}}},
        "canasta": {"type": "string", "nullable": True, "enum": [*CANASTA_KINDS, None]},
    },
})

STATE: Final[dict[str, Any]] = dict({
    "type": "object",
    "description": "the table: buraco.state.HandState.to_json()",
    "required": ["ply", "turn", "step", "hands", "melds", "discard", "stock", "dead", "dead_taken", "must_meld",
                 "running", "ended_by", "out_by"],
    "properties": {
        "ply": {"type": "integer", "minimum": 0}, "turn": SEAT,
        "step": {"type": "string", "enum": [DRAW_STEP, PLAY_STEP, DEAD_DIRECT_STEP, DEAD_INDIRECT_STEP, OVER]},
        "hands": {"type": "object", "additionalProperties": CARDS, "description": "each seat's cards, by seat number"},
        "melds": {"type": "array", "items": {"$ref": "#/components/schemas/Meld"}},
        "discard": CARDS, "stock": {"type": "integer", "minimum": 0},
        "dead": {"type": "array", "items": {"type": "integer"}, "description": "cards left in each dead pile"},
        "dead_taken": {"type": "array", "items": {"type": "boolean"}},
        "must_meld": _nullable(CARD),
        "running": {"type": "array", "items": {"type": "object", "required": ["melded", "canastas"],
                                               "properties": {"melded": {"type": "integer"}, "canastas": {"type": "integer"}}}},
        "ended_by": {"type": "string", "nullable": True, "enum": [OUT, STOCK, None]},
        "out_by": _nullable(SEAT),
    },
})

ERROR: Final[dict[str, Any]] = dict({
    "type": "object",
    "description": "an engine error: buraco.errors.BuracoError.as_dict()",
    "required": ["kind", "hand", "ply", "line", "column", "action", "message"],
    "properties": {
        "kind": {"type": "string", "enum": [e.kind for e in (BuracoError, NotationError, IllegalActionError, AmbiguousActionError)]},
        "hand": {"type": "integer", "nullable": True}, "ply": {"type": "integer", "nullable": True},
        "line": {"type": "integer", "nullable": True}, "column": {"type": "integer", "nullable": True},
        "action": {"type": "string", "nullable": True}, "message": {"type": "string"},
    },
})


def operation_schema(kind: str) -> dict[str, Any]:
    """The schema of one operation kind: ``kind`` and its OPERATION_FIELDS, all required.

    >>> operation_schema("drew")["required"]
    ['kind', 'seat', 'card']
    """
    fields = OPERATION_FIELDS[kind]
    return {
        "type": "object",
        "required": ["kind", *fields],
        "properties": {"kind": {"type": "string", "enum": [kind]}, **{k: dict(v) for k, v in fields.items()}},
    }


def _name(kind: str) -> str:
    return "Operation" + "".join(part.capitalize() for part in kind.split("-"))


def components() -> dict[str, dict[str, Any]]:
    """Every schema above, named for ``#/components/schemas/``: the state, a meld, an entry
    (the state with ``seat``, ``action``, ``operation``, ``automatic``), each operation kind
    and their union (by ``kind``), an engine error."""
    named = {_name(kind): operation_schema(kind) for kind in OPERATION_FIELDS}

    def union(kinds: tuple[str, ...]) -> dict[str, Any]:
        return {"oneOf": [{"$ref": f"#/components/schemas/{_name(k)}"} for k in kinds],
                "discriminator": {"propertyName": "kind",
                                  "mapping": {k: f"#/components/schemas/{_name(k)}" for k in kinds}}}

    entry = {
        "allOf": [{"$ref": "#/components/schemas/HandState"}, {
            "type": "object",
            "required": ["seat", "action", "operation", "automatic"],
            "properties": {
                "seat": _nullable(SEAT),
                "action": {"type": "string", "nullable": True, "description": "as written; null at the deal"},
                "operation": {"allOf": [{"$ref": "#/components/schemas/ActionOperation"}], "nullable": True},
                "automatic": {"type": "array", "items": {"$ref": "#/components/schemas/AutomaticOperation"}},
            },
        }],
        "description": "the table after an action, with what the action did (buraco.replay.timeline_entry)",
    }
    return copy.deepcopy({
        **named,
        "Operation": union(tuple(OPERATION_FIELDS)),
        "ActionOperation": union(ACTION_OPERATIONS),
        "AutomaticOperation": union(AUTOMATIC_OPERATIONS),
        "Meld": dict(MELD),
        "HandState": dict(STATE),
        "TimelineEntry": entry,
        "EngineError": dict(ERROR),
    })


__all__ = ["ACTION_OPERATIONS", "AUTOMATIC_OPERATIONS", "ERROR", "MELD", "OPERATION_FIELDS", "STATE", "components",
           "operation_schema"]

"""Errors by kind, each able to say where in a record it happened.

All are ``ValueError`` subclasses (as python-chess does), so callers that only
care about "bad input" catch one thing; callers that care tell them apart:

- :class:`NotationError`: the record cannot be read (not TOML/JSON, unknown key,
  text that is not a card or an action, a player count the rule set forbids).
- :class:`IllegalActionError`: an action breaks a rule, or a deal is broken.
- :class:`AmbiguousActionError`: an action can be read several legal ways and the
  record names none.
"""

from __future__ import annotations

from typing import Any


class BuracoError(ValueError):
    """A problem with a record, positioned as precisely as is known."""

    kind = "error"

    def __init__(
        self,
        message: str,
        *,
        hand: int | None = None,
        ply: int | None = None,
        line: int | None = None,
        column: int | None = None,
        action: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.hand = hand
        self.ply = ply
        self.line = line
        self.column = column
        self.action = action

    def located(self, **where: Any) -> BuracoError:
        """Fill in position fields that are still unknown; return self."""
        for key, value in where.items():
            if getattr(self, key) is None:
                setattr(self, key, value)
        return self

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "hand": self.hand,
            "ply": self.ply,
            "line": self.line,
            "column": self.column,
            "action": self.action,
            "message": self.message,
        }

    def __str__(self) -> str:
        where = []
        if self.line is not None:
            where.append(f"line {self.line}" + (f", column {self.column}" if self.column else ""))
        if self.hand is not None:
            where.append(f"hand {self.hand}" + (f", ply {self.ply}" if self.ply else ""))
        prefix = f"{'; '.join(where)}: " if where else ""
        quoted = f" [{self.action}]" if self.action else ""
        return f"{prefix}{self.message}{quoted}"


class NotationError(BuracoError):
    kind = "notation"


class IllegalActionError(BuracoError):
    kind = "illegal"


class AmbiguousActionError(IllegalActionError):
    """Ambiguity makes the action unusable, so it is also an illegal action."""

    kind = "ambiguous"

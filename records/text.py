"""Text as the database keeps it."""

from __future__ import annotations

from typing import Any


def json_safe(value: Any) -> Any:
    """PostgreSQL text and jsonb cannot hold NUL: stored copies show U+FFFD instead
    (the upload itself is kept byte for byte)."""
    if isinstance(value, str):
        return value.replace("\x00", "\ufffd")
    if isinstance(value, list):
        return [json_safe(v) for v in value]
    if isinstance(value, dict):
        return {json_safe(k): json_safe(v) for k, v in value.items()}
    return value

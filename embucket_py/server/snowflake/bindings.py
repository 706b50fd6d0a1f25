"""The query-request `bindings` field -> positional Bind values (arrays for executemany)."""

from __future__ import annotations

from typing import Any

from embucket_py.errors import BindError
from embucket_py.sql.binds import Bind


def parse_bindings(raw: dict[str, Any] | None) -> list[Bind]:
    """{"1": {"type": "FIXED", "value": "42"}, ...} -> [Bind("FIXED", "42"), ...] in order."""
    if not raw:
        return []
    try:
        positions = sorted(raw, key=int)
    except ValueError:
        raise BindError("Named bind variables are not supported; use ? or :1.") from None
    binds = []
    for expected, key in enumerate(positions, start=1):
        if int(key) != expected:
            raise BindError(f"Bind variable :{expected} not set.")
        entry = raw[key] or {}
        binds.append(Bind(str(entry.get("type") or "TEXT"), entry.get("value")))
    return binds

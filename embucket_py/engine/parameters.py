"""SHOW PARAMETERS [IN SESSION | ACCOUNT]: the parameters with their defaults and levels.

https://docs.snowflake.com/en/sql-reference/sql/show-parameters
"""

from __future__ import annotations

from typing import Any

from embucket_py.engine.metadata_columns import PARAMETER_DOCS


def _parameter_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def _parameter_type(value: object) -> str:
    if isinstance(value, bool):
        return "BOOLEAN"
    if isinstance(value, int | float):
        return "NUMBER"
    return "STRING"


def parameter_rows(values: dict[str, object], server_defaults: dict[str, object]) -> list[dict[str, Any]]:
    """SHOW PARAMETERS [IN SESSION | ACCOUNT] of a session's `values` (or the account's, which are
    `server_defaults`: the server's and ALTER ACCOUNT's): `level` is SESSION for a value set in
    the session, ACCOUNT for an account-wide value differing from Snowflake's default, else empty."""
    rows = []
    for key in sorted(set(values) | set(server_defaults)):
        value = values.get(key, server_defaults.get(key))
        default, description = PARAMETER_DOCS.get(key, (server_defaults.get(key, value), ""))
        # What the session started with: the server's value, else Snowflake's default.
        start = server_defaults.get(key, default)
        if value != start:
            level = "SESSION"
        elif value != default:
            level = "ACCOUNT"
        else:
            level = ""
        rows.append(
            {
                "key": key,
                "value": _parameter_text(value),
                "default": _parameter_text(default),
                "level": level,
                "description": description,
                "type": _parameter_type(default if default is not None else value),
            }
        )
    return rows

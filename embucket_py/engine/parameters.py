"""SHOW PARAMETERS [IN SESSION]: the session's parameters with their defaults and levels.

https://docs.snowflake.com/en/sql-reference/sql/show-parameters
"""

from __future__ import annotations

from typing import Any

from embucket_py.engine.metadata_columns import PARAMETER_DOCS
from embucket_py.sessions.session import Session


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


def parameter_rows(session: Session, server_defaults: dict[str, object]) -> list[dict[str, Any]]:
    """SHOW PARAMETERS [IN SESSION]: `level` is SESSION for a value set in this session, ACCOUNT for
    a server-wide value differing from Snowflake's default, else empty."""
    rows = []
    for key in sorted(set(session.parameters) | set(server_defaults)):
        value = session.parameters.get(key, server_defaults.get(key))
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

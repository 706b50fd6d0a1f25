"""Session variables: SET, UNSET and SHOW VARIABLES.

https://docs.snowflake.com/en/sql-reference/session-variables
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from embucket_py.catalog.tables import Tables
from embucket_py.engine.query import collect, plan
from embucket_py.engine.result import OK, QueryResult, StatementType, status
from embucket_py.errors import ExecutionError
from embucket_py.sessions.session import Session
from embucket_py.sql.context import SqlContext
from embucket_py.sql.metadata import SetDef, UnsetDef
from embucket_py.sql.transforms.variables import unknown_variable
from embucket_py.types import SfType, from_arrow_field


@dataclass
class Variable:
    """One session variable: its value, the Snowflake type of the expression that set it, and
    when it was first set and last changed."""

    value: Any
    type: SfType
    created_on: datetime
    updated_on: datetime


def values_of(session: Session) -> dict[str, Any]:
    """The session's variables as plain values, for `$name` substitution."""
    return {name: v.value if isinstance(v, Variable) else v for name, v in session.variables.items()}


def set_variables(
    tables: Tables, session: Session, d: SetDef, ctx: SqlContext, cancel: threading.Event | None = None
) -> QueryResult:
    """SET var = expr | SET (a, b) = (x, y): every expression is evaluated before any is assigned,
    so `SET (min, max) = (50, 2 * $min)` uses the old $min.
    https://docs.snowflake.com/en/sql-reference/sql/set

    Raises:
        SnowflakeError: an expression fails or yields more than one row.
    """
    frame, _ = plan(tables, d.query, ctx, None)
    data = collect(frame, cancel)
    if data.num_rows > 1:
        raise ExecutionError("Single-row subquery returns more than one row.")
    now = datetime.now(UTC)
    for i, name in enumerate(d.names):
        value = data.column(i)[0].as_py() if data.num_rows else None
        key = name.upper()
        previous = session.variables.get(key)
        created = previous.created_on if isinstance(previous, Variable) else now
        session.variables[key] = Variable(value, from_arrow_field(data.schema.field(i)), created, now)
    return status(OK, StatementType.ALTER_SESSION)


def unset_variables(session: Session, d: UnsetDef) -> QueryResult:
    """UNSET var | UNSET (a, b). https://docs.snowflake.com/en/sql-reference/sql/unset

    Raises:
        SqlCompilationError: a variable is not set (code 2211).
    """
    keys = [name.upper() for name in d.names]
    for key in keys:
        if key not in session.variables:
            raise unknown_variable(key)
    for key in keys:
        session.variables.pop(key)
    return status(OK, StatementType.ALTER_SESSION)


def _text(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, bytes):
        return value.hex().upper()
    return str(value)


def variable_rows(session: Session) -> list[dict[str, Any]]:
    """SHOW VARIABLES rows (by column name), one per variable of this session, by name."""
    rows = []
    for name in sorted(session.variables):
        v = session.variables[name]
        if isinstance(v, Variable):
            rows.append(
                {
                    "session_id": session.id,
                    "created_on": v.created_on,
                    "updated_on": v.updated_on,
                    "name": name,
                    "value": _text(v.value),
                    "type": v.type.kind.lower(),
                    "comment": "",
                }
            )
    return rows

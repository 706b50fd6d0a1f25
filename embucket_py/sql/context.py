"""SqlContext: what the SQL layer knows of the session (never the Session object itself)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from embucket_py.types import SfType

# [database, schema, table] -> Snowflake column name -> type kind (FIXED(p,s), TEXT, VARIANT, ...);
# None when there is no such stored table.
ColumnKinds = Callable[[list[str]], "dict[str, str] | None"]


def kind_text(t: SfType) -> str:
    """A column's kind as ColumnKinds gives it: numbers carry precision and scale."""
    if t.kind == "FIXED":
        return f"FIXED({t.precision if t.precision is not None else 38},{t.scale or 0})"
    return t.kind


@dataclass(frozen=True)
class SqlContext:
    """Current database and schema for name resolution, plus the values of context functions."""

    database: str | None
    schema: str | None
    # CURRENT_USER -> 'EMBUCKET', ... (upper-case function name without parentheses -> value)
    values: dict[str, Any] = field(default_factory=dict)
    # Session variables by upper-case name -> Python value, for `$name` references.
    variables: dict[str, Any] = field(default_factory=dict)
    # The id of the statement being translated (commits record it for AT/BEFORE(STATEMENT => ...)).
    query_id: str | None = None
    # Declared column types of stored tables, so casts of non-VARIANT columns stay plain casts.
    column_kinds: ColumnKinds | None = None
    # Session parameters the rewrites follow (TIMEZONE, WEEK_START, WEEK_OF_YEAR_POLICY, ...), by
    # upper-case name.
    parameters: dict[str, Any] = field(default_factory=dict)


# The context of the statement being translated, for rewrites deep inside the function families
# (a cast, a date part) that would otherwise need it threaded through every handler.
_ACTIVE: ContextVar[SqlContext | None] = ContextVar("embucket_sql_context", default=None)


def active() -> SqlContext | None:
    """The SqlContext of the translation running on this thread, if any."""
    return _ACTIVE.get()


@contextmanager
def activated(ctx: SqlContext | None) -> Iterator[None]:
    token = _ACTIVE.set(ctx)
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def is_on(value: object) -> bool:
    """A boolean parameter's value as a session may hold it (TRUE, 'false', 0, 'OFF', ...)."""
    if isinstance(value, bool):
        return value
    return str(value).strip().upper() not in ("FALSE", "0", "OFF", "NO")


def parameter(name: str, default: Any = None) -> Any:
    """A session parameter of the active translation (upper-case name), else `default`."""
    ctx = _ACTIVE.get()
    if ctx is None:
        return default
    value = ctx.parameters.get(name)
    return default if value is None else value

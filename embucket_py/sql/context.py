"""SqlContext: what the SQL layer knows of the session (never the Session object itself)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


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

"""Snowflake functions DataFusion lacks, as vectorized UDFs over whole Arrow arrays.

One module per family. Each family module builds its UDF objects once, at import, and exposes
`register(ctx)`, which only attaches them to a statement's SessionContext (cheap: a context is
made per statement). The SQL rewrites in `embucket_py.sql.transforms.functions` call them by name.
"""

from __future__ import annotations

from collections.abc import Callable

from datafusion import SessionContext

# Family modules append their `register` here (see each module's bottom line).
_FAMILIES: list[Callable[[SessionContext], None]] = []


def register_functions(ctx: SessionContext) -> None:
    for register in _FAMILIES:
        register(ctx)

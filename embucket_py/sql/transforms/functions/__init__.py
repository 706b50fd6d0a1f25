"""Snowflake function calls -> DataFusion built-ins or the project's UDFs, one module per family.

Each family module exposes `rewrite(tree) -> tree`; they run in the order listed here.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

_FAMILIES: list[Callable[[exp.Expression], exp.Expression]] = []

# Part A (date/time, conversion, numeric, aggregates, windows, data generation): date/time first, so
# the other families see its typed results.
from embucket_py.sql.transforms.functions import datetime as _datetime  # noqa: E402

_FAMILIES.append(_datetime.rewrite)


def functions(tree: exp.Expression) -> exp.Expression:
    for rewrite in _FAMILIES:
        tree = rewrite(tree)
    return tree

"""CURRENT_TIME / CURRENT_TIME() -> DataFusion's current_time() (sqlglot reads it as LOCALTIME,
which DataFusion takes for a column name).

https://docs.snowflake.com/en/sql-reference/functions/current_time
"""

from __future__ import annotations

from sqlglot import exp


def current_time(tree: exp.Expression) -> exp.Expression:
    for node in list(tree.find_all(exp.Localtime)):
        replacement = exp.Anonymous(this="current_time", expressions=[])
        if node is tree:
            return replacement
        node.replace(replacement)
    return tree

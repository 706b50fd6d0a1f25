"""CURRENT_DATABASE(), CURRENT_USER(), ... -> the session's values as literals.

https://docs.snowflake.com/en/sql-reference/functions-context
"""

from __future__ import annotations

import re
from typing import Any

from sqlglot import exp

_CONTEXT_CALL = re.compile(r"(CURRENT_[A-Z_]+)(?:\(\))?")


def _literal(value: Any) -> exp.Expression:
    if value is None:
        return exp.Null()
    if isinstance(value, bool):
        return exp.Boolean(this=value)
    if isinstance(value, int):
        return exp.Literal.number(value)
    return exp.Literal.string(str(value))


def context_functions(tree: exp.Expression, values: dict[str, Any]) -> exp.Expression:
    def replace(node: exp.Expression) -> exp.Expression:
        if not isinstance(node, exp.Func) or node.args.get("expressions") or node.args.get("this"):
            return node
        match = _CONTEXT_CALL.fullmatch(node.sql(dialect="snowflake").upper())
        if match and match.group(1) in values:
            return _literal(values[match.group(1)])
        return node

    return tree.transform(replace)

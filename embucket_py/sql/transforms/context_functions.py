"""CURRENT_DATABASE(), CURRENT_USER(), ... -> the session's values as literals, and
IS_ROLE_IN_SESSION(r) -> r among the session's active roles.

https://docs.snowflake.com/en/sql-reference/functions-context
"""

from __future__ import annotations

import re
from typing import Any

from sqlglot import exp

_CONTEXT_CALL = re.compile(r"(CURRENT_[A-Z_]+)(?:\(\))?")
# The value holding the session's active roles (its primary role, the secondary ones, and every
# role they inherit), sorted, for IS_ROLE_IN_SESSION.
ACTIVE_ROLES = "ACTIVE_ROLES"


def _literal(value: Any) -> exp.Expression:
    if value is None:
        return exp.Null()
    if isinstance(value, bool):
        return exp.Boolean(this=value)
    if isinstance(value, int):
        return exp.Literal.number(value)
    return exp.Literal.string(str(value))


def context_functions(tree: exp.Expression, values: dict[str, Any]) -> exp.Expression:
    roles = values.get(ACTIVE_ROLES)

    def replace(node: exp.Expression) -> exp.Expression:
        if _role_check(node) and roles is not None:
            # IS_ROLE_IN_SESSION(name | expr | column): the name, case as stored, among the roles.
            listed = [exp.Literal.string(r) for r in roles]
            return exp.Paren(this=exp.In(this=node.expressions[0], expressions=listed))
        if not isinstance(node, exp.Func) or node.args.get("expressions") or node.args.get("this"):
            return node
        match = _CONTEXT_CALL.fullmatch(node.sql(dialect="snowflake").upper())
        if match and match.group(1) in values:
            return _literal(values[match.group(1)])
        return node

    return tree.transform(replace)


def _role_check(node: exp.Expression) -> bool:
    return (
        isinstance(node, exp.Anonymous)
        and node.name.upper() == "IS_ROLE_IN_SESSION"
        and len(node.expressions) == 1
    )

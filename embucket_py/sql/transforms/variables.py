"""`$name` session variable references -> their values as typed literals; IDENTIFIER($t) -> a name;
GETVARIABLE('NAME') and SESSION_CONTEXT('NAME') -> the value as VARCHAR (NULL when not set).

https://docs.snowflake.com/en/sql-reference/session-variables
https://docs.snowflake.com/en/sql-reference/functions/getvariable
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from embucket_py.errors import SqlCompilationError
from embucket_py.sql.literals import literal

# Snowflake's answer to an unset variable: 002211 (02000) "Session variable '$X' does not exist".
# https://docs.snowflake.com/en/sql-reference/session-variables#using-variables-in-sql
UNKNOWN_VARIABLE_CODE = 2211
UNKNOWN_VARIABLE_SQLSTATE = "02000"


def unknown_variable(name: str) -> SqlCompilationError:
    return SqlCompilationError(
        f"Session variable '${name.upper()}' does not exist",
        code=UNKNOWN_VARIABLE_CODE,
        sqlstate=UNKNOWN_VARIABLE_SQLSTATE,
    )


def _lookup(name: str, values: dict[str, Any]) -> Any:
    # Variable names are case-insensitive, like unquoted identifiers.
    key = name.upper()
    if key not in values:
        raise unknown_variable(name)
    return values[key]


def _by_name(node: exp.Expression) -> bool:
    return (
        isinstance(node, exp.Anonymous)
        and node.name.upper() in ("GETVARIABLE", "SESSION_CONTEXT")
        and len(node.expressions) == 1
        and isinstance(node.expressions[0], exp.Literal)
        and node.expressions[0].is_string
    )


def variables(tree: exp.Expression, values: dict[str, Any]) -> exp.Expression:
    """Replaces `$name` (not `$1`, a positional column) by the variable's value.

    Raises:
        SqlCompilationError: a referenced variable is not set (code 2211).
    """

    def replace(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Table) and isinstance(node.this, exp.DynamicIdentifier):
            inner = node.this.this
            if isinstance(inner, exp.Parameter) and isinstance(inner.this, exp.Var):
                # IDENTIFIER($t): the variable holds the object's name.
                table = exp.to_table(str(_lookup(inner.this.name, values)), dialect="snowflake")
                if node.args.get("alias") is not None:
                    table.set("alias", node.args["alias"].copy())
                return table
        if isinstance(node, exp.Parameter) and isinstance(node.this, exp.Var):
            return literal(_lookup(node.this.name, values))
        if _by_name(node):
            # The name as given: SET stores names in upper case, so 'my_var' finds nothing.
            value = values.get(node.expressions[0].name)
            return exp.Cast(this=literal(value), to=exp.DataType.build("VARCHAR"))
        return node

    return tree.transform(replace)

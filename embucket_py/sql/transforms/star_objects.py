"""OBJECT_CONSTRUCT(*) and OBJECT_CONSTRUCT_KEEP_NULL(*) -> the key-value pairs of the columns the
star stands for: OBJECT_CONSTRUCT('PROVINCE', t."PROVINCE", 'CREATED_DATE', t."CREATED_DATE").
`t.*` takes one FROM item's columns, `* EXCLUDE (a, b)` leaves some out; keys are the columns'
Snowflake names. https://docs.snowflake.com/en/sql-reference/functions/object_construct
HASH(*), HASH_AGG(*) and ARRAY_CONSTRUCT(*) take the same columns as their arguments (a table's
checksum: https://docs.snowflake.com/en/sql-reference/functions/hash_agg).
"""

from __future__ import annotations

from sqlglot import exp

from embucket_py.errors import Unsupported
from embucket_py.naming import display
from embucket_py.sql.context import SqlContext
from embucket_py.sql.transforms.source_columns import ColumnLookup, SourceColumns, qualified, qualifier_of


def _star_of(node: exp.Expression) -> tuple[exp.Star, str | None] | None:
    """The star an OBJECT_CONSTRUCT[_KEEP_NULL] call holds, and its table qualifier."""
    if isinstance(node, exp.StarMap):
        inner = node.this
    elif isinstance(node, exp.JSONObject) and len(node.expressions) == 1:
        inner = node.expressions[0]
    else:
        return None
    if isinstance(inner, exp.Star):
        return inner, None
    if isinstance(inner, exp.Column) and isinstance(inner.this, exp.Star):
        return inner.this, inner.table
    return None


def _star_arguments(node: exp.Expression) -> exp.Expression | None:
    """The `*` or `t.*` argument of HASH, HASH_AGG or ARRAY_CONSTRUCT, if it is the only one."""
    if isinstance(node, exp.HashAgg) and not node.args.get("expressions"):
        inner = node.this
    elif (isinstance(node, exp.Anonymous) and str(node.this).upper() == "HASH") or isinstance(
        node, exp.Array
    ):
        if len(node.expressions) != 1:
            return None
        inner = node.expressions[0]
    else:
        return None
    if isinstance(inner, exp.Star) or (isinstance(inner, exp.Column) and isinstance(inner.this, exp.Star)):
        return inner
    return None


def star_objects(
    tree: exp.Expression, ctx: SqlContext | None = None, lookup: ColumnLookup | None = None
) -> exp.Expression:
    """Replaces each OBJECT_CONSTRUCT over `*` by one over the columns it stands for.

    Raises:
        Unsupported: the columns of a source the star reads cannot be told.
    """
    calls = [n for n in tree.find_all(exp.StarMap, exp.JSONObject) if _star_of(n) is not None]
    resolver = SourceColumns(ctx, lookup)
    for call in [n for n in tree.find_all(exp.HashAgg, exp.Anonymous, exp.Array) if _star_arguments(n)]:
        inner = _star_arguments(call)
        assert inner is not None
        star, table = (inner, None) if isinstance(inner, exp.Star) else (inner.this, inner.table)
        columns = _columns(resolver, call, star, table, call.sql(dialect="snowflake").split("(")[0])
        if isinstance(call, exp.HashAgg):
            call.set("this", columns[0])
            call.set("expressions", columns[1:])
        else:
            call.set("expressions", columns)
    for call in calls:
        star, table = _star_of(call)  # type: ignore[misc]
        pairs: list[exp.Expression] = []
        for column in _columns(resolver, call, star, table, "OBJECT_CONSTRUCT"):
            # A subquery's names are in their stored form by now (its projections are named).
            pairs += [exp.Literal.string(display(column.name)), column]
        kind = exp.JSONObject if isinstance(call, exp.JSONObject) else exp.Struct
        call.replace(kind(expressions=pairs))
    return tree


def _columns(
    resolver: SourceColumns, call: exp.Expression, star: exp.Star, table: str | None, function: str
) -> list[exp.Expression]:
    """The columns `star` (of `table`, or of every FROM item) stands for in the call's SELECT."""
    select = call.find_ancestor(exp.Select)
    sources = None if select is None else resolver.star_sources(select, table, star)
    if sources is None:
        raise Unsupported(f"{function}(*) over a source of unknown columns is not supported.")
    return [qualified(name, qualifier_of(source)) for source, columns in sources for name in columns]

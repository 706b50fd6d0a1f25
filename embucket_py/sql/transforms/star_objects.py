"""OBJECT_CONSTRUCT(*) and OBJECT_CONSTRUCT_KEEP_NULL(*) -> the key-value pairs of the columns the
star stands for: OBJECT_CONSTRUCT('PROVINCE', t."PROVINCE", 'CREATED_DATE', t."CREATED_DATE").
`t.*` takes one FROM item's columns, `* EXCLUDE (a, b)` leaves some out; keys are the columns'
Snowflake names. https://docs.snowflake.com/en/sql-reference/functions/object_construct
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


def star_objects(
    tree: exp.Expression, ctx: SqlContext | None = None, lookup: ColumnLookup | None = None
) -> exp.Expression:
    """Replaces each OBJECT_CONSTRUCT over `*` by one over the columns it stands for.

    Raises:
        Unsupported: the columns of a source the star reads cannot be told.
    """
    calls = [n for n in tree.find_all(exp.StarMap, exp.JSONObject) if _star_of(n) is not None]
    resolver = SourceColumns(ctx, lookup)
    for call in calls:
        star, table = _star_of(call)  # type: ignore[misc]
        select = call.find_ancestor(exp.Select)
        sources = None if select is None else resolver.star_sources(select, table, star)
        if sources is None:
            raise Unsupported("OBJECT_CONSTRUCT(*) over a source of unknown columns is not supported.")
        pairs: list[exp.Expression] = []
        for source, columns in sources:
            qualifier = qualifier_of(source)
            for name in columns:
                # A subquery's names are in their stored form by now (its projections are named).
                pairs += [exp.Literal.string(display(name)), qualified(name, qualifier)]
        kind = exp.JSONObject if isinstance(call, exp.JSONObject) else exp.Struct
        call.replace(kind(expressions=pairs))
    return tree

"""PIVOT ... IN (ANY [ORDER BY ...]) and IN (subquery): run the query that lists the pivot values
and write them into the statement as literals, so the SQL layer sees an ordinary value list.

https://docs.snowflake.com/en/sql-reference/constructs/pivot#parameters
"""

from __future__ import annotations

from collections.abc import Callable

import pyarrow as pa
from sqlglot import exp

from embucket_py.sql.literals import literal
from embucket_py.sql.nodes import Nodes

# Runs a query (a Snowflake tree) and returns its rows.
RunQuery = Callable[[exp.Expression], pa.Table]


def _listing_query(holder: exp.Expression, field: exp.In) -> exp.Expression | None:
    values = field.expressions
    if len(values) != 1:
        return None
    (value,) = values
    if isinstance(value, exp.Query):
        return value.copy()
    if not isinstance(value, exp.PivotAny):
        return None
    source = holder.copy()
    source.set("pivots", None)
    query = exp.select(field.this.copy()).distinct().from_(source)
    order = value.this
    if isinstance(order, exp.Order):
        query.set("order", order.copy())
    # The source may name CTEs of the enclosing statement: bring them along, outermost first.
    # Only CTEs defined before the one holding the PIVOT (never itself: that would recurse).
    ctes: list[exp.Expression] = []
    node: exp.Expression | None = holder
    came_from: exp.Expression | None = None
    while node is not None:
        with_ = node if isinstance(node, exp.With) else node.args.get("with_")
        if isinstance(with_, exp.With) and (with_ is node or came_from is not with_):
            defined = list(with_.expressions)
            if came_from is not None and any(c is came_from for c in defined):
                defined = defined[: next(i for i, c in enumerate(defined) if c is came_from)]
            ctes = [c.copy() for c in defined] + ctes
        came_from, node = node, node.parent
    if ctes:
        query.set("with_", exp.With(expressions=ctes))
    return query


def has_pivots(nodes: Nodes) -> bool:
    return any(n.args.get("pivots") for n in nodes.of(exp.Table, exp.Subquery))


def resolve_pivot_values(tree: exp.Expression, run: RunQuery) -> exp.Expression:
    """Replaces each PIVOT's `ANY` or subquery value list by the values it yields (NULL excluded)."""
    for holder in [n for n in tree.find_all(exp.Table, exp.Subquery) if n.args.get("pivots")]:
        first = holder.args["pivots"][0]
        fields = first.args.get("fields") or []
        if first.args.get("unpivot") or len(fields) != 1 or not isinstance(fields[0], exp.In):
            continue
        query = _listing_query(holder, fields[0])
        if query is None:
            continue
        rows = run(query)
        values = rows.column(0).to_pylist() if rows.num_columns else []
        fields[0].set("expressions", [literal(v) for v in values if v is not None])
        first.set("columns", None)
    return tree

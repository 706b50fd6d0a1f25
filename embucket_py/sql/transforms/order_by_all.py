"""ORDER BY ALL [ASC | DESC] [NULLS FIRST | LAST] -> ORDER BY 1, 2, ..., n (every column of the
select list, left to right, each ordered so).

sqlglot reads the ALL as a column named ALL; a select list that names one keeps it.
https://docs.snowflake.com/en/sql-reference/constructs/order-by
"""

from __future__ import annotations

from sqlglot import exp

from embucket_py.errors import Unsupported
from embucket_py.sql.context import SqlContext
from embucket_py.sql.transforms.source_columns import ColumnLookup, SourceColumns


def order_by_all(
    tree: exp.Expression, ctx: SqlContext | None = None, lookup: ColumnLookup | None = None
) -> exp.Expression:
    """Runs after `star_columns`; a `*` counts the columns it stands for."""
    resolver = SourceColumns(ctx, lookup)
    for order in list(tree.find_all(exp.Order)):
        (ordered, *rest) = order.expressions or [None]
        if rest or not _is_all(ordered):
            continue
        select = order.parent
        if not isinstance(select, exp.Query) or not isinstance(select.selects, list):
            continue
        if any(_named_all(s) for s in select.selects):
            continue
        count = sum(_width(resolver, select, s) for s in select.selects)
        order.set(
            "expressions",
            [
                exp.Ordered(
                    this=exp.Literal.number(i),
                    desc=ordered.args.get("desc"),
                    nulls_first=ordered.args.get("nulls_first"),
                )
                for i in range(1, count + 1)
            ],
        )
    return tree


def _width(resolver: SourceColumns, select: exp.Query, item: exp.Expression) -> int:
    """How many result columns a select item gives (a `[t.]*`: those of its sources)."""
    star = (
        item
        if isinstance(item, exp.Star)
        else item.this
        if isinstance(item, exp.Column) and item.is_star
        else None
    )
    if star is None:
        return 1
    table = item.table if isinstance(item, exp.Column) else None
    references = (
        resolver.star_references(select, table or None, star) if isinstance(select, exp.Select) else None
    )
    if not references:
        raise Unsupported("ORDER BY ALL over a * whose columns are not known")
    return len(references)


def _is_all(node: exp.Expression | None) -> bool:
    if not isinstance(node, exp.Ordered) or not isinstance(node.this, exp.Column):
        return False
    column = node.this
    return (
        not column.table
        and isinstance(column.this, exp.Identifier)
        and not column.this.quoted
        and column.name.upper() == "ALL"
    )


def _named_all(node: exp.Expression) -> bool:
    return node.alias_or_name.upper() == "ALL"

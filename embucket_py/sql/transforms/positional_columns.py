"""`$n` -> the n-th column of the query's FROM items (`SELECT $1, $2 FROM VALUES (1, 'a')`).

DataFusion reads `$1` as a bind placeholder ("was not provided a value"). The columns are the
FROM items' in order (a join's left side first); left alone when they are not known (staged
files' `$n` are rewritten before this, by the stage reader).
https://docs.snowflake.com/en/sql-reference/sql/select#parameters
"""

from __future__ import annotations

from sqlglot import exp

from embucket_py.errors import InvalidIdentifier
from embucket_py.sql.context import SqlContext
from embucket_py.sql.transforms.source_columns import ColumnLookup, SourceColumns


def _position(node: exp.Expression) -> int | None:
    if isinstance(node, exp.Parameter) and isinstance(node.this, exp.Literal) and node.this.is_int:
        return int(node.this.name)
    return None


def positional_columns(
    tree: exp.Expression, ctx: SqlContext | None = None, lookup: ColumnLookup | None = None
) -> exp.Expression:
    """Runs after `projections` (a `$1` item keeps its name `$1`)."""
    resolver = SourceColumns(ctx, lookup)
    for parameter in list(tree.find_all(exp.Parameter)):
        position = _position(parameter)
        select = parameter.find_ancestor(exp.Select)
        if position is None or select is None:
            continue
        # `t.$1` is a column whose name is the parameter.
        node = parameter.parent if isinstance(parameter.parent, exp.Column) else parameter
        table = node.table if isinstance(node, exp.Column) else ""
        references = resolver.star_references(select, table or None, exp.Star())
        if not references:  # the FROM items' columns are not known
            continue
        columns = [reference for _, reference in references]
        if not 1 <= position <= len(columns):
            raise InvalidIdentifier(f"error line 1 at position 0\ninvalid identifier '${position}'")
        node.replace(columns[position - 1].copy())
    return tree

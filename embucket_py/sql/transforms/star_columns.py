"""`* ILIKE 'pattern'` and `* RENAME (a AS b)` -> the columns they stand for, listed.

DataFusion has neither: it refuses RENAME, and sqlglot's output drops ILIKE (every column came
back). `*` becomes the FROM items' columns whose names match the pattern (case-insensitive, `%`
and `_` wildcards), in order, each renamed or replaced as asked (EXCLUDE and REPLACE still apply).
https://docs.snowflake.com/en/sql-reference/sql/select#parameters
"""

from __future__ import annotations

from sqlglot import exp

from embucket_py.errors import Unsupported
from embucket_py.sql.context import SqlContext
from embucket_py.sql.names import like_matches, normalize
from embucket_py.sql.transforms.source_columns import ColumnLookup, SourceColumns, renames


def _filtering_star(item: exp.Expression) -> exp.Star | None:
    """The `*` (or `t.*`) of a projection item when it has ILIKE or RENAME."""
    star = item.this if isinstance(item, exp.Column) else item
    if isinstance(star, exp.Star) and (star.args.get("ilike") is not None or star.args.get("rename")):
        return star
    return None


def _listed(
    select: exp.Select, item: exp.Expression, star: exp.Star, resolver: SourceColumns
) -> list[exp.Expression]:
    table = item.table if isinstance(item, exp.Column) else None
    references = resolver.star_references(select, table, star)
    if references is None:
        raise Unsupported("* ILIKE / RENAME over a source whose columns are not known")
    pattern = star.args.get("ilike")
    renamed = renames(star)
    replaced = {normalize(a.args["alias"]): a.this for a in star.args.get("replace") or []}
    listed: list[exp.Expression] = []
    for name, reference in references:
        if pattern is not None and not like_matches(pattern.name, name):
            continue
        value = replaced[name].copy() if name in replaced else reference
        alias = renamed.get(name, name) if name in renamed or name in replaced else None
        listed.append(exp.alias_(value, exp.to_identifier(alias, quoted=True)) if alias else value)
    return listed


def star_columns(
    tree: exp.Expression, ctx: SqlContext | None = None, lookup: ColumnLookup | None = None
) -> exp.Expression:
    """Runs after `pivot` (a pivot's columns are known by then) and before projections are named."""
    resolver = SourceColumns(ctx, lookup)
    for select in list(tree.find_all(exp.Select)):
        if not any(_filtering_star(i) for i in select.expressions):
            continue
        expanded: list[exp.Expression] = []
        for item in select.expressions:
            star = _filtering_star(item)
            expanded += [item] if star is None else _listed(select, item, star, resolver)
        select.set("expressions", expanded)
    return tree

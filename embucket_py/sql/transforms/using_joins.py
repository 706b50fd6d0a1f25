"""FULL and RIGHT joins by USING (...) or NATURAL -> joins ON equalities, with each join column
read as COALESCE(left, right).

A join column of USING/NATURAL is one column holding the key of either side; for a FULL or
RIGHT join, rows only the right side has take it from the right. DataFusion always reads the left
side's (NULL for those rows), so `SELECT *`, WHERE and ORDER BY saw NULL keys. Here the join
becomes ON left.k = right.k, `*` lists the join columns first (coalesced), then the other columns
of each side, as Snowflake does, and unqualified references to a join column read the coalesced
value. Joins whose sides' columns cannot be told are left as they are.
https://docs.snowflake.com/en/sql-reference/constructs/join
"""

from __future__ import annotations

from sqlglot import exp

from embucket_py.naming import stored
from embucket_py.sql.context import SqlContext
from embucket_py.sql.names import normalize
from embucket_py.sql.transforms.projections import DUPLICATE_MARK
from embucket_py.sql.transforms.source_columns import ColumnLookup, SourceColumns, qualified, qualifier_of


def _own_columns(select: exp.Select) -> list[exp.Column]:
    """Unqualified column references that belong to `select` itself (not to a subquery in it)."""
    return [
        c
        for c in select.find_all(exp.Column)
        if not c.table and not isinstance(c.this, exp.Star) and c.find_ancestor(exp.Select) is select
    ]


def _distinctly_named(columns: list[tuple[str, exp.Expression]]) -> list[exp.Expression]:
    """The columns `*` stands for, each under an engine name of its own: a name seen before gets
    the mark the client's name leaves out (`SELECT *` over a join may repeat a name)."""
    used: set[str] = set()
    named = []
    for name, value in columns:
        field = stored(name)
        while field in used:
            field += DUPLICATE_MARK
        used.add(field)
        named.append(exp.alias_(value, exp.to_identifier(field, quoted=True)))
    return named


def _rewrite(select: exp.Select, index: int, resolver: SourceColumns) -> bool:
    """Rewrites the select's join number `index`; False when its sides' columns are unknown."""
    join = select.args["joins"][index]
    from_ = select.args.get("from_") or select.args.get("from")
    left_sources = [from_.this] + [j.this for j in select.args["joins"][:index]]
    later_sources = [j.this for j in select.args["joins"][index + 1 :]]
    sides: list[tuple[exp.Identifier, list[str]]] = []
    for source in [*left_sources, join.this, *later_sources]:
        columns, qualifier = resolver.of_source(source), qualifier_of(source)
        if columns is None or qualifier is None:
            return False
        sides.append((qualifier, columns))
    later = sides[len(left_sources) + 1 :]
    sides = sides[: len(left_sources) + 1]
    right_q, right_columns = sides.pop()
    left_names = [n for _, columns in sides for n in columns]
    if join.args.get("method"):
        keys = [n for n in left_names if n in right_columns]
    else:
        keys = [normalize(i) for i in join.args.get("using") or []]
    left_of = {}
    for qualifier, columns in sides:
        for n in columns:
            left_of.setdefault(n, qualifier)
    if not keys or any(k not in left_of or k not in right_columns for k in keys):
        return False
    merged = {k: exp.func("COALESCE", qualified(k, left_of[k]), qualified(k, right_q)) for k in keys}
    for column in _own_columns(select):
        name = normalize(column.this)
        if name in merged:
            column.replace(merged[name].copy())  # projections are aliased already (their names kept)
    expanded: list[exp.Expression] = []
    for item in select.expressions:
        if isinstance(item, exp.Star) and not item.args.get("except_") and not item.args.get("rename"):
            star = [(k, merged[k].copy()) for k in keys]
            star += [(n, qualified(n, q)) for q, columns in sides for n in columns if n not in merged]
            star += [(n, qualified(n, right_q)) for n in right_columns if n not in merged]
            star += [(n, qualified(n, q)) for q, columns in later for n in columns]
            expanded += _distinctly_named(star)
        else:
            expanded.append(item)
    select.set("expressions", expanded)
    on = exp.and_(*[exp.EQ(this=qualified(k, left_of[k]), expression=qualified(k, right_q)) for k in keys])
    join.set("using", None)
    join.set("method", None)
    join.set("on", on)
    return True


def using_joins(
    tree: exp.Expression, ctx: SqlContext | None = None, lookup: ColumnLookup | None = None
) -> exp.Expression:
    """Runs after `projections` (result names are the user's) and before `identifiers`."""
    resolver = SourceColumns(ctx, lookup)
    for select in list(tree.find_all(exp.Select)):
        for i, join in enumerate(select.args.get("joins") or []):
            if str(join.args.get("side") or "").upper() not in ("FULL", "RIGHT"):
                continue
            if join.args.get("using") or str(join.args.get("method") or "").upper() == "NATURAL":
                _rewrite(select, i, resolver)
    return tree

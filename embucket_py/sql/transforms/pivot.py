"""PIVOT and UNPIVOT -> plain SQL DataFusion runs.

PIVOT(agg(v) FOR k IN (x, y)) groups by every other source column and computes one aggregate per
listed value: `agg(CASE WHEN k = x THEN v END) AS "'x'"`; DEFAULT ON NULL (d) wraps each in
COALESCE. UNPIVOT (v FOR k IN (a, b)) turns each row into one row per listed column with two
zipped unnests, which keeps Snowflake's row order (a source row's columns in list order); rows
whose value is NULL go unless INCLUDE NULLS. `IN (ANY ...)` and `IN (subquery)` must have been
replaced by literal values first (the engine runs them: `engine/pivot_values.py`).
https://docs.snowflake.com/en/sql-reference/constructs/pivot
https://docs.snowflake.com/en/sql-reference/constructs/unpivot
"""

from __future__ import annotations

from sqlglot import exp

from embucket_py.errors import SqlCompilationError, Unsupported
from embucket_py.sql.context import SqlContext
from embucket_py.sql.names import normalize
from embucket_py.sql.transforms.projections import DUPLICATE_MARK
from embucket_py.sql.transforms.source_columns import ColumnLookup, SourceColumns


def _ident(name: str) -> exp.Identifier:
    return exp.to_identifier(name, quoted=True)


def _column(name: str) -> exp.Column:
    return exp.column(_ident(name))


def value_name(value: exp.Expression) -> str:
    """Snowflake's name for a pivot column: its alias, or the value as a literal ('2023_Q1')."""
    if isinstance(value, exp.PivotAlias):
        return normalize(value.args["alias"])
    if isinstance(value, exp.Literal) and value.is_string:
        return "'" + value.this + "'"
    return value.sql(dialect="snowflake")


def _values(pivot: exp.Pivot) -> tuple[exp.Expression, list[exp.Expression]]:
    fields = pivot.args.get("fields") or []
    if len(fields) != 1 or not isinstance(fields[0], exp.In):
        raise Unsupported("PIVOT over several FOR columns is not supported.")
    values = list(fields[0].expressions)
    if any(isinstance(v, exp.PivotAny | exp.Query) for v in values):
        raise Unsupported("PIVOT ... IN (ANY) or IN (subquery) needs the engine to list the values.")
    return fields[0].this, values


def _source_copy(source: exp.Expression) -> exp.Expression:
    copy = source.copy()
    copy.set("pivots", None)
    return copy


def _renamed(names: list[str], alias: exp.Expression | None) -> list[str]:
    if isinstance(alias, exp.TableAlias) and alias.columns:
        if len(alias.columns) > len(names):
            raise SqlCompilationError(
                f"Table alias has {len(alias.columns)} columns but the pivot returns {len(names)}."
            )
        return [normalize(c) for c in alias.columns] + names[len(alias.columns) :]
    return names


def _pivot_select(
    source: exp.Expression, pivot: exp.Pivot, columns: list[str]
) -> tuple[exp.Select, list[str]]:
    aggs = pivot.expressions
    if len(aggs) != 1 or not isinstance(aggs[0], exp.AggFunc):
        raise Unsupported("PIVOT with other than one aggregate function is not supported.")
    agg = aggs[0]
    key, values = _values(pivot)
    measure = agg.this
    used = {normalize(c.this) for c in [key, measure] for c in c.find_all(exp.Column)}
    groups = [c for c in columns if c not in used]
    default = pivot.args.get("default_on_null")
    items: list[exp.Expression] = [exp.alias_(_column(g), _ident(g)) for g in groups]
    names = list(groups)
    for value in values:
        literal = value.this if isinstance(value, exp.PivotAlias) else value
        picked = exp.Case().when(exp.EQ(this=key.copy(), expression=literal.copy()), measure.copy())
        call = agg.copy()
        call.set("this", picked)
        result: exp.Expression = call
        if default is not None and default is not False:
            result = exp.func("COALESCE", call, default.copy())
        name = value_name(value)
        while name in names:
            name += DUPLICATE_MARK  # a chained PIVOT may list the same values again
        items.append(exp.alias_(result, _ident(name)))
        names.append(name)
    select = exp.select(*items).from_(source)
    if groups:
        select = select.group_by(*[_column(g) for g in groups])
    return select, names


def _unpivot_select(
    source: exp.Expression, pivot: exp.Pivot, columns: list[str]
) -> tuple[exp.Select, list[str]]:
    (value_column,) = pivot.expressions
    fields = pivot.args.get("fields") or []
    if len(fields) != 1 or not isinstance(fields[0], exp.In):
        raise Unsupported("UNPIVOT with several FOR columns is not supported.")
    name_column = normalize(
        fields[0].this if isinstance(fields[0].this, exp.Identifier) else fields[0].this.this
    )
    value_name_ = normalize(value_column if isinstance(value_column, exp.Identifier) else value_column.this)
    listed = [c for c in fields[0].expressions]
    listed_names = [
        normalize(c.args["alias"]) if isinstance(c, exp.PivotAlias) else normalize(c.this) for c in listed
    ]
    sources = [c.this if isinstance(c, exp.PivotAlias) else c for c in listed]
    source_names = {normalize(c.this) for c in sources if isinstance(c, exp.Column)}
    others = [c for c in columns if c not in source_names]
    inner = exp.select(
        *[exp.alias_(_column(c), _ident(c)) for c in others],
        exp.alias_(
            exp.Anonymous(
                this="unnest",
                expressions=[
                    exp.Anonymous(
                        this="make_array", expressions=[exp.Literal.string(n) for n in listed_names]
                    )
                ],
            ),
            _ident(name_column),
        ),
        exp.alias_(
            exp.Anonymous(
                this="unnest",
                expressions=[exp.Anonymous(this="make_array", expressions=[s.copy() for s in sources])],
            ),
            _ident(value_name_),
        ),
    ).from_(source)
    names = [*others, name_column, value_name_]
    outer = exp.select(*[_column(n) for n in names]).from_(inner.subquery("__unpivoted"))
    if not pivot.args.get("include_nulls"):
        outer = outer.where(exp.Not(this=exp.Is(this=_column(value_name_), expression=exp.Null())))
    return outer, names


def pivot(
    tree: exp.Expression, ctx: SqlContext | None = None, lookup: ColumnLookup | None = None
) -> exp.Expression:
    """Replaces every FROM item carrying PIVOT/UNPIVOT clauses by an equivalent subquery.

    Raises:
        Unsupported: the source's columns cannot be told, or a form not handled here.
    """
    resolver = SourceColumns(ctx, lookup)
    # Innermost first: a pivot's source may itself hold one.
    holders = [n for n in tree.find_all(exp.Table, exp.Subquery) if n.args.get("pivots")]
    for holder in reversed(holders):
        pivots = list(holder.args["pivots"])
        columns = resolver.of_source(holder, ignore_pivots=True)
        if columns is None:
            raise Unsupported("PIVOT/UNPIVOT over a source whose columns are not known is not supported.")
        source: exp.Expression = _source_copy(holder)
        name = holder.args.get("alias").this if holder.args.get("alias") is not None else None
        if name is None and isinstance(holder, exp.Table):
            name = holder.this
        name = name.copy() if isinstance(name, exp.Identifier) else exp.to_identifier("__pivot")
        alias: exp.Expression | None = None
        for clause in pivots:
            if clause.args.get("unpivot"):
                select, columns = _unpivot_select(source, clause, columns)
            else:
                select, columns = _pivot_select(source, clause, columns)
            alias = clause.args.get("alias")
            renamed = _renamed(columns, alias)
            if renamed != columns:
                select = exp.select(
                    *[
                        exp.alias_(_column(old), _ident(new))
                        for old, new in zip(columns, renamed, strict=True)
                    ]
                ).from_(select.subquery("__renamed"))
                columns = renamed
            if isinstance(alias, exp.TableAlias) and alias.this is not None:
                name = alias.this.copy()
            source = select.subquery(name.copy())
        holder.replace(source)
    return tree

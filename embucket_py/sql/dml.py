"""DML trees -> plain descriptions (target table, column list, source query)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from embucket_py.errors import Unsupported
from embucket_py.sql.context import SqlContext
from embucket_py.sql.names import normalize, qualify, table_parts
from embucket_py.types import SfType


@dataclass(frozen=True)
class InsertDef:
    parts: list[str]
    columns: list[str] | None
    overwrite: bool
    query: exp.Expression


def insert_def(tree: exp.Insert, ctx: SqlContext) -> InsertDef:
    target = tree.this
    columns = None
    if isinstance(target, exp.Schema):
        columns = [normalize(c) for c in target.expressions]
        target = target.this
    if not isinstance(target, exp.Table):
        raise Unsupported("Unsupported INSERT target.")
    query = tree.args.get("expression")
    if query is None:
        raise Unsupported("INSERT without VALUES or a query is not supported.")
    return InsertDef(
        qualify(table_parts(target), ctx, "insert"), columns, bool(tree.args.get("overwrite")), query
    )


def single_row_values(query: exp.Expression) -> list[exp.Expression] | None:
    """The expressions of `VALUES (...)` with exactly one row (the shape executemany sends)."""
    if isinstance(query, exp.Values) and len(query.expressions) == 1:
        row = query.expressions[0]
        return list(row.expressions) if isinstance(row, exp.Tuple) else [row]
    return None


def insert_select(query: exp.Expression, targets: list[tuple[str, SfType]]) -> exp.Select:
    """The INSERT source with each column cast to its target column's type, by position:
    SELECT CAST("__c1" AS t1), ... FROM (<source>) AS "__src"("__c1", ...)."""
    names = [f"__c{i + 1}" for i in range(len(targets))]
    source = exp.Subquery(
        this=query.copy(),
        alias=exp.TableAlias(
            this=exp.to_identifier("__src", quoted=True),
            columns=[exp.to_identifier(n, quoted=True) for n in names],
        ),
    )
    casts = [
        exp.alias_(
            exp.cast(exp.column(n, quoted=True), exp.DataType.build(t.sql, dialect="snowflake")),
            exp.to_identifier(n, quoted=True),
        )
        for n, (_, t) in zip(names, targets, strict=True)
    ]
    return exp.select(*casts).from_(source)


def _truth(condition: exp.Expression) -> exp.Expression:
    """A WHEN condition as TRUE/FALSE: NULL counts as not matched."""
    return exp.func("COALESCE", exp.Paren(this=condition.copy()), exp.false())


def multi_insert_defs(tree: exp.MultitableInserts, ctx: SqlContext) -> list[InsertDef]:
    """INSERT ALL | FIRST: one INSERT per INTO clause, each reading the source query filtered by its
    WHEN condition (FIRST: and by no earlier WHEN matching; ELSE: by none matching).
    https://docs.snowflake.com/en/sql-reference/sql/insert-multi-table"""
    source = tree.args["source"]
    first = str(tree.args.get("kind") or "ALL").upper() == "FIRST"
    conditions: list[exp.Expression] = []  # the WHEN conditions met so far, in order
    conditional = any(c.args.get("expression") is not None for c in tree.expressions)
    defs = []
    guard: exp.Expression | None = None
    for clause in tree.expressions:
        insert = clause.this
        condition = clause.args.get("expression")
        if clause.args.get("else_"):
            guard = exp.not_(exp.or_(*[_truth(c) for c in conditions])) if conditions else None
        elif condition is not None:
            guard = _truth(condition)
            if first and conditions:
                guard = exp.and_(guard, exp.not_(exp.or_(*[_truth(c) for c in conditions])))
            conditions.append(condition)
        elif not conditional:
            guard = None
        # else: another INTO of the same WHEN (or ELSE) keeps its guard
        values = insert.args.get("expression")
        row = single_row_values(values) if values is not None else None
        if values is not None and row is None:
            raise Unsupported("INSERT ALL with a VALUES clause of several rows is not supported.")
        query = exp.select(*([e.copy() for e in row] if row else [exp.Star()])).from_(
            exp.Subquery(
                this=source.copy(), alias=exp.TableAlias(this=exp.to_identifier("__source", quoted=True))
            )
        )
        if guard is not None:
            query = query.where(guard)
        single = exp.Insert(this=insert.this.copy(), expression=query)
        defs.append(insert_def(single, ctx))
    return defs

"""DML trees -> plain descriptions (target table, column list, source query)."""

from __future__ import annotations

from dataclasses import dataclass

import sqlglot
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
    default_values: bool = False  # INSERT INTO t DEFAULT VALUES


def insert_def(tree: exp.Insert, ctx: SqlContext) -> InsertDef:
    target = tree.this
    columns = None
    if isinstance(target, exp.Schema):
        columns = [normalize(c) for c in target.expressions]
        target = target.this
    if not isinstance(target, exp.Table):
        raise Unsupported("Unsupported INSERT target.")
    query = tree.args.get("expression")
    default_values = bool(tree.args.get("default")) and query is None
    if default_values:
        query = exp.select(exp.Literal.number(1))  # one row; every column takes its default
        columns = []
    if query is None:
        raise Unsupported("INSERT without VALUES or a query is not supported.")
    return InsertDef(
        qualify(table_parts(target), ctx, "insert"),
        columns,
        bool(tree.args.get("overwrite")),
        query,
        default_values,
    )


def cast_to(value: exp.Expression, t: SfType) -> exp.Expression:
    """CAST(value AS <t as Snowflake spells it>)."""
    return exp.cast(value, exp.DataType.build(t.sql, dialect="snowflake"))


def default_value(text: str | None) -> exp.Expression:
    """A column's DEFAULT expression (NULL when it has none)."""
    return sqlglot.parse_one(text, read="snowflake") if text else exp.null()


def is_default_keyword(value: exp.Expression) -> bool:
    """`DEFAULT` as a value: a Var in VALUES, an unquoted bare column in UPDATE SET."""
    if isinstance(value, exp.Column) and not value.table and isinstance(value.this, exp.Identifier):
        return not value.this.quoted and value.name.upper() == "DEFAULT"
    return isinstance(value, exp.Var) and value.name.upper() == "DEFAULT"


def values_with_defaults(
    query: exp.Expression, targets: list[str], defaults: dict[str, str | None], identity: set[str]
) -> exp.Expression:
    """VALUES rows with each DEFAULT keyword replaced by its column's default expression.

    Raises:
        Unsupported: DEFAULT given for an IDENTITY column.
    """
    if not isinstance(query, exp.Values) or not any(is_default_keyword(v) for v in query.find_all(exp.Var)):
        return query
    query = query.copy()
    for row in query.expressions:
        items = list(row.expressions) if isinstance(row, exp.Tuple) else [row]
        for name, item in zip(targets, items, strict=False):
            if is_default_keyword(item):
                if name in identity:
                    raise Unsupported("DEFAULT for an AUTOINCREMENT column in VALUES is not supported.")
                item.replace(default_value(defaults.get(name)))
    return query


def with_defaults(select: exp.Select, extra: list[tuple[str, SfType, str]]) -> exp.Select:
    """An INSERT's select plus `CAST(<default> AS type) AS "<alias>"` for each omitted column
    that has a default (evaluated per row, so CURRENT_TIMESTAMP() and the like work)."""
    projections = [
        exp.alias_(
            cast_to(default_value(text), t),
            exp.to_identifier(alias, quoted=True),
        )
        for alias, t, text in extra
    ]
    return select.select(*projections, append=True) if projections else select


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
        this=_typed_values(query, targets) if isinstance(query, exp.Values) else query.copy(),
        alias=exp.TableAlias(
            this=exp.to_identifier("__src", quoted=True),
            columns=[exp.to_identifier(n, quoted=True) for n in names],
        ),
    )
    casts = [
        exp.alias_(
            cast_to(exp.column(n, quoted=True), t),
            exp.to_identifier(n, quoted=True),
        )
        for n, (_, t) in zip(names, targets, strict=True)
    ]
    return exp.select(*casts).from_(source)


# Kinds whose VALUES cells are cast one by one (VARIANT and friends keep the one cast outside).
_CELL_CAST_KINDS = {"FIXED", "REAL", "TEXT", "BINARY", "BOOLEAN", "DATE", "TIME"}


def _typed_values(values: exp.Values, targets: list[tuple[str, SfType]]) -> exp.Values:
    """VALUES rows with each cell cast to its target column's type, as Snowflake coerces each
    value: rows mixing a string and a DATE (or a number and a FLOAT) then agree on one type,
    which DataFusion's VALUES requires."""
    values = values.copy()
    if len(values.expressions) < 2:
        return values
    rows = [list(row.expressions) if isinstance(row, exp.Tuple) else [row] for row in values.expressions]
    for i, (_, t) in enumerate(targets):
        cells = [row[i] for row in rows if i < len(row)]
        common = _common_number(cells) if t.kind == "TEXT" else None
        for cell in cells:
            if common is not None and (cell.is_string or _is_number(cell)):
                cell = cell.replace(exp.Cast(this=cell.copy(), to=common.copy()))
            if t.kind in _CELL_CAST_KINDS or t.kind.startswith("TIMESTAMP"):
                cell.replace(cast_to(cell.copy(), t))
    return values


def _common_number(cells: list[exp.Expression]) -> exp.DataType | None:
    """The type the literals of a VALUES column mixing numbers and strings convert to: Snowflake's
    common type of a number and a string is the number, so `VALUES (3), ('d')` fails on 'd' and
    `(3), ('04')` gives '3' and '4', even for a VARCHAR column. None when the column does not mix
    them."""
    numbers = [n.this.name if isinstance(n, exp.Neg) else n.name for n in cells if _is_number(n)]
    if not numbers or not any(c.is_string for c in cells):
        return None
    if any("e" in n.lower() for n in numbers):
        return exp.DataType.build("DOUBLE")
    scale = max(len(n.partition(".")[2]) for n in numbers)
    return exp.DataType.build(f"NUMBER(38, {scale})", dialect="snowflake")


def _is_number(cell: exp.Expression) -> bool:
    return (cell.this if isinstance(cell, exp.Neg) else cell).is_number


def row_widths(values: exp.Values) -> set[int]:
    """The numbers of cells in VALUES rows (one number when every row has as many)."""
    return {len(row.expressions) if isinstance(row, exp.Tuple) else 1 for row in values.expressions}


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


def one_row() -> exp.Select:
    """`SELECT 1 AS "__one"`: the source of INSERT ... DEFAULT VALUES."""
    return exp.select(exp.alias_(exp.Literal.number(1), exp.to_identifier("__one", quoted=True)))

"""INSERT (INTO and OVERWRITE): rows from a query or from array binds, one Iceberg commit."""

from __future__ import annotations

import threading

import pyarrow as pa
from sqlglot import exp

from embucket_py import naming
from embucket_py.catalog.tables import TableName, Tables, own_name
from embucket_py.engine.column_values import conformed
from embucket_py.engine.query import collect, plan
from embucket_py.engine.result import QueryResult, StatementType, dml_counts
from embucket_py.errors import (
    width_mismatch,
)
from embucket_py.sql.context import SqlContext
from embucket_py.sql.dml import (
    InsertDef,
    insert_select,
    one_row,
    row_widths,
    values_with_defaults,
    with_defaults,
)
from embucket_py.types import to_arrow


def insert(
    tables: Tables,
    d: InsertDef,
    ctx: SqlContext,
    cancel: threading.Event | None = None,
    rows: pa.Table | None = None,
) -> QueryResult:
    """Runs an INSERT. `rows`, when given, replaces the statement's VALUES (array binds)."""
    ref = TableName(*d.parts)
    columns = Tables.columns(tables.load(ref))
    types = {c.name: c.type for c in columns}
    targets = (
        [own_name(columns, n) for n in d.columns] if d.columns is not None else [c.name for c in columns]
    )
    # Omitted columns take their DEFAULT (evaluated with the source rows) or their IDENTITY number.
    identity = [c.name for c in columns if c.identity is not None and c.name not in targets]
    aliases = {c.name: f"__default{i}" for i, c in enumerate(columns) if c.default and c.name not in targets}
    extra = [(aliases[c.name], c.type, c.default or "") for c in columns if c.name in aliases]
    if rows is None:
        defaults = {c.name: c.default for c in columns}
        query = values_with_defaults(d.query, targets, defaults, {c.name for c in columns if c.identity})
        if d.default_values:
            select = with_defaults(one_row(), extra)
        else:
            # VALUES are not planned alone: DataFusion would reject rows mixing types.
            widths = row_widths(query) if isinstance(query, exp.Values) else None
            for width in widths or [len(plan(tables, query, ctx, None)[0].schema())]:
                _check_width(width, len(targets))
            # DataFusion casts the source to the target types (strings to dates, timestamps, ...).
            select = with_defaults(insert_select(query, [(n, types[n]) for n in targets]), extra)
        rows = collect(plan(tables, select, ctx, None)[0], cancel)
        if d.default_values:
            rows = rows.drop_columns(["__one"])
    elif extra:
        # Array binds: defaults are evaluated once for the batch.
        once = collect(plan(tables, with_defaults(one_row(), extra), ctx, None)[0], cancel)
        for name, _, _ in extra:
            rows = rows.append_column(name, pa.repeat(once.column(name)[0], rows.num_rows))
    computed = {name: rows.column(alias) for name, alias in aliases.items()}
    rows = rows.drop_columns(list(aliases.values()))
    _check_width(rows.num_columns, len(targets))
    by_name = {**dict(zip(targets, rows.columns, strict=True)), **computed}
    arrays = []
    for column in columns:
        source = by_name.get(column.name)
        if source is None:
            source = pa.nulls(rows.num_rows, to_arrow(column.type))
        arrays.append(conformed(column, source, filled_later=column.name in identity))
    data = pa.table(arrays, names=[naming.stored(c.name) for c in columns])
    count = (
        tables.overwrite(ref, data, ctx.query_id, identity)
        if d.overwrite
        else tables.append(ref, data, ctx.query_id, identity)
    )
    return dml_counts(StatementType.INSERT, {"number of rows inserted": count})


def _check_width(got: int, expected: int) -> None:
    if got != expected:
        raise width_mismatch(expected, got)


def multi_insert(
    tables: Tables, defs: list[InsertDef], ctx: SqlContext, cancel: threading.Event | None = None
) -> QueryResult:
    """INSERT ALL | FIRST: each INTO clause is its own INSERT (the executor runs them in one
    transaction, so all targets commit together); the answer has one count column per clause, as
    Snowflake's does."""
    counts: dict[str, int] = {}
    for d in defs:
        result = insert(tables, d, ctx, cancel)
        batch = next(iter(result.batches))
        name = f"number of rows inserted into {TableName(*d.parts).name}"
        while name in counts:
            name += " "
        counts[name] = int(batch.column(0)[0].as_py())
    return dml_counts(StatementType.MULTI_INSERT, counts)

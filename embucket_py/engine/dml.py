"""INSERT (INTO and OVERWRITE): rows from a query or from array binds, one Iceberg commit."""

from __future__ import annotations

import threading

import pyarrow as pa
import pyarrow.compute as pc

from embucket_py import naming
from embucket_py.catalog.tables import TableName, Tables
from embucket_py.engine.query import collect, plan
from embucket_py.engine.result import QueryResult, StatementType, dml_counts
from embucket_py.errors import (
    InvalidIdentifier,
    NullInNotNullColumn,
    NumericValueNotRecognized,
    SqlCompilationError,
)
from embucket_py.sql.context import SqlContext
from embucket_py.sql.dml import InsertDef, insert_select
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
    targets = d.columns or [c.name for c in columns]
    unknown = [name for name in targets if name not in types]
    if unknown:
        raise InvalidIdentifier(f"error line 1 at position 0\ninvalid identifier '{unknown[0]}'")
    if rows is None:
        width = len(plan(tables, d.query, ctx, None)[0].schema())
        _check_width(width, len(targets))
        # DataFusion casts the source to the target types (strings to dates, timestamps, ...).
        frame, _ = plan(tables, insert_select(d.query, [(n, types[n]) for n in targets]), ctx, None)
        rows = collect(frame, cancel)
    _check_width(rows.num_columns, len(targets))
    by_name = dict(zip(targets, rows.columns, strict=True))
    arrays = []
    for column in columns:
        target_type = to_arrow(column.type)
        source = by_name.get(column.name)
        if source is None:
            array: pa.ChunkedArray | pa.Array = pa.nulls(rows.num_rows, target_type)
        else:
            try:
                array = pc.cast(source, target_type)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
                raise NumericValueNotRecognized(str(e).split("\n")[0]) from None
        if not column.nullable and array.null_count:
            raise NullInNotNullColumn(f"NULL result in a non-nullable column '{column.name}'")
        arrays.append(array)
    data = pa.table(arrays, names=[naming.stored(c.name) for c in columns])
    count = (
        tables.overwrite(ref, data, ctx.query_id) if d.overwrite else tables.append(ref, data, ctx.query_id)
    )
    return dml_counts(StatementType.INSERT, {"number of rows inserted": count})


def _check_width(got: int, expected: int) -> None:
    if got != expected:
        raise SqlCompilationError(
            f"Insert value list does not match column list expecting {expected} but got {got}", code=2020
        )


def multi_insert(
    tables: Tables, defs: list[InsertDef], ctx: SqlContext, cancel: threading.Event | None = None
) -> QueryResult:
    """INSERT ALL | FIRST: each INTO clause is its own INSERT (one commit per target); the answer
    has one count column per clause, as Snowflake's does."""
    counts: dict[str, int] = {}
    for d in defs:
        result = insert(tables, d, ctx, cancel)
        batch = next(iter(result.batches))
        name = f"number of rows inserted into {TableName(*d.parts).name}"
        while name in counts:
            name += " "
        counts[name] = int(batch.column(0)[0].as_py())
    return dml_counts(StatementType.MULTI_INSERT, counts)

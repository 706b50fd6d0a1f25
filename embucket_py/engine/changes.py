"""UPDATE, DELETE, MERGE and TRUNCATE by copy-on-write of the affected data files only.

1. Find the data files holding a row the statement can touch (a DataFusion query over the live
   files, each tagged with its index; Parquet statistics prune row groups).
2. Load just those files, number their rows, and compute one action per touched row.
3. Write the new content of those files (plus MERGE's inserted rows) and commit, in one Iceberg
   snapshot, "remove these files, add these". A concurrent commit makes the whole statement
   re-plan on the new snapshot, so nothing is lost and nothing is half-written.

Copy-on-write rather than delete files: readers stay on DataFusion's fast Parquet path, and Spark
and pyiceberg read the result without merge-on-read support.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import threading

import pyarrow as pa
import pyarrow.compute as pc
from datafusion import SessionContext, lit
from pyiceberg.exceptions import CommitFailedException
from pyiceberg.table import Table
from sqlglot import exp

from embucket_py import naming
from embucket_py.catalog.tables import (
    COMMIT_RETRIES,
    Column,
    ScanFiles,
    TableName,
    Tables,
    own_name,
    reads_by_field_id,
)
from embucket_py.engine import policies
from embucket_py.engine.column_values import conformed_table
from embucket_py.engine.context import file_frame, for_recursion, new_context, register_arrow, register_tables
from embucket_py.engine.failures import from_datafusion
from embucket_py.engine.query import attach_functions, collect, plan, translate
from embucket_py.engine.result import OK, QueryResult, StatementType, dml_counts, status
from embucket_py.errors import DuplicateRowInDml, SnowflakeError, Unsupported
from embucket_py.sql import changes as sqlc
from embucket_py.sql.context import SqlContext, is_on
from embucket_py.sql.dml import default_value, is_default_keyword

log = logging.getLogger(__name__)


def _run(
    df_ctx: SessionContext,
    tables: Tables,
    tree: exp.Expression,
    ctx: SqlContext,
    cancel: threading.Event | None,
) -> pa.Table:
    translation = translate(tables, tree, ctx, None)
    if translation.recursive:
        for_recursion(df_ctx)
    register_tables(df_ctx, tables, translation.tables, ctx)
    attach_functions(df_ctx, tables, translation.sql)
    try:
        frame = df_ctx.sql(translation.sql)
    except Exception as e:
        raise from_datafusion(e) from None
    return collect(frame, cancel)


def _register_scan(df_ctx: SessionContext, table: Table, files: ScanFiles, schema: pa.Schema) -> None:
    by_id = reads_by_field_id(table)
    frames = [
        file_frame(df_ctx, p, table, schema, by_id).with_column(sqlc.FILE, lit(i))
        for i, p in enumerate(files.paths)
    ]
    if not frames:
        register_arrow(
            df_ctx, "__scan", pa.Table.from_batches([], schema.append(pa.field(sqlc.FILE, pa.int64())))
        )
        return
    frame = frames[0]
    for other in frames[1:]:
        frame = frame.union(other)
    df_ctx.register_table("__scan", frame)


def _register_target(
    df_ctx: SessionContext, table: Table, files: ScanFiles, affected: list[int], schema: pa.Schema
) -> pa.Table:
    by_id = reads_by_field_id(table)
    parts = [collect(file_frame(df_ctx, files.paths[i], table, schema, by_id)) for i in affected]
    target = pa.concat_tables(parts) if parts else pa.Table.from_batches([], schema)
    rows = pa.array(range(target.num_rows), pa.int64()) if target.num_rows else pa.array([], pa.int64())
    register_arrow(df_ctx, "__target", target.append_column(sqlc.ROW, rows))
    return target


def run_change(
    tables: Tables, tree: exp.Expression, ctx: SqlContext, cancel: threading.Event | None
) -> QueryResult:
    """Runs UPDATE, DELETE or MERGE; retries from scratch when another commit got in first."""
    change = sqlc.row_change(tree, ctx)
    ref = TableName(*change.parts)
    for attempt in range(COMMIT_RETRIES):
        try:
            return _attempt(tables, change, ref, ctx, cancel)
        except CommitFailedException:
            log.info(
                "%s on %s conflicted with another commit, re-planning (%d)", change.kind, ref, attempt + 1
            )
    raise SnowflakeError(f"Could not commit {change.kind} on {ref}: too many concurrent changes.", code=4025)


def _attempt(
    tables: Tables, change: sqlc.RowChange, ref: TableName, ctx: SqlContext, cancel: threading.Event | None
) -> QueryResult:
    table = tables.load(ref)
    columns = Tables.columns(table)
    if any(c.by_name for c in change.clauses):
        change = sqlc.by_name_values(change, [c.name for c in columns], _source_columns(tables, change, ctx))
    change = policies.restrict_change(tables, _with_defaults(change, columns))
    schema = Tables.arrow_schema(table)
    files = Tables.scan_files(table)
    stored = [naming.stored(c.name) for c in columns]
    df_ctx = new_context()
    _register_scan(df_ctx, table, files, schema)
    found = _run(df_ctx, tables, sqlc.affected_files(change), ctx, cancel)
    affected = sorted(found.column(0).to_pylist()) if found.num_rows else []
    if not affected and not change.inserts:
        return _counts(change, 0, 0, 0)
    target = _register_target(df_ctx, table, files, affected, schema)
    acts = _run(df_ctx, tables, sqlc.actions(change, [(c.name, c.type) for c in columns]), ctx, cancel)
    acts, multi_joined = _one_action_per_row(change, acts, target, ctx)
    register_arrow(df_ctx, "__acts", acts)
    kept = _run(df_ctx, tables, sqlc.rewritten_rows(stored), ctx, cancel)
    added = _run(df_ctx, tables, sqlc.inserted_rows(stored), ctx, cancel) if change.inserts else None
    if added is not None and added.schema != kept.schema:
        # Inserted values may come typed differently (a nanosecond timestamp): the kept rows' schema wins.
        added = added.cast(kept.schema)
    new = conformed_table(columns, pa.concat_tables([kept, added]) if added is not None else kept)
    tables.rewrite(ref, files.snapshot_id, [files.files[i] for i in affected], new, ctx.query_id)
    action = acts.column(sqlc.ACTION)
    count = {a: pc.sum(pc.equal(action, a)).as_py() or 0 for a in (sqlc.INSERT, sqlc.UPDATE, sqlc.DELETE)}
    return _counts(change, count[sqlc.INSERT], count[sqlc.UPDATE], count[sqlc.DELETE], multi_joined)


def _source_columns(tables: Tables, change: sqlc.RowChange, ctx: SqlContext) -> list[str]:
    """The Snowflake names of MERGE's source columns (for ALL BY NAME), from a plan of it alone."""
    assert change.source is not None
    return plan(tables, exp.select("*").from_(change.source.copy()).limit(0), ctx, None)[1]


def _with_defaults(change: sqlc.RowChange, columns: list[Column]) -> sqlc.RowChange:
    """Columns an INSERT clause omits, and `DEFAULT` given as a value, take the column's DEFAULT.

    Raises:
        Unsupported: MERGE would have to number an AUTOINCREMENT column.
    """
    defaults = {c.name: c.default for c in columns}
    clauses = []
    for clause in change.clauses:
        values = {}
        for written, value in clause.resolved([c.name for c in columns]).items():
            name = own_name(columns, written)
            values[name] = default_value(defaults.get(name)) if is_default_keyword(value) else value
        if clause.action == sqlc.INSERT:
            for column in columns:
                if column.name in values:
                    continue
                if column.identity is not None:
                    raise Unsupported("MERGE inserting into an AUTOINCREMENT column is not supported yet.")
                if column.default is not None:
                    values[column.name] = default_value(column.default)
        clauses.append(dataclasses.replace(clause, values=values, positional=None))
    return dataclasses.replace(change, clauses=clauses)


def _one_action_per_row(
    change: sqlc.RowChange, acts: pa.Table, target: pa.Table, ctx: SqlContext
) -> tuple[pa.Table, int]:
    """Drops rows no clause applies to; a target row gets at most one action. Also returns how
    many target rows several source rows joined ("multi-joined rows").

    A target row several source rows join takes one of them, unless the session asks for an error
    (ERROR_ON_NONDETERMINISTIC_MERGE, TRUE by default; ERROR_ON_NONDETERMINISTIC_UPDATE, FALSE).

    Raises:
        DuplicateRowInDml: such a row, and the session's parameter asks for the error.
    """
    acts = acts.filter(pc.is_valid(acts.column(sqlc.ACTION)))
    targets = acts.filter(pc.is_valid(acts.column(sqlc.TROW)))
    if targets.num_rows == pc.count_distinct(targets.column(sqlc.TROW)).as_py():
        return acts, 0
    per_row = targets.group_by(sqlc.TROW).aggregate([(sqlc.ACTION, "count"), (sqlc.ACTION, "max")])
    repeated = per_row.filter(pc.greater(per_row.column(f"{sqlc.ACTION}_count"), 1))
    if change.kind == "MERGE":
        # "Multiple deletes do not conflict with each other" (Snowflake's MERGE documentation).
        conflicts = repeated.filter(pc.not_equal(repeated.column(f"{sqlc.ACTION}_max"), sqlc.DELETE))
        refuse = is_on(ctx.parameters.get("ERROR_ON_NONDETERMINISTIC_MERGE", True))
    else:
        conflicts = repeated
        refuse = is_on(ctx.parameters.get("ERROR_ON_NONDETERMINISTIC_UPDATE", False))
    if refuse and conflicts.num_rows:
        row = target.slice(conflicts.column(sqlc.TROW)[0].as_py(), 1)
        raise DuplicateRowInDml(f"Duplicate row detected during DML action\nRow Values: {_row_values(row)}")
    rows = acts.column(sqlc.TROW)
    first = pc.index_in(pc.unique(rows), value_set=rows)
    return acts.take(first), repeated.num_rows


def _row_values(row: pa.Table) -> str:
    """A target row as Snowflake's error shows it: `[1, "ann", NULL]`."""
    values = [column[0].as_py() for column in row.columns]
    return "[" + ", ".join("NULL" if v is None else json.dumps(v, default=str) for v in values) + "]"


def _counts(
    change: sqlc.RowChange, inserted: int, updated: int, deleted: int, multi_joined: int = 0
) -> QueryResult:
    if change.kind == "UPDATE":
        return dml_counts(
            StatementType.UPDATE,
            {"number of rows updated": updated, "number of multi-joined rows updated": multi_joined},
        )
    if change.kind == "DELETE":
        return dml_counts(StatementType.DELETE, {"number of rows deleted": deleted})
    # MERGE reports a column per kind of clause present.
    kinds = {c.action for c in change.clauses}
    counts = {}
    if sqlc.INSERT in kinds:
        counts["number of rows inserted"] = inserted
    if sqlc.UPDATE in kinds:
        counts["number of rows updated"] = updated
    if sqlc.DELETE in kinds:
        counts["number of rows deleted"] = deleted
    return dml_counts(StatementType.MERGE, counts)


def truncate(tables: Tables, tree: exp.TruncateTable, ctx: SqlContext) -> QueryResult:
    """TRUNCATE TABLE: one commit removing every data file; the table and its history stay."""
    parts, if_exists = sqlc.truncate_target(tree, ctx)
    ref = TableName(*parts)
    if if_exists and not tables.exists(ref):
        return status(OK)
    for _ in range(COMMIT_RETRIES):
        files = Tables.scan_files(tables.load(ref))
        try:
            tables.rewrite(ref, files.snapshot_id, files.files, pa.table({}), ctx.query_id)
            return status(OK)
        except CommitFailedException:
            continue
    raise SnowflakeError(f"Could not commit TRUNCATE on {ref}: too many concurrent changes.", code=4025)

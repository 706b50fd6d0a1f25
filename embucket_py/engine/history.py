"""Query history for the engine: each statement recorded durably, LAST_QUERY_ID(), RESULT_SCAN()
and INFORMATION_SCHEMA.QUERY_HISTORY[_BY_SESSION]() as tables a query can read.

https://docs.snowflake.com/en/sql-reference/functions/query_history
https://docs.snowflake.com/en/sql-reference/functions/result_scan
https://docs.snowflake.com/en/sql-reference/functions/last_query_id
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from typing import Any

import pyarrow as pa
from sqlglot import exp

from embucket_py import naming
from embucket_py.catalog.history import QueryHistory, QueryStart, millis_to_datetime
from embucket_py.engine.result import QueryResult, StatementType, plain_schema, without_views
from embucket_py.errors import SnowflakeError, SqlCompilationError, Unsupported
from embucket_py.sessions.session import Session
from embucket_py.types import MAX_VARCHAR, NUMBER_38_0, SfType, arrow_field

log = logging.getLogger(__name__)

# Table references to history sources are rewritten into this (hidden) schema.
SOURCE_SCHEMA = "__HISTORY__"
SEP = "\x1f"
# Queries remembered per session for LAST_QUERY_ID(-n); older ones come from the durable history.
RECENT = 100
# A result copy is kept for RESULT_SCAN only up to this size (the in-memory result serves the rest).
MAX_COPY_BYTES = 64 << 20

_QUERY_TYPES = {
    StatementType.SELECT: "SELECT",
    StatementType.EXPLAIN: "EXPLAIN",
    StatementType.INSERT: "INSERT",
    StatementType.UPDATE: "UPDATE",
    StatementType.DELETE: "DELETE",
    StatementType.MERGE: "MERGE",
    StatementType.MULTI_INSERT: "MULTI_TABLE_INSERT",
    StatementType.ALTER_SESSION: "ALTER_SESSION",
    StatementType.USE: "USE",
    StatementType.SHOW: "SHOW",
    StatementType.DESCRIBE: "DESCRIBE",
    StatementType.COMMIT: "COMMIT",
    StatementType.BEGIN: "BEGIN_TRANSACTION",
    StatementType.ROLLBACK: "ROLLBACK",
}


def _query_type(tree: exp.Expression, result: QueryResult) -> str:
    if result.statement_type != StatementType.DDL:
        return _QUERY_TYPES.get(result.statement_type, "UNKNOWN")
    kind = str(tree.args.get("kind") or "").upper()
    verb = {exp.Create: "CREATE", exp.Drop: "DROP", exp.Alter: "ALTER", exp.Undrop: "UNDROP"}.get(type(tree))
    return f"{verb}_{kind}" if verb and kind else "UNKNOWN"


def run_recorded(
    history: QueryHistory,
    session: Session,
    tree: exp.Expression,
    query_id: str,
    text: str,
    run: Callable[[], QueryResult],
) -> QueryResult:
    """Runs a statement, recording it before and after (rows once its stream is read)."""
    start = int(time.time() * 1000)
    history.started(
        QueryStart(
            query_id,
            text,
            session.id,
            session.user,
            session.role,
            session.warehouse,
            session.database,
            session.schema,
            str(session.parameter("QUERY_TAG") or ""),
            start,
            session.transaction.id if session.transaction else None,
        )
    )
    session.recent_queries = [*session.recent_queries, query_id][-RECENT:]
    try:
        result = run()
    except SnowflakeError as e:
        history.finished(query_id, end_ms=int(time.time() * 1000), error=(e.code_text, e.message))
        raise
    except Exception as e:
        history.finished(query_id, end_ms=int(time.time() * 1000), error=("100001", type(e).__name__))
        raise
    query_type = _query_type(tree, result)
    if result.is_dml or isinstance(result.batches, list):
        batches = list(result.batches)
        if result.is_dml:
            rows = _dml_rows(batches)
        elif result.statement_type in (StatementType.SELECT, StatementType.SHOW, StatementType.DESCRIBE):
            rows = sum(b.num_rows for b in batches)
        else:
            rows = 0  # a status message is no produced row
        history.finished(
            query_id,
            end_ms=int(time.time() * 1000),
            query_type=query_type,
            rows=rows,
            compiled_ms=result.compiled_ms,
            **_scanned(result),
        )
        if not result.is_dml:
            _save(history, query_id, result, batches)
        result.batches = batches
        return result
    result.batches = _recording(history, query_id, query_type, result, result.batches)
    return result


def _scanned(result: QueryResult) -> dict[str, int]:
    """What the statement's table scans read (once its batches are exhausted), for the history."""
    scan = result.scan
    if scan is None:
        return {}
    return {
        "bytes_scanned": scan.bytes_scanned,
        "partitions_scanned": scan.files_scanned,
        "partitions_total": scan.files_total,
    }


def _dml_rows(batches: list[pa.RecordBatch]) -> int:
    return sum(int(v or 0) for b in batches for column in b.columns for v in column.to_pylist())


def _schema(result: QueryResult, batches: list[pa.RecordBatch]) -> pa.Schema | None:
    if not batches:
        return None
    fields = batches[0].schema
    # Stored names, as every table the engine reads has (RESULT_SCAN's columns read as `x` or "X").
    return pa.schema(
        [f.with_name(naming.stored(c.name)) for f, c in zip(fields, result.columns, strict=True)]
    )


def _save(history: QueryHistory, query_id: str, result: QueryResult, batches: list[pa.RecordBatch]) -> None:
    schema = _schema(result, batches)
    if schema is None:
        schema = pa.schema([arrow_field(naming.stored(c.name), c.type, c.nullable) for c in result.columns])
    try:
        # Without views: a lookup's one row would otherwise keep (and write) whole Parquet pages.
        plain = [without_views(b.rename_columns(schema.names)) for b in batches]
        table = pa.Table.from_batches(plain, schema=plain_schema(schema))
        kept = [
            f.with_metadata({**(f.metadata or {}), **naming.exact(c.name)})
            for f, c in zip(table.schema, result.columns, strict=True)
        ]
        history.save_result(query_id, table.cast(pa.schema(kept, metadata=table.schema.metadata)))
    except (OSError, pa.ArrowException) as e:  # a missing copy only limits RESULT_SCAN later
        log.warning("could not keep the result of %s: %s", query_id, e)


def _recording(
    history: QueryHistory,
    query_id: str,
    query_type: str,
    result: QueryResult,
    batches: Iterator[pa.RecordBatch],
) -> Iterator[pa.RecordBatch]:
    kept: list[pa.RecordBatch] | None = []
    rows = size = 0
    try:
        for batch in batches:
            rows += batch.num_rows
            size += batch.nbytes
            if kept is not None:
                if size <= MAX_COPY_BYTES:
                    kept.append(batch)
                else:
                    kept = None
            yield batch
    except SnowflakeError as e:
        history.finished(query_id, end_ms=int(time.time() * 1000), error=(e.code_text, e.message))
        raise
    history.finished(
        query_id,
        end_ms=int(time.time() * 1000),
        query_type=query_type,
        rows=rows,
        compiled_ms=result.compiled_ms,
        **_scanned(result),
    )
    if kept is not None:
        _save(history, query_id, result, kept)


# --- LAST_QUERY_ID -----------------------------------------------------------------------------------


def _int_arg(node: exp.Expression) -> int:
    value = node.this if isinstance(node, exp.Neg) else node
    if not isinstance(value, exp.Literal) or value.is_string:
        raise Unsupported("LAST_QUERY_ID takes an integer constant.")
    number = int(value.this)
    return -number if isinstance(node, exp.Neg) else number


def last_query_ids(tree: exp.Expression, history: QueryHistory, session: Session) -> exp.Expression:
    """LAST_QUERY_ID([n]) -> the query id as a string literal (NULL when there is none)."""

    def replace(node: exp.Expression) -> exp.Expression:
        if not (isinstance(node, exp.Anonymous) and str(node.this).upper() == "LAST_QUERY_ID"):
            return node
        n = _int_arg(node.expressions[0]) if node.expressions else -1
        recent = session.recent_queries
        if n < 0:
            found = recent[n] if -n <= len(recent) else None
        else:
            older = [r["query_id"] for r in reversed(history.rows(session_id=session.id, limit=n + RECENT))]
            found = older[n - 1] if 0 < n <= len(older) else None
        return exp.Literal.string(found) if found else exp.cast(exp.Null(), "VARCHAR")

    if not any(isinstance(n, exp.Anonymous) and str(n.this).upper() == "LAST_QUERY_ID" for n in tree.walk()):
        return tree
    return tree.transform(replace)


# --- RESULT_SCAN and QUERY_HISTORY as table sources --------------------------------------------------

_SOURCES = (
    "RESULT_SCAN",
    "QUERY_HISTORY",
    "QUERY_HISTORY_BY_SESSION",
    "QUERY_HISTORY_BY_USER",
    "TASK_HISTORY",
    "POLICY_REFERENCES",
    "TAG_REFERENCES",
    "TAG_REFERENCES_ALL_COLUMNS",
)


def _call(node: exp.Expression) -> tuple[str, exp.Anonymous] | None:
    func = node.expression if isinstance(node, exp.Dot) else node
    if not isinstance(func, exp.Anonymous):
        return None
    name = str(func.this).upper()
    if name not in _SOURCES:
        return None
    if isinstance(node, exp.Dot) and node.this.name.upper() != "INFORMATION_SCHEMA":
        return None
    return name, func


def _kwargs(func: exp.Anonymous, allowed: tuple[str, ...]) -> dict[str, exp.Expression]:
    found = {}
    for arg in func.expressions:
        if not isinstance(arg, exp.Kwarg):
            raise Unsupported(f"{func.this} takes named arguments (name => value).")
        name = arg.this.name.upper()
        if name not in allowed:
            raise Unsupported(f"{str(func.this).upper()} argument {name} is not supported yet.")
        found[name] = arg.expression
    return found


def table_sources(tree: exp.Expression, database: str | None, *, copy: bool = False) -> exp.Expression:
    """TABLE(RESULT_SCAN('id')) and TABLE(INFORMATION_SCHEMA.QUERY_HISTORY(...)) -> references to
    tables the engine builds (see `build`), so the rest of the query runs on DataFusion. With
    `copy`, a tree that has such sources is copied first (a tree without is returned as it is)."""
    if not any(_call(node.this) for node in tree.find_all(exp.TableFromRows)):
        return tree
    if copy:
        tree = tree.copy()
    for node in list(tree.find_all(exp.TableFromRows)):
        call = _call(node.this)
        if call is None:
            continue
        name, func = call
        if name == "RESULT_SCAN":
            if len(func.expressions) != 1 or not isinstance(func.expressions[0], exp.Literal):
                raise Unsupported("RESULT_SCAN takes a query id string or LAST_QUERY_ID().")
            encoded = SEP.join((name, func.expressions[0].name))
        elif name == "POLICY_REFERENCES":
            args = _kwargs(func, _POLICY_REFERENCE_ARGS)
            if not ("POLICY_NAME" in args) ^ ("REF_ENTITY_NAME" in args):
                raise SqlCompilationError("POLICY_REFERENCES takes either POLICY_NAME or REF_ENTITY_NAME.")
            encoded = SEP.join((name, *(args[a].name if a in args else "" for a in _POLICY_REFERENCE_ARGS)))
            conditions = []
        elif name.startswith("TAG_REFERENCES"):
            args = func.expressions
            if len(args) != 2 or not all(isinstance(a, exp.Literal) and a.is_string for a in args):
                raise SqlCompilationError(f"{name} takes an object's name and its domain.")
            encoded = SEP.join((name, args[0].name, args[1].name))
            conditions = []
        elif name == "TASK_HISTORY":
            args = _kwargs(func, _TASK_ARGS)
            limit = _int_arg(args["RESULT_LIMIT"]) if "RESULT_LIMIT" in args else 100
            task_name = args["TASK_NAME"].name if "TASK_NAME" in args else ""
            conditions = _task_filters(args)
            encoded = SEP.join((name, str(MAX_RESULT_LIMIT if conditions else limit), task_name))
        else:
            allowed = _BY_USER_ARGS if name == "QUERY_HISTORY_BY_USER" else _HISTORY_ARGS
            if name == "QUERY_HISTORY_BY_SESSION":
                allowed = (*_HISTORY_ARGS, "SESSION_ID")
            args = _kwargs(func, allowed)
            limit = _int_arg(args["RESULT_LIMIT"]) if "RESULT_LIMIT" in args else 100
            session = _int_arg(args["SESSION_ID"]) if "SESSION_ID" in args else ""
            conditions = _history_filters(name, args)
            # Filtered: the engine builds up to the most Snowflake returns, the query filters and limits.
            encoded = SEP.join((name, str(MAX_RESULT_LIMIT if conditions else limit), str(session)))
        table = exp.Table(
            this=exp.to_identifier(encoded, quoted=True),
            db=exp.to_identifier(SOURCE_SCHEMA, quoted=True),
            catalog=exp.to_identifier(database or "EMBUCKET", quoted=True),
        )
        if name != "RESULT_SCAN" and conditions:
            query = (
                exp.select("*")
                .from_(table)
                .where(exp.and_(*conditions))
                .order_by(exp.Ordered(this=exp.column(_ORDER[name]), desc=True))
                .limit(limit)
            )
            node.replace(exp.Subquery(this=query, alias=node.args.get("alias")))
        else:
            table.set("alias", node.args.get("alias"))
            node.replace(table)
    return tree


_HISTORY_ARGS = ("RESULT_LIMIT", "END_TIME_RANGE_START", "END_TIME_RANGE_END")
# https://docs.snowflake.com/en/sql-reference/functions/policy_references#arguments
_POLICY_REFERENCE_ARGS = ("POLICY_NAME", "REF_ENTITY_NAME", "REF_ENTITY_DOMAIN")
# https://docs.snowflake.com/en/sql-reference/functions/task_history#arguments
_TASK_ARGS = (
    "RESULT_LIMIT",
    "SCHEDULED_TIME_RANGE_START",
    "SCHEDULED_TIME_RANGE_END",
    "TASK_NAME",
    "ERROR_ONLY",
)
_ORDER = {"TASK_HISTORY": "SCHEDULED_TIME"} | {n: "START_TIME" for n in _SOURCES[1:4]}
_BY_USER_ARGS = (*_HISTORY_ARGS, "USER_NAME")
# RESULT_LIMIT's maximum: https://docs.snowflake.com/en/sql-reference/functions/query_history
MAX_RESULT_LIMIT = 10000


def _history_filters(name: str, args: dict[str, exp.Expression]) -> list[exp.Expression]:
    """END_TIME_RANGE_START/END (queries still running have no end: they count as in range unless
    an end is given) and QUERY_HISTORY_BY_USER's user (default: the current user)."""
    end_time = exp.column("END_TIME")
    conditions: list[exp.Expression] = []
    if "END_TIME_RANGE_START" in args:
        start = args["END_TIME_RANGE_START"].copy()
        conditions.append(exp.or_(end_time.is_(exp.null()), end_time.copy() >= start))
    if "END_TIME_RANGE_END" in args:
        conditions.append(end_time.copy() <= args["END_TIME_RANGE_END"].copy())
    if name == "QUERY_HISTORY_BY_USER":
        user = args.get("USER_NAME") or exp.func("CURRENT_USER")
        conditions.append(exp.column("USER_NAME").eq(user.copy()))
    return conditions


def _task_filters(args: dict[str, exp.Expression]) -> list[exp.Expression]:
    """SCHEDULED_TIME_RANGE_START/END and ERROR_ONLY (the FAILED and CANCELLED runs)."""
    scheduled = exp.column("SCHEDULED_TIME")
    conditions: list[exp.Expression] = []
    if "SCHEDULED_TIME_RANGE_START" in args:
        conditions.append(scheduled >= args["SCHEDULED_TIME_RANGE_START"].copy())
    if "SCHEDULED_TIME_RANGE_END" in args:
        conditions.append(scheduled.copy() <= args["SCHEDULED_TIME_RANGE_END"].copy())
    if "ERROR_ONLY" in args:
        failed = exp.column("STATE").isin(exp.Literal.string("FAILED"), exp.Literal.string("CANCELLED"))
        conditions.append(exp.or_(exp.not_(args["ERROR_ONLY"].copy()), failed))
    return conditions


TEXT = SfType("TEXT", length=MAX_VARCHAR)
TIMESTAMP_LTZ = SfType("TIMESTAMP_LTZ", scale=3)

# https://docs.snowflake.com/en/sql-reference/functions/query_history (leading columns)
HISTORY_COLUMNS: list[tuple[str, SfType, str]] = [
    ("QUERY_ID", TEXT, "query_id"),
    ("QUERY_TEXT", TEXT, "query_text"),
    ("DATABASE_NAME", TEXT, "database_name"),
    ("SCHEMA_NAME", TEXT, "schema_name"),
    ("QUERY_TYPE", TEXT, "query_type"),
    ("SESSION_ID", NUMBER_38_0, "session_id"),
    ("USER_NAME", TEXT, "user_name"),
    ("ROLE_NAME", TEXT, "role_name"),
    ("WAREHOUSE_NAME", TEXT, "warehouse_name"),
    ("QUERY_TAG", TEXT, "query_tag"),
    ("EXECUTION_STATUS", TEXT, "execution_status"),
    ("ERROR_CODE", TEXT, "error_code"),
    ("ERROR_MESSAGE", TEXT, "error_message"),
    ("START_TIME", TIMESTAMP_LTZ, "start_ms"),
    ("END_TIME", TIMESTAMP_LTZ, "end_ms"),
    ("TOTAL_ELAPSED_TIME", NUMBER_38_0, ""),
    ("BYTES_SCANNED", NUMBER_38_0, "bytes_scanned"),
    ("ROWS_PRODUCED", NUMBER_38_0, "rows_produced"),
    ("COMPILATION_TIME", NUMBER_38_0, ""),
    ("EXECUTION_TIME", NUMBER_38_0, ""),
    ("PARTITIONS_SCANNED", NUMBER_38_0, "partitions_scanned"),
    ("PARTITIONS_TOTAL", NUMBER_38_0, "partitions_total"),
    ("TRANSACTION_ID", NUMBER_38_0, "transaction_id"),
]


def _history_row(row: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, _, source in HISTORY_COLUMNS:
        if name in ("START_TIME", "END_TIME"):
            out[name] = millis_to_datetime(row[source])
        elif name == "TOTAL_ELAPSED_TIME":
            out[name] = row["end_ms"] - row["start_ms"] if row["end_ms"] is not None else None
        elif name in ("COMPILATION_TIME", "EXECUTION_TIME"):
            out[name] = _phase(row, name == "COMPILATION_TIME")
        else:
            out[name] = row[source]
    return {naming.stored(k): v for k, v in out.items()}


def _phase(row: dict[str, Any], compiling: bool) -> int | None:
    """Milliseconds compiling (start to plan) or executing (plan to end); a statement that made
    no query plan (DDL, a failure before planning) spent its time compiling, as far as is known."""
    start, end = row["start_ms"], row["end_ms"]
    if end is None:
        return None
    planned = min(max(row.get("compiled_ms") or end, start), end)
    return planned - start if compiling else end - planned


def build(history: QueryHistory, encoded: str, session_id: int, user: str | None = None) -> pa.Table:
    """The Arrow table behind one rewritten history source; with `user`, only that user's
    statements (roles below ACCOUNTADMIN see their own queries only, as on Snowflake).

    Raises:
        SqlCompilationError: RESULT_SCAN of a query whose result is not kept.
    """
    name, *args = encoded.split(SEP)
    if name == "RESULT_SCAN":
        # Another user's result is as unknown as a missing one, as on Snowflake.
        table = history.load_result(args[0]) if user is None or history.user_of(args[0]) == user else None
        if table is None:
            raise SqlCompilationError(f"Statement {args[0]} not found", code=709, sqlstate="02000")
        return table
    limit, session = int(args[0]), args[1]
    if name == "QUERY_HISTORY_BY_SESSION":
        rows = history.rows(session_id=int(session) if session else session_id, user=user, limit=limit)
    else:
        rows = history.rows(user=user, limit=limit)
    schema = pa.schema([arrow_field(naming.stored(n), t) for n, t, _ in HISTORY_COLUMNS])
    return pa.Table.from_pylist([_history_row(r) for r in rows], schema=schema)

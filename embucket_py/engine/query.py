"""Queries (SELECT, set operations, VALUES): translate, plan on DataFusion, stream Arrow batches."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Iterator
from dataclasses import replace

import pyarrow as pa
from datafusion import DataFrame, SessionContext
from sqlglot import exp

from embucket_py import naming
from embucket_py.catalog.tables import TableName, Tables
from embucket_py.catalog.views import View
from embucket_py.engine import (
    lambdas,
    match_recognize,
    policies,
    python_functions,
    scan,
    sequences,
    streams,
    tags,
    user_functions,
)
from embucket_py.engine.clustering import has_system_functions, system_functions
from embucket_py.engine.context import (
    CONTEXTS,
    StoredTables,
    for_recursion,
    load_tables,
    register_arrow,
    register_tables,
)
from embucket_py.engine.failures import from_datafusion
from embucket_py.engine.pivot_values import has_pivots, resolve_pivot_values
from embucket_py.engine.result import QueryResult, ResultColumn, StatementType, columns_of
from embucket_py.engine.reused_results import REUSED, reuse_enabled
from embucket_py.engine.set_operations import check_set_operations
from embucket_py.errors import QueryCanceled, SnowflakeError, SqlCompilationError
from embucket_py.lru import Lru
from embucket_py.sql import views
from embucket_py.sql.context import ColumnKinds, SqlContext, kind_text
from embucket_py.sql.match_recognize import has_match_recognize
from embucket_py.sql.names import SourceText
from embucket_py.sql.nodes import Nodes
from embucket_py.sql.transforms.projections import result_names
from embucket_py.sql.translate import QueryTranslation, translate_query

MAX_VIEW_DEPTH = 32
# A shared CTE's result held in memory for the statement; a larger one is computed per reference.
SHARED_CTE_BYTES = 256 << 20


def column_kinds(tables: Tables) -> ColumnKinds:
    """Declared type kinds of stored tables' columns, each table read once (one lookup per statement)."""
    seen: dict[tuple[str, ...], dict[str, str] | None] = {}

    def lookup(parts: list[str]) -> dict[str, str] | None:
        key = tuple(parts)
        if key not in seen:
            table = tables.find(TableName(*parts))
            seen[key] = None if table is None else {c.name: kind_text(c.type) for c in Tables.columns(table)}
        return seen[key]

    return lookup


def expand_views(
    tables: Tables,
    tree: exp.Expression,
    ctx: SqlContext,
    depth: int = 0,
    found: dict[tuple[str, ...], View | None] | None = None,
    functions: user_functions.Functions | None = None,
) -> exp.Expression:
    """Inlines every view the query references (and views those views reference). `found`: the
    lookups made so far (a query naming a table several times asks the metastore once)."""
    functions = functions or user_functions.Functions(tables, ctx)
    found = {} if found is None else found
    for table, parts in views.references(Nodes(tree), ctx):
        view = _view(tables, parts, found)
        if view is None:
            continue
        if depth >= MAX_VIEW_DEPTH:
            raise SqlCompilationError(f"View '{parts[2]}' references itself (or nests too deeply).")
        subquery = views.inline(table, view.query, parts[0], parts[1])
        # The view's own calls of user functions resolve in the view's schema.
        user_functions.expand(functions, subquery.this, parts[0], parts[1])
        view_ctx = SqlContext(parts[0], parts[1], ctx.values)
        expand_views(tables, subquery.this, view_ctx, depth + 1, found, functions)
        policies.wrap_view(tables, subquery, parts)
    return tree


def _view(tables: Tables, parts: list[str], found: dict[tuple[str, ...], View | None]) -> View | None:
    key = tuple(parts)
    if key not in found:
        found[key] = tables.views.get(*parts)
    return found[key]


def translate(
    tables: Tables, tree: exp.Expression, ctx: SqlContext, source: SourceText | None
) -> QueryTranslation:
    """Views inlined, then Snowflake -> DataFusion SQL. The parsed tree may be shared (parse
    cache): it is copied (~5 ms for a TPC-H query) only when a step here changes it."""
    found: dict[tuple[str, ...], View | None] = {}
    functions = user_functions.Functions(tables, ctx)
    nodes = Nodes(tree)
    references = views.references(nodes, ctx)
    has_views = any([_view(tables, parts, found) for _, parts in references])
    # A name that is no view may be a stream (read as its table's changes).
    has_streams = tables.streams.any_of([parts for _, parts in references if found[tuple(parts)] is None])
    # Policies of the tables named here (those read through views and streams: once those are in).
    named = [parts for _, parts in references]
    on_tables = None if has_views or has_streams else policies.attached(tables, named)
    calls_functions = user_functions.calls_any(functions, nodes, ctx.database, ctx.schema)
    changed = has_views or has_streams or calls_functions or sequences.uses_nextval(nodes) or bool(on_tables)
    asks_tags = tags.has_calls(nodes)
    special = has_system_functions(nodes) or streams.has_data_calls(nodes) or has_pivots(nodes)
    if changed or asks_tags or special or has_match_recognize(nodes):
        tree = tree.copy()
        user_functions.expand(functions, tree, ctx.database, ctx.schema)
        tree = expand_views(tables, tree, ctx, found=found, functions=functions)
        if has_streams:
            streams.expand(tables, tree, ctx)
        policies.apply(tables, tree, ctx, on_tables)
        sequences.expand(tables, tree, ctx)
        tree = system_functions(tables, tree, ctx)
        tree = tags.replace_calls(tables, tree, ctx) if asks_tags else tree
        tree = streams.replace_has_data(tables, tree, ctx)
        tree = resolve_pivot_values(tree, lambda q: collect(plan(tables, q, ctx, None)[0]))
        tree = match_recognize.resolve(tree, lambda q: _named(*plan(tables, q, ctx, None)))
    return translate_query(tree, ctx, source, lambda parts: column_names(tables, parts))


def _named(frame: DataFrame, names: list[str]) -> tuple[pa.Table, list[str]]:
    return collect(frame), names


def column_names(tables: Tables, parts: list[str]) -> list[str] | None:
    """Snowflake column names of a stored table; None when there is no such table."""
    table = tables.find(TableName(*parts))
    return None if table is None else [c.name for c in Tables.columns(table)]


def filters_in_scan(tree: exp.Expression, table_count: int) -> bool:
    """Whether the statement's filters run while Parquet pages are decoded (late
    materialization). Joins and aggregates run better without that (TPC-H SF1 geomean -7%;
    pruning by statistics stays), except in two shapes:
    - a lookup: one table read through a WHERE, without joins or grouping; few rows survive
      (ORDERS by key, raw DataFusion: 16 -> 9 ms);
    - a keyed aggregate subquery: one table aggregated per key that the outer query joins back
      (a correlated aggregate, or IN over a GROUP BY). The join's build side (the outer query's
      few keys) becomes a dynamic filter on that table's scan, which drops rows only when
      filters run in the scan; otherwise the whole table is aggregated first (raw DataFusion,
      TPC-H Q17 0.35-0.41 -> 0.20-0.23 s, Q18 0.36-0.41 -> 0.33-0.35 s)."""
    if table_count == 1 and isinstance(tree, exp.Select):
        return (
            tree.args.get("where") is not None
            and not tree.args.get("joins")
            and not tree.args.get("group")
            and tree.find(exp.AggFunc) is None
        )
    return any(_keyed_aggregate(s) for s in tree.find_all(exp.Subquery))


def _keyed_aggregate(subquery: exp.Subquery) -> bool:
    select = subquery.this
    if not isinstance(select, exp.Select) or select.args.get("joins"):
        return False
    source = select.args.get("from_")
    if source is None or not isinstance(source.this, exp.Table):
        return False
    if isinstance(subquery.parent, exp.In):
        return bool(select.args.get("group"))
    where = select.args.get("where")
    # A column = column equality in a one-table subquery: the key it is joined back by.
    keyed = where is not None and any(
        isinstance(eq.left, exp.Column) and isinstance(eq.right, exp.Column) for eq in where.find_all(exp.EQ)
    )
    return keyed and isinstance(subquery.parent, exp.Predicate) and select.find(exp.AggFunc) is not None


def plan(
    tables: Tables,
    tree: exp.Expression,
    ctx: SqlContext,
    source: SourceText | None,
    cancel: threading.Event | None = None,
    share: bool = False,
) -> tuple[DataFrame, list[str]]:
    """Plans a query on a pooled DataFusion context (see engine/context.py), which the DataFrame
    keeps until it is gone. Returns the DataFrame and Snowflake names. With `share`, CTEs the
    query reads more than once are computed here, once (see sql/transforms/shared_ctes.py)."""
    translation = translate(tables, tree, ctx, source)
    stored = load_tables(tables, translation.tables, ctx)
    return _plan_translated(tables, tree, ctx, translation, stored, cancel, share)


def _plan_translated(
    tables: Tables,
    tree: exp.Expression,
    ctx: SqlContext,
    translation: QueryTranslation,
    stored: StoredTables,
    cancel: threading.Event | None,
    share: bool,
) -> tuple[DataFrame, list[str]]:
    df_ctx = CONTEXTS.borrow(stored.small, filters_in_scan(tree, len(translation.tables)))
    if translation.recursive:
        for_recursion(df_ctx)
    try:
        register_tables(df_ctx, tables, translation.tables, ctx, stored)
        attach_functions(df_ctx, tables, translation.sql)
        sql = _over_shared_ctes(df_ctx, translation, cancel) if share else translation.sql
        frame = df_ctx.sql(sql)
        if tree.find(exp.SetOperation):
            check_set_operations(df_ctx, frame.logical_plan())
    except SnowflakeError:
        CONTEXTS.give_back(df_ctx)
        raise
    except Exception as e:
        CONTEXTS.give_back(df_ctx)
        raise from_datafusion(e) from None
    # Iceberg's FFI table provider reaches back into the context while the plan runs.
    CONTEXTS.lend_for(frame, df_ctx)
    try:
        schema = frame.schema()
    except Exception as e:
        raise from_datafusion(e) from None
    exact = [(f.metadata or {}).get(naming.EXACT) for f in schema]
    names = result_names(translation.projected, schema.names, [e.decode() if e else None for e in exact])
    return frame, names


def attach_functions(df_ctx: SessionContext, tables: Tables, sql: str) -> None:
    """The functions a statement's SQL calls that a context cannot have from the start:
    NEXTVAL (bound to this server's metastore) and user functions in Python."""
    if sequences.NEXTVAL_UDF in sql:
        df_ctx.register_udf(sequences.nextval_udf(tables.sequences))
    python_functions.REGISTRY.attach(df_ctx, sql)
    lambdas.attach(df_ctx, sql, lambda inner, body: attach_functions(inner, tables, body))


def _over_shared_ctes(
    df_ctx: SessionContext, translation: QueryTranslation, cancel: threading.Event | None
) -> str:
    """Computes the shared CTEs into registered tables and returns the SQL reading them; the
    whole query's SQL instead when one does not plan alone or holds more than SHARED_CTE_BYTES
    (every reference then computes it again, as DataFusion does)."""
    if translation.sql_over_shared is None:
        return translation.sql
    df_ctx.registered = True  # type: ignore[attr-defined]  # the pool drops them with the tables
    for name, sql in translation.shared:
        try:
            frame = df_ctx.sql(sql)
            schema = frame.schema()
        except Exception:
            return translation.sql
        frame.session_context = df_ctx  # type: ignore[attr-defined]  # run on it, not lent
        held: list[pa.RecordBatch] = []
        size = 0
        for batch in stream(frame, cancel, df_ctx.scan_stats):  # type: ignore[attr-defined]
            held.append(batch if batch.schema == schema else batch.cast(schema))
            size += batch.nbytes
            if size > SHARED_CTE_BYTES:
                return translation.sql
        register_arrow(df_ctx, name, pa.Table.from_batches(held, schema))
    return translation.sql_over_shared


def run_query(
    tables: Tables,
    tree: exp.Expression,
    ctx: SqlContext,
    source: SourceText | None,
    cancel: threading.Event | None = None,
) -> QueryResult:
    """A query's result: a SELECT of literals from its one computation (see LITERAL_RESULTS);
    reused when the same query read the same table versions before (see
    engine/reused_results.py), else planned and streamed (and kept for reuse once read)."""
    translation = translate(tables, tree, ctx, source)
    if _literals_only(tree) and len(translation.sql) <= _LITERAL_SQL_CHARS:
        key = (translation.sql, tuple(translation.projected))
        columns, batches = LITERAL_RESULTS.get(key, lambda: _literal_result(tables, tree, ctx, translation))
        return QueryResult(
            list(columns), list(batches), StatementType.SELECT, scan=scan.ScanStats(), compiled_ms=_now_ms()
        )
    stored = load_tables(tables, translation.tables, ctx)
    key = REUSED.key(translation, stored) if reuse_enabled(ctx.parameters) else None
    if key is not None and (reused := REUSED.get(key)) is not None:
        return replace(reused.result(), compiled_ms=_now_ms())
    frame, names = _plan_translated(tables, tree, ctx, translation, stored, cancel, share=True)
    compiled = _now_ms()
    stats = frame.session_context.scan_stats  # type: ignore[attr-defined]
    schema, batches = _as_executed(frame.schema(), stream(frame, cancel, stats))
    columns = columns_of(schema, names)
    if key is not None:
        batches = REUSED.keep(key, columns, batches)
    return QueryResult(columns, batches, StatementType.SELECT, scan=stats, compiled_ms=compiled)


def _now_ms() -> int:
    return int(time.time() * 1000)


# A SELECT of literals alone (`SELECT 1`, `SELECT 'a' AS x, -2.5, NULL`), as tools send to
# check a connection: its result is the same in every run and every session, so it is computed
# once, as a constant folded at compile time (Snowflake answers these without a warehouse).
# The statement's path in process: 1.0 ms through DataFusion, 0.4 ms from the kept result.
_LITERAL_NODES = (
    exp.Select,
    exp.Alias,
    exp.Identifier,
    exp.Literal,
    exp.Null,
    exp.Boolean,
    exp.Neg,
    exp.Paren,
)
LITERAL_RESULTS: Lru[tuple[list[ResultColumn], tuple[pa.RecordBatch, ...]]] = Lru(256)
_LITERAL_SQL_CHARS = 4096  # which bounds what is kept


def _literals_only(tree: exp.Expression) -> bool:
    return isinstance(tree, exp.Select) and all(isinstance(node, _LITERAL_NODES) for node in tree.walk())


def _literal_result(
    tables: Tables, tree: exp.Expression, ctx: SqlContext, translation: QueryTranslation
) -> tuple[list[ResultColumn], tuple[pa.RecordBatch, ...]]:
    frame, names = _plan_translated(tables, tree, ctx, translation, load_tables(tables, [], ctx), None, False)
    schema, batches = _as_executed(frame.schema(), stream(frame))
    return columns_of(schema, names), tuple(batches)


def _as_executed(
    schema: pa.Schema, batches: Iterator[pa.RecordBatch]
) -> tuple[pa.Schema, Iterator[pa.RecordBatch]]:
    """The schema of numbers and dates as they come: DataFusion's DataFrame schema of a set
    operation is its first branch's (INT for `SELECT 1 UNION ALL SELECT 2.5::FLOAT`, DATE for a
    DATE above a TIMESTAMP; a CASE of the two is DATE too), while the plan that runs coerces to
    the common type (a DOUBLE, a TIMESTAMP). Reads the first batch to learn it; the values were
    encoded in the schema's type (a TIMESTAMP's time of day was lost as a DATE). A number meeting
    text stays a number (DataFusion makes both text): Snowflake casts the text, and `SELECT 3
    UNION ALL SELECT 'd'` is its numeric conversion error."""
    first = next(batches, None)
    if first is None:
        return schema, batches
    return _executed(schema, first.schema), itertools.chain([first], batches)


def _executed(planned: pa.Schema, ran: pa.Schema) -> pa.Schema:
    """`planned` with its numbers and dates typed as a batch that ran (`ran`) has them, and
    its NULLs (`SELECT NULL UNION ALL SELECT id`: the first branch's type was text) as whatever
    the other branches made them."""
    fields = [
        f.with_type(b.type).with_nullable(True)
        if f.type != b.type
        and (
            pa.types.is_null(f.type)
            or (_numeric(f.type) and _numeric(b.type))
            or (_temporal(f.type) and _temporal(b.type))
        )
        else f
        for f, b in zip(planned, ran, strict=True)
    ]
    return pa.schema(fields, metadata=planned.metadata)


def _numeric(t: pa.DataType) -> bool:
    return pa.types.is_integer(t) or pa.types.is_decimal(t) or pa.types.is_floating(t)


def _temporal(t: pa.DataType) -> bool:
    return pa.types.is_date(t) or pa.types.is_timestamp(t)


def describe_query(
    tables: Tables, tree: exp.Expression, ctx: SqlContext, source: SourceText | None
) -> QueryResult:
    frame, names = plan(tables, tree, ctx, source)
    return QueryResult(columns_of(described_schema(frame), names), [], StatementType.SELECT)


def described_schema(frame: DataFrame) -> pa.Schema:
    """The types a planned query's rows will have, without running it: its DataFrame schema with
    the types set operations bring their branches to (see `_as_executed`), as optimizing the
    plan finds them."""
    planned = frame.schema()
    df_ctx: SessionContext | None = getattr(frame, "session_context", None)
    if df_ctx is None:
        return planned
    try:
        optimized = df_ctx.create_dataframe_from_logical_plan(frame.optimized_logical_plan()).schema()
    except Exception as e:
        raise from_datafusion(e) from None
    return _executed(planned, optimized)


def stream(
    frame: DataFrame, cancel: threading.Event | None = None, stats: scan.ScanStats | None = None
) -> Iterator[pa.RecordBatch]:
    """Executes a DataFrame, yielding Arrow batches; stops between batches once canceled. The
    bytes and files its scans read are added to `stats` when the stream ends."""
    try:
        for batch in scan.execute(frame, stats, cancel):
            if cancel is not None and cancel.is_set():
                raise QueryCanceled("SQL execution canceled")
            yield batch.to_pyarrow()
    except SnowflakeError:
        raise
    except Exception as e:
        raise from_datafusion(e) from None


def collect(frame: DataFrame, cancel: threading.Event | None = None) -> pa.Table:
    """Runs a DataFrame into one Arrow table, with view types made plain for pyarrow's kernels."""
    batches = list(stream(frame, cancel))
    if batches:
        # Branches of a UNION may yield batches typed differently (string vs string_view, a
        # nullability flag): bring each to the plan's schema before joining them.
        schema = _executed(frame.schema(), batches[0].schema)
        batches = [b if b.schema == schema else b.cast(schema) for b in batches]
    table = pa.Table.from_batches(batches) if batches else pa.Table.from_batches([], frame.schema())
    plain = {pa.string_view(): pa.large_string(), pa.binary_view(): pa.large_binary()}
    if any(f.type in plain for f in table.schema):
        schema = pa.schema([f.with_type(plain.get(f.type, f.type)) for f in table.schema])
        table = table.cast(schema)
    return table

"""SELECT ... FROM @stage (FILE_FORMAT => ..., PATTERN => ...) and TABLE(INFER_SCHEMA(...)).
https://docs.snowflake.com/en/user-guide/querying-stage
"""

from __future__ import annotations

import threading
from typing import Any

import pyarrow as pa
import pyarrow.orc as orc
import pyarrow.parquet as pq
from sqlglot import exp

from embucket_py import naming
from embucket_py.catalog.tables import Column, TableName
from embucket_py.engine.context import new_context, register_arrow
from embucket_py.engine.failures import from_datafusion
from embucket_py.engine.query import stream
from embucket_py.engine.result import QueryResult, StatementType, columns_of, constant, status
from embucket_py.engine.stages import NUMBER, TEXT, StageResolver
from embucket_py.errors import SqlCompilationError
from embucket_py.sessions.session import Session
from embucket_py.sql.context import SqlContext
from embucket_py.sql.names import SourceText, qualify, table_parts
from embucket_py.sql.stages import stage_location
from embucket_py.sql.transforms.projections import result_names
from embucket_py.sql.translate import translate_query
from embucket_py.stages import staged_sql
from embucket_py.stages.convert import nested_as_json
from embucket_py.stages.fileio import StagedFile
from embucket_py.stages.formats import COLUMNAR, LINE_COLUMN, FileFormat, ReadState
from embucket_py.stages.inference import text_type
from embucket_py.stages.load import FileRequest, raw_batches
from embucket_py.types import SfType, from_arrow_type, parse_sql_type

BOOLEAN = SfType("BOOLEAN")


def _infer_schema_call(tree: exp.Expression) -> exp.Anonymous | None:
    if not isinstance(tree, exp.Select):
        return None
    from_ = tree.args.get("from_") or tree.args.get("from")
    node = from_.this if from_ is not None else None
    if isinstance(node, exp.TableFromRows) and isinstance(node.this, exp.Anonymous):
        return node.this if node.this.name.upper() == "INFER_SCHEMA" else None
    return None


def reads_stage(tree: exp.Expression) -> bool:
    if _infer_schema_call(tree) is not None:
        return True
    return isinstance(tree, exp.Select) and staged_sql.stage_reference(tree) is not None


def _files(
    resolver: StageResolver, session: Session, ctx: SqlContext, location: str, options: dict[str, str]
) -> tuple[list[tuple[StagedFile, FileRequest]], FileFormat]:
    resolved = resolver.resolve(stage_location(location, ctx), session)
    inline = {"FORMAT_NAME": options["FILE_FORMAT"]} if options.get("FILE_FORMAT") else None
    fmt = resolver.stage_format(resolved, inline, session, ctx)
    files = resolved.store.list(resolved.path, options.get("PATTERN"))
    requests = [
        (f, FileRequest(resolved.store, f, resolved.name(f), fmt, [], "", lambda n, s: [], None))
        for f in files
    ]
    return requests, fmt


def run(
    resolver: StageResolver,
    session: Session,
    tree: exp.Expression,
    ctx: SqlContext,
    source: SourceText | None,
    cancel: threading.Event | None = None,
) -> QueryResult:
    """Raises: ObjectNotFound (stage, file format), query errors."""
    call = _infer_schema_call(tree)
    if call is not None:
        return _over(_infer_schema(resolver, session, call, ctx), tree, ctx, source, cancel)
    assert isinstance(tree, exp.Select)
    table = staged_sql.stage_reference(tree)
    assert table is not None
    requests, fmt = _files(resolver, session, ctx, str(table.this.this), staged_sql.stage_options(table))
    named = (
        fmt.type in COLUMNAR
    )  # JSON records are one VARIANT ($1), Parquet, ORC and Avro rows named columns
    batches, columns = [], None
    for file, request in requests:
        state = ReadState()
        for batch in raw_batches(request, state, as_columns=named):
            names = [n for n in batch.schema.names if n != LINE_COLUMN]
            columns = columns or names
            if named:
                # Nested columns as VARIANT JSON: `$1:field.inner` and `$1` (the row) read into them.
                batch = nested_as_json(batch).rename_columns(
                    [f"n{i}" for i in range(len(names))] + [LINE_COLUMN]
                )
            batch = batch.append_column(staged_sql.FILENAME, pa.array([request.display] * batch.num_rows))
            batches.append(batch)
        del file
    if not batches:
        data = pa.table(
            {
                "c1": pa.array([], pa.string()),
                LINE_COLUMN: pa.array([], pa.int64()),
                staged_sql.FILENAME: pa.array([], pa.string()),
            }
        )
    else:
        data = pa.Table.from_batches(_unify(batches))
    rewritten = staged_sql.rewrite(tree, columns if named else None)
    return _query_over(data, rewritten, ctx, source, cancel)


def _over(
    result: QueryResult,
    tree: exp.Expression,
    ctx: SqlContext,
    source: SourceText | None,
    cancel: threading.Event | None,
) -> QueryResult:
    """The query's own projection, filters and order over a table function's rows."""
    batches = list(result.batches)
    data = pa.Table.from_batches(batches)
    data = data.rename_columns([naming.stored(c.name) for c in result.columns])
    rewritten = tree.copy()
    from_ = rewritten.args.get("from_") or rewritten.args.get("from")
    from_.this.replace(exp.Table(this=exp.to_identifier(staged_sql.STAGE_TABLE, quoted=True)))
    return _query_over(data, rewritten, ctx, source, cancel)


def _unify(batches: list[pa.RecordBatch]) -> list[pa.RecordBatch]:
    """Batches of several files: CSV files may differ in field count, so pad to the widest."""
    widest = max(batches, key=lambda b: b.num_columns).schema
    out = []
    for b in batches:
        if b.schema.equals(widest):
            out.append(b)
            continue
        arrays = [
            b.column(f.name) if f.name in b.schema.names else pa.nulls(b.num_rows, f.type) for f in widest
        ]
        out.append(pa.RecordBatch.from_arrays(arrays, schema=widest))
    return out


def _infer_schema(
    resolver: StageResolver, session: Session, call: exp.Anonymous, ctx: SqlContext
) -> QueryResult:
    """INFER_SCHEMA: one row per column of the first file (name, Snowflake type, nullability)."""
    args = {str(k.this.name).upper(): k.expression.name for k in call.expressions if isinstance(k, exp.Kwarg)}
    if "LOCATION" not in args:
        raise SqlCompilationError("INFER_SCHEMA needs LOCATION.", code=1044, sqlstate="42P13")
    options = {"FILE_FORMAT": args.get("FILE_FORMAT", "")}
    if "FILES" in args:
        options["PATTERN"] = ".*" + args["FILES"].replace(".", "[.]")
    requests, fmt = _files(resolver, session, ctx, args["LOCATION"], options)
    fields: dict[str, tuple[pa.Field, list[str]]] = {}
    for file, request in requests:
        schema = _file_schema(request, fmt)
        for field in schema:
            if field.name not in fields:
                fields[field.name] = (field, [])
            fields[field.name][1].append(request.display)
        del file
    columns = [
        ("COLUMN_NAME", TEXT),
        ("TYPE", TEXT),
        ("NULLABLE", BOOLEAN),
        ("EXPRESSION", TEXT),
        ("FILENAMES", TEXT),
        ("ORDER_ID", NUMBER),
    ]
    rows = []
    for i, (name, (field, names)) in enumerate(fields.items()):
        sf = from_arrow_type(field.type)
        type_text = "TEXT" if sf.kind == "TEXT" else sf.sql
        if sf.kind == "FIXED" and sf.scale == 0 and pa.types.is_integer(field.type):
            type_text = "NUMBER(38, 0)"
        elif sf.kind == "FIXED":
            type_text = f"NUMBER({sf.precision}, {sf.scale})"
        elif sf.kind in ("TIMESTAMP_NTZ", "TIMESTAMP_LTZ", "TIME"):
            type_text = f"{sf.kind}({sf.scale})"
        expression = f'$1:"{name}"::{type_text}' if fmt.type != "CSV" else f"${i + 1}::{type_text}"
        rows.append((name, type_text, field.nullable, expression, ", ".join(names), i))
    return constant(columns, rows, StatementType.SELECT)


def _file_schema(request: FileRequest, fmt: FileFormat) -> pa.Schema:
    if fmt.type in ("PARQUET", "ORC"):  # the footer's schema (Avro's is read with its first rows)
        with request.store.open_random(request.file.path) as f:
            return pq.read_schema(f) if fmt.type == "PARQUET" else orc.ORCFile(f).schema
    state = ReadState()
    for batch in raw_batches(request, state, as_columns=True):
        names = state.header or [n for n in batch.schema.names if n != LINE_COLUMN]
        columns = [batch.column(i) for i in range(len(names))]
        if fmt.type == "CSV":  # text fields: typed by what their values look like
            return pa.schema([pa.field(n, text_type(c)) for n, c in zip(names, columns, strict=True)])
        return pa.schema([pa.field(n, c.type) for n, c in zip(names, columns, strict=True)])
    return pa.schema([])


def create_from_template(
    resolver: StageResolver,
    tables: Any,
    session: Session,
    tree: exp.Create,
    call: exp.Anonymous,
    ctx: SqlContext,
) -> QueryResult:
    """CREATE [OR REPLACE] TABLE t USING TEMPLATE (... INFER_SCHEMA(...)): the inferred columns."""
    inferred = _infer_schema(resolver, session, call, ctx)
    rows = [r for b in inferred.batches for r in b.to_pylist()]
    if not rows:
        raise SqlCompilationError(
            "USING TEMPLATE found no columns in the staged files.", code=2, sqlstate="42601"
        )
    target = tree.this.this if isinstance(tree.this, exp.Schema) else tree.this
    ref = TableName(*qualify(table_parts(target), ctx, "create table"))
    columns = [Column(r["COLUMN_NAME"], parse_sql_type(r["TYPE"]), bool(r["NULLABLE"])) for r in rows]
    created = tables.create(
        ref, columns, replace=bool(tree.args.get("replace")), if_not_exists=bool(tree.args.get("exists"))
    )
    if not created:
        return status(f"{ref.name} already exists, statement succeeded.")
    return status(f"Table {ref.name} successfully created.")


def _query_over(
    data: pa.Table,
    rewritten: exp.Expression,
    ctx: SqlContext,
    source: SourceText | None,
    cancel: threading.Event | None,
) -> QueryResult:
    """Runs a query rewritten to read STAGE_TABLE over rows already in memory."""
    translation = translate_query(rewritten, ctx, source)
    df_ctx = new_context()
    register_arrow(df_ctx, staged_sql.STAGE_TABLE, data)
    try:
        frame = df_ctx.sql(translation.sql)
        schema = frame.schema()
    except Exception as e:
        raise from_datafusion(e) from None
    names = result_names(translation.projected, schema.names)
    return QueryResult(columns_of(schema, names), stream(frame, cancel), StatementType.SELECT)

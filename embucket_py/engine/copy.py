"""COPY INTO <table> (load): staged files -> one Iceberg append, with Snowflake's per-file rows.
https://docs.snowflake.com/en/sql-reference/sql/copy-into-table
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
from sqlglot import exp

from embucket_py import naming
from embucket_py.catalog.tables import QUERY_ID_PROPERTY, TableName, Tables, own_name
from embucket_py.engine.context import new_context, register_arrow
from embucket_py.engine.failures import from_datafusion
from embucket_py.engine.result import QueryResult, StatementType, constant, status
from embucket_py.engine.stages import NUMBER, TEXT, Resolved, StageResolver
from embucket_py.engine.transactions import pending_loads
from embucket_py.errors import SqlCompilationError, Unsupported
from embucket_py.sessions.session import Session
from embucket_py.sql.context import SqlContext, is_on
from embucket_py.sql.stages import LOAD_DEFAULTS, LOAD_OPTIONS, CopyLoadDef, check_options
from embucket_py.sql.translate import translate_query
from embucket_py.stages import staged_sql
from embucket_py.stages.convert import Target
from embucket_py.stages.fileio import StagedFile, StageStore
from embucket_py.stages.formats import COLUMNAR, LINE_COLUMN, FileFormat, ReadState
from embucket_py.stages.load import FileOutcome, FileRequest, OnError, load_file, on_error
from embucket_py.stages.registry import LoadRecord, load_key
from embucket_py.stages.sink import DataFileSink

# Snowflake answers COPY as DML (0x3600); as a query here, so its text and counts stay plain rows.
COPY_TYPE = StatementType.SELECT
RESULT_COLUMNS = [
    ("file", TEXT),
    ("status", TEXT),
    ("rows_parsed", NUMBER),
    ("rows_loaded", NUMBER),
    ("error_limit", NUMBER),
    ("errors_seen", NUMBER),
    ("first_error", TEXT),
    ("first_error_line", NUMBER),
    ("first_error_character", NUMBER),
    ("first_error_column_name", TEXT),
]


@dataclass(frozen=True)
class Source:
    store: StageStore
    path: str
    display: str  # prefix of reported file names
    fmt: FileFormat


def source_of(
    resolver: StageResolver, session: Session, d: CopyLoadDef, ctx: SqlContext
) -> tuple[Source, Resolved | None]:
    inline = d.options.get("FILE_FORMAT")
    if d.source is not None:
        resolved = resolver.resolve(d.source, session)
        fmt = resolver.stage_format(resolved, inline, session, ctx)
        return Source(resolved.store, resolved.path, resolved.display, fmt), resolved
    assert d.url is not None
    root, _, path = d.url.partition("://")
    bucket, _, rest = path.partition("/")
    if root.lower() == "file":
        bucket, rest = "/", path.lstrip("/")  # file:///dir/: the root of the file system
    store = StageStore(f"{root}://{bucket}", d.credentials, d.options.get("ENDPOINT"))
    fmt = resolver.named_or_inline(inline or {}, session, ctx)
    return Source(store, rest, store.root, fmt), None


def selected_files(source: Source, d: CopyLoadDef) -> list[StagedFile]:
    files_option = d.options.get("FILES")
    if files_option is not None:
        names = files_option if isinstance(files_option, list) else [files_option]
        base = source.path.rstrip("/")
        found = []
        for name in names:
            path = f"{base}/{name}" if base else str(name)
            info = source.store.info(path)
            if info is not None:
                found.append(info)
        return found
    pattern = d.options.get("PATTERN")
    return source.store.list(source.path, str(pattern) if pattern else None)


def _targets(tables: Tables, ref: TableName, d: CopyLoadDef, zone: str) -> list[Target]:
    """The columns loaded; with TRUNCATECOLUMNS = TRUE (or ENFORCE_LENGTH = FALSE) text is cut to
    a VARCHAR(n)'s length instead of failing its row.

    Raises: InvalidIdentifier (a column list naming a column the table lacks)."""
    table_columns = Tables.columns(tables.load(ref))
    by_name = {c.name: c for c in table_columns}
    chosen = [by_name[own_name(table_columns, c)] for c in d.columns] if d.columns else table_columns
    truncate = is_on(d.options.get("TRUNCATECOLUMNS", False)) or not is_on(
        d.options.get("ENFORCE_LENGTH", True)
    )
    return [Target(c.name, naming.stored(c.name), c.type, c.nullable, zone, truncate) for c in chosen]


def _matcher(mode: str, targets: list[Target]) -> Callable[[list[str], ReadState], list[str | None]]:
    def match(names: list[str], state: ReadState) -> list[str | None]:
        header = state.header
        available = header if header is not None else names
        result: list[str | None] = []
        for t in targets:
            if mode == "CASE_SENSITIVE":
                found = t.name if t.name in available else None
            else:
                found = next((n for n in available if n.upper() == t.name.upper()), None)
            if found is not None and header is not None:
                found = names[header.index(found)]
            result.append(found)
        return result

    return match


def _positional(targets: list[Target]) -> Callable[[list[str], ReadState], list[str | None]]:
    return lambda names, state: [names[i] if i < len(names) else None for i in range(len(targets))]


def _transform(
    select: exp.Select, fmt: FileFormat, display: str, ctx: SqlContext, count: int
) -> Callable[[pa.RecordBatch], pa.RecordBatch]:
    """Runs the COPY transformation over each raw batch; outputs t0..tn plus the line numbers."""
    compiled: dict[str, str] = {}

    def run(batch: pa.RecordBatch) -> pa.RecordBatch:
        names = [n for n in batch.schema.names if n != LINE_COLUMN]
        named = fmt.type != "CSV" and not all(n.startswith("c") and n[1:].isdigit() for n in names)
        raw = batch
        if named:
            raw = batch.rename_columns([f"n{i}" for i in range(len(names))] + [LINE_COLUMN])
        raw = raw.append_column(staged_sql.FILENAME, pa.array([display] * raw.num_rows, pa.string()))
        key = ",".join(names)
        if key not in compiled:
            tree = staged_sql.rewrite(select, names if named else None)
            tree.append("expressions", exp.column(staged_sql.LINE, quoted=True))
            compiled[key] = translate_query(tree, ctx, None).sql
        # A fresh context per batch (under a millisecond): registered batches stay in a context.
        df_ctx = new_context()
        register_arrow(df_ctx, staged_sql.STAGE_TABLE, pa.Table.from_batches([raw]))
        try:
            out = df_ctx.sql(compiled[key]).to_arrow_table().combine_chunks()
        except Exception as e:
            raise from_datafusion(e) from None
        if out.num_columns - 1 != count:
            raise SqlCompilationError(
                "Insert value list does not match column list "
                f"expecting {count} but got {out.num_columns - 1}",
                code=2020,
                sqlstate="21S01",
            )
        arrays = [c.combine_chunks() if isinstance(c, pa.ChunkedArray) else c for c in out.columns]
        names = [f"t{i}" for i in range(count)] + [LINE_COLUMN]
        # Keep the fields' type tags: a VARIANT result converts differently from text.
        schema = pa.schema([f.with_name(n) for f, n in zip(out.schema, names, strict=True)])
        return pa.RecordBatch.from_arrays(arrays, schema=schema)

    return run


def copy_into_table(
    tables: Tables,
    resolver: StageResolver,
    session: Session,
    d: CopyLoadDef,
    ctx: SqlContext,
    progress: Callable[[StagedFile, int, int], None] | None = None,
) -> QueryResult:
    """Raises: LoadAborted (ABORT_STATEMENT), FileFormatError, ObjectNotFound, Unsupported."""
    check_options(d.options, LOAD_OPTIONS, LOAD_DEFAULTS, "COPY INTO <table>")
    ref = TableName(*d.table)
    targets = _targets(tables, ref, d, str(ctx.parameters.get("TIMEZONE") or "UTC"))
    source, _ = source_of(resolver, session, d, ctx)
    fmt = source.fmt
    policy = on_error(d.options.get("ON_ERROR"))
    force = bool(d.options.get("FORCE"))
    validation = str(d.options.get("VALIDATION_MODE") or "").upper()
    table_key = load_key(d.table)
    table = tables.load(ref)
    table_uuid = str(table.metadata.table_uuid)
    history = {} if force or validation else _loaded_files(resolver, session, table_key, table_uuid)
    files = [f for f in selected_files(source, d) if history.get(f.uri) != f.etag]
    if not files:
        return status("Copy executed with 0 files processed.", COPY_TYPE)
    match_mode = str(d.options.get("MATCH_BY_COLUMN_NAME") or "NONE").upper()
    as_columns = match_mode != "NONE"
    if d.query is None and not as_columns and fmt.type != "CSV":
        if len(targets) != 1 or targets[0].type.kind not in ("VARIANT", "OBJECT", "ARRAY"):
            raise SqlCompilationError(
                f"{fmt.type} file format can produce one and only one column of type variant, object, or "
                "array. Load data into separate columns using the MATCH_BY_COLUMN_NAME copy option or copy "
                "with transformation.",
                code=2019,
                sqlstate="0A000",
            )
        if fmt.type in COLUMNAR:
            raise Unsupported(f"Loading {fmt.type} rows into one VARIANT column is not supported yet.")
    if as_columns and fmt.type == "XML":
        raise Unsupported("MATCH_BY_COLUMN_NAME is not supported for XML files.")
    if as_columns and fmt.type == "CSV" and not fmt.option("PARSE_HEADER"):
        raise SqlCompilationError(
            "MATCH_BY_COLUMN_NAME for CSV needs the file format option PARSE_HEADER = TRUE.",
            code=2019,
            sqlstate="0A000",
        )
    if (
        validation.startswith("RETURN_")
        and validation != "RETURN_ERRORS"
        and validation != "RETURN_ALL_ERRORS"
    ):
        return _validate_rows(tables, ref, targets, source, files, fmt, d, ctx, validation, as_columns)
    sink = DataFileSink(table)
    df_ctx = new_context()
    outcomes: list[FileOutcome] = []
    loaded: list[LoadRecord] = []
    try:
        for file in files:
            request = _request(source, file, fmt, targets, d, ctx, match_mode, ref.name)
            if progress is not None:
                request.progress = functools.partial(progress, file)
            mark = sink.mark()
            run_policy = OnError("CONTINUE") if validation else policy
            outcome = load_file(df_ctx, request, run_policy, sink.add, as_columns=as_columns)
            if outcome.status == "LOAD_FAILED" or validation:
                sink.rollback(mark)
            outcomes.append(outcome)
            loaded.append(outcome.record(file.uri, file.etag))
        if validation:
            sink.abort()
            return _errors_result(outcomes)
        properties = {QUERY_ID_PROPERTY: ctx.query_id} if ctx.query_id else {}
        sink.commit(tables, ref, properties)
    except BaseException:
        sink.abort()
        raise
    if session.transaction is None:
        resolver.registry.record_loads(table_key, table_uuid, loaded)
    else:  # the rows are staged in a transaction: their history is written if it commits
        pending_loads(session.transaction).append((table_key, table_uuid, loaded))
    if d.options.get("PURGE"):
        purged = {r.file for r in loaded if r.status != "LOAD_FAILED"}
        for file in files:
            if file.uri in purged:
                source.store.delete(file.path)
    return constant(RESULT_COLUMNS, [o.row() for o in outcomes], COPY_TYPE)


def _loaded_files(
    resolver: StageResolver, session: Session, table_key: str, table_uuid: str
) -> dict[str, str]:
    """Files loaded into the table before, and by this session's open transaction so far."""
    loaded = resolver.registry.loaded_files(table_key, table_uuid)
    pending = pending_loads(session.transaction) if session.transaction is not None else []
    for key, uuid, records in pending:
        if (key, uuid) == (table_key, table_uuid):
            loaded |= {r.file: r.etag for r in records if r.status != "LOAD_FAILED"}
    return loaded


def _request(
    source: Source,
    file: StagedFile,
    fmt: FileFormat,
    targets: list[Target],
    d: CopyLoadDef,
    ctx: SqlContext,
    match_mode: str,
    table: str,
) -> FileRequest:
    display = f"{source.display}{file.path}"
    transform = None
    if d.query is not None:
        transform = _transform(d.query, fmt, display, ctx, len(targets))
        match = _positional(targets)
        csv_columns = None
    elif match_mode != "NONE":
        match = _matcher(match_mode, targets)
        csv_columns = None
    else:
        match = _positional(targets)
        strict = fmt.option("ERROR_ON_COLUMN_COUNT_MISMATCH")
        csv_columns = len(targets) if strict else None
    return FileRequest(source.store, file, display, fmt, targets, table, match, csv_columns, transform)


def _errors_result(outcomes: list[FileOutcome]) -> QueryResult:
    """VALIDATION_MODE = RETURN_ERRORS: the first error of each file, nothing loaded."""
    columns = [
        ("ERROR", TEXT),
        ("FILE", TEXT),
        ("LINE", NUMBER),
        ("CHARACTER", NUMBER),
        ("BYTE_OFFSET", NUMBER),
        ("CATEGORY", TEXT),
        ("CODE", NUMBER),
        ("SQL_STATE", TEXT),
        ("COLUMN_NAME", TEXT),
        ("ROW_NUMBER", NUMBER),
        ("ROW_START_LINE", NUMBER),
        ("REJECTED_RECORD", TEXT),
    ]
    rows = [
        (
            o.first_error_text,
            o.file,
            o.first_error.line,
            o.first_error.character,
            None,
            "conversion",
            None,
            None,
            o.column_name,
            o.first_error.line,
            o.first_error.line,
            None,
        )
        for o in outcomes
        if o.first_error is not None
    ]
    return constant(columns, rows, StatementType.SELECT)


def _validate_rows(
    tables: Tables,
    ref: TableName,
    targets: list[Target],
    source: Source,
    files: list[StagedFile],
    fmt: FileFormat,
    d: CopyLoadDef,
    ctx: SqlContext,
    validation: str,
    as_columns: bool,
) -> QueryResult:
    """VALIDATION_MODE = RETURN_<n>_ROWS: the first n rows as they would load (errors abort)."""
    try:
        limit = int(validation.removeprefix("RETURN_").removesuffix("_ROWS"))
    except ValueError:
        raise Unsupported(f"VALIDATION_MODE = {validation} is not supported.") from None
    rows: list[pa.RecordBatch] = []
    df_ctx = new_context()
    match_mode = str(d.options.get("MATCH_BY_COLUMN_NAME") or "NONE").upper()
    for file in files:
        request = _request(source, file, fmt, targets, d, ctx, match_mode, ref.name)
        load_file(df_ctx, request, OnError("ABORT_STATEMENT"), rows.append, as_columns=as_columns)
        if sum(b.num_rows for b in rows) >= limit:
            break
    data = pa.Table.from_batches(rows).slice(0, limit) if rows else None
    result_rows: list[tuple[Any, ...]] = [tuple(r.values()) for r in data.to_pylist()] if data else []
    return constant([(t.name, t.type) for t in targets], result_rows, StatementType.SELECT)

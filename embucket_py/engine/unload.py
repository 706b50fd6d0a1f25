"""COPY INTO <location> (unload): a query's batches streamed into CSV, JSON or Parquet files.
https://docs.snowflake.com/en/sql-reference/sql/copy-into-location
"""

from __future__ import annotations

import gzip
import io
from collections.abc import Iterator
from typing import Any, BinaryIO

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv
import pyarrow.parquet as pq
from sqlglot import exp

from embucket_py.catalog.tables import Tables
from embucket_py.engine.query import collect, plan, stream
from embucket_py.engine.result import QueryResult, StatementType, constant, without_views
from embucket_py.engine.stages import NUMBER, StageResolver
from embucket_py.errors import SqlCompilationError, Unsupported
from embucket_py.sessions.session import Session
from embucket_py.sql.context import SqlContext
from embucket_py.sql.stages import UNLOAD_DEFAULTS, UNLOAD_OPTIONS, CopyUnloadDef, check_options
from embucket_py.stages.fileio import StageStore
from embucket_py.stages.formats import FileFormat

# https://docs.snowflake.com/en/sql-reference/sql/copy-into-location#copy-options-copyoptions
DEFAULT_MAX_FILE_SIZE = 16 * 1024 * 1024


class _Counter(io.RawIOBase):
    """Counts the bytes written through it into the stage file."""

    def __init__(self, target: BinaryIO) -> None:
        self.target = target
        self.count = 0

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        self.target.write(bytes(data))
        self.count += len(data)
        return len(data)


class _FileWriter:
    """One output file of an unload, in its format and compression."""

    def __init__(self, store: StageStore, path: str, fmt: FileFormat, schema: pa.Schema, header: bool):
        self.path = path
        self.raw = store.open_output(path)
        self.counter = _Counter(self.raw)
        self.fmt = fmt
        self.gzip = fmt.type != "PARQUET" and _compression(fmt) == "GZIP"
        sink: Any = gzip.GzipFile(fileobj=self.counter, mode="wb") if self.gzip else self.counter
        self.sink = sink
        self.rows = 0
        self.input_bytes = 0
        if fmt.type == "PARQUET":
            self.writer: Any = pq.ParquetWriter(self.counter, schema, compression="snappy")
        elif fmt.type == "CSV":
            delimiter = str(fmt.option("FIELD_DELIMITER") or ",")
            quote = fmt.option("FIELD_OPTIONALLY_ENCLOSED_BY")
            if header:
                # Snowflake writes the header names bare; pyarrow would quote them.
                sink.write((delimiter.join(schema.names) + "\n").encode())
            self.writer = pcsv.CSVWriter(
                sink,
                schema,
                write_options=pcsv.WriteOptions(
                    include_header=False,
                    delimiter=delimiter,
                    quoting_style="needed" if quote else "none",
                ),
            )
        else:
            self.writer = None

    def write(self, batch: pa.RecordBatch) -> None:
        self.rows += batch.num_rows
        self.input_bytes += batch.nbytes
        if self.fmt.type == "JSON":
            if batch.num_columns != 1:
                raise SqlCompilationError(
                    "JSON file format can produce one and only one column of type variant, object, or array. "
                    "Use CSV file format if you want to load more than one column.",
                    code=2019,
                    sqlstate="0A000",
                )
            text = "\n".join(str(v) for v in batch.column(0).to_pylist() if v is not None) + "\n"
            self.sink.write(text.encode())
        else:
            self.writer.write_batch(batch)

    @property
    def size(self) -> int:
        return self.counter.count

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        if self.gzip:
            self.sink.close()
        self.raw.close()


def _compression(fmt: FileFormat) -> str:
    value = str(fmt.option("COMPRESSION") or "AUTO").upper()
    if value in ("AUTO", "GZIP"):
        return "GZIP"
    if value == "NONE":
        return "NONE"
    raise Unsupported(f"Unloading with COMPRESSION = {value} is not supported.")


def _suffix(fmt: FileFormat) -> str:
    if fmt.type == "PARQUET":
        return ".snappy.parquet"
    ext = ".csv" if fmt.type == "CSV" else ".json"
    return ext + (".gz" if _compression(fmt) == "GZIP" else "")


def copy_into_location(
    tables: Tables, resolver: StageResolver, session: Session, d: CopyUnloadDef, ctx: SqlContext
) -> QueryResult:
    """Raises: Unsupported (external URL unloads, other formats), query errors."""
    if d.target is None:
        raise Unsupported("COPY INTO an external URL is not supported; create an external stage.")
    check_options(d.options, UNLOAD_OPTIONS, UNLOAD_DEFAULTS, "COPY INTO <location>")
    resolved = resolver.resolve(d.target, session)
    fmt = resolver.stage_format(resolved, d.options.get("FILE_FORMAT"), session, ctx)
    if fmt.type not in ("CSV", "JSON", "PARQUET"):  # as Snowflake, which reads ORC and Avro, writes neither
        raise Unsupported(f"Unloading into {fmt.type} files is not supported; CSV, JSON and PARQUET are.")
    single = bool(d.options.get("SINGLE"))
    header = bool(d.options.get("HEADER"))
    max_size = int(d.options.get("MAX_FILE_SIZE") or DEFAULT_MAX_FILE_SIZE)
    store, path = resolved.store, resolved.path
    directory, prefix = (
        (path, "data")
        if path.endswith("/") or not path
        else path.rsplit("/", 1)
        if "/" in path
        else ("", path)
    )
    directory = directory.rstrip("/")
    if d.options.get("OVERWRITE"):
        for f in store.list(path):
            store.delete(f.path)
    query = d.query
    partition = d.partition_by
    if partition is not None:
        return _partitioned(tables, store, directory, prefix, fmt, header, max_size, query, partition, ctx)
    frame, names = plan(tables, query, ctx, None)
    writers = _write(store, directory, prefix, fmt, header, max_size, single, stream(frame), names, "")
    return _result(writers)


def _write(
    store: StageStore,
    directory: str,
    prefix: str,
    fmt: FileFormat,
    header: bool,
    max_size: int,
    single: bool,
    batches: Iterator[pa.RecordBatch],
    names: list[str],
    sub: str,
) -> list[_FileWriter]:
    writers: list[_FileWriter] = []
    current: _FileWriter | None = None
    base = "/".join(p for p in (directory, sub) if p)
    pieces = batches if single else _pieces(batches, max_size)
    for batch in pieces:
        batch = without_views(batch)
        batch = pa.RecordBatch.from_arrays(batch.columns, names=names)
        if current is None or (not single and current.size >= max_size):
            if current is not None:
                current.close()
            name = prefix if single else f"{prefix}_0_0_{len(writers)}{_suffix(fmt)}"
            current = _FileWriter(store, f"{base}/{name}" if base else name, fmt, batch.schema, header)
            writers.append(current)
        current.write(batch)
    if current is not None:
        current.close()
    return writers


def _pieces(batches: Iterator[pa.RecordBatch], max_size: int) -> Iterator[pa.RecordBatch]:
    """Batches sliced to about an eighth of MAX_FILE_SIZE each (by their Arrow width), so that a
    file stops within that much of the limit whatever size the engine's batches have."""
    for batch in batches:
        rows = max(1, int(max_size / 8 / max(batch.nbytes / max(batch.num_rows, 1), 1.0)))
        if batch.num_rows <= rows:
            yield batch
            continue
        for start in range(0, batch.num_rows, rows):
            yield batch.slice(start, rows)


def _partitioned(
    tables: Tables,
    store: StageStore,
    directory: str,
    prefix: str,
    fmt: FileFormat,
    header: bool,
    max_size: int,
    query: exp.Expression,
    partition: exp.Expression,
    ctx: SqlContext,
) -> QueryResult:
    """PARTITION BY <expr>: one folder per distinct value of the expression (NULL -> _NULL_)."""
    key = "__partition"
    wrapped = exp.select("*", exp.alias_(partition.copy(), key, quoted=True)).from_(
        exp.Subquery(this=query.copy(), alias=exp.TableAlias(this=exp.to_identifier("__q")))
    )
    frame, names = plan(tables, wrapped, ctx, None)
    data = collect(frame)
    column = data.column(len(names) - 1)
    writers: list[_FileWriter] = []
    for value in sorted({v for v in column.to_pylist()}, key=lambda v: (v is None, str(v))):
        mask = pc.is_null(column) if value is None else pc.equal(column, value)
        part = data.filter(mask).drop_columns([data.schema.names[-1]])
        sub = "_NULL_" if value is None else str(value)
        writers += _write(
            store, directory, prefix, fmt, header, max_size, False, iter(part.to_batches()), names[:-1], sub
        )
    return _result(writers)


def _result(writers: list[_FileWriter]) -> QueryResult:
    rows = sum(w.rows for w in writers)
    columns = [("rows_unloaded", NUMBER), ("input_bytes", NUMBER), ("output_bytes", NUMBER)]
    values = (rows, sum(w.input_bytes for w in writers), sum(w.size for w in writers))
    return constant(columns, [values], StatementType.SELECT)

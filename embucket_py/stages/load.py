"""Loading one staged file: read it in batches, convert, apply ON_ERROR, and report the outcome
as Snowflake's COPY result row.
https://docs.snowflake.com/en/sql-reference/sql/copy-into-table
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import astuple, dataclass
from typing import Any

import pyarrow as pa
from datafusion import SessionContext

from embucket_py.errors import (
    BooleanValueNotRecognized,
    DateValueNotRecognized,
    NullInNotNullColumn,
    NumericValueNotRecognized,
    SnowflakeError,
    TimestampValueNotRecognized,
    TimeValueNotRecognized,
    Unsupported,
)
from embucket_py.stages import formats
from embucket_py.stages.convert import Converted, RowError, Target, convert, preformat
from embucket_py.stages.fileio import StagedFile, StageStore
from embucket_py.stages.formats import LINE_COLUMN, FileFormat, ReadState
from embucket_py.stages.registry import LoadRecord

# A bad row's error by its message's first word (conversions: errors.not_recognized).
_ERROR_CODES = {
    "Numeric": (NumericValueNotRecognized.code, NumericValueNotRecognized.sqlstate),
    "Boolean": (BooleanValueNotRecognized.code, BooleanValueNotRecognized.sqlstate),
    "Date": (DateValueNotRecognized.code, DateValueNotRecognized.sqlstate),
    "Time": (TimeValueNotRecognized.code, TimeValueNotRecognized.sqlstate),
    "Timestamp": (TimestampValueNotRecognized.code, TimestampValueNotRecognized.sqlstate),
    "User": (100074, "22000"),
    "NULL": (NullInNotNullColumn.code, NullInNotNullColumn.sqlstate),
    "Number": (100080, "22000"),
}
_CONTINUE_HINT = (
    "  If you would like to continue loading when an error is encountered, use other values such as "
    "'SKIP_FILE' or 'CONTINUE' for the ON_ERROR option. For more information on loading options, please "
    "run 'info loading_data' in a SQL client."
)


class LoadAborted(SnowflakeError):
    """ON_ERROR = ABORT_STATEMENT met a bad row."""

    code = 100038
    sqlstate = "22018"


@dataclass(frozen=True)
class OnError:
    mode: str  # ABORT_STATEMENT CONTINUE SKIP_FILE
    limit: int | None = None  # SKIP_FILE_n
    percent: float | None = None  # SKIP_FILE_n%

    def error_limit(self, rows: int) -> int:
        if self.mode == "CONTINUE":
            return rows
        if self.percent is not None:
            return max(math.ceil(rows * self.percent / 100), 1)
        return self.limit or 1

    def skips(self, errors: int, rows: int) -> bool:
        if self.mode != "SKIP_FILE" or errors == 0:
            return False
        if self.percent is not None:
            return errors * 100 >= self.percent * max(rows, 1)
        return errors >= (self.limit or 1)


def on_error(value: Any) -> OnError:
    """Raises: Unsupported for values Snowflake does not define."""
    text = str(value or "ABORT_STATEMENT").upper().strip("'")
    if text in ("ABORT_STATEMENT", "CONTINUE", "SKIP_FILE"):
        return OnError(text)
    if m := re.fullmatch(r"SKIP_FILE_(\d+)(%?)", text):
        number = int(m.group(1))
        return OnError("SKIP_FILE", percent=number) if m.group(2) else OnError("SKIP_FILE", limit=number)
    raise Unsupported(f"ON_ERROR = {text} is not supported.")


@dataclass
class FileOutcome:
    """One row of COPY's answer, plus the loaded batches of the file."""

    file: str
    status: str = "LOADED"
    rows_parsed: int = 0
    rows_loaded: int = 0
    error_limit: int = 1
    errors_seen: int = 0
    first_error: RowError | None = None
    first_error_text: str | None = None
    column_name: str | None = None

    def record(self, uri: str, etag: str) -> LoadRecord:
        """What the load history keeps of the file (`uri`, `etag`: the staged file's)."""
        first = self.first_error
        return LoadRecord(
            uri,
            etag,
            self.file,
            self.status,
            self.rows_parsed,
            self.rows_loaded,
            self.error_limit,
            self.errors_seen,
            self.first_error_text,
            first.line if first else None,
            first.character if first else None,
            self.column_name,
        )

    def row(self) -> tuple[Any, ...]:
        """COPY's answer for the file: the record's fields from its name on, ids left out."""
        return astuple(self.record("", ""))[2:-1]


@dataclass
class FileRequest:
    store: StageStore
    file: StagedFile
    display: str  # the name COPY reports
    fmt: FileFormat
    targets: list[Target]
    table: str  # target table name, for first_error_column_name
    # raw column name per target, given the file's raw column names (CSV: c1..cn)
    match: Callable[[list[str], ReadState], list[str | None]]
    csv_columns: int | None  # expected CSV field count (None: take it from the file)
    transform: Callable[[pa.RecordBatch], pa.RecordBatch] | None = None
    # Called after each batch with (bytes of the file read so far, rows read so far).
    progress: Callable[[int, int], None] | None = None


class _Counting(io.RawIOBase):
    """Counts the bytes read from a stored file (for progress), passing them through."""

    def __init__(self, source: Any) -> None:
        self.source = source
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self.source.read(len(buffer))
        n = len(data)
        buffer[:n] = data
        self.count += n
        return n


def raw_batches(request: FileRequest, state: ReadState, as_columns: bool = False) -> Iterator[pa.RecordBatch]:
    """The file's raw batches (c1..cn for CSV and JSON text, named columns otherwise)."""
    fmt = request.fmt
    if fmt.type in ("PARQUET", "ORC"):
        with request.store.open_random(request.file.path) as source:
            read = (
                formats.read_parquet(source, fmt, state)
                if fmt.type == "PARQUET"
                else formats.read_orc(source, state)
            )
            for batch in read:
                state.bytes_read = source.tell()
                yield batch
        return
    compression = formats.compression_of(request.file.path, fmt)
    if fmt.type == "CSV" and compression in ("NONE", "GZIP", "BZ2", "ZSTD", "BROTLI"):
        # Arrow-native streams: the parser's readahead stays bounded (Python file objects are
        # read ahead without limit).
        with request.store.open_input(request.file.path) as first:
            head = formats.head_bytes(formats.native_decompressed(first, compression))
        with request.store.open_random(request.file.path) as source:
            stream = formats.native_decompressed(source, compression)
            for batch in formats.read_csv(stream, fmt, request.csv_columns, state, head):
                state.bytes_read = source.tell()
                yield batch
        return
    with request.store.open_input(request.file.path) as source:
        raw = _Counting(source)
        stream = formats.decompressed(raw, compression)
        if fmt.type == "CSV":
            head = stream.peek(1 << 20) if hasattr(stream, "peek") else b""
            batches = formats.read_csv(stream, fmt, request.csv_columns, state, head)
        elif fmt.type == "AVRO":
            batches = formats.read_avro(stream, state)
        elif fmt.type == "XML":
            batches = formats.read_xml(stream, fmt, state)
        elif as_columns:
            batches = formats.read_json_columns(stream, fmt, state)
        else:
            batches = formats.read_json_text(stream, fmt, state)
        for batch in batches:
            state.bytes_read = raw.count
            yield batch


def load_file(
    ctx: SessionContext,
    request: FileRequest,
    policy: OnError,
    emit: Callable[[pa.RecordBatch], None],
    *,
    as_columns: bool = False,
) -> FileOutcome:
    """Reads and converts one file, handing good rows to `emit` batch by batch. With SKIP_FILE
    the caller discards what was emitted when the outcome is LOAD_FAILED.

    Raises:
        LoadAborted: ABORT_STATEMENT and a bad row.
        FileFormatError: the file cannot be parsed at all.
    """
    outcome = FileOutcome(request.display)
    state = ReadState()
    sources: list[str | None] | None = None
    first: RowError | None = None
    errors = 0
    loaded = 0
    formats_ = {k: str(request.fmt.option(f"{k}_FORMAT") or "AUTO") for k in ("DATE", "TIME", "TIMESTAMP")}
    for batch in raw_batches(request, state, as_columns):
        if request.transform is not None:
            batch = request.transform(batch)
        names = [n for n in batch.schema.names if n != LINE_COLUMN]
        if sources is None:
            sources = request.match(names, state)
        lines = batch.column(LINE_COLUMN)
        batch = preformat(batch, sources, request.targets, formats_)
        converted: Converted = convert(ctx, batch, sources, request.targets, lines)
        if converted.first is not None and (first is None or converted.first.line < first.line):
            first = converted.first
        errors += converted.errors
        if converted.good.num_rows:
            loaded += converted.good.num_rows
            emit(converted.good)
        if request.progress is not None:
            request.progress(state.bytes_read, state.rows)
        if policy.mode == "ABORT_STATEMENT" and (converted.errors or state.bad_rows):
            break
    # Rows the parser rejected (wrong field count) are errors too.
    mismatch_error = _column_count_error(request, state)
    if mismatch_error is not None and (first is None or mismatch_error.line < first.line):
        first = mismatch_error
    errors += len(state.bad_rows)
    outcome.rows_parsed = state.rows + len(state.bad_rows)
    outcome.errors_seen = errors
    outcome.error_limit = policy.error_limit(outcome.rows_parsed)
    if first is not None:
        outcome.first_error = first
        outcome.first_error_text = first.message
        target = request.targets[first.column - 1] if first.column <= len(request.targets) else None
        outcome.column_name = (
            f'"{request.table}"["{target.name}":{first.column}]'
            if target
            else f'"{request.table}"[{first.column}]'
        )
    if errors and policy.mode == "ABORT_STATEMENT":
        assert first is not None
        code, sqlstate = _ERROR_CODES.get(first.message.split(" ")[0], (100038, "22018"))
        raise LoadAborted(
            f"{first.message}\n  File '{request.display}', line {first.line}, character {first.character}\n"
            f"  Row {first.line}, column {outcome.column_name}\n{_CONTINUE_HINT}",
            code=code,
            sqlstate=sqlstate,
        )
    if policy.skips(errors, outcome.rows_parsed):
        outcome.status = "LOAD_FAILED"
        loaded = 0
    elif errors:
        outcome.status = "PARTIALLY_LOADED" if loaded else "LOAD_FAILED"
    outcome.rows_loaded = loaded
    return outcome


def _column_count_error(request: FileRequest, state: ReadState) -> RowError | None:
    if not state.bad_rows:
        return None
    bad = min(state.bad_rows, key=lambda b: b.line)
    if bad.message is not None:
        return RowError(bad.line, bad.message, 1, 1)
    expected = request.csv_columns or len(request.targets)
    return RowError(
        bad.line,
        f"Number of columns in file ({bad.columns}) does not match that of the corresponding table "
        f"({expected}), use file format option error_on_column_count_mismatch=false to ignore this error",
        min(bad.columns, expected) + 1 if bad.columns < expected else expected + 1,
        1,
    )

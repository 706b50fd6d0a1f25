"""File formats: Snowflake's format options, and streaming readers that turn one staged file into
Arrow batches of raw fields (`c1..cn`, what `$1..$n` name).

CSV fields stay strings here (the load converts them, so it can report per-row errors); JSON
records are kept as their JSON text (a VARIANT) or read as typed columns for
MATCH_BY_COLUMN_NAME; Parquet columns keep their types.
https://docs.snowflake.com/en/sql-reference/sql/create-file-format
"""

from __future__ import annotations

import bz2
import codecs
import gzip
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv
import pyarrow.json as pjson
import pyarrow.orc as orc
import pyarrow.parquet as pq

from embucket_py import xml_values
from embucket_py.errors import SnowflakeError, SqlCompilationError, Unsupported
from embucket_py.stages import avro
from embucket_py.types import SFTYPE_KEY

# Arrow's streaming readers read about 32 blocks ahead: 1 MB blocks keep that near 32 MB.
BLOCK_SIZE = 1 << 20
# Conversion works on batches of about this size (fewer, larger DataFusion calls).
COALESCE_BYTES = 16 << 20
LINE_COLUMN = "__line"
# A JSON record read whole: its text, tagged as the VARIANT it is ($1 of a JSON file).
JSON_TEXT_SCHEMA = pa.schema(
    [pa.field("c1", pa.string(), metadata={SFTYPE_KEY: b"VARIANT"}), pa.field(LINE_COLUMN, pa.int64())]
)

# https://docs.snowflake.com/en/sql-reference/sql/create-file-format#type-csv
CSV_DEFAULTS: dict[str, Any] = {
    "FIELD_DELIMITER": ",",
    "RECORD_DELIMITER": "\n",
    "SKIP_HEADER": 0,
    "PARSE_HEADER": False,
    "FIELD_OPTIONALLY_ENCLOSED_BY": None,
    "ESCAPE": None,
    "ESCAPE_UNENCLOSED_FIELD": "\\",
    "NULL_IF": ["\\N"],
    "EMPTY_FIELD_AS_NULL": True,
    "TRIM_SPACE": False,
    "ERROR_ON_COLUMN_COUNT_MISMATCH": True,
    "SKIP_BLANK_LINES": False,
    "DATE_FORMAT": "AUTO",
    "TIME_FORMAT": "AUTO",
    "TIMESTAMP_FORMAT": "AUTO",
    "COMPRESSION": "AUTO",
    "ENCODING": "UTF8",
}
JSON_DEFAULTS: dict[str, Any] = {
    "STRIP_OUTER_ARRAY": False,
    "COMPRESSION": "AUTO",
    "NULL_IF": [],
    "DATE_FORMAT": "AUTO",
    "TIME_FORMAT": "AUTO",
    "TIMESTAMP_FORMAT": "AUTO",
}
PARQUET_DEFAULTS: dict[str, Any] = {"BINARY_AS_TEXT": True, "COMPRESSION": "AUTO", "NULL_IF": []}
ORC_DEFAULTS: dict[str, Any] = {"NULL_IF": []}
AVRO_DEFAULTS: dict[str, Any] = {"COMPRESSION": "AUTO", "NULL_IF": []}
# DISABLE_SNOWFLAKE_DATA is taken at either value: <SnowflakeData> tags read as plain elements.
XML_DEFAULTS: dict[str, Any] = {
    "COMPRESSION": "AUTO",
    "PRESERVE_SPACE": False,
    "STRIP_OUTER_ELEMENT": False,
    "DISABLE_AUTO_CONVERT": False,
    "DISABLE_SNOWFLAKE_DATA": False,
}
_DEFAULTS = {
    "CSV": CSV_DEFAULTS,
    "JSON": JSON_DEFAULTS,
    "PARQUET": PARQUET_DEFAULTS,
    "ORC": ORC_DEFAULTS,
    "AVRO": AVRO_DEFAULTS,
    "XML": XML_DEFAULTS,
}
# Formats whose rows are records of named, typed columns (not text to split).
COLUMNAR = ("PARQUET", "ORC", "AVRO")
# Options that do not change what this server reads or writes (USE_LOGICAL_TYPE: Parquet logical
# types are always honoured), and options accepted only at the value it implements.
_NEUTRAL = {
    "USE_LOGICAL_TYPE",
    "USE_VECTORIZED_SCANNER",
    "SKIP_BYTE_ORDER_MARK",
    "VALIDATE_UTF8",
    "MULTI_LINE",
    "TYPE",
}
_AT_DEFAULT = {
    "ENCODING": ("UTF8", "UTF-8"),
    "BINARY_FORMAT": ("HEX",),
    "REPLACE_INVALID_CHARACTERS": ("FALSE",),
    "ALLOW_DUPLICATE": ("FALSE",),
    "STRIP_NULL_VALUES": ("FALSE",),
    "IGNORE_UTF8_ERRORS": ("FALSE",),
    "ENABLE_OCTAL": ("FALSE",),
    "FILE_EXTENSION": ("NONE",),
    "EMPTY_FIELD_AS_NULL": ("TRUE",),
    "ESCAPE_UNENCLOSED_FIELD": ("NONE", "\\\\", "\\"),
}


def codec_of(encoding: str) -> str:
    """The Python codec of a Snowflake ENCODING name (UTF8, ISO-8859-1, WINDOWS-1252, UTF-16LE,
    SHIFT_JIS, ...). https://docs.snowflake.com/en/sql-reference/sql/create-file-format

    Raises:
        SqlCompilationError: an encoding Python has no codec for.
    """
    name = "utf-8" if encoding.upper() in ("UTF8", "UTF-8") else encoding.lower()
    try:
        return codecs.lookup(name).name
    except LookupError:
        raise SqlCompilationError(f"Unsupported encoding '{encoding}' for the file format.") from None


class FileFormatError(SnowflakeError):
    """A file cannot be read with its format at all (not a per-row error)."""

    code = 100069
    sqlstate = "22000"


@dataclass(frozen=True)
class FileFormat:
    type: str
    options: dict[str, Any] = field(default_factory=dict)

    def option(self, name: str) -> Any:
        return self.options.get(name, _DEFAULTS[self.type].get(name))

    @property
    def encoding(self) -> str:
        """The Python codec of a CSV file's ENCODING (UTF8 by default)."""
        return codec_of(str(self.option("ENCODING") or "UTF8"))

    @property
    def null_if(self) -> list[str]:
        value = self.option("NULL_IF")
        return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def _none_text(value: Any) -> str | None:
    if value is None or (isinstance(value, str) and value.upper() == "NONE"):
        return None
    return _unescape(str(value))


def _unescape(text: str) -> str:
    """Snowflake writes delimiters like '\\t' and '\\x01' as escapes inside the string."""
    if "\\" not in text:
        return text
    try:
        return text.encode("latin-1", "backslashreplace").decode("unicode_escape")
    except UnicodeDecodeError:
        return text


def file_format(options: dict[str, Any]) -> FileFormat:
    """Validated format options (TYPE defaults to CSV).

    Raises:
        Unsupported: a format type this server cannot read.
    """
    options = {k.upper(): v for k, v in options.items()}
    kind = str(options.pop("TYPE", "CSV")).upper()
    options.pop("FORMAT_NAME", None)
    if kind not in _DEFAULTS:
        raise Unsupported(f"File format TYPE = {kind} is not supported.")
    for key, value in options.items():
        if key == "ENCODING" and kind == "CSV":
            codec_of(str(value))  # a name Python's codecs do not know fails here
            continue
        if key == "ENCODING" and str(value).upper() not in _AT_DEFAULT["ENCODING"]:
            raise Unsupported(f"File format option ENCODING = {value} is not supported (UTF8 only).")
        if key in _DEFAULTS[kind] or key in _NEUTRAL or str(value).upper() in _AT_DEFAULT.get(key, ()):
            continue
        raise Unsupported(f"File format option {key} = {value} is not supported for TYPE = {kind}.")
    if "NULL_IF" in options and not isinstance(options["NULL_IF"], list):
        options["NULL_IF"] = [] if options["NULL_IF"] is None else [options["NULL_IF"]]
    return FileFormat(kind, options)


def show_options(fmt: FileFormat) -> dict[str, Any]:
    """Every option with its effective value (DESCRIBE / SHOW FILE FORMATS)."""
    return {"TYPE": fmt.type, **{k: fmt.option(k) for k in _DEFAULTS[fmt.type]}}


def option_text(value: Any) -> str:
    """An option's value as DESCRIBE FILE FORMAT and INFORMATION_SCHEMA.FILE_FORMATS show it."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list):
        return "[" + ", ".join(str(v) for v in value) + "]"
    return "" if value is None else str(value)


# --- decompression -------------------------------------------------------------------------------


def compression_of(path: str, fmt: FileFormat) -> str:
    declared = str(fmt.option("COMPRESSION") or "AUTO").upper()
    if declared != "AUTO":
        return declared
    lower = path.lower()
    for suffix, name in ((".gz", "GZIP"), (".bz2", "BZ2"), (".zst", "ZSTD"), (".deflate", "DEFLATE")):
        if lower.endswith(suffix):
            return name
    return "NONE"


_ARROW_CODECS = {"GZIP": "gzip", "BZ2": "bz2", "ZSTD": "zstd", "BROTLI": "brotli"}


def native_decompressed(source: pa.NativeFile, compression: str) -> pa.NativeFile:
    """Arrow's own decompressing stream, so the parser reads native buffers with bounded readahead."""
    if compression == "NONE":
        return source
    if compression in _ARROW_CODECS:
        return pa.CompressedInputStream(source, _ARROW_CODECS[compression])
    raise Unsupported(f"COMPRESSION = {compression} is not supported.")


def head_bytes(stream: BinaryIO, size: int = 1 << 20) -> bytes:
    """The first bytes of a (decompressed) stream, for the field count and the header."""
    data = stream.read(size)
    return bytes(data) if data else b""


def decompressed(stream: BinaryIO, compression: str) -> BinaryIO:
    """A stream of the file's plain bytes, decompressed on the fly (never all in memory)."""
    if compression in ("SNAPPY", "LZO", "RAW_DEFLATE", "BROTLI"):
        raise Unsupported(f"COMPRESSION = {compression} is not supported.")
    if compression == "GZIP":
        return gzip.GzipFile(fileobj=stream)  # type: ignore[return-value]
    if compression == "BZ2":
        return bz2.BZ2File(stream)  # type: ignore[return-value]
    if compression == "ZSTD":
        return pa.CompressedInputStream(stream, "zstd")  # type: ignore[return-value]
    if compression == "DEFLATE":
        return pa.CompressedInputStream(stream, "gzip")  # type: ignore[return-value]
    return stream


# --- readers -------------------------------------------------------------------------------------


@dataclass
class BadRow:
    """A record the parser rejected (wrong number of fields, or not JSON)."""

    line: int
    text: str
    columns: int
    message: str | None = None  # the error when it is not a field-count mismatch


@dataclass
class ReadState:
    """What a reader learned while streaming one file (filled as batches are produced)."""

    bad_rows: list[BadRow] = field(default_factory=list)
    header: list[str] | None = None
    rows: int = 0
    bytes_read: int = 0


def read_csv(
    stream: BinaryIO, fmt: FileFormat, columns: int | None, state: ReadState, head: bytes = b""
) -> Iterator[pa.RecordBatch]:
    """CSV records as batches of string columns c1..cn plus their line numbers.

    `columns` fixes the expected field count (rows with another count become `BadRow`s); None
    takes it from the first record.
    """
    delimiter = _none_text(fmt.option("FIELD_DELIMITER")) or ","
    record = _none_text(fmt.option("RECORD_DELIMITER")) or "\n"
    if len(delimiter) != 1:
        raise Unsupported("A multi-character FIELD_DELIMITER is not supported.")
    if record not in ("\n", "\r\n"):
        raise Unsupported("RECORD_DELIMITER other than a newline is not supported.")
    quote = _none_text(fmt.option("FIELD_OPTIONALLY_ENCLOSED_BY"))
    escape = _none_text(fmt.option("ESCAPE"))
    if escape is None and quote is None and "ESCAPE_UNENCLOSED_FIELD" in fmt.options:
        # Only when asked for: the default '\\' would turn the default NULL_IF value \N into N.
        escape = _none_text(fmt.options["ESCAPE_UNENCLOSED_FIELD"])
    skip = int(fmt.option("SKIP_HEADER") or 0)
    parse_header = bool(fmt.option("PARSE_HEADER"))
    # Other encodings are read as UTF-8 by Arrow's transcoding reader; the first lines to sniff alike.
    head_lines = head.decode(fmt.encoding, errors="replace").split("\n")
    if parse_header:
        first = head_lines[0].lstrip("\ufeff").rstrip("\r")
        state.header = [h.strip().strip(quote or "") for h in first.split(delimiter)]
        columns = len(state.header)
        skip = max(skip, 1)
    if columns is None:
        line = head_lines[skip] if len(head_lines) > skip else ""
        columns = max(len(line.split(delimiter)), 1)
    names = [f"c{i + 1}" for i in range(columns)]
    first_line = skip
    bad: list[BadRow] = []
    loose: list[BadRow] = []
    lenient = fmt.option("ERROR_ON_COLUMN_COUNT_MISMATCH") is False

    def on_invalid(row: Any) -> str:
        (loose if lenient else bad).append(BadRow(row.number or 0, row.text, row.actual_columns))
        return "skip"

    nulls = list(fmt.null_if)
    empty_as_null = bool(fmt.option("EMPTY_FIELD_AS_NULL"))
    reader = pcsv.open_csv(
        stream,
        read_options=pcsv.ReadOptions(
            column_names=names,
            skip_rows=skip,
            use_threads=False,
            block_size=BLOCK_SIZE,
            encoding="utf8" if fmt.encoding == "utf-8" else fmt.encoding,
        ),
        parse_options=pcsv.ParseOptions(
            delimiter=delimiter,
            quote_char=quote or False,
            double_quote=quote is not None,
            escape_char=escape or False,
            newlines_in_values=quote is not None,
            invalid_row_handler=on_invalid,
            ignore_empty_lines=bool(fmt.option("SKIP_BLANK_LINES")),
        ),
        convert_options=pcsv.ConvertOptions(
            column_types=dict.fromkeys(names, pa.string()),
            strings_can_be_null=True,
            null_values=[*nulls, ""] if empty_as_null else nulls or ["\x00never"],
            quoted_strings_can_be_null=False,
        ),
    )
    trim = bool(fmt.option("TRIM_SPACE"))
    seen = 0
    for batch in _batches(reader):
        n = batch.num_rows
        # Line numbers of good rows: their position, shifted by the bad rows before them.
        bad_lines = sorted(b.line for b in bad)
        index = pa.array(range(seen + 1, seen + n + 1), pa.int64())
        lines = pc.add(index, first_line)
        if bad_lines:
            lines = _shift_lines(lines, bad_lines)
        arrays = [pc.utf8_trim_whitespace(c) if trim else c for c in batch.columns]
        if trim and nulls:
            arrays = [pc.if_else(pc.is_in(a, pa.array(nulls)), None, a) for a in arrays]
        seen += n
        state.rows += n
        yield pa.RecordBatch.from_arrays([*arrays, lines], names=[*names, LINE_COLUMN])
        if loose:
            yield _loose_rows(loose, delimiter, columns, nulls, empty_as_null, names, state)
    if loose:
        yield _loose_rows(loose, delimiter, columns, nulls, empty_as_null, names, state)
    state.bad_rows.extend(bad)


def _loose_rows(
    rows: list[BadRow],
    delimiter: str,
    columns: int,
    nulls: list[str],
    empty_as_null: bool,
    names: list[str],
    state: ReadState,
) -> pa.RecordBatch:
    """ERROR_ON_COLUMN_COUNT_MISMATCH = FALSE: rows with another field count, padded with NULLs or
    cut to the table's width (these rare rows are split here, outside the parser)."""
    absent = {*nulls, ""} if empty_as_null else set(nulls)
    values: list[list[str | None]] = [[] for _ in range(columns)]
    for row in rows:
        fields = row.text.split(delimiter)[:columns]
        fields += [None] * (columns - len(fields))  # type: ignore[list-item]
        for i, value in enumerate(fields):
            values[i].append(None if value is None or value in absent else value)
    lines = pa.array([r.line for r in rows], pa.int64())
    state.rows += len(rows)
    rows.clear()
    return pa.RecordBatch.from_arrays(
        [*(pa.array(v, pa.string()) for v in values), lines], names=[*names, LINE_COLUMN]
    )


def _shift_lines(lines: pa.Array, bad_lines: list[int]) -> pa.Array:
    """Each good row's physical line, given the physical lines of the rejected rows."""
    values = lines.to_numpy()
    bad = pa.array(bad_lines, pa.int64()).to_numpy()
    # A good row's k-th position maps to the k-th line not taken by a bad row.
    shift = np.searchsorted(bad - np.arange(len(bad)), values, side="right")
    return pa.array(values + shift)


def _batches(reader: Any) -> Iterator[pa.RecordBatch]:
    """The reader's small batches, combined into batches of about `COALESCE_BYTES`."""
    pending: list[pa.RecordBatch] = []
    size = 0
    try:
        for batch in reader:
            pending.append(batch)
            size += batch.nbytes
            if size >= COALESCE_BYTES:
                yield pa.concat_batches(pending)
                pending, size = [], 0
    except pa.ArrowInvalid as e:
        raise FileFormatError(str(e)) from None
    if pending:
        yield pa.concat_batches(pending)


def read_json_text(stream: BinaryIO, fmt: FileFormat, state: ReadState) -> Iterator[pa.RecordBatch]:
    """JSON records as their text (one VARIANT column c1), NDJSON or one outer array."""
    if fmt.option("STRIP_OUTER_ARRAY"):
        # The outer array holds the records; parse once, then keep each element as JSON text.
        items = json.load(io.TextIOWrapper(stream, encoding="utf-8"))
        if not isinstance(items, list):
            items = [items]
        for start in range(0, len(items), 65536):
            chunk = items[start : start + 65536]
            texts = pa.array([json.dumps(v, separators=(",", ":")) for v in chunk], pa.string())
            lines = pa.array(range(start + 1, start + len(chunk) + 1), pa.int64())
            state.rows += len(chunk)
            yield pa.RecordBatch.from_arrays([texts, lines], schema=JSON_TEXT_SCHEMA)
        return
    # Newline-delimited: every non-empty line is one record, read as a single string column.
    reader = pcsv.open_csv(
        stream,
        read_options=pcsv.ReadOptions(column_names=["c1"], use_threads=False, block_size=BLOCK_SIZE),
        parse_options=pcsv.ParseOptions(delimiter="\x1f", quote_char=False, escape_char=False),
        convert_options=pcsv.ConvertOptions(column_types={"c1": pa.string()}, strings_can_be_null=False),
    )
    seen = 0
    for batch in _batches(reader):
        text = pc.utf8_trim_whitespace(batch.column(0))
        keep = pc.not_equal(text, "")
        lines = pa.array(range(seen + 1, seen + batch.num_rows + 1), pa.int64())
        seen += batch.num_rows
        out = pa.RecordBatch.from_arrays([text, lines], schema=JSON_TEXT_SCHEMA).filter(keep)
        out = _valid_json(out, state)
        state.rows += out.num_rows
        yield out


def read_xml(stream: BinaryIO, fmt: FileFormat, state: ReadState) -> Iterator[pa.RecordBatch]:
    """An XML file's rows (one VARIANT column c1): each top-level element, or each element inside
    one with STRIP_OUTER_ELEMENT; `__line` numbers the rows."""
    chunks = iter(lambda: stream.read(BLOCK_SIZE), b"")
    flags = [bool(fmt.option(k)) for k in ("STRIP_OUTER_ELEMENT", "DISABLE_AUTO_CONVERT", "PRESERVE_SPACE")]
    try:
        for rows in xml_values.file_rows(chunks, flags[0], not flags[1], flags[2]):
            texts = pa.array([xml_values.json_text(r) for r in rows], pa.string())
            lines = pa.array(range(state.rows + 1, state.rows + len(rows) + 1), pa.int64())
            state.rows += len(rows)
            yield pa.RecordBatch.from_arrays([texts, lines], schema=JSON_TEXT_SCHEMA)
    except xml_values.XmlError as e:
        raise FileFormatError(f"Error parsing XML: {e}") from None


def _valid_json(batch: pa.RecordBatch, state: ReadState) -> pa.RecordBatch:
    """Drops records that are not JSON, remembering them as bad rows. Arrow's JSON reader checks
    the whole batch at once; only a batch it rejects is looked at record by record."""
    if batch.num_rows == 0:
        return batch
    # Each record followed by a newline: the array's data buffer is then NDJSON as it stands.
    joined = pc.binary_join_element_wise(batch.column(0), "", "\n")
    offsets = np.frombuffer(joined.buffers()[1], np.int32)
    start, end = int(offsets[joined.offset]), int(offsets[joined.offset + len(joined)])
    options = pjson.ReadOptions(block_size=max(end - start, 1 << 20))
    try:
        pjson.read_json(pa.BufferReader(joined.buffers()[2][start:end]), read_options=options)
        return batch
    except pa.ArrowInvalid:
        pass
    good = []
    for i, text in enumerate(batch.column(0).to_pylist()):
        try:
            json.loads(text)
            good.append(True)
        except ValueError as e:
            line = batch.column(1)[i].as_py()
            state.bad_rows.append(BadRow(line, text, 1, f"Error parsing JSON: {e}"))
            good.append(False)
    return batch.filter(pa.array(good))


def read_json_columns(stream: BinaryIO, fmt: FileFormat, state: ReadState) -> Iterator[pa.RecordBatch]:
    """JSON records as typed columns named by their keys (for MATCH_BY_COLUMN_NAME)."""
    if fmt.option("STRIP_OUTER_ARRAY"):
        items = json.load(io.TextIOWrapper(stream, encoding="utf-8"))
        table = pa.Table.from_pylist(items if isinstance(items, list) else [items])
        for batch in table.to_batches(65536):
            yield _with_lines(batch, state)
        return
    try:
        reader = pjson.open_json(stream, read_options=pjson.ReadOptions(block_size=BLOCK_SIZE))
    except pa.ArrowInvalid as e:
        raise FileFormatError(str(e)) from None
    for batch in _batches(reader):
        yield _with_lines(batch, state)


def read_parquet(source: Any, fmt: FileFormat, state: ReadState) -> Iterator[pa.RecordBatch]:
    """Parquet row groups as batches (columns keep their names and types)."""
    try:
        # No pre-buffering and one thread: a row group is decoded batch by batch, not held whole.
        parquet = pq.ParquetFile(source, pre_buffer=False)
    except pa.ArrowInvalid as e:
        raise FileFormatError(str(e)) from None
    as_text = bool(fmt.option("BINARY_AS_TEXT"))
    for batch in _batches(parquet.iter_batches(batch_size=65536, use_threads=False)):
        if as_text:
            columns = [
                c.cast(pa.string()) if pa.types.is_binary(c.type) or pa.types.is_large_binary(c.type) else c
                for c in batch.columns
            ]
            batch = pa.RecordBatch.from_arrays(columns, names=batch.schema.names)
        yield _with_lines(batch, state)


def read_orc(source: Any, state: ReadState) -> Iterator[pa.RecordBatch]:
    """ORC stripes as batches (columns keep their names and types), a stripe at a time."""
    try:
        orc_file = orc.ORCFile(source)
    except (pa.ArrowInvalid, OSError) as e:
        raise FileFormatError(str(e)) from None
    for stripe in range(orc_file.nstripes):
        for batch in pa.Table.from_batches([orc_file.read_stripe(stripe)]).to_batches(65536):
            yield _with_lines(batch, state)


def read_avro(stream: BinaryIO, state: ReadState) -> Iterator[pa.RecordBatch]:
    """Avro records as batches of their fields (stages/avro.py)."""
    try:
        for batch in avro.read(stream):
            yield _with_lines(batch, state)
    except (ValueError, EOFError, KeyError, TypeError, pa.ArrowException) as e:
        raise FileFormatError(f"Invalid Avro file: {e}") from None


def _with_lines(batch: pa.RecordBatch, state: ReadState) -> pa.RecordBatch:
    lines = pa.array(range(state.rows + 1, state.rows + batch.num_rows + 1), pa.int64())
    state.rows += batch.num_rows
    return pa.RecordBatch.from_arrays([*batch.columns, lines], names=[*batch.schema.names, LINE_COLUMN])

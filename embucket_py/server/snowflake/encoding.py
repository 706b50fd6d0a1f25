"""QueryResult -> the v1 wire: `rowtype`, Arrow IPC (rowsetBase64) or JSON rowsets, and chunks.

Every Arrow field carries the metadata the connector's converters read (`logicalType`,
`precision`/`scale`, ...) and uses only the physical layouts the connector accepts; a wrong one
crashes the client process instead of raising (shared/design/snowflake-rest-protocol.md §7).
"""

from __future__ import annotations

import base64
import itertools
import json
import math
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from embucket_py.engine.failures import from_text_to_number
from embucket_py.engine.functions.variant_values import pretty
from embucket_py.engine.result import QueryResult, ResultColumn
from embucket_py.types import MAX_BINARY, MAX_VARCHAR, SfType

# The first part of a result travels inline; the rest in chunks the client downloads.
INLINE_ROWS = 8192
INLINE_BYTES = 1 << 20
CHUNK_BYTES = 16 << 20


@dataclass
class Chunk:
    """One downloadable part of a result. Arrow chunks keep their batches until serialized, once,
    under `lock`: on the query registry's result thread while the statement still runs (in the
    carriers the rows so far needed, kept once the statement `settle`s the result's own), or
    ahead of the download, or for the download when it comes first; once moved to disk they are
    read from there. JSON chunks keep their text."""

    row_count: int
    uncompressed_size: int
    text: bytes | None = None
    batches: list[pa.RecordBatch] | None = None  # in the wire layout, cast to `schema` when sent
    schema: pa.Schema | None = None
    ready: bytes | memoryview | None = None  # the body serialized ahead (the batches let go)
    path: str | None = None  # the body's file once moved to disk
    held: bool = False  # was counted in the query registry's memory budget
    counted: bool = False  # is counted there now (its `memory` part of the registry's sum)
    settled: bool = True  # an Arrow chunk's schema is provisional until its statement ends
    memory: int = field(init=False)  # bytes held until moved to disk
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.text is not None:
            self.memory = len(self.text)
        else:
            self.memory = sum(b.nbytes for b in self.batches or []) or self.uncompressed_size

    @property
    def body(self) -> bytes | memoryview:
        text, ready, batches = self.text, self.ready, self.batches  # taken once: others may change them
        if text is not None:
            return text
        if ready is not None:
            return ready
        if batches is None:
            assert self.path is not None
            return memoryview(pa.memory_map(self.path).read_buffer())
        assert self.schema is not None
        # Sized by `settle` (or at once when settled from the start); unknown while provisional.
        size = self.uncompressed_size or None
        return memoryview(ipc_buffer(self.schema, to_carriers(self.schema, batches), size))

    def __getstate__(self) -> dict[str, Any]:
        """Shared mode stores results for other servers: an Arrow chunk as its body (a batch
        sliced from a larger one would pickle the whole buffer), without the lock, and not
        counted in any of their budgets."""
        state = {k: v for k, v in self.__dict__.items() if k != "lock"}
        if self.text is None and self.path is None:
            state |= {"ready": bytes(self.body), "batches": None}
        return state | {"held": False, "counted": False}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.lock = threading.Lock()

    def serialize_ahead(self) -> None:
        """The body in the provisional schema, while the statement's later rows still stream (the
        batches stay until `settle` tells whether it stands)."""
        with self.lock:
            if not self.settled and self.ready is None and self.batches is not None:
                self.ready = self.body

    def settle(self, schema: pa.Schema) -> None:
        """The statement has ended with `schema` as the result's: a body serialized ahead in it
        stands and the batches go; one in narrower carriers is dropped. Sized exactly for
        `schema` either way."""
        with self.lock:
            assert self.batches is not None and self.schema is not None
            if self.ready is not None and self.schema.types == schema.types:
                self.batches = None
                self.uncompressed_size = self.memory = len(self.ready)
            else:
                self.ready = None
                self.uncompressed_size = ipc_size(schema, self.batches)
            self.schema, self.settled = schema, True

    @property
    def size(self) -> int:
        """Bytes of the body (sent uncompressed: compressed and uncompressed sizes are equal)."""
        return self.uncompressed_size

    def spill(self, path: str, write: Callable[[str, bytes | memoryview], None]) -> None:
        """Writes the body to `path` with `write` and lets the batches or text go."""
        with self.lock:
            if self.path is not None:
                return
            write(path, self.body)
            self.path = path
            self.batches = self.text = self.ready = None


@dataclass
class EncodedResult:
    """A result in wire form: `data` fields for the first answer, plus the chunk bodies."""

    data: dict[str, Any]
    chunks: list[Chunk] = field(default_factory=list)


# --- column conversion --------------------------------------------------------------------------


def wire_type(column: ResultColumn, arrow: pa.DataType) -> SfType:
    """The Snowflake type as sent: precision/scale agree with the physical Arrow values."""
    t = column.type
    if t.kind == "FIXED" and pa.types.is_decimal(arrow):
        return SfType("FIXED", min(max(t.precision or 0, arrow.precision), 38), arrow.scale)
    if t.kind in ("TIME", "TIMESTAMP_NTZ", "TIMESTAMP_LTZ", "TIMESTAMP_TZ"):
        unit = getattr(arrow, "unit", "ns")
        return SfType(t.kind, 0, {"s": 0, "ms": 3, "us": 6, "ns": 9}[unit])
    return t


def _to_json_text(array: pa.Array) -> pa.Array:
    return pa.array(
        [None if v is None else json.dumps(v, default=str) for v in array.to_pylist()], pa.string()
    )


def _pretty(array: pa.Array) -> pa.Array:
    """VARIANT values as Snowflake sends them: objects and arrays indented by 2 spaces."""
    values = pc.cast(array, pa.string()).to_pylist()
    return pa.array([None if v is None else pretty(v) for v in values], pa.string())


def wire_array(array: pa.Array, t: SfType, timezone: str) -> pa.Array:
    """One result column in the Arrow layout the connector expects for its Snowflake type."""
    arrow = array.type
    if t.kind == "FIXED":
        if pa.types.is_decimal(arrow):
            return array if arrow.bit_width == 128 else pc.cast(array, pa.decimal128(38, arrow.scale))
        if pa.types.is_unsigned_integer(arrow):
            return (
                pc.cast(array, pa.decimal128(38, 0)) if arrow.bit_width == 64 else pc.cast(array, pa.int64())
            )
        if pa.types.is_int64(arrow):
            return array
        try:  # text where the plan promised a number (a set operation over a string literal)
            return pc.cast(array, pa.int64())
        except pa.ArrowInvalid as e:
            raise from_text_to_number(e) from None
    if t.kind == "REAL":
        return (
            array
            if pa.types.is_float64(arrow) or pa.types.is_float32(arrow)
            else pc.cast(array, pa.float64())
        )
    if t.kind in ("TEXT", "VARIANT", "OBJECT", "ARRAY"):
        if isinstance(arrow, pa.ExtensionType):  # JSON-typed VARIANT text
            array, arrow = array.storage, array.storage.type
        if pa.types.is_nested(arrow):
            return _to_json_text(array)
        if t.kind != "TEXT":
            return _pretty(array)
        return array if pa.types.is_string(arrow) else pc.cast(array, pa.string())
    if t.kind == "BINARY":
        return array if pa.types.is_binary(arrow) else pc.cast(array, pa.binary())
    if t.kind == "BOOLEAN":
        return array
    if t.kind == "DATE":
        return array if pa.types.is_date32(arrow) else pc.cast(array, pa.date32())
    if t.kind == "TIME":
        bits = pa.int64() if arrow.bit_width == 64 else pa.int32()
        return pc.cast(array.view(bits), pa.int64())
    if t.kind in ("TIMESTAMP_NTZ", "TIMESTAMP_LTZ"):
        return array.view(pa.int64())
    if t.kind == "TIMESTAMP_TZ":
        return _timestamp_tz(array, timezone)
    return array


def _timestamp_tz(array: pa.Array, timezone: str) -> pa.Array:
    """TIMESTAMP_TZ as struct{epoch s, fraction ns, timezone = offset minutes + 1440}; the offset
    is the session time zone's at each instant (Iceberg keeps only the instant)."""
    unit = array.type.unit
    per_second = {"s": 1, "ms": 1000, "us": 1_000_000, "ns": 1_000_000_000}[unit]
    raw = array.view(pa.int64())
    epoch = pc.floor(pc.divide(pc.cast(raw, pa.float64()), per_second)).cast(pa.int64())
    fraction = pc.multiply(pc.subtract(raw, pc.multiply(epoch, per_second)), 1_000_000_000 // per_second)
    own = array.type.tz if pa.types.is_timestamp(array.type) else None
    zone = own if own and own != "UTC" else timezone  # CONVERT_TIMEZONE's target zone
    utc = pc.cast(array.view(pa.int64()), pa.timestamp(unit, tz=zone))
    local = pc.local_timestamp(utc).view(pa.int64())
    offset = pc.divide(pc.subtract(local, raw), per_second * 60)
    mask = pc.is_null(array)
    return pa.StructArray.from_arrays(
        [epoch, pc.cast(fraction, pa.int32()), pc.cast(pc.add(offset, 1440), pa.int32())],
        names=["epoch", "fraction", "timezone"],
        mask=mask,
    )


def field_metadata(t: SfType) -> dict[str, str]:
    meta = {"logicalType": t.kind, "finalType": "T"}
    if t.kind == "FIXED":
        meta |= {"precision": str(t.precision), "scale": str(t.scale)}
    elif t.kind in ("TIME", "TIMESTAMP_NTZ", "TIMESTAMP_LTZ"):
        meta |= {"scale": str(t.scale)}
    elif t.kind == "TIMESTAMP_TZ":
        meta |= {"scale": str(t.scale), "byteLength": "16"}
    elif t.kind == "TEXT":
        meta |= {"charLength": str(t.length or MAX_VARCHAR), "byteLength": str(MAX_VARCHAR)}
    elif t.kind == "BINARY":
        meta |= {"byteLength": str(t.length or MAX_BINARY)}
    return meta


def rowtype_entry(column: ResultColumn, t: SfType) -> dict[str, Any]:
    """One `rowtype` entry with every key present (the 4.x client indexes them directly)."""
    entry: dict[str, Any] = {
        "name": column.name,
        "database": column.database,
        "schema": column.schema,
        "table": column.table,
        "type": t.kind.lower(),
        "nullable": column.nullable,
        "precision": None,
        "scale": None,
        "length": None,
        "byteLength": None,
        "collation": None,
    }
    if t.kind == "FIXED":
        entry |= {"precision": t.precision, "scale": t.scale}
    elif t.kind in ("TIME", "TIMESTAMP_NTZ", "TIMESTAMP_LTZ", "TIMESTAMP_TZ"):
        entry |= {"precision": 0, "scale": t.scale}
    elif t.kind == "TEXT":
        entry |= {"length": t.length or MAX_VARCHAR, "byteLength": MAX_VARCHAR}
    elif t.kind == "BINARY":
        entry |= {"length": t.length or MAX_BINARY, "byteLength": t.length or MAX_BINARY}
    elif t.kind in ("VARIANT", "OBJECT", "ARRAY"):
        entry |= {"length": MAX_VARCHAR, "byteLength": MAX_VARCHAR}
    return entry


class WireBatches:
    """Converts a result's batches to wire layout; learns the wire types from the first batch."""

    def __init__(self, result: QueryResult, timezone: str) -> None:
        self.columns = result.columns
        self.timezone = timezone
        self.types: list[SfType] | None = None
        self.schema: pa.Schema | None = None

    def convert(self, batch: pa.RecordBatch) -> pa.RecordBatch:
        if self.types is None:
            self.types = [wire_type(c, a) for c, a in zip(self.columns, batch.schema.types, strict=True)]
        assert self.types is not None
        arrays = [wire_array(col, t, self.timezone) for col, t in zip(batch.columns, self.types, strict=True)]
        if self.schema is None:
            self.schema = pa.schema(
                [
                    pa.field(c.name, a.type, nullable=True, metadata=field_metadata(t))
                    for c, a, t in zip(self.columns, arrays, self.types, strict=True)
                ]
            )
        return pa.RecordBatch.from_arrays(arrays, schema=self.schema)

    def rowtype(self) -> list[dict[str, Any]]:
        """The rowtype; call after converting the first batch (if any)."""
        if self.types is None:
            self.types = [c.type for c in self.columns]
        assert self.types is not None
        return [rowtype_entry(c, t) for c, t in zip(self.columns, self.types, strict=True)]


# --- integer carriers --------------------------------------------------------------------------

# Snowflake sends NUMBER as the smallest integer holding all of a column's (unscaled) values, and
# decimal128 only beyond 64 bits; clients widen them again (NUMBER(p,0) to int64, NUMBER(p,s) to
# float64 or, with arrow_number_to_decimal, decimal128). The wire shrinks by half or more.
# The carrier is chosen over the whole result (clients read every chunk with the first's schema)
# from the columns' bounds alone; the values are cast when each part is serialized, so a chunk's
# cast runs on its download's thread, off the statement's path.
_CARRIERS = [(pa.int8(), 1 << 7), (pa.int16(), 1 << 15), (pa.int32(), 1 << 31), (pa.int64(), 1 << 63)]


class Carriers:
    """Each FIXED column's carrier: the smallest integer type holding every unscaled value of the
    rows added so far, or the column's own type."""

    def __init__(self) -> None:
        self.bounds: dict[int, tuple[int, int]] = {}

    def add(self, batches: list[pa.RecordBatch]) -> None:
        if not batches:
            return
        for i, f in enumerate(batches[0].schema):
            if f.metadata and f.metadata.get(b"logicalType") == b"FIXED":
                arrays = [b.column(i) for b in batches]
                low, high = _low_words_bounds(arrays) or _bounds(_unscaled(arrays))
                old_low, old_high = self.bounds.get(i, (low, high))
                self.bounds[i] = (min(low, old_low), max(high, old_high))

    def schema(self, schema: pa.Schema) -> pa.Schema:
        """The wire schema with each FIXED column in its carrier."""
        fields = list(schema)
        for i, (low, high) in self.bounds.items():
            carrier = next((t for t, limit in _CARRIERS if -limit <= low and high < limit), fields[i].type)
            fields[i] = fields[i].with_type(carrier)
        return pa.schema(fields)


def _bounds(column: pa.ChunkedArray) -> tuple[int, int]:
    low, high = pc.min_max(column).as_py().values()  # None for a column of NULLs
    return (0 if low is None else int(low), 0 if high is None else int(high))


def _low_words_bounds(arrays: list[pa.Array]) -> tuple[int, int] | None:
    """Bounds of int64 or decimal arrays without NULLs whose values fit 64 bits, read in place.
    Casting decimals first allocated 8 bytes a row and took 40 ms for 6M rows inside the
    statement; this reads the buffers as they are (~10 ms)."""
    words_per_value = _in_low_words(arrays)
    if words_per_value is None:
        return None
    lows, highs = [], []
    for a in arrays:
        if len(a):
            words = _low_words(a, words_per_value)
            lows.append(int(words.min()))
            highs.append(int(words.max()))
    return (min(lows), max(highs)) if lows else (0, 0)


def _unscaled(arrays: list[pa.Array]) -> pa.ChunkedArray:
    """A FIXED column's unscaled values (columns with NULLs): decimals as int64 when they all fit
    (min_max over decimals runs ~10x slower), else as decimals of scale 0. Up to 18 digits always
    fit (the engine checks precision), so the cast skips its per-value overflow check (3x slower)."""
    kind = arrays[0].type
    if not pa.types.is_decimal(kind):
        return pa.chunked_array(arrays, kind)
    whole = pa.chunked_array([a.view(pa.decimal128(38, 0)) for a in arrays], pa.decimal128(38, 0))
    try:
        return pc.cast(whole, pa.int64(), safe=kind.precision > 18)
    except pa.ArrowInvalid:  # beyond 64 bits: the column travels as decimals
        return whole


def to_carriers(schema: pa.Schema, batches: list[pa.RecordBatch]) -> list[pa.RecordBatch]:
    """Batches of the wire schema as `schema` (from `Carriers`) gives them. Each column is
    cast in one call (a call per batch cost ~10 us, a third of the work), then sliced back into
    the batches' lengths: the IPC stream keeps the layout `ipc_size` counted."""
    if not batches or batches[0].schema.types == schema.types:
        return batches
    columns = []
    for i, f in enumerate(schema):
        arrays = [b.column(i) for b in batches]
        if arrays[0].type != f.type:  # every value fits: the bounds were checked
            cast = _narrowed(arrays, f.type)
            if cast is None:
                cast = pc.cast(_unscaled(arrays), f.type, safe=False).combine_chunks()
            starts = itertools.accumulate((len(a) for a in arrays), initial=0)
            arrays = [_exact(cast.slice(start, len(a))) for start, a in zip(starts, arrays, strict=False)]
        columns.append(arrays)
    return [pa.RecordBatch.from_arrays(list(row), schema=schema) for row in zip(*columns, strict=True)]


def _narrowed(arrays: list[pa.Array], carrier: pa.DataType) -> pa.Array | None:
    """The values of int64 or decimal arrays without NULLs as one `carrier` array, copied in one
    numpy pass from their buffers (the carrier was chosen from the bounds, so a decimal's low 64
    bits are its whole unscaled value). pyarrow's casts took two passes for decimals and ~2x as
    long for 6M rows (6x for wider decimals, checked for overflow)."""
    words_per_value = _word_layout(arrays)
    if words_per_value is None:
        return None
    rows = sum(len(a) for a in arrays)
    buffer = pa.allocate_buffer(rows * carrier.byte_width)  # pooled: numpy's would fault fresh pages
    out = np.frombuffer(buffer, carrier.to_pandas_dtype())
    start = 0
    for a in arrays:
        out[start : start + len(a)] = _low_words(a, words_per_value)
        start += len(a)
    return pa.Array.from_buffers(carrier, rows, [None, buffer])


def _word_layout(arrays: list[pa.Array]) -> int | None:
    """64-bit words per value of int64 (1) or decimal128 (2) arrays without NULLs; None for others."""
    kind = arrays[0].type
    if any(a.null_count for a in arrays):
        return None
    if pa.types.is_int64(kind):
        return 1
    return 2 if pa.types.is_decimal128(kind) else None


def _in_low_words(arrays: list[pa.Array]) -> int | None:
    """`_word_layout` when each value's first word holds its whole (unscaled) value: always for
    int64 and decimals of up to 18 digits, for wider ones (NUMBER(38,2) columns, sums of
    decimals) when every value fits 64 bits."""
    words_per_value = _word_layout(arrays)
    if words_per_value == 2 and arrays[0].type.precision > 18:
        return words_per_value if all(_fits_low_word(a) for a in arrays) else None
    return words_per_value


def _fits_low_word(array: pa.Array) -> bool:
    """Whether each value of a decimal128 array fits 64 bits: its high word only extends the low
    word's sign. Four min/max passes settle columns of one sign (2.7 ms per 1M rows against the
    overflow-checked cast's 4.5); mixed signs compare word by word."""
    if not len(array):
        return True
    words = _words(array, 2)
    low, high = words[0::2], words[1::2]
    top, bottom = int(high.max()), int(high.min())
    if top == bottom == 0:
        return int(low.min()) >= 0
    if top == bottom == -1:
        return int(low.max()) < 0
    return bool(np.array_equal(high, low >> 63))


def _words(array: pa.Array, words_per_value: int) -> np.ndarray:
    """The 64-bit words of an int64 (1 a value) or decimal128 (2) array's values, in place."""
    words = np.frombuffer(array.buffers()[1], np.int64, words_per_value * (array.offset + len(array)))
    return words[words_per_value * array.offset :]


def _low_words(array: pa.Array, words_per_value: int) -> np.ndarray:
    """The first 64-bit word of each value of an int64 (1 word) or decimal128 (2) array, in place."""
    return _words(array, words_per_value)[::words_per_value]


def _shaped_like(schema: pa.Schema, batch: pa.RecordBatch) -> pa.RecordBatch:
    """`batch` reinterpreted with `schema`'s narrower fixed-width types, values left as they are:
    the same validity bits and as many data bytes as the cast values, so the IPC stream written
    from it is exactly as long as the real one (sizes are sent before the values are cast)."""
    arrays = [
        a
        if a.type == f.type
        else _exact(
            pa.Array.from_buffers(f.type, len(a), a.buffers()[:2], null_count=a.null_count, offset=a.offset)
        )
        for a, f in zip(batch.columns, schema, strict=True)
    ]
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def _exact(array: pa.Array) -> pa.Array:
    """A fixed-width array with buffers of exactly its values' bytes. The IPC writer writes an
    unsliced buffer whole when it is within Arrow's 64-byte padding of the values' size, so a
    larger one (a wider type's buffer reinterpreted, the first slice of a whole chunk's cast)
    would change the stream's length from the one counted."""
    if array.offset:
        return array  # a slice's buffers are cut to its values
    validity, data = array.buffers()[:2]
    rows = len(array)
    if validity is not None:
        validity = validity.slice(0, (rows + 7) // 8)
    data = data.slice(0, rows * array.type.byte_width)
    return pa.Array.from_buffers(array.type, rows, [validity, data], null_count=array.null_count)


# --- Arrow -------------------------------------------------------------------------------------


def _write_stream(sink: pa.NativeFile, schema: pa.Schema, batches: list[pa.RecordBatch]) -> None:
    with pa.ipc.new_stream(sink, schema) as writer:
        for b in batches:
            writer.write_batch(b)


def ipc_size(schema: pa.Schema, batches: list[pa.RecordBatch]) -> int:
    """The length of the IPC stream `ipc_buffer` writes for `batches` cast to `schema` (counted,
    nothing cast or copied)."""
    mock = pa.MockOutputStream()
    _write_stream(mock, schema, [_shaped_like(schema, b) for b in batches])
    return int(mock.size())


def ipc_buffer(schema: pa.Schema, batches: list[pa.RecordBatch], size: int | None = None) -> pa.Buffer:
    """The batches as one Arrow IPC stream, written once into a buffer of its exact size (a
    growing stream would copy on every reallocation, and bytes() once more)."""
    buffer = pa.allocate_buffer(ipc_size(schema, batches) if size is None else size)
    sink = pa.FixedSizeBufferWriter(buffer)
    _write_stream(sink, schema, batches)
    if sink.tell() != buffer.size:  # bytes past the stream's end would break strict readers
        raise AssertionError(f"IPC stream of {sink.tell()} bytes, sized {buffer.size}")
    return buffer


def _group(
    batches: Iterator[pa.RecordBatch], limit_rows: int | None, limit_bytes: int
) -> Iterator[list[pa.RecordBatch]]:
    """Groups batches into parts: the first up to the inline limits, then chunk-sized parts. A
    batch larger than the room left is sliced (no copy), by its average row width."""
    part: list[pa.RecordBatch] = []
    rows = size = 0
    for batch in batches:
        while batch.num_rows:
            width = max(batch.nbytes / batch.num_rows, 1.0)
            room = min(batch.num_rows, math.ceil((limit_bytes - size) / width))
            if limit_rows is not None:
                room = min(room, limit_rows - rows)
            piece, batch = batch.slice(0, room), batch.slice(room)
            part.append(piece)
            rows += room
            size += round(room * width)
            if size >= limit_bytes or (limit_rows is not None and rows >= limit_rows):
                yield part
                part, rows, size = [], 0, 0
                limit_rows, limit_bytes = None, CHUNK_BYTES
    if part:
        yield part


def encode_arrow(
    result: QueryResult, timezone: str, ahead: Callable[[Chunk], object] | None = None
) -> EncodedResult:
    """The result as Arrow IPC: its first rows inline, the rest in chunks. Each chunk is handed to
    `ahead` (the query registry's result thread) as soon as its rows are in, to be serialized
    while the engine produces the next ones. Its schema is then provisional (the carriers the rows
    so far need: a later row may widen them, and the body made ahead is dropped) unless no FIXED
    column can widen any more (no carriers, or all as wide as their own types): such a chunk is
    settled at once and its batches go as soon as it is serialized."""
    wire = WireBatches(result, timezone)
    parts = _group((b for b in map(wire.convert, result.batches) if b.num_rows), INLINE_ROWS, INLINE_BYTES)
    first = next(parts, [])
    carriers = Carriers()
    carriers.add(first)
    chunks = []
    for part in parts:
        carriers.add(part)
        assert wire.schema is not None  # set by the first batch
        schema = carriers.schema(wire.schema)
        widest = schema.types == wire.schema.types
        size = ipc_size(schema, part) if widest else 0
        chunk = Chunk(sum(b.num_rows for b in part), size, batches=part, schema=schema, settled=widest)
        if ahead is not None:
            ahead(chunk)
        chunks.append(chunk)
    schema = carriers.schema(wire.schema) if first else wire.schema  # type: ignore[arg-type]
    for chunk in reversed(chunks):  # the last first: those still queued ahead are left to later
        if not chunk.settled:
            chunk.settle(schema)
    first_rows = sum(b.num_rows for b in first)
    inline = ipc_buffer(schema, to_carriers(schema, first)) if first else b""  # type: ignore[arg-type]
    data: dict[str, Any] = {
        "queryResultFormat": "arrow",
        "rowtype": wire.rowtype(),
        "rowsetBase64": base64.b64encode(inline).decode(),
        "total": first_rows + sum(c.row_count for c in chunks),
        "returned": first_rows + sum(c.row_count for c in chunks),
    }
    return EncodedResult(data, chunks)


# --- JSON --------------------------------------------------------------------------------------


def _json_cells(array: pa.Array, t: SfType) -> list[str | None]:
    """One column as the JSON rowset's strings (§7.1 of the protocol notes)."""
    values = array.to_pylist()
    if t.kind == "FIXED":
        if t.scale:
            if pa.types.is_decimal(array.type):
                return [None if v is None else format(v, "f") for v in values]
            return [None if v is None else _scaled(v, t.scale or 0) for v in values]
        return [None if v is None else str(v) for v in values]
    if t.kind == "BOOLEAN":
        return [None if v is None else ("1" if v else "0") for v in values]
    if t.kind == "BINARY":
        return [None if v is None else v.hex().upper() for v in values]
    if t.kind == "DATE":
        return [None if v is None else str(v) for v in pc.cast(array, pa.int32()).to_pylist()]
    if t.kind in ("TIME", "TIMESTAMP_NTZ", "TIMESTAMP_LTZ"):
        return [None if v is None else _scaled(v, t.scale or 0) for v in values]
    if t.kind == "TIMESTAMP_TZ":
        return [None if v is None else f"{v['epoch']}.{v['fraction']:09d} {v['timezone']}" for v in values]
    if t.kind == "REAL":
        return [None if v is None else _real(v) for v in values]
    return [None if v is None else str(v) for v in values]


def _scaled(unscaled: int, scale: int) -> str:
    if scale == 0:
        return str(unscaled)
    sign = "-" if unscaled < 0 else ""
    whole, frac = divmod(abs(unscaled), 10**scale)
    return f"{sign}{whole}.{frac:0{scale}d}"


def _real(v: float) -> str:
    if v != v:
        return "NaN"
    if v in (float("inf"), float("-inf")):
        return "inf" if v > 0 else "-inf"
    return repr(v)


def json_rows(batches: list[pa.RecordBatch], types: list[SfType]) -> list[list[str | None]]:
    rows: list[list[str | None]] = []
    for batch in batches:
        columns = [_json_cells(col, t) for col, t in zip(batch.columns, types, strict=True)]
        rows.extend([list(r) for r in zip(*columns, strict=True)] if columns else [])
    return rows


def encode_json(result: QueryResult, timezone: str) -> EncodedResult:
    wire = WireBatches(result, timezone)
    parts = _group((wire.convert(b) for b in result.batches), INLINE_ROWS, INLINE_BYTES)
    first = next(parts, [])
    rowtype = wire.rowtype()
    types = wire.types or []
    chunks = []
    for part in parts:
        rows = json_rows(part, types)
        # JSON chunks are rows without the outer brackets: ["1","a"],["2","b"]
        body = json.dumps(rows, separators=(",", ":"))[1:-1].encode()
        chunks.append(Chunk(len(rows), len(body), text=body))
    rowset = json_rows(first, types)
    data: dict[str, Any] = {
        "queryResultFormat": "json",
        "rowtype": rowtype,
        "rowset": rowset,
        "total": len(rowset) + sum(c.row_count for c in chunks),
        "returned": len(rowset) + sum(c.row_count for c in chunks),
    }
    return EncodedResult(data, chunks)

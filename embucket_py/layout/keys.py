"""Clustering key values as float64 coordinates that keep each column's order."""

from __future__ import annotations

import numpy as np
import pyarrow as pa


def coordinates(column: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """One float64 per value, ordered as the values are; NULLs sort last (+inf), as in Snowflake."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    t = column.type
    if _is_bytes(t):
        out = _text_prefix(column.cast(pa.large_binary()))
    elif pa.types.is_timestamp(t) or pa.types.is_date(t) or pa.types.is_time(t):
        width = pa.int32() if t.bit_width == 32 else pa.int64()
        out = column.cast(width).to_numpy(zero_copy_only=False).astype(np.float64)
    elif pa.types.is_boolean(t):
        out = column.cast(pa.int8()).to_numpy(zero_copy_only=False).astype(np.float64)
    else:
        out = column.cast(pa.float64()).to_numpy(zero_copy_only=False)
    out = np.array(out, dtype=np.float64)
    if column.null_count:
        out[column.is_null().to_numpy(zero_copy_only=False)] = np.inf
    return out


def _is_bytes(t: pa.DataType) -> bool:
    types = pa.types
    return (
        any(
            check(t)
            for check in (types.is_string, types.is_large_string, types.is_string_view, types.is_binary)
        )
        or types.is_large_binary(t)
        or types.is_binary_view(t)
    )


def _text_prefix(column: pa.Array) -> np.ndarray:
    """The first 7 bytes, big-endian (shorter values padded with zeros): byte order for text and
    binary, exact within float64's 53-bit mantissa."""
    column = column.fill_null(b"")
    offsets = np.frombuffer(column.buffers()[1], dtype=np.int64)
    offsets = offsets[column.offset : column.offset + len(column) + 1]
    data = column.buffers()[2]
    raw = np.frombuffer(data, dtype=np.uint8) if data is not None and data.size else np.zeros(1, np.uint8)
    starts, lengths = offsets[:-1], offsets[1:] - offsets[:-1]
    value = np.zeros(len(column), dtype=np.uint64)
    for i in range(7):
        byte = np.where(i < lengths, raw[np.minimum(starts + i, len(raw) - 1)], 0).astype(np.uint64)
        value = (value << np.uint64(8)) | byte
    return value.astype(np.float64)


def matrix(table: pa.Table, columns: list[str]) -> np.ndarray:
    """Rows x key columns."""
    return (
        np.column_stack([coordinates(table.column(c)) for c in columns])
        if table.num_rows
        else (np.zeros((0, len(columns))))
    )

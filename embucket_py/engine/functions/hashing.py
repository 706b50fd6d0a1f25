"""Hash functions: 64-bit numbers taken from digests DataFusion computes (MD5_NUMBER_*, HASH).

Snowflake's own HASH values are not reproducible (its algorithm is unpublished); HASH here is a
stable signed 64-bit number: the first 8 bytes of the MD5 of the arguments' text, see
`embucket_py.sql.transforms.functions.hashing`.
https://docs.snowflake.com/en/sql-reference/functions/hash
"""

from __future__ import annotations

import hashlib

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from datafusion import SessionContext, udf


def _words(digests: pa.Array, dtype: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The two big-endian 64-bit halves of 16-byte digests, and the null mask."""
    if isinstance(digests, pa.ChunkedArray):
        digests = digests.combine_chunks()
    if digests.type == pa.binary_view():
        digests = digests.cast(pa.large_binary())
    fixed = digests.cast(pa.binary(16))
    data = np.frombuffer(fixed.buffers()[1], dtype=dtype, count=2 * (len(fixed) + fixed.offset))
    halves = data.reshape(-1, 2)[fixed.offset :]
    return halves[:, 0], halves[:, 1], np.asarray(fixed.is_null())


def _upper64(digests: pa.Array) -> pa.Array:
    upper, _, nulls = _words(digests, ">u8")
    return pa.array(upper.astype(np.uint64), mask=nulls).cast(pa.decimal128(20, 0))


def _lower64(digests: pa.Array) -> pa.Array:
    _, lower, nulls = _words(digests, ">u8")
    return pa.array(lower.astype(np.uint64), mask=nulls).cast(pa.decimal128(20, 0))


def _signed64(digests: pa.Array) -> pa.Array:
    upper, _, nulls = _words(digests, ">i8")
    return pa.array(upper.astype(np.int64), mask=nulls)


def _sha1(values: pa.Array) -> pa.Array:
    """SHA-1, which DataFusion's digest() lacks: hashlib once per distinct value."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    encoded = pc.dictionary_encode(values.cast(pa.binary()))
    digests = [hashlib.sha1(v).digest() for v in encoded.dictionary.to_pylist()]
    return pa.array(digests, pa.binary()).take(encoded.indices)


_BYTES = pa.field("digest", pa.binary())
_UDFS = [
    udf(_upper64, [_BYTES], pa.field("r", pa.decimal128(20, 0)), "immutable", name="sf_digest_upper64"),
    udf(_lower64, [_BYTES], pa.field("r", pa.decimal128(20, 0)), "immutable", name="sf_digest_lower64"),
    udf(_sha1, [_BYTES], pa.field("r", pa.binary()), "immutable", name="sf_sha1"),
    udf(_signed64, [_BYTES], pa.field("r", pa.int64()), "immutable", name="sf_digest_int64"),
]


def register(ctx: SessionContext) -> None:
    for function in _UDFS:
        ctx.register_udf(function)

"""Finished results' Arrow chunks are serialized ahead of their downloads, and count what they
then hold (their bodies, narrower than the batches) against the result memory budget."""

from __future__ import annotations

import pyarrow as pa

from embucket_py.engine.result import QueryResult, ResultColumn, StatementType
from embucket_py.server.snowflake import encoding
from embucket_py.server.snowflake.running import QueryRegistry
from embucket_py.types import SfType


def _encoded() -> encoding.EncodedResult:
    values = pa.array(range(2_000_000), pa.int64())  # 16 MB of int64, 8 MB on the wire as int32
    batches = pa.table({"n": values}).to_batches(max_chunksize=8192)
    result = QueryResult([ResultColumn("N", SfType("FIXED", 38, 0))], batches, StatementType.SELECT)
    return encoding.encode_arrow(result, "UTC")


def test_held_chunks_are_serialized_and_counted_at_their_body_size() -> None:
    expected = [bytes(c.body) for c in _encoded().chunks]
    chunks = _encoded().chunks
    wide = sum(c.memory for c in chunks)
    registry = QueryRegistry(workers=1, result_ttl=60)
    try:
        registry.hold("q1", chunks)
        registry._spiller.submit(lambda: None).result()  # the result thread has done its work
        assert all(c.batches is None and c.ready is not None for c in chunks)
        assert [bytes(c.body) for c in chunks] == expected
        assert registry._held_bytes == sum(c.size for c in chunks) < wide / 1.9
    finally:
        registry.shutdown()

"""Arrow result chunks: sized when the statement ends, serialized when downloaded."""

from __future__ import annotations

import base64

import pyarrow as pa

from embucket_py.engine.result import QueryResult, StatementType, columns_of
from embucket_py.server.snowflake import encoding


def _result(rows: int) -> QueryResult:
    n = pa.array(range(rows), pa.int64())
    text = pa.array([f"row {i}" for i in range(rows)], pa.string())
    batches = pa.table({"n": n, "t": text}).to_batches(max_chunksize=8192)
    schema = batches[0].schema
    return QueryResult(columns_of(schema, ["N", "T"]), batches, StatementType.SELECT)


def test_chunk_sizes_are_the_exact_lengths_of_their_downloaded_bodies() -> None:
    encoded = encoding.encode_arrow(_result(400_000), "UTC")
    assert len(encoded.chunks) >= 1
    first = pa.ipc.open_stream(pa.py_buffer(base64.b64decode(encoded.data["rowsetBase64"])))
    seen = first.read_all().column(0).to_pylist()
    for chunk in encoded.chunks:
        body = chunk.body
        assert len(body) == chunk.size == chunk.uncompressed_size
        table = pa.ipc.open_stream(pa.py_buffer(bytes(body))).read_all()
        assert table.num_rows == chunk.row_count
        assert table.schema.field("N").metadata[b"logicalType"] == b"FIXED"
        seen += table.column(0).to_pylist()
    assert seen == list(range(400_000))
    assert encoded.data["total"] == 400_000


def test_json_chunks_keep_their_text() -> None:
    encoded = encoding.encode_json(_result(20_000), "UTC")
    assert encoded.chunks
    for chunk in encoded.chunks:
        assert isinstance(chunk.body, bytes)
        assert len(chunk.body) == chunk.size
        assert chunk.body.startswith(b'["')

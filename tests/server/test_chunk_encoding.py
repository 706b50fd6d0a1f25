"""Arrow result chunks: serialized while the statement streams or when downloaded, sized exactly
when it ends; numbers in Snowflake's integer carriers."""

from __future__ import annotations

import base64
from decimal import Decimal
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from embucket_py.engine.result import QueryResult, ResultColumn, StatementType, columns_of
from embucket_py.server.snowflake import encoding
from embucket_py.server.snowflake.running import QueryRegistry
from embucket_py.types import SfType


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


def _fixed(values: pa.Array, precision: int, scale: int) -> QueryResult:
    batches = pa.table({"v": values}).to_batches(max_chunksize=8192)
    return QueryResult([ResultColumn("V", SfType("FIXED", precision, scale))], batches, StatementType.SELECT)


def _decoded(encoded: encoding.EncodedResult) -> pa.Table:
    tables = [pa.ipc.open_stream(pa.py_buffer(base64.b64decode(encoded.data["rowsetBase64"]))).read_all()]
    for chunk in encoded.chunks:
        body = bytes(chunk.body)
        assert len(body) == chunk.size  # sized before its values were cast to their carriers
        tables.append(pa.ipc.open_stream(pa.py_buffer(body)).read_all())
    assert len({t.schema for t in tables}) == 1  # clients read every chunk with the first's schema
    return pa.concat_tables(tables)


@pytest.mark.parametrize(
    ("values", "carrier"),
    [
        ([0, 127, -128, None], pa.int8()),
        ([0, 128], pa.int16()),
        ([-(1 << 15) - 1, 5], pa.int32()),
        ([1 << 31], pa.int64()),
        ([None, None], pa.int8()),
    ],
)
def test_numbers_travel_in_the_smallest_integer_holding_them(values: list[Any], carrier: pa.DataType) -> None:
    table = _decoded(encoding.encode_arrow(_fixed(pa.array(values, pa.int64()), 38, 0), "UTC"))
    assert table.schema.field("V").type == carrier
    assert table.column("V").to_pylist() == values


def test_decimals_travel_as_unscaled_integers_unless_too_wide() -> None:
    prices = pa.array([Decimal("-1234.50"), None, Decimal("99999.99")], pa.decimal128(15, 2))
    table = _decoded(encoding.encode_arrow(_fixed(prices, 15, 2), "UTC"))
    field = table.schema.field("V")
    assert field.type == pa.int32()
    assert (field.metadata[b"precision"], field.metadata[b"scale"]) == (b"15", b"2")
    assert table.column("V").to_pylist() == [-123450, None, 9999999]
    nulls = _decoded(
        encoding.encode_arrow(_fixed(pa.array([None, None], pa.decimal128(12, 2)), 12, 2), "UTC")
    )
    assert nulls.schema.field("V").type == pa.int8()
    assert nulls.column("V").to_pylist() == [None, None]
    wide = pa.array([Decimal(10**20), Decimal(1)], pa.decimal128(38, 0))
    table = _decoded(encoding.encode_arrow(_fixed(wide, 38, 0), "UTC"))
    assert table.schema.field("V").type == pa.decimal128(38, 0)
    assert table.column("V").to_pylist() == [Decimal(10**20), Decimal(1)]


@pytest.mark.parametrize(
    ("unscaled", "carrier"),
    [
        ([-32768, 0, 32767], pa.int16()),
        ([-32769, 5], pa.int32()),
        ([-(10**17), 10**17], pa.int64()),
        ([-128, 127], pa.int8()),
    ],
)
def test_decimals_without_nulls_in_the_smallest_integer(unscaled: list[int], carrier: pa.DataType) -> None:
    # Read in place (each value's low 64 bits), also from batches that are slices of a larger one.
    values = (
        pa.array([10**17, *unscaled, -(10**17)], pa.int64())
        .cast(pa.decimal128(38, 0))
        .view(pa.decimal128(18, 2))
    )
    batches = [values.slice(1, len(unscaled))]
    result = QueryResult([ResultColumn("V", SfType("FIXED", 18, 2))], [pa.record_batch(batches, ["v"])])
    table = _decoded(encoding.encode_arrow(result, "UTC"))
    assert table.schema.field("V").type == carrier
    assert table.column("V").to_pylist() == unscaled


@pytest.mark.parametrize(
    ("unscaled", "carrier"),
    [
        ([0, 5, 6_000_000], pa.int32()),  # one sign: settled by the words' bounds
        ([-7, -(1 << 40)], pa.int64()),
        ([-1, 0, 1 << 62], pa.int64()),  # mixed signs: compared word by word
        ([(1 << 63) - 1, -(1 << 63)], pa.int64()),
        ([0, 1 << 63], pa.decimal128(38, 2)),  # past 64 bits: the low word alone reads negative
        ([-(1 << 63) - 1], pa.decimal128(38, 2)),
        ([5, -(1 << 64)], pa.decimal128(38, 2)),
    ],
)
def test_decimals_of_38_digits_in_their_carriers(unscaled: list[int], carrier: pa.DataType) -> None:
    # NUMBER(38,2) columns and sums of decimals: read in place when every value fits 64 bits.
    values = pa.array([Decimal(1 << 70), *map(Decimal, unscaled)], pa.decimal128(38, 0)).slice(1)
    values = values.view(pa.decimal128(38, 2))
    result = QueryResult([ResultColumn("V", SfType("FIXED", 38, 2))], [pa.record_batch([values], ["v"])])
    table = _decoded(encoding.encode_arrow(result, "UTC"))
    assert table.schema.field("V").type == carrier
    values = table.column("V").to_pylist()  # unscaled integers, or decimals in the column's own type
    assert [int(v.scaleb(2)) if isinstance(v, Decimal) else v for v in values] == unscaled


def test_integers_from_slices_of_a_larger_batch_keep_their_values() -> None:
    # Copied from the buffers in place: each slice's offset into the shared buffer counts.
    values = pa.array([1 << 40, -300, 0, 300, 1 << 40], pa.int64())
    batches = [pa.record_batch([values.slice(1, 2)], ["v"]), pa.record_batch([values.slice(3, 1)], ["v"])]
    result = QueryResult([ResultColumn("V", SfType("FIXED", 38, 0))], batches)
    table = _decoded(encoding.encode_arrow(result, "UTC"))
    assert table.schema.field("V").type == pa.int16()
    assert table.column("V").to_pylist() == [-300, 0, 300]


def test_one_carrier_for_the_whole_result() -> None:
    # Small values first, large ones only in a later chunk: every part uses the wide carrier.
    values = pa.array([*range(3_000_000), 1 << 40], pa.int64())
    encoded = encoding.encode_arrow(_fixed(values, 38, 0), "UTC")
    assert len(encoded.chunks) >= 2
    table = _decoded(encoded)
    assert table.schema.field("V").type == pa.int64()
    assert table.column("V")[-1].as_py() == 1 << 40


def test_one_large_batch_is_sliced_into_parts() -> None:
    n = pa.array(range(5_000_000), pa.int64())
    result = QueryResult(columns_of(pa.schema([("n", pa.int64())]), ["N"]), [pa.record_batch([n], ["n"])])
    encoded = encoding.encode_arrow(result, "UTC")
    inline = pa.ipc.open_stream(pa.py_buffer(base64.b64decode(encoded.data["rowsetBase64"]))).read_all()
    assert inline.num_rows == encoding.INLINE_ROWS
    assert len(encoded.chunks) >= 2
    assert all(c.size <= encoding.CHUNK_BYTES + 4096 for c in encoded.chunks)
    assert _decoded(encoded).column("N").to_pylist() == list(range(5_000_000))


def test_chunks_are_sized_exactly_before_their_values_are_cast() -> None:
    # Nulls, decimals and batches sliced across parts (offsets into the validity and data bits).
    rows = 1_500_000
    n = pa.array(range(rows), pa.int64())
    ints = pc.if_else(pc.equal(pc.bit_wise_and(n, 7), 0), None, pc.bit_wise_and(n, 0x3FFF))
    unscaled = pc.if_else(pc.equal(pc.bit_wise_and(n, 3), 0), None, n)
    prices = unscaled.cast(pa.decimal128(38, 0)).view(pa.decimal128(38, 2))
    table = pa.table({"i": ints, "p": prices})
    batches = table.to_batches(max_chunksize=100_003)
    columns = [ResultColumn("I", SfType("FIXED", 38, 0)), ResultColumn("P", SfType("FIXED", 12, 2))]
    encoded = encoding.encode_arrow(QueryResult(columns, batches, StatementType.SELECT), "UTC")
    assert len(encoded.chunks) >= 2
    decoded = _decoded(encoded)
    assert [f.type for f in decoded.schema] == [pa.int16(), pa.int32()]
    assert decoded.column("I").to_pylist() == ints.to_pylist()
    assert decoded.column("P").to_pylist() == unscaled.to_pylist()


# What the query registry's result thread does with a chunk handed to it while the statement
# streams, done at once (the thread may come later, once the statement has ended: same bodies).
_ahead = QueryRegistry(workers=1, result_ttl=60)._ahead


@pytest.mark.parametrize("columns", [["n", "t"], ["t"]])
def test_chunks_serialized_while_the_statement_streams_keep_their_bodies(columns: list[str]) -> None:
    # With a FIXED column the chunks' carriers are provisional until the end; text alone is final.
    def result() -> QueryResult:
        batches = [b.select(columns) for b in _result(2_000_000).batches]  # type: ignore[union-attr]
        return QueryResult(columns_of(batches[0].schema, [c.upper() for c in columns]), batches)

    expected = [bytes(c.body) for c in encoding.encode_arrow(result(), "UTC").chunks]
    encoded = encoding.encode_arrow(result(), "UTC", _ahead)
    assert len(encoded.chunks) >= 2
    assert all(c.batches is None and c.ready is not None for c in encoded.chunks)
    assert [bytes(c.body) for c in encoded.chunks] == expected
    assert [c.size for c in encoded.chunks] == [len(b) for b in expected]


def test_a_chunk_serialized_in_carriers_a_later_row_widens_is_serialized_again() -> None:
    values = pa.array([*range(3_000_000), 1 << 40], pa.int64())
    encoded = encoding.encode_arrow(_fixed(values, 38, 0), "UTC", _ahead)
    first, last = encoded.chunks[0], encoded.chunks[-1]
    assert first.ready is None and first.batches is not None  # its int32 body was dropped
    assert last.ready is not None and last.batches is None  # serialized with the large value
    table = _decoded(encoded)
    assert table.schema.field("V").type == pa.int64()
    assert table.column("V").to_pylist() == values.to_pylist()
    first.serialize_ahead()  # once the statement has ended, left to the download
    assert first.ready is None


def test_chunks_of_tiny_decimal_batches_are_sized_exactly() -> None:
    """A UNION's branches give batches of one or two rows among large ones. Narrowed to an integer
    carrier, an unsliced array's buffer must hold exactly its values: the IPC writer writes a
    buffer whole when it is within Arrow's 64-byte padding of that (a 1-row DECIMAL's 16 bytes
    were written as an INT's 4 and padded to 16, not 8: the body outgrew its announced size)."""
    sizes = [20_000, 1, 2, 1, 3, 20_000, 1, 40_000, 2]
    batches, values = [], []
    for i, rows in enumerate(sizes):
        chunk_values = [Decimal(1_000_000 + i * 7 + r) for r in range(rows)]
        values += chunk_values
        batches.append(pa.record_batch({"d": pa.array(chunk_values, pa.decimal128(38, 0))}))
    result = QueryResult(columns_of(batches[0].schema, ["D"]), iter(batches), StatementType.SELECT)
    encoded = encoding.encode_arrow(result, "UTC")
    first = pa.ipc.open_stream(pa.py_buffer(base64.b64decode(encoded.data["rowsetBase64"])))
    seen = first.read_all().column(0).to_pylist()
    assert encoded.chunks
    for chunk in encoded.chunks:
        body = chunk.body
        assert len(body) == chunk.size
        table = pa.ipc.open_stream(pa.py_buffer(bytes(body))).read_all()
        assert table.schema.field("D").type == pa.int32()
        seen += table.column(0).to_pylist()
    assert seen == [int(v) for v in values]

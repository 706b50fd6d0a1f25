"""Finished results' Arrow chunks are serialized ahead of their downloads, and count what they
then hold (their bodies, narrower than the batches) against the result memory budget."""

from __future__ import annotations

import pickle

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


def test_a_chunk_is_serialized_once_by_whichever_comes_first() -> None:
    expected = [bytes(c.body) for c in _encoded().chunks]
    chunks = _encoded().chunks
    registry = QueryRegistry(workers=1, result_ttl=60)
    try:
        # A download is serializing the first chunk: the result thread leaves it to it.
        with chunks[0].lock:
            registry.hold("q1", chunks)
            registry._spiller.submit(lambda: None).result()
            assert chunks[0].batches is not None
            assert all(c.ready is not None for c in chunks[1:])
        # The download's own call serializes it, counted at its body size like the others.
        assert bytes(registry.chunk_body(chunks[0])) == expected[0]
        assert chunks[0].batches is None and chunks[0].ready is not None
        assert registry._held_bytes == sum(c.size for c in chunks)
        # A second download of a serialized chunk sends the same body again.
        assert bytes(registry.chunk_body(chunks[0])) == expected[0]
    finally:
        registry.shutdown()


def test_a_chunk_serialized_after_its_result_left_memory_is_not_counted_again() -> None:
    first, second = _encoded().chunks, _encoded().chunks
    registry = QueryRegistry(workers=1, result_ttl=60)
    registry.max_result_bytes = sum(c.memory for c in first)  # room for one result's batches
    try:
        with first[0].lock:  # keep the result thread off the first chunk of q1
            registry.hold("q1", first)
            registry.hold("q2", second)  # q1 leaves the budget: moved to disk once unlocked
            registry.chunk_body(second[0])
        registry._spiller.submit(lambda: None).result()
        assert all(c.path is not None for c in first)
        assert registry._held_bytes == sum(c.memory for c in second) == sum(c.size for c in second)
    finally:
        registry.shutdown()


def test_a_stored_chunk_is_read_back_without_a_budget_of_its_own() -> None:
    # Shared mode pickles results for other servers, whose budgets never counted them.
    chunk = _encoded().chunks[0]
    registry = QueryRegistry(workers=1, result_ttl=60)
    try:
        registry.hold("q1", [chunk])
        stored = pickle.dumps(chunk)
        assert len(stored) < chunk.size + 4096  # the body, not the buffers its batches slice
        copy = pickle.loads(stored)
        assert (copy.held, copy.counted) == (False, False) and (chunk.held, chunk.counted) == (True, True)
        assert bytes(registry.chunk_body(copy)) == bytes(registry.chunk_body(chunk))
    finally:
        registry.shutdown()

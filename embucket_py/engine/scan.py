"""Running a physical plan with every output partition in parallel, and what its scans read.

DataFusion's own `execute_stream` hides the physical plan, so the bytes and files a query actually
read (after pruning by Iceberg and Parquet statistics) would be lost. Here the plan is kept: each
output partition streams on its own thread (DataFusion releases the GIL while it works), batches
meet in one bounded queue (a UNION's branches: in order), and when the last partition ends the
scan metrics are read off the plan.
Snowflake reports the same figures as partitionsScanned / partitionsTotal / bytesScanned.

Cancellation: each partition is polled through the stream's async interface, so a cancel (abort,
statement timeout) drops the pending poll and DataFusion stops working at once, even inside an
aggregate or sort that has not produced a batch yet.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from collections import deque
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pyarrow as pa
from datafusion import DataFrame, SessionContext
from datafusion.plan import ExecutionPlan
from datafusion.record_batch import RecordBatchStream

from embucket_py.errors import QueryCanceled

# How often a waiting poll looks at the cancel flag; a finished batch wakes it at once.
_CANCEL_CHECK_SECONDS = 0.05
# Partitions stream on long-lived threads that keep their poll loops: a thread and an event loop
# made for each partition cost ~0.6 ms apiece on every multi-partition statement. Sized past the
# partitions that run at once (one waiting for a thread would only start later).
_PARTITIONS = ThreadPoolExecutor(max_workers=256, thread_name_prefix="embucket-partition")


@dataclass
class ScanStats:
    """Data files and bytes of the Iceberg tables a query registered, and how much it read."""

    files_total: int = 0
    bytes_total: int = 0
    files_scanned: int = 0
    bytes_scanned: int = 0

    def add_table(self, files: int, nbytes: int, read_in_full: bool = False) -> None:
        self.files_total += files
        self.bytes_total += nbytes
        if read_in_full:  # loaded into memory before planning: every byte was read
            self.files_scanned += files
            self.bytes_scanned += nbytes

    def add_plan(self, plan: ExecutionPlan) -> None:
        metrics = _scan_metrics(plan)
        self.files_scanned += metrics[0]
        self.bytes_scanned += metrics[1]


def _scan_metrics(plan: ExecutionPlan) -> tuple[int, int]:
    """(files opened, bytes read) by the Parquet scans anywhere in the plan."""
    files = nbytes = 0
    metrics = plan.metrics()
    if metrics is not None:
        files += metrics.sum_by_name("files_opened") or 0
        nbytes += metrics.sum_by_name("bytes_scanned") or 0
    for child in plan.children():
        f, b = _scan_metrics(child)
        files, nbytes = files + f, nbytes + b
    return files, nbytes


_DONE = object()


def execute(
    frame: DataFrame, stats: ScanStats | None = None, cancel: threading.Event | None = None
) -> Iterator[pa.RecordBatch]:
    """Yields the frame's batches (DataFusion's record batches), all partitions in parallel.

    Raises:
        QueryCanceled: `cancel` was set; the engine's work has stopped.
    """
    ctx: SessionContext | None = getattr(frame, "session_context", None)
    if ctx is None:  # a frame built outside plan(): no context to run a physical plan on
        yield from batches(frame.execute_stream(), cancel)
        return
    plan = frame.execution_plan()
    if plan.partition_count <= 1:
        yield from batches(ctx.execute(plan, 0), None if _constant(plan) else cancel)
    elif _union_on_top(plan):
        yield from _in_order(ctx, plan, cancel)
    else:
        yield from _parallel(ctx, plan, cancel)
    if stats is not None:
        stats.add_plan(plan)


def _constant(plan: ExecutionPlan) -> bool:
    """A plan of projections over one placeholder row (SELECT without FROM): nothing in it can
    run long, so its one batch is taken without the cancellable poll (~0.3 ms of thread
    hand-offs, a tenth of SELECT 1's server time)."""
    kind = plan.display().split(":", 1)[0].strip()
    if kind == "PlaceholderRowExec":
        return True
    return kind == "ProjectionExec" and all(_constant(child) for child in plan.children())


def _union_on_top(plan: ExecutionPlan) -> bool:
    """A UNION [ALL] whose branches are the plan's output partitions (under row-wise operators)."""
    node = plan
    while True:
        kind = node.display().split(":", 1)[0].strip()
        if kind == "UnionExec":
            return True
        children = node.children()
        if kind not in ("ProjectionExec", "FilterExec", "CoalesceBatchesExec") or len(children) != 1:
            return False
        node = children[0]


def batches(stream: RecordBatchStream, cancel: threading.Event | None) -> Iterator[object]:
    """One stream's batches. With `cancel`, the wait for the first batch (where aggregates, sorts
    and join builds do their work) is polled asynchronously, so a cancel stops the engine mid-work;
    later batches flow and are taken synchronously (an async poll costs ~0.2 ms a batch, a plain
    one ~0.04 ms), with the cancel checked between them."""
    if cancel is None:
        yield from stream
        return
    first = _thread_loop().run_until_complete(_next(stream, cancel))
    if first is None:
        return
    yield first
    for batch in stream:
        if cancel.is_set():
            raise QueryCanceled("SQL execution canceled")
        yield batch


_local = threading.local()


def _thread_loop() -> asyncio.AbstractEventLoop:
    """This thread's event loop for polls (made once: query and partition threads run many
    statements)."""
    loop = getattr(_local, "loop", None)
    if loop is None:
        loop = _local.loop = asyncio.new_event_loop()
    return loop


async def _next(stream: RecordBatchStream, cancel: threading.Event) -> object | None:
    pending = asyncio.ensure_future(stream.__anext__())
    while True:
        done, _ = await asyncio.wait([pending], timeout=_CANCEL_CHECK_SECONDS)
        if done:
            try:
                return pending.result()
            except StopAsyncIteration:
                return None
        if cancel.is_set():
            pending.cancel()  # drops the engine's future: its work stops
            with contextlib.suppress(BaseException):
                await pending
            raise QueryCanceled("SQL execution canceled")


# Batches the later partitions of `_in_order` may hold, together, while an earlier one is read.
_AHEAD_BATCHES = 64


def _in_order(ctx: SessionContext, plan: ExecutionPlan, cancel: threading.Event | None) -> Iterator[object]:
    """Every partition in parallel, but yielded partition after partition: a UNION ALL's rows come
    branch by branch, in the order written, as Snowflake returns them. Later partitions wait
    once they hold `_AHEAD_BATCHES` batches; the partition being read never waits, and it started
    first (the pool takes work in order), so every statement moves on."""
    count = plan.partition_count
    held: list[deque[object]] = [deque() for _ in range(count)]
    done = [False] * count
    failed: list[BaseException] = []
    turn = {"current": 0, "ahead": 0}
    changed = threading.Condition()
    stop = threading.Event()

    def run(partition: int) -> None:
        try:
            if stop.is_set():
                return
            for batch in batches(ctx.execute(plan, partition), cancel):
                with changed:
                    while (
                        partition > turn["current"] and turn["ahead"] >= _AHEAD_BATCHES and not stop.is_set()
                    ):
                        changed.wait()
                    if stop.is_set():
                        return
                    held[partition].append(batch)
                    turn["ahead"] += partition > turn["current"]
                    changed.notify_all()
        except BaseException as e:  # handed to the consumer, which raises it
            with changed:
                failed.append(e)
        finally:
            with changed:
                done[partition] = True
                changed.notify_all()

    for partition in range(count):
        _PARTITIONS.submit(run, partition)
    try:
        for partition in range(count):
            with changed:
                turn["current"] = partition
                turn["ahead"] -= len(held[partition])
                changed.notify_all()
            while True:
                with changed:
                    while not held[partition] and not done[partition] and not failed:
                        changed.wait()
                    if failed:
                        raise failed[0]
                    if not held[partition]:
                        break
                    batch = held[partition].popleft()
                yield batch
    finally:
        with changed:
            stop.set()
            changed.notify_all()


def _parallel(ctx: SessionContext, plan: ExecutionPlan, cancel: threading.Event | None) -> Iterator[object]:
    out: queue.Queue[object] = queue.Queue(maxsize=4 * plan.partition_count)
    stop = threading.Event()

    def run(partition: int) -> None:
        try:
            if stop.is_set():  # the consumer left before this partition's turn
                return
            for batch in batches(ctx.execute(plan, partition), cancel):
                if stop.is_set():
                    return
                out.put(batch)
        except BaseException as e:  # handed to the consumer, which raises it
            out.put(e)
        finally:
            out.put(_DONE)

    for partition in range(plan.partition_count):
        _PARTITIONS.submit(run, partition)
    running = plan.partition_count
    try:
        while running:
            item = out.get()
            if item is _DONE:
                running -= 1
            elif isinstance(item, BaseException):
                raise item
            else:
                yield item
    finally:
        stop.set()
        while running:  # drain so that producers blocked on a full queue can finish
            if out.get() is _DONE:
                running -= 1

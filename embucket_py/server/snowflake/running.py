"""Statements in flight and finished: query ids, worker threads, status, results, abort.

A statement runs on a worker thread (never on the event loop). Its record is registered before
the client hears its id, so monitoring never answers NO_DATA for a query it accepted.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import tempfile
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from embucket_py.errors import QueryCanceled, SnowflakeError
from embucket_py.server.deadlines import DEADLINES
from embucket_py.server.limits import QueueFull, StatementTimeout, statement_timeout
from embucket_py.server.shared_results import SharedResults
from embucket_py.server.snowflake.encoding import Chunk, EncodedResult
from embucket_py.server.snowflake.uncached_files import UncachedWriter
from embucket_py.sessions.session import Session

log = logging.getLogger(__name__)

# Seconds between a running server's looks at abort requests sent to other servers.
CANCEL_POLL = 0.5
# Seconds between scans for expired records.
EXPIRE_EVERY = 1.0


@dataclass
class QueryRecord:
    id: str
    session_id: int
    sql: str
    request_id: str | None = None
    start: float = field(default_factory=time.time)
    end: float | None = None
    cancel: threading.Event = field(default_factory=threading.Event)
    result: EncodedResult | None = None
    error: SnowflakeError | None = None
    future: Future[None] | None = None
    chunk_token: str = field(default_factory=lambda: uuid.uuid4().hex)
    started: bool = False  # a worker thread took it (until then it is QUEUED)
    timed_out: StatementTimeout | None = None

    @property
    def done(self) -> bool:
        return self.end is not None

    @property
    def status(self) -> str:
        """Snowflake's query status names, as get_query_status reports them."""
        if not self.done:
            if self.cancel.is_set():
                return "ABORTING"
            return "RUNNING" if self.started else "QUEUED"
        if isinstance(self.error, QueryCanceled):
            return "ABORTED"
        return "FAILED_WITH_ERROR" if self.error else "SUCCESS"

    def monitoring(self) -> dict[str, Any]:
        end_ms = int(self.end * 1000) if self.end else 0
        # ABORTING already counts as an error for the connector: give it the cancel error.
        error = self.error or (QueryCanceled("SQL execution canceled") if self.cancel.is_set() else None)
        return {
            "id": self.id,
            "status": self.status,
            "state": self.status,
            "errorCode": error.code_text if error else None,
            "errorMessage": error.message if error else None,
            "sqlText": self.sql,
            "startTime": int(self.start * 1000),
            "endTime": end_ms,
            "totalDuration": max(end_ms - int(self.start * 1000), 0) if end_ms else 0,
            "sessionId": self.session_id,
            "warehouseId": 0,
        }


def _from_shared(fields: dict[str, Any] | None) -> QueryRecord | None:
    """A record another server (or an earlier Lambda invocation) stored, as a local record."""
    if fields is None:
        return None
    # Queueing is per server: a statement another server holds is reported as running.
    return QueryRecord(**fields, started=True)


class QueryRegistry:
    """Runs statements on a thread pool and keeps their records until they expire."""

    def __init__(
        self,
        workers: int,
        result_ttl: int,
        shared: SharedResults | None = None,
        max_queued: int = 0,
        max_result_mb: int = 1024,
        spill_dir: str | None = None,
    ) -> None:
        # At most `workers` statements run at once; the others queue (up to `max_queued`, 0: any).
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="embucket-query")
        self.workers = workers
        self.max_queued = max_queued
        self._waiting = 0
        self.result_ttl = result_ttl
        # Shared mode: records also go to the metastore, for the other servers to answer from.
        self.shared = shared
        self._unshared: list[QueryRecord] = []
        self._records: dict[str, QueryRecord] = {}
        self._by_request: dict[str, str] = {}
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._expired_at = float("-inf")
        # Chunks of finished results held in memory, oldest first; beyond the budget the oldest
        # move to files (downloads and RESULT_SCAN read them from there until they expire).
        self.max_result_bytes = max_result_mb << 20
        # A folder of this process's own (servers may share a data directory).
        self.spill_dir = os.path.join(spill_dir or tempfile.gettempdir(), f"results-{uuid.uuid4().hex[:12]}")
        self._held: OrderedDict[str, list[Chunk]] = OrderedDict()
        self._held_bytes = 0
        self._spilled: dict[str, list[str]] = {}
        self._spiller = ThreadPoolExecutor(max_workers=1, thread_name_prefix="embucket-results")
        self._spill_writer = UncachedWriter()
        if shared is not None:
            # Abort requests for our statements may reach another server: poll the shared store.
            threading.Thread(target=self._watch_cancels, name="embucket-cancels", daemon=True).start()

    def new(self, session_id: int, sql: str, request_id: str | None = None) -> QueryRecord:
        record = QueryRecord(str(uuid.uuid4()), session_id, sql, request_id)
        self._expire()
        with self._lock:
            self._records[record.id] = record
            if request_id:
                self._by_request[request_id] = record.id
            if self.shared is not None:
                self._unshared.append(record)
        if self.shared is not None:
            self.shared.save(record)
        return record

    def get(self, query_id: str) -> QueryRecord | None:
        with self._lock:
            record = self._records.get(query_id)
        if record is None and self.shared is not None:
            return _from_shared(self.shared.load(query_id))
        return record

    def get_own(
        self, query_id: str, session: Session, user_of: Callable[[str], str | None]
    ) -> QueryRecord | None:
        """A statement of the session's user (another user's is as unknown as a missing one)."""
        record = self.get(query_id)
        if record is None or record.session_id == session.id:
            return record
        return record if user_of(query_id) == session.user else None

    def by_request(self, request_id: str) -> QueryRecord | None:
        with self._lock:
            query_id = self._by_request.get(request_id)
        if query_id is None and self.shared is not None:
            return _from_shared(self.shared.by_request(request_id))
        return self.get(query_id) if query_id else None

    def _share_finished(self) -> None:
        """Writes every finished record (children of multi-statement requests too) to the store."""
        if self.shared is None:
            return
        with self._lock:
            done = [r for r in self._unshared if r.done]
            self._unshared = [r for r in self._unshared if not r.done]
        for record in done:
            self.shared.save(record)

    def start(
        self, record: QueryRecord, work: Callable[[QueryRecord], EncodedResult], timeout: int = 0
    ) -> None:
        """Runs `work` on a worker thread; `timeout` (seconds, 0: none) cancels it like an abort.
        When `max_queued` statements already wait for a thread, the record fails with QueueFull."""
        with self._lock:
            full = bool(self.max_queued) and self._waiting >= self.max_queued
            if not full:
                self._waiting += 1
        if full:
            record.error = QueueFull(
                f"Statement rejected: {self.max_queued} statements are already queued on this server."
            )
            record.end = time.time()
            self._share_finished()
            return

        def expire() -> None:
            if not record.done:
                record.timed_out = statement_timeout(timeout)
                record.cancel.set()

        def run() -> None:
            with self._lock:
                self._waiting -= 1
            record.started = True
            timer = DEADLINES.after(timeout, expire) if timeout > 0 else None
            try:
                record.result = work(record)
            except SnowflakeError as e:
                record.error = e
            except Exception as e:  # a bug: log the traceback, tell the client without it
                log.exception("statement failed: %s", record.sql[:200])
                record.error = SnowflakeError(
                    f"Internal error: {type(e).__name__}", code=100001, sqlstate="XX000"
                )
            finally:
                if timer is not None:
                    timer.cancel()
                if record.timed_out is not None:
                    record.error, record.result = record.timed_out, None
                elif record.cancel.is_set() and record.error is None:
                    record.error = QueryCanceled("SQL execution canceled")
                    record.result = None
                record.end = time.time()
                self._share_finished()
                if record.result is not None:
                    self.hold(record.id, record.result.chunks)

        record.future = self.pool.submit(run)

    def hold(self, query_id: str, chunks: list[Chunk]) -> None:
        """Counts a finished result's chunks against the memory budget (oldest to disk beyond it).
        A chunk is counted once (RESULT_SCAN of a kept result answers with the same chunks)."""
        with self._lock:
            chunks = [c for c in chunks if c.path is None and not c.held]
            if not chunks:
                return
            for c in chunks:
                c.held = c.counted = True
            self._held[query_id] = chunks
            self._held_bytes += sum(c.memory for c in chunks)
            over = []
            while self._held_bytes > self.max_result_bytes and self._held:
                old_id, old = self._held.popitem(last=False)
                self._uncount(old)
                over.append((old_id, old))
        self._spiller.submit(self._prepare, chunks)
        for old_id, old in over:  # off the statement's path: its answer does not wait for disk
            self._spiller.submit(self._spill, old_id, old)

    def serialize_ahead(self, chunk: Chunk) -> None:
        """Serializes a chunk of a statement still streaming, on the result thread (on 2 cores the
        engine leaves part of one idle: a 6M-row fetch's download went 0.10 -> 0.05 s, its
        statement 0.19 -> 0.22 s). A settled chunk is serialized for good, by the budget's rules
        (its statement may have ended and its result been held by then)."""
        with contextlib.suppress(RuntimeError):  # shutting down: the download serializes it
            self._spiller.submit(self._ahead, chunk)

    def _ahead(self, chunk: Chunk) -> None:
        if chunk.settled:
            self._serialize(chunk, wait=False)
        else:
            chunk.serialize_ahead()

    def _prepare(self, chunks: list[Chunk]) -> None:
        """Serializes a result's Arrow chunks while the client reads the answer (on the result
        thread, so never while they move to disk), skipping any a download is serializing. Their
        bodies are narrower than their batches: a 6M-row fetch held 240 MB of batches, 108 MB of
        bodies, and spilled 2x sooner."""
        for chunk in chunks:
            self._serialize(chunk, wait=False)

    def chunk_body(self, chunk: Chunk) -> bytes | memoryview:
        """A chunk's body for its download, serialized here unless the result thread is at it
        (then waited for: each chunk is serialized once, on a machine whose cores are busy)."""
        self._serialize(chunk, wait=True)
        return chunk.body

    def _serialize(self, chunk: Chunk, wait: bool) -> None:
        if chunk.batches is None or not chunk.lock.acquire(blocking=wait):
            return
        try:
            if chunk.batches is None:  # done while this thread waited
                return
            body = chunk.body
            with self._lock:
                if chunk.counted:
                    self._held_bytes += len(body) - chunk.memory
                chunk.ready, chunk.batches, chunk.memory = body, None, len(body)
        finally:
            chunk.lock.release()

    def _uncount(self, chunks: list[Chunk]) -> None:
        """Takes chunks out of the memory budget's sum (call with the lock held)."""
        for c in chunks:
            if c.counted:
                self._held_bytes -= c.memory
                c.counted = False

    def _spill(self, query_id: str, chunks: list[Chunk]) -> None:
        paths = []
        try:
            os.makedirs(self.spill_dir, exist_ok=True)
            for i, chunk in enumerate(chunks):
                path = os.path.join(self.spill_dir, f"{query_id}-{i}")
                chunk.spill(path, self._spill_writer.write)
                paths.append(path)
        except OSError:  # a full disk: the result stays in memory rather than being lost
            log.warning("could not move the result of %s to disk", query_id, exc_info=True)
        with self._lock:
            self._spilled[query_id] = paths

    async def wait(self, record: QueryRecord, seconds: float) -> bool:
        """Waits (without blocking the loop) until the record is done or the timeout passes."""
        if record.future is None or record.done:
            # Checked first: a fresh wrap_future of a finished future is not done yet, so a zero
            # timeout would report "still running" forever.
            return record.done
        try:
            await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(record.future)), seconds)
        except TimeoutError:
            return False
        return True

    def abort(self, record: QueryRecord) -> bool:
        if record.done:
            return False
        with self._lock:
            local = self._records.get(record.id) is record
        if local or self.shared is None:
            record.cancel.set()
        else:  # running on another server: it sees the request within CANCEL_POLL seconds
            self.shared.request_cancel(record.id)
        return True

    def _watch_cancels(self) -> None:
        while not self._stopped.wait(CANCEL_POLL):
            with self._lock:
                running = {qid: r for qid, r in self._records.items() if not r.done and not r.cancel.is_set()}
            if not running or self.shared is None:
                continue
            try:
                for query_id in self.shared.canceled(list(running)):
                    running[query_id].cancel.set()
            except Exception:  # the metastore briefly unreachable: try again next round
                log.warning("could not read abort requests", exc_info=True)

    def _expire(self) -> None:
        # At most once a second: the scan covers every record kept for the result lifetime.
        if time.monotonic() - self._expired_at < EXPIRE_EVERY:
            return
        self._expired_at = time.monotonic()
        cutoff = time.time() - self.result_ttl
        if self.shared is not None:
            self.shared.expire(self.result_ttl)
        with self._lock:
            old = [qid for qid, r in self._records.items() if r.end is not None and r.end < cutoff]
            files = []
            for qid in old:
                record = self._records.pop(qid)
                if record.request_id:
                    self._by_request.pop(record.request_id, None)
                self._uncount(self._held.pop(qid, []))
                files += self._spilled.pop(qid, [])
        _remove(files)

    def shutdown(self) -> None:
        self._stopped.set()
        for record in list(self._records.values()):
            record.cancel.set()
        self.pool.shutdown(wait=False, cancel_futures=True)
        self._spiller.shutdown(wait=True, cancel_futures=True)
        with self._lock:
            files = [path for paths in self._spilled.values() for path in paths]
            self._spilled.clear()
        _remove(files)
        with contextlib.suppress(OSError):
            os.rmdir(self.spill_dir)


def _remove(paths: list[str]) -> None:
    for path in paths:
        with contextlib.suppress(OSError):
            os.remove(path)

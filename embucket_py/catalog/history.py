"""Durable query history: one metastore row per statement, and a bounded store of result copies.

Rows back INFORMATION_SCHEMA.QUERY_HISTORY(), QUERY_HISTORY_BY_SESSION() and the statement
times AT | BEFORE(STATEMENT => id) falls back on. Result copies (Arrow IPC streams, one per query
id) are what RESULT_SCAN reads after the server's in-memory result is gone, or after a restart:
small ones are metastore rows written with the batch's history rows (a file per statement cost
more than the statement itself for SELECT 1), larger ones are files.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa
import sqlalchemy as sa

from embucket_py.catalog import storage
from embucket_py.catalog.metastore import Metastore, add_missing_columns

log = logging.getLogger(__name__)

_meta = sa.MetaData()
history_table = sa.Table(
    "embucket_query_history",
    _meta,
    sa.Column("query_id", sa.String(64), primary_key=True),
    sa.Column("query_text", sa.Text, nullable=False),
    sa.Column("session_id", sa.BigInteger, nullable=False, index=True),
    sa.Column("user_name", sa.String(255)),
    sa.Column("role_name", sa.String(255)),
    sa.Column("warehouse_name", sa.String(255)),
    sa.Column("database_name", sa.String(255)),
    sa.Column("schema_name", sa.String(255)),
    sa.Column("query_type", sa.String(64)),
    sa.Column("query_tag", sa.Text),
    sa.Column("execution_status", sa.String(32), nullable=False),
    sa.Column("error_code", sa.String(16)),
    sa.Column("error_message", sa.Text),
    sa.Column("start_ms", sa.BigInteger, nullable=False, index=True),
    sa.Column("end_ms", sa.BigInteger),
    sa.Column("compiled_ms", sa.BigInteger),  # when its plan was made: compilation ends there
    sa.Column("rows_produced", sa.BigInteger),
    sa.Column("bytes_scanned", sa.BigInteger),
    sa.Column("partitions_scanned", sa.BigInteger),
    sa.Column("partitions_total", sa.BigInteger),
    sa.Column("transaction_id", sa.BigInteger),
)

# Result copies up to this size (IPC bytes) are kept in the metastore, the larger ones on disk.
MAX_ROW_COPY_BYTES = 64 << 10
copies_table = sa.Table(
    "embucket_result_copies",
    _meta,
    sa.Column("query_id", sa.String(64), primary_key=True),
    sa.Column("saved_ms", sa.BigInteger, nullable=False, index=True),
    sa.Column("data", sa.LargeBinary, nullable=False),
)

# Result copies kept on disk (and in the metastore, each), newest first; older ones are deleted
# beyond these bounds.
MAX_RESULT_FILES = 1000
MAX_RESULT_BYTES = 1 << 30
# The listing of result copies is read again after this many saves.
RESCAN_EVERY = 200
# The writer gathers writes this long before a transaction (a flush() cuts it short): the
# transaction's cost is shared by the statements of a quarter second (the writer's CPU per
# `SELECT 1` 0.53-0.74 ms at 20 ms, 0.21 ms here). Readers here and shared mode flush first.
GATHER_SECONDS = 0.25
# Query ids the writer remembers having inserted (a re-run under one id comes right after).
RECORDED_IDS = 10_000
# Result copies held in memory while the writer catches up; beyond it statements wait.
MAX_UNWRITTEN_BYTES = 256 << 20


@dataclass(frozen=True)
class QueryStart:
    query_id: str
    text: str
    session_id: int
    user: str
    role: str | None
    warehouse: str | None
    database: str | None
    schema: str | None
    query_tag: str
    start_ms: int
    transaction_id: int | None


class QueryHistory:
    """Statements of every session, kept in the metastore's SQL database.

    Writes leave the statement's path: a writer thread applies them in order, in batches (one
    transaction for whatever queued up meanwhile). Every reader here flushes first, so this
    process always reads its own writes; `flush()` is for readers elsewhere (another server).
    """

    def __init__(self, metastore: Metastore) -> None:
        self.engine = metastore.engine
        _meta.create_all(self.engine)
        add_missing_columns(self.engine, history_table)
        warehouse = metastore.warehouse
        local = storage.local_path(warehouse) if warehouse.startswith("file://") else None
        base = Path(local).parent if local else Path(os.environ.get("TMPDIR", "/tmp")) / "embucket-results"
        self.results_dir = base / "results"
        self._changed = threading.Condition()
        self._queue: list[_Write] = []
        self._submitted = 0  # writes queued since start, and of those, done (written or failed)
        self._done = 0
        self._closing = False
        self._writer: threading.Thread | None = None
        # Results still on their way to disk: RESULT_SCAN reads them from here meanwhile.
        self._unwritten: dict[str, pa.Table] = {}
        self._unwritten_bytes = 0
        self._files: dict[Path, int] | None = None  # copies on disk, oldest first: path -> size
        self._flushing = 0  # readers waiting in flush()
        self._recorded: OrderedDict[str, None] = OrderedDict()  # ids this writer inserted lately
        self._saves = 0
        self._row_saves = 0  # copies inserted since the last trim of the metastore's copies

    def started(self, q: QueryStart) -> None:
        row = {
            "query_id": q.query_id,
            "query_text": q.text,
            "session_id": q.session_id,
            "user_name": q.user,
            "role_name": q.role,
            "warehouse_name": q.warehouse,
            "database_name": q.database,
            "schema_name": q.schema,
            "query_tag": q.query_tag,
            "execution_status": "RUNNING",
            "start_ms": q.start_ms,
            "transaction_id": q.transaction_id,
        }
        self._submit(_Write(q.query_id, start=row))

    def finished(
        self,
        query_id: str,
        *,
        end_ms: int,
        query_type: str | None = None,
        error: tuple[str, str] | None = None,
        rows: int | None = None,
        bytes_scanned: int | None = None,
        partitions_scanned: int | None = None,
        partitions_total: int | None = None,
        compiled_ms: int | None = None,
    ) -> None:
        values: dict[str, object] = {
            "end_ms": end_ms,
            "execution_status": "FAILED_WITH_ERROR" if error else "SUCCESS",
        }
        if query_type is not None:
            values["query_type"] = query_type
        if error is not None:
            values["error_code"], values["error_message"] = error
        if rows is not None:
            values["rows_produced"] = rows
        if bytes_scanned is not None:
            values["bytes_scanned"] = bytes_scanned
        if partitions_scanned is not None:
            values["partitions_scanned"] = partitions_scanned
        if partitions_total is not None:
            values["partitions_total"] = partitions_total
        if compiled_ms is not None:
            values["compiled_ms"] = compiled_ms
        self._submit(_Write(query_id, finish=values))

    def times(self, query_id: str) -> tuple[int, int] | None:
        """(start, end) in epoch ms of a finished statement."""
        self.flush()
        with self.engine.connect() as conn:
            row = conn.execute(
                sa.select(history_table.c.start_ms, history_table.c.end_ms).where(
                    history_table.c.query_id == query_id
                )
            ).first()
        if row is None or row.end_ms is None:
            return None
        return int(row.start_ms), int(row.end_ms)

    def user_of(self, query_id: str) -> str | None:
        """Who ran a statement (None when it is unknown)."""
        self.flush()
        with self.engine.connect() as conn:
            row = conn.execute(
                sa.select(history_table.c.user_name).where(history_table.c.query_id == query_id)
            ).first()
        return None if row is None else row.user_name

    def rows(
        self, *, session_id: int | None = None, user: str | None = None, limit: int = 100
    ) -> list[dict[str, object]]:
        """The most recent statements first (of one session or user, or of all)."""
        self.flush()
        query = sa.select(history_table).order_by(history_table.c.start_ms.desc()).limit(limit)
        if session_id is not None:
            query = query.where(history_table.c.session_id == session_id)
        if user is not None:
            query = query.where(history_table.c.user_name == user)
        with self.engine.connect() as conn:
            return [dict(r._mapping) for r in conn.execute(query)]

    # --- the writer -------------------------------------------------------------------------------

    def _submit(self, write: _Write) -> None:
        with self._changed:
            if self._closing:  # after close (interpreter exit): write in the caller's thread
                self._apply([write])
                return
            if write.result is not None:
                # Results waiting for the disk are bounded: beyond that the statement waits.
                self._changed.wait_for(lambda: self._unwritten_bytes <= MAX_UNWRITTEN_BYTES)
                self._unwritten[write.query_id] = write.result
                self._unwritten_bytes += write.result.nbytes
            self._queue.append(write)
            self._submitted += 1
            if self._writer is None:
                self._writer = threading.Thread(target=self._run, name="embucket-history", daemon=True)
                self._writer.start()
                atexit.register(self.close)
            if len(self._queue) == 1:
                # Only an idle writer waits for this; one gathering wakes for a flush or close
                # (a wake-up per write took the GIL from the statements, 2-3 per statement).
                self._changed.notify_all()

    def flush(self) -> None:
        """Returns once everything recorded so far is in the metastore (or failed to get there)."""
        with self._changed:
            target = self._submitted
            if self._done >= target:
                return
            self._flushing += 1  # the writer stops gathering and writes now
            self._changed.notify_all()
            try:
                self._changed.wait_for(lambda: self._done >= target)
            finally:
                self._flushing -= 1

    def close(self) -> None:
        """Writes what is queued and stops the writer (at shutdown)."""
        with self._changed:
            self._closing = True
            self._changed.notify_all()
            writer = self._writer
        if writer is not None and writer is not threading.current_thread():
            writer.join()

    def _run(self) -> None:
        while True:
            with self._changed:
                self._changed.wait_for(lambda: bool(self._queue) or self._closing)
                # Gather what follows for a moment: one transaction then carries several statements.
                self._changed.wait_for(lambda: self._closing or self._flushing > 0, timeout=GATHER_SECONDS)
                batch, self._queue = self._queue, []
                if not batch:
                    return
            try:
                self._apply(batch)
            except Exception:  # a lost history row must not stop the writer
                log.exception("could not write %d query history records", len(batch))
            with self._changed:
                for write in batch:
                    if write.result is not None and self._unwritten.get(write.query_id) is write.result:
                        del self._unwritten[write.query_id]
                        self._unwritten_bytes -= write.result.nbytes
                self._done += len(batch)
                self._changed.notify_all()

    def _apply(self, batch: list[_Write]) -> None:
        """One transaction for the rows of a batch, then its result copies."""
        starts: dict[str, dict[str, object]] = {}
        finishes: dict[str, dict[str, object]] = {}  # of statements whose start is in this batch
        updates: list[tuple[str, dict[str, object]]] = []
        for write in batch:
            if write.start is not None:
                # A query id is recorded once; a re-run under the same id (array binds) keeps the first.
                starts.setdefault(write.query_id, write.start)
            if write.finish is not None:
                if write.query_id in starts:
                    finishes[write.query_id] = {**finishes.get(write.query_id, {}), **write.finish}
                else:
                    updates.append((write.query_id, write.finish))
        if starts or updates:
            try:
                self._write_rows(starts, finishes, updates, trust_new_ids=True)
            except sa.exc.IntegrityError:  # an id recorded long ago started again: ask the table
                self._write_rows(starts, finishes, updates, trust_new_ids=False)
        rows: list[dict[str, object]] = []
        for write in batch:
            if write.result is None:
                continue
            try:
                data = _ipc(write.result)
                if len(data) <= MAX_ROW_COPY_BYTES:
                    now = int(time.time() * 1000)
                    rows.append({"query_id": write.query_id, "saved_ms": now, "data": data})
                else:
                    self._write_result(write.query_id, data)
            except (OSError, pa.ArrowException) as e:  # a missing copy only limits RESULT_SCAN later
                log.warning("could not keep the result of %s: %s", write.query_id, e)
        if rows:
            self._write_result_rows(rows)

    def _write_rows(
        self,
        starts: dict[str, dict[str, object]],
        finishes: dict[str, dict[str, object]],
        updates: list[tuple[str, dict[str, object]]],
        *,
        trust_new_ids: bool,
    ) -> None:
        """Inserts the started statements, then updates the finished ones, in one transaction.
        Query ids are fresh UUIDs: one this writer has not recorded lately is new (no lookup)."""
        with self.engine.begin() as conn:
            if trust_new_ids:
                known = {i for i in starts if i in self._recorded}
            else:
                known = _existing(conn, list(starts))
            new = [
                {**_EMPTY_ROW, **row, **finishes.get(i, {})} for i, row in starts.items() if i not in known
            ]
            if new:
                conn.execute(history_table.insert(), new)
            updates = [(i, v) for i, v in finishes.items() if i in known] + updates
            for query_id, values in updates:
                conn.execute(
                    history_table.update().where(history_table.c.query_id == query_id).values(**values)
                )
        for query_id in starts:
            self._recorded[query_id] = None
            self._recorded.move_to_end(query_id)
        while len(self._recorded) > RECORDED_IDS:
            self._recorded.popitem(last=False)

    # --- result copies ----------------------------------------------------------------------------

    def result_path(self, query_id: str) -> Path:
        return self.results_dir / f"{query_id}.arrows"

    def save_result(self, query_id: str, table: pa.Table) -> None:
        """Keeps a copy of a statement's result: readable at once, on disk shortly after."""
        self._submit(_Write(query_id, result=table))

    def load_result(self, query_id: str) -> pa.Table | None:
        with self._changed:
            unwritten = self._unwritten.get(query_id)
        if unwritten is not None:
            return unwritten
        with self.engine.connect() as conn:
            query = sa.select(copies_table.c.data).where(copies_table.c.query_id == query_id)
            data = conn.execute(query).scalar_one_or_none()
        if data is not None:
            return pa.ipc.open_stream(pa.py_buffer(data)).read_all()
        path = self.result_path(query_id)
        if not path.exists():
            return None
        with pa.OSFile(str(path), "rb") as source:
            return pa.ipc.open_stream(source).read_all()

    def _write_result_rows(self, rows: list[dict[str, object]]) -> None:
        """Inserts small copies in one transaction; now and then drops those beyond the count."""
        with self.engine.begin() as conn:
            conn.execute(copies_table.insert(), rows)
            self._row_saves += len(rows)
            if self._row_saves >= RESCAN_EVERY:
                self._row_saves = 0
                newest = (
                    sa.select(copies_table.c.saved_ms)
                    .order_by(copies_table.c.saved_ms.desc())
                    .limit(1)
                    .offset(MAX_RESULT_FILES)
                    .scalar_subquery()
                )
                conn.execute(copies_table.delete().where(copies_table.c.saved_ms <= newest))

    def _write_result(self, query_id: str, data: pa.Buffer) -> None:
        """Writes one copy file atomically, then trims old copies."""
        self.results_dir.mkdir(parents=True, exist_ok=True)
        path = self.result_path(query_id)
        partial = path.with_suffix(".partial")
        with pa.OSFile(str(partial), "wb") as sink:
            sink.write(data)
        partial.replace(path)
        files = self._known_files()
        files.pop(path, None)
        files[path] = path.stat().st_size
        self._trim(files)

    def _known_files(self) -> dict[Path, int]:
        """The copies on disk, listed once and then kept up to date (and listed again now and
        then: other servers sharing the directory add theirs)."""
        self._saves += 1
        if self._files is None or self._saves % RESCAN_EVERY == 0:
            found = []
            for path in self.results_dir.glob("*.arrows"):
                try:
                    stat = path.stat()
                except FileNotFoundError:  # trimmed by another server meanwhile
                    continue
                found.append((stat.st_mtime, path, stat.st_size))
            self._files = {path: size for _, path, size in sorted(found)}
        return self._files

    @staticmethod
    def _trim(files: dict[Path, int]) -> None:
        """Deletes the oldest copies beyond the count and size bounds."""
        total = sum(files.values())
        while files and (len(files) > MAX_RESULT_FILES or total > MAX_RESULT_BYTES):
            oldest = next(iter(files))
            total -= files.pop(oldest)
            oldest.unlink(missing_ok=True)


@dataclass(frozen=True)
class _Write:
    """One queued change: a statement's start row, its end values, or its result copy."""

    query_id: str
    start: dict[str, object] | None = None
    finish: dict[str, object] | None = None
    result: pa.Table | None = None


_EMPTY_ROW: dict[str, object] = {c.name: None for c in history_table.columns}


def _ipc(table: pa.Table) -> pa.Buffer:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue()


def _existing(conn: sa.Connection, query_ids: list[str]) -> set[str]:
    found: set[str] = set()
    for i in range(0, len(query_ids), 500):  # SQLite's bound-parameter limit
        part = query_ids[i : i + 500]
        rows = conn.execute(sa.select(history_table.c.query_id).where(history_table.c.query_id.in_(part)))
        found.update(r.query_id for r in rows)
    return found


def millis_to_datetime(ms: int | None) -> datetime | None:
    return datetime.fromtimestamp(ms / 1000, UTC) if ms is not None else None


_HISTORIES: dict[int, QueryHistory] = {}


def history_of(metastore: Metastore) -> QueryHistory:
    """The one QueryHistory of a metastore (its table is created on first use)."""
    found = _HISTORIES.get(id(metastore))
    if found is None:
        found = _HISTORIES[id(metastore)] = QueryHistory(metastore)
    return found

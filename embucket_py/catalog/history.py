"""Durable query history: one metastore row per statement, and a bounded store of result copies.

Rows back INFORMATION_SCHEMA.QUERY_HISTORY(), QUERY_HISTORY_BY_SESSION() and the statement
times AT | BEFORE(STATEMENT => id) falls back on. Result copies are Arrow IPC files (one per
query id) that RESULT_SCAN reads after the server's in-memory result is gone, or after a restart.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa
import sqlalchemy as sa

from embucket_py.catalog import storage
from embucket_py.catalog.metastore import Metastore

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
    sa.Column("rows_produced", sa.BigInteger),
    sa.Column("bytes_scanned", sa.BigInteger),
    sa.Column("partitions_scanned", sa.BigInteger),
    sa.Column("partitions_total", sa.BigInteger),
    sa.Column("transaction_id", sa.BigInteger),
)

# Result copies kept on disk, newest first; older ones are deleted beyond these bounds.
MAX_RESULT_FILES = 1000
MAX_RESULT_BYTES = 1 << 30


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
    """Statements of every session, kept in the metastore's SQL database."""

    def __init__(self, metastore: Metastore) -> None:
        self.engine = metastore.engine
        _meta.create_all(self.engine)
        _add_missing_columns(self.engine)
        warehouse = metastore.warehouse
        local = storage.local_path(warehouse) if warehouse.startswith("file://") else None
        base = Path(local).parent if local else Path(os.environ.get("TMPDIR", "/tmp")) / "embucket-results"
        self.results_dir = base / "results"

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
        with self.engine.begin() as conn:
            # A query id is recorded once; a re-run under the same id (array binds) keeps the first.
            exists = conn.execute(
                sa.select(history_table.c.query_id).where(history_table.c.query_id == q.query_id)
            ).first()
            if exists is None:
                conn.execute(history_table.insert().values(**row))

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
        with self.engine.begin() as conn:
            conn.execute(history_table.update().where(history_table.c.query_id == query_id).values(**values))

    def times(self, query_id: str) -> tuple[int, int] | None:
        """(start, end) in epoch ms of a finished statement."""
        with self.engine.connect() as conn:
            row = conn.execute(
                sa.select(history_table.c.start_ms, history_table.c.end_ms).where(
                    history_table.c.query_id == query_id
                )
            ).first()
        if row is None or row.end_ms is None:
            return None
        return int(row.start_ms), int(row.end_ms)

    def rows(self, *, session_id: int | None = None, limit: int = 100) -> list[dict[str, object]]:
        """The most recent statements first (of one session, or of all)."""
        query = sa.select(history_table).order_by(history_table.c.start_ms.desc()).limit(limit)
        if session_id is not None:
            query = query.where(history_table.c.session_id == session_id)
        with self.engine.connect() as conn:
            return [dict(r._mapping) for r in conn.execute(query)]

    # --- result copies ----------------------------------------------------------------------------

    def result_path(self, query_id: str) -> Path:
        return self.results_dir / f"{query_id}.arrows"

    def save_result(self, query_id: str, table: pa.Table) -> None:
        """Keeps a copy of a statement's result (written atomically), then trims old copies."""
        self.results_dir.mkdir(parents=True, exist_ok=True)
        path = self.result_path(query_id)
        partial = path.with_suffix(".partial")
        with pa.OSFile(str(partial), "wb") as sink, pa.ipc.new_stream(sink, table.schema) as writer:
            writer.write_table(table)
        partial.replace(path)
        self._trim()

    def load_result(self, query_id: str) -> pa.Table | None:
        path = self.result_path(query_id)
        if not path.exists():
            return None
        with pa.OSFile(str(path), "rb") as source:
            return pa.ipc.open_stream(source).read_all()

    def _trim(self) -> None:
        files = sorted(self.results_dir.glob("*.arrows"), key=lambda p: p.stat().st_mtime, reverse=True)
        total = 0
        for i, path in enumerate(files):
            total += path.stat().st_size
            if i >= MAX_RESULT_FILES or total > MAX_RESULT_BYTES:
                path.unlink(missing_ok=True)


def _add_missing_columns(engine: sa.Engine) -> None:
    """A metastore made by an older version lacks the newer (nullable) history columns."""
    present = {c["name"] for c in sa.inspect(engine).get_columns(history_table.name)}
    with engine.begin() as conn:
        for column in history_table.columns:
            if column.name not in present:
                kind = column.type.compile(dialect=engine.dialect)
                conn.execute(sa.text(f"ALTER TABLE {history_table.name} ADD COLUMN {column.name} {kind}"))


def millis_to_datetime(ms: int | None) -> datetime | None:
    return datetime.fromtimestamp(ms / 1000, UTC) if ms is not None else None


_HISTORIES: dict[int, QueryHistory] = {}


def history_of(metastore: Metastore) -> QueryHistory:
    """The one QueryHistory of a metastore (its table is created on first use)."""
    found = _HISTORIES.get(id(metastore))
    if found is None:
        found = _HISTORIES[id(metastore)] = QueryHistory(metastore)
    return found

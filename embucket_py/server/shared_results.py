"""Query records and results in the metastore, for servers that share one (shared mode).

With a shared secret configured, every statement's record is written when it starts and again,
with its encoded result (or error), when it ends. Another server behind the same load balancer,
or a later Lambda invocation, then answers result polls, RESULT_SCAN and chunk downloads for it.
The owning server keeps its in-memory records as the fast path. Rows are sealed (HMAC) under the
shared secret, like persisted sessions, and deleted once older than the result lifetime.
"""

from __future__ import annotations

import time
from typing import Any

import sqlalchemy as sa

from embucket_py.sessions.persisted import seal, unseal

_meta = sa.MetaData()
results_table = sa.Table(
    "embucket_query_results",
    _meta,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("request_id", sa.String(128), index=True),
    sa.Column("session_id", sa.BigInteger, nullable=False),
    sa.Column("started", sa.Float, nullable=False),
    sa.Column("ended", sa.Float, index=True),
    # The record's fields (sql, chunk token, result, error), sealed.
    sa.Column("record", sa.LargeBinary, nullable=False),
)

# Abort requests that reached a server not running the query; the running server polls them.
cancels_table = sa.Table(
    "embucket_query_cancels",
    _meta,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("requested", sa.Float, nullable=False, index=True),
)

# Fields of a QueryRecord that travel between servers (the rest is per-process machinery).
_FIELDS = ("id", "session_id", "sql", "request_id", "start", "end", "result", "error", "chunk_token")


class SharedResults:
    """The query-result table of one metastore."""

    def __init__(self, engine: sa.Engine, secret: str) -> None:
        self.engine = engine
        self.secret = secret
        self._expired_at = float("-inf")
        _meta.create_all(engine)

    def save(self, record: Any) -> None:
        """Inserts or replaces a record (running or finished)."""
        values = {
            "request_id": record.request_id,
            "session_id": record.session_id,
            "started": record.start,
            "ended": record.end,
            "record": seal(self.secret, {name: getattr(record, name) for name in _FIELDS}),
        }
        t = results_table
        with self.engine.begin() as conn:
            updated = conn.execute(t.update().where(t.c.id == record.id).values(**values)).rowcount
            if not updated:
                conn.execute(t.insert().values(id=record.id, **values))

    def load(self, query_id: str) -> dict[str, Any] | None:
        """The stored fields of a record, or None."""
        with self.engine.connect() as conn:
            query = sa.select(results_table.c.record).where(results_table.c.id == query_id)
            row = conn.execute(query).first()
        return unseal(self.secret, row[0]) if row is not None else None

    def by_request(self, request_id: str) -> dict[str, Any] | None:
        t = results_table
        with self.engine.connect() as conn:
            query = sa.select(t.c.record).where(t.c.request_id == request_id).order_by(t.c.started.desc())
            row = conn.execute(query).first()
        return unseal(self.secret, row[0]) if row is not None else None

    def request_cancel(self, query_id: str) -> None:
        """Asks whichever server runs the query to cancel it (idempotent)."""
        t = cancels_table
        with self.engine.begin() as conn:
            if conn.execute(sa.select(t.c.id).where(t.c.id == query_id)).first() is None:
                conn.execute(t.insert().values(id=query_id, requested=time.time()))

    def canceled(self, query_ids: list[str]) -> set[str]:
        """Which of these queries some server was asked to cancel."""
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(cancels_table.c.id).where(cancels_table.c.id.in_(query_ids)))
            return {r[0] for r in rows}

    def expire(self, ttl: float) -> None:
        """Deletes results past their lifetime (at most once a minute per server)."""
        if time.monotonic() - self._expired_at < 60:
            return
        self._expired_at = time.monotonic()
        t = results_table
        with self.engine.begin() as conn:
            conn.execute(t.delete().where(t.c.ended.is_not(None), t.c.ended < time.time() - ttl))
            conn.execute(cancels_table.delete().where(cancels_table.c.requested < time.time() - ttl))

"""Transactions and TEMPORARY tables: a session's own view of the tables.

https://docs.snowflake.com/en/sql-reference/transactions
Inside an open transaction (BEGIN, or the first DML under AUTOCOMMIT = FALSE) every write is
staged (catalog/transactions.py): the session reads its own changes, other sessions read the
committed versions, and COMMIT applies all tables at once. Reads are READ COMMITTED as in
Snowflake: a table the transaction has not written is read at its latest committed version.

TEMPORARY tables are ordinary Iceberg tables under a hidden name in the same schema; only the
session that made them maps their Snowflake name to the hidden one, and their name shadows a
permanent table of the same name in that session.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from pyiceberg.table import Table, Transaction

from embucket_py.catalog.tables import TEMPORARY_PREFIX, Column, TableName, Tables
from embucket_py.catalog.transactions import TableCommit, commit_all, load_at, stage
from embucket_py.catalog.views import View, Views
from embucket_py.engine.result import OK, QueryResult, StatementType, constant, status
from embucket_py.sessions.session import OpenTransaction, PendingTable, Session
from embucket_py.sql.context import is_on
from embucket_py.stages.registry import StageRegistry
from embucket_py.types import SfType

log = logging.getLogger(__name__)


def key(ref: TableName) -> str:
    return json.dumps([ref.database, ref.schema, ref.name])


def autocommit(session: Session) -> bool:
    return is_on(session.parameter("AUTOCOMMIT", True))


def _new_transaction(session: Session, name: str | None, *, implicit: bool) -> OpenTransaction:
    # Snowflake transaction ids are signed 64-bit integers; microseconds since the epoch fit.
    session.transaction = OpenTransaction(time.time_ns() // 1000, name, int(time.time() * 1000), implicit)
    return session.transaction


class SessionViews(Views):
    """The views as one session sees them: TEMPORARY views under hidden names, shadowing."""

    def __init__(self, base: Views, session: Session) -> None:
        self.__dict__.update(base.__dict__)
        self.session = session

    def _stored(self, database: str, schema: str, name: str) -> str:
        return self.session.temporary_views.get(key(TableName(database, schema, name)), name)

    def make_temporary(self, database: str, schema: str, name: str) -> None:
        hidden = f"{TEMPORARY_PREFIX}{self.session.id}_{name}"
        self.session.temporary_views[key(TableName(database, schema, name))] = hidden

    def get(self, database: str, schema: str, name: str) -> View | None:
        return super().get(database, schema, self._stored(database, schema, name))

    def names(self, database: str, schema: str) -> list[str]:
        own = [
            n for db, sc, n in map(json.loads, self.session.temporary_views) if (db, sc) == (database, schema)
        ]
        found = [n for n in super().names(database, schema) if not n.startswith(TEMPORARY_PREFIX)]
        return sorted({*found, *own})

    def create(self, database: str, schema: str, name: str, *args: object, **kwargs: object) -> bool:
        return super().create(database, schema, self._stored(database, schema, name), *args, **kwargs)  # type: ignore[arg-type]

    def drop(self, database: str, schema: str, name: str, *, if_exists: bool = False) -> bool:
        dropped = super().drop(database, schema, self._stored(database, schema, name), if_exists=if_exists)
        self.session.temporary_views.pop(key(TableName(database, schema, name)), None)
        return dropped


class SessionTables(Tables):
    """The tables as one session sees them: its staged writes and its TEMPORARY tables."""

    def __init__(self, base: Tables, session: Session) -> None:
        self.__dict__.update(base.__dict__)
        self.session = session
        self.views = SessionViews(base.views, session)

    # --- names ------------------------------------------------------------------------------------

    def resolve(self, ref: TableName) -> TableName:
        """The stored table a name refers to in this session (a TEMPORARY one shadows)."""
        hidden = self.session.temporary.get(key(ref))
        return TableName(ref.database, ref.schema, hidden) if hidden else ref

    def is_temporary(self, ref: TableName) -> bool:
        return key(ref) in self.session.temporary

    def make_temporary(self, ref: TableName) -> None:
        """From now on `ref` names a new TEMPORARY table of this session."""
        self.session.temporary[key(ref)] = f"{TEMPORARY_PREFIX}{self.session.id}_{ref.name}"

    def temporary_names(self, database: str, schema: str) -> list[str]:
        return [
            name
            for db, sc, name in (json.loads(k) for k in self.session.temporary)
            if (db, sc) == (database, schema)
        ]

    def names(self, database: str, schema: str) -> list[str]:
        return sorted({*super().names(database, schema), *self.temporary_names(database, schema)})

    def kind(self, ref: TableName, table: Table) -> str:
        return "TEMPORARY" if self.is_temporary(ref) else super().kind(ref, table)

    # --- reads ------------------------------------------------------------------------------------

    def load(self, ref: TableName) -> Table:
        stored = self.resolve(ref)
        transaction = self.session.transaction
        pending = transaction.tables.get(key(stored)) if transaction else None
        if pending is None:
            return super().load(stored)
        cat = self.metastore.catalog(pending.database)
        return load_at(cat, (pending.namespace, pending.table), pending.staged_location)

    def exists(self, ref: TableName) -> bool:
        return super().exists(self.resolve(ref))

    # --- DDL on possibly temporary names ----------------------------------------------------------

    def create(self, ref: TableName, columns: list[Column], **kwargs: object) -> bool:
        return super().create(self.resolve(ref), columns, **kwargs)  # type: ignore[arg-type]

    def drop(self, ref: TableName, *, if_exists: bool = False) -> bool:
        stored = self.resolve(ref)
        dropped = super().drop(stored, if_exists=if_exists)
        if stored != ref:
            self.session.temporary.pop(key(ref), None)
        return dropped

    def rename(self, ref: TableName, to: TableName) -> None:
        if not self.is_temporary(ref):
            super().rename(ref, to)
            return
        hidden = self.resolve(ref)
        self.session.temporary.pop(key(ref))
        self.make_temporary(to)
        try:
            super().rename(hidden, self.resolve(to))
        except Exception:
            self.session.temporary.pop(key(to), None)
            self.session.temporary[key(ref)] = hidden.name
            raise

    def evolve(self, ref: TableName, change: object) -> None:
        super().evolve(self.resolve(ref), change)  # type: ignore[arg-type]

    def swap(self, ref: TableName, other: TableName) -> None:
        super().swap(self.resolve(ref), self.resolve(other))

    def clone(self, ref: TableName, source: Table, snapshot_id: int | None, **kwargs: bool) -> bool:
        return super().clone(self.resolve(ref), source, snapshot_id, **kwargs)

    # --- writes -----------------------------------------------------------------------------------

    def finish(self, ref: TableName, table: Table, tx: Transaction, *, appends_only: bool) -> None:
        transaction = self.session.transaction
        if transaction is None and autocommit(self.session):
            super().finish(ref, table, tx, appends_only=appends_only)
            return
        if transaction is None:
            transaction = _new_transaction(self.session, None, implicit=True)
        stored = self.resolve(ref)
        staged = stage(table, tx)
        pending = transaction.tables.get(key(stored))
        if pending is None:
            namespace, name = table.name()[-2], table.name()[-1]
            assert table.metadata_location is not None
            pending = PendingTable(stored.database, namespace, name, table.metadata_location, "")
            transaction.tables[key(stored)] = pending
        pending.staged_location = staged.metadata_location
        pending.appends_only = pending.appends_only and appends_only


# --- statements -----------------------------------------------------------------------------------


def begin(session: Session, name: str | None) -> QueryResult:
    """BEGIN [TRANSACTION] [NAME n] / START TRANSACTION. A BEGIN inside an open transaction
    is ignored, as in Snowflake."""
    if session.transaction is None:
        _new_transaction(session, name, implicit=False)
    return status(OK, StatementType.BEGIN)


def commit_open(tables: Tables, session: Session) -> None:
    """Commits the session's open transaction, if any. It ends either way: a failed commit
    applies nothing and discards the changes.

    Raises:
        TransactionConflict: another transaction changed a table first.
    """
    transaction, session.transaction = session.transaction, None
    if transaction is None:
        return
    if transaction.tables:
        commit_all(
            tables.metastore,
            [
                TableCommit(
                    p.database, (p.namespace, p.table), p.base_location, p.staged_location, p.appends_only
                )
                for p in transaction.tables.values()
            ],
        )
    _advance_streams(tables, getattr(transaction, "streams", {}))  # an older server's session has none
    if loads := pending_loads(transaction):
        registry = StageRegistry(tables.metastore)
        for table_key, table_uuid, records in loads:
            registry.record_loads(table_key, table_uuid, records)


def pending_loads(transaction: OpenTransaction) -> list[tuple[str, str, list[Any]]]:
    """COPY's load records for the rows a transaction staged, written when it commits."""
    if not hasattr(transaction, "loads"):  # a session kept by an older server
        transaction.loads = []
    return transaction.loads


def consume_streams(tables: Tables, session: Session, reads: dict[tuple[str, str, str], int | None]) -> None:
    """The streams a DML statement read move to the versions it read up to: now under AUTOCOMMIT
    outside a transaction, else when the transaction commits (a rollback leaves them)."""
    if not reads:
        return
    if session.transaction is None and autocommit(session):
        _advance_streams(tables, reads)
        return
    transaction = session.transaction or _new_transaction(session, None, implicit=True)
    transaction.streams.update(reads)


def _advance_streams(tables: Tables, reads: dict[tuple[str, str, str], int | None]) -> None:
    for (database, schema, name), offset in reads.items():
        tables.streams.advance(database, schema, name, offset)


def atomically(tables: Tables, session: Session, run: Callable[[], QueryResult]) -> QueryResult:
    """Runs a statement that writes several tables (INSERT ALL | FIRST) as one commit: inside an
    open transaction it simply joins it; otherwise all its writes commit together or not at all."""
    if session.transaction is not None:
        return run()
    _new_transaction(session, None, implicit=True)
    try:
        result = run()
    except BaseException:
        session.transaction = None
        raise
    commit_open(tables, session)
    return result


def commit(tables: Tables, session: Session) -> QueryResult:
    commit_open(tables, session)
    return status(OK, StatementType.COMMIT)


def rollback(session: Session) -> QueryResult:
    # The staged files are never referenced by a committed version; nothing else to undo.
    session.transaction = None
    return status(OK, StatementType.ROLLBACK)


def end_session(tables: Tables, session: Session) -> None:
    """Session end: an open transaction is rolled back and TEMPORARY tables are dropped."""
    session.transaction = None
    view = SessionTables(tables, session)
    for k in list(session.temporary):
        database, schema, name = json.loads(k)
        try:
            view.drop(TableName(database, schema, name), if_exists=True)
        except Exception:  # a schema dropped meanwhile: nothing left to drop
            log.info("temporary table %s.%s.%s already gone", database, schema, name)
    for k in list(session.temporary_views):
        database, schema, name = json.loads(k)
        view.views.drop(database, schema, name, if_exists=True)
    session.temporary.clear()


_TRANSACTION_COLUMNS = [
    ("id", SfType("FIXED", 19, 0)),
    ("user", SfType("TEXT", length=16777216)),
    ("session", SfType("FIXED", 19, 0)),
    ("name", SfType("TEXT", length=16777216)),
    ("started_on", SfType("TIMESTAMP_LTZ", scale=3)),
    ("state", SfType("TEXT", length=16777216)),
    ("scope", SfType("FIXED", 1, 0)),
]


def show_transactions(session: Session) -> QueryResult:
    """SHOW TRANSACTIONS: this session's open transaction.
    https://docs.snowflake.com/en/sql-reference/sql/show-transactions"""
    rows = []
    if (t := session.transaction) is not None:
        started = datetime.fromtimestamp(t.started_ms / 1000, UTC)
        rows.append((t.id, session.user, session.id, t.name or str(t.id), started, "running", 0))
    return constant(_TRANSACTION_COLUMNS, rows, StatementType.SHOW)

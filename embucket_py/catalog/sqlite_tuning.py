"""SQLite metastores run in WAL mode with synchronous=NORMAL.

In WAL mode readers never wait for a writer (statements keep reading table pointers while a
commit or the history writer is busy) and a commit appends to the log instead of rewriting the
database under a rollback journal; with synchronous=NORMAL a commit needs no fsync (the log is
synced at checkpoints), so a power loss may lose the last commits but never corrupts the file.
https://www.sqlite.org/wal.html, https://www.sqlite.org/pragma.html#pragma_synchronous

Every SQLAlchemy engine of the process gets this on connect: the metastore's own and those
pyiceberg's SqlCatalogs make over the same file.
"""

from __future__ import annotations

import sqlite3
import threading
from typing import Any

import sqlalchemy as sa

_installed = False
_lock = threading.Lock()


def _on_connect(dbapi_connection: Any, _record: Any) -> None:
    if not isinstance(dbapi_connection, sqlite3.Connection):
        return
    cursor = dbapi_connection.cursor()
    try:
        # An in-memory database answers "memory" and stays so; files switch once and keep it.
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
    finally:
        cursor.close()


def install() -> None:
    """Applies the settings to every SQLite connection opened from now on (idempotent)."""
    global _installed
    with _lock:
        if not _installed:
            sa.event.listen(sa.engine.Engine, "connect", _on_connect)
            _installed = True

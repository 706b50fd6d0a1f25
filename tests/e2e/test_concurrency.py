"""Concurrent writers from several sessions: no committed row is ever lost."""

from __future__ import annotations

import threading
from typing import Any

from snowflake.connector.errors import ProgrammingError


def test_concurrent_inserts_from_several_sessions(server: Any, database: str, cur: Any) -> None:
    cur.execute("CREATE TABLE counts (worker INT, n INT)")
    inserted: list[int] = []
    failures: list[str] = []
    lock = threading.Lock()

    def work(worker: int) -> None:
        connection = server.connect(database=database, schema="PUBLIC")
        try:
            c = connection.cursor()
            for batch in range(5):
                rows = ", ".join(f"({worker}, {batch * 10 + i})" for i in range(worker + 1))
                try:
                    c.execute(f"INSERT INTO counts VALUES {rows}")
                    with lock:
                        inserted.append(c.rowcount)
                except ProgrammingError as e:
                    with lock:
                        failures.append(str(e))
        finally:
            connection.close()

    threads = [threading.Thread(target=work, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(inserted) + len(failures) == 20
    assert inserted  # most inserts get through: appends are retried on conflicts
    assert cur.execute("SELECT COUNT(*) FROM counts").fetchone()[0] == sum(inserted)


def test_concurrent_transactions_appending_to_one_table(server: Any, database: str, cur: Any) -> None:
    cur.execute("CREATE TABLE log (worker INT)")
    committed: list[int] = []
    lock = threading.Lock()

    def work(worker: int) -> None:
        connection = server.connect(database=database, schema="PUBLIC")
        try:
            c = connection.cursor()
            c.execute("BEGIN")
            c.execute(f"INSERT INTO log VALUES ({worker}), ({worker})")
            try:
                c.execute("COMMIT")
                with lock:
                    committed.append(2)
            except ProgrammingError:
                pass
        finally:
            connection.close()

    threads = [threading.Thread(target=work, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert cur.execute("SELECT COUNT(*) FROM log").fetchone()[0] == sum(committed)
    assert committed

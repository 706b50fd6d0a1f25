"""Transactions through the connector: isolation, atomic multi-table COMMIT, ROLLBACK, conflicts."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from snowflake.connector.errors import ProgrammingError

OK = [("Statement executed successfully.",)]


@pytest.fixture
def other(server: Any, database: str) -> Iterator[Any]:
    """A second session on the same database."""
    connection = server.connect(database=database, schema="PUBLIC")
    with connection.cursor() as cursor:
        yield cursor
    connection.close()


def ids(cur: Any, table: str) -> list[int]:
    return [r[0] for r in cur.execute(f"SELECT id FROM {table} ORDER BY id").fetchall()]


def test_open_transaction_is_invisible_to_other_sessions(cur: Any, other: Any) -> None:
    cur.execute("CREATE TABLE t (id INT)")
    cur.execute("INSERT INTO t VALUES (1)")
    assert cur.execute("BEGIN").fetchall() == OK
    cur.execute("INSERT INTO t VALUES (2), (3)")
    cur.execute("UPDATE t SET id = 10 WHERE id = 1")
    assert ids(cur, "t") == [2, 3, 10]  # read-your-writes
    assert ids(other, "t") == [1]
    assert cur.execute("COMMIT").fetchall() == OK
    assert ids(other, "t") == [2, 3, 10]


def test_commit_applies_two_tables_together(cur: Any, other: Any) -> None:
    cur.execute("CREATE TABLE a (id INT)")
    cur.execute("CREATE TABLE b (id INT)")
    cur.execute("START TRANSACTION")
    cur.execute("INSERT INTO a VALUES (1)")
    cur.execute("INSERT INTO b VALUES (2)")
    cur.execute("DELETE FROM a WHERE id = 5")
    assert (ids(other, "a"), ids(other, "b")) == ([], [])
    cur.execute("COMMIT")
    assert (ids(other, "a"), ids(other, "b")) == ([1], [2])


def test_rollback_discards_every_change(cur: Any, other: Any) -> None:
    cur.execute("CREATE TABLE t (id INT)")
    cur.execute("INSERT INTO t VALUES (1), (2)")
    cur.execute("BEGIN TRANSACTION NAME tx1")
    cur.execute("DELETE FROM t WHERE id = 1")
    cur.execute("INSERT INTO t VALUES (7)")
    assert ids(cur, "t") == [2, 7]
    assert cur.execute("ROLLBACK").fetchall() == OK
    assert ids(cur, "t") == [1, 2]
    assert ids(other, "t") == [1, 2]


def test_failed_commit_applies_nothing(cur: Any, other: Any) -> None:
    cur.execute("CREATE TABLE t (id INT)")
    cur.execute("CREATE TABLE u (id INT)")
    cur.execute("INSERT INTO t VALUES (1)")
    cur.execute("BEGIN")
    cur.execute("INSERT INTO u VALUES (100)")
    cur.execute("UPDATE t SET id = id + 1")
    other.execute("UPDATE t SET id = id + 1000")  # commits first, on the same rows
    with pytest.raises(ProgrammingError) as e:
        cur.execute("COMMIT")
    assert e.value.errno == 625
    assert e.value.sqlstate == "57014"
    assert ids(other, "t") == [1001]
    assert ids(other, "u") == []  # the other table's change was discarded too
    assert cur.execute("SELECT CURRENT_TRANSACTION()").fetchall() == [(None,)]  # the transaction ended
    assert ids(cur, "u") == []


def test_concurrent_appends_are_rebased_at_commit(cur: Any, other: Any) -> None:
    cur.execute("CREATE TABLE t (id INT)")
    cur.execute("BEGIN")
    cur.execute("INSERT INTO t VALUES (1)")
    other.execute("INSERT INTO t VALUES (2)")
    cur.execute("COMMIT")
    assert ids(other, "t") == [1, 2]


def test_autocommit_false_opens_a_transaction_at_the_first_dml(cur: Any, other: Any) -> None:
    cur.execute("CREATE TABLE t (id INT)")
    cur.execute("ALTER SESSION SET AUTOCOMMIT = FALSE")
    cur.execute("INSERT INTO t VALUES (1)")
    assert cur.execute("SELECT CURRENT_TRANSACTION()").fetchone()[0] is not None
    assert ids(other, "t") == []
    cur.execute("COMMIT")
    assert ids(other, "t") == [1]
    cur.execute("INSERT INTO t VALUES (2)")
    cur.execute("ROLLBACK")
    cur.execute("ALTER SESSION SET AUTOCOMMIT = TRUE")
    assert ids(other, "t") == [1]


def test_ddl_commits_the_open_transaction(cur: Any, other: Any) -> None:
    cur.execute("CREATE TABLE t (id INT)")
    cur.execute("BEGIN")
    cur.execute("INSERT INTO t VALUES (1)")
    cur.execute("CREATE TABLE u (id INT)")
    assert ids(other, "t") == [1]
    assert cur.execute("SELECT CURRENT_TRANSACTION()").fetchall() == [(None,)]


def test_show_transactions_lists_the_open_one(cur: Any) -> None:
    assert cur.execute("SHOW TRANSACTIONS").fetchall() == []
    cur.execute("BEGIN NAME mytx")
    rows = cur.execute("SHOW TRANSACTIONS").fetchall()
    names = [d.name for d in cur.description]
    assert names[:7] == ["id", "user", "session", "name", "started_on", "state", "scope"]
    assert len(rows) == 1
    assert rows[0][3] == "MYTX"
    assert rows[0][5] == "running"
    assert str(rows[0][0]) == cur.execute("SELECT CURRENT_TRANSACTION()").fetchone()[0]
    cur.execute("COMMIT")
    assert cur.execute("SHOW TRANSACTIONS").fetchall() == []


def test_closing_a_session_rolls_back_its_transaction(server: Any, database: str, cur: Any) -> None:
    cur.execute("CREATE TABLE t (id INT)")
    connection = server.connect(database=database, schema="PUBLIC")
    c = connection.cursor()
    c.execute("BEGIN")
    c.execute("INSERT INTO t VALUES (1)")
    connection.close()
    assert ids(cur, "t") == []

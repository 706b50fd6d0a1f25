"""Column DEFAULT values and AUTOINCREMENT / IDENTITY: applied by INSERT (column lists, DEFAULT
VALUES, the DEFAULT keyword), MERGE and UPDATE SET ... = DEFAULT; shown by DESCRIBE TABLE and
INFORMATION_SCHEMA.COLUMNS.
https://docs.snowflake.com/en/sql-reference/sql/create-table (DEFAULT, AUTOINCREMENT | IDENTITY)"""

from __future__ import annotations

import datetime
import threading
from typing import Any

import pytest
from snowflake.connector.errors import ProgrammingError


def test_insert_with_a_column_list_fills_omitted_columns_from_their_defaults(cur: Any) -> None:
    cur.execute("CREATE TABLE t (a INT DEFAULT 5, c VARCHAR DEFAULT 'x' || 'y', e INT)")
    cur.execute("INSERT INTO t (e) VALUES (1), (2)")
    cur.execute("INSERT INTO t (e) SELECT 10")
    assert cur.execute("SELECT a, c, e FROM t ORDER BY e").fetchall() == [
        (5, "xy", 1),
        (5, "xy", 2),
        (5, "xy", 10),
    ]


def test_columns_without_a_default_stay_null(cur: Any) -> None:
    cur.execute("CREATE TABLE t (a INT DEFAULT 1, b INT)")
    cur.execute("INSERT INTO t (a) VALUES (2)")
    assert cur.execute("SELECT a, b FROM t").fetchall() == [(2, None)]


def test_default_values_and_the_default_keyword(cur: Any) -> None:
    cur.execute("CREATE TABLE t (a INT DEFAULT 5, c VARCHAR DEFAULT 'd' NOT NULL, e INT)")
    cur.execute("INSERT INTO t DEFAULT VALUES")
    cur.execute("INSERT INTO t (a, c, e) VALUES (DEFAULT, DEFAULT, 3), (7, 'z', DEFAULT)")
    assert cur.execute("SELECT a, c, e FROM t ORDER BY a, e").fetchall() == [
        (5, "d", 3),
        (5, "d", None),
        (7, "z", None),
    ]


def test_current_timestamp_default_is_evaluated_at_insert(cur: Any) -> None:
    cur.execute("CREATE TABLE t (k INT, at TIMESTAMP_NTZ DEFAULT CURRENT_TIMESTAMP())")
    before = cur.execute("SELECT CURRENT_TIMESTAMP()::TIMESTAMP_NTZ").fetchone()[0]
    cur.execute("INSERT INTO t (k) VALUES (1)")
    ((at,),) = cur.execute("SELECT at FROM t").fetchall()
    assert isinstance(at, datetime.datetime)
    assert at >= before


def test_merge_insert_and_update_use_defaults(cur: Any) -> None:
    cur.execute("CREATE TABLE src (k INT)")
    cur.execute("INSERT INTO src VALUES (1), (100)")
    cur.execute("CREATE TABLE t (k INT, v VARCHAR DEFAULT 'dv', n INT DEFAULT 42)")
    cur.execute("INSERT INTO t VALUES (1, 'old', 0)")
    cur.execute(
        "MERGE INTO t USING src ON t.k = src.k "
        "WHEN MATCHED THEN UPDATE SET n = DEFAULT "
        "WHEN NOT MATCHED THEN INSERT (k) VALUES (src.k)"
    )
    assert cur.execute("SELECT k, v, n FROM t ORDER BY k").fetchall() == [(1, "old", 42), (100, "dv", 42)]


def test_describe_and_information_schema_show_defaults(cur: Any) -> None:
    cur.execute(
        "CREATE TABLE t (id INT AUTOINCREMENT, a INT DEFAULT 5, b TIMESTAMP_NTZ DEFAULT CURRENT_TIMESTAMP())"
    )
    rows = cur.execute("DESCRIBE TABLE t").fetchall()
    names = [d.name for d in cur.description]
    defaults = {r[0]: r[names.index("default")] for r in rows}
    assert defaults == {"ID": "IDENTITY START 1 INCREMENT 1 ORDER", "A": "5", "B": "CURRENT_TIMESTAMP()"}
    assert cur.execute(
        "SELECT column_name, column_default, is_identity, identity_start, identity_increment "
        "FROM information_schema.columns WHERE table_name = 'T' ORDER BY ordinal_position"
    ).fetchall() == [
        ("ID", None, "YES", "1", "1"),
        ("A", "5", "NO", None, None),
        ("B", "CURRENT_TIMESTAMP()", "NO", None, None),
    ]


def test_autoincrement_numbers_rows_in_order_across_inserts(cur: Any) -> None:
    cur.execute("CREATE TABLE t (id INT IDENTITY(10, 5), v VARCHAR)")
    cur.execute("INSERT INTO t (v) VALUES ('a'), ('b')")
    cur.execute("INSERT INTO t (v) VALUES ('c')")
    cur.execute("INSERT INTO t (id, v) VALUES (1, 'explicit')")
    assert cur.execute("SELECT id, v FROM t ORDER BY v").fetchall() == [
        (10, "a"),
        (15, "b"),
        (20, "c"),
        (1, "explicit"),
    ]


def test_concurrent_inserts_never_share_an_identity_number(server: Any, database: str) -> None:
    with server.connect(database=database) as conn:
        conn.cursor().execute("CREATE TABLE t (id INT AUTOINCREMENT, v INT)")
    errors: list[BaseException] = []

    def insert(worker: int) -> None:
        try:
            with server.connect(database=database) as conn:
                for i in range(3):
                    conn.cursor().execute(
                        f"INSERT INTO t (v) VALUES ({worker * 10 + i}), ({worker * 10 + i})"
                    )
        except BaseException as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=insert, args=(w,)) for w in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with server.connect(database=database) as conn:
        ids = [r[0] for r in conn.cursor().execute("SELECT id FROM t ORDER BY id").fetchall()]
    assert ids == list(range(1, 19))


def test_identity_numbers_stay_unique_across_open_transactions(server: Any, database: str) -> None:
    """Two open transactions numbering rows from the same sequence: the second COMMIT is refused
    (a conflict, nothing applied) rather than replayed with numbers the first one already used."""
    with server.connect(database=database) as first, server.connect(database=database) as second:
        a, b = first.cursor(), second.cursor()
        a.execute("CREATE TABLE t (id INT AUTOINCREMENT, v VARCHAR)")
        a.execute("BEGIN")
        b.execute("BEGIN")
        a.execute("INSERT INTO t (v) VALUES ('a1'), ('a2')")
        b.execute("INSERT INTO t (v) VALUES ('b1')")
        a.execute("COMMIT")
        with pytest.raises(ProgrammingError) as e:
            b.execute("COMMIT")
        assert e.value.errno == 625
        assert a.execute("SELECT id, v FROM t ORDER BY id").fetchall() == [(1, "a1"), (2, "a2")]
        b.execute("INSERT INTO t (v) VALUES ('b1')")
        assert a.execute("SELECT id FROM t WHERE v = 'b1'").fetchall() == [(3,)]

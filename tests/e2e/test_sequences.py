"""Sequences through the connector: the documented examples, defaults, concurrent writers.
https://docs.snowflake.com/en/user-guide/querying-sequences"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from snowflake.connector.errors import ProgrammingError

from tests.e2e.conftest import Server


def test_documented_sequence_examples(cur: Any) -> None:
    assert cur.execute("CREATE OR REPLACE SEQUENCE seq_01 START = 1 INCREMENT = 1").fetchone() == (
        "Sequence SEQ_01 successfully created.",
    )
    assert cur.execute("SELECT seq_01.nextval").fetchone() == (1,)
    assert cur.execute("SELECT seq_01.nextval").fetchone() == (2,)
    # Each reference in a row, and each row, gets a value of its own.
    cur.execute("CREATE OR REPLACE SEQUENCE seq_5 START = 1 INCREMENT = 5")
    cur.execute("SELECT seq_5.nextval a, seq_5.nextval b, seq_5.nextval c, seq_5.nextval d")
    assert cur.fetchone() == (1, 6, 11, 16)
    assert [d.name for d in cur.description] == ["A", "B", "C", "D"]
    cur.execute("SELECT seq_5.NEXTVAL FROM TABLE(GENERATOR(ROWCOUNT => 4))")
    assert [d.name for d in cur.description] == ["NEXTVAL"]
    assert sorted(r[0] for r in cur.fetchall()) == [21, 26, 31, 36]
    # Through INSERT: VALUES, SELECT and a column DEFAULT.
    cur.execute("CREATE TABLE sequence_test_table (i INTEGER, note VARCHAR)")
    cur.execute("INSERT INTO sequence_test_table (i, note) VALUES (seq_01.nextval, 'values')")
    cur.execute("INSERT INTO sequence_test_table SELECT seq_01.nextval, 'select'")
    cur.execute("CREATE TABLE keyed (id INTEGER DEFAULT seq_01.nextval, note VARCHAR)")
    cur.execute("INSERT INTO keyed (note) VALUES ('a'), ('b')")
    assert cur.execute("SELECT i, note FROM sequence_test_table ORDER BY i").fetchall() == [
        (3, "values"),
        (4, "select"),
    ]
    assert cur.execute("SELECT id, note FROM keyed ORDER BY id").fetchall() == [(5, "a"), (6, "b")]


def test_show_describe_alter_and_drop(cur: Any) -> None:
    cur.execute("CREATE SEQUENCE counter START WITH 100 INCREMENT BY 10 COMMENT = 'hundreds'")
    cur.execute("SHOW SEQUENCES LIKE 'COUNT%'")
    names = [d.name for d in cur.description]
    assert names == [
        "created_on",
        "name",
        "schema_name",
        "database_name",
        "next_value",
        "interval",
        "owner",
        "owner_role_type",
        "comment",
        "ordered",
    ]
    row = dict(zip(names, cur.fetchone(), strict=True))
    assert (row["name"], row["next_value"], row["interval"], row["comment"]) == (
        "COUNTER",
        100,
        10,
        "hundreds",
    )
    cur.execute("ALTER SEQUENCE counter SET INCREMENT = -1")
    cur.execute("ALTER SEQUENCE counter UNSET COMMENT")
    assert cur.execute("SELECT counter.nextval, counter.nextval").fetchone() == (100, 99)
    values = cur.execute("DESCRIBE SEQUENCE counter").fetchone()
    described = dict(zip([d.name for d in cur.description], values, strict=True))
    assert (described["next_value"], described["interval"], described["comment"]) == (98, -1, "")
    with pytest.raises(ProgrammingError) as info:
        cur.execute("CREATE SEQUENCE counter")
    assert (info.value.errno, info.value.sqlstate) == (2002, "42710")
    assert cur.execute("CREATE SEQUENCE IF NOT EXISTS counter").fetchone()[0].endswith("statement succeeded.")
    with pytest.raises(ProgrammingError) as info:
        cur.execute("CREATE SEQUENCE never INCREMENT = 0")
    assert info.value.errno == 2
    assert cur.execute("DROP SEQUENCE counter").fetchone() == ("COUNTER successfully dropped.",)
    with pytest.raises(ProgrammingError) as info:
        cur.execute("DROP SEQUENCE counter")
    assert (info.value.errno, info.value.sqlstate) == (2003, "42S02")
    cur.execute("DROP SEQUENCE IF EXISTS counter")
    # A table's column named NEXTVAL is a column, not a sequence.
    cur.execute("CREATE TABLE t (nextval INT)")
    cur.execute("INSERT INTO t VALUES (7)")
    assert cur.execute("SELECT t.nextval FROM t").fetchone() == (7,)


def test_rename_information_schema_and_get_ddl(cur: Any, database: str) -> None:
    cur.execute("CREATE SEQUENCE ids START = 10 INCREMENT = 5 COMMENT = 'ids'")
    assert cur.execute("SELECT ids.nextval").fetchone() == (10,)
    cur.execute("CREATE SCHEMA other")  # which becomes the current schema, as on Snowflake
    cur.execute("USE SCHEMA public")
    cur.execute("ALTER SEQUENCE ids RENAME TO other.ids2")
    assert cur.execute("SELECT other.ids2.nextval").fetchone() == (15,)  # it goes on counting
    with pytest.raises(ProgrammingError):
        cur.execute("SELECT ids.nextval")
    cur.execute("ALTER SEQUENCE other.ids2 INCREMENT BY 1")  # SET is optional
    cur.execute(
        "SELECT sequence_schema, sequence_name, data_type, start_value, next_value, increment, ordered, "
        "comment FROM information_schema.sequences"
    )
    assert cur.fetchall() == [("OTHER", "IDS2", "NUMBER", "10", "20", "1", "NO", "ids")]
    assert [d.name for d in cur.description][:2] == ["SEQUENCE_SCHEMA", "SEQUENCE_NAME"]
    cur.execute("SELECT GET_DDL('SEQUENCE', 'other.ids2', TRUE)")
    assert [d.name for d in cur.description] == ["GET_DDL('SEQUENCE', 'OTHER.IDS2', TRUE)"]
    assert cur.fetchone() == (
        f"create or replace sequence {database}.OTHER.IDS2 start with 10 increment by 1 noorder "
        "comment='ids';",
    )
    cur.execute("CREATE SEQUENCE taken")
    with pytest.raises(ProgrammingError) as info:
        cur.execute("ALTER SEQUENCE taken RENAME TO other.ids2")
    assert (info.value.errno, info.value.sqlstate) == (2002, "42710")
    with pytest.raises(ProgrammingError) as info:
        cur.execute("ALTER SEQUENCE nowhere RENAME TO somewhere")
    assert info.value.errno == 2003
    cur.execute("ALTER SEQUENCE IF EXISTS nowhere RENAME TO somewhere")


def test_concurrent_writers_never_share_a_value(server: Server, database: str) -> None:
    with server.connect(database=database) as conn:
        conn.cursor().execute("CREATE SEQUENCE ids")
        conn.cursor().execute("CREATE TABLE events (id INTEGER DEFAULT ids.nextval, writer INTEGER)")
    errors: list[BaseException] = []

    def write(writer: int) -> None:
        try:
            with server.connect(database=database) as conn:
                cur = conn.cursor()
                for _ in range(5):
                    cur.execute(
                        f"INSERT INTO events (writer) SELECT {writer} FROM TABLE(GENERATOR(ROWCOUNT => 40))"
                    )
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=write, args=(w,)) for w in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    with server.connect(database=database) as conn:
        count, distinct = conn.cursor().execute("SELECT COUNT(*), COUNT(DISTINCT id) FROM events").fetchone()
    assert (count, distinct) == (600, 600)

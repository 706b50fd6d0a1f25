"""DROP then UNDROP of tables, schemas and databases; ALTER TABLE ... SWAP WITH."""

from __future__ import annotations

from typing import Any

import pytest
from snowflake.connector.errors import ProgrammingError


def test_undrop_table_restores_its_rows(cur: Any) -> None:
    cur.execute("CREATE TABLE t (a INT)")
    cur.execute("INSERT INTO t VALUES (1), (2)")
    cur.execute("DROP TABLE t")
    with pytest.raises(ProgrammingError):
        cur.execute("SELECT * FROM t")
    assert cur.execute("UNDROP TABLE t").fetchall() == [("Table T successfully restored.",)]
    assert cur.execute("SELECT SUM(a) FROM t").fetchall() == [(3,)]


def test_undrop_table_refuses_when_the_name_is_taken(cur: Any) -> None:
    cur.execute("CREATE TABLE t (a INT)")
    cur.execute("DROP TABLE t")
    cur.execute("CREATE TABLE t (b INT)")
    with pytest.raises(ProgrammingError) as e:
        cur.execute("UNDROP TABLE t")
    assert e.value.errno == 2002
    cur.execute("DROP TABLE t")  # the newer one goes; each UNDROP restores the latest drop first
    cur.execute("UNDROP TABLE t")
    assert [d.name for d in cur.execute("SELECT * FROM t").description] == ["B"]


def test_undrop_of_a_table_never_dropped_fails(cur: Any) -> None:
    with pytest.raises(ProgrammingError) as e:
        cur.execute("UNDROP TABLE never_there")
    assert e.value.errno == 2003


def test_undrop_schema_restores_its_tables(cur: Any) -> None:
    cur.execute("CREATE SCHEMA s1")
    cur.execute("CREATE TABLE s1.t (x INT)")
    cur.execute("INSERT INTO s1.t VALUES (5)")
    cur.execute("DROP SCHEMA s1")
    assert cur.execute("UNDROP SCHEMA s1").fetchall() == [("Schema S1 successfully restored.",)]
    assert cur.execute("SELECT x FROM s1.t").fetchall() == [(5,)]


def test_undrop_database_restores_schemas_and_tables(cur: Any) -> None:
    cur.execute("CREATE DATABASE undrop_db")
    cur.execute("CREATE SCHEMA undrop_db.s")
    cur.execute("CREATE TABLE undrop_db.s.t (x INT)")
    cur.execute("INSERT INTO undrop_db.s.t VALUES (7)")
    cur.execute("DROP DATABASE undrop_db")
    with pytest.raises(ProgrammingError):
        cur.execute("SELECT x FROM undrop_db.s.t")
    try:
        assert cur.execute("UNDROP DATABASE undrop_db").fetchall() == [
            ("Database UNDROP_DB successfully restored.",)
        ]
        assert cur.execute("SELECT x FROM undrop_db.s.t").fetchall() == [(7,)]
    finally:
        cur.execute("DROP DATABASE IF EXISTS undrop_db")


def test_views_routines_and_sequences_go_and_come_back_with_their_schema(cur: Any) -> None:
    cur.execute("CREATE SCHEMA s2")
    cur.execute("CREATE VIEW s2.v AS SELECT 1 AS one")
    cur.execute("CREATE FUNCTION s2.f() RETURNS INT AS '2'")
    cur.execute("CREATE SEQUENCE s2.ids START = 10")
    assert cur.execute("SELECT s2.ids.nextval").fetchone() == (10,)
    cur.execute("DROP SCHEMA s2")
    for sql in ("SELECT * FROM s2.v", "SELECT s2.f()", "SELECT s2.ids.nextval"):
        with pytest.raises(ProgrammingError):
            cur.execute(sql)
    cur.execute("UNDROP SCHEMA s2")
    assert cur.execute("SELECT one, s2.f(), s2.ids.nextval FROM s2.v").fetchone() == (1, 2, 11)
    # A new schema of the same name starts empty: nothing of the dropped one shows through.
    cur.execute("DROP SCHEMA s2")
    cur.execute("CREATE SCHEMA s2")
    assert cur.execute("SHOW VIEWS IN SCHEMA s2").fetchall() == []
    assert cur.execute("SHOW USER FUNCTIONS IN SCHEMA s2").fetchall() == []
    assert cur.execute("SHOW SEQUENCES IN SCHEMA s2").fetchall() == []
    cur.execute("CREATE OR REPLACE SCHEMA s2")
    cur.execute("CREATE SEQUENCE s2.ids")
    assert cur.execute("SELECT s2.ids.nextval").fetchone() == (1,)


def test_swap_with_exchanges_contents(cur: Any) -> None:
    cur.execute("CREATE TABLE a (x INT)")
    cur.execute("CREATE TABLE b (y VARCHAR)")
    cur.execute("INSERT INTO a VALUES (1)")
    cur.execute("INSERT INTO b VALUES ('z')")
    cur.execute("ALTER TABLE a SWAP WITH b")
    assert cur.execute("SELECT * FROM a").fetchall() == [("z",)]
    assert cur.execute("SELECT * FROM b").fetchall() == [(1,)]
    cur.execute("INSERT INTO a VALUES ('w')")
    assert cur.execute("SELECT COUNT(*) FROM a").fetchall() == [(2,)]

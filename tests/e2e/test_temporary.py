"""TEMPORARY and TRANSIENT tables, TEMPORARY views: session scope, shadowing, SHOW TABLES."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from snowflake.connector.errors import ProgrammingError


@pytest.fixture
def other(server: Any, database: str) -> Iterator[Any]:
    connection = server.connect(database=database, schema="PUBLIC")
    with connection.cursor() as cursor:
        yield cursor
    connection.close()


def table_names(cur: Any) -> list[str]:
    cur.execute("SHOW TABLES")
    column = [d.name for d in cur.description].index("name")
    return sorted(r[column] for r in cur.fetchall())


def test_temporary_table_is_visible_only_to_its_session(cur: Any, other: Any) -> None:
    assert cur.execute("CREATE TEMPORARY TABLE tmp (x INT)").fetchall() == [
        ("Table TMP successfully created.",)
    ]
    cur.execute("INSERT INTO tmp VALUES (1), (2)")
    assert cur.execute("SELECT SUM(x) FROM tmp").fetchall() == [(3,)]
    assert "TMP" in table_names(cur)
    assert "TMP" not in table_names(other)
    with pytest.raises(ProgrammingError) as e:
        other.execute("SELECT * FROM tmp")
    assert e.value.errno == 2003


def test_temporary_table_shadows_a_permanent_one(cur: Any, other: Any) -> None:
    cur.execute("CREATE TABLE t (x INT)")
    cur.execute("INSERT INTO t VALUES (1)")
    cur.execute("CREATE TEMP TABLE t (x INT)")
    cur.execute("INSERT INTO t VALUES (42)")
    assert cur.execute("SELECT x FROM t").fetchall() == [(42,)]
    assert other.execute("SELECT x FROM t").fetchall() == [(1,)]
    cur.execute("DROP TABLE t")  # drops the temporary one: the permanent one shows again
    assert cur.execute("SELECT x FROM t").fetchall() == [(1,)]


def test_temporary_tables_are_dropped_at_session_end(server: Any, database: str, cur: Any) -> None:
    connection = server.connect(database=database, schema="PUBLIC")
    connection.cursor().execute("CREATE TEMPORARY TABLE gone AS SELECT 1 AS x")
    assert connection.cursor().execute("SELECT x FROM gone").fetchall() == [(1,)]
    connection.close()
    fresh = server.connect(database=database, schema="PUBLIC")
    try:
        with pytest.raises(ProgrammingError):
            fresh.cursor().execute("SELECT * FROM gone")
        assert "GONE" not in table_names(fresh.cursor())
    finally:
        fresh.close()


def test_temporary_view_is_visible_only_to_its_session(cur: Any, other: Any) -> None:
    cur.execute("CREATE OR REPLACE TEMPORARY VIEW v AS SELECT 7 AS n")
    assert cur.execute("SELECT n FROM v").fetchall() == [(7,)]
    with pytest.raises(ProgrammingError):
        other.execute("SELECT n FROM v")


def test_show_tables_kind_for_transient_and_temporary(cur: Any) -> None:
    cur.execute("CREATE TRANSIENT TABLE tr (x INT)")
    cur.execute("CREATE TEMPORARY TABLE tm (x INT)")
    cur.execute("CREATE TABLE pe (x INT)")
    cur.execute("SHOW TABLES")
    names = [d.name for d in cur.description]
    kinds = {r[names.index("name")]: r[names.index("kind")] for r in cur.fetchall()}
    assert kinds == {"TR": "TRANSIENT", "TM": "TEMPORARY", "PE": "TABLE"}

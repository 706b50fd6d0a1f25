"""Databases, schemas and Iceberg tables through the connector; everything survives a restart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from snowflake.connector.errors import IntegrityError, ProgrammingError

from tests.e2e.conftest import Server


def test_create_insert_select_with_rowcounts(cur: Any) -> None:
    assert cur.execute("CREATE TABLE t (id INT NOT NULL, name VARCHAR, amount NUMBER(10,2))").fetchone() == (
        "Table T successfully created.",
    )
    cur.execute("INSERT INTO t VALUES (1, 'a', 1.50), (2, 'b', 2.25), (3, NULL, NULL)")
    assert cur.rowcount == 3
    cur.execute("INSERT INTO t (id, name) SELECT id + 10, name FROM t WHERE id < 3")
    assert cur.rowcount == 2
    rows = cur.execute("SELECT id, name, amount FROM t ORDER BY id").fetchall()
    assert [r[0] for r in rows] == [1, 2, 3, 11, 12]
    assert rows[3][2] is None


def test_queries_with_joins_aggregates_windows_and_subqueries(cur: Any) -> None:
    cur.execute("CREATE TABLE emp (id INT, dept VARCHAR, salary NUMBER(10,2))")
    cur.execute("CREATE TABLE dept (name VARCHAR, floor INT)")
    cur.execute("INSERT INTO emp VALUES (1, 'eng', 100), (2, 'eng', 200), (3, 'ops', 50), (4, NULL, 10)")
    cur.execute("INSERT INTO dept VALUES ('eng', 3), ('ops', 1)")
    rows = cur.execute(
        "SELECT d.name, COUNT(*) AS n, SUM(e.salary) AS total FROM emp e JOIN dept d ON e.dept = d.name "
        "GROUP BY d.name ORDER BY d.name"
    ).fetchall()
    assert [(r[0], r[1], float(r[2])) for r in rows] == [("eng", 2, 300.0), ("ops", 1, 50.0)]
    ranked = cur.execute(
        "SELECT id, RANK() OVER (PARTITION BY dept ORDER BY salary DESC) AS r FROM emp "
        "WHERE dept IS NOT NULL ORDER BY id"
    ).fetchall()
    assert ranked == [(1, 2), (2, 1), (3, 1)]
    above = cur.execute(
        "SELECT id FROM emp WHERE salary > (SELECT AVG(salary) FROM emp) ORDER BY id"
    ).fetchall()
    assert above == [(1,), (2,)]
    with_cte = cur.execute(
        "WITH big AS (SELECT * FROM emp WHERE salary >= 100) SELECT COUNT(*) FROM big"
    ).fetchone()
    assert with_cte == (2,)


def test_quoted_names_that_parquet_files_keep_sanitized_hold_their_values(cur: Any) -> None:
    # pyiceberg writes "Mixed Col" as Mixed_x20Col in the files: read by field id, not by name.
    cur.execute('CREATE TABLE q (id INT, "Mixed Col" INT DEFAULT 4, "order-id" VARCHAR, "1st" INT)')
    cur.execute("INSERT INTO q VALUES (1, 10, 'o-1', 100)")
    cur.execute("INSERT INTO q (id) VALUES (2)")
    cur.execute('SELECT id, "Mixed Col", "order-id", "1st" FROM q ORDER BY id')
    assert cur.fetchall() == [(1, 10, "o-1", 100), (2, 4, None, None)]
    cur.execute('UPDATE q SET "Mixed Col" = "Mixed Col" + 1 WHERE id = 1')
    cur.execute('SELECT id, "Mixed Col", "order-id", "1st" FROM q WHERE "Mixed Col" > 4')
    assert cur.fetchall() == [(1, 11, "o-1", 100)]
    cur.execute('CREATE TABLE q2 AS SELECT "Mixed Col" AS "Another One" FROM q')
    assert cur.execute('SELECT SUM("Another One") FROM q2').fetchone() == (15,)


def test_ctas_and_insert_overwrite(cur: Any) -> None:
    cur.execute("CREATE TABLE src AS SELECT seq4() AS n FROM TABLE(GENERATOR(ROWCOUNT => 100))")
    assert cur.execute("SELECT COUNT(*), SUM(n) FROM src").fetchone() == (100, 4950)
    cur.execute("INSERT OVERWRITE INTO src SELECT 7")
    assert cur.rowcount == 1
    assert cur.execute("SELECT n FROM src").fetchall() == [(7,)]


def test_if_not_exists_or_replace_and_drop(cur: Any) -> None:
    cur.execute("CREATE TABLE t (a INT)")
    cur.execute("INSERT INTO t VALUES (1)")
    assert cur.execute("CREATE TABLE IF NOT EXISTS t (a INT)").fetchone() == (
        "T already exists, statement succeeded.",
    )
    assert cur.execute("SELECT COUNT(*) FROM t").fetchone() == (1,)
    cur.execute("CREATE OR REPLACE TABLE t (a INT, b INT)")
    assert cur.execute("SELECT COUNT(*) FROM t").fetchone() == (0,)
    assert cur.execute("DROP TABLE t").fetchone() == ("T successfully dropped.",)
    assert cur.execute("DROP TABLE IF EXISTS t").fetchone() == (
        "Drop statement executed successfully (T already dropped).",
    )
    with pytest.raises(ProgrammingError) as err:
        cur.execute("DROP TABLE t")
    assert (err.value.errno, err.value.sqlstate) == (2003, "42S02")


def test_databases_and_schemas(cur: Any, database: str) -> None:
    cur.execute("CREATE SCHEMA staging")
    cur.execute("CREATE TABLE staging.t (a INT)")
    cur.execute(f"INSERT INTO {database}.staging.t VALUES (5)")
    assert cur.execute("SELECT a FROM staging.t").fetchall() == [(5,)]
    cur.execute("USE SCHEMA staging")
    assert cur.execute("SELECT CURRENT_SCHEMA(), a FROM t").fetchone() == ("STAGING", 5)
    cur.execute("DROP SCHEMA staging")
    with pytest.raises(ProgrammingError) as err:
        cur.execute(f"SELECT * FROM {database}.staging.t")
    assert err.value.errno == 2003


def test_not_null_is_enforced_and_nothing_is_written(cur: Any) -> None:
    cur.execute("CREATE TABLE t (a INT NOT NULL)")
    # The connector maps 100072 to IntegrityError, as for Snowflake itself.
    with pytest.raises(IntegrityError) as err:
        cur.execute("INSERT INTO t VALUES (1), (NULL)")
    assert err.value.errno == 100072
    assert cur.execute("SELECT COUNT(*) FROM t").fetchone() == (0,)


def test_tables_survive_a_restart(tmp_path: Path) -> None:
    server = Server(tmp_path)
    server.start()
    try:
        with server.connect() as conn:
            cur = conn.cursor()
            cur.execute("CREATE DATABASE keep")
            cur.execute("CREATE TABLE keep.public.t (a INT, b VARCHAR)")
            cur.execute("INSERT INTO keep.public.t VALUES (1, 'x'), (2, 'y')")
        server.stop()
        server.start()
        with server.connect(database="KEEP") as conn:
            rows = conn.cursor().execute("SELECT a, b FROM t ORDER BY a").fetchall()
        assert rows == [(1, "x"), (2, "y")]
        assert list((tmp_path / "warehouse").rglob("*.parquet")), "data files are Parquet in the warehouse"
    finally:
        server.stop()

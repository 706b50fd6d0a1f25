"""CREATE TABLE ... LIKE: the source's column definitions and clustering key, none of its rows.
https://docs.snowflake.com/en/sql-reference/sql/create-table (CREATE TABLE ... LIKE)"""

from __future__ import annotations

import json
from typing import Any

import pytest
from snowflake.connector.errors import ProgrammingError


def test_create_table_like_copies_columns_and_defaults_not_rows(cur: Any) -> None:
    cur.execute("CREATE TABLE s (id INT AUTOINCREMENT, a INT DEFAULT 5 NOT NULL, c VARCHAR(10) COMMENT 'cc')")
    cur.execute("INSERT INTO s (c) VALUES ('x')")
    cur.execute("CREATE TABLE t LIKE s")
    assert cur.execute("SELECT COUNT(*) FROM t").fetchall() == [(0,)]
    assert cur.execute("DESCRIBE TABLE t").fetchall() == cur.execute("DESCRIBE TABLE s").fetchall()
    cur.execute("INSERT INTO t (c) VALUES ('y')")
    assert cur.execute("SELECT id, a, c FROM t").fetchall() == [(1, 5, "y")]


def test_create_table_like_keeps_the_clustering_key(cur: Any) -> None:
    cur.execute("CREATE TABLE s (a INT, b INT) CLUSTER BY (b)")
    cur.execute("CREATE TABLE t LIKE s")
    ((info,),) = cur.execute("SELECT SYSTEM$CLUSTERING_INFORMATION('t')").fetchall()
    assert json.loads(info)["cluster_by_keys"] == "LINEAR(B)"


def test_create_or_replace_like_and_if_not_exists(cur: Any) -> None:
    cur.execute("CREATE TABLE s (a INT)")
    cur.execute("CREATE TABLE t (z VARCHAR)")
    cur.execute("INSERT INTO t VALUES ('gone')")
    cur.execute("CREATE OR REPLACE TABLE t LIKE s")
    assert cur.execute("SELECT * FROM t").fetchall() == []
    assert [d.name for d in cur.description] == ["A"]
    cur.execute("CREATE TABLE IF NOT EXISTS t LIKE s")
    with pytest.raises(ProgrammingError) as e:
        cur.execute("CREATE TABLE t LIKE s")
    assert e.value.errno == 2002


def test_like_of_a_missing_table_fails(cur: Any) -> None:
    with pytest.raises(ProgrammingError) as e:
        cur.execute("CREATE TABLE t LIKE nowhere")
    assert e.value.errno == 2003

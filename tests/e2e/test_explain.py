"""EXPLAIN [USING TABULAR | TEXT | JSON]: Snowflake's columns and shapes, with the data files each
table scan is planned to read as partitions.
https://docs.snowflake.com/en/sql-reference/sql/explain"""

from __future__ import annotations

import json
from typing import Any

import pytest
from snowflake.connector.errors import ProgrammingError

TABULAR = [
    "step",
    "id",
    "parent",
    "operation",
    "objects",
    "alias",
    "expressions",
    "partitionsTotal",
    "partitionsAssigned",
    "bytesAssigned",
]


@pytest.fixture
def three_files(cur: Any) -> Any:
    cur.execute("CREATE TABLE t (a INT, b VARCHAR)")
    for i in range(3):  # one data file per INSERT
        cur.execute(f"INSERT INTO t VALUES ({i}, 'v{i}')")
    return cur


def _rows(cur: Any) -> list[dict[str, Any]]:
    names = [d.name for d in cur.description]
    return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]


def test_tabular_is_the_default_with_snowflakes_columns(three_files: Any, database: str) -> None:
    cur = three_files
    cur.execute("EXPLAIN SELECT b FROM t WHERE a > 0")
    assert [d.name for d in cur.description] == TABULAR
    rows = _rows(cur)
    stats = rows[0]
    assert stats["operation"] == "GlobalStats"
    assert (stats["partitionsTotal"], stats["partitionsAssigned"]) == (3, 3)
    assert stats["bytesAssigned"] > 0
    operations = [r["operation"] for r in rows[1:]]
    assert "Filter" in operations
    (scan,) = [r for r in rows if r["operation"] == "TableScan"]
    assert scan["objects"] == f"{database}.PUBLIC.T"
    assert scan["expressions"] == "A, B"
    assert (scan["partitionsTotal"], scan["bytesAssigned"]) == (3, stats["bytesAssigned"])
    ids = {r["id"] for r in rows[1:]}
    assert all(r["parent"] in ids for r in rows[1:] if r["parent"] is not None)
    assert [r["parent"] for r in rows[1:]].count(None) == 1


def test_explain_using_tabular_names_aliases_of_a_self_join(three_files: Any) -> None:
    cur = three_files
    cur.execute("EXPLAIN USING TABULAR SELECT * FROM t JOIN t AS t2 ON t.a = t2.a")
    rows = _rows(cur)
    assert rows[0]["partitionsTotal"] == 6
    aliases = sorted(str(r["alias"]) for r in rows if r["operation"] == "TableScan")
    assert aliases == ["None", "T2"]
    assert any(r["operation"].endswith("Join") for r in rows)


def test_explain_using_text(three_files: Any) -> None:
    cur = three_files
    ((content,),) = cur.execute("EXPLAIN USING TEXT SELECT a FROM t").fetchall()
    assert [d.name for d in cur.description] == ["content"]
    assert content.startswith("GlobalStats:\n    partitionsTotal=3\n    partitionsAssigned=3\n")
    assert "Operations:" in content and "->TableScan" in content


def test_explain_using_json(three_files: Any, database: str) -> None:
    cur = three_files
    ((content,),) = cur.execute("EXPLAIN USING JSON SELECT a FROM t").fetchall()
    plan = json.loads(content)
    assert plan["GlobalStats"]["partitionsTotal"] == 3
    assert plan["GlobalStats"]["partitionsAssigned"] == 3
    (steps,) = plan["Operations"]
    (scan,) = [s for s in steps if s["operation"] == "TableScan"]
    assert scan["objects"] == [f"{database}.PUBLIC.T"]


def test_explain_plans_only(three_files: Any) -> None:
    cur = three_files
    cur.execute("EXPLAIN SELECT * FROM t")
    assert cur.execute("SELECT COUNT(*) FROM t").fetchall() == [(3,)]


def test_explain_of_an_empty_table_and_of_a_constant(cur: Any) -> None:
    cur.execute("CREATE TABLE e (a INT)")
    rows = _rows(cur.execute("EXPLAIN SELECT * FROM e"))
    assert (rows[0]["partitionsTotal"], rows[0]["bytesAssigned"]) == (0, 0)
    rows = _rows(cur.execute("EXPLAIN SELECT 1"))
    assert rows[0]["operation"] == "GlobalStats" and len(rows) > 1


def test_explain_of_a_missing_table_fails(cur: Any) -> None:
    with pytest.raises(ProgrammingError) as e:
        cur.execute("EXPLAIN SELECT * FROM nowhere")
    assert e.value.errno == 2003


# --- what a query read, as QUERY_HISTORY reports it ---------------------------------------------------


def _history(cur: Any, query_id: str) -> dict[str, Any]:
    rows = _rows(
        cur.execute(
            "SELECT * FROM TABLE(INFORMATION_SCHEMA.QUERY_HISTORY_BY_SESSION(RESULT_LIMIT => 50)) "
            f"WHERE query_id = '{query_id}'"
        )
    )
    assert len(rows) == 1
    return rows[0]


def test_query_history_reports_partitions_and_bytes_scanned(three_files: Any) -> None:
    cur = three_files
    cur.execute("SELECT SUM(a) FROM t")
    query_id = cur.sfqid
    row = _history(cur, query_id)
    assert (row["PARTITIONS_SCANNED"], row["PARTITIONS_TOTAL"]) == (3, 3)
    planned = _rows(cur.execute("EXPLAIN SELECT SUM(a) FROM t"))[0]["bytesAssigned"]
    assert row["BYTES_SCANNED"] == planned


def test_query_history_end_time_range_and_result_limit(cur: Any) -> None:
    cur.execute("SELECT 1")
    cur.execute("SELECT 2")
    recent = cur.execute(
        "SELECT query_text FROM TABLE(INFORMATION_SCHEMA.QUERY_HISTORY("
        "END_TIME_RANGE_START => DATEADD('minute', -10, CURRENT_TIMESTAMP()), RESULT_LIMIT => 2))"
    ).fetchall()
    assert len(recent) == 2
    assert ("SELECT 2",) in recent
    ancient = cur.execute(
        "SELECT COUNT(*) FROM TABLE(INFORMATION_SCHEMA.QUERY_HISTORY("
        "END_TIME_RANGE_END => '2000-01-01 00:00:00'::TIMESTAMP_LTZ))"
    ).fetchall()
    assert ancient == [(0,)]


def test_query_history_by_user(cur: Any) -> None:
    cur.execute("SELECT 'by user'")
    mine = cur.execute(
        "SELECT DISTINCT user_name FROM TABLE(INFORMATION_SCHEMA.QUERY_HISTORY_BY_USER(RESULT_LIMIT => 20))"
    ).fetchall()
    assert mine == [(cur.execute("SELECT CURRENT_USER()").fetchone()[0],)]
    nobody = cur.execute(
        "SELECT COUNT(*) FROM TABLE(INFORMATION_SCHEMA.QUERY_HISTORY_BY_USER(USER_NAME => 'NOBODY_HERE'))"
    ).fetchall()
    assert nobody == [(0,)]

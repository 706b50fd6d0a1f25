"""Query history: LAST_QUERY_ID, RESULT_SCAN, QUERY_HISTORY functions, kept across a restart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from snowflake.connector.errors import ProgrammingError

from tests.e2e.conftest import Server


def test_result_scan_of_last_query_id(cur: Any) -> None:
    cur.execute("SELECT 1 AS x, 'a' AS y UNION ALL SELECT 2, 'b'")
    first = cur.sfqid
    rows = cur.execute("SELECT * FROM TABLE(RESULT_SCAN(LAST_QUERY_ID())) ORDER BY x").fetchall()
    assert rows == [(1, "a"), (2, "b")]
    assert [d.name for d in cur.description] == ["X", "Y"]
    assert cur.execute(f"SELECT y FROM TABLE(RESULT_SCAN('{first}')) WHERE x = 2").fetchall() == [("b",)]


def test_describe_result_shows_the_columns_of_an_earlier_result(cur: Any) -> None:
    # https://docs.snowflake.com/en/sql-reference/sql/desc-result
    cur.execute("SELECT 1 AS a, 2.5 AS b, 'x' AS c, NULL::DATE AS d")
    first = cur.sfqid
    described = cur.execute("DESC RESULT LAST_QUERY_ID()").fetchall()
    assert [d.name for d in cur.description][:4] == ["name", "type", "kind", "null?"]
    assert [(r[0], r[1], r[2]) for r in described] == [
        ("A", "NUMBER(38,0)", "COLUMN"),
        ("B", "NUMBER(2,1)", "COLUMN"),
        ("C", "VARCHAR(16777216)", "COLUMN"),
        ("D", "DATE", "COLUMN"),
    ]
    assert cur.execute(f"DESCRIBE RESULT '{first}'").fetchall() == described
    with pytest.raises(ProgrammingError) as unknown:
        cur.execute("DESCRIBE RESULT '01234567-89ab-cdef-0123-456789abcdef'")
    assert unknown.value.errno == 709
    assert cur.execute("SELECT 1").fetchone() == (1,)


def test_result_scan_of_show_output(cur: Any) -> None:
    cur.execute("CREATE TABLE listed (a INT)")
    cur.execute("SHOW TABLES")
    assert cur.execute('SELECT "name" FROM TABLE(RESULT_SCAN(LAST_QUERY_ID()))').fetchall() == [("LISTED",)]
    # `SELECT *` keeps SHOW's lower-case column names (a client reads row["name"], as on Snowflake).
    shown = [d.name for d in cur.execute("SHOW TABLES").description]
    cur.execute("SELECT * FROM TABLE(RESULT_SCAN(LAST_QUERY_ID())) WHERE \"kind\" = 'TABLE'")
    assert [d.name for d in cur.description] == shown
    assert shown[:2] == ["created_on", "name"] and cur.fetchone()[1] == "LISTED"


def test_last_query_id_counts_back_and_from_the_start(cur: Any) -> None:
    cur.execute("SELECT 1")
    one = cur.sfqid
    cur.execute("SELECT 2")
    two = cur.sfqid
    assert cur.execute("SELECT LAST_QUERY_ID(), LAST_QUERY_ID(-2)").fetchall() == [(two, one)]


def test_result_scan_of_an_unknown_query_fails(cur: Any) -> None:
    with pytest.raises(ProgrammingError) as e:
        cur.execute("SELECT * FROM TABLE(RESULT_SCAN('01234567-0000-0000-0000-000000000000'))")
    assert e.value.errno == 709


def test_query_history_by_session_records_status_and_errors(cur: Any) -> None:
    cur.execute("ALTER SESSION SET QUERY_TAG = 'history-test'")
    cur.execute("SELECT 42 AS answer")
    ok = cur.sfqid
    with pytest.raises(ProgrammingError):
        cur.execute("SELECT * FROM no_such_table")
    failed = cur.sfqid
    rows = cur.execute(
        "SELECT query_id, query_text, execution_status, error_code, rows_produced, query_tag, query_type "
        "FROM TABLE(INFORMATION_SCHEMA.QUERY_HISTORY_BY_SESSION()) ORDER BY start_time"
    ).fetchall()
    by_id = {r[0]: r[1:] for r in rows}
    assert by_id[ok] == ("SELECT 42 AS answer", "SUCCESS", None, 1, "history-test", "SELECT")
    assert by_id[failed][1:3] == ("FAILED_WITH_ERROR", "002003")
    limited = cur.execute("SELECT COUNT(*) FROM TABLE(INFORMATION_SCHEMA.QUERY_HISTORY(RESULT_LIMIT => 2))")
    assert limited.fetchall() == [(2,)]


def test_query_history_splits_compilation_from_execution(cur: Any) -> None:
    cur.execute("CREATE TABLE phases (n INT)")
    ddl = cur.sfqid
    # Enough rows that executing takes measurable time.
    cur.execute("INSERT INTO phases SELECT SEQ4() FROM TABLE(GENERATOR(ROWCOUNT => 300000))")
    cur.execute("SELECT COUNT(DISTINCT n % 1000), SUM(n * n) FROM phases, (SELECT 1 UNION ALL SELECT 2)")
    query = cur.sfqid
    rows = cur.execute(
        "SELECT query_id, total_elapsed_time, compilation_time, execution_time "
        "FROM TABLE(INFORMATION_SCHEMA.QUERY_HISTORY_BY_SESSION())"
    ).fetchall()
    by_id = {r[0]: r[1:] for r in rows}
    for total, compiling, executing in by_id.values():
        if total is not None:  # the history query itself is still running
            assert compiling >= 0 and executing >= 0 and compiling + executing == total
    total, compiling, executing = by_id[query]
    assert executing > 0 and compiling < total
    # A statement without a query plan spends its time compiling.
    assert by_id[ddl][2] == 0 and by_id[ddl][1] == by_id[ddl][0]


def test_history_and_results_survive_a_restart(tmp_path: Path) -> None:
    server = Server(tmp_path)
    server.start()
    try:
        with server.connect() as conn:
            cur = conn.cursor()
            cur.execute("SELECT 'kept' AS v")
            query_id = cur.sfqid
    finally:
        server.stop()
    server.start()
    try:
        with server.connect() as conn:
            cur = conn.cursor()
            rows = cur.execute(
                "SELECT query_text, execution_status FROM TABLE(INFORMATION_SCHEMA.QUERY_HISTORY()) "
                f"WHERE query_id = '{query_id}'"
            ).fetchall()
            assert rows == [("SELECT 'kept' AS v", "SUCCESS")]
            assert cur.execute(f"SELECT v FROM TABLE(RESULT_SCAN('{query_id}'))").fetchall() == [("kept",)]
    finally:
        server.stop()

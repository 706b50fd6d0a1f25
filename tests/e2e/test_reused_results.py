"""Persisted query results reused (USE_CACHED_RESULT): a repeated query over unchanged data is
answered without scanning, and never with a stale answer. A reused result scans nothing, so
QUERY_HISTORY's BYTES_SCANNED tells a reuse (0) from a run (the table's bytes), as on Snowflake.
https://docs.snowflake.com/en/user-guide/querying-persisted-results"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from snowflake.connector.errors import ProgrammingError

from tests.e2e.conftest import Server

QUERY = "SELECT k, SUM(v) AS total FROM t GROUP BY k ORDER BY k"


def _scanned(cur: Any, sql: str) -> tuple[list[tuple[Any, ...]], int]:
    """The query's rows, and the bytes its run scanned (0 when its result was reused)."""
    rows = cur.execute(sql).fetchall()
    query_id = cur.sfqid
    (scanned,) = cur.execute(
        "SELECT bytes_scanned FROM TABLE(INFORMATION_SCHEMA.QUERY_HISTORY_BY_SESSION(RESULT_LIMIT => 100)) "
        f"WHERE query_id = '{query_id}'"
    ).fetchone()
    return rows, scanned


@pytest.fixture
def table(cur: Any) -> Any:
    cur.execute("CREATE TABLE t (k INT, v NUMBER(10, 2))")
    cur.execute("INSERT INTO t VALUES (1, 1.5), (1, 2), (2, 10)")
    return cur


def test_a_repeated_query_reuses_its_result_until_the_table_changes(table: Any) -> None:
    cur = table
    first, scanned = _scanned(cur, QUERY)
    assert first == [(1, 3.5), (2, 10)] and scanned > 0
    again, scanned = _scanned(cur, QUERY)
    assert again == first and scanned == 0
    assert [d.name for d in cur.execute(QUERY).description] == ["K", "TOTAL"]
    cur.execute("INSERT INTO t VALUES (2, 1)")
    changed, scanned = _scanned(cur, QUERY)
    assert changed == [(1, 3.5), (2, 11)] and scanned > 0
    cur.execute("DELETE FROM t WHERE k = 1")
    rows, scanned = _scanned(cur, QUERY)
    assert rows == [(2, 11)] and scanned > 0
    assert _scanned(cur, QUERY) == ([(2, 11)], 0)


def test_another_session_reuses_it_and_sees_its_own_writes(server: Server, database: str, table: Any) -> None:
    cur = table
    _scanned(cur, QUERY)
    with server.connect(database=database, schema="PUBLIC") as other:
        assert _scanned(other.cursor(), QUERY) == ([(1, 3.5), (2, 10)], 0)
        other.cursor().execute("UPDATE t SET v = 0 WHERE k = 2")
    rows, scanned = _scanned(cur, QUERY)
    assert rows == [(1, 3.5), (2, 0)] and scanned > 0


def test_use_cached_result_false_runs_every_time(table: Any) -> None:
    cur = table
    assert cur.execute("SHOW PARAMETERS LIKE 'USE_CACHED_RESULT'").fetchone()[1] == "true"
    _scanned(cur, QUERY)
    cur.execute("ALTER SESSION SET USE_CACHED_RESULT = FALSE")
    assert _scanned(cur, QUERY)[1] > 0
    assert _scanned(cur, QUERY)[1] > 0
    cur.execute("ALTER SESSION UNSET USE_CACHED_RESULT")
    assert _scanned(cur, QUERY)[1] == 0


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT k, RANDOM() AS r FROM t",
        "SELECT k, UUID_STRING() AS u FROM t",
        "SELECT k, CURRENT_TIMESTAMP() AS now FROM t",
        "SELECT k FROM t WHERE SYSDATE() > '2000-01-01'",
        "SELECT k FROM t WHERE k < DATEDIFF(day, CURRENT_DATE(), '2000-01-01')",
    ],
)
def test_non_reusable_functions_run_every_time(table: Any, sql: str) -> None:
    cur = table
    assert _scanned(cur, sql)[1] > 0
    assert _scanned(cur, sql)[1] > 0


def test_the_information_schema_is_read_every_time(table: Any) -> None:
    cur = table
    sql = "SELECT table_name FROM information_schema.tables WHERE table_schema = 'PUBLIC' ORDER BY 1"
    assert cur.execute(sql).fetchall() == [("T",)]
    cur.execute("CREATE TABLE u (a INT)")
    assert cur.execute(sql).fetchall() == [("T",), ("U",)]


def test_random_values_are_drawn_again(table: Any) -> None:
    cur = table
    sql = "SELECT RANDOM() AS r FROM t"
    assert cur.execute(sql).fetchall() != cur.execute(sql).fetchall()


def test_views_time_travel_and_variables_are_part_of_what_is_reused(table: Any) -> None:
    cur = table
    before = cur.execute("SELECT COUNT(*) FROM t").fetchone()[0]
    cur.execute("CREATE VIEW big AS SELECT k, v FROM t WHERE v > 2")
    assert _scanned(cur, "SELECT COUNT(*) FROM big")[0] == [(1,)]
    cur.execute("CREATE OR REPLACE VIEW big AS SELECT k, v FROM t WHERE v > 1")
    assert _scanned(cur, "SELECT COUNT(*) FROM big")[0] == [(3,)]
    inserted = cur.execute("INSERT INTO t VALUES (3, 3)").sfqid
    old = f"SELECT COUNT(*) FROM t BEFORE(STATEMENT => '{inserted}')"
    assert _scanned(cur, old)[0] == [(before,)]
    assert _scanned(cur, old) == ([(before,)], 0)
    cur.execute("SET floor = 2")
    by_variable = "SELECT COUNT(*) FROM t WHERE v > $floor"
    assert _scanned(cur, by_variable)[0] == [(2,)]
    cur.execute("SET floor = 0")
    assert _scanned(cur, by_variable)[0] == [(4,)]


def test_a_reused_result_still_needs_the_privilege(server: Server, database: str, table: Any) -> None:
    tag = uuid.uuid4().hex[:6].upper()
    role, user = f"READER_{tag}", f"READER_{tag}"
    cur = table
    _scanned(cur, f"SELECT k, SUM(v) AS total FROM {database}.public.t GROUP BY k ORDER BY k")
    cur.execute(f"CREATE ROLE {role}")
    cur.execute(f"CREATE USER {user} PASSWORD = 'pw-1' DEFAULT_ROLE = {role}")
    cur.execute(f"GRANT ROLE {role} TO USER {user}")
    cur.execute(f"GRANT USAGE ON DATABASE {database} TO ROLE {role}")
    cur.execute(f"GRANT USAGE ON SCHEMA {database}.public TO ROLE {role}")
    sql = f"SELECT k, SUM(v) AS total FROM {database}.public.t GROUP BY k ORDER BY k"
    with server.connect(user=user, password="pw-1") as reader:
        with pytest.raises(ProgrammingError) as denied:
            reader.cursor().execute(sql)
        assert denied.value.errno == 2003
        cur.execute(f"GRANT SELECT ON TABLE {database}.public.t TO ROLE {role}")
        assert _scanned(reader.cursor(), sql) == ([(1, 3.5), (2, 10)], 0)

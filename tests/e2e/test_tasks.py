"""Tasks through the connector: CREATE / ALTER / DROP / DESCRIBE / EXECUTE TASK, SHOW TASKS, task
graphs (AFTER), WHEN conditions over streams, the scheduler, and INFORMATION_SCHEMA.TASK_HISTORY().
https://docs.snowflake.com/en/user-guide/tasks-intro
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from snowflake.connector.errors import ProgrammingError

from tests.e2e.conftest import Server


def rows(cur: Any, sql: str) -> list[tuple[Any, ...]]:
    return cur.execute(sql).fetchall()


def history(cur: Any, task: str) -> list[tuple[Any, ...]]:
    """(STATE, ERROR_CODE, SCHEDULED_FROM) of the task's runs, oldest first."""
    sql = (
        "SELECT state, error_code, scheduled_from FROM TABLE(INFORMATION_SCHEMA.TASK_HISTORY("
        f"TASK_NAME => '{task}')) ORDER BY scheduled_time, query_start_time"
    )
    return rows(cur, sql)


def test_a_task_is_made_suspended_and_shown(cur: Any) -> None:
    created = rows(
        cur,
        "CREATE TASK t1 WAREHOUSE = wh SCHEDULE = '5 MINUTE' COMMENT = 'nightly' "
        "USER_TASK_TIMEOUT_MS = 60000 AS INSERT INTO log VALUES (1)",
    )
    assert created == [("Task T1 successfully created.",)]
    cur.execute("SHOW TASKS LIKE 't%'")
    names = [d.name for d in cur.description]
    shown = dict(zip(names, cur.fetchone(), strict=True))
    assert names[:12] == [
        "created_on", "name", "id", "database_name", "schema_name", "owner",
        "comment", "warehouse", "schedule", "predecessors", "state", "definition",
    ]  # fmt: skip
    assert (shown["name"], shown["comment"], shown["warehouse"], shown["schedule"]) == (
        "T1",
        "nightly",
        "WH",
        "5 MINUTE",
    )
    assert (shown["state"], shown["definition"], shown["owner"]) == (
        "suspended",
        "INSERT INTO log VALUES (1)",
        "ACCOUNTADMIN",
    )
    cur.execute("ALTER TASK t1 RESUME")
    assert rows(cur, "DESCRIBE TASK t1")[0][10] == "started"
    cur.execute("ALTER TASK t1 SUSPEND")
    cur.execute(
        "ALTER TASK t1 SET SCHEDULE = 'USING CRON 0 9 * * MON-FRI Europe/Berlin', COMMENT = 'weekdays'"
    )
    described = rows(cur, "DESC TASK t1")[0]
    assert (described[6], described[8], described[10]) == (
        "weekdays",
        "USING CRON 0 9 * * MON-FRI Europe/Berlin",
        "suspended",
    )
    assert rows(cur, "CREATE TASK IF NOT EXISTS t1 AS SELECT 1") == [
        ("T1 already exists, statement succeeded.",)
    ]
    assert rows(cur, "DROP TASK t1") == [("T1 successfully dropped.",)]
    assert rows(cur, "SHOW TASKS") == []


def test_task_errors(cur: Any) -> None:
    cur.execute("CREATE TASK t AS SELECT 1")
    cases = {
        "CREATE TASK t AS SELECT 2": 2002,  # exists
        "CREATE TASK u SCHEDULE = 'every day' AS SELECT 1": 1008,
        "CREATE TASK u SCHEDULE = 'USING CRON 61 * * * * UTC' AS SELECT 1": 1008,
        "CREATE TASK u SCHEDULE = 'USING CRON 0 * * * * Mars/Olympus' AS SELECT 1": 1008,
        "CREATE TASK u AFTER missing AS SELECT 1": 2003,
        "CREATE TASK u AS SELEC 1": 1003,  # the statement must parse
        "ALTER TASK missing RESUME": 2003,
        "EXECUTE TASK missing": 2003,
        "DESCRIBE TASK missing": 2003,
    }
    for sql, code in cases.items():
        with pytest.raises(ProgrammingError) as info:
            cur.execute(sql)
        assert info.value.errno == code, sql
    assert rows(cur, "DROP TASK IF EXISTS missing") == [("Statement executed successfully.",)]
    assert [r[1] for r in rows(cur, "SHOW TASKS")] == ["T"]  # nothing half-made


def test_execute_task_runs_a_graph_in_order_and_records_its_history(cur: Any) -> None:
    cur.execute("CREATE TABLE log (step TEXT, who TEXT, db TEXT)")
    cur.execute("CREATE TASK root AS INSERT INTO log SELECT 'root', CURRENT_USER(), CURRENT_DATABASE()")
    cur.execute("CREATE TASK child AFTER root AS INSERT INTO log SELECT 'child', CURRENT_ROLE(), NULL")
    cur.execute(
        "CREATE TASK grandchild AFTER child AS BEGIN "
        "INSERT INTO log VALUES ('block 1', NULL, NULL); INSERT INTO log VALUES ('block 2', NULL, NULL); END"
    )
    database = rows(cur, "SELECT CURRENT_DATABASE()")[0][0]
    # Children run only when resumed; the root runs on EXECUTE TASK whatever its state.
    assert rows(cur, "EXECUTE TASK root AWAIT") == [("Task ROOT is scheduled to run immediately.",)]
    assert rows(cur, "SELECT step, who, db FROM log") == [("root", "SYSTEM", database)]
    # https://docs.snowflake.com/en/sql-reference/functions/system_task_dependents_enable
    assert rows(cur, "SELECT SYSTEM$TASK_DEPENDENTS_ENABLE('root')") == [("",)]
    assert {r[1]: r[10] for r in rows(cur, "SHOW TASKS")} == {
        "CHILD": "started",
        "GRANDCHILD": "started",
        "ROOT": "started",
    }
    cur.execute("EXECUTE TASK root AWAIT")
    steps = rows(cur, "SELECT step, who FROM log WHERE step <> 'root' ORDER BY step")
    assert steps == [("block 1", None), ("block 2", None), ("child", "ACCOUNTADMIN")]
    assert history(cur, "root") == [("SUCCEEDED", None, "EXECUTE_TASK")] * 2
    assert history(cur, "GRANDCHILD") == [("SUCCEEDED", None, "EXECUTE_TASK")]
    cur.execute(
        "SELECT COUNT(DISTINCT run_id), COUNT(DISTINCT root_task_id) "
        "FROM TABLE(INFORMATION_SCHEMA.TASK_HISTORY()) WHERE name IN ('ROOT', 'CHILD', 'GRANDCHILD') "
        "AND scheduled_time >= (SELECT MAX(scheduled_time) "
        "FROM TABLE(INFORMATION_SCHEMA.TASK_HISTORY(TASK_NAME => 'ROOT')))"
    )
    assert cur.fetchone() == (1, 1)  # the last graph run: one run id, one root
    with pytest.raises(ProgrammingError):
        cur.execute("EXECUTE TASK child")  # only a root task is executed


def test_a_failed_run_is_recorded_and_stops_the_graph(cur: Any) -> None:
    cur.execute("CREATE TABLE out (n INT)")
    cur.execute("CREATE TASK bad AS INSERT INTO missing_table VALUES (1)")
    cur.execute("CREATE TASK after_bad AFTER bad AS INSERT INTO out VALUES (1)")
    cur.execute("ALTER TASK after_bad RESUME")
    cur.execute("EXECUTE TASK bad AWAIT")
    assert history(cur, "BAD") == [("FAILED", "2003", "EXECUTE_TASK")]
    assert history(cur, "AFTER_BAD") == []
    message = rows(
        cur, "SELECT error_message FROM TABLE(INFORMATION_SCHEMA.TASK_HISTORY(ERROR_ONLY => TRUE)) LIMIT 1"
    )
    assert "MISSING_TABLE" in message[0][0]
    assert rows(cur, "SELECT COUNT(*) FROM out") == [(0,)]
    # SUSPEND_TASK_AFTER_NUM_FAILURES: two failed runs in a row suspend it (Snowflake's default is 10).
    cur.execute("ALTER TASK bad SET SUSPEND_TASK_AFTER_NUM_FAILURES = 2")
    cur.execute("ALTER TASK bad RESUME")
    cur.execute("EXECUTE TASK bad AWAIT")
    cur.execute("SHOW TASKS LIKE 'BAD'")
    shown = dict(zip([d.name for d in cur.description], cur.fetchone(), strict=True))
    assert (shown["state"], shown["last_suspended_reason"]) == ("suspended", "SUSPENDED_DUE_TO_ERRORS")
    with pytest.raises(ProgrammingError) as info:
        cur.execute("ALTER TASK bad SET SUSPEND_TASK_AFTER_NUM_FAILURES = many")
    assert info.value.errno == 1008


def test_when_a_stream_has_data_the_task_consumes_it(cur: Any) -> None:
    cur.execute("CREATE TABLE raw (id INT)")
    cur.execute("CREATE TABLE copied (id INT)")
    cur.execute("CREATE STREAM raw_changes ON TABLE raw")
    cur.execute(
        "CREATE TASK move WHEN SYSTEM$STREAM_HAS_DATA('raw_changes') "
        "AS INSERT INTO copied SELECT id FROM raw_changes"
    )
    cur.execute("EXECUTE TASK move AWAIT")
    assert history(cur, "MOVE") == [("SKIPPED", None, "EXECUTE_TASK")]
    cur.execute("INSERT INTO raw VALUES (1), (2)")
    cur.execute("EXECUTE TASK move AWAIT")
    assert rows(cur, "SELECT id FROM copied ORDER BY id") == [(1,), (2,)]
    assert rows(cur, "SELECT SYSTEM$STREAM_HAS_DATA('raw_changes')") == [(False,)]  # consumed
    assert [r[0] for r in history(cur, "MOVE")] == ["SKIPPED", "SUCCEEDED"]


def test_the_scheduler_runs_a_resumed_task_until_it_is_suspended(cur: Any) -> None:
    cur.execute("CREATE TABLE ticks (at TIMESTAMP_LTZ)")
    cur.execute("CREATE TASK tick SCHEDULE = '1 SECOND' AS INSERT INTO ticks SELECT CURRENT_TIMESTAMP()")
    time.sleep(1.5)
    assert rows(cur, "SELECT COUNT(*) FROM ticks") == [(0,)]  # made suspended
    cur.execute("ALTER TASK tick RESUME")
    deadline = time.time() + 30
    while rows(cur, "SELECT COUNT(*) FROM ticks")[0][0] < 2 and time.time() < deadline:
        time.sleep(0.3)
    cur.execute("ALTER TASK tick SUSPEND")
    counted = rows(cur, "SELECT COUNT(*) FROM ticks")[0][0]
    assert counted >= 2
    scheduled = history(cur, "TICK")
    assert {r[2] for r in scheduled} == {"SCHEDULE"} and len(scheduled) >= 2
    time.sleep(2)  # a run claimed before SUSPEND may still finish; then nothing more starts
    settled = rows(cur, "SELECT COUNT(*) FROM ticks")[0][0]
    time.sleep(2.5)
    assert rows(cur, "SELECT COUNT(*) FROM ticks")[0][0] == settled


def test_a_run_cut_by_a_server_stop_is_cancelled(tmp_path: Any) -> None:
    """A run still executing when its server stops is CANCELLED in TASK_HISTORY, not left
    EXECUTING for ever; the task itself is as it was."""
    server = Server(tmp_path)
    server.start()
    try:
        with server.connect() as conn:
            cur = conn.cursor()
            cur.execute("CREATE TASK slow AS CALL SYSTEM$WAIT(10, 'MINUTES')")
            cur.execute("EXECUTE TASK slow")
            deadline = time.time() + 30
            while history(cur, "SLOW") != [("EXECUTING", None, "EXECUTE_TASK")] and time.time() < deadline:
                time.sleep(0.2)
            assert history(cur, "SLOW") == [("EXECUTING", None, "EXECUTE_TASK")]
    finally:
        server.stop()
    server.start()
    try:
        with server.connect() as conn:
            cur = conn.cursor()
            assert history(cur, "SLOW") == [("CANCELLED", None, "EXECUTE_TASK")]
            sql = "SELECT error_message FROM TABLE(INFORMATION_SCHEMA.TASK_HISTORY(TASK_NAME => 'SLOW'))"
            assert rows(cur, sql) == [("The server stopped during the run.",)]
            assert [r[1] for r in rows(cur, "SHOW TASKS")] == ["SLOW"]
    finally:
        server.stop()

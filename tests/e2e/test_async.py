"""Asynchronous and long-running statements (protocol §9): execute_async, query status, results
by query id, abort, and a synchronous statement that outlives the server's sync wait."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import snowflake.connector
from snowflake.connector import SnowflakeConnection
from snowflake.connector.constants import QueryStatus
from snowflake.connector.cursor import SnowflakeCursor

from tests.e2e.conftest import Server

# Streams batches until aborted: the engine checks the cancel flag between batches.
ENDLESS = "select seq4() from table(generator(rowcount => 10000000000))"
# An aggregate long enough that its result comes only through polls.
SLOW_ROWS = 300_000_000
SLOW = f"select sum(seq4()) from table(generator(rowcount => {SLOW_ROWS}))"


def wait_done(conn: SnowflakeConnection, query_id: str, limit: float = 60) -> QueryStatus:
    """Polls the query's status until it has finished (the limit only guards against hangs)."""
    deadline = time.monotonic() + limit
    status = conn.get_query_status(query_id)
    while (conn.is_still_running(status) or status == QueryStatus.ABORTING) and time.monotonic() < deadline:
        time.sleep(0.05)
        status = conn.get_query_status(query_id)
    return status


def wait_started(conn: SnowflakeConnection, query_id: str, limit: float = 30) -> QueryStatus:
    """The status once the statement has left the queue: on a loaded machine the worker may take
    a moment to pick an async statement up (the limit only guards against hangs)."""
    deadline = time.monotonic() + limit
    status = conn.get_query_status(query_id)
    while status == QueryStatus.QUEUED and time.monotonic() < deadline:
        time.sleep(0.02)
        status = conn.get_query_status(query_id)
    return status


@pytest.fixture(scope="module")
def polling_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """Never waits for a statement: a query-request whose statement is not done at once answers
    "in progress", so the client must poll. Debug logging records the polls."""
    srv = Server(tmp_path_factory.mktemp("embucket-polling"), sync_wait="0", log_level="debug")
    srv.start()
    yield srv
    srv.stop()


def test_execute_async_then_results_by_id(conn: SnowflakeConnection, cur: SnowflakeCursor) -> None:
    cur.execute("create table t (i int, s varchar)")
    cur.execute("insert into t values (1, 'a'), (2, 'b'), (3, 'c')")
    cur.execute_async("select i, s from t order by i")
    query_id = cur.sfqid
    assert query_id is not None
    uuid.UUID(query_id)  # status calls need UUID-shaped ids
    assert wait_done(conn, query_id) == QueryStatus.SUCCESS
    assert conn.get_query_status_throw_if_error(query_id) == QueryStatus.SUCCESS
    with conn.cursor() as other:
        other.get_results_from_sfqid(query_id)
        assert other.fetchall() == [(1, "a"), (2, "b"), (3, "c")]
        assert [d.name for d in other.description] == ["I", "S"]


def test_results_by_id_without_waiting(conn: SnowflakeConnection, cur: SnowflakeCursor) -> None:
    cur.execute_async("select 42 as answer")
    query_id = cur.sfqid
    # get_results_from_sfqid waits for the query itself.
    cur.get_results_from_sfqid(query_id)
    assert cur.fetchall() == [(42,)]


def test_execute_async_dml(conn: SnowflakeConnection, cur: SnowflakeCursor) -> None:
    cur.execute("create table t (i int)")
    cur.execute_async("insert into t values (1), (2)")
    assert wait_done(conn, cur.sfqid) == QueryStatus.SUCCESS
    assert cur.execute("select count(*) from t").fetchall() == [(2,)]


def test_async_failure_raises_with_errno(conn: SnowflakeConnection, cur: SnowflakeCursor) -> None:
    cur.execute_async("select * from no_such_table")
    query_id = cur.sfqid
    status = wait_done(conn, query_id)
    assert status == QueryStatus.FAILED_WITH_ERROR
    assert conn.is_an_error(status)
    with pytest.raises(snowflake.connector.errors.ProgrammingError) as info:
        conn.get_query_status_throw_if_error(query_id)
    assert info.value.errno == 2003
    with pytest.raises(snowflake.connector.errors.ProgrammingError) as info, conn.cursor() as other:
        other.get_results_from_sfqid(query_id)
        other.fetchall()
    assert info.value.errno == 2003


def test_unknown_query_id_has_no_data(conn: SnowflakeConnection) -> None:
    assert conn.get_query_status(str(uuid.uuid4())) == QueryStatus.NO_DATA


def test_abort_running_query(server: Server, conn: SnowflakeConnection, cur: SnowflakeCursor) -> None:
    cur.execute_async(ENDLESS)
    query_id = cur.sfqid
    try:
        assert wait_started(conn, query_id) == QueryStatus.RUNNING
        # The server keeps serving other sessions while the statement runs.
        with server.connect() as second:
            assert second.cursor().execute("select 1").fetchall() == [(1,)]
        assert conn.get_query_status(query_id) == QueryStatus.RUNNING
    finally:
        aborted = cur.abort_query(query_id)
    assert aborted is True
    status = wait_done(conn, query_id)
    assert status in (QueryStatus.ABORTED, QueryStatus.FAILED_WITH_ERROR)
    assert conn.is_an_error(status)
    with pytest.raises(snowflake.connector.errors.ProgrammingError) as info:
        conn.get_query_status_throw_if_error(query_id)
    assert info.value.errno == 604
    with pytest.raises(snowflake.connector.errors.ProgrammingError) as info, conn.cursor() as other:
        other.get_results_from_sfqid(query_id)
        other.fetchall()
    assert info.value.errno == 604
    # Nothing left to abort.
    assert cur.abort_query(query_id) is False


def test_sync_statement_longer_than_sync_wait_is_polled(polling_server: Server) -> None:
    with polling_server.connect() as conn, conn.cursor() as cur:
        rows = cur.execute(SLOW).fetchall()
        query_id = cur.sfqid
    assert rows == [(SLOW_ROWS * (SLOW_ROWS - 1) // 2,)]
    # The first answer said "in progress"; the client then polled for the result.
    assert f"GET /queries/{query_id}/result" in Path(polling_server.log).read_text()


def test_sync_polling_of_a_failing_statement(polling_server: Server) -> None:
    with (
        polling_server.connect() as conn,
        conn.cursor() as cur,
        pytest.raises(snowflake.connector.errors.ProgrammingError) as info,
    ):
        # Fails only once the aggregate is done: the error arrives through the polls.
        cur.execute(f"select (sum(seq4()) || 'x')::int from table(generator(rowcount => {SLOW_ROWS}))")
    assert info.value.errno == 100038


def test_system_wait_waits_and_a_cancel_ends_it(conn: SnowflakeConnection, cur: SnowflakeCursor) -> None:
    """CALL SYSTEM$WAIT(amount [, unit]) answers as Snowflake documents it ("waited 2 minutes"),
    and checks for a cancel while it waits."""
    start = time.monotonic()
    assert cur.execute("CALL SYSTEM$WAIT(300, 'MILLISECONDS')").fetchall() == [("waited 300 milliseconds",)]
    assert time.monotonic() - start >= 0.3
    assert cur.description[0].name == "SYSTEM$WAIT"
    with pytest.raises(snowflake.connector.errors.ProgrammingError):
        cur.execute("CALL SYSTEM$WAIT(1, 'FORTNIGHTS')")
    cur.execute_async("CALL SYSTEM$WAIT(10, 'MINUTES')")
    query_id = cur.sfqid
    assert wait_started(conn, query_id) == QueryStatus.RUNNING
    start = time.monotonic()
    assert cur.abort_query(query_id) is True
    assert conn.is_an_error(wait_done(conn, query_id))
    assert time.monotonic() - start < 30
    with pytest.raises(snowflake.connector.errors.ProgrammingError) as info:
        conn.get_query_status_throw_if_error(query_id)
    assert info.value.errno == 604


def test_system_cancel_query_ends_a_running_statement(
    server: Server, conn: SnowflakeConnection, cur: SnowflakeCursor
) -> None:
    """SELECT SYSTEM$CANCEL_QUERY('<id>') from another session answers as the docs show
    ("query [<id>] terminated."); a statement no longer running cannot be canceled."""
    cur.execute_async("CALL SYSTEM$WAIT(10, 'MINUTES')")
    query_id = cur.sfqid
    assert wait_started(conn, query_id) == QueryStatus.RUNNING
    with server.connect() as second, second.cursor() as other:
        rows = other.execute(f"SELECT SYSTEM$CANCEL_QUERY('{query_id}')").fetchall()
        assert rows == [(f"query [{query_id}] terminated.",)]
        assert other.description[0].name == f"SYSTEM$CANCEL_QUERY('{query_id.upper()}')"
        assert conn.is_an_error(wait_done(conn, query_id))
        with pytest.raises(snowflake.connector.errors.ProgrammingError) as info:
            other.execute(f"select system$cancel_query('{query_id}');")
        assert info.value.errno == 100000
        assert "not currently executing" in info.value.msg
        assert other.execute("SELECT 1").fetchall() == [(1,)]

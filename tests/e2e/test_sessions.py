"""Sessions (protocol §3-4, §13.4-13.6): login and its failures, tokens (refusal, expiry and
renewal, heartbeat, logout), gzip request bodies, and the session's context and parameters."""

from __future__ import annotations

import datetime as dt
import gzip
import json
import time
import urllib.error
import urllib.request
import uuid
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
import snowflake.connector
from snowflake.connector import SnowflakeConnection
from snowflake.connector.constants import QueryStatus
from snowflake.connector.cursor import SnowflakeCursor

from tests.e2e.conftest import Server

LTZ = "select '2024-01-01 00:00:00 +00:00'::timestamp_ltz"
UTC_MIDNIGHT = dt.datetime(2024, 1, 1, tzinfo=dt.UTC)


@pytest.fixture(scope="module")
def short_token_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """Session tokens live 2 s, so a test can outlive one."""
    srv = Server(tmp_path_factory.mktemp("embucket-short-tokens"), session_ttl="2")
    srv.start()
    yield srv
    srv.stop()


def session_token(conn: SnowflakeConnection) -> str:
    """The connection's current session token (`rest` is deprecated on 5.x, still there)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        token = conn.rest.token
    assert token
    return str(token)


def call(
    server: Server,
    path: str,
    body: object = None,
    *,
    token: str | None = None,
    authorization: str | None = None,
    compress: bool = False,
    raw: bytes | None = None,
) -> tuple[int, str]:
    """One HTTP call to the server with urllib; returns the status and the body text."""
    headers = {"Accept": "application/json", "Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f'Snowflake Token="{token}"'
    if authorization is not None:
        headers["Authorization"] = authorization
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    if compress and data is not None:
        data = gzip.compress(data)
        headers["Content-Encoding"] = "gzip"
    method = "GET" if data is None else "POST"
    request = urllib.request.Request(
        f"http://127.0.0.1:{server.port}{path}", data=data, headers=headers, method=method
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as e:  # 401 tells a 5.x connector to renew its token
        return e.code, e.read().decode()


def refused(status: int, text: str) -> dict[str, Any]:
    """Asserts a Snowflake-style refusal: HTTP 200, success false, a 39xxxx code, no traceback."""
    assert status == 200
    assert "Traceback" not in text
    answer: dict[str, Any] = json.loads(text)
    assert answer["success"] is False
    assert isinstance(answer["code"], str)
    assert answer["code"].startswith("39")
    assert len(answer["code"]) == 6
    return answer


# --- login --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("user", "password"), [("embucket", "wrong"), ("nobody", "embucket")])
def test_bad_credentials(server: Server, user: str, password: str) -> None:
    with pytest.raises(snowflake.connector.errors.DatabaseError) as info:
        server.connect(user=user, password=password)
    assert info.value.errno == 390100
    assert info.value.sqlstate == "28000"


def test_login_sets_database_and_schema(server: Server, database: str) -> None:
    with server.connect(database=database.lower(), schema="public") as conn:
        assert (conn.database, conn.schema) == (database, "PUBLIC")
        row = conn.cursor().execute("select current_database(), current_schema()").fetchone()
    assert row == (database, "PUBLIC")


def test_login_to_a_missing_database_has_no_current_database(server: Server) -> None:
    with server.connect(database="NO_SUCH_DB_X", schema="PUBLIC") as conn:
        assert conn.cursor().execute("select current_database()").fetchone() == (None,)


def test_current_user_version_and_session(server: Server) -> None:
    with server.connect() as conn:
        user, version, session = (
            conn.cursor().execute("select current_user(), current_version(), current_session()").fetchone()
        )
        assert user == "EMBUCKET"
        assert version
        assert session == str(conn.session_id)
        # https://docs.snowflake.com/en/sql-reference/functions/current_statement
        sql = "SELECT CURRENT_STATEMENT() AS s, 1 + 1"
        assert conn.cursor().execute(f"  {sql}  ").fetchone() == (sql, 2)


def test_login_with_gzip_body_then_gzip_query(server: Server) -> None:
    body = {"data": {"LOGIN_NAME": "embucket", "PASSWORD": "embucket", "ACCOUNT_NAME": "embucket"}}
    status, text = call(server, "/session/v1/login-request?databaseName=EMBUCKET", body, compress=True)
    login = json.loads(text)
    assert status == 200
    assert login["success"] is True
    assert login["data"]["sessionInfo"]["databaseName"] == "EMBUCKET"
    query = {"sqlText": "select 1 as one", "asyncExec": False, "sequenceId": 1}
    status, text = call(
        server, "/queries/v1/query-request", query, token=login["data"]["token"], compress=True
    )
    answer = json.loads(text)
    assert answer["success"] is True
    assert [c["name"] for c in answer["data"]["rowtype"]] == ["ONE"]


# --- tokens -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "authorization",
    [None, 'Snowflake Token="bogus"', 'Snowflake Token="None"', "Basic ZW1idWNrZXQ6ZW1idWNrZXQ="],
)
@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/queries/v1/query-request", {"sqlText": "select 1"}),
        ("/session/heartbeat", {}),
        (f"/queries/{uuid.uuid4()}/result", None),
        (f"/monitoring/queries/{uuid.uuid4()}", None),
    ],
)
def test_unauthenticated_requests_are_refused(
    server: Server, authorization: str | None, path: str, body: object
) -> None:
    refused(*call(server, path, body, authorization=authorization))


@pytest.mark.parametrize("raw", [b"{not json", b"\x1f\x8b\x08garbage", b"\xff\xfe"])
def test_malformed_body_is_refused_cleanly(server: Server, raw: bytes) -> None:
    with server.connect() as conn:
        status, text = call(server, "/queries/v1/query-request", raw=raw, token=session_token(conn))
    assert status == 200
    assert "Traceback" not in text
    assert json.loads(text)["success"] is False


def test_heartbeat_accepts_the_session_token(server: Server) -> None:
    with server.connect() as conn:
        status, text = call(server, "/session/heartbeat", {}, token=session_token(conn))
        assert status == 200
        assert json.loads(text)["success"] is True
        # The session is still usable afterwards.
        assert conn.cursor().execute("select 1").fetchone() == (1,)


def test_closed_session_token_is_refused(server: Server) -> None:
    conn = server.connect()
    token = session_token(conn)
    assert call(server, "/session/heartbeat", {}, token=token)[0] == 200
    conn.close()
    refused(*call(server, "/queries/v1/query-request", {"sqlText": "select 1"}, token=token))
    refused(*call(server, "/session/heartbeat", {}, token=token))


def test_expired_token_is_renewed_transparently(short_token_server: Server) -> None:
    with short_token_server.connect() as conn, conn.cursor() as cur:
        assert cur.execute("select 1").fetchone() == (1,)
        old = session_token(conn)
        time.sleep(3)
        # The server answers "expired"; the connector renews (POST /session/token-request), replays.
        assert cur.execute("select 2").fetchone() == (2,)
        assert session_token(conn) != old
        # The replaced token no longer runs anything; it can only be renewed (again).
        query = {"sqlText": "select 1"}
        status, text = call(short_token_server, "/queries/v1/query-request", query, token=old)
        assert status in (200, 401)
        assert json.loads(text)["success"] is False
        assert json.loads(text)["code"] == "390112"


def _login(server: Server) -> dict[str, Any]:
    body = {"data": {"LOGIN_NAME": "embucket", "PASSWORD": "embucket", "CLIENT_APP_VERSION": "4.8.1"}}
    answer: dict[str, Any] = json.loads(call(server, "/session/v1/login-request", body)[1])["data"]
    return answer


def test_concurrent_renewals_of_one_token_agree(short_token_server: Server) -> None:
    login = _login(short_token_server)
    time.sleep(3)
    query = {"sqlText": "select 1"}
    status, text = call(short_token_server, "/queries/v1/query-request", query, token=login["token"])
    assert (status, json.loads(text)["code"]) == (200, "390112")  # a 4.x client: HTTP 200
    renew = {"oldSessionToken": login["token"], "requestType": "RENEW"}
    first, second = (
        json.loads(call(short_token_server, "/session/token-request", renew, token=login["masterToken"])[1])
        for _ in range(2)
    )
    assert first["success"] and second["success"]
    assert first["data"]["sessionToken"] == second["data"]["sessionToken"] != login["token"]
    status, text = call(
        short_token_server, "/queries/v1/query-request", query, token=first["data"]["sessionToken"]
    )
    assert json.loads(text)["success"] is True


def test_expired_token_renewed_for_status_and_results(short_token_server: Server) -> None:
    with short_token_server.connect() as conn, conn.cursor() as cur:
        cur.execute_async("select 42")
        query_id = cur.sfqid
        time.sleep(3)
        assert conn.get_query_status(query_id) == QueryStatus.SUCCESS
        cur.get_results_from_sfqid(query_id)
        assert cur.fetchall() == [(42,)]


def test_expired_token_renewed_for_abort(short_token_server: Server) -> None:
    with short_token_server.connect() as conn, conn.cursor() as cur:
        cur.execute_async("select seq4() from table(generator(rowcount => 10000000000))")
        aborted = False
        try:
            time.sleep(3)
            aborted = cur.abort_query(cur.sfqid)
        finally:
            if not aborted:  # never leave the endless statement running
                short_token_server.stop()
                short_token_server.start()
        assert aborted is True


def test_cancel_by_request_id(server: Server) -> None:
    """POST /queries/v1/abort-request names the running statement by the requestId it came with."""
    with server.connect() as conn:
        token, request_id = session_token(conn), str(uuid.uuid4())
        query = {"sqlText": "select seq4() from table(generator(rowcount => 10000000000))", "asyncExec": True}
        answer = json.loads(
            call(server, f"/queries/v1/query-request?requestId={request_id}", query, token=token)[1]
        )
        query_id = answer["data"]["queryId"]
        cancel = {"requestId": request_id, "sqlText": query["sqlText"]}
        first = json.loads(call(server, "/queries/v1/abort-request", cancel, token=token)[1])
        if not first["success"]:  # never leave the endless statement running
            call(server, f"/queries/{query_id}/abort-request", {}, token=token)
        assert first["success"] is True
        deadline = time.monotonic() + 60
        while conn.get_query_status(query_id) == QueryStatus.ABORTING and time.monotonic() < deadline:
            time.sleep(0.05)
        assert conn.get_query_status(query_id) == QueryStatus.ABORTED
        second = json.loads(call(server, "/queries/v1/abort-request", cancel, token=token)[1])
        assert second["success"] is False


# --- session context ----------------------------------------------------------------------------


def _context(cur: SnowflakeCursor) -> tuple[object, ...]:
    row = cur.execute(
        "select current_database(), current_schema(), current_warehouse(), current_role()"
    ).fetchone()
    assert row is not None
    return tuple(row)


def test_use_commands_update_connection_and_current_functions(
    conn: SnowflakeConnection, cur: SnowflakeCursor, database: str
) -> None:
    cur.execute("create schema other")
    cur.execute("use schema other")
    assert (conn.database, conn.schema) == (database, "OTHER")
    assert _context(cur)[:2] == (database, "OTHER")
    cur.execute("use warehouse wh_two")
    assert conn.warehouse == "WH_TWO"
    assert _context(cur)[2] == "WH_TWO"
    cur.execute("use role sysadmin")  # ACCOUNTADMIN inherits SYSADMIN, so the user may use it
    assert conn.role == "SYSADMIN"
    assert _context(cur)[3] == "SYSADMIN"
    cur.execute("use database embucket")
    assert (conn.database, conn.schema) == ("EMBUCKET", "PUBLIC")
    assert _context(cur) == ("EMBUCKET", "PUBLIC", "WH_TWO", "SYSADMIN")
    cur.execute("use role accountadmin")  # the owner of the test's database
    cur.execute(f"use {database}.other")
    assert (conn.database, conn.schema) == (database, "OTHER")


def test_create_database_or_schema_makes_it_current(
    conn: SnowflakeConnection, cur: SnowflakeCursor, database: str
) -> None:
    """As on Snowflake, CREATE DATABASE uses the new database (and its PUBLIC schema) and CREATE
    SCHEMA the new schema; IF NOT EXISTS that finds one already there changes nothing."""
    cur.execute("create schema made_here")
    assert (conn.database, conn.schema) == (database, "MADE_HERE")
    assert _context(cur)[:2] == (database, "MADE_HERE")
    cur.execute("create table t_in_made_here (a int)")
    assert cur.execute(f"select count(*) from {database}.made_here.t_in_made_here").fetchone() == (0,)
    other = f"{database}_SECOND"
    try:
        cur.execute(f"create database {other}")
        assert (conn.database, conn.schema) == (other, "PUBLIC")
        assert _context(cur)[:2] == (other, "PUBLIC")
        cur.execute(f"create schema if not exists {database}.made_here")
        assert _context(cur)[:2] == (other, "PUBLIC")
        cur.execute(f"create or replace schema {database}.made_again")
        assert _context(cur)[:2] == (database, "MADE_AGAIN")
    finally:
        cur.execute(f"drop database if exists {other}")


def test_use_missing_schema_fails_and_keeps_context(
    conn: SnowflakeConnection, cur: SnowflakeCursor, database: str
) -> None:
    with pytest.raises(snowflake.connector.errors.ProgrammingError) as info:
        cur.execute("use schema no_such_schema")
    assert info.value.errno == 2003
    assert _context(cur)[:2] == (database, "PUBLIC")


def test_alter_session_timezone_renders_ltz(conn: SnowflakeConnection, cur: SnowflakeCursor) -> None:
    cur.execute("alter session set timezone = 'Asia/Tokyo'")
    (value,) = cur.execute(LTZ).fetchone()
    assert value == UTC_MIDNIGHT
    assert value.utcoffset() == dt.timedelta(hours=9)
    cur.execute("alter session set timezone = 'America/New_York'")
    (value,) = cur.execute(LTZ).fetchone()
    assert value == UTC_MIDNIGHT
    assert value.utcoffset() == dt.timedelta(hours=-5)


def test_login_session_parameters(server: Server) -> None:
    params = {"TIMEZONE": "Asia/Kolkata", "QUERY_TAG": "from-login"}
    with server.connect(session_parameters=params) as conn:
        (value,) = conn.cursor().execute(LTZ).fetchone()
        assert value.utcoffset() == dt.timedelta(hours=5, minutes=30)
        assert conn._session_parameters.get("QUERY_TAG") == "from-login"


def test_alter_session_query_tag(conn: SnowflakeConnection, cur: SnowflakeCursor) -> None:
    cur.execute("alter session set query_tag = 'nightly load'")
    # The answer echoes the parameter; the connector keeps its copy current.
    assert conn._session_parameters.get("QUERY_TAG") == "nightly load"
    cur.execute("alter session unset query_tag")
    assert conn._session_parameters.get("QUERY_TAG") in ("", None)  # 5.x keeps "" as None


def _parameter(cur: SnowflakeCursor, name: str, scope: str = "") -> tuple[str, str]:
    """(value, level) of SHOW PARAMETERS LIKE name [IN scope]."""
    row = cur.execute(f"show parameters like '{name}' {scope}").fetchone()
    assert row is not None
    return row[1], row[3]


def test_alter_account_sets_what_new_sessions_start_with(server: Server) -> None:
    """ALTER ACCOUNT SET: sessions that start afterwards take the value (level ACCOUNT), a
    session's own ALTER SESSION still wins and its UNSET goes back to the account's value;
    ACCOUNTADMIN's alone; ALTER ACCOUNT UNSET restores the default."""
    with server.connect() as admin:
        cur = admin.cursor()
        try:
            cur.execute("alter account set timezone = 'Asia/Kolkata', week_start = 1")
            assert _parameter(cur, "TIMEZONE", "in account") == ("Asia/Kolkata", "ACCOUNT")
            with server.connect() as later:
                other = later.cursor()
                assert _parameter(other, "TIMEZONE") == ("Asia/Kolkata", "ACCOUNT")
                (value,) = other.execute(LTZ).fetchone()
                assert value.utcoffset() == dt.timedelta(hours=5, minutes=30)
                assert other.execute("select dayofweek('2024-01-07'::date)").fetchone() == (
                    7,
                )  # WEEK_START 1
                other.execute("alter session set timezone = 'UTC'")
                assert _parameter(other, "TIMEZONE") == ("UTC", "SESSION")
                other.execute("alter session unset timezone")
                assert _parameter(other, "TIMEZONE") == ("Asia/Kolkata", "ACCOUNT")
                other.execute("use role sysadmin")
                with pytest.raises(snowflake.connector.errors.ProgrammingError) as info:
                    other.execute("alter account set timezone = 'UTC'")
                assert (info.value.errno, info.value.sqlstate) == (3001, "42501")
        finally:
            cur.execute("alter account unset timezone, week_start")
        assert _parameter(cur, "TIMEZONE", "in account") == ("America/Los_Angeles", "")
        with server.connect() as after:
            assert _parameter(after.cursor(), "WEEK_START") == ("0", "")


def test_current_ip_address_is_the_clients_address_seen_at_login(cur: Any) -> None:
    cur.execute("SELECT CURRENT_IP_ADDRESS(), CURRENT_CLIENT() LIKE 'PythonConnector %'")
    assert cur.fetchone() == ("127.0.0.1", True)

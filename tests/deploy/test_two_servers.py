"""Two `embucket-py serve` processes on one metastore and one warehouse behave as one system."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.deploy import wire
from tests.e2e.conftest import Server

SECRET = "shared-secret-for-two-servers"


def _pair(tmp_path: Path, metastore_uri: str) -> tuple[Server, Server]:
    warehouse = (tmp_path / "warehouse").as_uri()
    servers = []
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        servers.append(
            Server(tmp_path / name, metastore_uri=metastore_uri, warehouse=warehouse, secret=SECRET)
        )
    return servers[0], servers[1]


@pytest.fixture(params=["sqlite", "postgresql"])
def pair(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Server, Server]]:
    if request.param == "sqlite":
        uri = f"sqlite:///{tmp_path / 'shared.db'}"
    else:
        uri = request.getfixturevalue("pg_uri")
    a, b = _pair(tmp_path, uri)
    a.start()  # the first one creates the metastore, so the two do not race to
    b.start()
    yield a, b
    a.stop()
    b.stop()


def url(server: Server) -> str:
    return f"http://127.0.0.1:{server.port}"


def test_table_from_one_is_queryable_on_the_other(pair: tuple[Server, Server]) -> None:
    a, b = pair
    with a.connect() as conn:
        conn.cursor().execute("CREATE TABLE shared_t (id INT, v VARCHAR)")
        conn.cursor().execute("INSERT INTO shared_t VALUES (1, 'one')")
    with b.connect() as conn:
        cur = conn.cursor()
        cur.execute("SELECT id, v FROM shared_t")
        assert cur.fetchall() == [(1, "one")]
        cur.execute("INSERT INTO shared_t VALUES (2, 'two')")
    with a.connect() as conn:
        cur = conn.cursor()
        cur.execute("SELECT id FROM shared_t ORDER BY id")
        assert cur.fetchall() == [(1,), (2,)]


def test_concurrent_writes_through_both_lose_nothing(pair: tuple[Server, Server]) -> None:
    a, b = pair
    with a.connect() as conn:
        conn.cursor().execute("CREATE TABLE counter (server VARCHAR, n INT)")
    errors: list[BaseException] = []
    per_thread = 8

    def writer(server: Server, label: str) -> None:
        try:
            with server.connect() as conn:
                cur = conn.cursor()
                for i in range(per_thread):
                    cur.execute(f"INSERT INTO counter VALUES ('{label}', {i})")
        except BaseException as e:
            errors.append(e)

    threads = [
        threading.Thread(target=writer, args=(server, f"{name}{k}"))
        for server, name in ((a, "a"), (b, "b"))
        for k in range(2)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with b.connect() as conn:
        cur = conn.cursor()
        cur.execute("SELECT server, COUNT(*), SUM(n) FROM counter GROUP BY server ORDER BY server")
        expected_sum = sum(range(per_thread))
        assert cur.fetchall() == [(label, per_thread, expected_sum) for label in ("a0", "a1", "b0", "b1")]


def test_session_token_and_state_move_between_servers(pair: tuple[Server, Server]) -> None:
    a, b = pair
    token = wire.login(url(a))
    assert wire.query(url(a), token, "CREATE SCHEMA moved")["success"]
    assert wire.query(url(a), token, "USE SCHEMA moved")["success"]
    assert wire.query(url(a), token, "SET greeting = 'hello'")["success"]
    # The same token on the other server: same session, with the schema and variable set on A.
    answer = wire.query(url(b), token, "SELECT CURRENT_SCHEMA(), $greeting")
    assert answer["success"], answer
    assert wire.rows(answer["data"]) == [("MOVED", "hello")]
    # Closing it on B ends it on A too.
    wire.post(url(b), "/session?delete=true", {}, token)
    gone = wire.query(url(a), token, "SELECT 1")
    assert not gone["success"]
    assert gone["code"] == "390111"


def test_results_and_chunks_from_the_other_server(pair: tuple[Server, Server]) -> None:
    a, b = pair
    token = wire.login(url(a))
    answer = wire.query(url(a), token, "SELECT seq4() AS n FROM TABLE(GENERATOR(ROWCOUNT => 300000))")
    assert answer["success"], answer
    data = answer["data"]
    assert data["chunks"], "the result should be large enough to be chunked"
    seen = list(wire.rows(data))
    for chunk in data["chunks"]:
        # Download each chunk from the other server (a load balancer may send it anywhere).
        other = chunk["url"].replace(f":{a.port}/", f":{b.port}/")
        assert f":{b.port}/" in other
        seen.extend(wire.arrow_rows(wire.download(other)))
    assert sorted(r[0] for r in seen) == list(range(300000))


def test_history_and_result_copy_of_one_are_read_at_once_on_the_other(pair: tuple[Server, Server]) -> None:
    a, b = pair
    with a.connect() as conn:
        cur = conn.cursor()
        cur.execute("SELECT 'from a' AS v")
        query_id = cur.sfqid
    # History writes leave the statement's path, but reach the metastore before A answers.
    with b.connect() as conn:
        cur = conn.cursor()
        cur.execute(
            "SELECT query_text, execution_status, rows_produced"
            " FROM TABLE(INFORMATION_SCHEMA.QUERY_HISTORY())"
            f" WHERE query_id = '{query_id}'"
        )
        assert cur.fetchall() == [("SELECT 'from a' AS v", "SUCCESS", 1)]
        cur.execute(f"SELECT v FROM TABLE(RESULT_SCAN('{query_id}'))")
        assert cur.fetchall() == [("from a",)]


def test_async_query_polled_on_the_other_server(pair: tuple[Server, Server]) -> None:
    a, b = pair
    token = wire.login(url(a))
    submitted = wire.query(url(a), token, "SELECT 6 * 7 AS answer", async_exec=True)
    query_id = submitted["data"]["queryId"]
    deadline = time.monotonic() + 30
    while True:
        polled = wire.get(url(b), f"/queries/{query_id}/result", token)
        if polled["success"] and polled["code"] not in ("333333", "333334"):
            break
        assert time.monotonic() < deadline, polled
        time.sleep(0.2)
    assert polled["data"]["queryId"] == query_id
    assert wire.rows(polled["data"]) == [(42,)]
    status = wire.get(url(b), f"/monitoring/queries/{query_id}", token)
    assert status["data"]["queries"][0]["status"] == "SUCCESS"


def test_iceberg_rest_token_from_one_works_on_the_other(pair: tuple[Server, Server]) -> None:
    import urllib.parse
    import urllib.request

    a, b = pair
    form = urllib.parse.urlencode(
        {"grant_type": "client_credentials", "client_id": "embucket", "client_secret": "embucket"}
    ).encode()
    with urllib.request.urlopen(f"{url(a)}/iceberg/v1/oauth/tokens", form, timeout=30) as r:
        import json

        access = json.loads(r.read())["access_token"]
    request = urllib.request.Request(
        f"{url(b)}/iceberg/v1/config", headers={"Authorization": f"Bearer {access}"}
    )
    with urllib.request.urlopen(request, timeout=30) as r:
        assert r.status == 200


def test_a_scheduled_task_runs_once_per_due_time_across_servers(pair: tuple[Server, Server]) -> None:
    """Both servers run the task scheduler; each due run is claimed in the metastore by one."""
    a = pair[0]  # the other server's scheduler competes for the same runs
    with a.connect() as conn:
        cur = conn.cursor()
        cur.execute("CREATE TABLE ticks (n INT)")
        cur.execute("CREATE TASK tick SCHEDULE = '1 SECOND' AS INSERT INTO ticks VALUES (1)")
        cur.execute("ALTER TASK tick RESUME")
        time.sleep(6)
        cur.execute("ALTER TASK tick SUSPEND")
        time.sleep(2)  # runs claimed before the suspension finish
        cur.execute(
            "SELECT scheduled_time, state FROM TABLE(INFORMATION_SCHEMA.TASK_HISTORY(TASK_NAME => 'TICK'))"
        )
        runs = cur.fetchall()
        scheduled = [r[0] for r in runs]
        assert len(scheduled) >= 3
        assert len(set(scheduled)) == len(scheduled)  # no due time ran twice
        succeeded = sum(1 for r in runs if r[1] == "SUCCEEDED")
        assert cur.execute("SELECT COUNT(*) FROM ticks").fetchone() == (succeeded,)

"""Aborting across servers: the abort request may reach a server that does not run the query;
the running server sees the request in the shared store and stops between result batches."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.deploy import wire
from tests.e2e.conftest import Server

SECRET = "shared-secret-for-abort"
# Streams batches until aborted: the engine checks the cancel flag between batches.
ENDLESS = "select seq4() from table(generator(rowcount => 10000000000))"


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[tuple[Server, Server]]:
    uri = f"sqlite:///{tmp_path / 'shared.db'}"
    warehouse = (tmp_path / "warehouse").as_uri()
    servers = []
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        servers.append(Server(tmp_path / name, metastore_uri=uri, warehouse=warehouse, secret=SECRET))
    for srv in servers:
        srv.start()  # one after the other: the first creates the metastore
    yield servers[0], servers[1]
    for srv in servers:
        srv.stop()


def url(server: Server) -> str:
    return f"http://127.0.0.1:{server.port}"


def status_of(server: Server, token: str, query_id: str) -> str:
    answer = wire.get(url(server), f"/monitoring/queries/{query_id}", token)
    return str(answer["data"]["queries"][0]["status"])


def test_abort_sent_to_the_other_server(pair: tuple[Server, Server]) -> None:
    a, b = pair
    token = wire.login(url(a))
    started = wire.query(url(a), token, ENDLESS, async_exec=True)
    query_id = started["data"]["queryId"]
    assert status_of(a, token, query_id) == "RUNNING"
    # b answers from the shared record, which does not track QUEUED -> RUNNING: not finished.
    assert status_of(b, token, query_id) in ("QUEUED", "RUNNING")
    answer = wire.post(url(b), f"/queries/{query_id}/abort-request", {}, token)
    assert answer["success"] is True
    deadline = time.monotonic() + 60
    while status_of(a, token, query_id) in ("RUNNING", "ABORTING") and time.monotonic() < deadline:
        time.sleep(0.2)
    assert status_of(a, token, query_id) == "ABORTED"
    assert status_of(b, token, query_id) == "ABORTED"
    # Finished: a second abort, on either server, has nothing left to stop.
    again = wire.post(url(b), f"/queries/{query_id}/abort-request", {}, token)
    assert again["success"] is False
    # The server that ran it keeps serving.
    assert wire.rows(wire.query(url(a), token, "SELECT 7")["data"]) == [(7,)]

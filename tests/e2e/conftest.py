"""End-to-end fixtures: a real server process on a free port, the real Snowflake connector.

These tests import only the connector (never embucket_py), so the same files also run from a
second virtualenv holding the 4.x connector line (`make test-legacy`). The server is started with
the Python named by EMBUCKET_SERVER_PYTHON (default: this interpreter).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import snowflake.connector

SERVER_PYTHON = os.environ.get("EMBUCKET_SERVER_PYTHON", sys.executable)
CONNECTOR_MAJOR = int(snowflake.connector.__version__.split(".")[0])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """One `embucket-py serve` process with its own data directory."""

    def __init__(self, data_dir: Path, **settings: str) -> None:
        self.data_dir = data_dir
        self.port = free_port()
        self.settings = settings
        self.process: subprocess.Popen[bytes] | None = None
        self.log = data_dir / "server.log"

    def start(self) -> None:
        env = {**os.environ, "EMBUCKET_LOG_LEVEL": "info"}
        env.update({f"EMBUCKET_{k.upper()}": v for k, v in self.settings.items()})
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [
                    SERVER_PYTHON,
                    "-m",
                    "embucket_py",
                    "serve",
                    "--port",
                    str(self.port),
                    "--data-dir",
                    str(self.data_dir),
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
            )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited: {self.log.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=1):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("server did not start within 60 s")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None

    def connect(self, **kwargs: object) -> snowflake.connector.SnowflakeConnection:
        params: dict[str, object] = {
            "account": "embucket",
            "user": "embucket",
            "password": "embucket",
            "host": "localhost",
            "port": self.port,
            "protocol": "http",
            "database": "EMBUCKET",
            "schema": "PUBLIC",
            "login_timeout": 30,
        }
        params.update(kwargs)
        return snowflake.connector.connect(**params)


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("embucket"))
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture
def database(server: Server) -> Iterator[str]:
    """A fresh database per test, so tests never see each other's tables."""
    name = f"TEST_{uuid.uuid4().hex[:10].upper()}"
    with server.connect() as conn:
        conn.cursor().execute(f"CREATE DATABASE {name}")
    yield name
    with server.connect() as conn:
        conn.cursor().execute(f"DROP DATABASE IF EXISTS {name}")


@pytest.fixture
def conn(server: Server, database: str) -> Iterator[snowflake.connector.SnowflakeConnection]:
    connection = server.connect(database=database, schema="PUBLIC")
    yield connection
    connection.close()


@pytest.fixture
def cur(
    conn: snowflake.connector.SnowflakeConnection,
) -> Iterator[snowflake.connector.cursor.SnowflakeCursor]:
    with conn.cursor() as cursor:
        yield cursor


def reading_role(server: Server, database: str, prefix: str) -> str:
    """A role of the test's own that reads the test database's PUBLIC schema, held by the admin."""
    role = f"{prefix}_{uuid.uuid4().hex[:6].upper()}"
    with server.connect() as admin:
        cur = admin.cursor()
        cur.execute(f"CREATE ROLE {role}")
        cur.execute(f"GRANT USAGE ON DATABASE {database} TO ROLE {role}")
        cur.execute(f"GRANT USAGE ON SCHEMA {database}.public TO ROLE {role}")
        cur.execute(f"GRANT ROLE {role} TO USER embucket")
    return role

"""Fixtures: a real server process, one real SparkSession (local[2]) for the whole test session,
wired to a fresh database (= Spark catalog) per test, and the Snowflake connector."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

pytest.importorskip("pyspark", reason="needs the spark extra: pip install -e '.[spark]'")

from embucket_py.spark.session import SparkTarget, add_catalog, spark_session

# The e2e fixtures: a real server process, and a fresh database per test.
from tests.e2e.conftest import Server, database  # noqa: F401

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("spark"))
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture(scope="session")
def target(server: Server) -> SparkTarget:
    return SparkTarget(url=f"http://127.0.0.1:{server.port}", databases=(), app_name="embucket-py tests")


@pytest.fixture(scope="session")
def spark(target: SparkTarget) -> Iterator[SparkSession]:
    start = time.monotonic()
    session = spark_session(target)
    session.sparkContext.setLogLevel("ERROR")
    print(f"\nSpark session started in {time.monotonic() - start:.1f}s", file=sys.stderr)
    yield session
    session.stop()


@pytest.fixture
def cat(spark: SparkSession, target: SparkTarget, database: str) -> str:
    """The Spark catalog of the test's database: write `{cat}.public.t`."""
    return add_catalog(spark, target, database)


@pytest.fixture
def cur(server: Server, database: str) -> Iterator[object]:
    with server.connect(database=database, schema="PUBLIC") as conn, conn.cursor() as cursor:
        yield cursor

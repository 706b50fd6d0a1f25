"""User-defined functions in Python (LANGUAGE PYTHON) through the real connector, on a server
started with --python-functions true; the shared server (the default) refuses them."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest
import snowflake.connector

from tests.e2e.conftest import Server

ADDONE = """CREATE FUNCTION addone(i INT) RETURNS INT LANGUAGE PYTHON RUNTIME_VERSION = '3.11'
HANDLER = 'addone_py' AS $$
def addone_py(i):
    return i + 1
$$"""


@pytest.fixture(scope="module")
def python_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("embucket-python"), python_functions="true")
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture
def py(python_server: Server) -> Iterator[snowflake.connector.cursor.SnowflakeCursor]:
    with python_server.connect() as conn, conn.cursor() as cursor:
        cursor.execute("CREATE OR REPLACE SCHEMA udfs")
        yield cursor


def test_the_documented_addone_example(py: Any) -> None:
    # https://docs.snowflake.com/en/developer-guide/udf/python/udf-python-introduction
    py.execute(ADDONE)
    assert py.execute("SELECT addone(10)").fetchone() == (11,)
    py.execute("CREATE TABLE n (x INT)")
    py.execute("INSERT INTO n VALUES (1), (5)")
    assert py.execute("SELECT addone(x) FROM n ORDER BY 1").fetchall() == [(2,), (6,)]
    # Usable wherever an expression is: writes, nested calls, views.
    py.execute("UPDATE n SET x = addone(addone(x))")
    py.execute("CREATE VIEW nv AS SELECT addone(x) AS y FROM n")
    assert py.execute("SELECT y FROM nv ORDER BY y").fetchall() == [(4,), (8,)]


def test_arguments_and_results_follow_the_type_mapping(py: Any) -> None:
    py.execute(
        """CREATE FUNCTION describe_args(n NUMBER(10, 2), f FLOAT, s VARCHAR, v VARIANT)
        RETURNS VARIANT LANGUAGE PYTHON RUNTIME_VERSION = '3.11' HANDLER = 'Args.show' AS $$
class Args:
    @staticmethod
    def show(n, f, s, v):
        return {"n": type(n).__name__, "f": type(f).__name__, "s": s.upper(), "keys": sorted(v)}
$$"""
    )
    row = py.execute("SELECT describe_args(1.5, 2, 'ab', PARSE_JSON('{\"b\": 1, \"a\": 2}'))").fetchone()
    assert (
        row[0].replace(" ", "").replace("\n", "") == '{"f":"float","keys":["a","b"],"n":"Decimal","s":"AB"}'
    )
    py.execute(
        """CREATE FUNCTION half(x INT) RETURNS NUMBER(10, 1) LANGUAGE PYTHON RUNTIME_VERSION = '3.11'
        HANDLER = 'half' AS 'def half(x):\n    return x / 2'"""
    )
    assert py.execute("SELECT half(5), TYPEOF(half(5)::VARIANT)").fetchone() == (Decimal("2.5"), "DECIMAL")


def test_a_vectorized_handler_gets_a_batch_as_a_dataframe(py: Any) -> None:
    # https://docs.snowflake.com/en/developer-guide/udf/python/udf-python-batch
    py.execute(
        """CREATE FUNCTION add_inputs(x INT, y FLOAT) RETURNS FLOAT LANGUAGE PYTHON
        RUNTIME_VERSION = '3.11' PACKAGES = ('pandas') HANDLER = 'add_inputs' AS $$
import pandas
from _snowflake import vectorized

@vectorized(input=pandas.DataFrame)
def add_inputs(df):
    assert len(df) > 1 or df[0].iloc[0] == 1
    return df[0] + df[1]
$$"""
    )
    assert py.execute("SELECT add_inputs(1, 2.5)").fetchone() == (3.5,)
    py.execute(
        "CREATE TABLE b AS SELECT SEQ4() AS x, SEQ4() * 0.5 AS y FROM TABLE(GENERATOR(ROWCOUNT => 10000))"
    )
    # sum of 1.5 * i for i < 10000
    assert py.execute("SELECT SUM(add_inputs(x, y)), COUNT(add_inputs(x, NULL)) FROM b").fetchone() == (
        74992500.0,
        0,
    )


def test_null_input_reaches_the_handler_unless_strict(py: Any) -> None:
    py.execute(ADDONE)
    py.execute(
        """CREATE FUNCTION inverse(x INT) RETURNS FLOAT LANGUAGE PYTHON RUNTIME_VERSION = '3.11'
        HANDLER = 'f' RETURNS NULL ON NULL INPUT AS 'def f(x):\n    return 1 / x'"""
    )
    assert py.execute("SELECT inverse(NULL), inverse(4)").fetchone() == (None, 0.25)
    with pytest.raises(snowflake.connector.errors.ProgrammingError) as raised:
        py.execute("SELECT addone(NULL)")
    assert raised.value.errno == 100357 and raised.value.sqlstate == "P0000"
    assert "TypeError" in raised.value.msg and "ADDONE" in raised.value.msg


def test_a_failing_handler_is_an_error_and_writes_nothing(py: Any) -> None:
    py.execute(
        """CREATE FUNCTION inverse(x INT) RETURNS FLOAT LANGUAGE PYTHON RUNTIME_VERSION = '3.11'
        HANDLER = 'f' AS 'def f(x):\n    return 1 / x'"""
    )
    py.execute("CREATE TABLE r (x INT)")
    py.execute("INSERT INTO r VALUES (1)")
    with pytest.raises(snowflake.connector.errors.ProgrammingError, match="ZeroDivisionError") as raised:
        py.execute("INSERT INTO r SELECT inverse(0)")
    assert raised.value.errno == 100357
    assert py.execute("SELECT x FROM r").fetchall() == [(1,)]


def test_definitions_that_cannot_run_are_refused_at_create(py: Any) -> None:
    with pytest.raises(snowflake.connector.errors.ProgrammingError, match="SyntaxError"):
        py.execute(
            "CREATE FUNCTION broken() RETURNS INT LANGUAGE PYTHON RUNTIME_VERSION = '3.11' "
            "HANDLER = 'f' AS 'def f(:'"
        )
    with pytest.raises(snowflake.connector.errors.ProgrammingError, match="Handler 'g'"):
        py.execute(
            "CREATE FUNCTION misnamed() RETURNS INT LANGUAGE PYTHON RUNTIME_VERSION = '3.11' "
            "HANDLER = 'g' AS 'def f():\n    return 1'"
        )
    assert py.execute("SHOW USER FUNCTIONS LIKE 'BROKEN'").fetchall() == []


def test_a_replaced_function_runs_its_new_body(py: Any) -> None:
    py.execute(ADDONE)
    assert py.execute("SELECT addone(1)").fetchone() == (2,)
    py.execute(ADDONE.replace("CREATE", "CREATE OR REPLACE").replace("i + 1", "i + 100"))
    assert py.execute("SELECT addone(1)").fetchone() == (101,)
    described = dict(py.execute("DESCRIBE FUNCTION addone(INT)").fetchall())
    assert described["language"] == "PYTHON" and described["handler"] == "addone_py"


def test_the_default_server_refuses_python_functions(cur: Any) -> None:
    with pytest.raises(snowflake.connector.errors.ProgrammingError, match="--python-functions") as raised:
        cur.execute(ADDONE)
    assert raised.value.errno == 2 and raised.value.sqlstate == "0A000"


def test_a_query_calling_a_python_function_is_not_answered_from_a_kept_result(py: Any) -> None:
    py.execute(
        """CREATE FUNCTION tick() RETURNS INT LANGUAGE PYTHON RUNTIME_VERSION = '3.11' HANDLER = 'f' AS $$
calls = 0
def f():
    global calls
    calls += 1
    return calls
$$"""
    )
    py.execute("CREATE TABLE one_row (x INT)")
    py.execute("INSERT INTO one_row VALUES (1)")
    first = py.execute("SELECT tick() FROM one_row").fetchone()[0]
    assert py.execute("SELECT tick() FROM one_row").fetchone()[0] == first + 1

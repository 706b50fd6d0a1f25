"""describeOnly (protocol §13.1): cursor.describe() returns result metadata without executing."""

from __future__ import annotations

import pytest
import snowflake.connector
from snowflake.connector.cursor import SnowflakeCursor

# cursor.description type codes (protocol §6.3).
FIXED, REAL, TEXT, DATE, TIMESTAMP_NTZ, BINARY, BOOLEAN = 0, 1, 2, 3, 8, 11, 13


def test_describe_select(cur: SnowflakeCursor) -> None:
    description = cur.describe("select 1 as a, 'x' as b, 1.5::float as c")
    assert [d.name for d in description] == ["A", "B", "C"]
    assert [d.type_code for d in description] == [FIXED, TEXT, REAL]


def test_describe_table_columns(cur: SnowflakeCursor) -> None:
    cur.execute(
        "create table t (i int, n number(10, 2), s varchar(20), d date, ts timestamp_ntz,"
        " b boolean, bin binary)"
    )
    description = cur.describe("select * from t")
    assert [d.name for d in description] == ["I", "N", "S", "D", "TS", "B", "BIN"]
    assert [d.type_code for d in description] == [FIXED, FIXED, TEXT, DATE, TIMESTAMP_NTZ, BOOLEAN, BINARY]
    assert (description[1].precision, description[1].scale) == (10, 2)


def test_describe_does_not_execute_insert(cur: SnowflakeCursor) -> None:
    cur.execute("create table t (i int)")
    description = cur.describe("insert into t values (1), (2)")
    assert [d.name for d in description] == ["number of rows inserted"]
    assert cur.execute("select count(*) from t").fetchall() == [(0,)]


def test_describe_does_not_execute_ddl(cur: SnowflakeCursor) -> None:
    cur.describe("create table never_created (i int)")
    with pytest.raises(snowflake.connector.errors.ProgrammingError) as info:
        cur.execute("select * from never_created")
    assert info.value.errno == 2003


def test_describe_unknown_table_fails(cur: SnowflakeCursor) -> None:
    with pytest.raises(snowflake.connector.errors.ProgrammingError) as info:
        cur.describe("select * from no_such_table")
    assert info.value.errno == 2003


def test_describe_then_execute(cur: SnowflakeCursor) -> None:
    cur.describe("select 7 as seven")
    assert cur.execute("select 7 as seven").fetchall() == [(7,)]


def test_describe_with_placeholders(cur: SnowflakeCursor) -> None:
    cur.execute("create table t (i int, s varchar)")
    description = cur.describe("select s, i from t where i = ? and s <> ?")
    assert [(d.name, d.type_code) for d in description] == [("S", TEXT), ("I", FIXED)]
    assert [d.name for d in cur.describe("select ? as x")] == ["X"]

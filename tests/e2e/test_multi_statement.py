"""Multi-statement requests (protocol §13.2): MULTI_STATEMENT_COUNT, child results walked with
nextset(), the count check, and failures."""

from __future__ import annotations

import pytest
import snowflake.connector
from snowflake.connector import SnowflakeConnection
from snowflake.connector.cursor import SnowflakeCursor


def results(cur: SnowflakeCursor) -> list[list[tuple[object, ...]]]:
    """Every child's rows, walking nextset()."""
    out = [cur.fetchall()]
    while cur.nextset():
        out.append(cur.fetchall())
    return out


def test_three_selects_walked_with_nextset(cur: SnowflakeCursor) -> None:
    cur.execute("select 1; select 'two' as b; select 3, 4", num_statements=3)
    parent = cur.sfqid
    ids = []
    rows = [cur.fetchall()]
    ids.append(cur.sfqid)
    while cur.nextset():
        rows.append(cur.fetchall())
        ids.append(cur.sfqid)
    assert rows == [[(1,)], [("two",)], [(3, 4)]]
    # Each child has its own query id, distinct from the parent's.
    assert len(set(ids)) == 3
    assert parent not in ids[1:]


def test_description_follows_each_child(cur: SnowflakeCursor) -> None:
    cur.execute("select 1 as a; select 'x' as b, 2 as c", num_statements=2)
    assert [d.name for d in cur.description] == ["A"]
    assert cur.nextset()
    assert [d.name for d in cur.description] == ["B", "C"]
    assert cur.fetchall() == [("x", 2)]
    assert not cur.nextset()


def test_ddl_dml_and_query_in_one_request(cur: SnowflakeCursor) -> None:
    cur.execute(
        "create table t (i int); insert into t values (1), (2), (3); select sum(i) from t",
        num_statements=3,
    )
    assert cur.rowcount == 1  # DDL
    assert cur.nextset()
    assert cur.rowcount == 3  # rows inserted
    assert cur.nextset()
    assert cur.fetchall() == [(6,)]


def test_zero_means_any_count(cur: SnowflakeCursor) -> None:
    cur.execute("select 1; select 2", num_statements=0)
    assert results(cur) == [[(1,)], [(2,)]]


def test_statement_count_mismatch_without_num_statements(cur: SnowflakeCursor) -> None:
    with pytest.raises(snowflake.connector.errors.ProgrammingError) as info:
        cur.execute("select 1; select 2")
    assert info.value.errno == 8
    assert info.value.sqlstate == "0A000"


def test_statement_count_mismatch_with_wrong_count(cur: SnowflakeCursor) -> None:
    with pytest.raises(snowflake.connector.errors.ProgrammingError) as info:
        cur.execute("select 1; select 2", num_statements=3)
    assert info.value.errno == 8


def test_error_in_second_statement_fails_the_request(cur: SnowflakeCursor) -> None:
    with pytest.raises(snowflake.connector.errors.ProgrammingError) as info:
        cur.execute(
            "create table t (i int); select * from no_such_table; insert into t values (1)",
            num_statements=3,
        )
    assert info.value.errno == 2003
    # Statements run in order and stop at the first failure.
    assert cur.execute("select count(*) from t").fetchall() == [(0,)]


def test_async_multi_statement(conn: SnowflakeConnection, cur: SnowflakeCursor) -> None:
    cur.execute_async("select 1; select 2", num_statements=2)
    query_id = cur.sfqid
    with conn.cursor() as other:
        other.get_results_from_sfqid(query_id)
        assert results(other) == [[(1,)], [(2,)]]

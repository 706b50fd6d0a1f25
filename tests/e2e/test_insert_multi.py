"""INSERT ALL / INSERT FIRST through the connector: routing by WHEN, one count per INTO clause."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture
def source(cur: Any) -> Any:
    cur.execute("CREATE TABLE src (x INT, y VARCHAR)")
    cur.execute("INSERT INTO src VALUES (1, 'a'), (2, 'b'), (3, NULL), (NULL, 'd')")
    cur.execute("CREATE TABLE t1 (x INT, y VARCHAR)")
    cur.execute("CREATE TABLE t2 (a INT)")
    return cur


def test_insert_first_sends_each_row_to_the_first_matching_clause(source: Any) -> None:
    source.execute(
        "INSERT FIRST WHEN x > 2 THEN INTO t1 WHEN x > 1 THEN INTO t2 (a) VALUES (x) "
        "ELSE INTO t1 (y) VALUES (y) SELECT x, y FROM src"
    )
    assert [d.name for d in source.description] == [
        "number of rows inserted into T1",
        "number of rows inserted into T2",
        "number of rows inserted into T1 ",
    ]
    assert source.fetchone() == (1, 1, 2)
    source.execute("SELECT x, y FROM t1 ORDER BY y NULLS FIRST")
    assert source.fetchall() == [(3, None), (None, "a"), (None, "d")]
    source.execute("SELECT a FROM t2")
    assert source.fetchall() == [(2,)]


def test_insert_all_evaluates_every_clause(source: Any) -> None:
    # x = 3 meets both conditions, so INSERT ALL writes it twice; NULL meets none.
    source.execute(
        "INSERT ALL WHEN x > 2 THEN INTO t2 WHEN x > 1 THEN INTO t2 (a) VALUES (x + 10) SELECT x FROM src"
    )
    assert source.fetchone() == (1, 2)
    source.execute("SELECT a FROM t2 ORDER BY a")
    assert source.fetchall() == [(3,), (12,), (13,)]


def test_unconditional_insert_all_copies_every_row_to_each_target(source: Any) -> None:
    source.execute("INSERT ALL INTO t1 INTO t2 (a) VALUES (x) SELECT x, y FROM src")
    assert source.fetchone() == (4, 4)
    source.execute("SELECT COUNT(*), COUNT(a) FROM t2")
    assert source.fetchone() == (4, 3)


def test_insert_all_is_one_commit_across_its_targets(source: Any) -> None:
    from snowflake.connector.errors import IntegrityError

    source.execute("CREATE TABLE strict (a INT NOT NULL)")
    both = "INSERT ALL INTO t2 (a) VALUES (x) INTO strict (a) VALUES (x) SELECT x FROM src"
    with pytest.raises(IntegrityError):  # the NULL x breaks the second target: nothing lands
        source.execute(both)
    assert source.execute("SELECT COUNT(*) FROM t2").fetchone() == (0,)
    source.execute(f"{both} WHERE x > 0")
    assert source.execute("SELECT COUNT(*) FROM t2").fetchone() == (3,)
    assert source.execute("SELECT COUNT(*) FROM strict").fetchone() == (3,)

"""Result transport: large results in chunks, empty results, result names."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from tests.e2e.conftest import Server


@pytest.mark.parametrize("fmt", ["ARROW", "JSON"])
def test_million_rows_arrive_through_chunks(server: Server, fmt: str) -> None:
    with server.connect(session_parameters={"PYTHON_CONNECTOR_QUERY_RESULT_FORMAT": fmt}) as conn:
        cur = conn.cursor()
        cur.execute("SELECT seq4() AS n, seq4() * 2 AS twice FROM TABLE(GENERATOR(ROWCOUNT => 1000000))")
        assert cur.rowcount == 1_000_000
        count = total = 0
        for n, twice in cur:
            assert twice == 2 * n
            count += 1
            total += n
        assert count == 1_000_000
        assert total == sum(range(1_000_000))


def test_million_rows_into_pandas(server: Server) -> None:
    with server.connect() as conn:
        frame = (
            conn.cursor()
            .execute("SELECT seq4() AS n FROM TABLE(GENERATOR(ROWCOUNT => 1000000))")
            .fetch_pandas_all()
        )
    assert len(frame) == 1_000_000
    assert int(frame["N"].sum()) == sum(range(1_000_000))


def test_empty_result_keeps_its_columns(cur: Any) -> None:
    cur.execute("CREATE TABLE e (a INT, b VARCHAR)")
    assert cur.execute("SELECT * FROM e").fetchall() == []
    assert [d.name for d in cur.description] == ["A", "B"]
    assert len(cur.execute("SELECT * FROM e").fetch_pandas_all().columns) == 2


def test_result_column_names_follow_snowflake(cur: Any) -> None:
    cur.execute('CREATE TABLE t (a INT, "MixedCase" INT)')
    cur.execute("INSERT INTO t VALUES (1, 2)")
    cur.execute('SELECT a, a + 1, "MixedCase", count(*) OVER () AS "lower", 1 AS x FROM t')
    assert [d.name for d in cur.description] == ["A", "A + 1", "MixedCase", "lower", "X"]
    cur.execute("SELECT COUNT(*), SUM(a) FROM t")
    assert [d.name for d in cur.description] == ["COUNT(*)", "SUM(A)"]
    cur.execute("SELECT * FROM t")
    assert [d.name for d in cur.description] == ["A", "MixedCase"]


def test_numbers_of_a_large_result_into_arrow(cur: Any) -> None:
    # Many engine batches per chunk, integers and decimals in their narrow carriers: the table
    # reader checks each chunk's stream to its last byte.
    cur.execute(
        "CREATE TABLE nums AS SELECT seq4() AS n, (seq4() % 100000) / 100 :: NUMBER(12, 2) AS price "
        "FROM TABLE(GENERATOR(ROWCOUNT => 1000000))"
    )
    table = cur.execute("SELECT n, price, n % 7 AS small FROM nums WHERE n % 3 <> 1").fetch_arrow_all()
    assert table.num_rows == 666_667
    table = table.sort_by("N")
    n = table.column("N").to_pylist()
    assert n == [i for i in range(1_000_000) if i % 3 != 1]
    assert table.column("SMALL").to_pylist() == [i % 7 for i in n]
    assert table.column("PRICE").to_pylist()[:3] == [0.0, 0.02, 0.03]


@pytest.mark.parametrize("fmt", ["ARROW", "JSON"])
def test_a_select_of_literals_answers_the_same_every_time(server: Server, fmt: str) -> None:
    # Its result is computed once (engine/query.py LITERAL_RESULTS); each run and each session
    # must still see its own names, types and values.
    sql = "SELECT 1, 'ab' AS s, NULL AS n, -2.50 AS d, TRUE AS b, 12345678901234567890 AS big"
    expected = [(1, "ab", None, Decimal("-2.50"), True, 12345678901234567890)]
    with server.connect(session_parameters={"PYTHON_CONNECTOR_QUERY_RESULT_FORMAT": fmt}) as conn:
        cur = conn.cursor()
        for _ in range(3):
            assert cur.execute(sql).fetchall() == expected
            assert [(d.name, d.type_code, d.scale) for d in cur.description] == [
                ("1", 0, 0),  # FIXED
                ("S", 2, None),  # TEXT
                ("N", 2, None),
                ("D", 0, 2),
                ("B", 13, None),  # BOOLEAN
                ("BIG", 0, 0),
            ]
            assert cur.description[3].precision == 3
        assert cur.execute("select 1 AS other").fetchall() == [(1,)]
        assert [d.name for d in cur.description] == ["OTHER"]
        # What is not only literals runs every time.
        first = cur.execute("SELECT RANDOM() AS r").fetchall()
        assert first != cur.execute("SELECT RANDOM() AS r").fetchall()

"""Query syntax through the connector: lateral aliases, PIVOT/UNPIVOT, DUAL, row order, set operators."""

from __future__ import annotations

from typing import Any

import pytest
from snowflake.connector.errors import ProgrammingError


@pytest.fixture
def sales(cur: Any) -> Any:
    cur.execute("CREATE TABLE sales (empid INT, amount INT, quarter TEXT)")
    cur.execute(
        "INSERT INTO sales VALUES (1, 100, 'Q1'), (1, 50, 'Q2'), (2, 70, 'Q1'), (1, 30, 'Q1'), (3, 5, 'Q2')"
    )
    return cur


def test_lateral_aliases_in_select_and_where(sales: Any) -> None:
    sales.execute("SELECT amount * 2 AS dbl, dbl + 1 AS plus FROM sales WHERE dbl > 100 ORDER BY plus")
    assert [d.name for d in sales.description] == ["DBL", "PLUS"]
    assert sales.fetchall() == [(140, 141), (200, 201)]


def test_a_column_wins_over_an_alias_of_the_same_name(sales: Any) -> None:
    sales.execute("SELECT empid * 10 AS amount FROM sales WHERE amount = 100")
    assert sales.fetchall() == [(10,)]


def test_pivot_any_and_default_on_null(sales: Any) -> None:
    sales.execute(
        "SELECT * FROM sales PIVOT(SUM(amount) FOR quarter IN (ANY ORDER BY quarter) DEFAULT ON NULL (0)) "
        "ORDER BY empid"
    )
    assert [d.name for d in sales.description] == ["EMPID", "'Q1'", "'Q2'"]
    assert sales.fetchall() == [(1, 130, 50), (2, 70, 0), (3, 0, 5)]


def test_unpivot_keeps_each_rows_columns_in_list_order(cur: Any) -> None:
    cur.execute("CREATE TABLE m (id INT, jan INT, feb INT)")
    cur.execute("INSERT INTO m VALUES (1, 10, NULL), (2, 20, 30)")
    cur.execute("SELECT * FROM m UNPIVOT (sales FOR month IN (jan, feb))")
    assert cur.fetchall() == [(1, "JAN", 10), (2, "JAN", 20), (2, "FEB", 30)]
    cur.execute("SELECT COUNT(*) FROM m UNPIVOT INCLUDE NULLS (sales FOR month IN (jan, feb))")
    assert cur.fetchone() == (4,)


def test_rows_come_back_in_insertion_order(cur: Any) -> None:
    cur.execute("CREATE TABLE o (id INT)")
    for i in (3, 1, 4, 2):
        cur.execute(f"INSERT INTO o VALUES ({i})")
    cur.execute("SELECT id FROM o")
    assert cur.fetchall() == [(3,), (1,), (4,), (2,)]


def test_select_from_dual(cur: Any) -> None:
    cur.execute("SELECT 5 FROM DUAL")
    assert cur.fetchall() == [(5,)]


def test_set_operator_branches_of_different_widths(cur: Any) -> None:
    with pytest.raises(ProgrammingError) as info:
        cur.execute("SELECT 1 UNION SELECT 1, 2")
    assert info.value.errno == 1789
    assert info.value.sqlstate == "42601"


def test_create_table_with_a_column_list_as_select(cur: Any) -> None:
    cur.execute("CREATE TABLE c (k INT, v TEXT) AS SELECT * FROM VALUES (1, 'a'), (2, 'b')")
    cur.execute("SELECT k, v FROM c ORDER BY k")
    assert [d.name for d in cur.description] == ["K", "V"]
    assert cur.fetchall() == [(1, "a"), (2, "b")]


def test_ctes_read_more_than_once(sales: Any) -> None:
    # Each computed once by the server (shared_ctes): names, types and answers as when inlined.
    sales.execute(
        "WITH per_emp (emp, total) AS (SELECT empid, SUM(amount) FROM sales GROUP BY empid), "
        "top AS (SELECT MAX(total) AS best FROM per_emp) "
        "SELECT p.emp, p.total, t.best, (SELECT COUNT(*) FROM per_emp) AS n "
        "FROM per_emp p JOIN top t ON p.total * 2 >= t.best ORDER BY p.emp"
    )
    assert [d.name for d in sales.description] == ["EMP", "TOTAL", "BEST", "N"]
    assert sales.fetchall() == [(1, 180, 180, 3)]
    sales.execute(
        "WITH q AS (SELECT DISTINCT quarter, amount FROM sales WHERE amount > 10) "
        "SELECT quarter, amount FROM q WHERE quarter = 'Q1' UNION ALL SELECT 'all', SUM(amount) FROM q "
        "ORDER BY 2"
    )
    assert sales.fetchall() == [("Q1", 30), ("Q1", 70), ("Q1", 100), ("all", 250)]


def test_full_and_right_joins_by_using_or_natural_coalesce_their_keys(cur: Any) -> None:
    """A USING/NATURAL join column holds either side's key: rows only the right side has keep
    theirs (they came back NULL, DataFusion reading the left side's)."""
    cur.execute("CREATE TABLE d1 (id INT, v VARCHAR)")
    cur.execute("CREATE TABLE d2 (id INT, w VARCHAR)")
    cur.execute("INSERT INTO d1 VALUES (1, 'a'), (2, 'b')")
    cur.execute("INSERT INTO d2 VALUES (2, 'x'), (5, 'y')")
    everything = [(1, "a", None), (2, "b", "x"), (5, None, "y")]
    assert cur.execute("SELECT * FROM d1 NATURAL FULL OUTER JOIN d2 ORDER BY id").fetchall() == everything
    assert [d.name for d in cur.description] == ["ID", "V", "W"]
    assert cur.execute("SELECT * FROM d1 p FULL JOIN d2 q USING (id) ORDER BY id").fetchall() == everything
    rows = cur.execute("SELECT id, w FROM d1 RIGHT JOIN d2 USING (id) WHERE id > 1 ORDER BY id").fetchall()
    assert rows == [(2, "x"), (5, "y")]
    rows = cur.execute("SELECT d1.id, d2.id, id + 1 FROM d1 FULL JOIN d2 USING (id) GROUP BY ALL ORDER BY 3")
    assert rows.fetchall() == [(1, None, 2), (2, 2, 3), (None, 5, 6)]
    assert [d.name for d in cur.description] == ["ID", "ID", "ID + 1"]
    assert cur.execute("SELECT * FROM d1 LEFT JOIN d2 USING (id) ORDER BY id").fetchall() == everything[:2]
    cur.execute("CREATE TABLE d3 (id INT, z VARCHAR)")
    cur.execute("INSERT INTO d3 VALUES (5, 'five'), (1, 'one')")
    rows = cur.execute("SELECT * FROM d1 FULL JOIN d2 USING (id) JOIN d3 ON d3.id = id ORDER BY 1").fetchall()
    assert rows == [(1, "a", None, 1, "one"), (5, None, "y", 5, "five")]
    assert [d.name for d in cur.description] == ["ID", "V", "W", "ID", "Z"]


def test_a_cte_reading_itself_is_recursive_without_the_keyword(cur: Any) -> None:
    sql = "WITH c AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM c WHERE n < 3) SELECT n FROM c ORDER BY n"
    assert cur.execute(sql).fetchall() == [(1,), (2,), (3,)]
    with pytest.raises(ProgrammingError) as info:
        cur.execute("WITH b AS (SELECT 1 UNION SELECT * FROM b) SELECT * FROM b")
    assert (info.value.errno, info.value.sqlstate) == (1102, "42601")

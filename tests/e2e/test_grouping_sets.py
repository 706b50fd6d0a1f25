"""ROLLUP, CUBE and GROUPING SETS whose keys are constant in their input (a filter on the key, a
literal column): every group and the ORDER BY, as Snowflake gives them
(https://docs.snowflake.com/en/sql-reference/constructs/group-by-rollup). The engine alone
merged groups and dropped the sort there (sql/transforms/grouping_sets.py)."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture
def sales(cur: Any) -> Any:
    cur.execute("CREATE TABLE sales (region VARCHAR, city VARCHAR, amount INT)")
    cur.execute("INSERT INTO sales VALUES ('EU', 'fr', 1), ('EU', 'de', 2), ('US', 'ny', 4), ('EU', 'fr', 8)")
    return cur


def test_rollup_of_a_key_the_filter_fixes(sales: Any) -> None:
    rows = sales.execute(
        "SELECT region, city, SUM(amount) FROM sales WHERE region = 'EU' "
        "GROUP BY ROLLUP(region, city) ORDER BY 1 NULLS LAST, 2 NULLS LAST"
    ).fetchall()
    assert rows == [("EU", "de", 2), ("EU", "fr", 9), ("EU", None, 11), (None, None, 11)]


def test_cube_of_a_key_the_filter_fixes_with_grouping_and_having(sales: Any) -> None:
    rows = sales.execute(
        "SELECT region, s.city, GROUPING(region) AS g, SUM(amount) FROM sales AS s WHERE region = 'EU' "
        "GROUP BY CUBE(region, city) HAVING SUM(amount) > 1 ORDER BY region NULLS LAST, city NULLS LAST"
    ).fetchall()
    assert rows == [
        ("EU", "de", 0, 2),
        ("EU", "fr", 0, 9),
        ("EU", None, 0, 11),
        (None, "de", 1, 2),
        (None, "fr", 1, 9),
        (None, None, 1, 11),
    ]


def test_rollup_of_a_literal_column(sales: Any) -> None:
    """TPC-DS's shape: a channel named by a literal, rolled up with the real keys."""
    rows = sales.execute(
        "SELECT 'store' AS channel, city, SUM(amount) AS total FROM sales "
        "GROUP BY ROLLUP(channel, city) ORDER BY channel NULLS LAST, city NULLS LAST"
    ).fetchall()
    assert rows == [
        ("store", "de", 2),
        ("store", "fr", 9),
        ("store", "ny", 4),
        ("store", None, 15),
        (None, None, 15),
    ]
    rows = sales.execute(
        "SELECT a, SUM(b) FROM (SELECT 1 AS a, 2 AS b UNION ALL SELECT 1, 3) "
        "GROUP BY GROUPING SETS ((a), ()) ORDER BY 1 NULLS LAST"
    ).fetchall()
    assert rows == [(1, 5), (None, 5)]


def test_rollup_keys_inside_expressions_and_windows(sales: Any) -> None:
    rows = sales.execute(
        "SELECT COALESCE(UPPER(region), 'ALL') AS r, SUM(amount) AS total, "
        "RANK() OVER (PARTITION BY GROUPING(UPPER(region)) ORDER BY SUM(amount) DESC) AS rk "
        "FROM sales WHERE region = 'US' GROUP BY ROLLUP(UPPER(region)) ORDER BY r"
    ).fetchall()
    assert rows == [("ALL", 4, 1), ("US", 4, 1)]


def test_positions_in_grouping_sets_stand_for_select_items(sales: Any) -> None:
    rows = sales.execute(
        "SELECT UPPER(region) AS r, city, SUM(amount) FROM sales GROUP BY ROLLUP(1, 2) "
        "ORDER BY 1 NULLS LAST, 2 NULLS LAST"
    ).fetchall()
    assert rows == [
        ("EU", "de", 2),
        ("EU", "fr", 9),
        ("EU", None, 11),
        ("US", "ny", 4),
        ("US", None, 4),
        (None, None, 15),
    ]
    sets = sales.execute(
        "SELECT region, city, COUNT(*) FROM sales GROUP BY GROUPING SETS ((1), (2)) ORDER BY 1, 2"
    ).fetchall()
    assert sets == [("EU", None, 3), ("US", None, 1), (None, "de", 1), (None, "fr", 2), (None, "ny", 1)]


def test_grouping_id_is_grouping_under_another_name(cur: Any) -> None:
    # Snowpark's documented example of GROUPING / GROUPING_ID over three grouping sets.
    cur.execute("CREATE TABLE abc (a INT, b INT, c INT)")
    cur.execute("INSERT INTO abc VALUES (1, 2, 3), (4, 5, 6)")
    rows = cur.execute(
        "SELECT a, b, COUNT(c), GROUPING_ID(a), GROUPING_ID(b), GROUPING_ID(a, b), GROUPING(a, b) FROM abc "
        "GROUP BY GROUPING SETS ((a), (b), (a, b)) ORDER BY a NULLS FIRST, b NULLS FIRST"
    ).fetchall()
    assert [d.name for d in cur.description][3:6] == ["GROUPING_ID(A)", "GROUPING_ID(B)", "GROUPING_ID(A, B)"]
    assert rows == [
        (None, 2, 1, 1, 0, 2, 2),
        (None, 5, 1, 1, 0, 2, 2),
        (1, None, 1, 0, 1, 1, 1),
        (1, 2, 1, 0, 0, 0, 0),
        (4, None, 1, 0, 1, 1, 1),
        (4, 5, 1, 0, 0, 0, 0),
    ]

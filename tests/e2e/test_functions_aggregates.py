"""Aggregate, window and data generation functions through the real connector."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any

import pytest


@pytest.fixture
def data(cur: Any) -> Any:
    cur.execute("CREATE TABLE agg (k INT, v INT)")
    cur.execute("INSERT INTO agg VALUES (1, 1), (1, 2), (1, 2), (1, 3), (2, 7), (2, NULL)")
    return cur


def test_aggregates(data: Any) -> None:
    row = data.execute(
        "SELECT MODE(v), COUNT_IF(v > 1), BOOLXOR_AGG(v > 2), MEDIAN(v), BITXOR_AGG(v), "
        "BOOLAND_AGG(v), ROUND(SKEW(v), 4), ROUND(KURTOSIS(v), 4) FROM agg"
    ).fetchone()
    # SKEW/KURTOSIS of 1, 2, 2, 3, 7 are Excel's SKEW and KURT of the same values.
    assert [float(x) if not isinstance(x, bool) else x for x in row] == [
        2,
        4,
        False,
        2,
        5,
        True,
        1.7444,
        3.3223,
    ]


def test_count_if_over_no_rows_is_zero(data: Any) -> None:
    assert data.execute("SELECT COUNT_IF(v > 100) FROM agg WHERE k = 3").fetchone()[0] == 0


def test_listagg_of_no_values_is_an_empty_string(data: Any) -> None:
    """https://docs.snowflake.com/en/sql-reference/functions/listagg: an empty input, or only
    NULLs, gives '' (not NULL)."""
    cur = data.execute(
        "SELECT k, LISTAGG(v, ',') WITHIN GROUP (ORDER BY v), LISTAGG(CASE WHEN v > 5 THEN v END, '|') "
        "FROM agg GROUP BY k ORDER BY k"
    )
    assert cur.fetchall() == [(1, "1,2,2,3", ""), (2, "7", "7")]
    assert data.execute("SELECT LISTAGG(v) FROM agg WHERE k = 3").fetchone() == ("",)
    cur = data.execute("SELECT LISTAGG(v, ',') OVER (PARTITION BY v IS NULL) FROM agg WHERE k = 2 ORDER BY v")
    assert cur.fetchall() == [("7",), ("",)]


def test_windows(data: Any) -> None:
    rows = data.execute(
        "SELECT v, RATIO_TO_REPORT(v) OVER (PARTITION BY k), CONDITIONAL_TRUE_EVENT(v > 1) OVER (ORDER BY v) "
        "FROM agg WHERE k = 1 ORDER BY v"
    ).fetchall()
    assert [(r[0], round(float(r[1]), 3), r[2]) for r in rows] == [
        (1, 0.125, 0),
        (2, 0.25, 1),
        (2, 0.25, 2),
        (3, 0.375, 3),
    ]


def test_ignore_nulls_skips_nulls_in_navigation_functions(cur: Any) -> None:
    """https://docs.snowflake.com/en/sql-reference/functions/first_value and .../lag: with IGNORE
    NULLS the first (last, previous, next) non-NULL value; the default frame of FIRST_VALUE and
    LAST_VALUE is the whole partition."""
    cur.execute("CREATE TABLE nav (id INT, g VARCHAR, v INT)")
    cur.execute(
        "INSERT INTO nav VALUES (1, 'a', NULL), (2, 'a', 20), (3, 'a', 30), (4, 'b', NULL), (5, 'b', 50)"
    )
    rows = cur.execute(
        "SELECT FIRST_VALUE(v) IGNORE NULLS OVER (PARTITION BY g ORDER BY id), "
        "FIRST_VALUE(v) OVER (PARTITION BY g ORDER BY id), "
        "LAST_VALUE(v IGNORE NULLS) OVER (PARTITION BY g ORDER BY id DESC), "
        "LAG(v) IGNORE NULLS OVER (ORDER BY id), LEAD(v) IGNORE NULLS OVER (ORDER BY id), "
        "LAG(v) RESPECT NULLS OVER (ORDER BY id) FROM nav ORDER BY id"
    ).fetchall()
    assert rows == [
        (20, None, 20, None, 20, None),
        (20, None, 20, None, 30, None),
        (20, None, 20, 20, 50, 20),
        (50, None, 50, 30, 50, 30),
        (50, None, 50, 30, None, None),
    ]


def test_lag_and_lead_with_a_default_computed_per_row(cur: Any) -> None:
    # DataFusion takes literal defaults only ("only support Literal types"); the default applies
    # where the partition has no row n away, never to a NULL that is there.
    cur.execute("CREATE TABLE shifts2 (id INT, g VARCHAR, v INT, w INT)")
    cur.execute(
        "INSERT INTO shifts2 VALUES (1, 'a', 10, 100), (2, 'a', NULL, 200), (3, 'a', 30, 300), "
        "(4, 'b', 40, 400)"
    )
    rows = cur.execute(
        "SELECT LAG(v, 1, w) OVER (PARTITION BY g ORDER BY id), "
        "LEAD(v, 1, -w) OVER (PARTITION BY g ORDER BY id), "
        "LAG(v, 2, w + id) OVER (PARTITION BY g ORDER BY id) FROM shifts2 ORDER BY id"
    ).fetchall()
    assert rows == [(100, None, 101), (10, 30, 202), (None, -300, 10), (400, -400, 404)]


def test_percentile_cont_as_a_window_function(cur: Any) -> None:
    # https://docs.snowflake.com/en/sql-reference/functions/percentile_cont: OVER (PARTITION BY)
    # was refused ("OVER and WITHIN GROUP clause cannot be used together").
    cur.execute("CREATE TABLE pc (g VARCHAR, x FLOAT)")
    cur.execute("INSERT INTO pc VALUES ('a', 1), ('a', 2), ('a', 4), ('b', 10), ('b', NULL)")
    rows = cur.execute(
        "SELECT g, PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY x) OVER (PARTITION BY g), "
        "PERCENTILE_CONT(0.25) WITHIN GROUP (ORDER BY x DESC) OVER (PARTITION BY g) FROM pc ORDER BY g, x"
    ).fetchall()
    assert rows == [("a", 2.0, 3.0)] * 3 + [("b", 10.0, 10.0)] * 2
    grouped = cur.execute(
        "SELECT g, PERCENTILE_CONT(0.25) WITHIN GROUP (ORDER BY x DESC) FROM pc GROUP BY g ORDER BY g"
    ).fetchall()
    assert grouped == [("a", 3.0), ("b", 10.0)]


def test_listagg_within_group_as_a_window_function(data: Any) -> None:
    rows = data.execute(
        "SELECT k, LISTAGG(v, ',') WITHIN GROUP (ORDER BY v DESC) OVER (PARTITION BY k) FROM agg "
        "WHERE v IS NOT NULL ORDER BY k, v"
    ).fetchall()
    assert rows == [(1, "3,2,2,1")] * 4 + [(2, "7")]


def test_data_generation(cur: Any) -> None:
    rows = cur.execute(
        "SELECT SEQ1(1), UNIFORM(1, 10, RANDOM()), RANDSTR(5, 1234), RANDOM(), "
        "UUID_STRING('fe971b24-9572-4005-b22f-351e9c09274d', 'foo') "
        "FROM TABLE(GENERATOR(ROWCOUNT => 130)) ORDER BY 1"
    ).fetchall()
    assert rows[0][0] == -128 and rows[-1][0] == 127
    assert all(1 <= r[1] <= 10 for r in rows)
    # The same generator value always gives the same string.
    assert len({r[2] for r in rows}) == 1 and re.fullmatch(r"[0-9A-Za-z]{5}", rows[0][2])
    assert all(isinstance(r[3], int) for r in rows)
    # https://docs.snowflake.com/en/sql-reference/functions/uuid_string (v5 example)
    assert rows[0][4] == "dc0b6f65-fca6-5b4b-9d37-ccc3fde1f3e2"


def test_max_by_and_min_by(cur: Any) -> None:
    """The documented example: https://docs.snowflake.com/en/sql-reference/functions/max_by"""
    cur.execute("CREATE TABLE employees (employee_id INT, department_id INT, salary NUMBER(10, 2))")
    cur.execute(
        "INSERT INTO employees VALUES (1001, 10, 10000), (1020, 10, 9000), (1030, 10, 8000), "
        "(900, 20, 15000), (2000, 20, NULL), (2010, 20, 15000), (2020, 20, 8000)"
    )
    dept10 = "FROM employees WHERE department_id = 10"
    assert cur.execute(
        f"SELECT MAX_BY(employee_id, salary), MIN_BY(employee_id, salary) {dept10}"
    ).fetchone() == (
        1001,
        1030,
    )
    first3, last3 = cur.execute(
        f"SELECT MAX_BY(employee_id, salary, 3), MIN_BY(employee_id, salary, 3) {dept10}"
    ).fetchone()
    assert (json.loads(first3), json.loads(last3)) == ([1001, 1020, 1030], [1030, 1020, 1001])
    # A NULL salary never wins; none at all gives NULL.
    assert (
        json.loads(
            cur.execute(
                "SELECT MIN_BY(employee_id, salary, 5) FROM employees WHERE department_id = 20"
            ).fetchone()[0]
        )[0]
        == 2020
    )
    assert cur.execute(
        "SELECT MAX_BY(employee_id, salary) FROM employees WHERE salary IS NULL"
    ).fetchone() == (None,)


def test_higher_moments_beside_the_plain_aggregates(cur: Any) -> None:
    # KURTOSIS / SKEW are built from AVG, VAR_SAMP, STDDEV: beside the query's own, no clash.
    cur.execute(
        "SELECT AVG(x), VARIANCE(x), STDDEV(x), KURTOSIS(x), SKEW(x) "
        "FROM VALUES (1), (2), (3), (4), (10) t(x)"
    )
    avg, var, std, kurtosis, skew = cur.fetchone()
    assert (float(avg), var) == (4.0, 12.5)
    assert std == pytest.approx(3.5355339)
    # Excel's KURT and SKEW, which Snowflake's follow, worked out here from the deviations.
    deviations, n = [-3, -2, -1, 0, 6], 5
    assert kurtosis == pytest.approx(
        n * (n + 1) / ((n - 1) * (n - 2) * (n - 3)) * sum(d**4 for d in deviations) / var**2
        - 3 * (n - 1) ** 2 / ((n - 2) * (n - 3))
    )
    assert skew == pytest.approx(n / ((n - 1) * (n - 2)) * sum(d**3 for d in deviations) / var**1.5)


def test_avg_and_median_of_numbers_are_numbers(cur: Any) -> None:
    """AVG of NUMBER(p, s) is NUMBER(38, max(s, min(s + 6, 12))), rounded: 1.666667 for 1, 2, 2
    (the Snowpark docs' example); a FLOAT's stays FLOAT."""
    cur.execute("CREATE TABLE averaged (k VARCHAR, i INT, n NUMBER(10, 2), f FLOAT)")
    cur.execute(
        "INSERT INTO averaged VALUES "
        "('a', 1, 1.25, 1), ('a', 2, 2.5, 2), ('a', 2, 3.33, 4), ('b', NULL, NULL, NULL)"
    )
    cur.execute("SELECT AVG(i), AVG(n), AVG(f), AVG(DISTINCT i) FROM averaged")
    assert cur.fetchone() == (
        Decimal("1.666667"),
        Decimal("2.36000000"),
        pytest.approx(7 / 3),
        Decimal("1.5"),
    )
    assert [(d.type_code, d.scale) for d in cur.description] == [(0, 6), (0, 8), (1, None), (0, 6)]
    # Aggregates apart only by a cast are two columns (DataFusion would name both "sum(averaged.i)").
    assert cur.execute("SELECT SUM(i), SUM(i::FLOAT), AVG(i::FLOAT) FROM averaged").fetchone() == (
        5,
        5.0,
        pytest.approx(5 / 3),
    )
    # MEDIAN: NUMBER(p + 3, s + 3).
    assert cur.execute("SELECT MEDIAN(i), MEDIAN(n) FROM averaged").fetchone() == (
        Decimal("2"),
        Decimal("2.5"),
    )
    assert [d.scale for d in cur.description] == [3, 5]
    cur.execute("SELECT k, AVG(i) FROM averaged GROUP BY k ORDER BY k")
    assert cur.fetchall() == [("a", Decimal("1.666667")), ("b", None)]
    cur.execute("SELECT AVG(x.i) OVER (ORDER BY x.n) FROM averaged x JOIN averaged y ON x.i = y.i ORDER BY 1")
    expected = ["1.000000", "1.666667", "1.666667", "1.800000", "1.800000"]  # peers share a frame
    assert [r[0] for r in cur.fetchall()] == [Decimal(v) for v in expected]
    # Decimals (summed, then divided per group): rounded half away from zero at scale 8, NULL
    # for a group of NULLs, and over a window.
    cur.execute("CREATE TABLE cents (k VARCHAR, n NUMBER(10, 2))")
    cur.execute(
        "INSERT INTO cents VALUES ('a', 0.02), ('a', 0), ('a', 0), "
        "('b', -0.02), ('b', 0), ('b', 0), ('c', NULL)"
    )
    cur.execute("SELECT k, AVG(n) OVER (PARTITION BY k) FROM cents ORDER BY k")
    windows = ["0.00666667"] * 3 + ["-0.00666667"] * 3
    assert cur.fetchall() == [(k, Decimal(w)) for k, w in zip("aaabbb", windows, strict=True)] + [("c", None)]
    cur.execute("SELECT k, AVG(n) FROM cents GROUP BY k ORDER BY k")
    assert cur.fetchall() == [("a", Decimal("0.00666667")), ("b", Decimal("-0.00666667")), ("c", None)]
    assert [d.scale for d in cur.description] == [None, 8]


def test_percentile_disc_takes_the_first_value_reaching_the_share(cur: Any) -> None:
    # https://docs.snowflake.com/en/sql-reference/functions/percentile_disc
    cur.execute(
        "SELECT g, PERCENTILE_DISC(0.5) WITHIN GROUP (ORDER BY x), "
        "PERCENTILE_DISC(0.25) WITHIN GROUP (ORDER BY x DESC), PERCENTILE_DISC(0) WITHIN GROUP (ORDER BY x) "
        "FROM VALUES ('a', 1), ('a', 2), ('a', 3), ('a', 4), ('a', NULL), ('b', NULL) AS t(g, x) "
        "GROUP BY g ORDER BY g"
    )
    assert cur.fetchall() == [("a", 2, 4, 1), ("b", None, None, None)]


def test_approx_top_k_gives_the_most_frequent_values_with_their_counts(data: Any) -> None:
    # Snowflake's output: a JSON array of [value, count] arrays, most frequent first; k defaults to 1.
    rows = data.execute(
        "SELECT k, APPROX_TOP_K(v), APPROX_TOP_K(v, 2, 100) FROM agg GROUP BY k ORDER BY k"
    ).fetchall()
    assert [(k, json.loads(one), json.loads(two)) for k, one, two in rows] == [
        (1, [[2, 2]], [[2, 2], [1, 1]]),
        (2, [[7, 1]], [[7, 1]]),
    ]
    assert data.execute("SELECT TYPEOF(APPROX_TOP_K(v, 3)) FROM agg").fetchone()[0] == "ARRAY"
    windowed = data.execute("SELECT k, APPROX_TOP_K(v) OVER (PARTITION BY k) FROM agg ORDER BY k").fetchall()
    assert [(k, json.loads(top)) for k, top in windowed] == [(1, [[2, 2]])] * 4 + [(2, [[7, 1]])] * 2
    text = data.execute("SELECT APPROX_TOP_K(TO_VARCHAR(k)) FROM agg").fetchone()[0]
    assert json.loads(text) == [["1", 4]]


def test_listagg_distinct_of_numbers_orders_them_as_numbers(cur: Any) -> None:
    cur.execute("CREATE TABLE amounts (g VARCHAR, v NUMBER(10, 2))")
    cur.execute("INSERT INTO amounts VALUES ('a', 10), ('a', 5), ('a', 10), ('a', NULL), ('b', NULL)")
    rows = cur.execute(
        "SELECT g, LISTAGG(DISTINCT v, '|') WITHIN GROUP (ORDER BY v DESC), "
        "LISTAGG(DISTINCT v, '|') WITHIN GROUP (ORDER BY v) FROM amounts GROUP BY g ORDER BY g"
    ).fetchall()
    assert rows == [("a", "10.00|5.00", "5.00|10.00"), ("b", "", "")]

"""Golden translation tests for aggregate functions.
https://docs.snowflake.com/en/sql-reference/functions-aggregation
"""

from __future__ import annotations

import json
from decimal import Decimal

import pyarrow as pa

from embucket_py.engine.context import new_context
from tests.sql.helpers import CTX, translate, validate


def rows(sql: str) -> list[dict[str, object]]:
    return new_context().sql(translate(sql, CTX).sql).to_pylist()


def test_approx_percentile_interpolates_like_snowflake() -> None:
    validate(
        "SELECT APPROX_PERCENTILE(a, 0.5) AS p FROM t",
        'SELECT percentile_cont(CAST("a" AS DOUBLE), 0.5) AS "p" FROM "__t0" AS "t"',
    )
    # The documented example over 0..10: p10 = 1.0, p50 = 5.0, p99.9 = 9.99.
    values = "(SELECT * FROM VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9),(10) AS v(c))"
    (row,) = rows(
        f"SELECT APPROX_PERCENTILE(c, 0.1) AS a, APPROX_PERCENTILE(c, 0.5) AS b, "
        f"APPROX_PERCENTILE(c, 0.999) AS c FROM {values}"
    )
    assert [round(v, 6) for v in row.values()] == [1.0, 5.0, 9.99]


def test_mode_of_strings_keeps_the_text() -> None:
    validate("SELECT MODE(b) AS m FROM t", 'SELECT sf_mode_text("b") AS "m" FROM "__t0" AS "t"')
    # An integer column's MODE is exact (int64), a FLOAT's stays a FLOAT.
    integer = 'SELECT sf_mode_integer(arrow_cast("a", \'Int64\')) AS "m" FROM "__t0" AS "t"'
    validate("SELECT MODE(a) AS m FROM t", integer)
    double = 'SELECT sf_mode(CAST("a" AS DOUBLE)) AS "m" FROM "__t0" AS "t"'
    validate("SELECT MODE(a::FLOAT) AS m FROM t", double)
    (row,) = rows(
        "SELECT MODE(v::VARCHAR) AS m FROM (SELECT * FROM VALUES ('x'), ('y'), ('y'), (NULL) AS v(v))"
    )
    assert row == {"m": "y"}


def test_boolxor_agg_over_a_window_puts_the_window_on_each_count() -> None:
    validate(
        "SELECT BOOLXOR_AGG(a) OVER (PARTITION BY c) AS x FROM t",
        'SELECT CASE WHEN count("a") OVER (PARTITION BY "c") = 0 THEN NULL '
        'ELSE count(CASE WHEN CAST("a" AS BOOLEAN) THEN 1 END) OVER (PARTITION BY "c") = 1 END AS "x" '
        'FROM "__t0" AS "t"',
    )
    got = rows(
        "SELECT id, BOOLXOR_AGG(c1) OVER (PARTITION BY id > 0) AS x "
        "FROM (SELECT * FROM VALUES (-2, FALSE), (-1, TRUE), (1, TRUE), (2, TRUE) AS v(id, c1)) ORDER BY id"
    )
    assert [r["x"] for r in got] == [True, True, False, False]


def test_array_union_and_unique_agg() -> None:
    # ARRAY_UNION_AGG's documented example: [1,1,2] and [1,2,3] -> [1,1,2,3]. ARRAY_UNIQUE_AGG
    # gathers the distinct values of its column: each array is one value.
    (row,) = rows(
        "WITH u(a) AS (SELECT PARSE_JSON('[1, 1, 2]') UNION ALL SELECT PARSE_JSON('[1, 2, 3]') "
        "UNION ALL SELECT PARSE_JSON('[1, 1, 2]')) "
        "SELECT ARRAY_UNION_AGG(a) AS x, ARRAY_UNIQUE_AGG(a) AS y FROM u"
    )
    assert row == {"x": "[1,1,2,3]", "y": "[[1,1,2],[1,2,3]]"}
    # Snowpark's example: 5, 2, 1, 2, 1 -> [5, 2, 1] in some order; NULLs left out, none gives [].
    (row,) = rows(
        "SELECT ARRAY_UNIQUE_AGG(a) AS y, ARRAY_UNIQUE_AGG(CASE WHEN a > 9 THEN a END) AS z "
        "FROM VALUES (5), (2), (1), (2), (1), (NULL) AS v(a)"
    )
    assert sorted(json.loads(row["y"])) == [1, 2, 5]
    assert json.loads(row["z"]) == []


def test_avg_of_numbers_is_an_exact_number_rounded_at_the_quotient_scale() -> None:
    """AVG of NUMBER(p, s) is NUMBER(38, max(s, min(s + 6, 12))): 1.666667 for 1, 2, 2 (the
    Snowpark docs' example); averaged two digits further, then cast (which rounds) to it."""
    kinds = {"T": pa.schema([("a", pa.int64()), ("b", pa.decimal128(10, 2)), ("f", pa.float64())])}
    validate(
        "SELECT AVG(a) AS x, AVG(DISTINCT b) AS y, AVG(f) AS z FROM t",
        'SELECT CAST(avg(CAST("a" AS DECIMAL(38, 4))) AS DECIMAL(38, 6)) AS "x", '
        'CAST(avg(DISTINCT CAST("b" AS DECIMAL(38, 6))) AS DECIMAL(38, 8)) AS "y", '
        'avg("f") AS "z" FROM "__t0" AS "t"',
        schemas=kinds,
    )
    validate(
        "SELECT AVG(a) OVER (PARTITION BY f) AS w FROM t",
        'SELECT CAST(avg(CAST("a" AS DECIMAL(38, 4))) OVER (PARTITION BY "f") AS DECIMAL(38, 6)) AS "w" '
        'FROM "__t0" AS "t"',
        schemas=kinds,
    )
    # A decimal's: the sum widened once a group, over the count (the cast per row cost 5% of Q1).
    validate(
        "SELECT AVG(b) AS v FROM t",
        'SELECT CAST(CAST(sum("b") AS DECIMAL(38, 6)) / nullif(count("b"), 0) AS DECIMAL(38, 8)) AS "v" '
        'FROM "__t0" AS "t"',
        schemas=kinds,
    )
    validate(
        "SELECT AVG(b) OVER (PARTITION BY f) AS w FROM t",
        'SELECT CAST(CAST(sum("b") OVER (PARTITION BY "f") AS DECIMAL(38, 6)) / '
        'nullif(count("b") OVER (PARTITION BY "f"), 0) AS DECIMAL(38, 8)) AS "w" FROM "__t0" AS "t"',
        schemas=kinds,
    )
    (row,) = rows(
        "SELECT AVG(2) AS a, AVG(x) AS b FROM (SELECT 1 AS x UNION ALL SELECT 2 UNION ALL SELECT 2)"
    )
    assert row == {"a": Decimal("2.000000"), "b": Decimal("1.666667")}


def test_median_of_numbers_has_three_more_digits() -> None:
    """MEDIAN of NUMBER(p, s) is NUMBER(p + 3, s + 3): the Snowpark docs' 1, 3, 10, 1, 3 -> 3.000."""
    validate(
        "SELECT MEDIAN(a) AS m FROM t", 'SELECT median(CAST("a" AS DECIMAL(38, 3))) AS "m" FROM "__t0" AS "t"'
    )
    validate(
        "SELECT MEDIAN(d) AS m FROM t", 'SELECT median("d") AS "m" FROM "__t0" AS "t"'
    )  # a DOUBLE's stays
    (row,) = rows(
        "SELECT MEDIAN(x) AS m, MEDIAN(y) AS n "
        "FROM VALUES (1, 1.5), (3, 2.5), (10, 1.5), (1, 3.5), (3, 2.0) AS v(x, y)"
    )
    assert row == {"m": Decimal("3.000"), "n": Decimal("2.0000")}


def test_a_number_cast_or_average_divides_exactly() -> None:
    """NUMBER / NUMBER keeps Snowflake's scale max(s, min(s + 6, 12)) also for casts and AVG."""
    (row,) = rows(
        "SELECT 1::INT / 2 AS a, CAST(7 AS NUMBER(5, 1)) / 2 AS b, AVG(x) / 3 AS c "
        "FROM VALUES (1), (2) AS v(x)"
    )
    assert row == {"a": Decimal("0.500000"), "b": Decimal("3.5000000"), "c": Decimal("0.500000000000")}


def test_aggregates_apart_only_by_casts_get_names_of_their_own() -> None:
    """DataFusion names `sum(CAST(a AS DOUBLE))` "sum(t.a)", as `sum(a)`: in one SELECT that was a
    plan error (duplicate field name). A one-argument COALESCE keeps them apart."""
    validate(
        "SELECT SUM(a) AS x, SUM(a::FLOAT) AS y, SUM(a::NUMBER(10, 2)) AS z, VAR_SAMP(d) AS v, "
        "VARIANCE(d::DOUBLE) AS w FROM t",
        'SELECT sum(CAST("a" AS DECIMAL(38, 0))) AS "x", sum(coalesce(CAST("a" AS DOUBLE))) AS "y", '
        'sum(coalesce(coalesce(CAST("a" AS DECIMAL(10, 2))))) AS "z", var_samp("d") AS "v", '
        'var_samp(coalesce(CAST("d" AS DOUBLE))) AS "w" FROM "__t0" AS "t"',
    )
    (row,) = rows(
        "SELECT SUM(x) AS a, SUM(x::FLOAT) AS b, AVG(x) AS c, AVG(x::FLOAT) AS d FROM VALUES (1), (2) AS v(x)"
    )
    assert row == {"a": 3, "b": 3.0, "c": Decimal("1.500000"), "d": 1.5}


def test_hll_is_approx_count_distinct() -> None:
    # https://docs.snowflake.com/en/sql-reference/functions/hll: an alias of APPROX_COUNT_DISTINCT.
    validate(
        "SELECT HLL(a) AS h, APPROX_COUNT_DISTINCT(a) AS c FROM t",
        'SELECT approx_distinct("a") AS "h", approx_distinct("a") AS "c" FROM "__t0" AS "t"',
    )
    (row,) = rows("SELECT HLL(v) AS h FROM VALUES (1), (2), (2), (NULL) AS t(v)")
    assert row == {"h": 2}

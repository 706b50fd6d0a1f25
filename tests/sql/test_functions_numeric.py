"""Golden translation tests for numeric functions.
https://docs.snowflake.com/en/sql-reference/functions-numeric
"""

from __future__ import annotations

from decimal import Decimal

import pyarrow as pa

from embucket_py.engine.context import new_context
from tests.sql.helpers import CTX, translate, validate


def row(sql: str) -> list[object]:
    table = new_context().sql(translate(sql, CTX).sql).to_arrow_table()
    return [table.column(i)[0].as_py() for i in range(table.num_columns)]


def texts(sql: str) -> list[str]:
    return [str(v) for v in row(sql)]


def test_width_bucket_is_a_case_over_equal_widths() -> None:
    validate(
        "SELECT WIDTH_BUCKET(d, 0, 10, 5) AS w FROM t",
        'SELECT CASE WHEN CAST("d" AS DOUBLE) < CAST(0 AS DOUBLE) THEN 0 '
        'WHEN CAST("d" AS DOUBLE) >= CAST(10 AS DOUBLE) THEN CAST(5 AS DECIMAL(38, 0)) + 1 '
        'ELSE CAST(floor((CAST("d" AS DOUBLE) - CAST(0 AS DOUBLE)) / '
        "((CAST(10 AS DOUBLE) - CAST(0 AS DOUBLE)) / CAST(5 AS DOUBLE))) AS DECIMAL(38, 0)) + 1 END "
        'AS "w" FROM "__t0" AS "t"',
    )


def test_width_bucket_values_from_the_documentation() -> None:
    # The documented example: price buckets of 190000..510000 in 5 (290000 -> 2, 510000 -> 6).
    assert row(
        "SELECT WIDTH_BUCKET(290000, 190000, 510000, 5), WIDTH_BUCKET(510000, 190000, 510000, 5), "
        "WIDTH_BUCKET(100, 190000, 510000, 5)"
    ) == [2, 6, 0]


def test_square_and_cbrt() -> None:
    validate(
        "SELECT SQUARE(a) AS s, CBRT(d) AS c FROM t",
        # FLOATs, as on Snowflake (a decimal base kept its scale in DataFusion: POWER(2.5, 2) was 6.2).
        'SELECT power(CAST("a" AS DOUBLE), CAST(2 AS DOUBLE)) AS "s", cbrt(CAST("d" AS DOUBLE)) AS "c" '
        'FROM "__t0" AS "t"',
    )


def test_division_of_integers_keeps_a_decimal_scale() -> None:
    assert row("SELECT 1 / 3") == [Decimal("0.333333")]


def test_division_of_number_columns_uses_the_dividend_scale() -> None:
    # NUMBER(10, 2) / NUMBER(38, 0): scale max(2, min(2 + 6, 12)) = 8, as Snowflake's rule gives.
    columns = [("p", pa.decimal128(10, 2)), ("n", pa.decimal128(38, 0)), ("f", pa.float64())]
    schemas = {"T": pa.schema(columns)}
    validate(
        "SELECT p / n AS x, f / n AS y FROM t",
        'SELECT CAST(round(CAST("p" AS DECIMAL(38, 8)) / "n", 8) AS DECIMAL(38, 8)) AS "x", '
        'CAST("f" AS DOUBLE) / sf_divisor(CAST("n" AS DOUBLE)) AS "y" FROM "__t0" AS "t"',
        schemas=schemas,
    )


def test_div0_of_numbers_divides_exactly() -> None:
    # https://docs.snowflake.com/en/sql-reference/functions/div0: DIV0(1, 2) = 0.500000, DIV0(1, 0) = 0.
    assert row("SELECT DIV0(1, 2), DIV0(1, 0)") == [Decimal("0.500000"), Decimal("0.000000")]


def test_division_of_aggregates_and_arithmetic_follows_snowflake_scales() -> None:
    """Scales by the documented rules: a * b min(s1 + s2, max(s1, s2, 12)), a + b max(s1, s2),
    COUNT 0, SUM/MIN/MAX the argument's, AVG and a / b max(s1, min(s1 + 6, 12)); a FLOAT
    anywhere divides as DOUBLE."""
    values = "FROM VALUES (1.25, 3, 2.5, 1.5::FLOAT), (2.50, 4, 0.0001, 2.5::FLOAT) AS v(a, b, c, f)"
    # Compared as text: equal Decimals of other scales compare equal.
    assert texts(
        "SELECT SUM(a) / COUNT(*), SUM(b) / COUNT(b), COUNT(*) / 3, MAX(a) / MIN(b), SUM(a) / SUM(b), "
        f"AVG(a * b), AVG(b + 1), AVG(-a), SUM(f) / COUNT(*), 2 * 3 / 4 {values}"
    ) == [
        "1.87500000",
        "3.500000",
        "0.666667",
        "0.83333333",
        "0.53571429",
        "6.87500000",
        "4.500000",
        "-1.87500000",
        "2.0",
        "1.500000",
    ]
    assert texts(f"SELECT (a * b) / c, -a / 3, (a + c) / 2, SUM(a) OVER () / 2 {values}") == [
        "1.50000000",
        "-0.41666667",
        "1.8750000000",
        "1.87500000",
    ]


def test_integer_arithmetic_is_exact_to_38_digits() -> None:
    # DataFusion's 64-bit +, -, * wrap; as NUMBER(38, 0) they do not. Two small literals stay as
    # written; where a function takes a 64-bit integer, the exact value is cast back, checked.
    validate(
        "SELECT a + c AS x, a - 1 AS y, 2 + 3 AS z, REPEAT(b, a * 2) AS r FROM t",
        'SELECT CAST("a" AS DECIMAL(38, 0)) + "c" AS "x", CAST("a" AS DECIMAL(38, 0)) - 1 AS "y", '
        '2 + 3 AS "z", repeat("b", arrow_cast(CAST("a" AS DECIMAL(38, 0)) * 2, \'Int64\')) AS "r" '
        'FROM "__t0" AS "t"',
    )
    assert row("SELECT 9223372036854775807 + 1, -9223372036854775807 - 2") == [
        Decimal("9223372036854775808"),
        Decimal("-9223372036854775809"),
    ]


def test_numbers_on_both_sides_of_concatenation_become_text() -> None:
    # DataFusion's || wants a string on one side; Snowflake turns NUMBERs into their text.
    assert row("SELECT 1 || 2.5, 4 || 5, 4 || CAST(5 AS NUMBER(38, 0)), 'a' || 1") == [
        "12.5",
        "45",
        "45",
        "a1",
    ]
    validate(
        "SELECT a || c FROM t",
        'SELECT CAST("a" AS VARCHAR) || CAST("c" AS VARCHAR) AS "a || c" FROM "__t0" AS "t"',
    )

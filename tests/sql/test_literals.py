"""A Python value becomes a Snowflake literal: of the type the value implies, or of a declared type."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from embucket_py.sql.literals import literal
from embucket_py.types import parse_sql_type

UTC = dt.UTC


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, "NULL"),
        (True, "TRUE"),
        (10, "10"),
        (-7, "-7"),
        (10**30, "1000000000000000000000000000000"),
        (Decimal("1.50"), "1.50"),
        (1.5, "CAST(1.5 AS DOUBLE)"),
        (float("inf"), "CAST('inf' AS DOUBLE)"),
        (b"\x01\xff", "x'01ff'"),
        (dt.date(2024, 1, 2), "CAST('2024-01-02' AS DATE)"),
        (dt.time(3, 4, 5), "CAST('03:04:05' AS TIME)"),
        (dt.datetime(2024, 1, 2, 3, 4, 5), "CAST('2024-01-02 03:04:05' AS TIMESTAMP)"),
        (dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC), "CAST('2024-01-02 03:04:05+00:00' AS TIMESTAMPTZ)"),
        ("it's", "'it\\'s'"),
    ],
)
def test_a_value_alone_implies_its_type(value: object, expected: str) -> None:
    assert literal(value).sql(dialect="snowflake") == expected


@pytest.mark.parametrize(
    ("value", "declared", "expected"),
    [
        (None, "NUMBER(10,2)", "CAST(NULL AS DECIMAL(10, 2))"),
        (None, "VARCHAR", "CAST(NULL AS VARCHAR(16777216))"),
        (1, "BOOLEAN", "TRUE"),
        (-5, "NUMBER", "-5"),
        (Decimal("2.50"), "NUMBER(10,2)", "CAST('2.50' AS DECIMAL(10, 2))"),
        (10**20, "NUMBER(38,0)", "CAST('100000000000000000000' AS DECIMAL(38, 0))"),
        (float("nan"), "FLOAT", "CAST('nan' AS DOUBLE)"),
        (
            dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC),
            "TIMESTAMP_LTZ",
            "CAST('2024-01-02 03:04:05+00:00' AS TIMESTAMPLTZ(9))",
        ),
        ('{"a": 1}', "VARIANT", "PARSE_JSON('{\"a\": 1}')"),
        ("[1, 2]", "ARRAY", "CAST(PARSE_JSON('[1, 2]') AS ARRAY)"),
        (5, "VARCHAR", "'5'"),
    ],
)
def test_a_declared_type_decides_the_literal(value: object, declared: str, expected: str) -> None:
    assert literal(value, parse_sql_type(declared)).sql(dialect="snowflake") == expected

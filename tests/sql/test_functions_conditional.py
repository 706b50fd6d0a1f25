"""Golden translations of Snowflake conditional functions (see sql/transforms/functions/conditional.py)."""

from __future__ import annotations

from tests.sql.helpers import validate


def test_equal_null_is_not_distinct_from() -> None:
    validate(
        "SELECT EQUAL_NULL(a, c) AS r FROM t",
        'SELECT ("a" IS NOT DISTINCT FROM "c") AS "r" FROM "__t0" AS "t"',
    )


def test_greatest_is_null_when_any_argument_is() -> None:
    validate(
        "SELECT GREATEST(a, c) AS r FROM t",
        'SELECT CASE WHEN "a" IS NULL OR "c" IS NULL THEN NULL ELSE greatest("a", "c") END AS '
        '"r" FROM "__t0" AS "t"',
    )
    validate(
        "SELECT LEAST(a, c, 1) AS r FROM t",
        'SELECT CASE WHEN "a" IS NULL OR "c" IS NULL OR 1 IS NULL THEN NULL ELSE least("a", '
        '"c", 1) END AS "r" FROM "__t0" AS "t"',
    )


def test_regr_valx_and_valy() -> None:
    validate(
        "SELECT REGR_VALX(a, c) AS r, REGR_VALY(a, c) AS s FROM t",
        'SELECT CASE WHEN "a" IS NULL OR "c" IS NULL THEN NULL ELSE "c" END AS "r", CASE WHEN '
        '"a" IS NULL OR "c" IS NULL THEN NULL ELSE "a" END AS "s" FROM "__t0" AS "t"',
    )


def test_boolxor_of_literals() -> None:
    validate(
        "SELECT BOOLXOR(1, 0) AS r",
        'SELECT ((1 <> 0) <> (0 <> 0)) AS "r"',
    )

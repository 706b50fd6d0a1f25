"""Golden translation tests for conversion: CAST / TRY_CAST stay plain unless a VARIANT may reach them.
https://docs.snowflake.com/en/sql-reference/functions/cast
"""

from __future__ import annotations

import pyarrow as pa

from tests.sql.helpers import CTX, translate, validate

VARIANT_FIELD = pa.field("v", pa.string(), metadata={"embucket.sftype": "VARIANT"})
WITH_VARIANT = {"T": pa.schema([VARIANT_FIELD, pa.field("a", pa.int64())])}


def test_literal_and_typed_column_casts_are_plain() -> None:
    validate(
        "SELECT '12'::INT AS i, a::VARCHAR AS s, b::DATE AS d FROM t",
        'SELECT CAST(\'12\' AS DECIMAL(38, 0)) AS "i", CAST("a" AS VARCHAR) AS "s", '
        'CAST("b" AS DATE) AS "d" FROM "__t0" AS "t"',
    )


def test_cast_through_a_subquery_of_typed_columns_is_plain() -> None:
    validate(
        "SELECT x::INT AS i FROM (SELECT b AS x FROM t) s",
        'SELECT CAST("x" AS DECIMAL(38, 0)) AS "i" FROM (SELECT "b" AS "x" FROM "__t0" AS "t") AS "s"',
    )


def test_variant_column_cast_reads_the_json_text() -> None:
    validate(
        "SELECT v::INT AS i, a::INT AS j FROM t",
        "SELECT CASE WHEN arrow_metadata(\"v\", 'embucket.sftype') IN ('VARIANT', 'OBJECT', 'ARRAY') "
        'THEN CAST(sf_variant_text("v") AS DECIMAL(38, 0)) ELSE CAST("v" AS DECIMAL(38, 0)) END AS "i", '
        'CAST("a" AS DECIMAL(38, 0)) AS "j" FROM "__t0" AS "t"',
        schemas=WITH_VARIANT,
    )


def test_unknown_column_types_keep_the_check() -> None:
    # Without the stored types (CTX has no column_kinds) a column may be a VARIANT.
    assert "sf_variant_text" in translate("SELECT a::INT AS i FROM t", CTX).sql

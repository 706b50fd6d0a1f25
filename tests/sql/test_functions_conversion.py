"""Golden translation tests for conversion: CAST / TRY_CAST stay plain unless a VARIANT may reach them.
https://docs.snowflake.com/en/sql-reference/functions/cast
"""

from __future__ import annotations

from datetime import datetime

import pyarrow as pa

from tests.sql.helpers import CTX, translate, validate

VARIANT_FIELD = pa.field("v", pa.string(), metadata={"embucket.sftype": "VARIANT"})
WITH_VARIANT = {"T": pa.schema([VARIANT_FIELD, pa.field("a", pa.int64())])}


def test_literal_and_typed_column_casts_are_plain() -> None:
    # A text column cast to DATE reads Snowflake's AUTO forms ('03/15/2024', '15-Mar-2024', epochs).
    validate(
        "SELECT '12'::INT AS i, a::VARCHAR AS s, b::DATE AS d FROM t",
        'SELECT CAST(\'12\' AS DECIMAL(38, 0)) AS "i", CAST("a" AS VARCHAR) AS "s", '
        'CAST(arrow_cast(sf_to_date_timestamp(CAST("b" AS VARCHAR)), '
        "'Timestamp(Microsecond, None)') AS DATE) "
        'AS "d" FROM "__t0" AS "t"',
    )


def test_cast_through_a_subquery_of_typed_columns_is_plain() -> None:
    validate(
        "SELECT x::INT AS i FROM (SELECT b AS x FROM t) s",
        'SELECT CAST("x" AS DECIMAL(38, 0)) AS "i" FROM (SELECT "b" AS "x" FROM "__t0" AS "t") AS "s"',
    )


def test_variant_column_cast_reads_the_json_text() -> None:
    # The stored type says VARIANT: no run-time check (Parquet scans drop the column's tag).
    validate(
        "SELECT v::INT AS i, a::INT AS j FROM t",
        'SELECT CAST(sf_variant_text("v") AS DECIMAL(38, 0)) AS "i", '
        'CAST("a" AS DECIMAL(38, 0)) AS "j" FROM "__t0" AS "t"',
        schemas=WITH_VARIANT,
    )


def test_unknown_column_types_keep_the_check() -> None:
    # Without the stored types (CTX has no column_kinds) a column may be a VARIANT.
    assert "sf_variant_text" in translate("SELECT a::INT AS i FROM t", CTX).sql


def row(sql: str) -> list[object]:
    from embucket_py.engine.context import new_context

    table = new_context().sql(translate(sql, CTX).sql).to_arrow_table()
    return [table.column(i)[0].as_py() for i in range(table.num_columns)]


def test_to_binary_formats() -> None:
    validate(
        "SELECT TO_BINARY(b, 'HEX') AS h, TO_BINARY(b, 'UTF-8') AS u FROM t",
        'SELECT decode(btrim(CAST("b" AS VARCHAR)), \'hex\') AS "h", '
        'CAST(CAST("b" AS VARCHAR) AS BYTEA) AS "u" FROM "__t0" AS "t"',
    )
    # https://docs.snowflake.com/en/sql-reference/functions/try_to_binary: '3031' (HEX) is '01'.
    assert row(
        "SELECT TO_VARCHAR(TRY_TO_BINARY('3031', 'HEX'), 'UTF-8'), TRY_TO_BINARY('zz', 'HEX'), "
        "TO_VARCHAR(TO_BINARY('hello', 'UTF-8'), 'HEX'), "
        "TO_VARCHAR(TO_BINARY('aGVsbG8=', 'BASE64'), 'UTF-8'), "
        "TO_VARCHAR(TO_BINARY('hi', 'UTF-8'), 'BASE64')"
    ) == ["01", None, "68656C6C6F", "hello", "aGk="]


def test_text_casts_detect_snowflake_date_forms() -> None:
    # https://docs.snowflake.com/en/sql-reference/functions/try_cast examples.
    assert row("SELECT TRY_CAST('05-Mar-2016' AS TIMESTAMP), TRY_CAST('05/16' AS TIMESTAMP)") == [
        datetime(2016, 3, 5),
        None,
    ]
    assert row("SELECT TRY_CAST('ABCD' AS CHAR(2)), TRY_CAST('ABCD' AS VARCHAR(10))") == [None, "ABCD"]


def test_plain_iso_literals_keep_datafusion_casts() -> None:
    validate("SELECT '2024-01-02'::DATE AS d", "SELECT CAST('2024-01-02' AS DATE) AS \"d\"")


def test_to_char_with_numeric_format_models() -> None:
    validate(
        "SELECT TO_CHAR(d, '999.99') AS s FROM t",
        'SELECT sf_format_number(CAST("d" AS VARCHAR), \'999.99\') AS "s" FROM "__t0" AS "t"',
    )
    # https://docs.snowflake.com/en/sql-reference/sql-format-models: MI prints a trailing minus.
    assert row("SELECT TO_VARCHAR(-123.45, '999.99MI')") == ["123.45-"]
    assert row("SELECT TO_CHAR(0, '$99.0'), TO_CHAR(-1, '$99.0'), TO_CHAR(12.5, '999.99')") == [
        "  $0.0",
        " -$1.0",
        "  12.50",
    ]

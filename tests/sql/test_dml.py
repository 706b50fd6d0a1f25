"""INSERT sources: each column cast to its target type by position (embucket_py/sql/dml.py)."""

from __future__ import annotations

from embucket_py.sql.dml import insert_def, insert_select, single_row_values
from embucket_py.sql.parse import parse
from embucket_py.sql.translate import translate_query
from embucket_py.types import parse_sql_type
from tests.sql.helpers import CTX, run_on_datafusion, with_stub_kinds


def insert_sql(source_sql: str, *target_types: str) -> str:
    """The DataFusion SQL the engine runs for `INSERT INTO target <source_sql>`."""
    (source,) = parse(source_sql)
    targets = [(f"C{i}", parse_sql_type(t)) for i, t in enumerate(target_types)]
    translation = translate_query(insert_select(source, targets), with_stub_kinds(CTX, None), None)
    run_on_datafusion(translation)
    return translation.sql


def test_insert_select_casts_by_position() -> None:
    assert insert_sql("SELECT a, b FROM t", "NUMBER(10, 2)", "VARCHAR") == (
        'SELECT CAST("__c1" AS DECIMAL(10, 2)) AS "__c1", CAST("__c2" AS VARCHAR) AS "__c2" '
        'FROM (SELECT "a" AS "a", "b" AS "b" FROM "__t0" AS "t") AS "__src"("__c1", "__c2")'
    )


def test_insert_values_casts_strings_to_dates_and_timestamps() -> None:
    # A string into TIMESTAMP_LTZ is a wall clock in the session's time zone (it was read as UTC);
    # one into a DATE is read in Snowflake's AUTO forms ('03/15/2024' too).
    assert insert_sql("VALUES ('2024-01-31', '2024-01-31 10:00:00')", "DATE", "TIMESTAMP_LTZ") == (
        'SELECT CAST(arrow_cast(sf_to_date_timestamp(CAST("__c1" AS VARCHAR)), '
        "'Timestamp(Microsecond, None)') AS DATE) AS \"__c1\", "
        'sf_to_instant(CAST("__c2" AS VARCHAR), \'America/Los_Angeles\') AS "__c2" '
        'FROM (VALUES (\'2024-01-31\', \'2024-01-31 10:00:00\')) AS "__src"("__c1", "__c2")'
    )


def test_insert_def_reads_target_columns_and_overwrite() -> None:
    (tree,) = parse("INSERT OVERWRITE INTO s.t (a, \"Mixed\") VALUES (1, 'x')")
    d = insert_def(tree, CTX)
    assert (d.parts, d.columns, d.overwrite) == (["DB", "S", "T"], ["A", "Mixed"], True)
    assert [e.sql() for e in single_row_values(d.query) or []] == ["1", "'x'"]


def test_insert_select_with_repeated_expressions() -> None:
    # DataFusion refuses two projections with one name; Snowflake accepts them.
    assert '"d" + 1 AS "d + 1", "d" + 1 AS "d + 1\u2063"' in insert_sql(
        "SELECT d + 1, d + 1 FROM t", "NUMBER", "NUMBER"
    )


def test_insert_select_with_a_null_column() -> None:
    # DataFusion cannot rename a bare NULL through a derived-table column list unless aliased.
    assert 'NULL AS "null"' in insert_sql("SELECT a, NULL FROM t", "NUMBER", "VARCHAR")

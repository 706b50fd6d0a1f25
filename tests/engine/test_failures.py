"""DataFusion's own errors (raised by a real SessionContext) in Snowflake's terms."""

from __future__ import annotations

import pytest
from datafusion import SessionContext

from embucket_py.engine.failures import from_datafusion


def _error_of(sql: str) -> Exception:
    with pytest.raises(Exception) as info:
        SessionContext().sql(sql).collect()
    return info.value


def test_sql_datafusion_cannot_read_is_a_syntax_error() -> None:
    error = from_datafusion(_error_of("SELECT 1 FROM t LIMIT 50 PERCENT"))
    assert (error.code, error.sqlstate) == (1003, "42000")
    assert "\nsyntax error: Expected: end of statement, found: PERCENT" in error.message
    assert "Line:" not in error.message  # positions in the engine's SQL would mislead


def test_division_by_zero_and_planning_errors() -> None:
    assert from_datafusion(_error_of("SELECT 1 / 0")).code == 100051
    assert from_datafusion(_error_of("SELECT nope FROM (SELECT 1 AS a)")).code == 904


def test_a_scalar_subquery_of_several_rows_is_snowflakes_runtime_error() -> None:
    error = from_datafusion(_error_of("SELECT (SELECT column1 FROM (VALUES (1), (2)))"))
    assert (error.code, error.sqlstate) == (90150, "22000")
    assert error.message == "Single-row subquery returns more than one row."


def test_a_column_neither_grouped_nor_aggregated_is_named_as_snowflake_does() -> None:
    ctx = SessionContext()
    ctx.sql("CREATE TABLE t1 AS VALUES (1, 2)").collect()
    with pytest.raises(Exception) as info:
        ctx.sql("SELECT t1.column1, t1.column2 FROM t1 GROUP BY t1.column1").collect()
    error = from_datafusion(info.value)
    assert (error.code, error.sqlstate) == (1104, "42601")
    expected = "'T1.COLUMN2' in select clause is neither an aggregate nor in the group by clause."
    assert error.message.endswith(expected)

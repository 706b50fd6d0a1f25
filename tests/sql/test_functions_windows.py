"""Golden translation tests for window functions.
https://docs.snowflake.com/en/sql-reference/functions-window
"""

from __future__ import annotations

from embucket_py.engine.context import new_context
from tests.sql.helpers import CTX, translate, validate


def test_conditional_change_event_is_a_window_udf_over_text() -> None:
    validate(
        "SELECT CONDITIONAL_CHANGE_EVENT(a) OVER (PARTITION BY c ORDER BY d) AS e FROM t",
        'SELECT sf_conditional_change_event(CAST("a" AS VARCHAR)) OVER (PARTITION BY "c" ORDER BY "d") '
        'AS "e" FROM "__t0" AS "t"',
    )


def test_conditional_change_event_counts_changes_and_skips_nulls() -> None:
    sql = (
        "SELECT o, CONDITIONAL_CHANGE_EVENT(v) OVER (ORDER BY o) AS e FROM "
        "(SELECT * FROM VALUES (1, 10), (2, 10), (3, NULL), (4, 11), (5, 10) AS t(o, v)) ORDER BY o"
    )
    got = new_context().sql(translate(sql, CTX).sql).to_pylist()
    assert [r["e"] for r in got] == [0, 0, 0, 1, 2]


def test_conditional_true_event_is_a_running_sum() -> None:
    validate(
        "SELECT CONDITIONAL_TRUE_EVENT(a > 1) OVER (ORDER BY d) AS e FROM t",
        'SELECT sum(CASE WHEN "a" > 1 THEN 1 ELSE 0 END) OVER (ORDER BY "d" '
        'ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS "e" FROM "__t0" AS "t"',
    )

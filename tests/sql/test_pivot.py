"""PIVOT and UNPIVOT as plain SQL (embucket_py/sql/transforms/pivot.py)."""

from __future__ import annotations

import pytest
from sqlglot import exp

from embucket_py.engine.pivot_values import resolve_pivot_values
from embucket_py.errors import Unsupported
from embucket_py.sql.names import SourceText
from embucket_py.sql.parse import parse
from embucket_py.sql.translate import QueryTranslation, translate_query
from tests.sql.helpers import CTX, run_on_datafusion


def translated(sql: str) -> QueryTranslation:
    (tree,) = parse(sql)
    translation = translate_query(tree, CTX, SourceText(sql), lambda parts: ["A", "B", "C"])
    run_on_datafusion(translation)
    return translation


def test_pivot_groups_by_the_other_columns() -> None:
    assert translated(
        "SELECT * FROM t PIVOT(SUM(a) FOR b IN ('x', 'y') DEFAULT ON NULL (0)) ORDER BY c"
    ).sql == (
        'SELECT * FROM (SELECT "c" AS "c", coalesce(sum(CASE WHEN "b" = \'x\' THEN "a" END), 0) AS "\'x\'", '
        'coalesce(sum(CASE WHEN "b" = \'y\' THEN "a" END), 0) AS "\'y\'" FROM "__t0" AS "t" GROUP BY "c") '
        'AS "t" ORDER BY "c"'
    )


def test_pivot_column_aliases_rename_the_result() -> None:
    sql = translated("SELECT * FROM t PIVOT(MAX(a) FOR b IN ('x' AS one, 'y')) AS p (k, first, second)").sql
    assert '"c" AS "k", "one" AS "first", "\'y\'" AS "second"' in sql


def test_unpivot_zips_two_unnests_and_drops_nulls() -> None:
    assert translated("SELECT * FROM t UNPIVOT (v FOR k IN (a, c))").sql == (
        'SELECT * FROM (SELECT "b" AS "b", "k" AS "k", "v" AS "v" FROM (SELECT "b" AS "b", '
        'unnest(make_array(\'A\', \'C\')) AS "k", unnest(make_array("a", "c")) AS "v" '
        'FROM "__t0" AS "t") AS "__unpivoted" WHERE NOT "v" IS NULL) AS "t"'
    )
    assert "IS NULL" not in translated("SELECT * FROM t UNPIVOT INCLUDE NULLS (v FOR k IN (a, c))").sql


def test_pivot_any_lists_the_values_a_query_returns() -> None:
    (tree,) = parse("SELECT * FROM t PIVOT(SUM(a) FOR b IN (ANY ORDER BY b))")
    asked: list[str] = []

    def run(query: exp.Expression) -> object:
        import pyarrow as pa

        asked.append(query.sql(dialect="snowflake"))
        return pa.table({"b": ["x", None, "y"]})

    resolved = resolve_pivot_values(tree, run)  # type: ignore[arg-type]
    assert asked == ["SELECT DISTINCT b FROM t ORDER BY b"]
    assert "IN ('x', 'y')" in resolved.sql(dialect="snowflake")


def test_pivot_over_unknown_columns_is_unsupported() -> None:
    (tree,) = parse("SELECT * FROM t PIVOT(SUM(a) FOR b IN ('x'))")
    with pytest.raises(Unsupported, match="PIVOT"):
        translate_query(tree, CTX, None)

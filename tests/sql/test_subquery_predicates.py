"""EXISTS and IN over subqueries outside WHERE become counting subqueries
(sql/transforms/subquery_predicates.py)."""

from __future__ import annotations

from embucket_py.engine.context import new_context
from tests.sql.helpers import CTX, result_names, translate, validate


def test_exists_in_a_select_list_counts_the_subquery_rows() -> None:
    validate(
        "SELECT EXISTS(SELECT 1 FROM t WHERE t.a = u.c) AS e FROM u",
        'SELECT (SELECT count(*) FROM "__t1" AS "t" WHERE "t"."a" = "u"."c") > 0 AS "e" FROM "__t0" AS "u"',
    )


def test_predicates_that_filter_stay_joins() -> None:
    """In WHERE DataFusion plans them as semi and anti joins: left as written."""
    validate(
        "SELECT c FROM u WHERE EXISTS(SELECT 1 FROM t WHERE t.a = u.c) AND c NOT IN (SELECT a FROM t)",
        'SELECT "c" AS "c" FROM "__t0" AS "u" WHERE EXISTS(SELECT 1 AS "1" FROM "__t1" AS "t" '
        'WHERE "t"."a" = "u"."c") AND "c" <> ALL (SELECT "a" AS "a" FROM "__t2" AS "t")',
    )


def test_in_and_not_in_keep_three_valued_logic() -> None:
    """1 IN (2, NULL) and NULL IN (2, 3) are NULL, NULL IN (empty) is FALSE; NOT IN negates."""
    sql = (
        "WITH t AS (SELECT * FROM VALUES (1), (2), (NULL) AS v(a)), "
        "n AS (SELECT * FROM VALUES (2), (NULL) AS v(b)), u AS (SELECT * FROM VALUES (2), (3) AS v(b)) "
        "SELECT a, a IN (SELECT b FROM n) AS i, a NOT IN (SELECT b FROM n) AS ni, "
        "a IN (SELECT b FROM u) AS j, a IN (SELECT b FROM u WHERE b > 5) AS k, "
        "EXISTS(SELECT 1 FROM u WHERE u.b = t.a) AS e, "
        "EXISTS(SELECT MAX(b) FROM u WHERE b > 5) AS m, EXISTS(SELECT DISTINCT b FROM u WHERE b > 5) AS d "
        "FROM t ORDER BY a NULLS LAST"
    )
    rows = new_context().sql(translate(sql, CTX).sql).to_pylist()
    assert [tuple(r.values()) for r in rows] == [
        (1, None, None, False, False, False, True, False),
        (2, True, False, True, False, True, True, False),
        (None, None, None, None, False, False, True, False),
    ]


def test_a_projection_opening_with_a_subquery_is_named_after_all_of_it() -> None:
    assert result_names(
        "SELECT (SELECT MAX(a) FROM t), NOT EXISTS (SELECT 1 FROM t), NOT a IN (SELECT a FROM t), "
        "(SELECT COUNT(*) FROM t) + 1, NOT (a > 1) FROM t"
    ) == [
        "(SELECT MAX(A) FROM T)",
        "NOT EXISTS (SELECT 1 FROM T)",
        "NOT A IN (SELECT A FROM T)",
        "(SELECT COUNT(*) FROM T) + 1",
        "NOT (A > 1)",
    ]

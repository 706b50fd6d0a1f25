"""Whole queries: joins, aggregates, windows, subqueries, set operations, VALUES, QUALIFY, TOP."""

from __future__ import annotations

import pytest

from embucket_py.errors import SqlCompilationError, SyntaxError_
from embucket_py.sql.names import SourceText
from embucket_py.sql.parse import parse
from embucket_py.sql.translate import translate_query
from tests.sql.helpers import CTX, result_names, run_on_datafusion, squash, translate, validate


def test_aggregates_with_having_order_and_limit() -> None:
    validate(
        "SELECT b, COUNT(*) FROM t GROUP BY b HAVING COUNT(*) > 1 ORDER BY 2 DESC LIMIT 5",
        'SELECT "b" AS "b", count(*) AS "count(*)" FROM "__t0" AS "t" GROUP BY "b" HAVING count(*) > 1 '
        "ORDER BY 2 DESC LIMIT 5",
    )
    validate("SELECT DISTINCT b FROM t", 'SELECT DISTINCT "b" AS "b" FROM "__t0" AS "t"')
    validate(
        "SELECT a FROM t ORDER BY a NULLS FIRST LIMIT 10 OFFSET 2",
        'SELECT "a" AS "a" FROM "__t0" AS "t" ORDER BY "a" NULLS FIRST LIMIT 10 OFFSET 2',
    )


def test_fetch_first_is_a_limit() -> None:
    validate(
        "SELECT a FROM t ORDER BY a OFFSET 1 ROWS FETCH NEXT 2 ROWS ONLY",
        'SELECT "a" AS "a" FROM "__t0" AS "t" ORDER BY "a" LIMIT 2 OFFSET 1',
    )
    validate(
        "SELECT a FROM t ORDER BY a FETCH FIRST ROW ONLY",
        'SELECT "a" AS "a" FROM "__t0" AS "t" ORDER BY "a" LIMIT 1',
    )


def test_window_functions() -> None:
    validate(
        "SELECT a, SUM(c) OVER (PARTITION BY b ORDER BY a "
        "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS s FROM t",
        # An integer column is summed as NUMBER(38, 0): DataFusion's 64-bit sum wraps.
        'SELECT "a" AS "a", sum(CAST("c" AS DECIMAL(38, 0))) OVER (PARTITION BY "b" ORDER BY "a" '
        'ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS "s" FROM "__t0" AS "t"',
    )


def test_qualify_becomes_a_filter_over_a_subquery() -> None:
    validate(
        "SELECT a FROM t QUALIFY ROW_NUMBER() OVER (PARTITION BY b ORDER BY a) = 1",
        'SELECT "a" FROM (SELECT "a" AS "a", row_number() OVER (PARTITION BY "b" ORDER BY "a") AS _w '
        'FROM "__t0" AS "t") AS _t WHERE _w = 1',
    )


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT a FROM t QUALIFY a > 0",
        # A window function in a subquery of the predicate is not the SELECT's own.
        "SELECT a FROM t QUALIFY a IN (SELECT ROW_NUMBER() OVER (ORDER BY c) FROM u)",
        "SELECT * FROM (SELECT a FROM t QUALIFY b = 1)",
    ],
)
def test_qualify_without_a_window_function_is_refused(sql: str) -> None:
    with pytest.raises(SqlCompilationError, match="QUALIFY clause requires at least one window function"):
        translate_query(parse(sql)[0], CTX, None)


def test_qualify_may_name_a_window_function_of_the_list() -> None:
    translated = translate_query(
        parse("SELECT a, ROW_NUMBER() OVER (ORDER BY a) AS rn FROM t QUALIFY rn = 1")[0], CTX, None
    )
    assert "row_number() OVER" in translated.sql


def test_set_operations() -> None:
    for op in ("UNION ALL", "EXCEPT", "INTERSECT"):
        validate(
            f"SELECT a FROM t {op} SELECT c FROM u",
            f'SELECT "a" AS "a" FROM "__t0" AS "t" {op} SELECT "c" AS "c" FROM "__t1" AS "u"',
        )


def test_values() -> None:
    validate("VALUES (1, 'x'), (2, 'y')", "SELECT * FROM (VALUES (1, 'x'), (2, 'y'))")
    validate("SELECT column1 FROM VALUES (1), (2)", 'SELECT "column1" AS "column1" FROM (VALUES (1), (2))')


def test_top_becomes_limit() -> None:
    validate("SELECT TOP 3 a FROM t", 'SELECT "a" AS "a" FROM "__t0" AS "t" LIMIT 3')


def test_counts_snowflake_does_not_parse_are_syntax_errors() -> None:
    """Negative LIMIT/OFFSET counts and PERCENT: Snowflake's 001003, placed at the token."""
    for text, message in [
        ("SELECT * FROM t LIMIT 1 OFFSET -1", "syntax error line 1 at position 31 unexpected '-'."),
        ("SELECT *\nFROM t LIMIT -1", "syntax error line 2 at position 13 unexpected '-'."),
        ("SELECT TOP 50 PERCENT * FROM t", "syntax error line 1 at position 14 unexpected 'PERCENT'."),
    ]:
        with pytest.raises(SyntaxError_) as info:
            parse(text)
        assert info.value.message.endswith(message) and info.value.code == 1003
    assert len(parse("SELECT -1 FROM t LIMIT 1 OFFSET 1")) == 1


def test_conditional_functions() -> None:
    validate(
        "SELECT IFF(a > 0, 'p', 'n') AS s FROM t",
        'SELECT CASE WHEN "a" > 0 THEN \'p\' ELSE \'n\' END AS "s" FROM "__t0" AS "t"',
    )
    validate(
        "SELECT NVL(b, 'none') AS x, COALESCE(a, c, 0) AS y FROM t",
        'SELECT coalesce("b", \'none\') AS "x", coalesce("a", "c", 0) AS "y" FROM "__t0" AS "t"',
    )


def test_recursive_cte() -> None:
    validate(
        "WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r",
        'WITH RECURSIVE "r" AS (SELECT 1 AS "n" UNION ALL SELECT "n" + 1 AS "n + 1" FROM "r" WHERE "n" < 3) '
        'SELECT "n" AS "n" FROM "r"',
    )


def test_a_cte_reading_itself_is_recursive_without_the_keyword() -> None:
    validate(
        "WITH r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r",
        'WITH RECURSIVE "r" AS (SELECT 1 AS "n" UNION ALL SELECT "n" + 1 AS "n + 1" FROM "r" WHERE "n" < 3) '
        'SELECT "n" AS "n" FROM "r"',
    )
    sql = translate_query(
        parse("WITH u AS (SELECT a FROM t UNION ALL SELECT a FROM t) SELECT a FROM u")[0], CTX, None
    )
    assert not sql.sql.startswith("WITH RECURSIVE")
    with pytest.raises(SqlCompilationError, match="UNION not yet supported within a Recursive CTE") as info:
        translate_query(parse("WITH b AS (SELECT 1 UNION SELECT * FROM b) SELECT * FROM b")[0], CTX, None)
    assert info.value.code == 1102


def test_star_with_another_column() -> None:
    assert result_names("SELECT *, a FROM t") == ["A", "B", "C", "D", "TS", "MyCol", "Q", "A"]


@pytest.mark.parametrize(
    ("sql", "names"),
    [
        ("SELECT a + 1 AS x FROM t WHERE x > 1", ["X"]),
        ("SELECT 10 AS n1, 20 AS n2, n1 + n2 AS s", ["N1", "N2", "S"]),
    ],
)
def test_select_aliases_are_usable_later_in_the_query(sql: str, names: list[str]) -> None:
    assert result_names(sql) == names


def test_a_golden_datafusion_cannot_plan_fails() -> None:
    # The helper's own guarantee: every golden is planned and run, not only compared as text.
    with pytest.raises(Exception, match="nope"):
        validate("SELECT nope FROM t", 'SELECT "nope" AS "nope" FROM "__t0" AS "t"')


def test_subquery_with_repeated_expressions() -> None:
    assert result_names("SELECT * FROM (SELECT a + 1, a + 1 FROM t)") == ["A + 1", "A + 1"]


def test_recursive_cte_with_a_column_list() -> None:
    sql = "WITH RECURSIVE f (n, m) AS (SELECT 0, 1 UNION ALL SELECT n + 1, m FROM f WHERE n < 3) "
    assert result_names(sql + "SELECT n FROM f") == ["N"]


def test_current_time() -> None:
    assert result_names("SELECT CURRENT_TIME()") == ["CURRENT_TIME()"]


def test_lateral_aliases_expand_in_where_group_by_and_having() -> None:
    validate(
        "SELECT d + 1 AS x FROM t WHERE x > 1",
        'SELECT "d" + 1 AS "x" FROM "__t0" AS "t" WHERE ("d" + 1) > 1',
    )
    validate(
        "SELECT UPPER(b) AS u, COUNT(*) AS n FROM t GROUP BY u HAVING n > 1",
        'SELECT upper("b") AS "u", count(*) AS "n" FROM "__t0" AS "t" GROUP BY upper("b") '
        "HAVING count(*) > 1",
    )


def test_lateral_alias_keeps_the_written_name() -> None:
    assert result_names("SELECT 2 AS n1, 7 AS n2, n1 / n2") == ["N1", "N2", "N1 / N2"]


def test_a_source_column_wins_over_an_alias() -> None:
    # t has a column B: `WHERE b` means the column, not the alias.
    sql = "SELECT a AS b FROM t WHERE b = 'x'"
    (tree,) = parse(sql)
    translation = translate_query(tree, CTX, SourceText(sql), lambda parts: ["A", "B"])
    assert translation.sql == 'SELECT "a" AS "b" FROM "__t0" AS "t" WHERE "b" = \'x\''
    run_on_datafusion(translation)
    # Without the column, the alias is meant.
    translation = translate_query(tree, CTX, SourceText(sql), lambda parts: ["A"])
    assert translation.sql == 'SELECT "a" AS "b" FROM "__t0" AS "t" WHERE "a" = \'x\''


def test_connect_by_becomes_a_recursive_cte() -> None:
    translation = validate(
        "SELECT name, LEVEL FROM (SELECT 1 AS id, NULL AS boss, 'a' AS name) AS e "
        "START WITH boss IS NULL CONNECT BY boss = PRIOR id",
        squash(
            """
            WITH RECURSIVE "__connect_by" AS (
              SELECT "e".*, 1 AS "__cb_level" FROM (SELECT 1 AS "id", NULL AS "boss", 'a' AS "name") AS "e"
              WHERE "boss" IS NULL
              UNION ALL
              SELECT "e".*, ("__prior"."__cb_level" + 1) AS "__cb_level"
              FROM (SELECT 1 AS "id", NULL AS "boss", 'a' AS "name") AS "e"
              JOIN "__connect_by" AS "__prior" ON "e"."boss" = ("__prior"."id")
            ) SELECT "name" AS "name", "e"."__cb_level" AS "level" FROM "__connect_by" AS "e"
            """
        )
        .replace("( ", "(")
        .replace(" )", ")"),
    )
    assert translation.recursive


def test_star_ilike_and_rename_list_the_columns() -> None:
    # https://docs.snowflake.com/en/sql-reference/sql/select: `* ILIKE` keeps the matching
    # columns (DataFusion had none of it: every column came back), `* RENAME` renames some.
    validate(
        "SELECT * ILIKE '%a%' FROM (SELECT 1 AS a, 2 AS b, 3 AS ba) s",
        'SELECT "s"."a" AS "a", "s"."ba" AS "ba" FROM (SELECT 1 AS "a", 2 AS "b", 3 AS "ba") AS "s"',
    )
    validate(
        "SELECT s.* RENAME (b AS c) FROM (SELECT 1 AS a, 2 AS b) s",
        'SELECT "s"."a" AS "a", "s"."b" AS "c" FROM (SELECT 1 AS "a", 2 AS "b") AS "s"',
    )


def test_positional_columns_read_the_from_items_columns() -> None:
    # `$n` is the n-th column of the FROM items (DataFusion read it as a missing bind value).
    validate(
        "SELECT $2, s.$1 FROM (SELECT 1 AS a, 2 AS b) s WHERE $1 = 1",
        'SELECT "s"."b" AS "$2", "s"."a" AS "$1" FROM (SELECT 1 AS "a", 2 AS "b") AS "s" WHERE "s"."a" = 1',
    )
    with pytest.raises(SqlCompilationError, match=r"invalid identifier '\$3'"):
        translate("SELECT $3 FROM (SELECT 1 AS a, 2 AS b)")

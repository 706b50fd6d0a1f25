"""Result column names as Snowflake gives them (embucket_py/sql/names.py, transforms/projections.py)."""

from __future__ import annotations

import pytest

from tests.sql.helpers import result_names, validate


@pytest.mark.parametrize(
    ("sql", "names"),
    [
        ("select a+1 from t", ["A+1"]),
        ("select a + 1 from t", ["A + 1"]),
        ("select count(*) from t", ["COUNT(*)"]),
        ("select count(distinct a) from t", ["COUNT(DISTINCT A)"]),
        ("select 1 as a", ["A"]),
        ('select 1 as "Mixed Case"', ["Mixed Case"]),
        ('select "q" from t', ["q"]),
        ("select t.a from t", ["A"]),
        ("select a, b from t", ["A", "B"]),
        ("select upper(b) from t", ["UPPER(B)"]),
        ("select 1", ["1"]),
        ("select 'hello'", ["'HELLO'"]),
        ("select (a + 1) * 2 from t", ["(A + 1) * 2"]),
        # Unary minus and NOT keep no position in sqlglot's tree; the name still opens with them.
        ("select -a, -(a + 1), (-a), a * -1 from t", ["-A", "-(A + 1)", "(-A)", "A * -1"]),
        ("select -1, - 2.5, not (a > 1) from t", ["-1", "- 2.5", "NOT (A > 1)"]),
        ("select -sum(a), -count(*) from t", ["-SUM(A)", "-COUNT(*)"]),
        # Keywords, and calls whose first argument keeps no position, open the name too.
        ("select case when a > 1 then 'x' else 'y' end from t", ["CASE WHEN A > 1 THEN 'X' ELSE 'Y' END"]),
        ("select a, case a when 1 then 'x' end from t", ["A", "CASE A WHEN 1 THEN 'X' END"]),
        (
            "select date_part(dow, ts), extract(year from ts) from t",
            ["DATE_PART(DOW, TS)", "EXTRACT(YEAR FROM TS)"],
        ),
        ("select listagg(distinct b, '|') from t", ["LISTAGG(DISTINCT B, '|')"]),
        (
            "select interval '1 day' + ts, date '2024-01-01' from t",
            ["INTERVAL '1 DAY' + TS", "DATE '2024-01-01'"],
        ),
        ("select a is not distinct from 1 from t", ["A IS NOT DISTINCT FROM 1"]),
        ("select top 2 -a, [1,2] || [3] from t", ["-A", "[1,2] || [3]"]),
        ("select * from (select a + 1, upper(b) from t)", ["A + 1", "UPPER(B)"]),
        (
            "select sum(c) over (partition by b order by a) from t",
            ["SUM(C) OVER (PARTITION BY B ORDER BY A)"],
        ),
        # Duplicate names stay duplicates for the client.
        ('select a, "A" from t', ["A", "A"]),
        ("select 1 as a, 2 as a", ["A", "A"]),
        # A set operation is named by its first branch.
        ("select a from t union all select c from u", ["A"]),
        ("values (1, 'x')", ["COLUMN1", "COLUMN2"]),
        ("select column1 from values (1), (2)", ["COLUMN1"]),
    ],
)
def test_result_names(sql: str, names: list[str]) -> None:
    assert result_names(sql) == names


def test_star_columns_are_named_by_the_table() -> None:
    # Stored lower-case names show in upper case; a quoted lower-case name ("q") cannot be told
    # from its unquoted twin (the collision documented in embucket_py/naming.py).
    assert result_names("select * from t") == ["A", "B", "C", "D", "TS", "MyCol", "Q"]
    assert result_names("select t.*, a as x from t") == ["A", "B", "C", "D", "TS", "MyCol", "Q", "X"]


def test_projections_get_engine_aliases() -> None:
    validate("select d+1 from t", 'SELECT "d" + 1 AS "d+1" FROM "__t0" AS "t"')
    validate("select count(*) c from t", 'SELECT count(*) AS "c" FROM "__t0" AS "t"')
    # Two projections with one name get distinct engine names.
    validate("select 1 as a, 2 as a", 'SELECT 1 AS "a", 2 AS "a_"')


def test_calls_without_a_name_node_keep_their_name() -> None:
    # sqlglot keeps CAST and OBJECT_CONSTRUCT_KEEP_NULL without a node for the function's name.
    assert result_names("select cast(a as number(10, 2)) from t") == ["CAST(A AS NUMBER(10, 2))"]
    assert result_names("select object_construct_keep_null(*), (a) from (values (1)) as t(a)") == [
        "OBJECT_CONSTRUCT_KEEP_NULL(*)",
        "(A)",
    ]
    assert result_names("select distinct (b) from t") == ["(B)"]


def test_a_second_double_colon_cast_is_named_after_its_own_text() -> None:
    assert result_names("select b::date, a::number from t") == ["B::DATE", "A::NUMBER"]

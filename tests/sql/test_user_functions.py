"""A call of a user-defined SQL function and the tree that replaces it (no catalog: the function
is given as the catalog would return it)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from sqlglot import exp

from embucket_py.errors import SqlCompilationError
from embucket_py.sql import user_functions as inline
from embucket_py.sql.parse import parse


@dataclass(frozen=True)
class Fn:
    name: str
    arguments: list[tuple[str, str, str | None]]
    returns: str
    body: str
    database: str = "D"
    schema: str = "S"

    @property
    def returns_table(self) -> bool:
        return self.returns.upper().startswith("TABLE")


def _call(sql: str) -> exp.Anonymous:
    return next(parse(sql)[0].find_all(exp.Anonymous))


@pytest.mark.parametrize(
    ("sql", "target"),
    [
        ("SELECT f(1)", ("DB", "SC", "F")),
        ("SELECT x.f(1)", ("DB", "X", "F")),
        ('SELECT "d2".x.f(1)', ("d2", "X", "F")),
        ("SELECT a.b.c.f(1)", None),
    ],
)
def test_a_call_names_a_function_in_the_current_schema_unless_qualified(
    sql: str, target: tuple[str, str, str] | None
) -> None:
    assert inline.call_target(_call(sql), "DB", "SC")[1] == target


def test_without_a_current_schema_an_unqualified_call_names_nothing() -> None:
    assert inline.call_target(_call("SELECT f(1)"), "DB", None)[1] is None


def test_a_scalar_call_becomes_its_body_cast_to_the_declared_type() -> None:
    fn = Fn("ADD", [("A", "NUMBER", None), ("B", "NUMBER", "10")], "NUMBER(10, 0)", "a + b")
    call = _call("SELECT add(x)")
    replacement = inline.scalar(fn, inline.arguments(fn, call), call)
    assert replacement.sql(dialect="snowflake") == (
        "CAST(((CAST(x AS DECIMAL(38, 0))) + (CAST(10 AS DECIMAL(38, 0)))) AS DECIMAL(10, 0))"
    )
    assert replacement.meta["start"] == call.meta["start"]  # the result column is named after the call


def test_named_arguments_and_a_missing_one() -> None:
    fn = Fn("F", [("A", "VARCHAR", None), ("B", "INT", None)], "VARCHAR", "a || b")
    values = inline.arguments(fn, _call("SELECT f(b => 2, a => 'x')"))
    assert {k: v.sql(dialect="snowflake") for k, v in values.items()} == {
        "A": "CAST('x' AS VARCHAR)",
        "B": "CAST(2 AS INT)",
    }
    with pytest.raises(SqlCompilationError, match="Missing argument B"):
        inline.arguments(fn, _call("SELECT f('x')"))


def test_a_query_body_reads_tables_of_the_functions_schema() -> None:
    fn = Fn("TOTAL", [], "NUMBER", "WITH c AS (SELECT 1 AS v) SELECT SUM(v) FROM t, c, other.u")
    replacement = inline.scalar(fn, {}, _call("SELECT total()"))
    assert replacement.sql(dialect="snowflake") == (
        "CAST((WITH c AS (SELECT 1 AS v) SELECT SUM(v) FROM D.S.t, c, D.other.u) AS DECIMAL(38, 0))"
    )


def test_a_tabular_call_becomes_a_subquery_with_the_declared_columns() -> None:
    fn = Fn("ROWS_OF", [("N", "INT", None)], "TABLE (id INT, Label VARCHAR)", "SELECT n, 'x'")
    call = _call("SELECT * FROM TABLE(rows_of(2)) AS r")
    subquery = inline.table(fn, inline.arguments(fn, call), exp.TableAlias(this=exp.to_identifier("r")))
    assert (
        subquery.sql(dialect="snowflake")
        == (
            "SELECT * FROM (SELECT CAST(__udtf.c0 AS INT) AS ID, CAST(__udtf.c1 AS VARCHAR) AS LABEL "
            "FROM (SELECT (CAST(2 AS INT)), 'x') AS __udtf(c0, c1)) AS r"
        )[len("SELECT * FROM ") :]
    )

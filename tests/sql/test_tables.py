"""Table references: qualified with the session's database and schema, registered as `__t<n>`."""

from __future__ import annotations

import pytest

from embucket_py.errors import SqlCompilationError
from embucket_py.sql.context import SqlContext
from embucket_py.sql.transforms.tables import TableUse
from tests.sql.helpers import translate, validate


def test_one_part_names_use_the_current_database_and_schema() -> None:
    translation = validate("SELECT a FROM t", 'SELECT "a" AS "a" FROM "__t0" AS "t"')
    assert translation.tables == [TableUse("DB", "PUBLIC", "T", "__t0")]


def test_two_and_three_part_names_resolve_to_their_table() -> None:
    assert translate("SELECT a FROM s.t").tables == [TableUse("DB", "S", "T", "__t0")]
    translation = validate("SELECT x.a FROM db2.s.t AS x", 'SELECT "x"."a" AS "a" FROM "__t0" AS "x"')
    assert translation.tables == [TableUse("DB2", "S", "T", "__t0")]
    translation = validate('SELECT a FROM "Db"."Sch"."Tab"', 'SELECT "a" AS "a" FROM "__t0" AS "Tab"')
    assert translation.tables == [TableUse("Db", "Sch", "Tab", "__t0")]


def test_every_reference_is_registered_on_its_own() -> None:
    translation = validate(
        "SELECT t1.a, t2.b FROM t AS t1 LEFT JOIN u AS t2 ON t1.a = t2.c",
        'SELECT "t1"."a" AS "a", "t2"."b" AS "b" FROM "__t0" AS "t1" LEFT JOIN "__t1" AS "t2" '
        'ON "t1"."a" = "t2"."c"',
    )
    assert translation.tables == [
        TableUse("DB", "PUBLIC", "T", "__t0"),
        TableUse("DB", "PUBLIC", "U", "__t1"),
    ]
    # A self-join reads the table twice, under two names.
    assert [u.registered_as for u in translate("SELECT 1 FROM t JOIN t AS t2 ON t.a = t2.a").tables] == [
        "__t0",
        "__t1",
    ]


def test_cte_names_are_not_tables() -> None:
    translation = validate(
        "WITH c AS (SELECT 1 AS a) SELECT a FROM c",
        'WITH "c" AS (SELECT 1 AS "a") SELECT "a" AS "a" FROM "c"',
    )
    assert translation.tables == []
    translation = validate(
        "WITH c AS (SELECT a FROM t) SELECT c.a FROM c",
        'WITH "c" AS (SELECT "a" AS "a" FROM "__t0" AS "t") SELECT "c"."a" AS "a" FROM "c"',
    )
    assert translation.tables == [TableUse("DB", "PUBLIC", "T", "__t0")]


def test_a_qualified_name_is_a_table_even_when_a_cte_has_its_name() -> None:
    translation = validate(
        "WITH c AS (SELECT 1 AS a) SELECT a FROM s.c",
        'WITH "c" AS (SELECT 1 AS "a") SELECT "a" AS "a" FROM "__t0" AS "c"',
    )
    assert translation.tables == [TableUse("DB", "S", "C", "__t0")]


def test_subqueries_register_their_tables() -> None:
    validate(
        "SELECT a FROM t WHERE a IN (SELECT c FROM u)",
        'SELECT "a" AS "a" FROM "__t0" AS "t" WHERE "a" IN (SELECT "c" AS "c" FROM "__t1" AS "u")',
    )
    validate(
        "SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.c = t.a)",
        'SELECT "a" AS "a" FROM "__t0" AS "t" '
        'WHERE EXISTS(SELECT 1 AS "1" FROM "__t1" AS "u" WHERE "u"."c" = "t"."a")',
    )
    validate(
        "SELECT (SELECT MAX(c) FROM u) AS m",
        'SELECT (SELECT max("c") AS "max(c)" FROM "__t0" AS "u") AS "m"',
    )


def test_a_session_without_database_or_schema_needs_qualified_names() -> None:
    no_database = SqlContext(database=None, schema=None)
    with pytest.raises(SqlCompilationError) as error:
        translate("SELECT a FROM t", no_database)
    assert error.value.code == 90105
    with pytest.raises(SqlCompilationError) as error:
        translate("SELECT a FROM t", SqlContext(database="DB", schema=None))
    assert error.value.code == 90106
    assert translate("SELECT a FROM db.s.t", no_database).tables == [TableUse("DB", "S", "T", "__t0")]

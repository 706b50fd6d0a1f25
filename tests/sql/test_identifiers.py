"""Identifiers become quoted stored (Iceberg) names, so DataFusion follows Snowflake's case rules."""

from __future__ import annotations

import pyarrow as pa

from tests.sql.helpers import validate


def test_unquoted_identifiers_become_quoted_lower_case_names() -> None:
    validate("SELECT a FROM t", 'SELECT "a" AS "a" FROM "__t0" AS "t"')
    validate("select A from T", 'SELECT "a" AS "a" FROM "__t0" AS "t"')
    validate("SELECT t.a FROM t", 'SELECT "t"."a" AS "a" FROM "__t0" AS "t"')


def test_quoted_identifiers_keep_their_case() -> None:
    validate(
        'SELECT "MyCol", "q" FROM "MyTable"', 'SELECT "MyCol" AS "MyCol", "q" AS "q" FROM "__t0" AS "MyTable"'
    )
    # A quoted upper-case name is the same name as its unquoted spelling.
    validate('SELECT A, "A" FROM T', 'SELECT "a" AS "a", "a" AS "a_" FROM "__t0" AS "t"')


def test_quoted_identifiers_may_hold_spaces() -> None:
    schemas = {"T": pa.schema([("My Col", pa.int64())])}
    validate('SELECT "My Col" FROM t', 'SELECT "My Col" AS "My Col" FROM "__t0" AS "t"', schemas=schemas)


def test_column_references_drop_database_and_schema() -> None:
    # The engine knows each table by its alias alone.
    validate("SELECT db2.s.t.a FROM db2.s.t", 'SELECT "t"."a" AS "a" FROM "__t0" AS "t"')


def test_aliases_are_identifiers_too() -> None:
    validate("SELECT a AS x FROM t ORDER BY x", 'SELECT "a" AS "x" FROM "__t0" AS "t" ORDER BY "x"')
    validate(
        "SELECT b AS k, COUNT(*) FROM t GROUP BY k",
        'SELECT "b" AS "k", count(*) AS "count(*)" FROM "__t0" AS "t" GROUP BY "b"',
    )
    validate(
        "SELECT * FROM (VALUES (1, 'x'), (2, 'y')) AS v(n, s)",
        'SELECT * FROM (VALUES (1, \'x\'), (2, \'y\')) AS "v"("n", "s")',
    )

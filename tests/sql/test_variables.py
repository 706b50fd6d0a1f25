"""`$name` session variables become typed literals; IDENTIFIER($t) becomes the table it names."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from decimal import Decimal

import pytest

from embucket_py.errors import SqlCompilationError
from embucket_py.sql.transforms.tables import TableUse
from tests.sql.helpers import CTX, translate, validate

VARS = replace(
    CTX,
    variables={
        "X": 10,
        "S": "it's",
        "F": 1.5,
        "D": dt.date(2024, 1, 2),
        "TS": dt.datetime(2024, 1, 2, 3, 4, 5),
        "N": None,
        "B": True,
        "DEC": Decimal("1.50"),
        "T": "db2.s.t",
    },
)


def test_variables_become_literals_of_their_type() -> None:
    validate("SELECT a FROM t WHERE a = $x", 'SELECT "a" AS "a" FROM "__t0" AS "t" WHERE "a" = 10', ctx=VARS)
    validate(
        "SELECT $s, $f, $d, $ts",
        "SELECT 'it''s' AS \"$s\", CAST(1.5 AS DOUBLE) AS \"$f\", CAST('2024-01-02' AS DATE) AS \"$d\", "
        "CAST('2024-01-02 03:04:05' AS TIMESTAMP) AS \"$ts\"",
        ctx=VARS,
    )
    validate("SELECT $n, $b, $dec", 'SELECT NULL AS "$n", TRUE AS "$b", 1.50 AS "$dec"', ctx=VARS)


def test_variable_names_are_case_insensitive() -> None:
    assert translate("SELECT $X, $x", VARS).sql == 'SELECT 10 AS "$x", 10 AS "$x_"'


def test_positional_columns_are_not_variables() -> None:
    assert translate("SELECT $1 FROM t", VARS).sql == 'SELECT $1 AS "$1" FROM "__t0" AS "t"'


def test_identifier_names_a_table_from_a_variable() -> None:
    translation = translate("SELECT * FROM IDENTIFIER($t) AS z", VARS)
    assert translation.sql == 'SELECT * FROM "__t0" AS "z"'
    assert translation.tables == [TableUse("DB2", "S", "T", "__t0")]


def test_an_unset_variable_is_snowflakes_error_2211() -> None:
    with pytest.raises(SqlCompilationError) as info:
        translate("SELECT $missing + 1", VARS)
    assert (info.value.code, info.value.sqlstate) == (2211, "02000")
    assert info.value.message.endswith("Session variable '$MISSING' does not exist")

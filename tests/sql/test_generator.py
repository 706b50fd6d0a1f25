"""TABLE(GENERATOR(ROWCOUNT => n)) -> range(n); SEQ1/2/4/8() -> its `value` column, else the row number."""

from __future__ import annotations

import pytest

from embucket_py.errors import Unsupported
from tests.sql.helpers import result_names, translate, validate


def test_generator_becomes_range() -> None:
    validate(
        "SELECT seq4() FROM TABLE(GENERATOR(ROWCOUNT => 5))",
        'SELECT ("value" % 4294967296) AS "seq4()" FROM range(5)',
    )
    validate(
        "SELECT COUNT(*) FROM TABLE(GENERATOR(ROWCOUNT => 10))",
        'SELECT count(*) AS "count(*)" FROM range(10)',
    )


def test_generator_keeps_its_alias() -> None:
    validate(
        "SELECT seq4() AS n FROM TABLE(GENERATOR(ROWCOUNT => 3)) AS g",
        'SELECT ("value" % 4294967296) AS "n" FROM range(3) AS "g"',
    )


def test_every_seq_function_is_the_row_number() -> None:
    validate(
        "SELECT seq1(), seq2(), seq8() FROM TABLE(GENERATOR(ROWCOUNT => 2))",
        # SEQ1/2/4 wrap around at 2^8, 2^16, 2^32 (https://docs.snowflake.com/en/sql-reference/functions/seq1)
        'SELECT ("value" % 256) AS "seq1()", ("value" % 65536) AS "seq2()", "value" AS "seq8()" '
        "FROM range(2)",
    )
    assert result_names("SELECT seq4() FROM TABLE(GENERATOR(ROWCOUNT => 2))") == ["SEQ4()"]


def test_generator_registers_no_table() -> None:
    assert translate("SELECT seq4() FROM TABLE(GENERATOR(ROWCOUNT => 5))").tables == []


def test_generator_without_rowcount_is_unsupported() -> None:
    with pytest.raises(Unsupported, match="ROWCOUNT"):
        translate("SELECT 1 FROM TABLE(GENERATOR(TIMELIMIT => 1))")


def test_seq_over_any_other_source_numbers_the_rows_of_its_select() -> None:
    validate(
        "SELECT seq8(), x FROM (SELECT 1 AS x)",
        'SELECT (CAST(row_number() OVER () AS DECIMAL(38, 0)) - 1) AS "seq8()", "x" AS "x" '
        'FROM (SELECT 1 AS "x")',
    )
    # The outer SELECT reads a subquery, not the generator: its SEQ numbers its own rows.
    sql = translate(
        "SELECT * FROM (SELECT seq2(0) FROM TABLE(GENERATOR(ROWCOUNT => 3))) ORDER BY seq2(0)"
    ).sql
    assert sql.count("row_number() OVER ()") == 1
    assert '("value" % 65536)' in sql

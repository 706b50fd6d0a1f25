"""Errors come back as Snowflake errors (code, SQLSTATE) and the session keeps working."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from snowflake.connector.errors import ProgrammingError


@pytest.mark.parametrize(
    ("sql", "errno", "sqlstate"),
    [
        ("SELEC 1", 1003, "42000"),
        ("SELECT * FROM no_such_table", 2003, "42S02"),
        ("SELECT no_such_column FROM t", 904, "42000"),
        ("SELECT no_such_column", 904, "42000"),
        ("SELECT no_such_function(1)", 2140, "42601"),
        ("CREATE TABLE t (a INT)", 2002, "42710"),
        ("USE DATABASE no_such_database", 2003, "42S02"),
        ("INSERT INTO t VALUES (1, 2)", 2020, "42601"),
        ("SELECT a FROM t AS x, t AS y", 2028, "42601"),  # ambiguous column name 'A'
        # Correlated scalar subqueries of the shapes Snowflake refuses too ("Unsupported subquery
        # type cannot be evaluated"): not one row by an aggregate, or a non-equality correlation.
        ("SELECT (SELECT u.a FROM t AS u WHERE u.a = t.a) FROM t", 2031, "42601"),
        ("SELECT (SELECT MAX(u.a) FROM t AS u WHERE u.a < t.a) FROM t", 2031, "42601"),
        ("SELECT 1 = ANY (SELECT a FROM t)", 2031, "42601"),
    ],
)
def test_error_codes(cur: Any, sql: str, errno: int, sqlstate: str) -> None:
    cur.execute("CREATE TABLE t (a INT)")
    with pytest.raises(ProgrammingError) as err:
        cur.execute(sql)
    assert (err.value.errno, err.value.sqlstate) == (errno, sqlstate)
    assert "Traceback" not in str(err.value)
    assert err.value.sfqid
    assert cur.execute("SELECT 1").fetchone() == (1,)


@pytest.mark.parametrize(
    ("where", "errno", "message"),
    [
        ("b = 'maybe'", 100037, "Boolean value 'maybe' is not recognized"),
        ("1 / (id - 1) > 0", 100051, "Division by zero"),
    ],
)
def test_errors_of_a_lookups_filter_keep_their_codes(cur: Any, where: str, errno: int, message: str) -> None:
    # One table through a WHERE: the filter runs inside the Parquet scan, which wraps its errors.
    cur.execute("CREATE TABLE flags (id INT, b BOOLEAN)")
    cur.execute("INSERT INTO flags VALUES (1, TRUE)")
    with pytest.raises(ProgrammingError) as err:
        cur.execute(f"SELECT id FROM flags WHERE {where}")
    assert err.value.errno == errno and err.value.raw_msg == message
    assert cur.execute("SELECT id FROM flags WHERE b = 'yes'").fetchall() == [(1,)]


@pytest.mark.parametrize(
    ("sql", "errno", "message"),
    [
        ("SELECT n * b FROM typed", 1044, "Invalid argument types for function '*': (NUMBER(10,2), BOOLEAN)"),
        (
            "SELECT id FROM typed WHERE b > 1",
            1044,
            "Invalid argument types for function '>': (BOOLEAN, NUMBER(38,0))",
        ),
        (
            "SELECT b FROM typed UNION ALL SELECT 'x'",
            2,
            "inconsistent data type for result columns for set operator input branches, "
            "expected VARCHAR(16777216), got BOOLEAN",
        ),
    ],
)
def test_operands_of_types_that_do_not_meet_are_named(cur: Any, sql: str, errno: int, message: str) -> None:
    # DataFusion's first line said only "type_coercion".
    cur.execute("CREATE TABLE typed (id INT, n NUMBER(10, 2), b BOOLEAN)")
    with pytest.raises(ProgrammingError) as err:
        cur.execute(sql)
    assert err.value.errno == errno and err.value.raw_msg == f"SQL compilation error:\n{message}"


def test_unsupported_construct_is_named_without_the_engines_syntax_tree(cur: Any) -> None:
    cur.execute("CREATE TABLE t (a INT)")
    with pytest.raises(ProgrammingError) as err:
        cur.execute(
            "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY a MEASURES COUNT(*) AS c ONE ROW PER MATCH "
            "PATTERN (PERMUTE(x, y)) DEFINE x AS a > 0)"
        )
    assert (err.value.errno, err.value.sqlstate) == (2, "0A000")
    assert err.value.msg.splitlines()[-1] == "MATCH_RECOGNIZE pattern element 'PERMUTE' is not supported yet."
    assert cur.execute("SELECT 1").fetchone() == (1,)


def test_syntax_error_message_names_the_position(cur: Any) -> None:
    with pytest.raises(ProgrammingError) as err:
        cur.execute("SELECT FROM WHERE")
    assert "syntax error line 1" in err.value.msg


@pytest.mark.parametrize(
    ("sql", "errno", "sqlstate", "message"),
    [
        ("SELECT 'd'::NUMBER", 100038, "22018", "Numeric value 'd' is not recognized"),
        ("SELECT 'x1'::FLOAT", 100038, "22018", "Numeric value 'x1' is not recognized"),
        ("SELECT * FROM VALUES (3), ('d')", 100038, "22018", "Numeric value 'd' is not recognized"),
        # A number and a string meet as a number, as on Snowflake.
        ("SELECT 3 UNION ALL SELECT 'd'", 100038, "22018", "Numeric value 'd' is not recognized"),
        ("SELECT '2020-13-01'::DATE", 100040, "22007", "Date '2020-13-01' is not recognized"),
        ("SELECT 'abc'::DATE", 100040, "22007", "Date 'abc' is not recognized"),
        ("SELECT TO_DATE('abc')", 100040, "22007", "Date 'abc' is not recognized"),
        ("SELECT 'maybe'::BOOLEAN", 100037, "22018", "Boolean value 'maybe' is not recognized"),
        ("SELECT TO_BOOLEAN('maybe')", 100037, "22018", "Boolean value 'maybe' is not recognized"),
        ("SELECT '25:00:00'::TIME", 100108, "22007", "Time '25:00:00' is not recognized"),
        ("SELECT '2020-02-30'::TIMESTAMP", 100035, "22007", "Timestamp '2020-02-30' is not recognized"),
        (
            "SELECT TO_TIMESTAMP('2020-01-01 25:00')",
            100035,
            "22007",
            "Timestamp '2020-01-01 25:00' is not recognized",
        ),
        ("SELECT PARSE_JSON('{bad')", 100069, "22P02", "Error parsing JSON: "),
        ("SELECT PARSE_JSON('{')", 100069, "22P02", "Error parsing JSON: unexpected end of input"),
        ("SELECT PARSE_JSON('{\"a\": 1,')", 100069, "22P02", "Error parsing JSON: unexpected end of input"),
        ("SELECT TO_OBJECT(PARSE_JSON('[1]'))", 100000, "22000", "Invalid object value: "),
    ],
)
def test_values_that_do_not_convert(cur: Any, sql: str, errno: int, sqlstate: str, message: str) -> None:
    """Snowflake's message for the value itself, not the engine's (an optimizer rule's name, a
    Python traceback)."""
    with pytest.raises(ProgrammingError) as err:
        cur.execute(sql)
    assert (err.value.errno, err.value.sqlstate) == (errno, sqlstate)
    assert f"({sqlstate}): {message}" in err.value.msg
    for engine_text in ("DataFusion", "PyErr", "Traceback", "Optimizer"):
        assert engine_text not in err.value.msg
    assert cur.execute("SELECT 1").fetchone() == (1,)


def test_try_functions_give_null_for_values_that_do_not_convert(cur: Any) -> None:
    row = cur.execute(
        "SELECT TRY_TO_NUMBER('d'), TRY_TO_NUMBER('2.5'), TRY_TO_TIMESTAMP('2020-02-30 10:00'),"
        " TRY_TO_TIMESTAMP('2020-01-01 25:00'), TRY_TO_TIMESTAMP('2020-02-28 10:00'),"
        " TRY_TO_DATE('2020-02-30'), TRY_CAST('2020-02-30' AS DATE), TRY_TO_TIMESTAMP_TZ('2020-01-01 25:00')"
    ).fetchone()
    assert row[:2] == (None, 3)
    assert row[2:4] == (None, None)
    assert row[4].isoformat() == "2020-02-28T10:00:00"
    assert row[5:] == (None, None, None)
    assert cur.execute("SELECT TRY_PARSE_JSON('{'), TRY_PARSE_JSON('{\"a\": 1,')").fetchone() == (None, None)


def test_values_mixing_numbers_and_strings_take_the_number_type(cur: Any) -> None:
    """A VALUES column holding a number and a string has the number's type (Snowflake's common
    type), even when it goes into a VARCHAR column; a string that is no number fails the whole
    statement and nothing is written."""
    cur.execute("CREATE TABLE t (v VARCHAR)")
    with pytest.raises(ProgrammingError) as err:
        cur.execute("INSERT INTO t (v) VALUES (3), ('d')")
    assert (err.value.errno, err.value.sqlstate) == (100038, "22018")
    assert "(22018): Numeric value 'd' is not recognized" in err.value.msg
    assert cur.execute("SELECT COUNT(*) FROM t").fetchone() == (0,)
    cur.execute("INSERT INTO t (v) VALUES (3), ('04')")
    cur.execute("INSERT INTO t (v) VALUES ('three'), ('four')")
    assert cur.execute("SELECT v FROM t ORDER BY v").fetchall() == [("3",), ("4",), ("four",), ("three",)]


@pytest.mark.parametrize(
    ("sql", "errno", "sqlstate", "message"),
    [
        ("INSERT INTO lim VALUES (2, 'abcdef', 1)", 100074, "22001", "String 'abcdef' is too long"),
        ("INSERT INTO lim SELECT 2, 'a', 1 UNION ALL SELECT 3, 'toolong', 1", 100074, "22001", "'toolong'"),
        ("UPDATE lim SET name = name || 'x'", 100074, "22001", "String 'abcdex' is too long"),
        (
            "MERGE INTO lim USING (SELECT 9 id) s ON lim.id = s.id "
            "WHEN NOT MATCHED THEN INSERT VALUES (9, 'sixsix', 1)",
            100074,
            "22001",
            "'sixsix'",
        ),
        ("INSERT INTO lim VALUES (2, 'ab', 1234)", 100039, "22003", "out of range"),
        # A cast never truncates either (TRY_CAST gives NULL).
        (
            "INSERT INTO lim SELECT 2, name::VARCHAR(3), n FROM lim",
            100074,
            "22001",
            "String 'abcde' is too long",
        ),
    ],
)
def test_values_beyond_their_columns_type_are_refused(
    cur: Any, sql: str, errno: int, sqlstate: str, message: str
) -> None:
    """VARCHAR(n) and NUMBER(p, s) bound what a column holds: nothing is truncated or written."""
    cur.execute("CREATE TABLE lim (id INT, name VARCHAR(5), n NUMBER(3, 1))")
    cur.execute("INSERT INTO lim VALUES (1, 'abcde', 12.3)")
    with pytest.raises(ProgrammingError) as err:
        cur.execute(sql)
    assert (err.value.errno, err.value.sqlstate) == (errno, sqlstate)
    assert message in err.value.msg
    assert cur.execute("SELECT * FROM lim").fetchall() == [(1, "abcde", Decimal("12.3"))]


BIG = "12345678901234567890123456789012345678"


@pytest.mark.parametrize(
    ("sql", "value"),
    [
        ("INSERT INTO ints VALUES (2, 5, 100)", "100"),
        ("INSERT INTO ints VALUES (2, 5, -100)", "-100"),
        (f"INSERT INTO ints SELECT 2, {BIG}, 1", BIG),
        ("UPDATE ints SET small = small * 100", "-9900"),
        (f"UPDATE ints SET big = -{BIG}", f"-{BIG}"),
        (
            f"MERGE INTO ints USING (SELECT 1 id) s ON ints.id = s.id "
            f"WHEN MATCHED THEN UPDATE SET big = {BIG}",
            BIG,
        ),
        (
            f"MERGE INTO ints USING (SELECT 9 id) s ON ints.id = s.id "
            f"WHEN NOT MATCHED THEN INSERT (id, big) VALUES (9, {BIG})",
            BIG,
        ),
    ],
)
def test_integers_beyond_their_columns_are_refused(cur: Any, sql: str, value: str) -> None:
    """NUMBER(p, 0) holds p digits; an INTEGER (NUMBER(38,0)) column is stored as Iceberg's long,
    so, as on Snowflake's own Iceberg tables, a value past a long's range is out of range too
    (it was an internal error from UPDATE and MERGE, and NUMBER(2,0) took 100)."""
    cur.execute("CREATE TABLE ints (id INT, big NUMBER(38, 0), small NUMBER(2, 0))")
    cur.execute("INSERT INTO ints VALUES (1, 9223372036854775807, -99)")
    with pytest.raises(ProgrammingError) as err:
        cur.execute(sql)
    assert (err.value.errno, err.value.sqlstate) == (100039, "22003")
    assert f"Numeric value '{value}' is out of range" in err.value.msg
    assert cur.execute("SELECT * FROM ints").fetchall() == [(1, 9223372036854775807, -99)]


def test_failed_create_table_as_select_leaves_nothing_behind(cur: Any) -> None:
    """A CTAS whose rows its columns cannot hold fails before the table is made: OR REPLACE keeps
    the old table and its rows (it was replaced by an empty one), a new name stays free."""
    cur.execute("CREATE TABLE kept AS SELECT 1 AS id")
    with pytest.raises(ProgrammingError) as err:
        cur.execute(f"CREATE OR REPLACE TABLE kept AS SELECT 2 AS id, {BIG} AS big")
    assert (err.value.errno, err.value.sqlstate) == (100039, "22003")
    assert cur.execute("SELECT * FROM kept").fetchall() == [(1,)]
    with pytest.raises(ProgrammingError) as err:
        cur.execute(f"CREATE TABLE fresh (big NUMBER(38, 0)) AS SELECT {BIG}")
    assert err.value.errno == 100039
    with pytest.raises(ProgrammingError) as err:
        cur.execute("SELECT * FROM fresh")
    assert err.value.errno == 2003

"""String, regex, hash and conditional functions through the real connector; expected values are
the examples of Snowflake's function documentation."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest
import snowflake.connector.errors


def one(cur: Any, sql: str) -> Any:
    row = cur.execute(sql).fetchone()
    return row[0] if len(row) == 1 else row


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT STRTOK('user@snowflake.com', '@.', 2)", "snowflake"),
        ("SELECT STRTOK('user@snowflake.com.', '@.', 4)", None),
        ("SELECT SPLIT_PART('11.22.33', '.', 0)", "11"),
        ("SELECT SPLIT_PART('11.22.33', '.', -1)", "33"),
        ("SELECT SPLIT_PART('11.22.33', '.', 4)", ""),
        ("SELECT SUBSTR('mystring', -3, 3)", "ing"),
        ("SELECT SUBSTR('mystring', 0, 7)", "mystrin"),
        ("SELECT SUBSTR('mystring', 3, NULL)", None),
        ("SELECT INSERT('abc', 1, 2, 'Z')", "Zc"),
        ("SELECT INITCAP('this is the new Frame+Work', '')", "This is the new frame+work"),
        ("SELECT INITCAP('iqamqinterestedqinqthisqtopic', 'q')", "IqAmqInterestedqInqThisqTopic"),
        ("SELECT RTRIMMED_LENGTH('  ABCD  ')", 6),
        ("SELECT SOUNDEX('Robert')", "R163"),
        ("SELECT JAROWINKLER_SIMILARITY('Dwayne', 'Duane')", 84),
        ("SELECT EDITDISTANCE('', 'abc')", 3),
        ("SELECT EDITDISTANCE('abcdef', 'ab', 2)", 2),
        ("SELECT BASE64_ENCODE('Snowflake')", "U25vd2ZsYWtl"),
        ("SELECT BASE64_DECODE_STRING('U25vd2ZsYWtl')", "Snowflake"),
        ("SELECT TRY_BASE64_DECODE_STRING('U25vd2ZsYWtl!')", None),
        ("SELECT HEX_ENCODE('Snowflake')", "536E6F77666C616B65"),
        ("SELECT HEX_DECODE_STRING('536E6F77666C616B65')", "Snowflake"),
        ("SELECT TRY_HEX_DECODE_STRING('536E6')", None),
        ("SELECT SHA1('Snowflake')", "fda76b0bcc1e87cf259b1d1e3271d76f590fb5dd"),
        ("SELECT MD5_NUMBER_UPPER64('Snowflake')", Decimal("17145559544104499780")),
        ("SELECT MD5_NUMBER_LOWER64('Snowflake')", Decimal("9203306159527282910")),
    ],
)
def test_string_functions(cur: Any, sql: str, expected: Any) -> None:
    assert one(cur, sql) == expected


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        (
            "SELECT REGEXP_SUBSTR('It was the best of times, it was the worst of times.', "
            "'the\\\\W+\\\\w+', 1, 2)",
            "the worst",
        ),
        ("SELECT REGEXP_SUBSTR('A MAN A PLAN A CANAL', 'A\\\\W+(\\\\w+)', 1, 2, 'e', 1)", "PLAN"),
        ("SELECT REGEXP_SUBSTR('Hellooo World', '\\\\b\\\\S*o\\\\S*\\\\b', 3)", "llooo"),
        (
            "SELECT REGEXP_REPLACE('firstname middlename lastname', '(.*) (.*) (.*)', '\\\\3, \\\\1 \\\\2')",
            "lastname, firstname middlename",
        ),
        ("SELECT REGEXP_REPLACE('abcabc', 'b', 'X', 1, 2)", "abcaXc"),
        ("SELECT REGEXP_REPLACE('abc', 'b', '$')", "a$c"),
        ("SELECT REGEXP_COUNT('It was the best of times, it was the worst of times', '\\\\bwas\\\\b', 1)", 2),
        ("SELECT REGEXP_INSTR('nevermore1, nevermore2, nevermore3.', 'nevermore\\\\d', 1, 2)", 13),
        ("SELECT REGEXP_INSTR('nevermore1, nevermore2, nevermore3.', 'nevermore\\\\d', 1, 1, 1)", 11),
        ("SELECT 'San Francisco' RLIKE 'San.*'", True),
        ("SELECT 'San Francisco' RLIKE 'Fran'", False),
        ("SELECT REGEXP_LIKE('SAN FRANCISCO', 'san.*', 'i')", True),
    ],
)
def test_regex_functions(cur: Any, sql: str, expected: Any) -> None:
    assert one(cur, sql) == expected


def test_array_results_are_json(cur: Any) -> None:
    assert json.loads(one(cur, "SELECT SPLIT('127.0.0.1', '.')")) == ["127", "0", "0", "1"]
    assert json.loads(one(cur, "SELECT STRTOK_TO_ARRAY('a.b c', '. ')")) == ["a", "b", "c"]
    matches = one(cur, "SELECT REGEXP_SUBSTR_ALL('a1_a2a3_a4A5a6', 'a[[:digit:]]')")
    assert json.loads(matches) == ["a1", "a2", "a3", "a4", "a6"]
    groups = one(cur, "SELECT REGEXP_SUBSTR_ALL('a1_a2a3_a4A5a6', '(a)([[:digit:]])', 1, 1, 'ie')")
    assert json.loads(groups) == ["a", "a", "a", "a", "A", "a"]
    url = json.loads(one(cur, "SELECT PARSE_URL('http://USER:PASS@EXAMPLE.INT:4345/HELLO.PHP?USER=1')"))
    assert url["host"] == "USER:PASS@EXAMPLE.INT"
    assert url["port"] == "4345"
    assert url["parameters"] == {"USER": "1"}


def test_like_any_all_and_escape(cur: Any) -> None:
    cur.execute("CREATE TABLE names (name VARCHAR)")
    cur.execute(
        "INSERT INTO names VALUES ('John  Dddoe'), ('Joe   Doe'), ('John_do%wn'), ('Joe down'), (NULL)"
    )
    rows = cur.execute("SELECT name FROM names WHERE name LIKE ALL ('%Jo%oe%', 'J%e') ORDER BY name")
    assert [r[0] for r in rows.fetchall()] == ["Joe   Doe", "John  Dddoe"]
    rows = cur.execute("SELECT name FROM names WHERE name LIKE ANY ('%^_%') ESCAPE '^'")
    assert [r[0] for r in rows.fetchall()] == ["John_do%wn"]
    rows = cur.execute("SELECT name FROM names WHERE name ILIKE ANY ('joe%', 'x') ORDER BY name")
    assert [r[0] for r in rows.fetchall()] == ["Joe   Doe", "Joe down"]


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT GREATEST(1, NULL, 3)", None),
        ("SELECT LEAST(4, 2, 3)", 2),
        ("SELECT EQUAL_NULL(NULL, NULL)", True),
        ("SELECT BOOLAND(1, -2)", True),
        ("SELECT BOOLOR(0, NULL)", None),
        ("SELECT BOOLXOR(2, 0)", True),
        ("SELECT BOOLNOT(-3.79)", False),
        ("SELECT REGR_VALX(NULL, 10)", None),
        ("SELECT REGR_VALY(1, 10)", 1),
    ],
)
def test_conditional_functions(cur: Any, sql: str, expected: Any) -> None:
    assert one(cur, sql) == expected


def test_hash_is_a_stable_signed_64_bit_number(cur: Any) -> None:
    first, again, swapped = one(cur, "SELECT HASH(1, 'a'), HASH(1, 'a'), HASH('a', 1)")
    assert first == again
    assert first != swapped
    assert -(2**63) <= int(first) < 2**63
    forward = one(cur, "SELECT HASH_AGG(column1) FROM VALUES (1), (2), (3)")
    backward = one(cur, "SELECT HASH_AGG(column1) FROM VALUES (3), (2), (1)")
    assert forward == backward


def test_hash_of_star_hashes_every_column(cur: Any) -> None:
    """HASH(*) / HASH_AGG(*): a row's, a table's checksum over all its columns (comparing copies of
    a table). https://docs.snowflake.com/en/sql-reference/functions/hash_agg"""
    cur.execute("CREATE TABLE h1 (id INT, v VARCHAR)")
    cur.execute("INSERT INTO h1 VALUES (1, 'a'), (2, NULL)")
    cur.execute("CREATE TABLE h2 AS SELECT * FROM h1 ORDER BY id DESC")
    row = one(cur, "SELECT HASH(*) = HASH(id, v), HASH(h1.*) = HASH(id, v) FROM h1 WHERE id = 1")
    assert row == (True, True)
    both = cur.execute("SELECT (SELECT HASH_AGG(*) FROM h1), (SELECT HASH_AGG(*) FROM h2)").fetchone()
    assert both[0] == both[1] == one(cur, "SELECT HASH_AGG(id, v) FROM h1")
    assert one(cur, "SELECT HASH_AGG(* EXCLUDE v) = HASH_AGG(id) FROM h1") is True
    cur.execute("UPDATE h2 SET v = 'b' WHERE id = 2")
    assert one(cur, "SELECT HASH_AGG(*) FROM h2") != both[0]
    assert json.loads(one(cur, "SELECT ARRAY_CONSTRUCT(*) FROM h1 WHERE id = 1")) == [1, "a"]


@pytest.mark.parametrize(
    ("sql", "errno", "sqlstate"),
    [
        ("SELECT CHR(-1)", 100062, "22021"),
        ("SELECT PARSE_URL('example.int/hello.php?user=12#nofragment', 0)", 100139, "22000"),
    ],
)
def test_errors_have_snowflake_codes(cur: Any, sql: str, errno: int, sqlstate: str) -> None:
    with pytest.raises(snowflake.connector.errors.ProgrammingError) as err:
        cur.execute(sql).fetchall()
    assert (err.value.errno, err.value.sqlstate) == (errno, sqlstate)


def test_substr_of_binary_counts_bytes(cur: Any) -> None:
    cur.execute("CREATE TABLE bins (v BINARY, n INT)")
    cur.execute("INSERT INTO bins SELECT X'01020304FF', -2")
    cur.execute(
        "SELECT SUBSTRING(X'48656C6C6F576F726C64', 1, 5) = X'48656C6C6F', "
        "SUBSTR(TO_BINARY('abcd', 'UTF-8'), 2), SUBSTR(v, 3), SUBSTR(v, n), SUBSTR(v, 0, 1), "
        "SUBSTR(v, -9), SUBSTR(v, 2, n) FROM bins"
    )
    assert [d.type_code for d in cur.description[1:]] == [11] * 6  # BINARY
    assert cur.fetchone() == (True, b"bcd", b"\x03\x04\xff", b"\x04\xff", b"\x01", b"", b"")


def test_lpad_and_rpad_of_binary_count_bytes(cur: Any) -> None:
    """LPAD's documented BINARY example: the padded column comes from a CTE."""
    cur.execute(
        "WITH raw_strings(v) AS (SELECT * FROM VALUES ('Hi'), ('Twelve Dollars')), "
        "padding_example AS (SELECT v, TO_BINARY(HEX_ENCODE(v), 'HEX') AS b FROM raw_strings) "
        "SELECT LPAD(b, 10, TO_BINARY(HEX_ENCODE(' '))), RPAD(b, 10, TO_BINARY(HEX_ENCODE('$'))) "
        "FROM padding_example ORDER BY b"
    )
    assert cur.fetchall() == [(b"        Hi", b"Hi$$$$$$$$"), (b"Twelve Dol", b"Twelve Dol")]


def test_left_and_right_of_a_negative_length_are_empty(cur: Any) -> None:
    cur.execute(
        "SELECT LEFT('hello', -1), RIGHT('hello', -1), LEFT('hello', 2), RIGHT('hello', 2), LEFT('x', NULL)"
    )
    assert cur.fetchone() == ("", "", "he", "lo", None)


def test_replace_of_an_empty_string_changes_nothing_and_octet_length_counts_bytes(cur: Any) -> None:
    cur.execute(
        "SELECT REPLACE('abc', '', 'x'), REPLACE('abc', 'b'), OCTET_LENGTH('héllo'), OCTET_LENGTH(X'ABCD')"
    )
    assert cur.fetchone() == ("abc", "ac", 6, 2)


def test_collate_in_comparisons_and_order_by(cur: Any) -> None:
    """https://docs.snowflake.com/en/sql-reference/collation: 'en-ci' compares case-insensitively
    (was a silent FALSE), 'rtrim' ignores trailing spaces; either side's COLLATE counts."""
    assert one(cur, "SELECT 'abc' COLLATE 'en-ci' = 'ABC', 'abc' = 'ABC' COLLATE 'en-ci', 'abc' = 'ABC'") == (
        True,
        True,
        False,
    )
    assert one(cur, "SELECT COLLATE('abc  ', 'en-ci-rtrim') = 'ABC', 'a ' COLLATE 'rtrim' <> 'a'") == (
        True,
        False,
    )
    cur.execute("SELECT x FROM VALUES ('b'), ('A'), ('a'), ('B') AS v(x) ORDER BY x COLLATE 'en-ci', x")
    assert [r[0] for r in cur.fetchall()] == ["A", "a", "B", "b"]


def test_text_cast_to_binary_reads_hex(cur: Any) -> None:
    # BINARY_INPUT_FORMAT defaults to HEX: '4142'::BINARY is the two bytes AB, in a cast and in a
    # write to a BINARY column alike (they kept the digits' own bytes).
    assert cur.execute("SELECT '48656c6c6f'::BINARY, TRY_CAST('zz' AS BINARY)").fetchone() == (b"Hello", None)
    cur.execute("CREATE TABLE blobs (b BINARY)")
    cur.execute("INSERT INTO blobs VALUES ('4142')")
    cur.execute("INSERT INTO blobs SELECT '4344'")
    assert cur.execute("SELECT b FROM blobs ORDER BY b").fetchall() == [(b"AB",), (b"CD",)]
    with pytest.raises(Exception, match="not a legal hex-encoded value") as raised:
        cur.execute("SELECT 'zz'::BINARY")
    assert raised.value.errno == 100038


def test_string_functions_read_numbers_dates_and_booleans_as_text(cur: Any) -> None:
    """Snowflake converts a non-text argument of a string function to text implicitly, written
    as a cast to VARCHAR writes it (a NUMBER(10,2) with its scale, a TIMESTAMP_NTZ in the output
    format). https://docs.snowflake.com/en/sql-reference/data-type-conversion"""
    cur.execute("CREATE TABLE typed (id INT, n NUMBER(10, 2), d DATE, ts TIMESTAMP_NTZ, b BOOLEAN)")
    cur.execute("INSERT INTO typed SELECT 42, 1.5, '2024-01-01', '2024-01-02 03:04:05', TRUE")
    row = cur.execute(
        "SELECT UPPER(id), SUBSTR(id, 2), REPLACE(d, '-', ''), LEFT(ts, 10), LENGTH(ts), UPPER(b), "
        "CONTAINS(n, '.5'), RTRIM(n, '0'), REGEXP_LIKE(id, '4.'), MD5(id), CONCAT(id, '/', n), "
        "SPLIT_PART(d, '-', 1), CHARINDEX('2', id), EDITDISTANCE(id, 43) FROM typed WHERE id LIKE '4%'"
    ).fetchone()
    assert row == (
        "42",
        "2",
        "20240101",
        "2024-01-02",
        23,
        "TRUE",
        True,
        "1.5",
        True,
        "a1d0c6e83f027327d8461063f4ac58a6",
        "42/1.50",
        "2024",
        2,
        1,
    )

"""Numeric semantics through the real connector: division scale and errors, rounding, DIV0."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
import snowflake.connector.errors


def one(cur: Any, sql: str) -> Any:
    return cur.execute(sql).fetchone()[0]


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        # https://docs.snowflake.com/en/sql-reference/operators-arithmetic
        ("SELECT 1/3", Decimal("0.333333")),
        ("SELECT DIV0(1, 0)", 0),
        ("SELECT DIV0NULL(1, NULL)", 0),
        ("SELECT ROUND(-2.5, 0)", -3),
        ("SELECT ROUND(2.5, 0, 'HALF_TO_EVEN')", 2),
        ("SELECT ROUND(-2.5, 0, 'HALF_TO_EVEN')", -2),
        ("SELECT FLOOR(-975.975, 2)", -975.98),
        ("SELECT CEIL(135.135, -2)", 200),
        ("SELECT SQUARE(3)", 9),
        ("SELECT SIGN(-3)", -1),
    ],
)
def test_documented_examples(cur: Any, sql: str, expected: Any) -> None:
    assert float(one(cur, sql)) == float(expected)


def test_division_scale_is_six_more_digits(cur: Any) -> None:
    cur.execute("SELECT 1/3")
    assert cur.description[0].scale == 6


def test_division_by_zero_is_an_error(cur: Any) -> None:
    cur.execute("CREATE TABLE nums (a FLOAT, b FLOAT)")
    cur.execute("INSERT INTO nums VALUES (1, 0)")
    with pytest.raises(snowflake.connector.errors.ProgrammingError) as info:
        cur.execute("SELECT a / b FROM nums")
    assert info.value.errno == 100051


def test_bitwise_functions(cur: Any) -> None:
    """https://docs.snowflake.com/en/sql-reference/functions/bitxor (BITNOT, GETBIT alike)"""
    row = cur.execute(
        "SELECT BITXOR(12, 10), BITNOT(12), BITNOT(-1), GETBIT(11, 3), GETBIT(11, 2), BITAND(12, 10)"
    )
    assert row.fetchone() == (6, -13, 0, 1, 0, 8)
    cur.execute("CREATE TABLE bits (a INT, b INT)")
    cur.execute("INSERT INTO bits VALUES (5, 3), (NULL, 1)")
    assert cur.execute("SELECT BITXOR(a, b), BITNOT(a) FROM bits ORDER BY a").fetchall() == [
        (6, -6),
        (None, None),
    ]


def test_ratios_of_number_columns_are_exact_numbers(cur: Any) -> None:
    """SUM(x) / COUNT(*) and friends over NUMBER columns answer NUMBERs with Snowflake's scales
    (a quotient's is max(s, min(s + 6, 12)) of its dividend's s), not DOUBLEs; FLOAT stays DOUBLE.
    https://docs.snowflake.com/en/sql-reference/operators-arithmetic"""
    cur.execute("CREATE TABLE ratios (a NUMBER(10, 2), b INT, c NUMBER(12, 4), f FLOAT)")
    cur.execute("INSERT INTO ratios VALUES (1.25, 3, 2.5, 1.5), (2.50, 4, 0.0001, 2.5)")
    cur.execute(
        "SELECT SUM(a) / COUNT(*) AS r1, COUNT(*) / 3 AS r2, AVG(a * b) AS r3, SUM(a + c) / SUM(b) AS r4, "
        "SUM(f) / COUNT(*) AS r5 FROM ratios"
    )
    row = cur.fetchone()
    assert [str(v) for v in row[:4]] == ["1.87500000", "0.666667", "6.87500000", "0.8928714286"]
    assert row[4] == 2.0
    assert [(d.type_code, d.scale) for d in cur.description] == [(0, 8), (0, 6), (0, 8), (0, 10), (1, None)]


def test_ratios_through_nullif_coalesce_iff_and_case_stay_exact(cur: Any) -> None:
    # The share-of-total idiom divided as DOUBLE (NULLIF and COALESCE hid the NUMBERs' scales).
    cur.execute("CREATE TABLE shares (id INT, amt NUMBER(10, 2))")
    cur.execute("INSERT INTO shares VALUES (1, 10), (2, 20), (3, NULL)")
    cur.execute(
        "SELECT IFNULL(amt, 0) / NULLIF(SUM(amt) OVER (), 0), IFF(id = 1, amt, NULL) / 4, "
        "CASE WHEN id < 3 THEN amt ELSE 0 END / 3 FROM shares ORDER BY id"
    )
    assert [tuple(str(v) for v in row) for row in cur.fetchall()] == [
        ("0.33333333", "2.50000000", "3.33333333"),
        ("0.66666667", "None", "6.66666667"),
        ("0E-8", "None", "0E-8"),
    ]
    assert [(d.type_code, d.scale) for d in cur.description] == [(0, 8), (0, 8), (0, 8)]


def test_unqualified_columns_of_a_join_keep_their_number_types(cur: Any) -> None:
    """A column named without its table in a join is typed as its table declares it: the same
    NUMBER scales as when qualified or alone (it was divided as a DOUBLE: 3.3333333333333335)."""
    cur.execute("CREATE TABLE prices (id INT, price NUMBER(10, 2))")
    cur.execute("CREATE TABLE quantities (pid INT, qty INT)")
    cur.execute("INSERT INTO prices VALUES (1, 10.00), (2, 0.00)")
    cur.execute("INSERT INTO quantities VALUES (1, 3), (2, 4)")
    for price in ("price", "prices.price"):
        cur.execute(
            f"SELECT SUM({price}) / COUNT(*) / 1.5, SUM({price}) / 3 FROM prices JOIN quantities ON id = pid"
        )
        assert [str(v) for v in cur.fetchone()] == ["3.333333333333", "3.33333333"], price
        assert [(d.type_code, d.scale) for d in cur.description] == [(0, 12), (0, 8)]


def test_a_number_past_38_digits_is_out_of_range(cur: Any) -> None:
    """A quotient whose scale leaves no room for its digits, and a product past 38 digits, fail
    with Snowflake's 100046 (22003); the session goes on."""
    cur.execute("CREATE TABLE huge (y NUMBER(38, 2))")
    cur.execute("INSERT INTO huge VALUES (99999999999999999999999999999999.99), (1)")
    for sql in (
        "SELECT SUM(y) / COUNT(*) FROM huge",
        "SELECT CAST(y AS NUMBER(38, 0)) * 10000000000 FROM huge",
    ):
        with pytest.raises(snowflake.connector.errors.ProgrammingError) as info:
            cur.execute(sql)
        assert (info.value.errno, info.value.sqlstate) == (100046, "22003")
        assert "Number out of representable range" in info.value.msg
    assert one(cur, "SELECT COUNT(*) FROM huge") == 2


def test_text_operands_of_arithmetic_are_read_as_numbers(cur: Any) -> None:
    cur.execute("CREATE TABLE txt (id INT, n VARCHAR, s VARCHAR)")
    cur.execute("INSERT INTO txt VALUES (1, '2.5', 'a')")
    cur.execute("SELECT '5' + 3, n * 2, 10 - n, SUM(n) FROM txt GROUP BY n")
    assert cur.fetchone() == (8.0, 5.0, 7.5, 2.5)
    with pytest.raises(snowflake.connector.errors.ProgrammingError) as info:
        cur.execute("SELECT id + s FROM txt")
    assert (info.value.errno, info.value.sqlstate) == (100038, "22018")
    assert "Numeric value 'a' is not recognized" in info.value.msg


def test_trunc_of_a_number_stays_an_exact_number(cur: Any) -> None:
    # https://docs.snowflake.com/en/sql-reference/functions/trunc: toward zero, NUMBER in, NUMBER out.
    cur.execute("CREATE TABLE tr (a NUMBER(10, 3), i INT)")
    cur.execute("INSERT INTO tr VALUES (-1.567, 1567)")
    cur.execute("SELECT TRUNC(a, 2), TRUNC(a), TRUNC(i, -2), TRUNCATE(a, 5) FROM tr")
    assert cur.fetchone() == (Decimal("-1.56"), -1, 1500, Decimal("-1.567"))
    assert [d.type_code for d in cur.description] == [0, 0, 0, 0]  # FIXED


def test_floor_ceil_sign_of_numbers_are_exact_numbers(cur: Any) -> None:
    """https://docs.snowflake.com/en/sql-reference/functions/ceil: a NUMBER gives a NUMBER whose
    scale is the digits asked for (0 when none or negative); a FLOAT gives a FLOAT."""
    cur.execute("CREATE TABLE fc (a NUMBER(10, 3), i INT, f FLOAT)")
    cur.execute("INSERT INTO fc VALUES (-1.567, 1567, -1.5), (2.001, -1567, 2.5)")
    cur.execute(
        "SELECT CEIL(a), FLOOR(a), CEIL(a, 1), FLOOR(a, 2), CEIL(i, -2), FLOOR(i, -2), CEIL(i), "
        "SIGN(a), FLOOR(f) FROM fc ORDER BY a"
    )
    assert cur.fetchall() == [
        (-1, -2, Decimal("-1.5"), Decimal("-1.57"), 1600, 1500, 1567, -1, -2.0),
        (3, 2, Decimal("2.1"), Decimal("2.00"), -1500, -1600, -1567, 1, 2.0),
    ]
    assert [(d.type_code, d.scale) for d in cur.description] == [
        (0, 0),
        (0, 0),
        (0, 1),
        (0, 2),
        (0, 0),
        (0, 0),
        (0, 0),
        (0, 0),
        (1, None),
    ]


def test_integer_arithmetic_does_not_wrap(cur: Any) -> None:
    """NUMBER(38, 0) holds 38 digits: 5000000000 * 5000000000 is 25000000000000000000 (DataFusion's
    64-bit product wrapped to 6553255926290448384, and a sum past 64 bits turned negative); where a
    function needs a 64-bit integer, a value past it is Snowflake's out-of-range error, never a
    wrong number."""
    cur.execute("CREATE TABLE big (a INT, b INT, s TEXT)")
    cur.execute("INSERT INTO big VALUES (5000000000, 5000000000, 'x'), (3, 4, 'ab')")
    assert cur.execute("SELECT 5000000000 * 5000000000").fetchone() == (25000000000000000000,)
    assert cur.execute("SELECT a * b, a * b * 2 FROM big ORDER BY a").fetchall() == [
        (12, 24),
        (25000000000000000000, 50000000000000000000),
    ]
    assert cur.execute("SELECT SUM(a * b) FROM big WHERE a * b > 0").fetchone() == (25000000000000000012,)
    cur.execute("INSERT INTO big VALUES (9000000000000000000, 1, 'y'), (9000000000000000000, 1, 'z')")
    assert cur.execute("SELECT SUM(a) FROM big WHERE b = 1").fetchone() == (18000000000000000000,)
    cur.execute("SELECT a + a, a - b - a - a, a + 1 > a FROM big WHERE b = 1 LIMIT 1")
    assert cur.fetchone() == (18000000000000000000, -9000000000000000001, True)
    assert cur.execute("SELECT 9223372036854775807 + 1").fetchone() == (9223372036854775808,)
    assert cur.execute("SELECT REPEAT(s, a * b) FROM big WHERE a = 3").fetchone() == ("ab" * 12,)
    # Grouped by the product (its alias, the expression, a rollup): the same key as selected.
    cur.execute("SELECT a * b AS p, COUNT(*) FROM big GROUP BY p ORDER BY p")
    assert cur.fetchall() == [(12, 1), (9000000000000000000, 2), (25000000000000000000, 1)]
    cur.execute("SELECT a * b, COUNT(*) FROM big GROUP BY ROLLUP(a * b) ORDER BY 1 NULLS LAST")
    assert cur.fetchall() == [(12, 1), (9000000000000000000, 2), (25000000000000000000, 1), (None, 4)]
    with pytest.raises(snowflake.connector.errors.ProgrammingError) as info:
        cur.execute("SELECT REPEAT(s, a * b) FROM big")
    assert (info.value.errno, info.value.sqlstate) == (100046, "22003")


def test_round_of_a_number_is_an_exact_number(cur: Any) -> None:
    """https://docs.snowflake.com/en/sql-reference/functions/round: a NUMBER rounds to a NUMBER of
    the asked scale (was a DOUBLE: 3.33 came back as a float, and past 15 digits inexact); half
    away from zero, or to the even neighbour with 'HALF_TO_EVEN'."""
    cur.execute("CREATE TABLE rn (a NUMBER(10, 2))")
    cur.execute("INSERT INTO rn VALUES (10), (-7.55)")
    cur.execute("SELECT ROUND(a / 3, 2), ROUND(a, 1), ROUND(a), ROUND(a, -1) FROM rn ORDER BY a")
    assert cur.fetchall() == [
        (Decimal("-2.52"), Decimal("-7.6"), -8, -10),
        (Decimal("3.33"), Decimal("10.0"), 10, 10),
    ]
    assert [(d.type_code, d.scale) for d in cur.description] == [(0, 2), (0, 1), (0, 0), (0, 0)]
    cur.execute(
        "SELECT ROUND(12345678901234567.125, 2), ROUND(2.5, 0, 'HALF_TO_EVEN'), "
        "ROUND(3.5, 0, 'HALF_TO_EVEN'), ROUND(-2.25, 1, 'HALF_TO_EVEN'), ROUND(250, -2, 'HALF_TO_EVEN')"
    )
    assert cur.fetchone() == (Decimal("12345678901234567.13"), 2, 4, Decimal("-2.2"), 200)


def test_mode_keeps_its_arguments_type(cur: Any) -> None:
    cur.execute("CREATE TABLE md (a NUMBER(10, 2), i INT)")
    cur.execute("INSERT INTO md VALUES (1.25, 9007199254740993), (1.25, 9007199254740993), (2, 1)")
    assert cur.execute("SELECT MODE(a), MODE(i) FROM md").fetchone() == (
        Decimal("1.25"),
        9007199254740993,  # past 2^53: a FLOAT would lose the last digit
    )
    assert [(d.type_code, d.scale) for d in cur.description] == [(0, 2), (0, 0)]


def test_power_is_a_float(cur: Any) -> None:
    cur.execute("SELECT POWER(2.5, 2), POW(2, 10), SQUARE(1.5)")
    assert cur.fetchone() == (6.25, 1024.0, 2.25)
    assert [d.type_code for d in cur.description] == [1, 1, 1]  # FLOAT


def test_casts_to_small_integer_numbers_round_half_away_from_zero(cur: Any) -> None:
    # NUMBER(p <= 18, 0) runs as a 64-bit integer, whose casts truncated fractions (1.7 -> 1), and
    # the result kept its input's scale (NUMBER(5,1) 2.5 cast came back as 0.2).
    cur.execute("CREATE TABLE fr (f FLOAT, d NUMBER(5,1), s VARCHAR)")
    cur.execute("INSERT INTO fr VALUES (1.5, 2.5, '3.5'), (-1.5, -2.5, '-3.5')")
    rows = cur.execute(
        "SELECT f::NUMBER(10,0), d::NUMBER(10,0), s::NUMBER(10,0) FROM fr ORDER BY f"
    ).fetchall()
    assert rows == [(-2, -3, -4), (2, 3, 4)]
    assert cur.execute("SELECT '1.0'::NUMBER(10,0), 1.7::FLOAT::NUMBER(18,0), '1e3'::INT").fetchone() == (
        1,
        2,
        1000,
    )


def test_a_string_compared_to_a_number_is_read_as_a_number(cur: Any) -> None:
    assert cur.execute("SELECT '1.0' = 1, '1.5' > 1, 1 < ' 2 ', 2.50 = '2.5'").fetchone() == (True,) * 4
    cur.execute("CREATE TABLE keyed (id INT, v VARCHAR)")
    cur.execute("INSERT INTO keyed VALUES (1, 'a'), (2, 'b')")
    assert cur.execute("SELECT v FROM keyed WHERE id = '2.0'").fetchall() == [("b",)]
    # A text column compared with a number reads its values as numbers ('1.5' is no BIGINT).
    cur.execute("CREATE TABLE texts (s VARCHAR, n INT)")
    cur.execute("INSERT INTO texts VALUES ('1', 1), ('1.5', 2), ('02', 3)")
    assert cur.execute("SELECT n FROM texts WHERE s > 1 ORDER BY n").fetchall() == [(2,), (3,)]
    with pytest.raises(Exception, match="Numeric value 'abc' is not recognized"):
        cur.execute("SELECT 'abc' = 1")


def test_a_number_meeting_a_float_as_one_value_is_a_float(cur: Any) -> None:
    # DataFusion made the FLOAT a NUMBER(30,15): 1e30 was out of range (100046), 2.5 came back as
    # Decimal('2.500000000000000'). Snowflake makes the NUMBER a FLOAT.
    cur.execute("CREATE TABLE mix (id INT, n NUMBER(10,2), f FLOAT)")
    cur.execute("INSERT INTO mix VALUES (1, 1.5, 1e30), (2, 2.25, 2.5)")
    cur.execute(
        "SELECT CASE WHEN id = 1 THEN f ELSE n END, IFF(id = 1, n, f), COALESCE(n, f), NVL(f, n), "
        "GREATEST(n, f), LEAST(id, n, f) FROM mix ORDER BY id"
    )
    assert cur.fetchall() == [(1e30, 1.5, 1.5, 1e30, 1e30, 1.0), (2.25, 2.5, 2.25, 2.5, 2.5, 2.0)]
    assert {d.type_code for d in cur.description} == {1}  # FLOAT
    cur.execute("SELECT n AS x FROM mix UNION ALL SELECT f FROM mix ORDER BY 1")
    assert cur.fetchall() == [(1.5,), (2.25,), (2.5,), (1e30,)]
    assert [(d.name, d.type_code) for d in cur.description] == [("X", 1)]
    # Numbers alone stay exact.
    assert cur.execute("SELECT IFF(id = 1, n, 2) FROM mix ORDER BY id").fetchall() == [
        (Decimal("1.50"),),
        (Decimal("2.00"),),
    ]


def test_haversine_gives_kilometers_as_a_float(cur: Any) -> None:
    """The documented example: New York to Los Angeles, 3936.385096389 km (and NULL in, NULL out)."""
    cur.execute("CREATE TABLE places (lat DOUBLE, lon NUMBER(10, 4))")
    cur.execute("INSERT INTO places VALUES (40.7127, -74.0059), (34.0500, -118.2500), (NULL, 0)")
    cur.execute(
        "SELECT HAVERSINE(a.lat, a.lon, b.lat, b.lon) AS km FROM places a, places b "
        "WHERE a.lat > 40 AND (b.lat < 40 OR b.lat IS NULL) ORDER BY km NULLS LAST"
    )
    assert cur.description[0].type_code == 1  # FLOAT
    rows = cur.fetchall()
    assert rows[0][0] == pytest.approx(3936.385096389, abs=1e-9)
    assert rows[1] == (None,)
    assert one(cur, "SELECT HAVERSINE(0, 0, 0, 0)") == 0.0

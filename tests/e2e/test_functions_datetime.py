"""Date/time and conversion functions through the real connector; expected values are the examples
of Snowflake's function documentation."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from snowflake.connector.errors import ProgrammingError


def one(cur: Any, sql: str) -> Any:
    row = cur.execute(sql).fetchone()
    return row[0] if len(row) == 1 else row


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT DATEADD(month, 1, '2023-01-31'::DATE)", dt.date(2023, 2, 28)),
        ("SELECT DATEADD(year, -2, '2022-05-08'::DATE)", dt.date(2020, 5, 8)),
        ("SELECT DATEADD(hour, 2, TO_DATE('2022-04-05'))", dt.datetime(2022, 4, 5, 2)),
        ("SELECT TIMEADD(hour, 3, '23:00:00'::TIME)", dt.time(2, 0)),
        ("SELECT DATEDIFF(year, '2015-12-31'::DATE, '2016-01-01'::DATE)", 1),
        ("SELECT DATEDIFF(month, '2016-08-23'::DATE, '2016-09-07'::DATE)", 1),
        ("SELECT DATEDIFF(week, '2017-01-01'::DATE, '2017-01-02'::DATE)", 1),
        ("SELECT DATEDIFF(hour, '2016-01-01 01:59:59'::TIMESTAMP, '2016-01-01 02:00:00'::TIMESTAMP)", 1),
        ("SELECT DATEDIFF(second, '2016-01-01 01:00:59'::TIMESTAMP, '2016-01-01 02:00:00'::TIMESTAMP)", 3541),
        ("SELECT DATE_TRUNC('month', '2024-05-31'::DATE)", dt.date(2024, 5, 1)),
        ("SELECT LAST_DAY('2024-02-10'::DATE)", dt.date(2024, 2, 29)),
        ("SELECT LAST_DAY('2024-02-10'::DATE, 'year')", dt.date(2024, 12, 31)),
        ("SELECT NEXT_DAY('2024-01-07'::DATE, 'Friday')", dt.date(2024, 1, 12)),
        ("SELECT PREVIOUS_DAY('2024-01-07'::DATE, 'su')", dt.date(2023, 12, 31)),
        ("SELECT ADD_MONTHS('2016-02-29'::DATE, 1)", dt.date(2016, 3, 31)),
        ("SELECT DATE_FROM_PARTS(2010, 1, 100)", dt.date(2010, 4, 10)),
        ("SELECT DATE_FROM_PARTS(2004, 1 - 1, 1)", dt.date(2003, 12, 1)),
        ("SELECT TIME_FROM_PARTS(12, 34, 56)", dt.time(12, 34, 56)),
        (
            "SELECT TIMESTAMP_NTZ_FROM_PARTS(2013, 4, 5, 12, 0, 0, 987654321)",
            dt.datetime(2013, 4, 5, 12, 0, 0, 987654),
        ),
        ("SELECT DAYOFWEEK('2024-01-07'::DATE)", 0),
        ("SELECT DAYOFWEEKISO('2024-01-07'::DATE)", 7),
        ("SELECT WEEKISO('2016-01-02'::DATE)", 53),
        ("SELECT YEAROFWEEKISO('2016-01-02'::DATE)", 2015),
        ("SELECT EXTRACT(epoch_second FROM '2024-01-07 10:00:00'::TIMESTAMP)", 1704621600),
        ("SELECT DAYNAME('2024-01-07'::DATE)", "Sun"),
        ("SELECT MONTHNAME('2024-01-07'::DATE)", "Jan"),
        ("SELECT TO_CHAR('2024-01-07'::DATE, 'YYYY/MM/DD')", "2024/01/07"),
        (
            "SELECT TIME_SLICE('2024-01-07 10:17:00'::TIMESTAMP, 15, 'MINUTE')",
            dt.datetime(2024, 1, 7, 10, 15),
        ),
        ("SELECT '2013-05-08T23:39:20.123-07:00'::TIMESTAMP", dt.datetime(2013, 5, 8, 23, 39, 20, 123000)),
        ("SELECT TO_TIMESTAMP('31536000000')", dt.datetime(1971, 1, 1)),
        ("SELECT TO_TIMESTAMP(1000000000, 3)", dt.datetime(1970, 1, 12, 13, 46, 40)),
        (
            "SELECT TO_TIMESTAMP_NTZ('04/05/2024 01:02:03', 'mm/dd/yyyy hh24:mi:ss')",
            dt.datetime(2024, 4, 5, 1, 2, 3),
        ),
        ("SELECT TO_DATE('2024-01-05', 'YYYY-MM-DD')", dt.date(2024, 1, 5)),
        ("SELECT TRY_TO_DATE('not a date')", None),
        ("SELECT TRY_TO_DATE('3/5/2024', 'MM/DD/YYYY')", dt.date(2024, 3, 5)),
        ("SELECT TRY_TO_DATE('13/15/2024', 'MM/DD/YYYY')", None),
        ("SELECT TRY_TO_DATE('15-mar-2024', 'DD-MON-YYYY')", dt.date(2024, 3, 15)),
        (
            "SELECT TRY_TO_TIMESTAMP('2024-03-15 10:11:12.123456789', 'YYYY-MM-DD HH24:MI:SS.FF9')",
            dt.datetime(2024, 3, 15, 10, 11, 12, 123456),
        ),
        ("SELECT TRY_TO_TIMESTAMP('2024-03-15', 'YYYY-MM-DD HH24:MI')", None),
        ("SELECT TO_TIME('10:15 PM', 'HH12:MI AM')", dt.time(22, 15)),
        ("SELECT TRY_TO_TIME('25:15', 'HH24:MI')", None),
        ("SELECT TO_VARCHAR('2024-01-15'::TIMESTAMP_LTZ)", "2024-01-15 00:00:00.000 -0800"),
        ("SELECT TO_VARCHAR('2024-01-15 10:00+01'::TIMESTAMP_LTZ)", "2024-01-15 01:00:00.000 -0800"),
        ("SELECT TRY_CAST('abc' AS INT)", None),
        ("SELECT TO_BOOLEAN('yes')", True),
        ("SELECT TO_BOOLEAN(0)", False),
        ("SELECT TRY_TO_BOOLEAN('maybe')", None),
        ("SELECT TRY_TO_DOUBLE('x')", None),
    ],
)
def test_documented_examples(cur: Any, sql: str, expected: Any) -> None:
    assert one(cur, sql) == expected


def test_formatted_time_that_does_not_match_is_an_error_and_try_gives_null(cur: Any) -> None:
    cur.execute("CREATE TABLE clock (t VARCHAR)")
    cur.execute("INSERT INTO clock VALUES ('09:30'), ('bad'), (NULL)")
    assert cur.execute("SELECT TRY_TO_TIME(t, 'HH24:MI') FROM clock ORDER BY t").fetchall() == [
        (dt.time(9, 30),),
        (None,),
        (None,),
    ]
    with pytest.raises(Exception, match="Time 'bad' is not recognized"):
        cur.execute("SELECT TO_TIME(t, 'HH24:MI') FROM clock")


def test_to_boolean_rejects_other_strings(cur: Any) -> None:
    with pytest.raises(Exception, match="not recognized"):
        cur.execute("SELECT TO_BOOLEAN('maybe')")


def test_date_arithmetic_on_text_columns_reads_them_as_timestamps(cur: Any) -> None:
    """DATEADD's documented example over a CTE of VALUES strings (it failed: Utf8 + Interval)."""
    cur.execute(
        "WITH datetest AS (SELECT column1 AS d FROM VALUES ('2022-04-05')) "
        "SELECT d, DATEADD(year, 2, d), DATEADD(hour, 2, d) FROM datetest"
    )
    assert cur.fetchone() == ("2022-04-05", dt.datetime(2024, 4, 5), dt.datetime(2022, 4, 5, 2))
    cur.execute("CREATE TABLE texts (t VARCHAR)")
    cur.execute("INSERT INTO texts VALUES ('2024-01-31 10:00:00')")
    cur.execute(
        "SELECT DATEADD(month, 1, t), DATEDIFF(day, t, '2024-03-01'), DATE_TRUNC('month', t) FROM texts"
    )
    assert cur.fetchone() == (dt.datetime(2024, 2, 29, 10), 30, dt.datetime(2024, 1, 1))


def test_timestamps_cast_to_text_in_the_session_output_formats(cur: Any) -> None:
    cur.execute("CREATE TABLE ev (id INT, ntz TIMESTAMP_NTZ, ltz TIMESTAMP_LTZ)")
    # One row, so the strings are cast as a whole column: a wall clock in the session's zone.
    cur.execute("INSERT INTO ev VALUES (1, '2024-03-10 01:30:00.5', '2024-03-10 01:30:00')")
    cur.execute("SELECT ntz::VARCHAR, TO_CHAR(ntz), ltz::VARCHAR, TO_VARCHAR(ltz, 'HH24:MI TZHTZM') FROM ev")
    assert cur.fetchone() == (
        "2024-03-10 01:30:00.500",
        "2024-03-10 01:30:00.500",
        "2024-03-10 01:30:00.000 -0800",
        "01:30 -0800",
    )
    cur.execute("ALTER SESSION SET TIMEZONE = 'UTC'")
    cur.execute("ALTER SESSION SET TIMESTAMP_NTZ_OUTPUT_FORMAT = 'YYYY/MM/DD HH24:MI'")
    assert cur.execute("SELECT ntz::VARCHAR, ltz::VARCHAR, 'at ' || ntz FROM ev").fetchone() == (
        "2024/03/10 01:30",
        "2024-03-10 09:30:00.000 +0000",
        "at 2024/03/10 01:30",
    )


def test_copy_reads_timestamp_ltz_text_in_the_session_time_zone(cur: Any, tmp_path: Any) -> None:
    (tmp_path / "ts.csv").write_text("1,2024-03-10 01:30:00\n2,2024-03-10T01:30:00Z\n")
    cur.execute("CREATE TABLE ev (id INT, ltz TIMESTAMP_LTZ)")
    cur.execute(f"PUT file://{tmp_path}/ts.csv @~/ts/")
    cur.execute("COPY INTO ev FROM @~/ts/")
    cur.execute("ALTER SESSION SET TIMEZONE = 'UTC'")
    rows = cur.execute("SELECT id, TO_CHAR(ltz, 'YYYY-MM-DD HH24:MI') FROM ev ORDER BY id").fetchall()
    assert rows == [(1, "2024-03-10 09:30"), (2, "2024-03-10 01:30")]
    cur.execute("REMOVE @~/ts/")


def test_timestamp_ltz_parts_and_comparisons_follow_the_session_time_zone(cur: Any) -> None:
    # 20:30 in Los Angeles on 2024-03-10 is 03:30 UTC on the 11th: parts, dates and truncation
    # are the session zone's, and wall clocks compared with the instant are read in that zone.
    cur.execute("CREATE TABLE lt (ltz TIMESTAMP_LTZ, ntz TIMESTAMP_NTZ, d DATE)")
    cur.execute("INSERT INTO lt VALUES ('2024-03-10 20:30:00', '2024-03-10 20:30:00', '2024-03-10')")
    cur.execute(
        "SELECT HOUR(ltz), ltz::DATE, TO_DATE(ltz), DAYNAME(ltz), DATE_TRUNC('day', ltz)::VARCHAR FROM lt"
    )
    assert cur.fetchone() == (
        20,
        dt.date(2024, 3, 10),
        dt.date(2024, 3, 10),
        "Sun",
        "2024-03-10 00:00:00.000 -0800",
    )
    cur.execute(
        "SELECT ltz = '2024-03-10 20:30:00', ltz BETWEEN '2024-03-10' AND '2024-03-11', ltz = ntz, ltz > d, "
        "ltz::TIMESTAMP_NTZ = ntz, TO_TIMESTAMP_NTZ(ltz) = ntz FROM lt"
    )
    assert cur.fetchone() == (True, True, True, True, True, True)
    # A day added across the DST change (2024-03-10 in Los Angeles) keeps the wall clock: 23 hours.
    cur.execute("SELECT DATEADD(day, -1, ltz)::VARCHAR, DATEADD(hour, -24, ltz)::VARCHAR FROM lt")
    assert cur.fetchone() == ("2024-03-09 20:30:00.000 -0800", "2024-03-09 19:30:00.000 -0800")
    # An epoch is the instant's; a difference with a wall clock reads it in the session's zone.
    cur.execute(
        "SELECT DATE_PART(epoch_second, ltz), DATEDIFF(hour, ltz, ntz), DATEDIFF(day, ntz, ltz) FROM lt"
    )
    assert cur.fetchone() == (1710127800, 0, 0)


def test_current_date_and_time_are_the_session_zones(cur: Any) -> None:
    cur.execute("ALTER SESSION SET TIMEZONE = 'Pacific/Kiritimati'")  # UTC+14, often another date
    cur.execute(
        "SELECT CURRENT_DATE() = CURRENT_TIMESTAMP()::DATE, "
        "CURRENT_DATE() = DATEADD(hour, 14, SYSDATE())::DATE, "
        "DATEDIFF(hour, SYSDATE(), CURRENT_TIMESTAMP()::TIMESTAMP_NTZ)"
    )
    assert cur.fetchone() == (True, True, 14)
    cur.execute("SELECT HOUR(CURRENT_TIMESTAMP()) = HOUR(CURRENT_TIME()), CURRENT_TIMESTAMP()::VARCHAR")
    same_hour, text = cur.fetchone()
    assert same_hour and text.endswith(" +1400")


def test_current_timestamp_stored_in_ntz_and_date_columns_is_the_session_wall_clock(cur: Any) -> None:
    cur.execute("ALTER SESSION SET TIMEZONE = 'Pacific/Kiritimati'")  # UTC+14
    cur.execute(
        "CREATE TABLE stamps (n TIMESTAMP_NTZ, d DATE, dn TIMESTAMP_NTZ DEFAULT CURRENT_TIMESTAMP(), k INT)"
    )
    cur.execute("INSERT INTO stamps (n, d, k) SELECT CURRENT_TIMESTAMP(), CURRENT_TIMESTAMP(), 1")
    cur.execute(
        "SELECT ABS(DATEDIFF(second, n, DATEADD(hour, 14, SYSDATE()))) < 60, "
        "ABS(DATEDIFF(second, dn, DATEADD(hour, 14, SYSDATE()))) < 60, d = CURRENT_DATE() FROM stamps"
    )
    assert cur.fetchone() == (True, True, True)


def test_date_trunc_of_a_date_column_is_a_date(cur: Any) -> None:
    # https://docs.snowflake.com/en/sql-reference/functions/date_trunc: the input's type comes back
    # (a DATE column gave a TIMESTAMP).
    cur.execute("CREATE TABLE dts (d DATE)")
    cur.execute("INSERT INTO dts VALUES ('2024-02-29')")
    cur.execute("SELECT DATE_TRUNC('month', d), TRUNC(d, 'year'), DATE_TRUNC('week', d) FROM dts")
    assert cur.fetchone() == (dt.date(2024, 2, 1), dt.date(2024, 1, 1), dt.date(2024, 2, 26))
    assert [d.type_code for d in cur.description] == [3, 3, 3]  # DATE


def test_day_differences_filter_stored_dates(cur: Any) -> None:
    # A filter on DATEDIFF(day, ...) or on DATE - DATE over a stored table failed inside DataFusion's
    # row-group pruning ("Only intervals with the same data type are comparable").
    cur.execute("CREATE TABLE visits (id INT, d DATE)")
    cur.execute("INSERT INTO visits VALUES (1, '2024-01-02'), (2, '2024-01-30'), (3, NULL)")
    for condition in (
        "DATEDIFF(day, d, '2024-02-01') > 10",
        "DATEDIFF('days', d, '2024-02-01'::DATE) > 10",
        "'2024-02-01'::DATE - d > 10",
        "DATEDIFF(week, d, '2024-02-01') >= 4",
    ):
        assert cur.execute(f"SELECT id FROM visits WHERE {condition}").fetchall() == [(1,)], condition
    assert cur.execute("SELECT id FROM visits WHERE d - d = 0 ORDER BY id").fetchall() == [(1,), (2,)]
    cur.execute("SELECT d - '2024-01-01'::DATE, DATEDIFF(day, d, '2024-01-01') FROM visits ORDER BY id")
    assert cur.fetchall() == [(1, -1), (29, -29), (None, None)]


def test_a_date_compared_with_a_number_is_refused(cur: Any) -> None:
    # Snowflake has no conversion between NUMBER and DATE; DataFusion read the number as days since
    # 1970, so `d = 20240102` matched nothing and `d = id` compared days with ids.
    cur.execute("CREATE TABLE days (id INT, d DATE)")
    cur.execute("INSERT INTO days VALUES (1, '2024-01-02')")
    for sql, parameter in (
        ("SELECT * FROM days WHERE d = 20240102", "'20240102' of type [NUMBER(8,0)]"),
        ("SELECT * FROM days WHERE 1.50 < d", "'1.50' of type [NUMBER(3,2)]"),
        ("SELECT * FROM days WHERE d IN ('2024-01-02', 7)", "'7' of type [NUMBER(1,0)]"),
        ("SELECT * FROM days WHERE d = id", "'id' of type [NUMBER(38,0)]"),
    ):
        with pytest.raises(ProgrammingError) as info:
            cur.execute(sql)
        assert f"Can not convert parameter {parameter} into expected type [DATE]" in info.value.msg
        assert info.value.sqlstate == "42601"
    assert cur.execute("SELECT id FROM days WHERE d = '2024-01-02' AND YEAR(d) = 2024").fetchall() == [(1,)]


def test_stored_time_columns_compare_combine_and_compute_with_time_values(cur: Any) -> None:
    # A stored TIME is microseconds and DataFusion's TIME nanoseconds: comparisons, UNION, COALESCE,
    # IFF and every UPDATE of a table with a TIME column failed ("type_coercion").
    cur.execute("CREATE TABLE shifts (n INT, t TIME)")
    cur.execute("INSERT INTO shifts VALUES (1, '10:00:00'), (2, '12:30:00')")
    assert cur.execute("SELECT n FROM shifts WHERE t < '11:00'::TIME").fetchall() == [(1,)]
    assert cur.execute("SELECT n FROM shifts WHERE t = TIME '12:30:00'").fetchall() == [(2,)]
    assert cur.execute("SELECT IFF(n = 1, t, '23:59'::TIME) FROM shifts ORDER BY n").fetchall() == [
        (dt.time(10, 0),),
        (dt.time(23, 59),),
    ]
    rows = cur.execute(
        "SELECT TIMEADD(minute, 90, t), DATE_TRUNC('hour', t), DATEDIFF(minute, t, '13:00'::TIME) "
        "FROM shifts ORDER BY n"
    ).fetchall()
    assert rows == [(dt.time(11, 30), dt.time(10, 0), 180), (dt.time(14, 0), dt.time(12, 0), 30)]
    cur.execute("UPDATE shifts SET n = n + 10")
    cur.execute("UPDATE shifts SET t = COALESCE(NULL, '01:02:03'::TIME) WHERE n = 11")
    assert cur.execute("SELECT n, t FROM shifts ORDER BY n").fetchall() == [
        (11, dt.time(1, 2, 3)),
        (12, dt.time(12, 30)),
    ]


def test_date_input_and_output_formats_of_the_session(cur: Any) -> None:
    cur.execute("ALTER SESSION SET DATE_OUTPUT_FORMAT = 'DD.MM.YYYY'")
    cur.execute("CREATE TABLE days (d DATE)")
    cur.execute("INSERT INTO days VALUES ('2024-06-01')")
    assert cur.execute(
        "SELECT TO_VARCHAR(d), d::VARCHAR, TO_CHAR('2024-06-02'::DATE) FROM days"
    ).fetchone() == (
        "01.06.2024",
        "01.06.2024",
        "02.06.2024",
    )
    cur.execute("ALTER SESSION SET DATE_INPUT_FORMAT = 'DD.MM.YYYY'")
    assert cur.execute("SELECT '02.06.2024'::DATE, TO_DATE('03.06.2024')").fetchone() == (
        dt.date(2024, 6, 2),
        dt.date(2024, 6, 3),
    )
    assert cur.execute("SELECT TRY_CAST('2024-06-02' AS DATE)").fetchone() == (None,)
    cur.execute("ALTER SESSION UNSET DATE_INPUT_FORMAT")
    cur.execute("ALTER SESSION UNSET DATE_OUTPUT_FORMAT")
    assert cur.execute("SELECT '2024-06-02'::DATE::VARCHAR").fetchone() == ("2024-06-02",)

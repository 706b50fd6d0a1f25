"""Golden translation tests for date/time functions, including the session parameters they follow
(TIMEZONE, WEEK_START, WEEK_OF_YEAR_POLICY). https://docs.snowflake.com/en/sql-reference/functions-date-time
"""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pyarrow as pa
import pytest
from datafusion import SessionContext

from embucket_py.engine.context import new_context
from embucket_py.errors import ExecutionError
from embucket_py.sql.context import SqlContext
from tests.sql.helpers import CTX, translate, validate

LA = 'Timestamp(Microsecond, Some("America/Los_Angeles"))'


def session(**parameters: object) -> SqlContext:
    return dataclasses.replace(CTX, parameters={k.upper(): v for k, v in parameters.items()})


def values(sql: str, ctx: SqlContext) -> list[object]:
    """Runs a FROM-less query and returns its first row."""
    engine: SessionContext = new_context()
    table = engine.sql(translate(sql, ctx).sql).to_arrow_table()
    return [table.column(i)[0].as_py() for i in range(table.num_columns)]


def test_date_part_keeps_datafusion_parts_with_default_parameters() -> None:
    validate(
        "SELECT DAYOFWEEK(ts) AS d, WEEK(ts) AS w, YEAROFWEEK(ts) AS y FROM t",
        "SELECT arrow_cast(date_part('dow', \"ts\"), 'Int64') AS \"d\", "
        "arrow_cast(date_part('week', \"ts\"), 'Int64') AS \"w\", "
        'arrow_cast(date_part(\'isoyear\', "ts"), \'Int64\') AS "y" FROM "__t0" AS "t"',
        ctx=session(week_start=0, week_of_year_policy=0),
    )


def test_dayofweek_follows_week_start() -> None:
    # 2024-01-03 is a Wednesday. Legacy: Sunday = 0; WEEK_START = 1: Monday = 1; = 3: Wednesday = 1.
    sql = "SELECT DAYOFWEEK('2024-01-03'::DATE), DAYOFWEEKISO('2024-01-03'::DATE)"
    assert values(sql, session(week_start=0)) == [3, 3]
    assert values(sql, session(week_start=1)) == [3, 3]
    assert values(sql, session(week_start=3)) == [1, 3]
    assert values(sql, session(week_start=7)) == [4, 3]


def test_week_of_year_policy_one_counts_from_january_first() -> None:
    # The documented example: WEEK_OF_YEAR_POLICY = 1, 2016-01-02 -> WEEK 1, YEAROFWEEK 2016,
    # WEEKISO 53, YEAROFWEEKISO 2015.
    sql = "SELECT WEEK(d), WEEKISO(d), YEAROFWEEK(d), YEAROFWEEKISO(d) FROM (SELECT '2016-01-02'::DATE AS d)"
    assert values(sql, session(week_of_year_policy=1)) == [1, 53, 2016, 2015]
    assert values(sql, session(week_of_year_policy=0)) == [53, 53, 2015, 2015]


def test_week_start_moves_iso_style_weeks() -> None:
    # With weeks starting on Sunday (7), 2017-01-01 (a Sunday) starts week 1 of 2017.
    sql = "SELECT WEEK(d), YEAROFWEEK(d) FROM (SELECT '2017-01-01'::DATE AS d)"
    assert values(sql, session(week_start=7)) == [1, 2017]
    assert values(sql, session(week_start=1)) == [52, 2016]


def test_date_trunc_week_follows_week_start() -> None:
    sql = "SELECT DATE_TRUNC('WEEK', '2024-01-03'::DATE)"
    assert str(values(sql, session(week_start=0))[0]) == "2024-01-01"
    assert str(values(sql, session(week_start=7))[0]) == "2023-12-31"


def test_ltz_from_parts_is_a_wall_clock_in_the_session_zone() -> None:
    sql = "SELECT TIMESTAMP_LTZ_FROM_PARTS(2024, 1, 1, 10, 0, 0)"
    la = values(sql, session(timezone="America/Los_Angeles"))[0]
    assert la == datetime(2024, 1, 1, 18, 0, tzinfo=UTC)
    assert values(sql, session(timezone="UTC"))[0] == datetime(2024, 1, 1, 10, 0, tzinfo=UTC)
    assert LA in translate(sql, session(timezone="America/Los_Angeles")).sql


def test_tz_from_parts_with_a_zone_argument() -> None:
    sql = "SELECT TIMESTAMP_TZ_FROM_PARTS(2024, 1, 1, 10, 0, 0, 0, 'Asia/Tokyo')"
    assert values(sql, session(timezone="UTC"))[0] == datetime(2024, 1, 1, 1, 0, tzinfo=UTC)


def test_to_timestamp_ltz_reads_strings_in_the_session_zone() -> None:
    validate(
        "SELECT TO_TIMESTAMP_LTZ('2024-01-01 10:00:00') AS t",
        "SELECT sf_to_instant(CAST('2024-01-01 10:00:00' AS VARCHAR), 'America/Los_Angeles') AS \"t\"",
        ctx=session(timezone="America/Los_Angeles"),
    )
    sql = "SELECT TO_TIMESTAMP_LTZ('2024-07-01 10:00:00'), '2024-01-01 10:00:00 +02:00'::TIMESTAMP_TZ"
    assert values(sql, session(timezone="America/Los_Angeles")) == [
        datetime(2024, 7, 1, 17, 0, tzinfo=UTC),
        datetime(2024, 1, 1, 8, 0, tzinfo=UTC),
    ]


def test_convert_timezone_three_arguments_gives_the_target_wall_clock() -> None:
    # The documented example: 2019-01-01 14:00:00 in Los Angeles is 2019-01-01 23:00:00 in Warsaw.
    sql = (
        "SELECT CONVERT_TIMEZONE('America/Los_Angeles', 'Europe/Warsaw', "
        "'2019-01-01 14:00:00'::TIMESTAMP_NTZ)"
    )
    assert values(sql, session())[0] == datetime(2019, 1, 1, 23, 0)


def test_convert_timezone_two_arguments_keeps_the_instant_in_the_target_zone() -> None:
    sql = "SELECT CONVERT_TIMEZONE('Asia/Tokyo', '2024-01-01 00:00:00 +00:00'::TIMESTAMP_TZ)"
    engine = new_context()
    table = engine.sql(translate(sql, session()).sql).to_arrow_table()
    assert table.schema.field(0).type == pa.timestamp("us", tz="Asia/Tokyo")
    assert table.column(0)[0].as_py() == datetime(2024, 1, 1, 0, 0, tzinfo=UTC)


def test_unknown_time_zone_is_an_error() -> None:
    with pytest.raises(ExecutionError, match="Mars/Base"):
        translate("SELECT CONVERT_TIMEZONE('Mars/Base', CURRENT_TIMESTAMP())", session())


def test_current_date_and_time_are_in_the_session_zone() -> None:
    sql = "SELECT CURRENT_DATE, CURRENT_TIME"
    assert 'Some("Asia/Tokyo")' in translate(sql, session(timezone="Asia/Tokyo")).sql
    date, time = values(sql, session(timezone="Asia/Tokyo"))
    assert date is not None and time is not None


def test_months_between_follows_the_documented_rules() -> None:
    # Documented examples: same day or both month ends -> whole months; otherwise 31-day months
    # with the time of day counted.
    sql = (
        "SELECT MONTHS_BETWEEN('2019-03-28'::DATE, '2019-02-28'::DATE), "
        "MONTHS_BETWEEN('2019-03-31'::DATE, '2019-02-28'::DATE), "
        "MONTHS_BETWEEN('2019-03-01 02:00:00'::TIMESTAMP, '2019-02-15 01:00:00'::TIMESTAMP), "
        "MONTHS_BETWEEN('2019-02-01'::DATE, '2019-03-01'::DATE)"
    )
    assert [str(v) for v in values(sql, session())] == ["1.000000", "1.000000", "0.549731", "-1.000000"]


def test_add_months_keeps_timestamps_and_month_ends() -> None:
    sql = (
        "SELECT ADD_MONTHS('2016-05-15'::TIMESTAMP_NTZ, 2), ADD_MONTHS('2016-02-29'::DATE, 1), "
        "ADD_MONTHS('2016-04-30 10:00:00'::TIMESTAMP_NTZ, 1)"
    )
    assert [str(v) for v in values(sql, session())] == [
        "2016-07-15 00:00:00",
        "2016-03-31",
        "2016-05-31 10:00:00",
    ]

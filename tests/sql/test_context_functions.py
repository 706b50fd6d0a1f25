"""CURRENT_DATABASE(), CURRENT_USER(), ... become the session's values as literals."""

from __future__ import annotations

from tests.sql.helpers import result_names, validate


def test_context_functions_become_literals() -> None:
    validate(
        "SELECT CURRENT_DATABASE(), CURRENT_SCHEMA(), CURRENT_USER(), CURRENT_VERSION()",
        "SELECT 'DB' AS \"current_database()\", 'PUBLIC' AS \"current_schema()\", "
        "'EMBUCKET' AS \"current_user()\", '9.99.0' AS \"current_version()\"",
    )
    assert result_names("SELECT CURRENT_DATABASE()") == ["CURRENT_DATABASE()"]


def test_a_context_function_without_a_value_is_null() -> None:
    validate(
        "SELECT CURRENT_ROLE(), CURRENT_WAREHOUSE(), CURRENT_SESSION()",
        'SELECT \'ACCOUNTADMIN\' AS "current_role()", NULL AS "current_warehouse()", '
        "'42' AS \"current_session()\"",
    )


def test_context_functions_work_anywhere_in_a_query() -> None:
    validate(
        "SELECT a FROM t WHERE b = CURRENT_USER()",
        'SELECT "a" AS "a" FROM "__t0" AS "t" WHERE "b" = \'EMBUCKET\'',
    )


def test_date_and_time_functions_are_not_context_values() -> None:
    # Today in the session's time zone (TIMEZONE defaults to America/Los_Angeles), not a fixed value.
    # DataFusion's now() is the UTC wall clock without a zone: it is made a UTC instant first (cast
    # straight to the session's zone, it was read as that zone's clock, giving the UTC date).
    validate(
        "SELECT CURRENT_DATE()",
        "SELECT CAST(arrow_cast(to_local_time(arrow_cast(arrow_cast(now(), "
        "'Timestamp(Microsecond, Some(\"UTC\"))'), "
        "'Timestamp(Microsecond, Some(\"America/Los_Angeles\"))')), "
        "'Timestamp(Microsecond, None)') AS DATE) AS \"current_date()\"",
    )

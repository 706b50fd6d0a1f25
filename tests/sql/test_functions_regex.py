"""Golden translations of Snowflake regex functions (see sql/transforms/functions/regex.py)."""

from __future__ import annotations

from tests.sql.helpers import validate


def test_rlike_matches_the_whole_subject() -> None:
    validate(
        "SELECT b RLIKE 'a.*' AS r FROM t",
        'SELECT regexp_like("b", \'\\A(?:a.*)\\z\') AS "r" FROM "__t0" AS "t"',
    )
    validate(
        "SELECT REGEXP_LIKE(b, 'A', 'i') AS r FROM t",
        'SELECT regexp_like("b", \'(?i)\\A(?:A)\\z\') AS "r" FROM "__t0" AS "t"',
    )


def test_regexp_substr_with_group_and_occurrence() -> None:
    validate(
        "SELECT REGEXP_SUBSTR(b, 'x(\\\\d)', 1, 1, 'e') AS r FROM t",
        'SELECT array_element(regexp_match("b", \'(x(\\d))\'), (1) + 1) AS "r" FROM "__t0" AS "t"',
    )
    validate(
        "SELECT REGEXP_SUBSTR(b, 'x', 3, 2) AS r FROM t",
        "SELECT CASE WHEN regexp_instr(substr(\"b\", 3), 'x', 1, 2) > 0 THEN "
        'array_element(regexp_match(substr(substr("b", 3), regexp_instr(substr("b", 3), \'x\', '
        '1, 2)), \'(x)\'), (0) + 1) END AS "r" FROM "__t0" AS "t"',
    )


def test_regexp_replace_occurrence_and_parameters() -> None:
    validate(
        "SELECT REGEXP_REPLACE(b, 'x', 'y') AS r FROM t",
        'SELECT regexp_replace("b", \'x\', \'y\', \'g\') AS "r" FROM "__t0" AS "t"',
    )
    validate(
        "SELECT REGEXP_REPLACE(b, 'x', '$1', 1, 1, 'i') AS r FROM t",
        'SELECT regexp_replace("b", \'(?i)x\', \'$$1\') AS "r" FROM "__t0" AS "t"',
    )


def test_regexp_count_from_a_position() -> None:
    validate(
        "SELECT REGEXP_COUNT(b, 'x', 2, 'i') AS r FROM t",
        'SELECT regexp_count(substr("b", 2), \'(?i)x\') AS "r" FROM "__t0" AS "t"',
    )


def test_regexp_instr_occurrence() -> None:
    validate(
        "SELECT REGEXP_INSTR(b, 'x', 1, 2) AS r FROM t",
        "SELECT CASE WHEN regexp_instr(\"b\", 'x', 1, 2, '', 0) = 0 THEN 0 ELSE "
        'regexp_instr("b", \'x\', 1, 2, \'\', 0) END AS "r" FROM "__t0" AS "t"',
    )


def test_regexp_substr_all_calls_the_udf() -> None:
    validate(
        "SELECT REGEXP_SUBSTR_ALL(b, 'x', 1, 1, 'i') AS r FROM t",
        'SELECT sf_regexp_substr_all("b", \'(?i)x\', 1, 0) AS "r" FROM "__t0" AS "t"',
    )

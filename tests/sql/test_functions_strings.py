"""Golden translations of Snowflake strings functions (see sql/transforms/functions/strings.py)."""

from __future__ import annotations

from tests.sql.helpers import validate


def test_split_and_strtok_call_the_array_udfs() -> None:
    validate(
        "SELECT SPLIT(b, ',') AS r FROM t",
        'SELECT sf_split("b", \',\') AS "r" FROM "__t0" AS "t"',
    )
    validate(
        "SELECT STRTOK(b, '@.', 2) AS r FROM t",
        'SELECT sf_strtok("b", \'@.\', 2) AS "r" FROM "__t0" AS "t"',
    )


def test_split_part_reads_part_zero_as_one() -> None:
    validate(
        "SELECT SPLIT_PART(b, '.', 0) AS r FROM t",
        'SELECT split_part("b", \'.\', 1) AS "r" FROM "__t0" AS "t"',
    )


def test_substr_counts_a_negative_start_from_the_end() -> None:
    validate(
        "SELECT SUBSTR(b, -3, 2) AS r FROM t",
        'SELECT substr("b", CASE WHEN -3 > 0 THEN -3 WHEN -3 = 0 THEN 1 WHEN length("b") + '
        '(-3) >= 0 THEN length("b") + (-3) + 1 WHEN -3 < 0 THEN length("b") + 2 END, 2) AS '
        '"r" FROM "__t0" AS "t"',
    )
    validate(
        "SELECT SUBSTR(b, 0) AS r FROM t",
        'SELECT substr("b", 1) AS "r" FROM "__t0" AS "t"',
    )


def test_substr_of_binary_cuts_two_hex_digits_per_byte() -> None:
    validate(
        "SELECT SUBSTR(X'0102', 2, 1) AS r",
        "SELECT decode(substr(encode(x'0102', 'hex'), (2) * 2 - 1, (1) * 2), 'hex') AS \"r\"",
    )


def test_insert_is_head_insertion_and_tail() -> None:
    validate(
        "SELECT INSERT(b, 2, 1, 'xy') AS r FROM t",
        'SELECT substr("b", 1, 2 - 1) || \'xy\' || substr("b", 2 + 1) AS "r" FROM "__t0" AS "t"',
    )


def test_like_any_and_all_expand_to_or_and_and() -> None:
    validate(
        "SELECT b FROM t WHERE b LIKE ANY ('a%', '%z')",
        'SELECT "b" AS "b" FROM "__t0" AS "t" WHERE ("b" LIKE \'a%\' OR "b" LIKE \'%z\')',
    )
    validate(
        "SELECT b FROM t WHERE b NOT ILIKE ALL ('a%', '%z')",
        'SELECT "b" AS "b" FROM "__t0" AS "t" WHERE NOT ("b" ILIKE \'a%\' AND "b" ILIKE \'%z\')',
    )


def test_like_escape_becomes_backslash() -> None:
    validate(
        "SELECT b FROM t WHERE b LIKE '%^_%' ESCAPE '^'",
        'SELECT "b" AS "b" FROM "__t0" AS "t" WHERE "b" LIKE \'%\\_%\'',
    )


def test_collate_compares_and_orders_as_the_collation_does() -> None:
    # https://docs.snowflake.com/en/sql-reference/collation: outside comparisons the text is as it
    # is; a comparison (either side collated) and an ORDER BY key fold case and trim as asked.
    validate(
        "SELECT b COLLATE 'en-ci' AS r FROM t",
        'SELECT "b" AS "r" FROM "__t0" AS "t"',
    )
    validate(
        "SELECT b = 'ABC' COLLATE 'en-ci-rtrim' AS r FROM t ORDER BY b COLLATE 'upper' DESC",
        'SELECT lower(rtrim("b")) = lower(rtrim(\'ABC\')) AS "r" FROM "__t0" AS "t" ORDER BY upper("b") DESC',
    )


def test_base64_encode_pads_to_a_multiple_of_four() -> None:
    validate(
        "SELECT BASE64_ENCODE(b) AS r FROM t",
        "SELECT rpad(encode(\"b\", 'base64'), length(encode(\"b\", 'base64')) + (4 - "
        'length(encode("b", \'base64\')) % 4) % 4, \'=\') AS "r" FROM "__t0" AS "t"',
    )


def test_hex_functions() -> None:
    validate(
        "SELECT HEX_ENCODE(b, 0) AS r FROM t",
        'SELECT encode("b", \'hex\') AS "r" FROM "__t0" AS "t"',
    )
    validate(
        "SELECT TRY_HEX_DECODE_STRING(b) AS r FROM t",
        'SELECT CAST(CASE WHEN regexp_like("b", \'^([0-9A-Fa-f]{2})*$\') THEN decode("b", '
        '\'hex\') END AS VARCHAR) AS "r" FROM "__t0" AS "t"',
    )


def test_editdistance_with_a_maximum() -> None:
    validate(
        "SELECT EDITDISTANCE(b, 'x', 3) AS r FROM t",
        'SELECT least(levenshtein("b", \'x\'), 3) AS "r" FROM "__t0" AS "t"',
    )


def test_rtrimmed_length() -> None:
    validate(
        "SELECT RTRIMMED_LENGTH(b) AS r FROM t",
        'SELECT length(rtrim("b")) AS "r" FROM "__t0" AS "t"',
    )

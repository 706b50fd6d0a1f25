"""MATCH_RECOGNIZE through the connector: Snowflake's documented examples with their documented
output, running and final measures, skipping, overlapping matches and refusals.
https://docs.snowflake.com/en/user-guide/match-recognize-introduction
https://docs.snowflake.com/en/sql-reference/constructs/match_recognize"""

from __future__ import annotations

import datetime
from typing import Any

import pytest
import snowflake.connector

D = datetime.date

PRICES = {
    "ABCD": [50, 36, 39, 42, 30, 47, 71, 80, 75, 63],
    "XYZ": [89, 24, 37, 63, 65, 56, 50, 54, 30, 32],
}


@pytest.fixture
def prices(cur: Any, database: str) -> Any:
    cur.execute(f"USE DATABASE {database}")
    cur.execute("CREATE TABLE stock_price_history (company TEXT, price_date DATE, price INT)")
    rows = [
        f"('{company}', '2020-10-{day + 1:02d}', {price})"
        for company, values in PRICES.items()
        for day, price in enumerate(values)
    ]
    cur.execute(f"INSERT INTO stock_price_history VALUES {', '.join(rows)}")
    return cur


V_SHAPE = """
SELECT * FROM stock_price_history
  MATCH_RECOGNIZE(
    PARTITION BY company
    ORDER BY price_date
    MEASURES
      MATCH_NUMBER() AS match_number,
      FIRST(price_date) AS start_date,
      LAST(price_date) AS end_date,
      COUNT(*) AS rows_in_sequence,
      COUNT(row_with_price_decrease.*) AS num_decreases,
      COUNT(row_with_price_increase.*) AS num_increases
    ONE ROW PER MATCH
    AFTER MATCH SKIP TO LAST row_with_price_increase
    PATTERN(row_before_decrease row_with_price_decrease+ row_with_price_increase+)
    DEFINE
      row_with_price_decrease AS price < LAG(price),
      row_with_price_increase AS price > LAG(price)
  )
  ORDER BY company, match_number
"""


def test_the_documented_v_shapes(prices: Any) -> None:
    rows = prices.execute(V_SHAPE).fetchall()
    assert [d.name for d in prices.description] == [
        "COMPANY",
        "MATCH_NUMBER",
        "START_DATE",
        "END_DATE",
        "ROWS_IN_SEQUENCE",
        "NUM_DECREASES",
        "NUM_INCREASES",
    ]
    # The documented output for ABCD; XYZ's as the same rules give it (matches share the row
    # they skip to).
    assert rows == [
        ("ABCD", 1, D(2020, 10, 1), D(2020, 10, 4), 4, 1, 2),
        ("ABCD", 2, D(2020, 10, 4), D(2020, 10, 8), 5, 1, 3),
        ("XYZ", 1, D(2020, 10, 1), D(2020, 10, 5), 5, 1, 3),
        ("XYZ", 2, D(2020, 10, 5), D(2020, 10, 8), 4, 2, 1),
        ("XYZ", 3, D(2020, 10, 8), D(2020, 10, 10), 3, 1, 1),
    ]


def test_all_rows_with_final_first_and_last(prices: Any) -> None:
    rows = prices.execute(
        """SELECT company, price_date, price, "FINAL FIRST(LT45.price)", "FINAL LAST(LT45.price)"
        FROM stock_price_history
          MATCH_RECOGNIZE (
            PARTITION BY company
            ORDER BY price_date
            MEASURES
              FINAL FIRST(LT45.price) AS "FINAL FIRST(LT45.price)",
              FINAL LAST(LT45.price)  AS "FINAL LAST(LT45.price)"
            ALL ROWS PER MATCH
            AFTER MATCH SKIP PAST LAST ROW
            PATTERN (LT45 LT45)
            DEFINE LT45 AS price < 45.00)
        WHERE company = 'ABCD'
        ORDER BY price_date"""
    ).fetchall()
    assert rows == [  # the documented output
        ("ABCD", D(2020, 10, 2), 36, 36, 39),
        ("ABCD", D(2020, 10, 3), 39, 36, 39),
        ("ABCD", D(2020, 10, 4), 42, 42, 30),
        ("ABCD", D(2020, 10, 5), 30, 42, 30),
    ]


def test_running_measures_classifier_and_sequence(prices: Any) -> None:
    rows = prices.execute(
        """SELECT price_date, price, cls, mn, seq, n, total, low, ups
        FROM stock_price_history MATCH_RECOGNIZE (
            PARTITION BY company ORDER BY price_date
            MEASURES CLASSIFIER() AS cls, MATCH_NUMBER() AS mn, MATCH_SEQUENCE_NUMBER() AS seq,
                     RUNNING COUNT(*) AS n, FINAL COUNT(*) AS total, MIN(price) AS low,
                     COUNT(up.*) AS ups
            ALL ROWS PER MATCH
            PATTERN (down up+)
            DEFINE down AS price < PREV(price), up AS price > PREV(price))
        WHERE company = 'XYZ' ORDER BY price_date"""
    ).fetchall()
    assert rows == [
        (D(2020, 10, 2), 24, "DOWN", 1, 1, 1, 4, 24, 0),
        (D(2020, 10, 3), 37, "UP", 1, 2, 2, 4, 24, 1),
        (D(2020, 10, 4), 63, "UP", 1, 3, 3, 4, 24, 2),
        (D(2020, 10, 5), 65, "UP", 1, 4, 4, 4, 24, 3),
        (D(2020, 10, 7), 50, "DOWN", 2, 1, 1, 2, 50, 0),
        (D(2020, 10, 8), 54, "UP", 2, 2, 2, 2, 50, 1),
        (D(2020, 10, 9), 30, "DOWN", 3, 1, 1, 2, 30, 0),
        (D(2020, 10, 10), 32, "UP", 3, 2, 2, 2, 30, 1),
    ]


def test_all_rows_with_unmatched_rows(prices: Any) -> None:
    rows = prices.execute(
        """SELECT price_date, cls, mn, n FROM stock_price_history MATCH_RECOGNIZE (
            PARTITION BY company ORDER BY price_date
            MEASURES CLASSIFIER() AS cls, MATCH_NUMBER() AS mn, COUNT(*) AS n
            ALL ROWS PER MATCH WITH UNMATCHED ROWS
            PATTERN (down up+)
            DEFINE down AS price < PREV(price), up AS price > PREV(price))
        WHERE company = 'XYZ' ORDER BY price_date"""
    ).fetchall()
    assert [(r[0].day, r[1], r[2], r[3]) for r in rows] == [
        (1, None, None, None),
        (2, "DOWN", 1, 1),
        (3, "UP", 1, 2),
        (4, "UP", 1, 3),
        (5, "UP", 1, 4),
        (6, None, None, None),
        (7, "DOWN", 2, 1),
        (8, "UP", 2, 2),
        (9, "DOWN", 3, 1),
        (10, "UP", 3, 2),
    ]


def test_overlapping_matches_anchors_and_a_subquery_source(prices: Any) -> None:
    # TO NEXT ROW: a match may start inside the previous one; rows of both appear in each.
    rows = prices.execute(
        """SELECT first_day, last_day, rises FROM (SELECT * FROM stock_price_history WHERE company = 'ABCD')
        MATCH_RECOGNIZE (ORDER BY price_date
            MEASURES FIRST(price_date) AS first_day, LAST(price_date) AS last_day, COUNT(*) AS rises
            AFTER MATCH SKIP TO NEXT ROW
            PATTERN (up{2,})
            DEFINE up AS price > PREV(price))
        ORDER BY first_day"""
    ).fetchall()
    assert rows == [
        (D(2020, 10, 3), D(2020, 10, 4), 2),
        (D(2020, 10, 6), D(2020, 10, 8), 3),
        (D(2020, 10, 7), D(2020, 10, 8), 2),
    ]
    peaks = prices.execute(
        """SELECT company, day FROM stock_price_history
          MATCH_RECOGNIZE (PARTITION BY company ORDER BY price_date
            MEASURES FIRST(price_date) AS day PATTERN (peak)
            DEFINE peak AS price > PREV(price) AND price > NEXT(price))
        ORDER BY company, day"""
    ).fetchall()
    assert peaks == [
        ("ABCD", D(2020, 10, 4)),
        ("ABCD", D(2020, 10, 8)),
        ("XYZ", D(2020, 10, 5)),
        ("XYZ", D(2020, 10, 8)),
    ]
    first = prices.execute(
        """SELECT * FROM stock_price_history AS s MATCH_RECOGNIZE (PARTITION BY company ORDER BY price_date
            MEASURES FIRST(s.price) AS opening PATTERN (^ x) DEFINE x AS s.price > 0) ORDER BY company"""
    ).fetchall()
    assert first == [("ABCD", 50), ("XYZ", 89)]
    closing = prices.execute(
        """SELECT * FROM stock_price_history MATCH_RECOGNIZE (PARTITION BY company ORDER BY price_date
            MEASURES LAST(price) AS closing, COUNT(*) AS tail
            PATTERN (fall+ $) DEFINE fall AS price < PREV(price))
        ORDER BY company"""
    ).fetchall()
    assert closing == [("ABCD", 63, 2)]  # XYZ ends on a rise


def test_no_match_gives_no_rows_and_the_view_of_matches_is_queryable(prices: Any) -> None:
    none = prices.execute(
        """SELECT COUNT(*) FROM stock_price_history MATCH_RECOGNIZE (ORDER BY price_date
            MEASURES COUNT(*) AS n PATTERN (big) DEFINE big AS price > 1000)"""
    ).fetchone()
    assert none == (0,)
    # EXPLAIN shows the measures' plan over the matched rows.
    plan = prices.execute(
        """EXPLAIN SELECT * FROM stock_price_history MATCH_RECOGNIZE (ORDER BY price_date
            MEASURES COUNT(*) AS n PATTERN (up+) DEFINE up AS price > PREV(price))"""
    ).fetchall()
    operations = [row[3] for row in plan]
    assert "WindowAggr" in operations and "TableScan" in operations
    prices.execute(f"CREATE VIEW v_shapes AS {V_SHAPE.replace('ORDER BY company, match_number', '')}")
    assert prices.execute("SELECT SUM(rows_in_sequence) FROM v_shapes").fetchone() == (21,)
    prices.execute(
        "INSERT INTO stock_price_history VALUES ('XYZ', '2020-10-11', 20), ('XYZ', '2020-10-12', 40)"
    )
    # The view runs its pattern again over the new rows.
    assert prices.execute("SELECT COUNT(*) FROM v_shapes WHERE company = 'XYZ'").fetchone() == (4,)


@pytest.mark.parametrize(
    ("clause", "code"),
    [
        ("PATTERN (PERMUTE(a, b)) DEFINE a AS price > 1", 2),
        ("PATTERN (a) DEFINE b AS price > 1", None),
        ("PATTERN (a+) DEFINE a AS price > FIRST(price)", 2),
        ("PATTERN ((a) DEFINE a AS price > 1", None),
    ],
)
def test_refusals_are_compilation_errors_and_the_session_goes_on(
    prices: Any, clause: str, code: int | None
) -> None:
    head = "SELECT * FROM stock_price_history MATCH_RECOGNIZE (ORDER BY price_date MEASURES COUNT(*) AS n"
    sql = f"{head} {clause})"
    with pytest.raises(snowflake.connector.errors.ProgrammingError) as info:
        prices.execute(sql)
    assert "SQL compilation error" in str(info.value)
    if code is not None:
        assert info.value.errno == code
    assert prices.execute("SELECT COUNT(*) FROM stock_price_history").fetchone() == (20,)

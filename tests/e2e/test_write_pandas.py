"""write_pandas, unmodified, against the server: stage, PUT, INFER_SCHEMA, COPY, overwrite."""

from __future__ import annotations

import datetime as dt

import pandas as pd
from snowflake.connector.pandas_tools import write_pandas


def _frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "I": pd.array([1, 2, 3], dtype="int64"),
            "F": [1.5, None, 3.25],
            "S": ["a", None, "c"],
            "B": [True, False, True],
            "D": [dt.date(2020, 1, 1), dt.date(2021, 2, 3), None],
            "TS": pd.to_datetime(["2020-01-01 10:00:00", "2021-02-03 04:05:06", None]),
        }
    )


def test_write_pandas_round_trip_with_auto_create(conn) -> None:
    success, chunks, rows, _ = write_pandas(conn, _frame(), "WP", auto_create_table=True)
    assert (success, chunks, rows) == (True, 1, 3)
    got = conn.cursor().execute('SELECT "I", "F", "S", "B", "D", "TS" FROM WP ORDER BY "I"').fetchall()
    assert got == [
        (1, 1.5, "a", True, dt.date(2020, 1, 1), dt.datetime(2020, 1, 1, 10, 0)),
        (2, None, None, False, dt.date(2021, 2, 3), dt.datetime(2021, 2, 3, 4, 5, 6)),
        (3, 3.25, "c", True, None, None),
    ]


def test_write_pandas_appends_then_overwrites(conn) -> None:
    write_pandas(conn, _frame(), "WP", auto_create_table=True)
    write_pandas(conn, _frame(), "WP", auto_create_table=True)
    cur = conn.cursor()
    assert cur.execute("SELECT COUNT(*) FROM WP").fetchall() == [(6,)]
    success, _, rows, _ = write_pandas(conn, _frame().head(2), "WP", auto_create_table=True, overwrite=True)
    assert (success, rows) == (True, 2)
    assert cur.execute("SELECT COUNT(*) FROM WP").fetchall() == [(2,)]

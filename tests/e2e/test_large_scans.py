"""Statements over tables too large to read into memory (over 32 MB scanned): these read the data
files through one shared listing table, text columns as Arrow string views. Results, functions,
writes and the types clients see must be the same as for small tables."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator

import pytest
import snowflake.connector

from tests.e2e.conftest import Server

ROWS_PER_INSERT = 400_000
INSERTS = 3  # three data files


@pytest.fixture(scope="module")
def big(server: Server) -> Iterator[snowflake.connector.SnowflakeConnection]:
    database = f"BIG_{uuid.uuid4().hex[:8].upper()}"
    with server.connect() as conn:
        conn.cursor().execute(f"CREATE DATABASE {database}")
    conn = server.connect(database=database, schema="PUBLIC")
    cur = conn.cursor()
    cur.execute("CREATE TABLE big (id NUMBER, s VARCHAR, n NUMBER)")
    for i in range(INSERTS):
        # 48 random characters a row: ~14 MB of Parquet per insert, ~42 MB in all.
        cur.execute(
            f"INSERT INTO big SELECT seq4() + {i * ROWS_PER_INSERT}, RANDSTR(48, RANDOM()), "
            f"UNIFORM(1, 1000, RANDOM()) FROM TABLE(GENERATOR(ROWCOUNT => {ROWS_PER_INSERT}))"
        )
    cur.execute("SELECT bytes FROM information_schema.tables WHERE table_name = 'BIG'")
    assert cur.fetchone()[0] > 32 << 20  # large enough for the file scan path
    yield conn
    conn.close()
    with server.connect() as admin:
        admin.cursor().execute(f"DROP DATABASE IF EXISTS {database}")


def test_text_columns_keep_their_type_and_values(big: snowflake.connector.SnowflakeConnection) -> None:
    cur = big.cursor()
    cur.execute("SELECT id, s FROM big WHERE id < 3 ORDER BY id")
    assert [d.type_code for d in cur.description] == [0, 2]  # FIXED, TEXT
    rows = cur.fetchall()
    assert [r[0] for r in rows] == [0, 1, 2]
    assert all(isinstance(r[1], str) and re.fullmatch(r"[0-9A-Za-z]{48}", r[1]) for r in rows)
    frame = cur.execute("SELECT s FROM big WHERE id < 10").fetch_pandas_all()
    assert len(frame) == 10 and all(len(v) == 48 for v in frame["S"])


def test_functions_over_text_agree_with_python(big: snowflake.connector.SnowflakeConnection) -> None:
    cur = big.cursor()
    cur.execute(
        "SELECT s, UPPER(s), LENGTH(s), SUBSTR(s, 2, 3), s || '!', REGEXP_LIKE(s, '[0-9].*'), "
        "INITCAP(s), SPLIT(s, 'a'), REGEXP_SUBSTR(s, '[0-9]+'), STRTOK(s, 'a', 1) "
        "FROM big WHERE id < 200 ORDER BY id"
    )
    rows = cur.fetchall()
    assert len(rows) == 200
    for s, upper, length, part, bang, starts_digit, initcap, split, digits, token in rows:
        assert (upper, length, part, bang) == (s.upper(), 48, s[1:4], s + "!")
        assert starts_digit == bool(re.fullmatch(r"[0-9].*", s))
        assert initcap == s[0].upper() + s[1:].lower()
        assert json.loads(split) == s.split("a")
        assert digits == (re.search(r"[0-9]+", s).group(0) if re.search(r"[0-9]+", s) else None)
        assert token == (next((t for t in s.split("a") if t), None))


def test_grouping_joining_and_counting_distinct_text(big: snowflake.connector.SnowflakeConnection) -> None:
    cur = big.cursor()
    cur.execute("SELECT COUNT(*), COUNT(DISTINCT s), MIN(LENGTH(s)), MAX(LENGTH(s)) FROM big")
    assert cur.fetchone() == (INSERTS * ROWS_PER_INSERT, INSERTS * ROWS_PER_INSERT, 48, 48)
    cur.execute("SELECT COUNT(*) FROM big a JOIN big b ON a.s = b.s AND a.id = b.id WHERE a.n = 7")
    (joined,) = cur.fetchone()
    cur.execute("SELECT COUNT(*) FROM big WHERE n = 7")
    assert cur.fetchone() == (joined,) and joined > 0
    cur.execute("SELECT LEFT(s, 1) AS c, COUNT(*) FROM big GROUP BY c ORDER BY c")
    groups = cur.fetchall()
    assert 50 <= len(groups) <= 62 and sum(n for _, n in groups) == INSERTS * ROWS_PER_INSERT


def test_writes_from_a_large_table_store_plain_text(big: snowflake.connector.SnowflakeConnection) -> None:
    cur = big.cursor()
    cur.execute("CREATE OR REPLACE TABLE picked AS SELECT id, s FROM big WHERE n <= 10")
    cur.execute("SELECT COUNT(*) FROM big WHERE n <= 10")
    (expected,) = cur.fetchone()
    cur.execute("SELECT COUNT(*), MIN(LENGTH(s)) FROM picked")
    assert cur.fetchone() == (expected, 48)
    cur.execute("DESCRIBE TABLE picked")
    assert [(r[0], r[1]) for r in cur.fetchall()] == [("ID", "NUMBER(38,0)"), ("S", "VARCHAR(16777216)")]
    cur.execute("INSERT INTO picked SELECT id, UPPER(s) FROM big WHERE n = 1000")
    cur.execute("SELECT s FROM big WHERE id = 5")
    (before,) = cur.fetchone()
    cur.execute("UPDATE big SET s = s || '-changed' WHERE id = 5")
    assert cur.fetchone()[0] == 1
    cur.execute("SELECT s FROM big WHERE id = 5")
    assert cur.fetchone() == (before + "-changed",)

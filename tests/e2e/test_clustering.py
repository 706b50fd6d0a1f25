"""Clustered tables (CLUSTER BY) return exactly what unclustered ones do, through every change;
RECLUSTER and SYSTEM$CLUSTERING_INFORMATION; SAMPLE / TABLESAMPLE within statistical bounds."""

from __future__ import annotations

import json
from typing import Any

import pytest
from snowflake.connector.errors import ProgrammingError

ROWS = 60_000
FILL = (
    "SELECT (seq4() * 7919) % 1000 AS x, ((seq4() * 104729) % 100000) / 100000.0 AS y, "
    "DATEADD(minute, (seq4() * 31) % 525600, '2024-01-01'::TIMESTAMP_NTZ) AS t, "
    "'k' || (seq4() % 97)::VARCHAR AS s FROM TABLE(GENERATOR(ROWCOUNT => {n}))"
)
QUERIES = [
    "SELECT COUNT(*), SUM(x), MIN(y), MAX(t) FROM {t}",
    "SELECT COUNT(*), SUM(x) FROM {t} WHERE x BETWEEN 100 AND 180 AND y < 0.3",
    "SELECT COUNT(*) FROM {t} WHERE y >= 0.25 AND y < 0.27",
    "SELECT COUNT(*) FROM {t} WHERE x = 500",
    "SELECT s, COUNT(*), SUM(x), MAX(y) FROM {t} WHERE t < '2024-03-01' GROUP BY s ORDER BY s",
    "SELECT x, y, t, s FROM {t} WHERE x < 3 ORDER BY x, y, t",
]


def _answers(cur: Any, table: str) -> list[list[tuple]]:
    return [cur.execute(q.format(t=table)).fetchall() for q in QUERIES]


@pytest.fixture
def twins(cur: Any) -> Any:
    cur.execute("CREATE TABLE plain (x INT, y FLOAT, t TIMESTAMP_NTZ, s VARCHAR)")
    cur.execute("CREATE TABLE clustered (x INT, y FLOAT, t TIMESTAMP_NTZ, s VARCHAR) CLUSTER BY (x, y)")
    for table in ("plain", "clustered"):
        cur.execute(f"INSERT INTO {table} {FILL.format(n=ROWS)}")
    return cur


def test_clustered_table_answers_like_an_unclustered_one_through_changes(twins: Any) -> None:
    cur = twins
    assert _answers(cur, "clustered") == _answers(cur, "plain")
    for table in ("plain", "clustered"):
        cur.execute(f"INSERT INTO {table} {FILL.format(n=700)}")  # an append routed down the tree
        cur.execute(f"UPDATE {table} SET y = y / 2 WHERE x BETWEEN 10 AND 20")
        cur.execute(f"DELETE FROM {table} WHERE s = 'k5'")
        cur.execute(
            f"MERGE INTO {table} d USING (SELECT 7 AS x) src ON d.x = src.x "
            "WHEN MATCHED THEN UPDATE SET s = 'merged'"
        )
    assert _answers(cur, "clustered") == _answers(cur, "plain")
    cur.execute("ALTER TABLE clustered RECLUSTER")
    assert _answers(cur, "clustered") == _answers(cur, "plain")


def test_clustering_information_and_key_changes(twins: Any) -> None:
    cur = twins
    (text,) = cur.execute("SELECT SYSTEM$CLUSTERING_INFORMATION('clustered')").fetchone()
    info = json.loads(text)
    assert info["cluster_by_keys"] == "LINEAR(X, Y)"
    assert info["total_partition_count"] >= 1
    assert info["average_depth"] >= 1
    cur.execute("SHOW TABLES LIKE 'CLUSTERED'")
    names = [d.name for d in cur.description]
    assert cur.fetchone()[names.index("cluster_by")] == "LINEAR(X, Y)"
    (text,) = cur.execute("SELECT SYSTEM$CLUSTERING_INFORMATION('plain', '(x)')").fetchone()
    assert json.loads(text)["cluster_by_keys"] == "LINEAR(X)"
    with pytest.raises(ProgrammingError):
        cur.execute("SELECT SYSTEM$CLUSTERING_INFORMATION('plain')")  # no key and no columns given
    with pytest.raises(ProgrammingError) as err:
        cur.execute("ALTER TABLE plain CLUSTER BY (nope)")
    assert err.value.errno == 904
    cur.execute("ALTER TABLE plain CLUSTER BY (t)")
    cur.execute("ALTER TABLE plain RECLUSTER")  # first clustering: the whole table is laid out
    (text,) = cur.execute("SELECT SYSTEM$CLUSTERING_INFORMATION('plain')").fetchone()
    assert json.loads(text)["cluster_by_keys"] == "LINEAR(T)"
    cur.execute("ALTER TABLE clustered DROP CLUSTERING KEY")
    with pytest.raises(ProgrammingError):
        cur.execute("ALTER TABLE clustered RECLUSTER")


def test_bernoulli_sample_sizes_stay_within_statistical_bounds(twins: Any) -> None:
    cur = twins
    for percent in (1, 10, 50):
        (n,) = cur.execute(f"SELECT COUNT(*) FROM plain SAMPLE ({percent})").fetchone()
        expected = ROWS * percent / 100
        sigma = (ROWS * percent / 100 * (1 - percent / 100)) ** 0.5
        assert abs(n - expected) < 5 * sigma, (percent, n)
    seeded = "SELECT SUM(x), COUNT(*) FROM plain TABLESAMPLE BERNOULLI (20) SEED (42)"
    assert cur.execute(seeded).fetchall() == cur.execute(seeded).fetchall()
    assert cur.execute("SELECT COUNT(*) FROM plain SAMPLE (25 ROWS)").fetchone() == (25,)
    assert cur.execute("SELECT COUNT(*) FROM plain SAMPLE (0)").fetchone() == (0,)
    assert cur.execute("SELECT COUNT(*) FROM plain SAMPLE (100)").fetchone() == (ROWS,)
    with pytest.raises(ProgrammingError):
        cur.execute("SELECT * FROM plain SAMPLE (101)")


def test_system_sample_reads_whole_blocks_repeatably(twins: Any) -> None:
    cur = twins
    seeded = "SELECT COUNT(*), SUM(x) FROM clustered SAMPLE SYSTEM (50) SEED (9)"
    first = cur.execute(seeded).fetchall()
    assert first == cur.execute(seeded).fetchall()
    (n, _) = first[0]
    assert 0 < n < ROWS
    assert cur.execute("SELECT COUNT(*) FROM clustered SAMPLE BLOCK (100)").fetchone() == (ROWS,)
    assert cur.execute("SELECT COUNT(*) FROM clustered SAMPLE BLOCK (0)").fetchone() == (0,)

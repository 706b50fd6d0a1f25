"""The batch jobs: the medallion pipeline from the CLI against a running server, and maintenance."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from embucket_py.spark.jobs import maintenance, medallion, sample_events
from tests.e2e.conftest import Server

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def _gold(cur: Any) -> dict[int, tuple[int, int, Any]]:
    cur.execute("SELECT CUSTOMER_ID, PURCHASES, REFUNDS, NET_AMOUNT FROM GOLD.CUSTOMER_TOTALS ORDER BY 1")
    return {r[0]: (r[1], r[2], r[3]) for r in cur.fetchall()}


def test_medallion_from_cli(
    server: Server, database: str, spark: SparkSession, cat: str, cur: Any, tmp_path: Path
) -> None:
    raw = tmp_path / "raw"
    batches = [sample_events.generate(b, 150, 12) for b in (0, 1)]
    for b, rows in enumerate(batches):
        sample_events.write_batch(raw, b, rows)
    env = {**os.environ, "EMBUCKET_PORT": str(server.port)}
    start = time.monotonic()
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "embucket_py",
            "spark-job",
            "medallion",
            "--database",
            database,
            "--source",
            str(raw),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    print(f"\nmedallion CLI run took {time.monotonic() - start:.1f}s", file=sys.stderr)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "gold: upserted" in result.stdout
    assert _gold(cur) == sample_events.expected_gold(batches)
    cur.execute("SELECT COUNT(*) FROM BRONZE.EVENTS")
    assert cur.fetchone()[0] == sum(len(rows) for rows in batches)

    # A later batch (in this process's session) upserts gold by key and updated_at; replays are no-ops.
    batches.append(sample_events.generate(2, 150, 12))
    sample_events.write_batch(raw, 2, batches[-1])
    args = argparse.Namespace(source=raw, bronze="bronze", silver="silver", gold="gold")
    start = time.monotonic()
    medallion.run(spark, cat, args, print)
    medallion.run(spark, cat, args, print)
    print(f"medallion incremental run took {time.monotonic() - start:.1f}s", file=sys.stderr)
    assert _gold(cur) == sample_events.expected_gold(batches)


def test_maintenance(spark: SparkSession, cat: str, cur: Any) -> None:
    table = f"{cat}.public.small_files"
    spark.sql(f"CREATE TABLE {table} (id BIGINT, name STRING) USING iceberg")
    for i in range(5):
        spark.sql(f"INSERT INTO {table} VALUES ({i}, 'n{i}')")
    location = spark.sql(f"DESCRIBE TABLE EXTENDED {table}").where("col_name = 'Location'").collect()[0][1]
    orphan = Path(location.removeprefix("file:").removeprefix("//")) / "data" / "orphan.parquet"
    orphan.write_bytes(b"not referenced by any snapshot")
    old = time.time() - 4 * 24 * 3600
    os.utime(orphan, (old, old))

    args = argparse.Namespace(
        tables=["public.small_files"],
        target_file_size_mb=128,
        min_input_files=2,
        retain_last=1,
        expire_older_than_hours=0,
        orphan_older_than_hours=72,
        skip=[],
    )
    maintenance.run(spark, cat, args, print)
    assert spark.sql(f"SELECT count(*) FROM {table}.files").collect()[0][0] == 1
    assert spark.sql(f"SELECT count(*) FROM {table}.snapshots").collect()[0][0] == 1
    assert not orphan.exists()
    cur.execute("SELECT COUNT(*), SUM(ID) FROM SMALL_FILES")
    assert cur.fetchall() == [(5, 10)]

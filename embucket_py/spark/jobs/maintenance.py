"""Table maintenance through Iceberg's Spark procedures: compaction of small data files into
target-size files, snapshot expiry, and orphan-file removal, for the given tables or every table
of the database's schemas.

Commits go through the server's REST catalog like any other writer, so concurrent SQL writes are
safe: a conflicting compaction commit is retried or fails without losing data.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("tables", nargs="*", help="schema.table names (default: every table)")
    parser.add_argument("--target-file-size-mb", type=int, default=128)
    parser.add_argument(
        "--min-input-files", type=int, default=2, help="compact a group of at least this many"
    )
    parser.add_argument("--retain-last", type=int, default=1, help="snapshots to keep")
    parser.add_argument(
        "--expire-older-than-hours", type=float, default=0, help="expire snapshots older than this (0 = now)"
    )
    parser.add_argument(
        "--orphan-older-than-hours",
        type=float,
        default=72,
        help="delete unreferenced files older than this; young files may belong to commits in flight",
    )
    parser.add_argument("--skip", action="append", default=[], choices=("compact", "expire", "orphans"))


def run(spark: SparkSession, catalog: str, args: argparse.Namespace, say: Callable[[str], None]) -> None:
    tables = args.tables or all_tables(spark, catalog)
    for table in tables:
        if "compact" not in args.skip:
            row = spark.sql(
                f"""CALL {catalog}.system.rewrite_data_files(table => '{table}', options => map(
                    'target-file-size-bytes', '{args.target_file_size_mb * 1024 * 1024}',
                    'min-input-files', '{args.min_input_files}'))"""
            ).collect()[0]
            say(f"{table}: compacted {row[0]} files into {row[1]}")
        if "expire" not in args.skip:
            cutoff = _ts(datetime.now(UTC) - timedelta(hours=args.expire_older_than_hours))
            row = spark.sql(
                f"""CALL {catalog}.system.expire_snapshots(table => '{table}',
                    older_than => TIMESTAMP '{cutoff}', retain_last => {args.retain_last})"""
            ).collect()[0]
            say(f"{table}: expired snapshots, deleted {row[0]} data, {row[3]} manifest, {row[4]} list files")
        if "orphans" not in args.skip:
            cutoff = _ts(datetime.now(UTC) - timedelta(hours=args.orphan_older_than_hours))
            rows = spark.sql(
                f"""CALL {catalog}.system.remove_orphan_files(table => '{table}',
                    older_than => TIMESTAMP '{cutoff}')"""
            ).collect()
            say(f"{table}: removed {len(rows)} orphan files")


def all_tables(spark: SparkSession, catalog: str) -> list[str]:
    return [
        f"{namespace}.{row['tableName']}"
        for (namespace,) in spark.sql(f"SHOW NAMESPACES IN {catalog}").collect()
        for row in spark.sql(f"SHOW TABLES IN {catalog}.{namespace}").collect()
    ]


def _ts(moment: datetime) -> str:
    # The session time zone is UTC (see session.py), so this literal means the same instant.
    return moment.strftime("%Y-%m-%d %H:%M:%S.%f")

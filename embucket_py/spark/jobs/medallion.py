"""Medallion pipeline: raw JSON/CSV events -> bronze (as ingested) -> silver (typed, de-duplicated)
-> gold (per-customer aggregates), all Iceberg tables of one database on the server's REST catalog.

Re-runnable: files already in bronze are skipped; silver and gold are maintained with MERGE upserts
on their key and updated_at, so replays and late corrections converge to the same result.
Snowflake clients see EMBUCKET.BRONZE.EVENTS, EMBUCKET.SILVER.EVENTS, EMBUCKET.GOLD.CUSTOMER_TOTALS.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

RAW_COLUMNS = ("event_id", "customer_id", "event_type", "amount", "updated_at")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--source", required=True, type=Path, help="directory of raw *.json / *.csv files")
    parser.add_argument("--bronze", default="bronze", help="schema of the bronze table")
    parser.add_argument("--silver", default="silver", help="schema of the silver table")
    parser.add_argument("--gold", default="gold", help="schema of the gold table")


def run(spark: SparkSession, catalog: str, args: argparse.Namespace, say: Callable[[str], None]) -> None:
    from pyspark.sql import functions as F

    bronze, silver, gold = (f"{catalog}.{args.bronze}", f"{catalog}.{args.silver}", f"{catalog}.{args.gold}")
    for namespace in (bronze, silver, gold):
        spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {namespace}")
    create_tables(spark, bronze, silver, gold)

    raw = read_new_files(spark, args.source.resolve(), f"{bronze}.events")
    if raw is None:
        say("no new files: nothing to do")
        return
    raw.writeTo(f"{bronze}.events").append()
    # Downstream reads the rows back from bronze: a deterministic source, which MERGE requires.
    files = [r[0] for r in raw.select("source_file").distinct().collect()]
    batch = spark.table(f"{bronze}.events").where(F.col("source_file").isin(files))
    rows = batch.count()
    say(f"bronze: appended {rows} raw rows from {len(files)} files to {bronze}.events")

    typed = enforce_schema(batch)
    typed.createOrReplaceTempView("medallion_batch")
    valid = typed.count()
    say(f"silver: {valid} valid rows, {rows - valid} rejected by schema enforcement")
    spark.sql(
        f"""
        MERGE INTO {silver}.events t
        USING (
            SELECT event_id, customer_id, event_type, amount, updated_at FROM (
                SELECT *, row_number() OVER (PARTITION BY event_id ORDER BY updated_at DESC) AS rn
                FROM medallion_batch
            ) WHERE rn = 1
        ) s
        ON t.event_id = s.event_id
        WHEN MATCHED AND s.updated_at > t.updated_at THEN UPDATE SET *
        WHEN NOT MATCHED THEN INSERT *
        """
    )
    say(f"silver: merged into {silver}.events ({_count(spark, f'{silver}.events')} rows)")

    spark.sql(
        f"""
        MERGE INTO {gold}.customer_totals t
        USING (
            SELECT customer_id,
                   CAST(count_if(event_type = 'purchase') AS BIGINT) AS purchases,
                   CAST(count_if(event_type = 'refund') AS BIGINT) AS refunds,
                   CAST(sum(CASE WHEN event_type = 'purchase' THEN amount ELSE -amount END)
                        AS DECIMAL(18, 2)) AS net_amount,
                   max(updated_at) AS updated_at
            FROM {silver}.events
            WHERE customer_id IN (SELECT DISTINCT customer_id FROM medallion_batch)
            GROUP BY customer_id
        ) s
        ON t.customer_id = s.customer_id
        WHEN MATCHED AND s.updated_at >= t.updated_at THEN UPDATE SET *
        WHEN NOT MATCHED THEN INSERT *
        """
    )
    say(f"gold: upserted {gold}.customer_totals ({_count(spark, f'{gold}.customer_totals')} customers)")


def create_tables(spark: SparkSession, bronze: str, silver: str, gold: str) -> None:
    spark.sql(
        f"""CREATE TABLE IF NOT EXISTS {bronze}.events (
            event_id STRING, customer_id STRING, event_type STRING, amount STRING, updated_at STRING,
            source_file STRING, ingested_at TIMESTAMP) USING iceberg"""
    )
    spark.sql(
        f"""CREATE TABLE IF NOT EXISTS {silver}.events (
            event_id STRING NOT NULL, customer_id BIGINT NOT NULL, event_type STRING NOT NULL,
            amount DECIMAL(12, 2) NOT NULL, updated_at TIMESTAMP NOT NULL) USING iceberg"""
    )
    spark.sql(
        f"""CREATE TABLE IF NOT EXISTS {gold}.customer_totals (
            customer_id BIGINT NOT NULL, purchases BIGINT, refunds BIGINT, net_amount DECIMAL(18, 2),
            updated_at TIMESTAMP) USING iceberg"""
    )


def read_new_files(spark: SparkSession, source: Path, bronze_table: str) -> DataFrame | None:
    """Raw rows of the files not yet in bronze, all columns as strings, with their file and time."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType, StructField, StructType

    done = {r[0] for r in spark.sql(f"SELECT DISTINCT source_file FROM {bronze_table}").collect()}
    schema = StructType([StructField(c, StringType()) for c in RAW_COLUMNS])
    frames = []
    for pattern, reader in (
        ("*.json", lambda paths: spark.read.schema(schema).json(paths)),
        ("*.csv", lambda paths: spark.read.schema(schema).option("header", "true").csv(paths)),
    ):
        paths = [str(p) for p in sorted(source.glob(pattern)) if p.name not in done]
        if paths:
            frames.append(reader(paths))
    if not frames:
        return None
    frame = frames[0]
    for other in frames[1:]:
        frame = frame.unionByName(other)
    # The file name, not the path: re-ingesting a moved folder must not duplicate rows.
    return frame.withColumn("source_file", F.regexp_extract(F.input_file_name(), r"([^/]+)$", 1)).withColumn(
        "ingested_at", F.current_timestamp()
    )


def enforce_schema(raw: DataFrame) -> DataFrame:
    """Typed rows; rows whose values do not fit the silver schema are dropped."""
    from pyspark.sql import functions as F

    typed = raw.select(
        F.trim("event_id").alias("event_id"),
        F.col("customer_id").cast("bigint").alias("customer_id"),
        F.lower(F.trim("event_type")).alias("event_type"),
        F.col("amount").cast("decimal(12,2)").alias("amount"),
        F.to_timestamp("updated_at").alias("updated_at"),
    )
    return typed.where(
        "event_id IS NOT NULL AND event_id <> '' AND customer_id > 0 AND amount IS NOT NULL"
        " AND updated_at IS NOT NULL AND event_type IN ('purchase', 'refund')"
    )


def _count(spark: SparkSession, table: str) -> int:
    return int(spark.sql(f"SELECT count(*) FROM {table}").collect()[0][0])

"""Spark and Snowflake clients on the same tables, through the server's own Iceberg REST catalog."""

from __future__ import annotations

import datetime as dt
import threading
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from tests.e2e.conftest import Server

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# Snowflake connector type codes (snowflake.connector.constants.FIELD_TYPES).
FIXED, REAL, TEXT, DATE, TIMESTAMP_LTZ, TIMESTAMP_NTZ, BOOLEAN = 0, 1, 2, 3, 6, 8, 13


def test_spark_writes_server_reads(spark: SparkSession, cat: str, cur: Any) -> None:
    spark.sql(
        f"""CREATE TABLE {cat}.public.events (id INT, name STRING, ts TIMESTAMP, ts_ntz TIMESTAMP_NTZ,
            amount DECIMAL(10, 2), day DATE, score DOUBLE, ok BOOLEAN, big BIGINT) USING iceberg"""
    )
    spark.sql(
        f"""INSERT INTO {cat}.public.events VALUES
            (1, 'a', TIMESTAMP '2024-01-01 10:00:00', TIMESTAMP_NTZ '2024-01-01 10:00:00', 1.50,
             DATE '2024-01-01', 1.5, true, 10000000000),
            (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)"""
    )
    cur.execute("SELECT * FROM PUBLIC.EVENTS ORDER BY ID")
    assert [(d.name, d.type_code) for d in cur.description] == [
        ("ID", FIXED),
        ("NAME", TEXT),
        ("TS", TIMESTAMP_LTZ),
        ("TS_NTZ", TIMESTAMP_NTZ),
        ("AMOUNT", FIXED),
        ("DAY", DATE),
        ("SCORE", REAL),
        ("OK", BOOLEAN),
        ("BIG", FIXED),
    ]
    first, second = cur.fetchall()
    assert first[0:2] == (1, "a")
    assert first[2] == dt.datetime(2024, 1, 1, 10, tzinfo=dt.UTC)
    assert first[3] == dt.datetime(2024, 1, 1, 10)
    assert first[4:] == (Decimal("1.50"), dt.date(2024, 1, 1), 1.5, True, 10000000000)
    assert second == (2, None, None, None, None, None, None, None, None)
    cur.execute("SELECT SUM(ID), COUNT(NAME) FROM EVENTS")
    assert cur.fetchall() == [(3, 1)]


def test_server_writes_spark_reads(spark: SparkSession, cat: str, cur: Any) -> None:
    cur.execute("CREATE TABLE ORDERS (ID INT, NAME VARCHAR(20), AMOUNT NUMBER(10,2), TS TIMESTAMP_NTZ)")
    cur.execute("INSERT INTO ORDERS VALUES (1, 'a', 1.50, '2024-01-01 10:00:00'), (2, 'b', 2.25, NULL)")
    rows = spark.sql(f"SELECT id, name, amount, ts FROM {cat}.public.orders ORDER BY id").collect()
    assert [tuple(r) for r in rows] == [
        (1, "a", Decimal("1.50"), dt.datetime(2024, 1, 1, 10)),
        (2, "b", Decimal("2.25"), None),
    ]
    # Spark sees new SQL commits immediately (its catalog cache is off), and appends in turn.
    cur.execute("INSERT INTO ORDERS VALUES (3, 'c', 3.00, NULL)")
    assert spark.sql(f"SELECT count(*) FROM {cat}.PUBLIC.ORDERS").collect()[0][0] == 3
    spark.sql(f"INSERT INTO {cat}.public.orders VALUES (4, 'd', 4.00, NULL)")
    cur.execute("SELECT COUNT(*), SUM(AMOUNT) FROM ORDERS")
    assert cur.fetchall() == [(4, Decimal("10.75"))]


def test_spark_merge_while_server_reads(spark: SparkSession, cat: str, server: Server, database: str) -> None:
    """Every read sees one whole version of the table: all rows before a MERGE or all after."""
    rows = 200
    spark.sql(
        f"""CREATE TABLE {cat}.public.accounts (id BIGINT, version INT) USING iceberg
            TBLPROPERTIES ('write.merge.mode' = 'merge-on-read', 'write.update.mode' = 'merge-on-read')"""
    )
    spark.range(rows).selectExpr("id", "0 AS version").writeTo(f"{cat}.public.accounts").append()
    seen: list[tuple[int, int, int]] = []
    errors: list[BaseException] = []
    done = threading.Event()

    def reader() -> None:
        try:
            with server.connect(database=database, schema="PUBLIC") as conn, conn.cursor() as c:
                while not done.is_set():
                    c.execute("SELECT COUNT(*), MIN(VERSION), MAX(VERSION) FROM ACCOUNTS")
                    seen.append(c.fetchone())
        except BaseException as e:
            errors.append(e)

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        for version in (1, 2, 3):
            spark.sql(
                f"""MERGE INTO {cat}.public.accounts t
                    USING (SELECT id, {version} AS version FROM {cat}.public.accounts) s ON t.id = s.id
                    WHEN MATCHED THEN UPDATE SET version = s.version"""
            )
    finally:
        done.set()
        thread.join()
    assert errors == []
    assert seen, "the reader never completed a query"
    assert all(count == rows and low == high for count, low, high in seen), seen
    with server.connect(database=database, schema="PUBLIC") as conn, conn.cursor() as c:
        c.execute("SELECT COUNT(*), MIN(VERSION), MAX(VERSION) FROM ACCOUNTS")
        assert c.fetchone() == (rows, 3, 3)


def test_concurrent_spark_and_server_commits(
    spark: SparkSession, cat: str, server: Server, database: str, cur: Any
) -> None:
    """Spark and SQL INSERTs race on one table: conflicting commits retry and no row is lost."""
    cur.execute("CREATE TABLE HITS (ID INT, SOURCE VARCHAR)")
    errors: list[BaseException] = []
    batches = 6

    def sql_writer() -> None:
        try:
            with server.connect(database=database, schema="PUBLIC") as conn, conn.cursor() as c:
                for i in range(batches):
                    c.execute(f"INSERT INTO HITS VALUES ({1000 + i}, 'sql'), ({2000 + i}, 'sql')")
        except BaseException as e:
            errors.append(e)

    thread = threading.Thread(target=sql_writer)
    thread.start()
    try:
        for i in range(batches):
            spark.sql(f"INSERT INTO {cat}.public.hits VALUES ({i}, 'spark')")
    finally:
        thread.join()
    assert errors == []
    cur.execute("SELECT SOURCE, COUNT(*), COUNT(DISTINCT ID) FROM HITS GROUP BY SOURCE ORDER BY SOURCE")
    assert cur.fetchall() == [("spark", batches, batches), ("sql", 2 * batches, 2 * batches)]
    snapshots = spark.sql(f"SELECT count(*) FROM {cat}.public.hits.snapshots").collect()[0][0]
    assert snapshots == 2 * batches  # one snapshot per INSERT statement, none lost


def test_spark_views_schema_evolution_and_row_changes(spark: SparkSession, cat: str, cur: Any) -> None:
    cur.execute("CREATE TABLE ITEMS (ID INT, NAME VARCHAR)")
    cur.execute("INSERT INTO ITEMS VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    spark.sql(f"ALTER TABLE {cat}.public.items ADD COLUMN price DECIMAL(8, 2)")
    spark.sql(f"UPDATE {cat}.public.items SET price = 9.99 WHERE id = 1")
    spark.sql(f"DELETE FROM {cat}.public.items WHERE id = 3")
    cur.execute("SELECT ID, NAME, PRICE FROM ITEMS ORDER BY ID")
    assert cur.fetchall() == [(1, "a", Decimal("9.99")), (2, "b", None)]

    spark.sql(f"CREATE VIEW {cat}.public.cheap AS SELECT id FROM {cat}.public.items WHERE price IS NULL")
    assert [r[1] for r in spark.sql(f"SHOW VIEWS IN {cat}.public").collect()] == ["cheap"]
    assert [r[0] for r in spark.sql(f"SELECT * FROM {cat}.public.cheap").collect()] == [2]
    spark.sql(f"CREATE OR REPLACE VIEW {cat}.public.cheap AS SELECT id FROM {cat}.public.items")
    assert spark.sql(f"SELECT count(*) FROM {cat}.public.cheap").collect()[0][0] == 2
    spark.sql(f"DROP VIEW {cat}.public.cheap")
    assert spark.sql(f"SHOW VIEWS IN {cat}.public").collect() == []


def test_a_stream_reads_sparks_merge_on_read_changes(spark: SparkSession, cat: str, cur: Any) -> None:
    """Spark's DELETE and UPDATE in merge-on-read mode write delete files, not new data files: a
    stream still sees exactly the rows they removed and wrote."""
    spark.sql(
        f"""CREATE TABLE {cat}.public.mor (id BIGINT, v STRING) USING iceberg
            TBLPROPERTIES ('write.delete.mode' = 'merge-on-read', 'write.update.mode' = 'merge-on-read')"""
    )
    spark.sql(f"INSERT INTO {cat}.public.mor VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    cur.execute("CREATE STREAM mor_changes ON TABLE mor")
    cur.execute("CREATE TABLE mor_sink (id INT, v TEXT, action TEXT)")
    spark.sql(f"DELETE FROM {cat}.public.mor WHERE id = 2")
    spark.sql(f"UPDATE {cat}.public.mor SET v = 'C' WHERE id = 3")
    deletes = spark.sql(f"SELECT COUNT(*) FROM {cat}.public.mor.delete_files").collect()[0][0]
    assert deletes >= 1  # the changes really are delete files
    cur.execute("SELECT id, v, METADATA$ACTION FROM mor_changes ORDER BY id, METADATA$ACTION")
    assert cur.fetchall() == [(2, "b", "DELETE"), (3, "c", "DELETE"), (3, "C", "INSERT")]
    cur.execute("INSERT INTO mor_sink SELECT id, v, METADATA$ACTION FROM mor_changes")
    assert cur.execute("SELECT COUNT(*) FROM mor_changes").fetchone() == (0,)
    assert cur.execute("SELECT COUNT(*) FROM mor_sink").fetchone() == (3,)

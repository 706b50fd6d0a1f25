"""`embucket-py spark-job recluster`: Spark rewrites, through the REST catalog, exactly the files
ALTER TABLE ... RECLUSTER would (straddling and small ones), one file per subtree, in one commit."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from embucket_py.layout.keys import matrix
from embucket_py.layout.tree import CubeTree, build
from embucket_py.spark.jobs import recluster
from embucket_py.spark.runner import job_parser

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

FILL = (
    "SELECT (seq4() * 7919 + {o}) % 1000 AS a, (seq4() * 104729 + {o}) % 1000 AS b, "
    "'{tag}' || seq4() AS s FROM TABLE(GENERATOR(ROWCOUNT => {n}))"
)
CHECK = "SELECT COUNT(*), SUM(a), SUM(b), SUM(HASH(a, b, s)) FROM ev"
BOX = "SELECT COUNT(*) FROM ev WHERE a BETWEEN 100 AND 180 AND b BETWEEN 600 AND 650"


def _files(spark: SparkSession, name: str) -> dict[str, int]:
    rows = spark.sql(f"SELECT file_path, record_count FROM {name}.files").collect()
    return {r[0]: r[1] for r in rows}


def _snapshots(spark: SparkSession, name: str) -> int:
    return int(spark.sql(f"SELECT COUNT(*) FROM {name}.snapshots").collect()[0][0])


def _depth(cur: Any, table: str) -> float:
    (text,) = cur.execute(f"SELECT SYSTEM$CLUSTERING_INFORMATION('{table}')").fetchone()
    return float(json.loads(text)["average_depth"])


def _files_scanned(cur: Any, query: str) -> tuple[int, int]:
    cur.execute("ALTER SESSION SET USE_CACHED_RESULT = FALSE")  # the files a run reads, never a reuse
    cur.execute(query)
    query_id = cur.sfqid
    cur.execute(
        "SELECT partitions_scanned, partitions_total FROM "
        "TABLE(INFORMATION_SCHEMA.QUERY_HISTORY_BY_SESSION(RESULT_LIMIT => 50)) "
        f"WHERE query_id = '{query_id}'"
    )
    scanned, total = cur.fetchone()
    return int(scanned), int(total)


def _local(location: str) -> Path:
    return Path(location.removeprefix("file:").removeprefix("//"))


def _tree_with_four_files(spark: SparkSession, name: str) -> None:
    """The table's tree cut into four files (subtrees), as a table of some million rows would be:
    the test keeps its data small."""
    location = spark.sql(f"SHOW TBLPROPERTIES {name} ('embucket.clustering-tree')").collect()[0][1]
    tree = CubeTree.from_json(_local(location).read_text())
    assert tree.depth >= 2
    finer = CubeTree(tree.columns, tree.depth, 2, tree.splits, tree.rows)
    target = _local(location).with_name("clustering-four-files.json")
    target.write_text(finer.to_json())
    spark.sql(f"ALTER TABLE {name} SET TBLPROPERTIES ('embucket.clustering-tree' = 'file://{target}')")


def test_rewrites_only_straddling_and_small_files_like_sql_recluster(
    spark: SparkSession, cat: str, cur: Any
) -> None:
    name = f"{cat}.public.ev"
    cur.execute("CREATE TABLE ev (a INT, b INT, s VARCHAR) CLUSTER BY (a, b)")
    cur.execute("INSERT INTO ev " + FILL.format(o=0, tag="base", n=20_000))
    _tree_with_four_files(spark, name)
    cur.execute("ALTER TABLE ev RECLUSTER")  # the one file straddles the four subtrees now
    full = _files(spark, name)
    assert len(full) == 4
    for i in range(3):  # small SQL appends: routed, one small file per subtree each
        cur.execute("INSERT INTO ev " + FILL.format(o=i + 1, tag=f"sql{i}", n=400))
    for i in range(2):  # Spark knows nothing of the tree: its files straddle subtrees
        spark.sql(
            f"INSERT INTO {name} SELECT (id * 37 + {i}) % 1000, (id * 53 + {i}) % 1000, "
            f"concat('spark{i}-', id) FROM range(600)"
        )
    before = _files(spark, name)
    assert len(before) > 12
    rows_before = cur.execute(CHECK).fetchall()
    depth_before = _depth(cur, "ev")
    scanned_before, _ = _files_scanned(cur, BOX)
    answer_before = cur.execute(BOX).fetchall()

    outcome = recluster.recluster_table(spark, name)

    after = _files(spark, name)
    assert outcome.files_rewritten == len(before) - 4 and outcome.files_written == 4
    assert outcome.rows_before == outcome.rows_after == 3 * 400 + 2 * 600
    assert outcome.bytes_rewritten > 0 and outcome.bytes_added > 0 and outcome.amplification > 0
    assert "files rewritten -> 4 files written" in outcome.describe()
    assert set(full) <= set(after)  # the full subtree files were not touched
    assert not (set(before) - set(full)) & set(after)  # every small or straddling file is gone
    assert len(after) == 8
    assert cur.execute(CHECK).fetchall() == rows_before
    assert cur.execute(BOX).fetchall() == answer_before
    assert _depth(cur, "ev") < depth_before
    scanned_after, total_after = _files_scanned(cur, BOX)
    assert scanned_after < scanned_before and total_after == 8

    snapshots = _snapshots(spark, name)
    cur.execute("ALTER TABLE ev RECLUSTER")  # the server's own rule finds nothing left
    assert _snapshots(spark, name) == snapshots
    assert recluster.recluster_table(spark, name).skipped == "nothing to recluster"


def test_builds_the_tree_keeps_concurrent_inserts_and_skips_unclustered_tables(
    spark: SparkSession, cat: str, cur: Any
) -> None:
    name = f"{cat}.public.ev"
    cur.execute("CREATE TABLE ev (a INT, b INT, s VARCHAR)")
    cur.execute("CREATE TABLE plain (a INT)")
    cur.execute("INSERT INTO plain VALUES (1)")
    for i in range(3):
        cur.execute("INSERT INTO ev " + FILL.format(o=i, tag=f"sql{i}", n=3_000))
    cur.execute("ALTER TABLE ev CLUSTER BY (b, a)")  # no tree yet: the job lays the table out
    rows_before = cur.execute(CHECK).fetchall()

    def insert_meanwhile() -> None:  # commits between the job's write and its commit
        cur.execute("INSERT INTO ev " + FILL.format(o=9, tag="late", n=50))

    outcome = recluster.recluster_table(spark, name, before_commit=insert_meanwhile)

    assert outcome.rebuilt and outcome.files_rewritten == 3 and outcome.rows_after == 9_000
    cur.execute("SELECT COUNT(*) FROM ev WHERE s LIKE 'late%'")
    assert cur.fetchone()[0] == 50
    assert cur.execute(CHECK.replace("FROM ev", "FROM ev WHERE s NOT LIKE 'late%'")).fetchall() == rows_before
    location = spark.sql(f"SHOW TBLPROPERTIES {name} ('embucket.clustering-tree')").collect()[0][1]
    tree = CubeTree.from_json(_local(location).read_text())
    assert tree.columns == ["b", "a"] and tree.rows == 9_000  # built by the job over the rewritten rows
    keys = cur.execute("SELECT b, a FROM ev WHERE s NOT LIKE 'late%'").fetchall()
    coords = matrix(pa.table({"b": [k[0] for k in keys], "a": [k[1] for k in keys]}), ["b", "a"])
    server_tree = build(["b", "a"], coords)  # what the server builds from the same rows
    assert (tree.depth, tree.file_depth) == (server_tree.depth, server_tree.file_depth)
    assert np.array_equal(tree.splits, server_tree.splits)
    assert len(_files(spark, name)) == 1 + 1  # the job's file and the late insert's

    said: list[str] = []
    recluster.run(spark, cat, argparse.Namespace(tables=[]), said.append)
    assert any(line.startswith("public.plain: no clustering key, skipped") for line in said)
    assert any(line.startswith("public.ev: ") for line in said)
    assert "public.ev: nothing to recluster" in said

    # Two more small files: the job would compact them with the late one, but SQL RECLUSTER does it
    # first; the job's commit then fails validation (its files are gone) and a second plan finds
    # nothing left.
    for i in range(2):
        cur.execute("INSERT INTO ev " + FILL.format(o=20 + i, tag=f"more{i}", n=30))
    rows_before = cur.execute(CHECK).fetchall()
    hook_ran: list[bool] = []

    def recluster_meanwhile() -> None:
        cur.execute("ALTER TABLE ev RECLUSTER")
        hook_ran.append(True)

    outcome = recluster.recluster_table(spark, name, before_commit=recluster_meanwhile)
    assert hook_ran == [True]  # the job had chosen files, written them, and then lost the race
    assert outcome.skipped == "nothing to recluster"
    assert cur.execute(CHECK).fetchall() == rows_before
    (count,) = cur.execute("SELECT COUNT(*) FROM ev").fetchone()
    assert count == 9_110 and len(_files(spark, name)) == 2


def test_the_job_is_registered() -> None:
    args = job_parser("recluster").parse_args(["public.ev", "public.other", "--database", "D"])
    assert args.tables == ["public.ev", "public.other"] and args.database == "D"


def test_rows_deleted_by_spark_stay_deleted_through_both_reclusters(
    spark: SparkSession, cat: str, cur: Any
) -> None:
    for table in ("by_sql", "by_spark"):
        cur.execute(f"CREATE TABLE {table} (a INT, b INT, s VARCHAR) CLUSTER BY (a)")
        for i in range(3):  # three small files in the one subtree: both reclusters compact them
            cur.execute(f"INSERT INTO {table} " + FILL.format(o=i, tag=f"sql{i}", n=500))
        name = f"{cat}.public.{table}"
        spark.sql(f"ALTER TABLE {name} SET TBLPROPERTIES ('write.delete.mode' = 'merge-on-read')")
        spark.sql(f"DELETE FROM {name} WHERE a < 300")  # position delete files, not rewritten files
        assert spark.sql(f"SELECT COUNT(*) FROM {name}.delete_files").collect()[0][0] > 0
    expected = cur.execute("SELECT COUNT(*), SUM(a), MIN(a) FROM by_sql").fetchall()
    assert expected[0][0] < 1_500 and expected[0][2] >= 300
    cur.execute("ALTER TABLE by_sql RECLUSTER")
    outcome = recluster.recluster_table(spark, f"{cat}.public.by_spark")
    assert outcome.files_rewritten == 3 and outcome.rows_after == expected[0][0]
    for table in ("by_sql", "by_spark"):
        assert cur.execute(f"SELECT COUNT(*), SUM(a), MIN(a) FROM {table}").fetchall() == expected


def test_timestamp_and_text_keys_route_as_the_server_routes(spark: SparkSession, cat: str, cur: Any) -> None:
    name = f"{cat}.public.ev"
    cur.execute("CREATE TABLE ev (t TIMESTAMP_NTZ, s VARCHAR, n INT) CLUSTER BY (t, s)")
    fill = (
        "SELECT DATEADD(second, (seq4() * 7919 + {o}) % 5000000, '2024-01-01'::TIMESTAMP_NTZ) AS t, "
        "'k' || ((seq4() * 104729 + {o}) % 977) AS s, seq4() AS n FROM TABLE(GENERATOR(ROWCOUNT => {n}))"
    )
    cur.execute("INSERT INTO ev " + fill.format(o=0, n=20_000))
    _tree_with_four_files(spark, name)
    cur.execute("ALTER TABLE ev RECLUSTER")
    for i in range(2):
        cur.execute("INSERT INTO ev " + fill.format(o=i + 1, n=300))
    spark.sql(
        f"INSERT INTO {name} SELECT TIMESTAMP_NTZ '2024-01-01 00:00:00' + make_interval(0, 0, 0, 0, 0, 0, "
        f"(id * 9973) % 5000000), concat('k', (id * 31) % 977), id FROM range(500)"
    )
    rows_before = cur.execute("SELECT COUNT(*), SUM(n), MIN(t), MAX(t), MIN(s), MAX(s) FROM ev").fetchall()

    outcome = recluster.recluster_table(spark, name)  # checks every new file sits in one subtree

    assert outcome.files_written == 4 and outcome.rows_after == 2 * 300 + 500
    assert (
        cur.execute("SELECT COUNT(*), SUM(n), MIN(t), MAX(t), MIN(s), MAX(s) FROM ev").fetchall()
        == rows_before
    )
    snapshots = _snapshots(spark, name)
    cur.execute("ALTER TABLE ev RECLUSTER")  # the server sees each new file in one subtree too
    assert _snapshots(spark, name) == snapshots


def test_partition_keys_hash_as_spark_does(spark: SparkSession) -> None:
    values = [0, 1, 2, 41, 42, 1 << 31, (1 << 40) + 3, -1, -(1 << 50)]
    rows = spark.sql(
        "SELECT v, hash(v) FROM VALUES " + ", ".join(f"(CAST({v} AS BIGINT))" for v in values) + " AS t(v)"
    ).collect()
    ours = recluster._murmur3_long(np.array([r[0] for r in rows], dtype=np.int64)).tolist()
    assert ours == [r[1] for r in rows]
    keys = recluster._partition_keys(spark, 5)
    placed = spark.createDataFrame([(int(k),) for k in keys], "k BIGINT").repartition(5, "k")
    partitions = placed.rdd.glom().map(lambda part: [r[0] for r in part]).collect()
    assert partitions == [[int(k)] for k in keys]  # key p lands in partition p, one key each

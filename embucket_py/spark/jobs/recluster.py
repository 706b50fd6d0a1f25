"""RECLUSTER in Spark through the server's REST catalog: what `ALTER TABLE t RECLUSTER` does, for the
given clustered tables (schema.table) or every clustered table of the database.

The driver decides, with the server's own rule (embucket_py.layout.rewrite), which data files to
rewrite: files straddling subtrees of the table's cube tree (e.g. written by Spark, which does not
know the tree) and small files sharing a subtree; or, when the table has no tree yet or outgrew
it, all files under a newly built tree, stored as the server stores it. Spark reads exactly those
files (Iceberg's staged scan tasks), routes every row down the tree (vectorized, in mapInArrow:
Arrow keeps the types the layout's coordinates read, where pandas would turn timestamps into
nanoseconds), moves each subtree to its own Spark partition, sorts it by leaf and writes it as one
file, in row groups of about one leaf. The new
files replace the old ones in ONE Iceberg rewrite commit (with the tree, when it is new); rows
appended meanwhile stay (Iceberg re-applies the rewrite on top of them); if the rewritten files
changed meanwhile, the table is planned and rewritten once more.
"""

from __future__ import annotations

import argparse
import json
import logging
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
from pyiceberg.schema import Schema

from embucket_py.layout.clustering import KEY_PROPERTY, TREE_PROPERTY, tree_location
from embucket_py.layout.files import bounds_box
from embucket_py.layout.keys import matrix
from embucket_py.layout.rewrite import files_to_rewrite, needs_rebuild, slots_of
from embucket_py.layout.tree import SAMPLE_ROWS, CubeTree, build
from embucket_py.spark.jobs.maintenance import all_tables

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

log = logging.getLogger(__name__)

# Helper columns of the routed rows (dropped before writing).
LEAF, PART = "__embucket_leaf", "__embucket_part"
# One subtree is one file, whatever its size (as the server writes them).
ONE_FILE = str(1 << 50)
# Row groups of the new files: Iceberg's Parquet writer cuts them by buffered (uncompressed) bytes;
# a leaf's compressed bytes in the table times this is about one leaf of rows.
ROW_GROUP_PROPERTY = "write.parquet.row-group-size-bytes"
LEAF_BYTES_FACTOR = 4
LEAF_BYTES_FLOOR = 1 << 16
# The seed of Spark's Murmur3Hash, which HashPartitioning uses.
SPARK_HASH_SEED = 42
# Snapshot summary mark of a recluster commit (the server's RECLUSTER sets the same).
OPERATION = "embucket.operation"
CONFLICTS = (
    "org.apache.iceberg.exceptions.CommitFailedException",
    "org.apache.iceberg.exceptions.ValidationException",
)
Hook = Callable[[], None]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("tables", nargs="*", help="schema.table names (default: every clustered table)")


def run(spark: SparkSession, catalog: str, args: argparse.Namespace, say: Callable[[str], None]) -> None:
    failed = 0
    for name in args.tables or all_tables(spark, catalog):
        try:
            outcome = recluster_table(spark, f"{catalog}.{name}")
        except Exception as e:  # one table's failure must not stop the others
            failed += 1
            if any(m in str(e)[:300] for m in ("TABLE_OR_VIEW_NOT_FOUND", "NoSuchTable")):
                say(f"{name}: table not found")
            else:
                log.exception("recluster of %s failed", name)
                say(f"{name}: failed: {str(e).strip().splitlines()[0][:300]}")
            continue
        say(f"{name}: {outcome.describe()}")
    if failed:
        raise SystemExit(1)


@dataclass(frozen=True)
class Outcome:
    skipped: str | None = None  # why nothing was rewritten
    rebuilt: bool = False
    files_rewritten: int = 0
    files_written: int = 0
    bytes_rewritten: int = 0
    bytes_written: int = 0
    rows_before: int = 0
    rows_after: int = 0
    bytes_added: int = 0  # written into the table since its last recluster

    @property
    def amplification(self) -> float:
        return self.bytes_written / self.bytes_added if self.bytes_added else float("nan")

    def describe(self) -> str:
        if self.skipped:
            return self.skipped
        tree = "new cube tree, " if self.rebuilt else ""
        return (
            f"{tree}{self.files_rewritten} files rewritten -> {self.files_written} files written, "
            f"{self.bytes_rewritten:,} bytes rewritten ({self.bytes_written:,} written), "
            f"rows {self.rows_before:,} -> {self.rows_after:,}, rewrite amplification "
            f"{self.amplification:.2f}x ({self.bytes_written:,} bytes written / {self.bytes_added:,} "
            "bytes added since the last recluster)"
        )


def recluster_table(spark: SparkSession, name: str, before_commit: Hook | None = None) -> Outcome:
    """Reclusters one table (catalog.schema.table). `before_commit` runs between writing the new
    files and committing them (tests use it to commit something concurrently)."""
    try:
        return _recluster(spark, name, before_commit)
    except Exception as e:
        if _java_class(e) not in CONFLICTS:
            raise
    # The files chosen changed meanwhile (a concurrent rewrite or delete): plan and rewrite again.
    return _recluster(spark, name, None)


def _recluster(spark: SparkSession, name: str, before_commit: Hook | None) -> Outcome:
    jvm = spark._jvm
    table = jvm.org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark._jsparkSession, name)
    key = table.properties().get(KEY_PROPERTY)
    if not key:
        return Outcome(skipped="no clustering key, skipped")
    columns: list[str] = json.loads(key)
    snapshot = table.currentSnapshot()
    if snapshot is None:
        return Outcome(skipped="empty table, nothing to do")
    tasks = _tasks(table, snapshot.snapshotId())
    files = [t.file() for t in tasks]
    rows = sum(f.recordCount() for f in files)
    tree = _read_tree(table)
    rebuild = needs_rebuild(tree, columns, rows)
    if rebuild:
        chosen = list(range(len(files)))
    else:
        assert tree is not None
        lowers, uppers = _boxes(jvm, table, files, columns)
        sizes = [f.fileSizeInBytes() for f in files]
        chosen = files_to_rewrite(tree, lowers, uppers, sizes)
        slots = slots_of(tree, [lowers[i] for i in chosen], [uppers[i] for i in chosen])
    if not chosen:
        return Outcome(skipped="nothing to recluster")
    old = [files[i] for i in chosen]
    group = str(uuid.uuid4())
    spark_iceberg = jvm.org.apache.iceberg.spark
    jtasks = jvm.java.util.ArrayList()
    for i in chosen:
        jtasks.add(tasks[i])
    table_cache = _table_cache(spark)
    table_cache.add(group, table)  # Spark reads and writes `group`: this very table object
    spark_iceberg.ScanTaskSetManager.get().stageTasks(table, group, jtasks)
    new: list[Any] = []
    new_tree = None
    committed = False
    try:
        # Small files are read together (a task each would mostly cost task start-up).
        split = max(sum(f.fileSizeInBytes() for f in old) // spark.sparkContext.defaultParallelism, 1 << 20)
        frame = (
            spark.read.format("iceberg")
            .option("scan-task-set-id", group)
            .option("split-size", str(split))
            .option("file-open-cost", "0")
            .load(group)
        )
        expected = sum(f.recordCount() for f in old)
        if any(tasks[i].deletes().size() for i in chosen):
            expected = frame.count()  # delete files apply: count what is live
        if rebuild:
            tree = _build_tree(frame, columns, expected)
            slots = list(range(tree.file_count))
            new_tree = tree_location(table.location())
            _write_text(table, new_tree, tree.to_json())
        assert tree is not None
        table_sizes = sum(f.fileSizeInBytes() for f in files)
        table_cache.add(group, _writing_view(table, table_sizes / (1 << tree.depth)))
        (
            route(spark, frame, tree, slots)
            .write.format("iceberg")
            .option("rewritten-file-scan-task-set-id", group)
            .option("target-file-size-bytes", ONE_FILE)
            .option("distribution-mode", "none")
            .option("use-table-distribution-and-ordering", "false")
            .mode("append")
            .save(group)
        )
        new = list(spark_iceberg.FileRewriteCoordinator.get().fetchNewFiles(table, group))
        written = sum(f.recordCount() for f in new)
        if written != expected:
            raise RuntimeError(f"{name}: recluster read {expected} rows but wrote {written}; not committed")
        _check_one_subtree_per_file(jvm, table, new, tree, name)
        if before_commit is not None:
            before_commit()
        _commit(table, snapshot, old, new, new_tree)
        committed = True
    finally:
        table_cache.remove(group)
        spark_iceberg.ScanTaskSetManager.get().removeTasks(table, group)
        spark_iceberg.FileRewriteCoordinator.get().clearRewrite(table, group)
        if not committed:  # nothing refers to what this attempt wrote
            for path in [f.location() for f in new] + ([new_tree] if new_tree else []):
                table.io().deleteFile(path)
    return Outcome(
        rebuilt=rebuild,
        files_rewritten=len(old),
        files_written=len(new),
        bytes_rewritten=sum(f.fileSizeInBytes() for f in old),
        bytes_written=sum(f.fileSizeInBytes() for f in new),
        rows_before=expected,
        rows_after=written,
        bytes_added=_bytes_added(table, snapshot),
    )


def route(spark: SparkSession, frame: DataFrame, tree: CubeTree, slots: list[int]) -> DataFrame:
    """`frame`'s rows, each subtree (file slot) in its own Spark partition, sorted by leaf.

    Spark places a row of `repartition(n, c)` in partition pmod(hash(c), n); each slot gets a
    value of c that Spark's own hash sends to the slot's partition, so no two slots share one."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import LongType, StructField, StructType

    n = len(slots)
    keys = _partition_keys(spark, n)
    columns = tree.columns
    slot_array = np.asarray(slots, dtype=np.int64)

    def to_slots(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            leaves = tree.leaves(matrix(pa.Table.from_batches([batch]), columns))
            slot = tree.file_of(leaves)
            index = np.minimum(np.searchsorted(slot_array, slot), n - 1)
            if len(slot) and not np.array_equal(slot_array[index], slot):
                raise RuntimeError("a row routed outside the subtrees of the files being rewritten")
            arrays = [*batch.columns, pa.array(leaves, pa.int64()), pa.array(keys[index], pa.int64())]
            yield pa.RecordBatch.from_arrays(arrays, names=[*batch.schema.names, LEAF, PART])

    schema = StructType([*frame.schema.fields, StructField(LEAF, LongType()), StructField(PART, LongType())])
    routed = frame.mapInArrow(to_slots, schema).repartition(n, F.col(PART))
    return routed.sortWithinPartitions(LEAF).drop(LEAF, PART)


def _partition_keys(spark: SparkSession, n: int) -> np.ndarray:
    """keys[p]: a BIGINT that `repartition(n, column)` puts in partition p. Spark's hash
    partitioning is pmod(murmur3(value, seed 42), n): computed here for many values at once, and
    checked against Spark's own hash in the driver's JVM."""
    _check_hash(spark)
    candidates = 16 * n
    while True:
        partitions = _murmur3_long(np.arange(candidates, dtype=np.int64)) % n  # numpy's % is pmod
        values, first = np.unique(partitions, return_index=True)
        if len(values) == n:
            return first.astype(np.int64)  # np.unique sorts: values == 0 .. n - 1
        candidates *= 4


def _murmur3_long(values: np.ndarray) -> np.ndarray:
    """Spark's Murmur3_x86_32.hashLong(value, 42), vectorized (uint32 arithmetic wraps as Java's int)."""

    def rotl(x: np.ndarray, r: int) -> np.ndarray:
        return (x << np.uint32(r)) | (x >> np.uint32(32 - r))

    def mix(h1: np.ndarray, k1: np.ndarray) -> np.ndarray:
        k1 = rotl(k1 * np.uint32(0xCC9E2D51), 15) * np.uint32(0x1B873593)
        return rotl(h1 ^ k1, 13) * np.uint32(5) + np.uint32(0xE6546B64)

    bits = values.astype(np.uint64)
    low, high = (bits & np.uint64(0xFFFFFFFF)).astype(np.uint32), (bits >> np.uint64(32)).astype(np.uint32)
    h1 = mix(mix(np.full(len(values), SPARK_HASH_SEED, dtype=np.uint32), low), high)
    h1 ^= np.uint32(8)
    h1 = (h1 ^ (h1 >> np.uint32(16))) * np.uint32(0x85EBCA6B)
    h1 = (h1 ^ (h1 >> np.uint32(13))) * np.uint32(0xC2B2AE35)
    return (h1 ^ (h1 >> np.uint32(16))).view(np.int32).astype(np.int64)


def _check_hash(spark: SparkSession) -> None:
    """Spark's own hash of a few values must be ours (a Spark changing it would misplace rows)."""
    jvm, gateway = spark._jvm, spark.sparkContext._gateway
    loader = jvm.java.lang.Thread.currentThread().getContextClassLoader()
    cls = jvm.java.lang.Class.forName("org.apache.spark.unsafe.hash.Murmur3_x86_32", True, loader)
    types = gateway.new_array(jvm.java.lang.Class, 2)
    types[0], types[1] = jvm.java.lang.Long.TYPE, jvm.java.lang.Integer.TYPE
    hash_long = cls.getMethod("hashLong", types)  # static; py4j sees the instance hashLong(long) first
    values = np.array([0, 1, 7, 1 << 33, -5], dtype=np.int64)
    for value, ours in zip(values.tolist(), _murmur3_long(values).tolist(), strict=True):
        args = gateway.new_array(jvm.java.lang.Object, 2)
        args[0] = jvm.java.lang.Long.valueOf(str(value))
        args[1] = jvm.java.lang.Integer.valueOf(SPARK_HASH_SEED)
        if int(hash_long.invoke(None, args)) != ours:
            raise RuntimeError("this Spark hashes partition keys differently; recluster cannot place rows")


def _table_cache(spark: SparkSession) -> Any:
    """Iceberg's SparkTableCache. Its static get() is shadowed for py4j by the instance method
    get(String), so it is called through reflection."""
    jvm, gateway = spark._jvm, spark.sparkContext._gateway
    loader = jvm.java.lang.Thread.currentThread().getContextClassLoader()
    cls = jvm.java.lang.Class.forName("org.apache.iceberg.spark.SparkTableCache", True, loader)
    getter = cls.getMethod("get", gateway.new_array(jvm.java.lang.Class, 0))
    return getter.invoke(None, gateway.new_array(jvm.java.lang.Object, 0))


def _writing_view(table: Any, leaf_bytes: float) -> Any:
    """The table as Spark writes the new files: Parquet row groups of about one leaf (the server
    writes each leaf as its own row groups, so filters skip most of a file), set on the view of an
    uncommitted transaction, so that the table's own properties stay as they are."""
    transaction = table.newTransaction()
    size = max(LEAF_BYTES_FLOOR, int(leaf_bytes * LEAF_BYTES_FACTOR))
    transaction.updateProperties().set(ROW_GROUP_PROPERTY, str(size)).commit()
    return transaction.table()


def _tasks(table: Any, snapshot_id: int) -> list[Any]:
    """The snapshot's file scan tasks (one per data file, with column bounds)."""
    out = []
    iterable = table.newScan().useSnapshot(snapshot_id).includeColumnStats().planFiles()
    try:
        it = iterable.iterator()
        while it.hasNext():
            out.append(it.next())
    finally:
        iterable.close()
    return out


def _boxes(jvm: Any, table: Any, files: list[Any], columns: list[str]) -> tuple[list, list]:
    """Each file's box on the key columns, from its Iceberg bounds, as the server computes them."""
    schema = Schema.model_validate_json(jvm.org.apache.iceberg.SchemaParser.toJson(table.schema()))
    fields = [schema.find_field(c) for c in columns]
    to_bytes = jvm.org.apache.iceberg.util.ByteBuffers.toByteArray
    lowers, uppers = [], []
    for f in files:
        maps = (f.lowerBounds(), f.upperBounds(), f.nullValueCounts())
        low, high, nulls = ({} if m is None else m for m in maps)
        ids = [field.field_id for field in fields]
        lower, upper = bounds_box(
            fields,
            {i: bytes(to_bytes(low.get(i))) for i in ids if low.get(i) is not None},
            {i: bytes(to_bytes(high.get(i))) for i in ids if high.get(i) is not None},
            {i: int(nulls.get(i)) for i in ids if nulls.get(i) is not None},
        )
        lowers.append(lower)
        uppers.append(upper)
    return lowers, uppers


def _check_one_subtree_per_file(jvm: Any, table: Any, files: list[Any], tree: CubeTree, name: str) -> None:
    lowers, uppers = _boxes(jvm, table, files, tree.columns)
    for lower, upper in zip(lowers, uppers, strict=True):
        if len(tree.files_overlapping(lower, upper)) != 1:
            raise RuntimeError(f"{name}: a written file straddles subtrees; not committed")


def _build_tree(frame: DataFrame, columns: list[str], rows: int) -> CubeTree:
    """The tree the server would build over these rows: from (at most SAMPLE_ROWS of) their keys."""
    keys = frame.select(*columns)
    if rows > SAMPLE_ROWS:
        keys = keys.sample(fraction=min(1.0, 1.1 * SAMPLE_ROWS / rows), seed=0)
    batches = keys._collect_as_arrow()
    coords = matrix(pa.Table.from_batches(batches), columns) if batches else np.zeros((0, len(columns)))
    return build(columns, coords, rows=rows)


def _read_tree(table: Any) -> CubeTree | None:
    location = table.properties().get(TREE_PROPERTY)
    if not location:
        return None
    stream = table.io().newInputFile(location).newStream()
    try:
        return CubeTree.from_json(bytes(stream.readAllBytes()).decode())
    finally:
        stream.close()


def _write_text(table: Any, location: str, text: str) -> None:
    stream = table.io().newOutputFile(location).createOrOverwrite()
    try:
        stream.write(bytearray(text.encode()))
    finally:
        stream.close()


def _commit(table: Any, snapshot: Any, old: list[Any], new: list[Any], new_tree: str | None) -> None:
    """One commit: old files out, new files in (at the planned snapshot's data sequence number, so
    deletes committed meanwhile still apply to the rows), and the new tree when there is one."""
    transaction = table.newTransaction()
    rewrite = transaction.newRewrite().validateFromSnapshot(snapshot.snapshotId())
    rewrite = rewrite.dataSequenceNumber(snapshot.sequenceNumber()).set(OPERATION, "recluster")
    for f in old:
        rewrite = rewrite.deleteFile(f)
    for f in new:
        rewrite = rewrite.addFile(f)
    rewrite.commit()
    if new_tree:
        transaction.updateProperties().set(TREE_PROPERTY, new_tree).commit()
    transaction.commitTransaction()


def _bytes_added(table: Any, snapshot: Any) -> int:
    """Bytes written into the table from the last recluster (or compaction) up to `snapshot`."""
    added = 0
    while snapshot is not None:
        summary = snapshot.summary()
        if summary.get(OPERATION) == "recluster" or snapshot.operation() == "replace":
            break
        added += int(summary.get("added-files-size") or 0)
        parent = snapshot.parentId()
        snapshot = table.snapshot(parent) if parent is not None else None
    return added


def _java_class(error: BaseException) -> str | None:
    java = getattr(error, "java_exception", None)
    return java.getClass().getName() if java is not None else None

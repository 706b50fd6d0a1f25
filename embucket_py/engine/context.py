"""DataFusion SessionContexts for statements, with each statement's Iceberg tables registered.

A statement borrows a context from a pool and gives it back when its DataFrame is gone: a context
kept across statements keeps its runtime's Parquet footer cache and its registered functions, so a
warm statement neither re-reads footers nor rebuilds the context (~0.4 ms for SELECT 1, and up to
tens of ms of footer reads for a TPC-H query). Given back, it forgets the statement's tables and
settings.

Each referenced table is registered at its current snapshot by the fast path: pyiceberg plans the
live data files (pruned by manifest statistics) and DataFusion's own Parquet reader scans exactly
those, with projection and filter pushdown and statistics. Snapshots with delete files go through
pyiceberg-core's table provider, which applies the deletes.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import random
import sys
import threading
import uuid
import weakref
from collections import OrderedDict
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.parquet as pq
from datafusion import DataFrame, RuntimeEnvBuilder, SessionConfig, SessionContext, col, lit
from pyiceberg.table import Table

from embucket_py.catalog import storage
from embucket_py.catalog.history import history_of
from embucket_py.catalog.tables import ScanFiles, TableName, Tables, reads_by_field_id
from embucket_py.engine import access, history, information_schema, match_recognize, policies, tags, tasks
from embucket_py.engine.file_sets import FILE_SETS, SNAPSHOT_FILES
from embucket_py.engine.functions import register_functions
from embucket_py.engine.scan import ScanStats
from embucket_py.engine.table_changes import changes_frame
from embucket_py.engine.time_travel import Version, resolve
from embucket_py.layout.sampling import chosen_row_groups
from embucket_py.sql.context import SqlContext
from embucket_py.sql.transforms.sampling import BlockSample
from embucket_py.sql.transforms.tables import TableUse

# Two partitions per core: local Parquet reads block a partition's stream now and then (the file
# store reads on blocking threads), and a second stream per core keeps the core busy meanwhile.
# TPC-H SF1 on raw DataFusion, 2 cores, interleaved in one process: geomean -4.6% and -3.7% in
# two runs against one per core (Q1 -7%, Q3 -11%, Q18 -6 to -20%; three per core: -2.5%).
TARGET_PARTITIONS = 2 * max(os.cpu_count() or 1, 1)

# Each statement's context gets its own pool of this size: sorts, joins and aggregates that outgrow
# it spill to temporary files instead of taking the server's memory (see configure_memory).
_RUNTIME = RuntimeEnvBuilder().with_disk_manager_os().with_fair_spill_pool(1 << 30)


def configure_memory(limit_mb: int, spill_dir: str | None = None) -> None:
    """Sets the per-query memory limit (0: a quarter of physical memory) and where spills go."""
    global _RUNTIME
    no_huge_pages()
    CONTEXTS.clear()  # contexts made so far have the old runtime
    if limit_mb <= 0:
        limit_mb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 4 // (1 << 20)
    builder = RuntimeEnvBuilder()
    if spill_dir:
        os.makedirs(spill_dir, exist_ok=True)
        builder = builder.with_temp_file_path(spill_dir)
    else:
        builder = builder.with_disk_manager_os()
    _RUNTIME = builder.with_fair_spill_pool(limit_mb << 20)


def no_huge_pages() -> None:
    """Turns transparent huge pages off for this process (Linux). DataFusion's and Arrow's
    allocator (mimalloc) asks for huge pages, gives freed memory back to the system and takes it
    again moments later: each time the kernel zeroes a whole 2 MB page. Measured on a 6M-row scan
    and fetch: 52% of the server's CPU was that zeroing; without huge pages the statement ran in
    0.45 s instead of 1.2 s."""
    if sys.platform != "linux":
        return
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_THP_DISABLE, 1, 0, 0, 0)


_PR_SET_THP_DISABLE = 41


# Joins whose build side is under 64 MB / 4M rows build one hash table that every partition
# probes instead of hash-repartitioning both sides (on 2 cores TPC-H SF1 Q17 0.53 -> 0.22 s).
# A join on one integer key indexes its build rows by key (an array, no hashing) when the keys
# span under 1M values or fill at least a tenth of their span (DataFusion's defaults: 1024 and
# 0.15): a filtered dimension's keys (Q9's parts, Q17's) and orders' keys qualify. At most 1M
# slots, or 10 per build row. TPC-H SF1 raw geomean -4.5%, then -2.8% (Q9 0.30 -> 0.27 s, Q17
# 0.19 -> 0.16 s, Q21 0.30 -> 0.27 s).
TUNED_SETTINGS = {
    "datafusion.optimizer.hash_join_single_partition_threshold": str(64 << 20),
    "datafusion.optimizer.hash_join_single_partition_threshold_rows": str(4 << 20),
    "datafusion.execution.batch_size": "32768",
    "datafusion.execution.perfect_hash_join_small_build_threshold": str(1 << 20),
    "datafusion.execution.perfect_hash_join_min_key_density": "0.1",
}


def new_context(partitions: int = TARGET_PARTITIONS, filter_in_scan: bool = True) -> SessionContext:
    """`filter_in_scan`: filters run while Parquet pages are decoded (late materialization), which
    pays when few rows survive (a lookup) and costs analytic queries (see engine/query.py)."""
    config = (
        SessionConfig()
        .with_target_partitions(partitions)
        .with_information_schema(False)
        .set("datafusion.execution.parquet.pushdown_filters", str(filter_in_scan).lower())
        # A context reads a file's footer once (its runtime caches footers); prefetching 512 KiB
        # per footer (the default) cost ~80 ms CPU to read the footers of 48 lineitem files,
        # 64 KiB ~13 ms (footers are a few KiB; larger ones take a 2nd read).
        .set("datafusion.execution.parquet.metadata_size_hint", str(64 << 10))
        # Snowflake reads 1.25 as NUMBER(3,2), an exact decimal, never as a float.
        .set("datafusion.sql_parser.parse_float_as_decimal", "true")
    )
    for key, value in TUNED_SETTINGS.items():
        config = config.set(key, value)
    ctx = SessionContext(config, _RUNTIME)
    ctx.filter_in_scan = filter_in_scan  # type: ignore[attr-defined]
    register_functions(ctx)
    # Buckets of s3:// warehouses and volumes, so read_parquet takes their URIs.
    storage.register_object_stores(ctx)
    return ctx


class ContextPool:
    """Idle contexts, at most `keep` of each kind (each holds its footer cache and memory pool).
    Kinds: statements that scan little run in one partition (see `register_tables`); the others
    filter in the scan or not (see `new_context`). Borrowing a context of the right kind saves
    changing a setting, which costs two statements (~0.5 ms)."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self.idle: dict[tuple[bool, bool], list[SessionContext]] = {}
        self.lock = threading.Lock()

    def borrow(self, one_partition: bool = False, filter_in_scan: bool = True) -> SessionContext:
        kind = (one_partition, filter_in_scan or one_partition)
        with self.lock:
            if self.idle.get(kind):
                return self.idle[kind].pop()
        ctx = new_context(1 if one_partition else TARGET_PARTITIONS, kind[1])
        ctx.kind = kind  # type: ignore[attr-defined]
        ctx.one_partition = one_partition  # type: ignore[attr-defined]
        return ctx

    def lend_for(self, frame: DataFrame, ctx: SessionContext) -> None:
        """`ctx` comes back to the pool once `frame` (which runs on it) is gone."""
        frame.session_context = ctx  # type: ignore[attr-defined]
        weakref.finalize(frame, self.give_back, ctx).atexit = False

    def give_back(self, ctx: SessionContext) -> None:
        try:
            if getattr(ctx, "registered", True):
                for name in ctx.catalog().schema().names():
                    ctx.deregister_table(name)
                ctx.registered = False  # type: ignore[attr-defined]
        except Exception:  # a context that cannot be reset is dropped, never reused
            return
        if getattr(ctx, "narrowed", False) or not hasattr(ctx, "kind"):  # not what a kind promises
            return
        with self.lock:
            idle = self.idle.setdefault(ctx.kind, [])  # type: ignore[attr-defined]
            if len(idle) < self.keep:
                idle.append(ctx)

    def clear(self) -> None:
        with self.lock:
            self.idle = {}


CONTEXTS = ContextPool(keep=TARGET_PARTITIONS + 2)  # two idle contexts per core, plus two


def table_frame(
    ctx: SessionContext,
    table: Table,
    version: Version | None = None,
    stats: ScanStats | None = None,
    sample: BlockSample | None = None,
    in_memory: bool = True,
) -> DataFrame:
    """A DataFrame scanning one snapshot of an Iceberg table (default: the current one).

    `in_memory`: a small table of several files may be read whole into memory (for statements
    that scan little in all; in-memory tables carry no column statistics to order joins by).
    """
    schema = Tables.arrow_schema(table)
    if version is not None and version.snapshot_id is None:
        return ctx.from_arrow(pa.Table.from_batches([], schema=schema))
    files = SNAPSHOT_FILES.files(table, version.snapshot_id if version else None)
    ids = [f.field_id for f in table.schema().fields]
    if sample is not None and not files.has_deletes:
        return ctx.from_arrow(_block_sample(files, schema, ids, sample, stats or ScanStats()))
    small = _scan_bytes(files) <= SMALL_SCAN_BYTES
    if stats is not None:
        stats.add_table(len(files.files), _scan_bytes(files), read_in_full=small or files.has_deletes)
    if files.has_deletes:
        # Delete files (merge-on-read, e.g. from Spark) need Iceberg's own reader. The provider
        # must stay registered for as long as the context runs plans over it.
        name = f"__iceberg_{uuid.uuid4().hex}"
        ctx.register_table(name, table)
        return ctx.table(name)
    if not files.paths:
        return ctx.from_arrow(pa.Table.from_batches([], schema=schema))
    # pyiceberg plans the newest files first; oldest first returns rows in insertion order, as
    # Snowflake does for small tables read without ORDER BY.
    paths = files.paths[::-1]
    by_id = reads_by_field_id(table)
    if in_memory and len(paths) > 1 and small:
        # One in-memory partition keeps that order (a union of file scans interleaves them).
        return ctx.from_arrow(_SMALL_TABLES.get(paths, schema, ids))
    if not by_id and len(paths) > 1 and not any(storage.is_s3(p) for p in paths):
        # One listing table over exactly these files plans like a directory scan (statistics for
        # join order, files split across cores); a union of per-file scans does not.
        filter_in_scan = getattr(ctx, "filter_in_scan", True)
        return ctx.read_table(FILE_SETS.provider(paths, _viewed(schema), new_context, filter_in_scan))
    frames = [file_frame(ctx, path, table, _viewed(schema), by_id) for path in paths]
    frame = frames[0]
    for other in frames[1:]:
        frame = frame.union(other)
    return frame


def _viewed(schema: pa.Schema) -> pa.Schema:
    """Text and binary columns read as views, as DataFusion reads Parquet by default: its
    filters, joins and grouping run faster on views than on plain strings."""
    views = {pa.string(): pa.string_view(), pa.binary(): pa.binary_view()}
    return pa.schema([f.with_type(views.get(f.type, f.type)) for f in schema], metadata=schema.metadata)


def file_frame(ctx: SessionContext, path: str, table: Table, schema: pa.Schema, by_id: bool) -> DataFrame:
    """One data file of `table` as its columns are now (`schema`), read by field id when the
    table's names call for it (`reads_by_field_id`)."""
    return _by_field_id(ctx, path, table, schema) if by_id else ctx.read_parquet(path, schema=schema)


def _block_sample(
    files: ScanFiles, schema: pa.Schema, ids: list[int], sample: BlockSample, stats: ScanStats
) -> pa.Table:
    """SAMPLE SYSTEM (p): whole row groups (blocks), about p of them, and only those read (clustered
    tables' sample bands make them a representative sample, see layout/sampling.py)."""
    rng = random.Random(sample.seed)
    stats.add_table(len(files.files), _scan_bytes(files))
    parts = [pa.Table.from_batches([], schema=schema)]
    for path in files.paths:
        parquet = pq.ParquetFile(storage.open_input(path) if storage.is_s3(path) else path)
        chosen = chosen_row_groups(parquet.metadata, sample.percent, rng)
        if not chosen:
            continue
        parts.append(_conform(parquet.read_row_groups(chosen), schema, ids))
        stats.files_scanned += 1
        for i in chosen:
            group = parquet.metadata.row_group(i)
            columns = range(group.num_columns)
            stats.bytes_scanned += sum(group.column(c).total_compressed_size for c in columns)
    return pa.concat_tables(parts)


class _SmallTables:
    """Small tables read whole, kept by their data files: Iceberg never changes a file, so the
    same list of files (and schema) is the same rows, and repeated queries skip the reads."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.kept: OrderedDict[tuple[tuple[str, ...], pa.Schema], pa.Table] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, paths: list[str], schema: pa.Schema, ids: list[int]) -> pa.Table:
        key = (tuple(paths), schema)
        with self.lock:
            if key in self.kept:
                self.kept.move_to_end(key)
                return self.kept[key]
        data = read_files(paths, schema, ids)
        with self.lock:
            self.kept[key] = data
            while sum(t.nbytes for t in self.kept.values()) > self.max_bytes and len(self.kept) > 1:
                self.kept.popitem(last=False)
        return data


def read_files(paths: list[str], schema: pa.Schema, ids: list[int]) -> pa.Table:
    """Data files read whole, in the table's current schema (`ids`: its field ids)."""
    parts = [pq.read_table(storage.open_input(p) if storage.is_s3(p) else p) for p in paths]
    return pa.concat_tables([_conform(t, schema, ids) for t in parts]) if parts else schema.empty_table()


def _conform(data: pa.Table, schema: pa.Schema, ids: list[int]) -> pa.Table:
    """A file's rows in the table's current schema (`ids`: its field ids), columns found by field
    id when the file has them (else by name); those added since it was written are NULL."""
    written = {
        int(f.metadata[_FIELD_ID]): f.name for f in data.schema if f.metadata and _FIELD_ID in f.metadata
    }
    names = [written.get(i) for i in ids] if written else [f.name for f in schema]
    columns = [
        data.column(name) if name in data.schema.names else pa.nulls(data.num_rows, f.type)
        for f, name in zip(schema, names, strict=True)
    ]
    nullable = pa.schema([f.with_nullable(True) for f in schema])
    return pa.Table.from_arrays(columns, schema=nullable).cast(schema)


_FIELD_ID = b"PARQUET:field_id"


def _by_field_id(ctx: SessionContext, path: str, table: Table, schema: pa.Schema) -> DataFrame:
    """One data file read by Iceberg field id: columns renamed since it was written get their
    current names, dropped ones are skipped, added ones are NULL (a file without field ids is
    read by name)."""
    written = _written_names(path) or {f.field_id: f.name for f in table.schema().fields}
    frame = ctx.read_parquet(path)
    present = set(frame.schema().names)
    columns = []
    for field, target in zip(table.schema().fields, schema, strict=True):
        source = written.get(field.field_id)
        value = col(f'"{source}"') if source in present else lit(None)
        columns.append(value.cast(target.type).alias(target.name))
    return frame.select(*columns)


@functools.lru_cache(maxsize=4096)
def _written_names(path: str) -> dict[int, str]:
    """The column name each field id has in a data file (files never change once written)."""
    return {
        int(f.metadata[_FIELD_ID]): f.name
        for f in pq.read_schema(storage.open_input(path) if storage.is_s3(path) else path)
        if f.metadata and _FIELD_ID in f.metadata
    }


# Below this much data a statement runs in one partition: rows then come out in the order they
# were read (and groups in first-seen order), as Snowflake returns small results.
SMALL_SCAN_BYTES = 32 << 20
_SMALL_TABLES = _SmallTables(8 * SMALL_SCAN_BYTES)


def _scan_bytes(files: ScanFiles) -> int:
    return sum(f.file_size_in_bytes for f in files.files)


@dataclass(frozen=True)
class StoredTables:
    """The Iceberg table (and version) each table reference reads (None for history and the
    information schema), and whether the statement scans little (it then runs in one partition:
    rows come out in the order they were read, as Snowflake returns small results)."""

    tables: list[tuple[Table, Version | None] | None]
    small: bool


def load_tables(tables: Tables, uses: list[TableUse], sql_ctx: SqlContext) -> StoredTables:
    loaded: dict[TableName, Table] = {}  # a table referenced twice is loaded once
    stored = [_stored_table(tables, use, sql_ctx, loaded) for use in uses]
    small = sum(Tables.size(found[0])[1] for found in stored if found is not None) <= SMALL_SCAN_BYTES
    return StoredTables(stored, small)


def register_tables(
    ctx: SessionContext,
    tables: Tables,
    uses: list[TableUse],
    sql_ctx: SqlContext,
    stored: StoredTables | None = None,
) -> None:
    """Registers each table reference of a query at the snapshot it asks for (loaded by
    `load_tables` unless given); what they hold is counted in the context's `scan_stats`."""
    stored = stored or load_tables(tables, uses, sql_ctx)
    ctx.scan_stats = ScanStats()  # type: ignore[attr-defined]
    ctx.registered = bool(uses)  # type: ignore[attr-defined]  # the pool clears what was registered
    for use, found in zip(uses, stored.tables, strict=True):
        _register_one(ctx, tables, use, sql_ctx, found, stored.small)
    if stored.small and not getattr(ctx, "one_partition", False):
        ctx.sql("SET datafusion.execution.target_partitions = 1")
        ctx.narrowed = True  # type: ignore[attr-defined]


def for_recursion(ctx: SessionContext) -> None:
    """DataFusion 54's `optimize_projections` prunes the columns of a recursive CTE that the
    outer query does not read, but not those of its work table: the plan then fails ("project
    index 1 out of bounds") or reads columns shifted. A query with a recursive CTE plans without
    that rule, on a context the pool then drops."""
    ctx.remove_optimizer_rule("optimize_projections")
    ctx.narrowed = True  # type: ignore[attr-defined]


def _stored_table(
    tables: Tables, use: TableUse, sql_ctx: SqlContext, loaded: dict[TableName, Table]
) -> tuple[Table, Version | None] | None:
    """The Iceberg table (and version) a reference reads; None for history and information schema."""
    if use.schema == history.SOURCE_SCHEMA or information_schema.is_information_schema(use.schema):
        return None
    ref = TableName(use.database, use.schema, use.name)
    table = loaded.get(ref)
    if table is None:
        table = loaded[ref] = tables.load(ref)
    version = None
    if use.point is not None:
        version = resolve(table, str(ref), use.point, sql_ctx)
    return table, version


def _register_one(
    ctx: SessionContext,
    tables: Tables,
    use: TableUse,
    sql_ctx: SqlContext,
    stored: tuple[Table, Version | None] | None,
    small_query: bool,
) -> None:
    """Registers one table reference."""
    if ctx.table_exist(use.registered_as):
        ctx.deregister_table(use.registered_as)
    if use.schema == history.SOURCE_SCHEMA and use.name.startswith("POLICY_REFERENCES"):
        _, policy, entity, domain = use.name.split(history.SEP)
        register_arrow(
            ctx, use.registered_as, policies.references_table(tables, policy, entity, domain, sql_ctx)
        )
        return
    if use.schema == history.SOURCE_SCHEMA and use.name.startswith("TAG_REFERENCES"):
        function, name, domain = use.name.split(history.SEP)
        found = tags.references_table(tables, name, domain, function.endswith("ALL_COLUMNS"), sql_ctx)
        register_arrow(ctx, use.registered_as, found)
        return
    if use.schema == history.SOURCE_SCHEMA and use.name.startswith(match_recognize.SOURCE):
        register_arrow(ctx, use.registered_as, match_recognize.take(use.name))
        return
    if use.schema == history.SOURCE_SCHEMA and use.name.startswith("TASK_HISTORY"):
        _, limit, task_name = use.name.split(history.SEP)
        register_arrow(
            ctx, use.registered_as, tasks.history_table(tables, int(limit), task_name or None, sql_ctx)
        )
        return
    if use.schema == history.SOURCE_SCHEMA:
        session_id = int(sql_ctx.values.get("CURRENT_SESSION") or 0)
        data = history.build(
            history_of(tables.metastore), use.name, session_id, _history_user(tables, sql_ctx)
        )
        register_arrow(ctx, use.registered_as, data)
        return
    if information_schema.is_information_schema(use.schema) or stored is None:
        data = information_schema.build_for_query(tables, use.database, use.name, sql_ctx)
        ctx.register_table(use.registered_as, ctx.from_arrow(data))
        return
    table, version = stored
    if use.changes is not None:
        name = str(TableName(use.database, use.schema, use.name))
        ctx.register_table(use.registered_as, changes_frame(ctx, table, name, use.changes, sql_ctx))
        return
    frame = table_frame(ctx, table, version, ctx.scan_stats, use.sample, in_memory=small_query)
    ctx.register_table(use.registered_as, frame)


def _history_user(tables: Tables, sql_ctx: SqlContext) -> str | None:
    """Whose statements QUERY_HISTORY shows: everyone's to ACCOUNTADMIN, else the user's own."""
    grants = tables.metastore.grants
    if "ACCOUNTADMIN" in access.context_roles(grants, sql_ctx):
        return None
    return str(sql_ctx.values.get("CURRENT_USER") or "")


def register_arrow(ctx: SessionContext, name: str, data: pa.Table) -> None:
    """Registers an in-memory Arrow table (empty ones included) under a name."""
    if ctx.table_exist(name):
        ctx.deregister_table(name)
    ctx.register_table(name, ctx.from_arrow(data))

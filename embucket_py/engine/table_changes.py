"""CHANGES (INFORMATION => DEFAULT | APPEND_ONLY) AT | BEFORE (...) [END (...)]: the rows a table
gained and lost between two of its versions, with METADATA$ACTION and METADATA$ISUPDATE.

Iceberg keeps every version's data files, so the changes are found from the files themselves:
DEFAULT compares the files live at the start with those live at the end and reads only the ones
that differ; an UPDATE or MERGE rewrites whole files, so the rows a rewritten file carried over
unchanged appear on both sides and cancel (a multiset difference), leaving the net inserts and
deletes, as Snowflake reports them. APPEND_ONLY reads the files appended by INSERT and COPY
statements in between, whatever happened to their rows later.
https://docs.snowflake.com/en/sql-reference/constructs/changes

Not kept: METADATA$ROW_ID (Iceberg v2 data has no row identity). Without one, the two halves of
an UPDATE (a DELETE and an INSERT) are paired by the table's PRIMARY KEY, when it declares one:
METADATA$ISUPDATE is TRUE for both; without a key it is FALSE.
"""

from __future__ import annotations

from collections.abc import Iterator

import pyarrow as pa
import pyarrow.compute as pc
from datafusion import DataFrame, SessionContext, col
from datafusion import functions as f
from pyiceberg.manifest import ManifestEntryStatus
from pyiceberg.table import Table
from pyiceberg.table.snapshots import Snapshot

from embucket_py import naming
from embucket_py.catalog.constraints import keys_of
from embucket_py.catalog.tables import Tables, TimeTravelUnavailable
from embucket_py.engine.file_sets import SNAPSHOT_FILES
from embucket_py.engine.time_travel import resolve
from embucket_py.sql.context import SqlContext
from embucket_py.sql.transforms.tables import ChangeSpan

ACTION = naming.stored("METADATA$ACTION")
IS_UPDATE = naming.stored("METADATA$ISUPDATE")


def changes_frame(
    ctx: SessionContext, table: Table, name: str, span: ChangeSpan, sql_ctx: SqlContext
) -> DataFrame:
    """The changed rows, each with its action (INSERT or DELETE).

    Raises:
        TimeTravelUnavailable: a version is outside the table's history, or END precedes the start.
    """
    from embucket_py.engine.context import read_files  # context registers these frames

    start = resolve(table, name, span.start, sql_ctx).snapshot_id
    end = resolve(table, name, span.end, sql_ctx).snapshot_id if span.end else current_snapshot(table)
    chain = _snapshots_between(table, start, end, name)
    schema = Tables.arrow_schema(table)
    ids = [f.field_id for f in table.schema().fields]
    if span.append_only:
        inserted = read_files(_appended(table, chain), schema, ids)
        return ctx.from_arrow(_labelled(inserted, schema.empty_table()))
    if _has_deletes(table, start) or _has_deletes(table, end):
        # Delete files (merge-on-read, e.g. from Spark) say which rows of a file are gone: both
        # versions are read whole through Iceberg's reader, and the unchanged rows cancel.
        added, removed = _version_rows(table, end, schema), _version_rows(table, start, schema)
    else:
        before, after = _live(table, start), _live(table, end)
        kept = set(before) & set(after)
        added = read_files([p for p in after if p not in kept], schema, ids)
        removed = read_files([p for p in before if p not in kept], schema, ids)
    key = next((k.columns for k in keys_of(table) if k.type == "PRIMARY KEY"), None)
    return ctx.from_arrow(_labelled(*_net(added, removed), key=key))


def current_snapshot(table: Table) -> int | None:
    snapshot = table.current_snapshot()
    return snapshot.snapshot_id if snapshot else None


def ancestors(table: Table, snapshot_id: int | None, stop: int | None) -> Iterator[Snapshot]:
    """The snapshots from `snapshot_id` back along their parents, up to (not including) `stop`."""
    while snapshot_id is not None and snapshot_id != stop:
        snapshot = table.snapshot_by_id(snapshot_id)
        if snapshot is None:
            return
        yield snapshot
        snapshot_id = snapshot.parent_snapshot_id


def is_append(snapshot: Snapshot) -> bool:
    """A snapshot INSERT or COPY made: rows appended, none rewritten."""
    return snapshot.summary is not None and snapshot.summary.operation.value == "append"


def _snapshots_between(table: Table, start: int | None, end: int | None, name: str) -> list[Snapshot]:
    """The snapshots after `start` up to `end` (newest first), walking back from `end`."""
    chain = list(ancestors(table, end, start))
    if (chain[-1].parent_snapshot_id if chain else end) != start:
        raise TimeTravelUnavailable(
            f"Time travel data is not available for table {name}: the end of CHANGES precedes its start."
        )
    return chain


def _live(table: Table, snapshot_id: int | None) -> list[str]:
    return [] if snapshot_id is None else SNAPSHOT_FILES.files(table, snapshot_id).paths


def _has_deletes(table: Table, snapshot_id: int | None) -> bool:
    return snapshot_id is not None and SNAPSHOT_FILES.files(table, snapshot_id).has_deletes


def _version_rows(table: Table, snapshot_id: int | None, schema: pa.Schema) -> pa.Table:
    """Every row of a version, its delete files applied."""
    if snapshot_id is None:
        return schema.empty_table()
    return table.scan(snapshot_id=snapshot_id).to_arrow().select(schema.names).cast(schema)


def _appended(table: Table, chain: list[Snapshot]) -> list[str]:
    """Data files added by the append snapshots (INSERT, COPY) of the chain, oldest first."""
    paths = []
    for snapshot in reversed([s for s in chain if is_append(s)]):
        for manifest in snapshot.manifests(table.io):
            if manifest.added_snapshot_id != snapshot.snapshot_id:
                continue
            entries = manifest.fetch_manifest_entry(table.io)
            paths += [e.data_file.file_path for e in entries if e.status == ManifestEntryStatus.ADDED]
    return paths


def _net(added: pa.Table, removed: pa.Table) -> tuple[pa.Table, pa.Table]:
    """Rows added but not removed, and removed but not added, each counted as often as it occurs
    (a row carried over by a rewritten file cancels): numbering the copies of each row makes every
    (row, copy) distinct, so a set difference is the multiset difference."""
    if not added.num_rows or not removed.num_rows:
        return added, removed
    df = SessionContext()
    columns = [col(f'"{n}"') for n in added.schema.names]

    def numbered(rows: pa.Table) -> DataFrame:
        return df.from_arrow(rows).select(*columns, f.row_number(partition_by=columns).alias("__copy"))

    def minus(a: pa.Table, b: pa.Table) -> pa.Table:
        return numbered(a).except_all(numbered(b)).select(*columns).to_arrow_table().cast(added.schema)

    return minus(added, removed), minus(removed, added)


def _labelled(inserted: pa.Table, deleted: pa.Table, key: list[str] | None = None) -> pa.Table:
    """The rows with METADATA$ACTION and METADATA$ISUPDATE, inserts first. With a primary key,
    an INSERT and a DELETE of the same key are the two halves of an UPDATE."""
    parts = []
    for rows, other, action in ((inserted, deleted, "INSERT"), (deleted, inserted, "DELETE")):
        updated = _same_key(rows, other, key) if key else pa.array([False] * rows.num_rows, pa.bool_())
        rows = rows.append_column(ACTION, pa.array([action] * rows.num_rows, pa.string()))
        parts.append(rows.append_column(IS_UPDATE, updated))
    return pa.concat_tables(parts)


def _same_key(rows: pa.Table, other: pa.Table, key: list[str]) -> pa.Array:
    """Whether each row's key values (all non-NULL) are also some row's of `other`."""

    def keys(table: pa.Table) -> pa.Array:
        texts = [pc.cast(table.column(naming.stored(c)), pa.string()) for c in key]
        return pc.binary_join_element_wise(*texts, "\x1f")

    if not rows.num_rows or not other.num_rows:
        return pa.array([False] * rows.num_rows, pa.bool_())
    return pc.fill_null(pc.is_in(keys(rows), value_set=keys(other).combine_chunks()), False)

"""CLUSTER BY, DROP CLUSTERING KEY, RECLUSTER and SYSTEM$CLUSTERING_INFORMATION."""

from __future__ import annotations

import json
import logging

import numpy as np
import pyarrow as pa
from pyiceberg.expressions import AlwaysTrue
from pyiceberg.io.pyarrow import ArrowScan
from pyiceberg.table import Table
from sqlglot import exp

from embucket_py import naming
from embucket_py.catalog.grants import Securable
from embucket_py.catalog.tables import TableName, Tables
from embucket_py.engine import access
from embucket_py.engine.result import OK, QueryResult, status
from embucket_py.errors import InvalidIdentifier, SqlCompilationError, object_not_found
from embucket_py.layout import clustering
from embucket_py.layout.files import file_boxes
from embucket_py.layout.keys import matrix
from embucket_py.layout.rewrite import files_to_rewrite, needs_rebuild
from embucket_py.layout.tree import build
from embucket_py.layout.writer import clustered_files
from embucket_py.sql.clustering import ClusteringDef
from embucket_py.sql.context import SqlContext
from embucket_py.sql.names import normalize, qualify, table_parts
from embucket_py.sql.nodes import Nodes

log = logging.getLogger(__name__)


def run(tables: Tables, d: ClusteringDef, query_id: str | None) -> QueryResult:
    ref = TableName(*d.parts)
    table = tables.load(ref)
    if d.action in ("SUSPEND", "RESUME"):
        return status(OK)  # reclustering only runs when asked
    if d.action == "RECLUSTER":
        recluster(tables, ref, table, query_id)
        return status(OK)
    columns = None
    if d.action == "CLUSTER":
        assert d.columns is not None
        known = {c.name: naming.stored(c.name) for c in Tables.columns(table)}
        for name in d.columns:
            if name not in known:
                raise InvalidIdentifier(f"invalid identifier '{naming.quote(name)}'")
        columns = [known[name] for name in d.columns]
    tx = table.transaction()
    clustering.set_key(tx, columns)
    tables.finish(ref, table, tx, appends_only=False)
    return status(OK)


def recluster(tables: Tables, ref: TableName, table: Table, query_id: str | None) -> None:
    """Rewrites what the layout needs, and only that: the whole table when it has no tree yet (or
    has outgrown it), else the files that straddle subtrees or are too small, merged per subtree."""
    columns = clustering.clustering_key(table)
    if not columns:
        raise SqlCompilationError(f"Table '{ref.name}' has no clustering key.")
    files = Tables.scan_files(table).files
    if not files:
        return
    rows = sum(f.record_count for f in files)
    tree = clustering.tree_of(table)
    rebuild = needs_rebuild(tree, columns, rows)
    if not rebuild:
        assert tree is not None
        boxes = file_boxes(table, files, columns)
        sizes = [b.file.file_size_in_bytes for b in boxes]
        chosen = files_to_rewrite(tree, [b.lower for b in boxes], [b.upper for b in boxes], sizes)
        if not chosen:
            return
        rewrite = [boxes[i].file for i in chosen]
    else:
        rewrite = files
    data = _read(table, rewrite)
    tx = table.transaction()
    if rebuild:
        tree = build(columns, matrix(data, columns))
        clustering.save_tree(table, tx, tree)
    assert tree is not None
    added = clustered_files(table, tx.table_metadata, data, tree)
    properties = {"embucket.operation": "recluster"} | ({"embucket.query-id": query_id} if query_id else {})
    with tx.update_snapshot(properties).overwrite() as snapshot:
        for data_file in rewrite:
            snapshot.delete_data_file(data_file)
        for data_file in added:
            snapshot.append_data_file(data_file)
    tables.finish(ref, table, tx, appends_only=False)
    log.info(
        "reclustered %s: %d files rewritten into %d (rebuild=%s)", ref, len(rewrite), len(added), rebuild
    )


def _read(table: Table, files: list) -> pa.Table:
    # The planned tasks carry the files' delete files (e.g. Spark's merge-on-read deletes): rows
    # they delete must not come back in the rewritten files.
    wanted = {f.file_path for f in files}
    tasks = [t for t in table.scan().plan_files() if t.file.file_path in wanted]
    scan = ArrowScan(table.metadata, table.io, table.schema(), AlwaysTrue())
    return scan.to_table(tasks)


def clustering_information(table: Table, columns: list[str] | None = None) -> str:
    """SYSTEM$CLUSTERING_INFORMATION's JSON: how far the data files' boxes overlap on the key."""
    key = columns or clustering.clustering_key(table)
    if not key:
        raise SqlCompilationError("Invalid clustering keys or table is not clustered.")
    boxes = file_boxes(table, Tables.scan_files(table).files, key)
    overlaps = np.array([sum(a.overlaps(b) for b in boxes) - 1 for a in boxes], dtype=np.int64)
    depths = overlaps + 1
    histogram = {f"{d:05d}": int((depths == d).sum()) for d in range(0, 17)}
    if len(depths) and depths.max() > 16:
        for power in range(5, 64):
            low, high = 1 << (power - 1), 1 << power
            if low > depths.max():
                break
            histogram[f"{high:05d}"] = int(((depths > low) & (depths <= high)).sum())
    names = ", ".join(naming.display(c) for c in key)
    return json.dumps(
        {
            "cluster_by_keys": f"LINEAR({names})",
            "total_partition_count": len(boxes),
            "total_constant_partition_count": sum(b.constant for b in boxes),
            "average_overlaps": round(float(overlaps.mean()), 4) if len(boxes) else 0.0,
            "average_depth": round(float(depths.mean()), 4) if len(boxes) else 0.0,
            "partition_depth_histogram": histogram,
        },
        indent=2,
    )


_SYSTEM_FUNCTIONS = ("SYSTEM$CLUSTERING_INFORMATION", "SYSTEM$CLUSTERING_DEPTH")


def _is_system_function(node: exp.Expression) -> bool:
    return isinstance(node, exp.Anonymous) and node.name.upper() in _SYSTEM_FUNCTIONS


def has_system_functions(nodes: Nodes) -> bool:
    return any(_is_system_function(node) for node in nodes.of(exp.Anonymous))


def system_functions(tables: Tables, tree: exp.Expression, ctx: SqlContext) -> exp.Expression:
    """Replaces SYSTEM$CLUSTERING_INFORMATION('t' [, '(cols)']) and SYSTEM$CLUSTERING_DEPTH with
    their values: they read table metadata, not rows. Changes `tree` in place."""

    def replace(node: exp.Expression) -> exp.Expression:
        if not _is_system_function(node):
            return node
        name = node.name.upper()
        args = node.expressions
        if not args or not all(isinstance(a, exp.Literal) and a.is_string for a in args):
            raise SqlCompilationError(f"{name} takes a table name and an optional column list.")
        table_name = exp.to_table(args[0].name, dialect="snowflake")
        ref = TableName(*qualify(table_parts(table_name), ctx))
        if not access.sees(tables, Securable("TABLE", ref.database, ref.schema, ref.name)):
            raise object_not_found("Object", str(ref))
        table = tables.load(ref)
        columns = None
        if len(args) > 1:
            listed = args[1].name.strip().strip("()")
            stored = {c.name: naming.stored(c.name) for c in Tables.columns(table)}
            columns = []
            for part in listed.split(","):
                column = normalize(
                    exp.to_identifier(part.strip()) if part.strip().startswith('"') else part.strip()
                )
                if column not in stored:
                    raise InvalidIdentifier(f"invalid identifier '{naming.quote(column)}'")
                columns.append(stored[column])
        info = clustering_information(table, columns)
        if name == "SYSTEM$CLUSTERING_DEPTH":
            return exp.Literal.number(json.loads(info)["average_depth"])
        return exp.Literal.string(info)

    return tree.transform(replace, copy=False)

"""A table's clustering key and cube tree, kept in its Iceberg metadata, and the data files a
write produces under them."""

from __future__ import annotations

import functools
import json
import uuid

import pyarrow as pa
from pyiceberg.io.pyarrow import _dataframe_to_data_files
from pyiceberg.manifest import DataFile
from pyiceberg.table import Table, Transaction
from pyiceberg.transforms import IdentityTransform

from embucket_py.layout.keys import matrix
from embucket_py.layout.tree import CubeTree, build
from embucket_py.layout.writer import clustered_files

# Stored names of the key's columns (JSON list); other engines also see the key as the sort order.
KEY_PROPERTY = "embucket.clustering-key"
# Location of the cube tree's JSON file (in the table's metadata folder).
TREE_PROPERTY = "embucket.clustering-tree"


def clustering_key(table: Table) -> list[str] | None:
    text = table.properties.get(KEY_PROPERTY)
    return json.loads(text) if text else None


def tree_of(table: Table) -> CubeTree | None:
    location = table.properties.get(TREE_PROPERTY)
    return _read_tree(table, location) if location else None


@functools.lru_cache(maxsize=64)
def _cached_tree(location: str, text: str) -> CubeTree:
    return CubeTree.from_json(text)


def _read_tree(table: Table, location: str) -> CubeTree:
    with table.io.new_input(location).open() as f:
        text = f.read().decode()
    return _cached_tree(location, text)


def set_key(tx: Transaction, columns: list[str] | None) -> None:
    """CLUSTER BY (columns) or, with None, DROP CLUSTERING KEY (the files stay as they are)."""
    present = [p for p in (KEY_PROPERTY, TREE_PROPERTY) if p in tx.table_metadata.properties]
    if columns is None:
        if present:
            tx.remove_properties(*present)
        with tx.update_sort_order() as order:
            pass  # an empty update leaves the table unsorted
        return
    if TREE_PROPERTY in present:
        tx.remove_properties(TREE_PROPERTY)  # a tree over other columns no longer applies
    tx.set_properties({KEY_PROPERTY: json.dumps(columns)})
    with tx.update_sort_order() as order:
        for name in columns:
            order.asc(name, IdentityTransform())


def tree_location(table_location: str) -> str:
    """A new tree file's location (beside the table's metadata files; the Spark job writes there too)."""
    return f"{table_location.rstrip('/')}/metadata/clustering-{uuid.uuid4()}.json"


def save_tree(table: Table, tx: Transaction, tree: CubeTree) -> None:
    location = tree_location(table.location())
    with table.io.new_output(location).create(overwrite=True) as f:
        f.write(tree.to_json().encode())
    tx.set_properties({TREE_PROPERTY: location})


def new_data_files(table: Table, tx: Transaction, data: pa.Table) -> list[DataFile]:
    """The data files holding `data` (in the table's Arrow schema): laid out by the cube tree when
    the table has a clustering key (a first write builds the tree from its own rows)."""
    columns = clustering_key(table)
    if not columns:
        return list(_dataframe_to_data_files(tx.table_metadata, data, table.io))
    tree = tree_of(table)
    if tree is None or tree.columns != columns:
        tree = build(columns, matrix(data, columns))
        save_tree(table, tx, tree)
    return clustered_files(table, tx.table_metadata, data, tree)

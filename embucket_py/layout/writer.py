"""Writing rows into a clustered table: routed down the cube tree, one file per subtree and one
Parquet row group per leaf."""

from __future__ import annotations

import uuid

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from pyiceberg.io.pyarrow import parquet_file_to_data_file, schema_to_pyarrow
from pyiceberg.manifest import DataFile
from pyiceberg.table import Table
from pyiceberg.table.locations import load_location_provider
from pyiceberg.table.metadata import TableMetadata

from embucket_py.layout.keys import matrix
from embucket_py.layout.tree import CubeTree


def clustered_files(table: Table, metadata: TableMetadata, data: pa.Table, tree: CubeTree) -> list[DataFile]:
    """Writes `data` (already in the table's Arrow schema) as Iceberg data files laid out by `tree`."""
    if data.num_rows == 0:
        return []
    leaves = tree.leaves(matrix(data, tree.columns))
    order = np.argsort(leaves, kind="stable")
    data, leaves = data.take(pa.array(order)), leaves[order]
    files = tree.file_of(leaves)
    schema = schema_to_pyarrow(metadata.schema())
    data = data.rename_columns(schema.names).cast(schema)
    locations = load_location_provider(metadata.location, metadata.properties)
    written = []
    write_id = uuid.uuid4()
    for start, end in _runs(files):
        path = locations.new_data_location(f"{write_id}-{int(files[start]):05d}.parquet")
        with (
            table.io.new_output(path).create(overwrite=True) as out,
            pq.ParquetWriter(out, schema, compression="zstd", write_page_index=True) as writer,
        ):
            for leaf_start, leaf_end in _runs(leaves[start:end]):
                writer.write_table(data.slice(start + leaf_start, leaf_end - leaf_start))
        written.append(parquet_file_to_data_file(table.io, metadata, path))
    return written


def _runs(values: np.ndarray) -> list[tuple[int, int]]:
    """[start, end) of each run of equal values in a sorted array."""
    if len(values) == 0:
        return []
    edges = np.flatnonzero(values[1:] != values[:-1]) + 1
    starts = np.r_[0, edges]
    ends = np.r_[edges, len(values)]
    return list(zip(starts.tolist(), ends.tolist(), strict=True))

"""Writing rows into a clustered table: routed down the cube tree, one file per subtree, and each
leaf written as two Parquet row groups ("sample bands").

Every row draws a random weight. A leaf's rows with a weight under SAMPLE_BAND form its first row
group, the rest its second; both cover the leaf's box, so pruning stays as fine as the leaves.
Across the table the first bands hold a uniform random SAMPLE_BAND share of all rows, spread over
the whole key space (the idea of a cube tree whose nodes hold random samples of their cubes):
SAMPLE SYSTEM reads them to get a representative sample while reading only its share of bytes.
The band of each row group is recorded in the file's key-value metadata (BANDS_KEY).
"""

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

# Share of rows in the first band. A small first row group costs little scan speed (a 819 + 7,373
# row split scans ~15% slower than 8,192-row groups; four 2,048-row groups ~25-90% slower).
SAMPLE_BAND = 0.1
# Parquet key-value metadata: one digit per row group, its band (0: sample band, 1: the rest).
BANDS_KEY = "embucket.row-group-bands"


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
    rng = np.random.default_rng(write_id.int & 0xFFFFFFFF)
    for start, end in runs(files):
        path = locations.new_data_location(f"{write_id}-{int(files[start]):05d}.parquet")
        with table.io.new_output(path).create(overwrite=True) as out:
            write_leaves(out, schema, data.slice(start, end - start), leaves[start:end], rng)
        written.append(parquet_file_to_data_file(table.io, metadata, path))
    return written


def write_leaves(
    out: object, schema: pa.Schema, data: pa.Table, leaves: np.ndarray, rng: np.random.Generator
) -> None:
    """One Parquet file of consecutive leaves (rows sorted by leaf), each leaf in its bands."""
    bands: list[str] = []
    with pq.ParquetWriter(out, schema, compression="zstd", write_page_index=True) as writer:
        for start, end in runs(leaves):
            leaf = data.slice(start, end - start)
            sampled = rng.random(leaf.num_rows) < SAMPLE_BAND
            for band, rows in enumerate((np.flatnonzero(sampled), np.flatnonzero(~sampled))):
                if len(rows):
                    writer.write_table(leaf.take(pa.array(rows)), row_group_size=len(rows))
                    bands.append(str(band))
        writer.add_key_value_metadata({BANDS_KEY: "".join(bands)})


def runs(values: np.ndarray) -> list[tuple[int, int]]:
    """[start, end) of each run of equal values in a sorted array."""
    if len(values) == 0:
        return []
    edges = np.flatnonzero(values[1:] != values[:-1]) + 1
    starts = np.r_[0, edges]
    ends = np.r_[edges, len(values)]
    return list(zip(starts.tolist(), ends.tolist(), strict=True))

"""The same rows laid out four ways, each as Parquet files of the same size: as generated
(unclustered), sorted on the first key column (linear), by Z-order (Morton code of the key
columns' ranks) — these three in row groups of LEAF_ROWS rows — and by the project's cube tree,
written as the server writes clustered tables (leaves split into shuffled slices)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from embucket_py.layout.keys import matrix
from embucket_py.layout.tree import FILE_ROWS, LEAF_ROWS, build
from embucket_py.layout.writer import runs, write_leaves

LAYOUTS = ("unclustered", "linear", "zorder", "cube")


def generate(rows: int, seed: int = 0) -> pa.Table:
    """Several numeric and timestamp columns with different distributions, in random order."""
    rng = np.random.default_rng(seed)
    start = np.datetime64("2024-01-01T00:00:00", "us").astype(np.int64)
    year = 365 * 24 * 3600 * 1_000_000
    return pa.table(
        {
            "a": rng.random(rows),
            "b": rng.normal(100.0, 15.0, rows),
            "c": rng.integers(0, 1_000_000, rows),
            "ts": pa.array(start + (rng.random(rows) ** 2 * year).astype(np.int64), pa.timestamp("us")),
            "amount": rng.exponential(50.0, rows).round(2),
            "qty": rng.integers(1, 100, rows),
        }
    )


def _morton(coords: np.ndarray, bits: int = 21) -> np.ndarray:
    """Z-order: the key columns' ranks, scaled to `bits` bits each, bits interleaved."""
    scaled = []
    for j in range(coords.shape[1]):
        ranks = np.argsort(np.argsort(coords[:, j], kind="stable"), kind="stable")
        scaled.append((ranks * ((1 << bits) - 1) // max(len(ranks) - 1, 1)).astype(np.uint64))
    code = np.zeros(len(coords), dtype=np.uint64)
    for bit in range(bits):
        for j, values in enumerate(scaled):
            code |= ((values >> np.uint64(bit)) & np.uint64(1)) << np.uint64(bit * len(scaled) + j)
    return code


def order(layout: str, data: pa.Table, key: list[str]) -> tuple[np.ndarray, np.ndarray | None]:
    """Row order of a layout, and for the cube layout each row's (leaf) row group."""
    coords = matrix(data, key)
    if layout == "unclustered":
        return np.arange(data.num_rows), None
    if layout == "linear":
        return np.argsort(coords[:, 0], kind="stable"), None
    if layout == "zorder":
        return np.argsort(_morton(coords), kind="stable"), None
    tree = build(key, coords)
    leaves = tree.leaves(coords)
    by_leaf = np.argsort(leaves, kind="stable")
    return by_leaf, leaves[by_leaf]


def write(layout: str, data: pa.Table, key: list[str], folder: Path) -> list[Path]:
    """Writes one layout in files of about FILE_ROWS rows: the cube layout as the server writes
    clustered tables (leaves in sample bands), the others in row groups of LEAF_ROWS rows."""
    folder.mkdir(parents=True, exist_ok=True)
    rows, leaves = order(layout, data, key)
    data = data.take(pa.array(rows))
    if leaves is None:
        leaves = np.arange(data.num_rows) // LEAF_ROWS
    files = leaves // max(FILE_ROWS // LEAF_ROWS, 1)
    rng = np.random.default_rng(0)
    paths = []
    for start, end in runs(files):
        path = folder / f"part-{int(files[start]):05d}.parquet"
        part, part_leaves = data.slice(start, end - start), leaves[start:end]
        if layout == "cube":
            write_leaves(str(path), data.schema, part, part_leaves, rng)
        else:
            pq.write_table(part, path, row_group_size=LEAF_ROWS, compression="zstd", write_page_index=True)
        paths.append(path)
    return paths

"""The cube tree: median splits over the clustering columns, one column per level in turn."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np

# A leaf (one Parquet row group) holds about this many rows when the tree is built; a file (one
# subtree) about FILE_ROWS. Small row groups are what let a box filter skip most of a file.
LEAF_ROWS = 8192
FILE_ROWS = 1 << 20
# The tree is built from at most this many rows (a uniform sample): medians need no more.
SAMPLE_ROWS = 1 << 20


@dataclass(frozen=True)
class CubeTree:
    columns: list[str]  # stored names of the key's columns
    depth: int  # 2**depth leaves
    file_depth: int  # one data file per subtree at this level
    splits: np.ndarray  # node i (1-based, heap order) splits at splits[i - 1]
    rows: int  # rows the tree was built for

    @property
    def file_count(self) -> int:
        return 1 << self.file_depth

    def leaves(self, coords: np.ndarray) -> np.ndarray:
        """The leaf (0 .. 2**depth - 1) each row of a rows x columns matrix belongs to."""
        node = np.ones(len(coords), dtype=np.int64)
        for level in range(self.depth):
            split = self.splits[node - 1]
            node = 2 * node + (coords[:, level % len(self.columns)] >= split)
        return node - (1 << self.depth)

    def file_of(self, leaves: np.ndarray) -> np.ndarray:
        return leaves >> (self.depth - self.file_depth)

    def files_overlapping(self, lower: np.ndarray, upper: np.ndarray) -> list[int]:
        """Subtrees (file slots) whose box meets the box [lower, upper] (inclusive, per column)."""
        found: list[int] = []
        stack = [(1, 0)]
        while stack:
            node, level = stack.pop()
            if level == self.file_depth:
                found.append(node - (1 << self.file_depth))
                continue
            dim, split = level % len(self.columns), self.splits[node - 1]
            if lower[dim] < split:
                stack.append((2 * node, level + 1))
            if upper[dim] >= split:
                stack.append((2 * node + 1, level + 1))
        return sorted(found)

    def to_json(self) -> str:
        return json.dumps(
            {
                "columns": self.columns,
                "depth": self.depth,
                "file_depth": self.file_depth,
                "rows": self.rows,
                "splits": [None if math.isinf(v) else v for v in self.splits.tolist()],
            }
        )

    @classmethod
    def from_json(cls, text: str) -> CubeTree:
        d = json.loads(text)
        splits = np.array([np.inf if v is None else v for v in d["splits"]], dtype=np.float64)
        return cls(d["columns"], d["depth"], d["file_depth"], splits, d["rows"])


def build(columns: list[str], coords: np.ndarray, rows: int | None = None) -> CubeTree:
    """A tree for a table of `rows` rows (default: the coordinates given) from their coordinates."""
    rows = len(coords) if rows is None else rows
    depth = max(0, math.ceil(math.log2(rows / LEAF_ROWS))) if rows > LEAF_ROWS else 0
    file_depth = min(depth, max(0, math.ceil(math.log2(rows / FILE_ROWS)))) if rows > FILE_ROWS else 0
    if len(coords) > SAMPLE_ROWS:
        picked = np.random.default_rng(0).choice(len(coords), SAMPLE_ROWS, replace=False)
        coords = coords[picked]
    splits = np.full(max((1 << depth) - 1, 0), np.inf)
    # Level by level: rows are kept grouped by their node, and each node splits at its median.
    node = np.ones(len(coords), dtype=np.int64)
    for level in range(depth):
        dim = level % len(columns)
        values = coords[:, dim]
        order = np.lexsort((values, node))
        sorted_nodes, sorted_values = node[order], values[order]
        first = np.flatnonzero(np.r_[True, sorted_nodes[1:] != sorted_nodes[:-1]])
        last = np.r_[first[1:], len(order)]
        for start, end in zip(first, last, strict=True):
            splits[sorted_nodes[start] - 1] = sorted_values[(start + end) // 2]
        node = 2 * node + (values >= splits[node - 1])
    return CubeTree(columns, depth, file_depth, splits, rows)

"""Which data files RECLUSTER rewrites: the one rule shared by `ALTER TABLE ... RECLUSTER` (the
server, pyiceberg) and the Spark recluster job (Iceberg's Java API through the REST catalog)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from embucket_py.layout.tree import CubeTree

# A tree is rebuilt (and the table rewritten) once the table holds this many times the rows it was
# built for: its leaves would otherwise grow too large to prune well.
REBUILD_GROWTH = 4
# Files smaller than this share of a full subtree file are compacted by RECLUSTER.
SMALL_FILE_SHARE = 0.5


def needs_rebuild(tree: CubeTree | None, columns: list[str], rows: int) -> bool:
    """No tree yet, a tree over other columns, or a table that outgrew its tree: lay out anew."""
    return tree is None or tree.columns != columns or rows > REBUILD_GROWTH * tree.rows


def files_to_rewrite(
    tree: CubeTree, lowers: Sequence[np.ndarray], uppers: Sequence[np.ndarray], sizes: Sequence[int]
) -> list[int]:
    """Indexes of the files to rewrite under `tree`, given each file's box on the key columns and
    its size in bytes: files straddling subtrees (written without the tree, e.g. by Spark), and
    files too small for their subtree where the subtree holds more than one of them."""
    if not sizes:
        return []
    full_file = sum(sizes) / tree.file_count
    chosen: list[int] = []
    small: dict[int, list[int]] = {}
    for i, (lower, upper, size) in enumerate(zip(lowers, uppers, sizes, strict=True)):
        slots = tree.files_overlapping(lower, upper)
        if len(slots) > 1:
            chosen.append(i)
        elif slots and size < SMALL_FILE_SHARE * full_file:
            small.setdefault(slots[0], []).append(i)
    chosen += [i for group in small.values() if len(group) > 1 for i in group]
    return sorted(chosen)


def slots_of(tree: CubeTree, lowers: Sequence[np.ndarray], uppers: Sequence[np.ndarray]) -> list[int]:
    """The subtrees (file slots) the rows of files with these boxes can be routed to."""
    found: set[int] = set()
    for lower, upper in zip(lowers, uppers, strict=True):
        found.update(tree.files_overlapping(lower, upper))
    return sorted(found)

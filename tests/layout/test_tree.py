"""The cube tree: balanced leaves, exact routing, and box queries that find every file slot."""

from __future__ import annotations

import datetime

import numpy as np
import pyarrow as pa
import pytest

from embucket_py.layout.files import scalar_coordinate
from embucket_py.layout.keys import coordinates
from embucket_py.layout.tree import LEAF_ROWS, CubeTree, build


def test_leaves_hold_about_the_same_number_of_rows() -> None:
    coords = np.random.default_rng(7).random((40 * LEAF_ROWS, 3)) ** 3  # skewed on purpose
    tree = build(["a", "b", "c"], coords)
    counts = np.bincount(tree.leaves(coords), minlength=1 << tree.depth)
    assert tree.depth == 6
    assert counts.min() > 0.8 * counts.mean() and counts.max() < 1.2 * counts.mean()


def test_every_leaf_is_a_box_and_box_queries_find_every_slot_that_holds_matches() -> None:
    rng = np.random.default_rng(3)
    coords = rng.random((20 * LEAF_ROWS, 2))
    tree = build(["a", "b"], coords)
    tree = CubeTree(tree.columns, tree.depth, min(tree.depth, 3), tree.splits, tree.rows)
    slots = tree.file_of(tree.leaves(coords))
    for _ in range(50):
        low = rng.random(2) * 0.8
        high = low + rng.random(2) * 0.2
        inside = np.all((coords >= low) & (coords <= high), axis=1)
        found = set(tree.files_overlapping(low, high))
        assert set(slots[inside].tolist()) <= found
        assert len(found) < tree.file_count or tree.file_count <= 2


def test_the_tree_survives_its_json_form() -> None:
    coords = np.random.default_rng(1).random((5 * LEAF_ROWS, 2))
    tree = build(["x", "y"], coords)
    again = CubeTree.from_json(tree.to_json())
    assert (again.leaves(coords) == tree.leaves(coords)).all()


@pytest.mark.parametrize(
    ("values", "arrow_type"),
    [
        ([3, None, -1, 2], pa.int64()),
        ([1.5, -2.25, None], pa.float64()),
        (["b", "", None, "abc", "ab", "zzzzzzzzzz"], pa.string()),
        ([datetime.date(2024, 1, 2), datetime.date(1999, 12, 31), None], pa.date32()),
        ([datetime.datetime(2024, 1, 2, 3), datetime.datetime(1970, 1, 1)], pa.timestamp("us")),
    ],
)
def test_coordinates_keep_value_order_and_put_nulls_last(values: list, arrow_type: pa.DataType) -> None:
    coords = coordinates(pa.array(values, arrow_type))
    present = [v for v in values if v is not None]
    order = [values[i] for i in np.argsort(coords, kind="stable")]
    assert order[: len(present)] == sorted(present)
    assert all(v is None for v in order[len(present) :])
    for value, coord in zip(values, coords, strict=True):
        if value is not None:  # file bounds map to the same coordinates as the rows
            assert scalar_coordinate(value) == coord

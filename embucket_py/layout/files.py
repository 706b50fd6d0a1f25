"""What a table's data files cover in the clustering space, from their Iceberg column bounds."""

from __future__ import annotations

import datetime
import decimal
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from pyiceberg.conversions import from_bytes
from pyiceberg.manifest import DataFile
from pyiceberg.table import Table
from pyiceberg.types import NestedField

_EPOCH = datetime.date(1970, 1, 1)


def scalar_coordinate(value: object) -> float:
    """One bound as the coordinate `keys.coordinates` gives the same value."""
    if isinstance(value, str):
        value = value.encode()
    if isinstance(value, bytes):
        return float(int.from_bytes(value[:7].ljust(7, b"\0"), "big"))
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:  # naive timestamps are wall-clock values: read them as UTC
            value = value.replace(tzinfo=datetime.UTC)
        return float(int(value.timestamp() * 1_000_000))
    if isinstance(value, datetime.date):
        return float((value - _EPOCH).days)
    if isinstance(value, bool | int | float | decimal.Decimal):
        return float(value)
    return float("nan")


@dataclass(frozen=True)
class FileBox:
    file: DataFile
    lower: np.ndarray  # per key column; -inf where unknown
    upper: np.ndarray  # +inf where unknown (or where the column holds NULLs, which sort last)

    def overlaps(self, other: FileBox) -> bool:
        return bool(np.all(self.lower <= other.upper) and np.all(other.lower <= self.upper))

    @property
    def constant(self) -> bool:
        return bool(np.all(self.lower == self.upper))


def file_boxes(table: Table, files: list[DataFile], columns: list[str]) -> list[FileBox]:
    fields = [table.schema().find_field(name) for name in columns]
    return [
        FileBox(f, *bounds_box(fields, f.lower_bounds or {}, f.upper_bounds or {}, f.null_value_counts or {}))
        for f in files
    ]


def bounds_box(
    fields: list[NestedField],
    lower_bounds: Mapping[int, bytes],
    upper_bounds: Mapping[int, bytes],
    null_counts: Mapping[int, int],
) -> tuple[np.ndarray, np.ndarray]:
    """A file's box on the key columns from its Iceberg bounds (serialized, by field id), whoever
    read them: pyiceberg's manifests here, Iceberg's Java API in the Spark recluster job."""
    lower = np.full(len(fields), -np.inf)
    upper = np.full(len(fields), np.inf)
    for i, field in enumerate(fields):
        low, high = lower_bounds.get(field.field_id), upper_bounds.get(field.field_id)
        has_nulls = (null_counts.get(field.field_id) or 0) > 0
        if low is not None:
            lower[i] = scalar_coordinate(from_bytes(field.field_type, low))
        if high is not None and not has_nulls:
            upper[i] = scalar_coordinate(from_bytes(field.field_type, high))
    return lower, upper

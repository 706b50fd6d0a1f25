"""The values a write stores in a column: cast to the column's storage type and checked against
its rules, before anything is committed (INSERT, UPDATE, MERGE and CREATE TABLE AS alike)."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from embucket_py.catalog.tables import Column
from embucket_py.errors import (
    NullInNotNullColumn,
    NumericValueNotRecognized,
    SnowflakeError,
    out_of_range,
    string_too_long,
)
from embucket_py.types import MAX_VARCHAR, SfType, to_arrow


def conformed(
    column: Column, values: pa.Array | pa.ChunkedArray, filled_later: bool = False
) -> pa.ChunkedArray:
    """`values` in `column`'s storage type. Raises Snowflake's errors for a value the column cannot
    hold: a number with more integer digits than NUMBER(p, s) allows (or, for an integer column
    stored as a 64-bit long, beyond its range), NULL in a NOT NULL column (unless the writer
    fills it, as IDENTITY does), text longer than its VARCHAR(n)."""
    target = to_arrow(column.type)
    if values.type != target:
        try:
            cast = pc.cast(values, target)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
            raise _out_of_range(column.type, values, target) or NumericValueNotRecognized(
                str(e).split("\n")[0]
            ) from None
        values = cast
    if (
        column.type.kind == "FIXED"
        and pa.types.is_integer(target)
        and (error := _out_of_range(column.type, values, target))
    ):
        raise error  # a long's range is wider than NUMBER(p, 0)'s for p <= 18
    if not column.nullable and values.null_count and not filled_later:
        raise NullInNotNullColumn(f"NULL result in a non-nullable column '{column.name}'")
    limit = column.type.length if column.type.kind == "TEXT" else None
    if limit and limit < MAX_VARCHAR and len(values):
        too_long = pc.greater(pc.utf8_length(values), limit)
        if pc.any(too_long).as_py():
            raise string_too_long(pc.filter(values, too_long)[0].as_py())
    return values if isinstance(values, pa.ChunkedArray) else pa.chunked_array([values])


def conformed_table(columns: list[Column], data: pa.Table) -> pa.Table:
    """Every column of `data` (in `columns`' order) conformed; the names stay."""
    arrays = [conformed(c, a) for c, a in zip(columns, data.columns, strict=True)]
    return pa.table(arrays, names=data.column_names)


def _out_of_range(
    t: SfType, values: pa.Array | pa.ChunkedArray, target: pa.DataType
) -> SnowflakeError | None:
    """Snowflake's 100039 for a number past the column's integer digits (or past a long's range
    when the column is stored as one); None when every number fits or `values` are not numbers."""
    if t.kind != "FIXED" or not (pa.types.is_integer(values.type) or pa.types.is_decimal(values.type)):
        return None
    limit = 10 ** ((t.precision or 38) - (t.scale or 0))
    low, high = -limit, limit  # exclusive
    if pa.types.is_integer(target):
        low, high = max(low, -(1 << 63) - 1), min(high, 1 << 63)
    least, most = pc.min_max(values).as_py().values()
    if least is None or (low < least and most < high):
        return None
    return out_of_range(most if most >= high else least)

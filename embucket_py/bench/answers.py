"""Expected TPC-H answers and the comparison of a result against them, within the
specification's tolerances: the TPC's published reference answers (shipped in DuckDB's tpch
extension) for dbgen data, else DuckDB's own answer on the same tables."""

from __future__ import annotations

import datetime
import decimal
from typing import Any

import pyarrow as pa

SCALES_WITH_ANSWERS = (0.01, 0.1, 1.0)


def duckdb_connection() -> Any:
    """A DuckDB connection with the tpch and iceberg extensions loaded from their PyPI wheels."""
    import duckdb
    from duckdb_extensions import import_extension

    con = duckdb.connect()
    for name in ("tpch", "avro", "iceberg"):
        import_extension(name, con=con)
        con.sql(f"LOAD {name}")
    return con


def reference_answers(scale: float) -> dict[int, list[list[str]]]:
    """Query number -> rows of text cells (header dropped); empty if the scale has none."""
    if scale not in SCALES_WITH_ANSWERS:
        return {}
    rows = duckdb_connection().sql(
        f"SELECT query_nr, answer FROM tpch_answers() WHERE scale_factor = {scale}"
    )
    return {n: [line.split("|") for line in text.splitlines()[1:]] for n, text in rows.fetchall()}


def as_text_rows(table: pa.Table) -> list[list[str]]:
    """Another engine's result in the reference answers' text form."""
    return [["NULL" if v is None else _text(v) for v in row.values()] for row in table.to_pylist()]


def _text(value: Any) -> str:
    return value.isoformat() if isinstance(value, datetime.date) else str(value)


def _cell_matches(value: Any, expected: str) -> bool:
    if value is None:
        return expected in ("", "NULL")
    if isinstance(value, int | float | decimal.Decimal) and not isinstance(value, bool):
        # Money is exact to the cent; averages and ratios may differ in their last digits.
        got, want = float(value), float(expected)
        return abs(got - want) <= max(0.01, abs(want) * 1e-9)
    if isinstance(value, datetime.date):
        return value.isoformat() == expected.strip()
    return str(value).strip() == expected.strip()


def check(result: pa.Table, expected: list[list[str]]) -> str | None:
    """None when the result matches the reference answer, else what differs first."""
    rows = result.to_pylist()
    if len(rows) != len(expected):
        return f"{len(rows)} rows, expected {len(expected)}"
    for i, (row, want) in enumerate(zip(rows, expected, strict=True)):
        values = list(row.values())
        if len(values) != len(want):
            return f"row {i}: {len(values)} columns, expected {len(want)}"
        for value, cell in zip(values, want, strict=True):
            if not _cell_matches(value, cell):
                return f"row {i}: {value!r} != {cell!r}"
    return None

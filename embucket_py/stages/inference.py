"""The type INFER_SCHEMA gives a column of CSV text: the narrowest one all its values read as.

Whole numbers are NUMBER(p, 0) and decimals NUMBER(p, s) just wide enough for the values seen,
numbers with an exponent FLOAT, then BOOLEAN, DATE and TIMESTAMP_NTZ in their ISO forms; TEXT
otherwise (and for a column with no values).
https://docs.snowflake.com/en/sql-reference/functions/infer_schema
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

_MAX_DIGITS = 38
_DECIMAL = r"^[+-]?(?P<whole>\d*)\.?(?P<fraction>\d*)$"
_FLOAT = r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$"
_BOOLEAN = r"^(?i:true|false)$"
_DATE = r"^\d{4}-\d{2}-\d{2}$"
_TIMESTAMP = r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?$"


def text_type(values: pa.Array | pa.ChunkedArray) -> pa.DataType:
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    text = pc.utf8_trim_whitespace(pc.cast(values, pa.string()))
    present = pc.filter(text, pc.and_(pc.is_valid(text), pc.not_equal(text, "")))
    if len(present) == 0:
        return pa.string()
    if _all(present, _DECIMAL) and _all(present, r"\d"):
        return _number(present)
    if _all(present, _FLOAT):
        return pa.float64()
    for pattern, arrow_type in (
        (_BOOLEAN, pa.bool_()),
        (_DATE, pa.date32()),
        (_TIMESTAMP, pa.timestamp("ns")),
    ):
        if _all(present, pattern) and _parses(present, arrow_type):
            return arrow_type
    return pa.string()


def _all(values: pa.Array, pattern: str) -> bool:
    return bool(pc.all(pc.match_substring_regex(values, pattern)).as_py())


def _number(values: pa.Array) -> pa.DataType:
    parts = pc.extract_regex(values, _DECIMAL)
    whole = pc.utf8_ltrim(parts.field("whole"), "0")
    integer_digits = max(pc.max(pc.utf8_length(whole)).as_py() or 0, 1)
    scale = pc.max(pc.utf8_length(parts.field("fraction"))).as_py() or 0
    if integer_digits + scale > _MAX_DIGITS:
        return pa.string()
    return pa.decimal128(integer_digits + scale, scale)


def _parses(values: pa.Array, arrow_type: pa.DataType) -> bool:
    """Shaped like one is not enough: 2024-02-30 is no DATE."""
    try:
        pc.cast(pc.utf8_lower(values) if pa.types.is_boolean(arrow_type) else values, arrow_type)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return False
    return True

"""A Python value -> the Snowflake literal that holds it, to splice into a parsed statement.

Session variables (`$x`) know only the Python value; scripting variables also know their
declared Snowflake type, which then decides the literal's type (a typed NULL, a decimal's scale,
VARIANT rebuilt with PARSE_JSON, TIMESTAMP_LTZ told from _TZ).
"""

from __future__ import annotations

import math
from datetime import date, datetime, time
from decimal import Decimal
from typing import Any

from sqlglot import exp

from embucket_py.types import SfType

_INT64 = range(-(1 << 63), 1 << 63)


def _type(sql: str) -> exp.DataType:
    return exp.DataType.build(sql, dialect="snowflake")


def _integer(value: int) -> exp.Expression:
    # A negative number parses as Neg(literal): build the same tree the parser would.
    return exp.Literal.number(value) if value >= 0 else exp.Neg(this=exp.Literal.number(-value))


def _double(value: float) -> exp.Expression:
    # NaN and infinities have no numeric literal; Snowflake reads them from strings.
    text = exp.Literal.number(repr(value)) if math.isfinite(value) else exp.Literal.string(repr(value))
    return exp.cast(text, exp.DataType.build("DOUBLE"))


def _temporal(value: datetime | date | time, sf_type: SfType | None) -> exp.Expression:
    text = value.isoformat(sep=" ") if isinstance(value, datetime) else value.isoformat()
    if sf_type is not None:
        return exp.cast(exp.Literal.string(text), _type(sf_type.sql))
    if isinstance(value, datetime):
        kind = exp.DataType.Type.TIMESTAMPTZ if value.tzinfo else exp.DataType.Type.TIMESTAMP
    else:
        kind = exp.DataType.Type.DATE if isinstance(value, date) else exp.DataType.Type.TIME
    return exp.cast(exp.Literal.string(text), kind)


def literal(value: Any, sf_type: SfType | None = None) -> exp.Expression:
    """The literal for `value`; of type `sf_type` when given, else of the type the value implies."""
    kind = sf_type.kind if sf_type is not None else None
    if value is None:
        return exp.Null() if sf_type is None else exp.cast(exp.Null(), _type(sf_type.sql))
    if kind == "BOOLEAN" or isinstance(value, bool):
        return exp.Boolean(this=bool(value))
    if kind in (None, "FIXED") and isinstance(value, int | Decimal):
        if isinstance(value, int) and value in _INT64:
            return _integer(value)
        if sf_type is None:
            return exp.Literal.number(str(value) if isinstance(value, int) else format(value, "f"))
        # Beyond BIGINT, or a decimal: the declared NUMBER(p, s) keeps its scale.
        return exp.cast(exp.Literal.string(format(Decimal(value), "f")), _type(sf_type.sql))
    if kind in (None, "REAL") and isinstance(value, float):
        return _double(value)
    if kind in (None, "BINARY") and isinstance(value, bytes):
        return exp.HexString(this=value.hex())
    if isinstance(value, datetime | date | time):
        return _temporal(value, sf_type)
    if kind in ("VARIANT", "OBJECT", "ARRAY"):
        parsed = exp.func("PARSE_JSON", exp.Literal.string(str(value)))
        return parsed if kind == "VARIANT" else exp.cast(parsed, _type(kind))
    return exp.Literal.string(str(value))

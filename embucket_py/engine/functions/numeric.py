"""Numeric UDFs: the divisor check that turns a division by zero into Snowflake's error 100051."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
from datafusion import SessionContext, udf


def divisor(values: pa.Array) -> pa.Array:
    """The divisors unchanged, or an error when one is zero (DataFusion's float division gives inf)."""
    if pc.any(pc.equal(values, 0.0)).as_py():
        raise ZeroDivisionError("Division by zero")
    return values


_UDFS = [udf(divisor, [pa.float64()], pa.float64(), "immutable", "sf_divisor")]


def register(ctx: SessionContext) -> None:
    for function in _UDFS:
        ctx.register_udf(function)

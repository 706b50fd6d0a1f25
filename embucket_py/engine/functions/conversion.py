"""Conversion UDFs: Snowflake's auto-detected timestamps and boolean strings, vectorized with Arrow.

https://docs.snowflake.com/en/sql-reference/functions/to_timestamp
https://docs.snowflake.com/en/sql-reference/functions/to_boolean
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
from datafusion import SessionContext, udf

_TS = pa.timestamp("us")
# Integer strings are epoch values whose unit follows their size (seconds up to about year 2970).
_SCALE_LIMITS = ((31_536_000_000, 1_000_000), (31_536_000_000_000, 1000), (31_536_000_000_000_000, 1))
_INTEGER = r"^\s*[+-]?\d+\s*$"
_DECIMAL = r"^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$"
# ISO-like dates and timestamps Snowflake detects: date, optional [T ]time with fraction, optional
# zone offset (ignored: the result is a wall-clock TIMESTAMP_NTZ).
_ISO = r"^\s*\d{4}-\d{1,2}-\d{1,2}([T ]\d{1,2}:\d{2}(:\d{2}(\.\d{1,9})?)?)?\s*(Z|[+-]\d{2}(:?\d{2})?)?\s*$"
_TRUE = pa.array(["true", "t", "yes", "y", "on", "1"])
_FALSE = pa.array(["false", "f", "no", "n", "off", "0"])


def _epoch_micros(values: pa.Array) -> pa.Array:
    """Integer epoch values scaled to microseconds by their magnitude."""
    ints = pc.cast(values, pa.int64())
    size = pc.abs(ints)
    micros = pc.multiply(ints, 1_000_000)
    for limit, factor in reversed(_SCALE_LIMITS):
        scaled = pc.multiply(ints, factor) if factor > 1 else ints
        micros = pc.if_else(pc.less(size, limit), scaled, micros)
    big = pc.greater_equal(size, _SCALE_LIMITS[-1][0])
    return pc.if_else(big, pc.divide(ints, 1000), micros)


def _iso(values: pa.Array) -> pa.Array:
    text = pc.utf8_trim_whitespace(values)
    text = pc.replace_substring_regex(text, r"(:\d{2}(\.\d+)?)\s*(Z|[+-]\d{2}(:?\d{2})?)$", r"\1")
    text = pc.replace_substring(text, "T", " ")
    # One-digit months/days and a missing seconds field, as Snowflake accepts them.
    text = pc.replace_substring_regex(text, r"^(\d{4})-(\d)-", r"\1-0\2-")
    text = pc.replace_substring_regex(text, r"^(\d{4}-\d{2})-(\d)(\D|$)", r"\1-0\2\3")
    text = pc.replace_substring_regex(text, r" (\d):", " 0\\1:")
    text = pc.replace_substring_regex(text, r" (\d{2}:\d{2})$", r" \1:00")
    return pc.cast(text, _TS)


def parse_timestamps(values: pa.Array, strict: bool) -> pa.Array:
    """Strings -> TIMESTAMP_NTZ(6) values, NULL where unrecognized (or an error when strict)."""
    values = pc.cast(values, pa.string())
    integer = pc.fill_null(pc.match_substring_regex(values, _INTEGER), False)
    decimal = pc.and_(pc.fill_null(pc.match_substring_regex(values, _DECIMAL), False), pc.invert(integer))
    iso = pc.fill_null(pc.match_substring_regex(values, _ISO), False)
    if strict:
        bad = pc.and_(pc.invert(pc.or_(pc.or_(integer, decimal), iso)), pc.is_valid(values))
        if pc.any(bad).as_py():
            first = pc.filter(values, bad)[0].as_py()
            raise ValueError(f"Timestamp '{first}' is not recognized")
    result = pa.nulls(len(values), _TS)
    if pc.any(integer).as_py():
        micros = _epoch_micros(pc.if_else(integer, values, "0"))
        result = pc.if_else(integer, pc.cast(micros, _TS), result)
    if pc.any(decimal).as_py():
        seconds = pc.cast(pc.if_else(decimal, values, "0"), pa.float64())
        micros = pc.cast(pc.round(pc.multiply(seconds, 1_000_000)), pa.int64())
        result = pc.if_else(decimal, pc.cast(micros, _TS), result)
    if pc.any(iso).as_py():
        result = pc.if_else(iso, _iso(pc.if_else(iso, values, "1970-01-01")), result)
    return result


def parse_booleans(values: pa.Array, strict: bool) -> pa.Array:
    """Snowflake's boolean strings ('yes', 'on', 't', '0', ...), case-insensitive."""
    text = pc.utf8_lower(pc.utf8_trim_whitespace(pc.cast(values, pa.string())))
    true, false = pc.is_in(text, _TRUE), pc.is_in(text, _FALSE)
    number = pc.fill_null(pc.match_substring_regex(text, _DECIMAL), False)
    known = pc.or_(pc.or_(true, false), number)
    if strict:
        bad = pc.and_(pc.invert(known), pc.is_valid(text))
        if pc.any(bad).as_py():
            raise ValueError(f"Boolean value '{pc.filter(values, bad)[0].as_py()}' is not recognized")
    nonzero = pc.not_equal(pc.cast(pc.if_else(number, text, "0"), pa.float64()), 0.0)
    result = pc.if_else(true, True, pc.if_else(false, False, pc.if_else(number, nonzero, None)))
    return pc.cast(result, pa.bool_())


_UDFS = [
    udf(lambda v: parse_timestamps(v, True), [pa.string()], _TS, "immutable", "sf_to_timestamp"),
    udf(lambda v: parse_timestamps(v, False), [pa.string()], _TS, "immutable", "sf_try_to_timestamp"),
    udf(lambda v: parse_booleans(v, True), [pa.string()], pa.bool_(), "immutable", "sf_to_boolean"),
    udf(lambda v: parse_booleans(v, False), [pa.string()], pa.bool_(), "immutable", "sf_try_to_boolean"),
]


def register(ctx: SessionContext) -> None:
    for function in _UDFS:
        ctx.register_udf(function)

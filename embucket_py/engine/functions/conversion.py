"""Conversion UDFs: Snowflake's auto-detected timestamps and boolean strings, vectorized with Arrow.

https://docs.snowflake.com/en/sql-reference/functions/to_timestamp
https://docs.snowflake.com/en/sql-reference/functions/to_boolean
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

import pyarrow as pa
import pyarrow.compute as pc
from datafusion import SessionContext, udf

from embucket_py.engine.functions.variant import MISSING, parsed
from embucket_py.engine.functions.variant_values import dumps
from embucket_py.errors import not_recognized

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
    # Digits past microseconds (binds send nanoseconds) are cut: the type holds microseconds.
    text = pc.replace_substring_regex(text, r"(\.\d{6})\d+$", r"\1")
    try:
        return pc.cast(text, _TS)
    except pa.ArrowInvalid:  # shaped like one, but no such day or time (2020-02-30, 25:00): NULL
        return pa.array([_timestamp_or_none(t) for t in text.to_pylist()], _TS)


def _timestamp_or_none(text: str | None) -> object:
    try:
        return pa.scalar(text, pa.string()).cast(_TS)
    except pa.ArrowInvalid:
        return None


def parse_timestamps(values: pa.Array, strict: bool, kind: str = "TIMESTAMP_NTZ") -> pa.Array:
    """Strings -> TIMESTAMP_NTZ(6) values, NULL where unrecognized (or, when strict, Snowflake's
    error for `kind`: a DATE's text that is no date is "Date '...' is not recognized")."""
    values = pc.cast(values, pa.string())
    integer = pc.fill_null(pc.match_substring_regex(values, _INTEGER), False)
    decimal = pc.and_(pc.fill_null(pc.match_substring_regex(values, _DECIMAL), False), pc.invert(integer))
    iso = pc.fill_null(pc.match_substring_regex(values, _ISO), False)
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
    unknown = pc.and_(pc.invert(pc.or_(pc.or_(integer, decimal), iso)), pc.is_valid(values))
    if pc.any(unknown).as_py():
        result = pc.if_else(unknown, _other_forms(values), result)
    if strict:
        bad = pc.and_(pc.is_null(result), pc.is_valid(values))
        if pc.any(bad).as_py():
            raise not_recognized(kind, pc.filter(values, bad)[0].as_py())
    return result


# The other forms Snowflake's AUTO detection reads: DD-MON-YYYY and MM/DD/YYYY, with a time.
_OTHER_FORMS = ("%d-%b-%Y", "%m/%d/%Y")
_TIMES = ("", " %H:%M:%S", " %H:%M")


def _other_forms(values: pa.Array) -> pa.Array:
    text = pc.utf8_trim_whitespace(values)
    result = pa.nulls(len(values), _TS)
    for date in _OTHER_FORMS:
        for time in _TIMES:
            parsed = pc.strptime(text, format=date + time, unit="us", error_is_null=True)
            result = pc.coalesce(result, parsed)
    return result


def parse_formatted(values: pa.Array, formats: pa.Array, kind: str, strict: bool) -> pa.Array:
    """Strings read with an explicit format (strptime spelling; %f for any fraction) -> TIMESTAMP_NTZ
    values, NULL where one does not match (or an error when strict). A time-only format gives
    1900-01-01, which TIME drops."""
    text = pc.cast(values, pa.string())
    fmt = formats[0].as_py() if len(formats) else ""
    if "%f" in fmt:  # Arrow's strptime reads no fractions; Python's reads up to microseconds
        text = pc.replace_substring_regex(text, r"(\.\d{6})\d+", r"\1")
        result = pa.nulls(len(text), _TS)
    else:
        result = pc.strptime(text, format=fmt, unit="us", error_is_null=True)
    missing = pc.and_(pc.is_null(result), pc.is_valid(text))
    if pc.any(missing).as_py():
        parsed = {t: _strptime_or_none(t, fmt) for t in pc.unique(pc.filter(text, missing)).to_pylist()}
        retried = pa.array([parsed.get(t) for t in text.to_pylist()], _TS)
        result = pc.coalesce(result, retried)
        if strict:
            bad = pc.and_(pc.is_null(result), pc.is_valid(text))
            if pc.any(bad).as_py():
                raise not_recognized(kind, pc.filter(values, bad)[0].as_py())
    return result


def _strptime_or_none(text: str, fmt: str) -> datetime | None:
    try:
        return datetime.strptime(text, fmt)
    except ValueError:
        return None


def parse_booleans(values: pa.Array, strict: bool) -> pa.Array:
    """Snowflake's boolean strings ('yes', 'on', 't', '0', ...), case-insensitive."""
    text = pc.utf8_lower(pc.utf8_trim_whitespace(pc.cast(values, pa.string())))
    true, false = pc.is_in(text, _TRUE), pc.is_in(text, _FALSE)
    number = pc.fill_null(pc.match_substring_regex(text, _DECIMAL), False)
    known = pc.or_(pc.or_(true, false), number)
    if strict:
        bad = pc.and_(pc.invert(known), pc.is_valid(text))
        if pc.any(bad).as_py():
            raise not_recognized("BOOLEAN", pc.filter(values, bad)[0].as_py())
    nonzero = pc.not_equal(pc.cast(pc.if_else(number, text, "0"), pa.float64()), 0.0)
    result = pc.if_else(true, True, pc.if_else(false, False, pc.if_else(number, nonzero, None)))
    return pc.cast(result, pa.bool_())


_UTC = pa.timestamp("us", tz="UTC")
_ZONE_SUFFIX = r"(Z|[+-]\d{2}(:?\d{2})?)\s*$"


def _offset_minutes(values: pa.Array) -> pa.Array:
    """Minutes east of UTC written after the time of ISO strings (NULL where none is written; a
    date's day is no offset)."""
    parts = pc.extract_regex(values, r":\d{2}(?:\.\d+)?\s*(?P<sign>[+-])(?P<h>\d{2}):?(?P<m>\d{2})?\s*$")
    hours = pc.cast(pc.struct_field(parts, "h"), pa.int64())
    minutes = pc.cast(
        pc.if_else(pc.equal(pc.struct_field(parts, "m"), ""), "0", pc.struct_field(parts, "m")), pa.int64()
    )
    total = pc.add(pc.multiply(hours, 60), minutes)
    signed = pc.if_else(pc.equal(pc.struct_field(parts, "sign"), "-"), pc.negate(total), total)
    zulu = pc.fill_null(pc.match_substring_regex(values, r"\d\s*Z\s*$"), False)
    return pc.if_else(zulu, 0, signed)


def parse_instants(values: pa.Array, zones: pa.Array, strict: bool) -> pa.Array:
    """Strings -> TIMESTAMP_LTZ/TZ instants: a written offset wins, else the wall clock is read in
    the given zone (the session's); epoch numbers are UTC already."""
    values = pc.cast(values, pa.string())
    walls = parse_timestamps(values, strict)
    zone = zones[0].as_py() if len(zones) else "UTC"
    epoch = pc.fill_null(pc.match_substring_regex(values, _DECIMAL), False)
    offset = _offset_minutes(values)
    raw = walls.view(pa.int64())
    shifted = pc.subtract(raw, pc.multiply(pc.fill_null(offset, 0), 60_000_000))
    local = pc.assume_timezone(walls, timezone=zone, ambiguous="earliest", nonexistent="earliest")
    in_zone = local.view(pa.int64())
    written = pc.and_(pc.is_valid(offset), pc.invert(epoch))
    micros = pc.if_else(epoch, raw, pc.if_else(written, shifted, in_zone))
    return micros.view(_UTC) if isinstance(micros, pa.Array) else pc.cast(micros, _UTC)


def variant_timestamps(values: pa.Array, zones: pa.Array, instant: bool, strict: bool) -> pa.Array:
    """VARIANT -> timestamp. A JSON number is an epoch instant (its unit by its size, as for
    integer strings); as TIMESTAMP_NTZ it is that instant's wall clock in the session's zone, as on
    Snowflake (`PARSE_JSON(0)::TIMESTAMP_NTZ` is 1969-12-31 16:00:00 in Los Angeles), while a
    plain number or integer string gives the UTC wall clock. A JSON string converts as a string."""
    items = parsed(values)
    is_number = pa.array([_is_number(v) for v in items], pa.bool_())
    strings = pa.array([v if isinstance(v, str) else None for v in items], pa.string())
    if strict:
        other = next(
            (v for v in items if v not in (MISSING, None) and not isinstance(v, str) and not _is_number(v)),
            None,
        )
        if other is not None:
            raise not_recognized("TIMESTAMP_NTZ", dumps(other))
    integers = pa.array([int(v) if _is_number(v) and v == int(v) else None for v in items], pa.int64())
    micros = pc.coalesce(
        _epoch_micros(integers),
        pa.array([round(float(v) * 1_000_000) if _is_number(v) else None for v in items], pa.int64()),
    )
    epochs = micros.view(_UTC)
    zone = zones[0].as_py() if len(zones) else "UTC"
    if instant:
        return pc.if_else(is_number, epochs, parse_instants(strings, zones, strict))
    walls = pc.local_timestamp(pc.cast(epochs, pa.timestamp("us", tz=zone)))
    return pc.if_else(is_number, walls, parse_timestamps(strings, strict))


def _is_number(value: object) -> bool:
    return isinstance(value, int | float | Decimal) and not isinstance(value, bool)


_UDFS = [
    udf(
        lambda v, z: parse_instants(v, z, True),
        [pa.string(), pa.string()],
        _UTC,
        "immutable",
        "sf_to_instant",
    ),
    udf(
        lambda v, z: parse_instants(v, z, False),
        [pa.string(), pa.string()],
        _UTC,
        "immutable",
        "sf_try_to_instant",
    ),
    udf(lambda v: parse_timestamps(v, True), [pa.string()], _TS, "immutable", "sf_to_timestamp"),
    udf(lambda v: parse_timestamps(v, False), [pa.string()], _TS, "immutable", "sf_try_to_timestamp"),
    udf(lambda v: parse_timestamps(v, True, "DATE"), [pa.string()], _TS, "immutable", "sf_to_date_timestamp"),
    udf(
        lambda v, z: variant_timestamps(v, z, False, True),
        [pa.string(), pa.string()],
        _TS,
        "immutable",
        "sf_variant_to_timestamp",
    ),
    udf(
        lambda v, z: variant_timestamps(v, z, False, False),
        [pa.string(), pa.string()],
        _TS,
        "immutable",
        "sf_try_variant_to_timestamp",
    ),
    udf(
        lambda v, z: variant_timestamps(v, z, True, True),
        [pa.string(), pa.string()],
        _UTC,
        "immutable",
        "sf_variant_to_instant",
    ),
    udf(
        lambda v, z: variant_timestamps(v, z, True, False),
        [pa.string(), pa.string()],
        _UTC,
        "immutable",
        "sf_try_variant_to_instant",
    ),
    udf(
        lambda v, f: parse_formatted(v, f, "TIME", True),
        [pa.string(), pa.string()],
        _TS,
        "immutable",
        "sf_strptime_time",
    ),
    udf(
        lambda v, f: parse_formatted(v, f, "", False),
        [pa.string(), pa.string()],
        _TS,
        "immutable",
        "sf_try_strptime",
    ),
    udf(lambda v: parse_booleans(v, True), [pa.string()], pa.bool_(), "immutable", "sf_to_boolean"),
    udf(lambda v: parse_booleans(v, False), [pa.string()], pa.bool_(), "immutable", "sf_try_to_boolean"),
]


def register(ctx: SessionContext) -> None:
    for function in _UDFS:
        ctx.register_udf(function)

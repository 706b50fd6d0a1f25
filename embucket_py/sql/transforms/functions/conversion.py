"""Snowflake conversion functions (TO_TIMESTAMP*, TO_DATE, TO_NUMBER, TO_BOOLEAN, TRY_*) -> DataFusion.

https://docs.snowflake.com/en/sql-reference/functions-conversion
"""

from __future__ import annotations

import re

from sqlglot import exp

from embucket_py.errors import Unsupported
from embucket_py.sql.context import active, parameter
from embucket_py.sql.transforms.functions.column_kinds import stored_kind
from embucket_py.sql.transforms.functions.numeric import number_scale
from embucket_py.sql.transforms.functions.semistructured import SEMI_TYPES
from embucket_py.sql.transforms.functions.temporal import (
    COMPARISONS,
    call,
    cast,
    chrono_format,
    int64,
    intdiv,
    kind_of,
    mul,
    number,
    rewrite_all,
    snowflake_format,
    string,
)
from embucket_py.sql.transforms.functions.zones import (
    in_session_zone,
    instant_of,
    session_timezone,
    wall_of,
    zone_name,
)
from embucket_py.types import MAX_VARCHAR

_UTC = 'Timestamp(Microsecond, Some("UTC"))'
_NTZ = "Timestamp(Microsecond, None)"
_TZ_NAMES = ("TO_TIMESTAMP_LTZ", "TO_TIMESTAMP_TZ", "TRY_TO_TIMESTAMP_LTZ", "TRY_TO_TIMESTAMP_TZ")
_TIMESTAMP_NAMES = (
    "TO_TIMESTAMP",
    "TO_TIMESTAMP_NTZ",
    "TRY_TO_TIMESTAMP",
    "TRY_TO_TIMESTAMP_NTZ",
    *_TZ_NAMES,
)
# A zone offset at the end of a timestamp string: Snowflake drops it when the target is NTZ.
_OFFSET = re.compile(r"(\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)\s*(?:Z|[+-]\d{2}(?::?\d{2})?)$")


def _target(node: exp.Expression, tz: bool) -> exp.Expression:
    return call("arrow_cast", node, string(_UTC if tz else _NTZ))


def to_timestamp(value: exp.Expression, tz: bool, safe: bool) -> exp.Expression:
    """TO_TIMESTAMP_* of one argument: strings are auto-detected (ISO forms, epoch numbers). For
    LTZ/TZ a wall clock (NTZ, DATE, a string without offset) is read in the session's time zone."""
    if _semi_structured(value):
        # As a cast, which the semi-structured rewrite (run next) turns into its VARIANT UDF.
        to = exp.DataType.build("TIMESTAMP_LTZ" if tz else "TIMESTAMP_NTZ", dialect="snowflake")
        return (exp.TryCast if safe else exp.Cast)(this=value, to=to)
    kind = kind_of(value) or _column_kind(value)
    if kind == "timestamptz" and not tz:
        return wall_of(value)  # an instant's wall clock in the session's zone
    if kind == "timestamptz" or (kind == "timestamp" and not tz):
        return _target(value, tz)
    if kind == "timestamp":
        return instant_of(value)
    if kind == "date":
        return instant_of(cast(value, "TIMESTAMP")) if tz else _target(cast(value, "TIMESTAMP"), tz)
    if kind == "number":
        return _epoch(value, 0, tz)
    if tz:
        parse = "sf_try_to_instant" if safe else "sf_to_instant"
        return call(parse, cast(value, "VARCHAR"), string(zone_name(session_timezone())))
    parse = "sf_try_to_timestamp" if safe else "sf_to_timestamp"
    return _target(call(parse, cast(value, "VARCHAR")), tz)


def _semi_structured(node: exp.Expression) -> bool:
    """A VARIANT as the SQL shows it (before the semi-structured rewrite): PARSE_JSON, a path, ..."""
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Cast):
        return node.to.this in SEMI_TYPES
    return isinstance(node, exp.ParseJSON | exp.JSONExtract | exp.GetExtract | exp.ToVariant)


def _epoch(value: exp.Expression, scale: int, tz: bool) -> exp.Expression:
    """A number of seconds (scale 0), milliseconds (3), ... since the epoch -> timestamp."""
    if scale <= 6:
        micros = int64(mul(value, number(10 ** (6 - scale))))
    else:
        micros = intdiv(value, number(10 ** (scale - 6)))
    return _target(call("arrow_cast", micros, string(_NTZ)), tz)


def _to_timestamp_anon(node: exp.Anonymous) -> exp.Expression:
    name = node.name.upper()
    args = list(node.expressions)
    tz, safe = name in _TZ_NAMES, name.startswith("TRY_")
    if len(args) == 1:
        return to_timestamp(args[0], tz, safe)
    if len(args) == 2 and args[1].is_int:
        return _epoch(args[0], int(args[1].to_py()), tz)
    raise Unsupported(f"{name} with a format given this way")


def _str_to_time(node: exp.StrToTime) -> exp.Expression:
    target = node.args.get("target_type")
    tz = target is not None and target.is_type(exp.DType.TIMESTAMPTZ, exp.DType.TIMESTAMPLTZ)
    if node.args.get("safe"):
        wall = _strptime("sf_try_strptime", node.this, node.args["format"])
    else:
        wall = call("to_timestamp_micros", node.this, chrono_format(node.args["format"]))
    return instant_of(wall) if tz else _target(wall, tz)


def _unix_to_time(node: exp.UnixToTime) -> exp.Expression:
    scale = node.args.get("scale")
    if scale is not None and not scale.is_int:
        raise Unsupported("TO_TIMESTAMP with a scale that is not a constant")
    target = node.args.get("target_type")
    tz = target is not None and target.is_type(exp.DType.TIMESTAMPTZ, exp.DType.TIMESTAMPLTZ)
    if scale is None and kind_of(node.this) != "number":
        return to_timestamp(node.this, tz, safe=False)
    return _epoch(node.this, int(scale.to_py()) if scale is not None else 0, tz)


def _to_date(node: exp.Expression) -> exp.Expression:
    fmt, safe, value = node.args.get("format"), bool(node.args.get("safe")), node.this
    return to_date(value, fmt, safe)


def to_date(value: exp.Expression, fmt: exp.Expression | None, safe: bool) -> exp.Expression:
    if fmt is None and "string" in (kind_of(value), _column_kind(value)):
        fmt = _input_format("DATE_INPUT_FORMAT")
    if fmt is not None:
        if safe:
            return cast(_strptime("sf_try_strptime", value, fmt), "DATE")
        return call("to_date", value, chrono_format(fmt))
    kind = kind_of(value)
    if kind == "date":
        return value
    if kind == "timestamp":
        return cast(value, "DATE")
    if kind == "timestamptz":  # the date on the session zone's calendar
        return cast(wall_of(value), "DATE")
    if not safe and "string" in (kind, _column_kind(value)):  # text that is no date: Date '...' error
        return cast(_target(call("sf_to_date_timestamp", cast(value, "VARCHAR")), False), "DATE")
    return cast(to_timestamp(value, False, safe), "DATE")


def _strptime(udf: str, value: exp.Expression, fmt: exp.Expression) -> exp.Expression:
    """A string read by one of the formatted-parse UDFs, with the format in strptime's spelling
    (chrono's %3f, %6f, %9f -> %f: the UDF reads any fraction)."""
    python_format = re.sub(r"%[369]f", "%f", chrono_format(fmt).name)
    return call(udf, cast(value, "VARCHAR"), string(python_format))


def _to_time(node: exp.Expression) -> exp.Expression:
    fmt = node.args.get("format")
    if fmt is not None:
        safe = bool(node.args.get("safe"))
        return cast(_strptime("sf_try_strptime" if safe else "sf_strptime_time", node.this, fmt), "TIME")
    to = exp.DataType.build("TIME")
    if node.args.get("safe"):
        return exp.TryCast(this=node.this, to=to)
    return exp.Cast(this=node.this, to=to)


def _to_number(node: exp.ToNumber) -> exp.Expression:
    precision, scale = node.args.get("precision"), node.args.get("scale")
    p = int(precision.to_py()) if precision is not None and precision.is_int else 38
    s = int(scale.to_py()) if scale is not None and scale.is_int else 0
    value = node.this
    if node.args.get("format") is not None:
        # Group separators and currency signs carry no value.
        value = call("regexp_replace", cast(value, "VARCHAR"), string(r"[,$\s]"), string(""), string("g"))
    to = exp.DataType.build(f"NUMBER({p}, {s})", dialect="snowflake")
    safe = bool(node.args.get("safe"))
    if kind_of(value) in ("string", None) and s == 0:
        # Strings with a fraction round to the scale, as Snowflake does (TRY_: NULL for no number).
        wide = exp.DataType.build(f"NUMBER(38, {min(s + 6, 37)})", dialect="snowflake")
        value = call("round", exp.TryCast(this=value, to=wide) if safe else cast(value, wide), number(s))
    return exp.TryCast(this=value, to=to) if safe else exp.Cast(this=value, to=to)


def _to_double(node: exp.ToDouble) -> exp.Expression:
    to = exp.DataType.build("DOUBLE")
    return exp.TryCast(this=node.this, to=to) if node.args.get("safe") else exp.Cast(this=node.this, to=to)


def _to_boolean(node: exp.ToBoolean) -> exp.Expression:
    value = node.this
    if kind_of(value) == "number":
        return exp.NEQ(this=value, expression=number(0))
    safe = bool(node.args.get("safe"))
    return call("sf_try_to_boolean" if safe else "sf_to_boolean", cast(value, "VARCHAR"))


def _ntz_literal(node: exp.Cast) -> exp.Expression:
    """'...-07:00'::TIMESTAMP_NTZ keeps the wall clock: Snowflake ignores the offset."""
    literal = node.this
    ntz = node.to.is_type(exp.DType.TIMESTAMP, exp.DType.TIMESTAMPNTZ)
    if ntz and isinstance(literal, exp.Literal) and literal.is_string and _OFFSET.search(literal.name):
        node.set("this", string(_OFFSET.sub(r"\1", literal.name)))
    return node


# Formats of TO_BINARY / TO_VARCHAR(binary): https://docs.snowflake.com/en/sql-reference/binary-input-output
BINARY_FORMATS = ("HEX", "BASE64", "UTF-8", "UTF8")
_VALID_TEXT = {
    "HEX": r"^\s*([0-9A-Fa-f]{2})*\s*$",
    "BASE64": r"^\s*([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2,3})?\s*$",
}


def binary_format(fmt: exp.Expression | None, default: str = "HEX") -> str | None:
    """The binary format a literal names (None: not a binary format)."""
    if fmt is None:
        return default
    if not isinstance(fmt, exp.Literal) or not fmt.is_string:
        raise Unsupported("a binary format that is not a constant string")
    name = fmt.name.strip().upper()
    return name if name in BINARY_FORMATS else None


def _to_binary(node: exp.ToBinary) -> exp.Expression:
    """TO_BINARY / TRY_TO_BINARY(text [, 'HEX' | 'BASE64' | 'UTF-8']); TRY_ gives NULL for text
    the format cannot decode. https://docs.snowflake.com/en/sql-reference/functions/to_binary"""
    fmt = binary_format(node.args.get("format"))
    if fmt is None:
        raise Unsupported(f"TO_BINARY format {node.args['format'].sql()}")
    value = node.this
    if fmt in ("UTF-8", "UTF8"):  # the text's own bytes: a cast marked not to read hex
        raw = exp.Cast(this=cast(value, "VARCHAR"), to=exp.DataType.build("BINARY"))
        raw.meta["raw_bytes"] = True
        return raw
    text = call("btrim", cast(value, "VARCHAR"))
    decoded = call("decode", text, string(fmt.lower()))
    if not node.args.get("safe"):
        return decoded
    valid = call("regexp_like", text.copy(), string(_VALID_TEXT[fmt]))
    return exp.Case(ifs=[exp.If(this=valid, true=decoded)])


def binary_to_text(value: exp.Expression, fmt: str) -> exp.Expression:
    """TO_VARCHAR(binary, format)."""
    if fmt == "HEX":
        return call("upper", call("encode", value, string("hex")))
    if fmt == "BASE64":
        raw = call("encode", value, string("base64"))
        # DataFusion leaves out the padding Snowflake writes.
        quads = intdiv(exp.Add(this=call("length", raw.copy()), expression=number(3)), number(4))
        size = mul(quads, number(4))
        return call("rpad", raw, size, string("="))
    return cast(value, "VARCHAR")


def _zoned_cast(node: exp.Cast) -> exp.Expression:
    """A string, DATE or TIMESTAMP_NTZ cast to TIMESTAMP_LTZ/TZ is a wall clock in the session's zone."""
    kind = kind_of(node.this) or _column_kind(node.this)
    if kind in ("string", "date", "timestamp"):
        return to_timestamp(node.this, tz=True, safe=isinstance(node, exp.TryCast))
    return node


_PLAIN_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}( \d{2}:\d{2}:\d{2}(\.\d{1,6})?)?$")


def _text_cast(node: exp.Cast) -> exp.Expression | None:
    """Casts of text Snowflake reads its own way: timestamps and dates auto-detected (DD-MON-YYYY,
    MM/DD/YYYY, epochs, ISO), BINARY from hex, and TRY_CAST to a VARCHAR(n) too short for the
    value is NULL."""
    safe = isinstance(node, exp.TryCast)
    to = node.to
    value = node.this
    if to.is_type(exp.DType.DATE) and _input_format("DATE_INPUT_FORMAT") is not None:
        return to_date(value, None, safe)
    temporal = to.is_type(exp.DType.TIMESTAMP, exp.DType.TIMESTAMPNTZ, exp.DType.DATETIME, exp.DType.DATE)
    if temporal and isinstance(value, exp.Literal) and _PLAIN_ISO.match(value.name):
        return None  # DataFusion's own cast reads plain ISO text the same way
    if to.is_type(exp.DType.TIMESTAMP, exp.DType.TIMESTAMPNTZ, exp.DType.DATETIME):
        return to_timestamp(node.this, tz=False, safe=safe)
    if to.is_type(exp.DType.DATE):
        return to_date(node.this, None, safe)
    if to.is_type(exp.DType.BINARY, exp.DType.VARBINARY) and not node.meta.get("raw_bytes"):
        # Text becomes BINARY by BINARY_INPUT_FORMAT, HEX by default: '4142'::BINARY is AB.
        return _to_binary(exp.ToBinary(this=node.this, safe=safe or None))
    size = _text_length(to)
    if safe and size is not None:
        text = exp.TryCast(this=node.this, to=exp.DataType.build("VARCHAR"))
        fits = exp.LTE(this=call("character_length", text), expression=number(size))
        return exp.Case(ifs=[exp.If(this=fits, true=text.copy())])
    return None


def _text_length(to: exp.DataType) -> int | None:
    """n of a VARCHAR(n) (or CHAR(n), ...) given as a constant; None for other types."""
    length = to.expressions[0] if to.expressions else None
    if not to.is_type(*exp.DataType.TEXT_TYPES) or not isinstance(length, exp.DataTypeParam):
        return None
    size = length.this
    return int(size.to_py()) if isinstance(size, exp.Literal) and size.is_int else None


# Snowflake's defaults for TIMESTAMP_NTZ_OUTPUT_FORMAT and TIMESTAMP_OUTPUT_FORMAT (LTZ and TZ).
_NTZ_OUTPUT = "YYYY-MM-DD HH24:MI:SS.FF3"
_ZONED_OUTPUT = "YYYY-MM-DD HH24:MI:SS.FF3 TZHTZM"


def _column_kind(node: exp.Expression) -> str | None:
    """kind_of for a column whose type the statement tells (a stored column, a subquery's or
    VALUES' literal): string, date or timestamp (NTZ); None otherwise."""
    kind = stored_kind(node, active()) or ""
    if kind.startswith(("TEXT", "VARCHAR")):
        return "string"
    if kind.startswith("DATE"):
        return "date"
    return "timestamp" if kind.startswith("TIMESTAMP_NTZ") else None


def timestamp_kind(node: exp.Expression) -> str | None:
    """NTZ, LTZ or TZ for a timestamp the SQL shows as one (a cast or function giving one, a stored
    timestamp column); None for anything else."""
    kind = kind_of(node)
    while isinstance(node, exp.Paren):
        node = node.this
    stored = stored_kind(node, active()) or ""
    if kind == "timestamptz":
        cast_to_tz = isinstance(node, exp.Cast) and node.to.is_type(exp.DType.TIMESTAMPTZ)
        return "TZ" if cast_to_tz or stored.startswith("TIMESTAMP_TZ") else "LTZ"
    return "NTZ" if kind == "timestamp" or stored.startswith("TIMESTAMP_NTZ") else None


def _input_format(name: str) -> exp.Expression | None:
    """The session's DATE_INPUT_FORMAT (or another *_INPUT_FORMAT) in chrono's spelling; None for
    AUTO, the default (Snowflake's detection)."""
    fmt = str(parameter(name) or "AUTO").strip()
    return None if fmt.upper() == "AUTO" else snowflake_format(string(fmt))


def date_text(value: exp.Expression) -> exp.Expression | None:
    """A DATE as text in the session's DATE_OUTPUT_FORMAT; None when that is the default
    (YYYY-MM-DD, a plain cast) or `value` is not known to be a DATE."""
    fmt = str(parameter("DATE_OUTPUT_FORMAT") or "YYYY-MM-DD").strip()
    if fmt.upper() in ("YYYY-MM-DD", "AUTO") or "date" not in (kind_of(value), _column_kind(value)):
        return None
    return call("to_char", value, snowflake_format(string(fmt)))


def timestamp_text(value: exp.Expression, kind: str, fmt: exp.Expression | None = None) -> exp.Expression:
    """A timestamp as Snowflake writes it: in `fmt` (Snowflake's spelling) or else the session's
    TIMESTAMP_<kind>_OUTPUT_FORMAT ('2024-03-10 01:30:00.000', LTZ and TZ with ' -0800'); LTZ and
    TZ values in the session's time zone (they are UTC instants here)."""
    if fmt is None:
        default = _NTZ_OUTPUT if kind == "NTZ" else parameter("TIMESTAMP_OUTPUT_FORMAT") or _ZONED_OUTPUT
        fmt = string(str(parameter(f"TIMESTAMP_{kind}_OUTPUT_FORMAT") or default))
    return call("to_char", value if kind == "NTZ" else in_session_zone(value), snowflake_format(fmt))


def _compared_as_instants(node: exp.Expression) -> None:
    """A comparison with an instant (LTZ/TZ) reads the other side's wall clock (a string, a DATE,
    an NTZ) in the session's time zone, as Snowflake converts it; DataFusion read it as UTC."""
    operands = [node.this, node.expression] if isinstance(node, COMPARISONS) else []
    if isinstance(node, exp.Between):
        operands = [node.this, node.args["low"], node.args["high"]]
    kinds = [kind_of(x) or _column_kind(x) for x in operands]
    if "timestamptz" not in kinds:
        return
    for operand, kind in zip(operands, kinds, strict=True):
        if kind in ("string", "date", "timestamp"):
            operand.replace(to_timestamp(operand.copy(), tz=True, safe=False))


_WALL_TYPES = (
    exp.DType.DATE,
    exp.DType.TIME,
    exp.DType.TIMESTAMP,
    exp.DType.TIMESTAMPNTZ,
    exp.DType.DATETIME,
)


def _bounded_text(node: exp.Cast) -> exp.Expression | None:
    """CAST(x AS VARCHAR(n)) of a constant n: the text, checked to fit (Snowflake refuses a longer
    value, 100074, where DataFusion ignores the length)."""
    size = _text_length(node.to)
    if size is None or size >= MAX_VARCHAR:
        return None
    return call("sf_fits_varchar", exp.Cast(this=node.this, to=exp.DataType.build("VARCHAR")), number(size))


def _rewrite(node: exp.Expression) -> exp.Expression:
    if type(node) is exp.Cast and node.to.is_type(*exp.DataType.TEXT_TYPES):
        kind = timestamp_kind(node.this)
        if kind is not None:
            return timestamp_text(node.this, kind)
        if (dated := date_text(node.this)) is not None:
            return dated
        if (bounded := _bounded_text(node)) is not None:
            return bounded
    _compared_as_instants(node)
    if type(node) is exp.Cast and node.to.is_type(*_WALL_TYPES) and kind_of(node.this) == "timestamptz":
        # An instant's date, time or wall clock is the session zone's.
        return exp.Cast(this=wall_of(node.this), to=node.to)
    if isinstance(node, exp.DPipe | exp.Concat):
        # || and CONCAT turn a timestamp into text as a cast does.
        operands = node.expressions if isinstance(node, exp.Concat) else [node.this, node.expression]
        for operand in operands:
            if (kind := timestamp_kind(operand)) is not None:
                operand.replace(timestamp_text(operand.copy(), kind))
        if isinstance(node, exp.DPipe) and "string" not in (kind_of(node.this), kind_of(node.expression)):
            # Numbers on both sides (`4 || 5`, a NUMBER column's): DataFusion's || needs a string.
            for operand in (node.this, node.expression):
                if kind_of(operand) == "number" or number_scale(operand) is not None:
                    operand.replace(exp.cast(operand.copy(), "VARCHAR"))
    if isinstance(node, exp.Cast) and node.to.is_type(exp.DType.TIMESTAMPTZ, exp.DType.TIMESTAMPLTZ):
        return _zoned_cast(node)
    if isinstance(node, exp.Cast) and "string" in (kind_of(node.this), _column_kind(node.this)):
        rewritten = _text_cast(node)
        if rewritten is not None:
            return rewritten
    if isinstance(node, exp.Anonymous) and node.name.upper() in _TIMESTAMP_NAMES:
        return _to_timestamp_anon(node)
    if isinstance(node, exp.StrToTime):
        return _str_to_time(node)
    if isinstance(node, exp.UnixToTime):
        return _unix_to_time(node)
    if isinstance(node, exp.TsOrDsToDate):
        return _to_date(node)
    if isinstance(node, exp.Anonymous) and node.name.upper() in ("TO_DATE", "TRY_TO_DATE", "DATE"):
        args = node.expressions
        if len(args) == 1:
            return to_date(args[0], None, node.name.upper().startswith("TRY_"))
    if isinstance(node, exp.TryCast) and node.to.is_type(exp.DType.DATE) and kind_of(node.this) != "date":
        return to_date(node.this, None, safe=True)
    if isinstance(node, exp.TsOrDsToTime | exp.Time):
        return _to_time(node)
    if isinstance(node, exp.ToNumber):
        return _to_number(node)
    if isinstance(node, exp.ToDouble):
        return _to_double(node)
    if isinstance(node, exp.ToBoolean):
        return _to_boolean(node)
    if isinstance(node, exp.ToBinary):
        return _to_binary(node)
    if type(node) is exp.Cast:
        return _ntz_literal(node)
    return node


def rewrite(tree: exp.Expression) -> exp.Expression:
    return rewrite_all(tree, _rewrite)

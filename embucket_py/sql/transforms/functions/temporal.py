"""Shared pieces of the date/time rewrites: part names, static type guesses, interval literals.

https://docs.snowflake.com/en/sql-reference/functions-date-time#label-supported-date-time-parts
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp
from sqlglot.dialects.snowflake import Snowflake
from sqlglot.time import format_time

from embucket_py.errors import Unsupported
from embucket_py.sql.transforms.functions.column_kinds import kind_here

# Snowflake's date/time part names and abbreviations -> one canonical name.
_ALIASES = {
    "year": ("y", "yy", "yyy", "yyyy", "yr", "years", "yrs"),
    "quarter": ("q", "qtr", "qtrs", "quarters"),
    "month": ("mm", "mon", "mons", "months"),
    "week": ("w", "wk", "weekofyear", "woy", "wy", "weeks"),
    "day": ("d", "dd", "days", "dayofmonth"),
    "dayofweek": ("weekday", "dow", "dw"),
    "dayofweekiso": ("weekday_iso", "dow_iso", "dw_iso"),
    "dayofyear": ("yearday", "doy", "dy"),
    "weekiso": ("week_iso", "weekofyeariso", "weekofyear_iso"),
    "yearofweek": (),
    "yearofweekiso": (),
    "hour": ("h", "hh", "hr", "hours", "hrs"),
    "minute": ("m", "mi", "min", "minutes", "mins"),
    "second": ("s", "sec", "seconds", "secs"),
    "millisecond": ("ms", "msec", "milliseconds"),
    "microsecond": ("us", "usec", "microseconds"),
    "nanosecond": ("ns", "nsec", "nanosec", "nsecond", "nanoseconds", "nanosecs", "nseconds"),
    "epoch_second": ("epoch", "epoch_seconds"),
    "epoch_millisecond": ("epoch_milliseconds",),
    "epoch_microsecond": ("epoch_microseconds",),
    "epoch_nanosecond": ("epoch_nanoseconds",),
    "timezone_hour": ("tzh",),
    "timezone_minute": ("tzm",),
}
_CANONICAL = {alias: name for name, aliases in _ALIASES.items() for alias in (name, *aliases)}

# Parts finer than a day: adding them to a DATE gives a TIMESTAMP.
SUB_DAY = ("hour", "minute", "second", "millisecond", "microsecond", "nanosecond")

# Seconds per unit, for differences of truncated timestamps.
SECONDS = {"hour": 3600, "minute": 60, "second": 1}


def part_name(node: exp.Expression | None) -> str:
    """The canonical Snowflake part a unit argument names (a bare word or a string)."""
    if node is None:
        raise Unsupported("a date or time part is required")
    text = node.name if isinstance(node, exp.Literal | exp.Var | exp.Column | exp.Identifier) else node.sql()
    name = _CANONICAL.get(text.lower().strip())
    if name is None:
        raise Unsupported(f"date or time part '{text}'")
    return name


def rewrite_all(tree: exp.Expression, apply: Callable[[exp.Expression], exp.Expression]) -> exp.Expression:
    """Applies `apply` top-down (so it sees arguments as written), then descends into the result."""

    def visit(node: exp.Expression) -> exp.Expression:
        new = apply(node)
        if new is node:
            return node
        return new.transform(visit, copy=False)

    return tree.transform(visit, copy=False)


def call(name: str, *args: exp.Expression) -> exp.Anonymous:
    return exp.Anonymous(this=name, expressions=list(args))


def string(value: str) -> exp.Literal:
    return exp.Literal.string(value)


def number(value: int | float) -> exp.Literal:
    return exp.Literal.number(value)


def cast(node: exp.Expression, to: str) -> exp.Cast:
    return exp.Cast(this=node, to=exp.DataType.build(to, dialect="snowflake"))


def paren(node: exp.Expression) -> exp.Expression:
    """Parenthesized unless atomic: trees built here are generated as written, without precedence."""
    atomic = exp.Literal | exp.Column | exp.Func | exp.Paren | exp.Cast | exp.Interval | exp.Null
    return node if isinstance(node, atomic) and not isinstance(node, exp.Binary) else exp.Paren(this=node)


def add(a: exp.Expression, b: exp.Expression) -> exp.Expression:
    return exp.Add(this=paren(a), expression=paren(b))


def sub(a: exp.Expression, b: exp.Expression) -> exp.Expression:
    return exp.Sub(this=paren(a), expression=paren(b))


def mul(a: exp.Expression, b: exp.Expression) -> exp.Expression:
    return exp.Mul(this=paren(a), expression=paren(b))


def div(a: exp.Expression, b: exp.Expression) -> exp.Expression:
    """Plain division (operands are DOUBLE or decimals already; no Snowflake scale rules applied)."""
    return exp.Div(this=paren(a), expression=paren(b), typed=True)


# The binary comparisons (for rewrites that read or change both sides of one).
COMPARISONS = (exp.EQ, exp.NEQ, exp.LT, exp.LTE, exp.GT, exp.GTE)


def mod(a: exp.Expression, b: exp.Expression) -> exp.Expression:
    return exp.Mod(this=paren(a), expression=paren(b))


def int64(node: exp.Expression) -> exp.Expression:
    return call("arrow_cast", node, string("Int64"))


def day_number(date: exp.Expression) -> exp.Expression:
    """A DATE's days since 1970 as an integer. Differences of day numbers, not of DATEs: DataFusion's
    row-group pruning fails on a difference of DATEs compared with a number (it reads the
    difference as a duration)."""
    return int64(call("arrow_cast", date, string("Int32")))


def intdiv(a: exp.Expression, b: exp.Expression) -> exp.Expression:
    """Integer division truncating toward zero (DataFusion divides integers that way)."""
    return exp.Div(this=paren(int64(a)), expression=paren(int64(b)), typed=True)


def kind_of(node: exp.Expression) -> str | None:
    """A static guess of a temporal expression's kind: date, time, timestamp, timestamptz, string,
    number; None when only the engine knows (a column)."""
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Cast):
        to = node.to
        if to.is_type(exp.DType.DATE):
            return "date"
        if to.is_type(exp.DType.TIME):
            return "time"
        if to.is_type(exp.DType.TIMESTAMPTZ, exp.DType.TIMESTAMPLTZ):
            return "timestamptz"
        if to.is_type(*exp.DataType.TEMPORAL_TYPES):
            return "timestamp"
        if to.is_type(*exp.DataType.TEXT_TYPES):
            return "string"
        if to.is_type(*exp.DataType.NUMERIC_TYPES):
            return "number"
        return None
    if isinstance(node, exp.Literal):
        return "string" if node.is_string else "number"
    if isinstance(node, exp.Add | exp.Sub) and isinstance(node.expression, exp.Interval):
        moved = kind_of(node.this)  # a timestamp moved by an interval (DATEADD's rewrite) keeps its kind
        return moved if moved in ("timestamp", "timestamptz") else None
    if isinstance(node, exp.Add | exp.Sub | exp.Mul | exp.Div | exp.Neg):
        parts = [node.this] if isinstance(node, exp.Neg) else [node.this, node.expression]
        return "number" if all(kind_of(p) == "number" for p in parts) else None
    if isinstance(node, exp.TsOrDsToDate | exp.DateFromParts | exp.CurrentDate | exp.LastDay):
        return "date"
    if isinstance(node, exp.TsOrDsToTime | exp.TimeFromParts | exp.Localtime):
        return "time"
    if isinstance(node, exp.CurrentTimestamp) and not node.args.get("sysdate"):
        return "timestamptz"  # TIMESTAMP_LTZ (SYSDATE() is the UTC wall clock)
    if isinstance(node, exp.CurrentTimestamp | exp.TimestampFromParts):
        return "timestamp"
    if isinstance(node, exp.StrToTime | exp.UnixToTime):
        target = node.args.get("target_type")
        if target is not None and target.is_type(exp.DType.TIMESTAMPTZ, exp.DType.TIMESTAMPLTZ):
            return "timestamptz"
        return "timestamp"
    if isinstance(node, exp.Anonymous):
        name = node.name.upper()
        if name == "ARROW_CAST" and len(node.expressions) == 2:
            target = node.expressions[1].name
            if target.startswith("Timestamp"):
                return "timestamp" if "None" in target else "timestamptz"
            return "time" if target.startswith("Time64") else None
        if name in ("TO_DATE", "TRY_TO_DATE"):
            return "date"
        if name in ("TO_TIMESTAMP", "TO_TIMESTAMP_NTZ", "TRY_TO_TIMESTAMP"):
            return "timestamp"
        if name in ("TO_TIMESTAMP_LTZ", "TO_TIMESTAMP_TZ"):
            return "timestamptz"
    if isinstance(node, exp.DateAdd | exp.TimestampTrunc | exp.DateTrunc):
        inner = kind_of(node.this)
        if inner == "date" and isinstance(node, exp.DateAdd):
            unit = node.args.get("unit")
            return "timestamp" if unit is not None and part_name(unit) in SUB_DAY else "date"
        return "timestamp" if inner == "string" else inner
    if isinstance(node, exp.Column) and (kind_here(node) or "").startswith(("TIMESTAMP_LTZ", "TIMESTAMP_TZ")):
        return "timestamptz"  # a stored instant: its date parts are the session zone's wall clock
    return None


def is_text(node: exp.Expression) -> bool:
    """A string, or a column known to hold text (a stored VARCHAR, a CTE's or VALUES' string)."""
    if kind_of(node) == "string":
        return True
    return isinstance(node, exp.Column) and kind_here(node) == "TEXT"


def as_temporal(node: exp.Expression) -> exp.Expression:
    """Strings become TIMESTAMP_NTZ, as Snowflake reads a string where a timestamp is expected."""
    return cast(node, "TIMESTAMP") if is_text(node) else node


def interval(amount: exp.Expression, part: str) -> exp.Expression:
    """An interval of `amount` parts (amount may be any integer expression)."""
    months = {"year": 12, "quarter": 3, "month": 1}
    days = {"week": 7, "day": 1}
    unit, factor = "second", 1
    if part in months:
        unit, factor = "month", months[part]
    elif part in days:
        unit, factor = "day", days[part]
    elif part in SUB_DAY:
        unit = part
    else:
        raise Unsupported(f"date or time part '{part}' in date arithmetic")
    if amount.is_int:
        return exp.Interval(this=string(f"{int(amount.to_py()) * factor} {unit}"))
    scaled: exp.Expression = mul(amount, number(factor)) if factor != 1 else amount
    text = call("concat", cast(int64(scaled), "VARCHAR"), string(f" {unit}"))
    return exp.Cast(this=text, to=exp.DataType.build("INTERVAL"))


def chrono_format(node: exp.Expression) -> exp.Expression:
    """A format already mapped by sqlglot (strftime style) -> chrono's spelling for DataFusion."""
    if not isinstance(node, exp.Literal) or not node.is_string:
        raise Unsupported("a date/time format that is not a constant string")
    text = node.name
    for suffix, width in (("_three", "3"), ("_six", "6"), ("_nine", "9")):
        text = text.replace(f"%f{suffix}", f"%{width}f")
    text = text.replace("%-", "%")
    return string(text)


def constant_text(node: exp.Expression) -> str | None:
    """The text of a constant string expression: a literal, or literals joined by || / CONCAT
    (dbt writes formats as 'yyyy-mm-dd HH24:MI' || 'UTC')."""
    if isinstance(node, exp.Paren):
        return constant_text(node.this)
    if isinstance(node, exp.Literal) and node.is_string:
        return node.name
    parts = [node.this, node.expression] if isinstance(node, exp.DPipe) else None
    if isinstance(node, exp.Concat):
        parts = list(node.expressions)
    if parts is None:
        return None
    texts = [constant_text(p) for p in parts]
    return None if any(t is None for t in texts) else "".join(texts)  # type: ignore[arg-type]


def snowflake_format(node: exp.Expression) -> exp.Expression:
    """A format still in Snowflake's spelling (TO_CHAR keeps it) -> chrono's."""
    text = constant_text(node)
    if text is None:
        raise Unsupported("a date/time format that is not a constant string")
    mapped = format_time(text, Snowflake.TIME_MAPPING, Snowflake.TIME_TRIE) or text
    return chrono_format(string(mapped))

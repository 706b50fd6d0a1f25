"""Snowflake date/time functions -> DataFusion built-ins (date_part, date_trunc, intervals, to_char).

https://docs.snowflake.com/en/sql-reference/functions-date-time
"""

from __future__ import annotations

import re
from collections.abc import Callable

from sqlglot import exp

from embucket_py.errors import Unsupported
from embucket_py.sql.transforms.functions.column_kinds import kind_here
from embucket_py.sql.transforms.functions.conversion import (
    BINARY_FORMATS,
    binary_to_text,
    date_text,
    timestamp_kind,
    timestamp_text,
    to_timestamp,
)
from embucket_py.sql.transforms.functions.temporal import (
    SECONDS,
    SUB_DAY,
    add,
    as_temporal,
    call,
    cast,
    chrono_format,
    day_number,
    int64,
    intdiv,
    interval,
    kind_of,
    mod,
    mul,
    number,
    paren,
    part_name,
    rewrite_all,
    snowflake_format,
    string,
    sub,
)
from embucket_py.sql.transforms.functions.zones import (
    as_wall,
    in_session_zone,
    instant_of,
    legacy_week_start,
    wall_of,
    week_of_year_policy,
    week_start,
    zone_name,
    zoned,
)

_UTC = 'Timestamp(Microsecond, Some("UTC"))'
_NTZ = "Timestamp(Microsecond, None)"
_MICROS_PER_DAY = 86_400_000_000
_MICROS = {"hour": 3_600_000_000, "minute": 60_000_000, "second": 1_000_000, "millisecond": 1000}

# DataFusion's date_part names for Snowflake's parts (same meaning with WEEK_START = 0 and
# WEEK_OF_YEAR_POLICY = 0, Snowflake's defaults: ISO weeks, Sunday = 0 for DAYOFWEEK).
_DF_PART = {
    "year": "year",
    "quarter": "quarter",
    "month": "month",
    "day": "day",
    "hour": "hour",
    "minute": "minute",
    "second": "second",
    "dayofweek": "dow",
    "dayofweekiso": "isodow",
    "dayofyear": "doy",
    "week": "week",
    "weekiso": "week",
    "yearofweek": "isoyear",
    "yearofweekiso": "isoyear",
}
_EPOCH_UNITS = {
    "epoch_second": "Second",
    "epoch_millisecond": "Millisecond",
    "epoch_microsecond": "Microsecond",
    "epoch_nanosecond": "Nanosecond",
}
_TRUNC_PARTS = (
    "year",
    "quarter",
    "month",
    "week",
    "day",
    "hour",
    "minute",
    "second",
    "millisecond",
    "microsecond",
)
_DAYS = ("su", "mo", "tu", "we", "th", "fr", "sa")


def _epoch(node: exp.Expression, unit: str) -> exp.Expression:
    """Whole `unit`s since the epoch (sub-unit digits dropped), as BIGINT."""
    return int64(call("arrow_cast", node, string(f"Timestamp({unit}, None)")))


def _days_into_week(value: exp.Expression) -> exp.Expression:
    """Days since the start of the week WEEK_START sets (0 on its first day)."""
    iso = int64(call("date_part", string("isodow"), value))
    return mod(add(sub(iso, number(week_start())), number(7)), number(7))


def _week_part(part: str, value: exp.Expression) -> exp.Expression | None:
    """DAYOFWEEK, WEEK and YEAROFWEEK under WEEK_START and WEEK_OF_YEAR_POLICY; None when the
    session keeps the defaults (legacy start, ISO weeks), which DataFusion's parts match.
    https://docs.snowflake.com/en/sql-reference/functions-date-time#label-calendar-weeks-weekdays"""
    policy, start = week_of_year_policy(), week_start()
    if part == "dayofweek":
        if legacy_week_start():
            return None
        return add(_days_into_week(value), number(1))
    if part not in ("week", "yearofweek") or (policy == 0 and start == 1):
        return None
    if policy == 1:
        # Week 1 holds January 1st; December 31st is in the year's last week.
        if part == "yearofweek":
            return int64(call("date_part", string("year"), value))
        jan1 = call("date_trunc", string("year"), cast(value, "DATE"))
        day = int64(call("date_part", string("doy"), value))
        return add(intdiv(add(sub(day, number(1)), _days_into_week(jan1)), number(7)), number(1))
    # ISO rule with another first day: a week belongs to the year holding its fourth day.
    fourth = add(cast(value, "DATE"), interval(sub(number(3), _days_into_week(value)), "day"))
    if part == "yearofweek":
        return int64(call("date_part", string("year"), fourth))
    day = int64(call("date_part", string("doy"), fourth.copy()))
    return add(intdiv(sub(day, number(1)), number(7)), number(1))


def date_part(part: str, value: exp.Expression) -> exp.Expression:
    if part in _EPOCH_UNITS:  # an instant's epoch counts from 1970-01-01 UTC, whatever the zone
        return _epoch(as_temporal(value), _EPOCH_UNITS[part])
    value = as_wall(value)
    by_week = _week_part(part, value)
    if by_week is not None:
        return by_week
    if part in _DF_PART:
        return int64(call("date_part", string(_DF_PART[part]), value))
    if part in ("millisecond", "microsecond", "nanosecond"):
        # DataFusion counts the seconds too; Snowflake gives only the fraction.
        scale = {"millisecond": 1000, "microsecond": 1_000_000, "nanosecond": 1_000_000_000}[part]
        return mod(int64(call("date_part", string(part), value)), number(scale))
    raise Unsupported(f"date or time part '{part}' in DATE_PART/EXTRACT")


def _date_part_node(node: exp.Expression) -> exp.Expression:
    return date_part(part_name(node.this), node.expression)


_PART_FUNCTIONS: dict[type[exp.Expression], str] = {
    exp.Year: "year",
    exp.Quarter: "quarter",
    exp.Month: "month",
    exp.Day: "day",
    exp.DayOfMonth: "day",
    exp.Hour: "hour",
    exp.Minute: "minute",
    exp.Second: "second",
    exp.DayOfWeek: "dayofweek",
    exp.DayOfWeekIso: "dayofweekiso",
    exp.DayOfYear: "dayofyear",
    exp.Week: "week",
    exp.WeekOfYear: "weekiso",
    exp.YearOfWeek: "yearofweek",
    exp.YearOfWeekIso: "yearofweekiso",
}


def _kind(value: exp.Expression) -> str | None:
    """kind_of, or a stored column's kind when the column is a DATE or TIME."""
    kind = kind_of(value)
    if kind is None:
        stored = (kind_here(value) or "").split("(")[0]
        kind = {"DATE": "date", "TIME": "time"}.get(stored)
    return kind


def _micros_of_day(value: exp.Expression) -> exp.Expression:
    """A TIME as microseconds since midnight."""
    return int64(call("arrow_cast", value, string("Time64(Microsecond)")))


def _wrap_day(micros: exp.Expression) -> exp.Expression:
    """Microseconds folded into one day, as TIME (Snowflake's TIME arithmetic wraps at midnight)."""
    day = number(_MICROS_PER_DAY)
    return call(
        "arrow_cast", mod(add(mod(micros, day), day.copy()), day.copy()), string("Time64(Microsecond)")
    )


def _time_add(value: exp.Expression, amount: exp.Expression, part: str) -> exp.Expression:
    """TIME + n parts (DataFusion turns TIME + INTERVAL into an interval)."""
    if part not in _MICROS and part not in ("microsecond", "nanosecond"):
        raise Unsupported(f"adding '{part}' to a TIME")
    micros = _micros_of_day(value)
    step = (
        intdiv(amount, number(1000))
        if part == "nanosecond"
        else mul(int64(amount), number(_MICROS.get(part, 1)))
    )
    return _wrap_day(add(micros, step))


def date_add(part: str, amount: exp.Expression, value: exp.Expression) -> exp.Expression:
    kind = _kind(value)
    if kind == "time":
        return _time_add(value, amount, part)
    if part in SUB_DAY:
        base = value if kind in ("timestamp", "timestamptz") else cast(value, "TIMESTAMP")
    elif kind == "timestamptz":
        # Days, months and years move the session zone's wall clock (a day across a DST change
        # is 23 or 25 hours), as Arrow adds them to a zoned timestamp.
        return call("arrow_cast", add(in_session_zone(value), interval(amount, part)), string(_UTC))
    else:
        base = as_temporal(value)
    return add(base, interval(amount, part))


def _date_add_node(node: exp.Expression) -> exp.Expression:
    return date_add(part_name(node.args.get("unit") or exp.Var(this="day")), node.expression, node.this)


def _trunc(part: str, value: exp.Expression) -> exp.Expression:
    value = as_temporal(value)
    if part == "week" and week_start() != 1:
        # DataFusion's weeks start on Monday; WEEK_START moves the first day.
        day = call("date_trunc", string("day"), value)
        return sub(day, interval(_days_into_week(value.copy()), "day"))
    return call("date_trunc", string(part), value)


def date_diff(part: str, start: exp.Expression, end: exp.Expression) -> exp.Expression:
    """Snowflake counts the `part` boundaries crossed between the two values (with an instant on
    either side, the other side's wall clock is read in the session's zone)."""
    if "time" in (_kind(start), _kind(end)):
        return _time_diff(part, start, end)
    if "timestamptz" in (kind_of(start), kind_of(end)):
        start, end = (
            x if kind_of(x) == "timestamptz" else to_timestamp(x, tz=True, safe=False) for x in (start, end)
        )
    start, end = as_temporal(start), as_temporal(end)
    if part in ("year", "quarter", "month"):

        def months(v: exp.Expression) -> exp.Expression:
            year = int64(call("date_part", string("year"), v))
            if part == "year":
                return year
            within = int64(call("date_part", string(part), v))
            return add(mul(year, number(4 if part == "quarter" else 12)), within)

        return sub(months(end), months(start))
    if part in ("week", "day"):

        def days(v: exp.Expression) -> exp.Expression:
            return day_number(cast(_trunc("week", v) if part == "week" else v, "DATE"))

        diff = sub(days(end), days(start))
        return intdiv(diff, number(7)) if part == "week" else diff
    if part in SECONDS:
        seconds = sub(_epoch(_trunc(part, end), "Second"), _epoch(_trunc(part, start), "Second"))
        return intdiv(seconds, number(SECONDS[part]))
    if part in ("millisecond", "microsecond", "nanosecond"):
        unit = part.capitalize()
        return sub(_epoch(end, unit), _epoch(start, unit))
    raise Unsupported(f"date or time part '{part}' in DATEDIFF")


def _time_diff(part: str, start: exp.Expression, end: exp.Expression) -> exp.Expression:
    """Part boundaries crossed between two TIMEs (of one day)."""
    if part not in _MICROS and part != "microsecond":
        raise Unsupported(f"DATEDIFF of '{part}' between TIME values")
    unit = number(_MICROS.get(part, 1))

    def boundaries(v: exp.Expression) -> exp.Expression:
        return intdiv(_micros_of_day(cast(v, "TIME")), unit.copy())

    return sub(boundaries(end), boundaries(start))


def _date_diff_node(node: exp.Expression) -> exp.Expression:
    return date_diff(part_name(node.args.get("unit") or exp.Var(this="day")), node.expression, node.this)


def date_trunc(part: str, value: exp.Expression) -> exp.Expression:
    if part not in _TRUNC_PARTS:
        if part == "nanosecond":
            return value
        raise Unsupported(f"date or time part '{part}' in DATE_TRUNC")
    kind = _kind(value)  # a DATE or TIME truncates to its own type, as Snowflake keeps it
    if kind == "time":
        if part not in _MICROS:
            raise Unsupported(f"date or time part '{part}' in DATE_TRUNC of a TIME")
        micros = _micros_of_day(value)
        return _wrap_day(sub(micros, mod(micros.copy(), number(_MICROS[part]))))
    if kind == "timestamptz":  # truncated on the session zone's clock: days start at its midnight
        return instant_of(call("arrow_cast", _trunc(part, wall_of(value)), string(_NTZ)))
    truncated = _trunc(part, value)
    if kind == "date":
        return cast(truncated, "DATE")
    # Keeps microseconds (DataFusion answers nanoseconds for a DATE input).
    return call("arrow_cast", truncated, string(_NTZ))


def _last_day(value: exp.Expression, part: str) -> exp.Expression:
    day = cast(as_temporal(value), "DATE")
    if part == "week":
        return cast(add(_trunc("week", day), interval(number(6), "day")), "DATE")
    if part not in ("year", "quarter", "month"):
        raise Unsupported(f"date or time part '{part}' in LAST_DAY")
    start = _trunc(part, day)
    return cast(sub(add(start, interval(number(1), part)), interval(number(1), "day")), "DATE")


def _weekday(node: exp.Expression) -> int:
    if not isinstance(node, exp.Literal) or not node.is_string:
        raise Unsupported("NEXT_DAY/PREVIOUS_DAY with a day name that is not a constant")
    prefix = node.name.strip().lower()[:2]
    if prefix not in _DAYS:
        raise Unsupported(f"day of week '{node.name}'")
    return _DAYS.index(prefix)


def _next_day(value: exp.Expression, name: exp.Expression, forward: bool) -> exp.Expression:
    target = number(_weekday(name))
    day = cast(as_temporal(value), "DATE")
    dow = int64(call("date_part", string("dow"), day))
    gap = sub(target, dow) if forward else sub(dow, target)
    moved = interval(add(mod(add(gap, number(6)), number(7)), number(1)), "day")
    return cast(add(day, moved) if forward else sub(day, moved), "DATE")


def _add_months(value: exp.Expression, amount: exp.Expression) -> exp.Expression:
    """ADD_MONTHS keeps a month-end a month-end (DATEADD does not)."""
    value = as_temporal(value)
    moved = add(value, interval(amount, "month"))
    at_end = exp.EQ(this=cast(value, "DATE"), expression=_last_day(value, "month"))
    end = _last_day(moved, "month")
    if kind_of(value) != "date":
        # A timestamp keeps its time of day (and its type) on the month's last day.
        days = int64(sub(end, cast(moved.copy(), "DATE")))
        end = add(moved.copy(), interval(days, "day"))
    return exp.Case(ifs=[exp.If(this=at_end, true=end)], default=moved.copy())


def _months_between(first: exp.Expression, second: exp.Expression) -> exp.Expression:
    """Whole months from the year and month parts; the fraction from days and times over 31-day
    months, none when the days match or both are month ends.
    https://docs.snowflake.com/en/sql-reference/functions/months_between"""
    first, second = as_temporal(first), as_temporal(second)

    def months(v: exp.Expression) -> exp.Expression:
        year = int64(call("date_part", string("year"), v))
        return add(mul(year, number(12)), int64(call("date_part", string("month"), v.copy())))

    def day(v: exp.Expression) -> exp.Expression:
        return int64(call("date_part", string("day"), v))

    def seconds(v: exp.Expression) -> exp.Expression:
        epoch = call("date_part", string("epoch"), v)
        return sub(epoch, call("date_part", string("epoch"), call("date_trunc", string("day"), v.copy())))

    whole = sub(months(first), months(second))
    days = add(
        sub(day(first.copy()), day(second.copy())),
        exp.Div(
            this=paren(sub(seconds(first.copy()), seconds(second.copy()))),
            expression=number(86400.0),
            typed=True,
        ),
    )
    fraction = exp.Div(this=paren(days), expression=number(31.0), typed=True)
    same_day = exp.EQ(this=day(first.copy()), expression=day(second.copy()))
    month_ends = exp.And(
        this=exp.EQ(this=cast(first.copy(), "DATE"), expression=_last_day(first.copy(), "month")),
        expression=exp.EQ(this=cast(second.copy(), "DATE"), expression=_last_day(second.copy(), "month")),
    )
    exact = exp.Or(this=same_day, expression=month_ends)
    total = add(whole, exp.Case(ifs=[exp.If(this=exact, true=number(0))], default=fraction))
    return cast(call("round", total, number(6)), "NUMBER(38, 6)")


def _date_from_parts(year: exp.Expression, month: exp.Expression, day: exp.Expression) -> exp.Expression:
    """Months and days out of range roll over, as in Snowflake (month 13 = January next year)."""
    start = call("make_date", year, number(1), number(1))
    months = interval(sub(month, number(1)), "month")
    days = interval(sub(day, number(1)), "day")
    return cast(add(add(start, months), days), "DATE")


def _time_micros(
    hour: exp.Expression, minute: exp.Expression, second: exp.Expression, nanos: exp.Expression | None
) -> exp.Expression:
    total = add(
        add(mul(int64(hour), number(3_600_000_000)), mul(int64(minute), number(60_000_000))),
        mul(int64(second), number(1_000_000)),
    )
    return add(total, intdiv(nanos, number(1000))) if nanos is not None else total


def _micros_interval(micros: exp.Expression) -> exp.Expression:
    text = call("concat", cast(micros, "VARCHAR"), string(" microseconds"))
    return exp.Cast(this=text, to=exp.DataType.build("INTERVAL"))


def _time_from_parts(node: exp.Expression) -> exp.Expression:
    micros = _time_micros(node.args["hour"], node.args["min"], node.args["sec"], node.args.get("nano"))
    return _wrap_day(micros)


def _timestamp_from_parts(args: list[exp.Expression], tz: bool) -> exp.Expression:
    if len(args) == 2:
        day, time = args
        micros = int64(call("arrow_cast", time, string("Time64(Microsecond)")))
        ts = add(cast(day, "TIMESTAMP"), _micros_interval(micros))
    elif 6 <= len(args) <= 7:
        year, month, day, hour, minute, second = args[:6]
        nanos = args[6] if len(args) > 6 else None
        date = cast(_date_from_parts(year, month, day), "TIMESTAMP")
        ts = add(date, _micros_interval(_time_micros(hour, minute, second, nanos)))
    elif len(args) == 8 and tz:
        return instant_of(_timestamp_from_parts(args[:7], tz=False), zone_name(args[7]))
    else:
        raise Unsupported("TIMESTAMP_FROM_PARTS with this number of arguments")
    # LTZ/TZ parts are a wall clock in the session's time zone.
    return instant_of(call("arrow_cast", ts, string(_NTZ))) if tz else call("arrow_cast", ts, string(_NTZ))


def _timestamp_from_parts_node(node: exp.Expression) -> exp.Expression:
    names = ("year", "month", "day", "hour", "min", "sec", "nano")
    if node.args.get("zone") is not None:
        raise Unsupported("TIMESTAMP_FROM_PARTS with a time zone argument")
    if node.args.get("year") is None:
        return _timestamp_from_parts([node.this, node.expression], tz=False)
    return _timestamp_from_parts([node.args[n] for n in names if node.args.get(n) is not None], tz=False)


def _parts(node: exp.Expression) -> list[exp.Expression]:
    names = ("year", "month", "day", "hour", "min", "sec", "nano")
    parts = [node.args[n] for n in names if node.args.get(n) is not None]
    zone = node.args.get("zone")
    if zone is not None:
        if len(parts) == 6:
            parts.append(number(0))
        parts.append(zone)
    return parts


def _convert_timezone(node: exp.ConvertTimezone) -> exp.Expression:
    """CONVERT_TIMEZONE(source, target, ntz) -> NTZ wall clock; (target, ltz|tz) -> the instant,
    shown in the target zone. https://docs.snowflake.com/en/sql-reference/functions/convert_timezone"""
    target = zone_name(node.args["target_tz"])
    value = node.args["timestamp"]
    source = node.args.get("source_tz")
    if source is not None:
        wall = cast(value, "TIMESTAMP") if kind_of(value) in ("string", "date") else value
        if kind_of(wall) == "timestamptz":
            wall = wall_of(wall, "UTC")
        return wall_of(instant_of(wall, zone_name(source)), target)
    instant = value
    kind = kind_of(value)
    if kind == "string":
        instant = to_timestamp(value, tz=True, safe=False)
    elif kind in ("timestamp", "date"):
        instant = instant_of(call("arrow_cast", value, string(_NTZ)))
    return call("arrow_cast", instant, string(zoned(target)))


def _time_slice(node: exp.Expression) -> exp.Expression:
    part = part_name(node.args.get("unit"))
    size = node.expression
    kind = kind_of(node.this)
    base = as_temporal(node.this)
    end = isinstance(node.args.get("kind"), exp.Literal) and node.args["kind"].name.upper() == "END"
    if part in ("year", "quarter", "month"):
        step = {"year": 12, "quarter": 3, "month": 1}[part]
        year = int64(call("date_part", string("year"), base))
        month = int64(call("date_part", string("month"), base))
        months = add(mul(sub(year, number(1970)), number(12)), sub(month, number(1)))
        width = mul(int64(size), number(step))
        start = sub(months, mod(months.copy(), width))
        if end:
            start = add(start, width.copy())
        result = add(cast(string("1970-01-01"), "TIMESTAMP"), interval(start, "month"))
    else:
        # Slices are aligned to 1970-01-01 00:00:00 (weeks to the Monday after it).
        origin = "1970-01-05" if part == "week" else "1970-01-01"
        ts = cast(base, "TIMESTAMP") if kind == "date" else base
        result = call("date_bin", interval(size, part), ts, cast(string(origin), "TIMESTAMP"))
        if end:
            result = add(result, interval(size.copy(), part))
    return cast(result, "DATE") if kind == "date" else call("arrow_cast", result, string(_NTZ))


# Fixed-position numeric format models engine/functions/number_format.py formats.
_NUMBER_MODEL = re.compile(r"^(FM)?(\$|S)?(\$)?[90,G]*([.D][90]*)?(MI|S)?$", re.IGNORECASE)


def _to_char(node: exp.Expression) -> exp.Expression:
    fmt = node.args.get("format")
    kind = timestamp_kind(node.this)
    if fmt is None:
        if kind is None:
            return date_text(node.this) or node
        return timestamp_text(node.this, kind)
    if isinstance(fmt, exp.Literal) and fmt.is_string and fmt.name.strip().upper() in BINARY_FORMATS:
        return binary_to_text(node.this, fmt.name.strip().upper())
    temporal = kind_of(node.this) in ("date", "time", "timestamp", "timestamptz")
    if isinstance(fmt, exp.Literal) and fmt.is_string and not temporal:
        if _NUMBER_MODEL.match(fmt.name.strip()) and re.search(r"[90]", fmt.name):
            return call("sf_format_number", cast(node.this, "VARCHAR"), fmt)
        if re.fullmatch(r"[\s$90,.DGSMIXFEC\"]*", fmt.name.upper()) and re.search(r"[90X]", fmt.name.upper()):
            raise Unsupported(f"the numeric format model '{fmt.name}'")
    # sqlglot maps only a literal format; one joined from literals (dbt's 'fmt' || 'UTC') is
    # still in Snowflake's spelling.
    mapped = isinstance(node, exp.TimeToStr) and isinstance(fmt, exp.Literal)
    chrono = chrono_format(fmt) if mapped else snowflake_format(fmt)
    value = as_temporal(node.this)
    return call("to_char", in_session_zone(value) if kind in ("LTZ", "TZ") else value, chrono)


_SIMPLE: dict[type[exp.Expression], Callable[[exp.Expression], exp.Expression]] = {
    exp.Extract: _date_part_node,
    exp.DateAdd: _date_add_node,
    exp.TimeAdd: _date_add_node,
    exp.TimestampAdd: _date_add_node,
    exp.TsOrDsAdd: _date_add_node,
    exp.DateDiff: _date_diff_node,
    exp.TimestampDiff: _date_diff_node,
    exp.TimestampTrunc: lambda n: date_trunc(part_name(n.args.get("unit")), n.this),
    exp.DateTrunc: lambda n: date_trunc(part_name(n.args.get("unit")), n.this),
    exp.LastDay: lambda n: _last_day(n.this, part_name(n.args["unit"]) if n.args.get("unit") else "month"),
    exp.NextDay: lambda n: _next_day(n.this, n.expression, True),
    exp.PreviousDay: lambda n: _next_day(n.this, n.expression, False),
    exp.Dayname: lambda n: call("to_char", as_wall(n.this), string("%a")),
    exp.Monthname: lambda n: call("to_char", as_wall(n.this), string("%b")),
    exp.AddMonths: lambda n: _add_months(n.this, n.expression),
    exp.MonthsBetween: lambda n: _months_between(n.this, n.expression),
    exp.DateFromParts: lambda n: _date_from_parts(n.args["year"], n.args["month"], n.args["day"]),
    exp.TimeFromParts: _time_from_parts,
    exp.TimestampFromParts: _timestamp_from_parts_node,
    exp.TimestampLtzFromParts: lambda n: _timestamp_from_parts(_parts(n), tz=True),
    exp.TimestampTzFromParts: lambda n: _timestamp_from_parts(_parts(n), tz=True),
    exp.TimeSlice: _time_slice,
    exp.ToChar: _to_char,
    exp.TimeToStr: _to_char,
    exp.Localtime: lambda n: _current_time(),
    exp.CurrentDate: lambda n: _current_date(),
    exp.CurrentTime: lambda n: _current_time(),
    exp.ConvertTimezone: _convert_timezone,  # type: ignore[dict-item]
}

_ANONYMOUS: dict[str, Callable[[list[exp.Expression]], exp.Expression]] = {
    "TIMESTAMP_NTZ_FROM_PARTS": lambda a: _timestamp_from_parts(a, tz=False),
    "TIMESTAMP_LTZ_FROM_PARTS": lambda a: _timestamp_from_parts(a, tz=True),
    "TIMESTAMP_TZ_FROM_PARTS": lambda a: _timestamp_from_parts(a, tz=True),
    "CURRENT_TIME": lambda a: _current_time(),
}


def _now() -> exp.Expression:
    """The current instant (DataFusion's now() is the UTC wall clock, without a zone)."""
    return call("arrow_cast", call("now"), string(_UTC))


def _current_date() -> exp.Expression:
    """Today in the session's time zone."""
    return cast(wall_of(_now()), "DATE")


def _current_time() -> exp.Expression:
    """The wall-clock time in the session's time zone."""
    return call("arrow_cast", wall_of(_now()), string("Time64(Microsecond)"))


def _current_timestamp(node: exp.CurrentTimestamp) -> exp.Expression:
    if node.args.get("sysdate"):
        # SYSDATE() is the UTC wall clock as TIMESTAMP_NTZ.
        return call("arrow_cast", call("now"), string(_NTZ))
    return _now()


def _rewrite(node: exp.Expression) -> exp.Expression:
    handler = _SIMPLE.get(type(node))
    if handler is not None:
        return handler(node)
    if isinstance(node, exp.CurrentTimestamp):
        return _current_timestamp(node)
    if isinstance(node, exp.Anonymous):
        anon = _ANONYMOUS.get(node.name.upper())
        if anon is not None:
            return anon(list(node.expressions))
    part = _PART_FUNCTIONS.get(type(node))
    if part is not None:
        return date_part(part, node.this)
    return node


def rewrite(tree: exp.Expression) -> exp.Expression:
    return rewrite_all(tree, _rewrite)


__all__ = ["chrono_format", "date_add", "date_diff", "date_part", "date_trunc", "rewrite"]

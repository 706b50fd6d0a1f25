"""Session time zone and week parameters as the date/time rewrites need them.

TIMESTAMP_LTZ and TIMESTAMP_TZ values are UTC instants (`Timestamp(us, "UTC")`); TIMESTAMP_NTZ is a
wall clock (`Timestamp(us)`). Moving between them goes through Arrow's zoned timestamps: a wall
clock cast to a zoned type is read in that zone, and `to_local_time` gives a zoned instant's wall
clock. https://docs.snowflake.com/en/sql-reference/parameters#timezone
"""

from __future__ import annotations

import re
import zoneinfo

from sqlglot import exp

from embucket_py.errors import ExecutionError, Unsupported
from embucket_py.sql.context import parameter
from embucket_py.sql.transforms.functions.temporal import as_temporal, call, kind_of, string

DEFAULT_TIMEZONE = "America/Los_Angeles"
UTC = 'Timestamp(Microsecond, Some("UTC"))'
NTZ = "Timestamp(Microsecond, None)"
_OFFSET = re.compile(r"^[+-]\d{2}:\d{2}$")


def session_timezone() -> str:
    return str(parameter("TIMEZONE", DEFAULT_TIMEZONE))


def zone_name(node: exp.Expression | str) -> str:
    """A time zone argument as a name Arrow accepts (IANA names and +hh:mm offsets)."""
    if isinstance(node, exp.Expression):
        if not isinstance(node, exp.Literal) or not node.is_string:
            raise Unsupported("a time zone that is not a constant string")
        node = node.name
    name = node.strip()
    if name.upper() in ("UTC", "GMT", "Z"):
        return "UTC"
    if _OFFSET.match(name):
        return name
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise ExecutionError(f"Unknown timezone: '{name}'", code=100108, sqlstate="22023") from None
    return name


def zoned(zone: str) -> str:
    return f'Timestamp(Microsecond, Some("{zone}"))'


def instant_of(wall: exp.Expression, zone: str | None = None) -> exp.Expression:
    """A wall-clock timestamp read in `zone` (default: the session's) -> UTC instant."""
    zone = zone or zone_name(session_timezone())
    if zone == "UTC":
        return call("arrow_cast", wall, string(UTC))
    return call("arrow_cast", call("arrow_cast", wall, string(zoned(zone))), string(UTC))


def wall_of(instant: exp.Expression, zone: str | None = None) -> exp.Expression:
    """A UTC instant -> its wall clock in `zone` (default: the session's), as TIMESTAMP_NTZ."""
    zone = zone or zone_name(session_timezone())
    if zone == "UTC":
        return call("arrow_cast", instant, string(NTZ))
    local = call("to_local_time", call("arrow_cast", instant, string(zoned(zone))))
    return call("arrow_cast", local, string(NTZ))


def as_wall(value: exp.Expression) -> exp.Expression:
    """A value whose date and time parts are asked for, as a wall clock: an instant (LTZ/TZ) in
    the session's time zone, a string read as TIMESTAMP_NTZ, anything else as it is."""
    return wall_of(value) if kind_of(value) == "timestamptz" else as_temporal(value)


def in_session_zone(instant: exp.Expression) -> exp.Expression:
    """A UTC instant as the same instant in the session's zone (TO_CHAR writes it there)."""
    return call("arrow_cast", instant, string(zoned(zone_name(session_timezone()))))


def week_start() -> int:
    """WEEK_START as the ISO day number weeks begin on (0, the legacy default, is Monday)."""
    try:
        value = int(parameter("WEEK_START", 0))
    except (TypeError, ValueError):
        value = 0
    return value if 1 <= value <= 7 else 1


def legacy_week_start() -> bool:
    try:
        return int(parameter("WEEK_START", 0)) == 0
    except (TypeError, ValueError):
        return True


def week_of_year_policy() -> int:
    try:
        return 1 if int(parameter("WEEK_OF_YEAR_POLICY", 0)) == 1 else 0
    except (TypeError, ValueError):
        return 0

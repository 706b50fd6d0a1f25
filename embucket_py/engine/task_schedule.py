"""When a scheduled task next runs: after an interval, or at the next time a CRON expression
matches in its time zone.

CRON fields are minute, hour, day of month, month and day of week, each `*`, a number or name,
a range `a-b`, a step `*/n` or `a-b/n`, or a comma list of those; when both day fields are
restricted a day matching either runs, as cron does.
https://docs.snowflake.com/en/sql-reference/sql/create-task#optional-parameters
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from embucket_py.errors import SqlCompilationError, Unsupported
from embucket_py.sql.tasks import Schedule, parse_schedule

_MONTHS = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
_DAYS = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"]
# (lowest, highest, names from the lowest) per field
_FIELDS = [(0, 59, []), (0, 23, []), (1, 31, []), (1, 12, _MONTHS), (0, 7, _DAYS)]


def _invalid(text: str) -> SqlCompilationError:
    return SqlCompilationError(f"Invalid cron expression '{text}'.", code=1008, sqlstate="22023")


def _value(text: str, low: int, names: list[str], whole: str) -> int:
    if text.upper() in names:
        return low + names.index(text.upper())
    if not text.isdigit():
        if any(c in text.upper() for c in "LW#?"):
            raise Unsupported(f"CRON '{text}' (L, W, # and ?) is not supported yet.")
        raise _invalid(whole)
    return int(text)


def _field(text: str, index: int, whole: str) -> frozenset[int] | None:
    """The values a field matches (None: every value, `*`)."""
    low, high, names = _FIELDS[index]
    if text == "*":
        return None
    found: set[int] = set()
    for item in text.split(","):
        span, _, step_text = item.partition("/")
        step = int(step_text) if step_text.isdigit() and int(step_text) > 0 else None
        if step_text and step is None:
            raise _invalid(whole)
        if span == "*":
            first, last = low, high
        elif "-" in span:
            a, b = span.split("-", 1)
            first, last = _value(a, low, names, whole), _value(b, low, names, whole)
        else:
            first = _value(span, low, names, whole)
            last = high if step else first
        if not (low <= first <= last <= high):
            raise _invalid(whole)
        found.update(range(first, last + 1, step or 1))
    if index == 4 and 7 in found:  # 7 is Sunday too
        found = (found - {7}) | {0}
    return frozenset(found)


def check(schedule: Schedule) -> None:
    """Raises the error a malformed schedule gets (at CREATE / ALTER TASK, not at its first run)."""
    if schedule.cron is not None:
        _cron_fields(schedule)
        _zone(schedule.zone)


def _cron_fields(schedule: Schedule) -> list[frozenset[int] | None]:
    assert schedule.cron is not None
    whole = " ".join(schedule.cron)
    return [_field(text, i, whole) for i, text in enumerate(schedule.cron)]


def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise SqlCompilationError(
            f"Invalid time zone '{name}' in the schedule.", code=1008, sqlstate="22023"
        ) from None


def first_run_ms(schedule: str | None) -> int | None:
    """When a task resumed now (or a dynamic table made now) first runs on its schedule: one
    interval, or the next CRON time, from now (None: no schedule)."""
    return None if schedule is None else next_run_ms(parse_schedule(schedule), int(time.time() * 1000))


def next_run_ms(schedule: Schedule, after_ms: int) -> int:
    """The first time after `after_ms` (epoch milliseconds) the schedule runs."""
    if schedule.seconds is not None:
        return after_ms + schedule.seconds * 1000
    minutes, hours, days, months, weekdays = _cron_fields(schedule)
    zone = _zone(schedule.zone)
    after = datetime.fromtimestamp(after_ms / 1000, UTC)
    local = after.astimezone(zone).replace(second=0, microsecond=0, tzinfo=None)
    day = local.date()
    for _ in range(366 * 5):  # a schedule that never matches (Feb 30) stops here
        by_month = months is None or day.month in months
        by_day = days is None or day.day in days
        by_weekday = weekdays is None or (day.isoweekday() % 7) in weekdays
        either = by_day or by_weekday if days is not None and weekdays is not None else by_day and by_weekday
        if by_month and either:
            for hour in sorted(hours) if hours is not None else range(24):
                for minute in sorted(minutes) if minutes is not None else range(60):
                    moment = datetime(day.year, day.month, day.day, hour, minute, tzinfo=zone)
                    if moment > after:
                        return int(moment.timestamp() * 1000)
        day += timedelta(days=1)
    raise _invalid(" ".join(schedule.cron or ()))

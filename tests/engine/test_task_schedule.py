"""When a scheduled task next runs: intervals, and CRON expressions in their time zones."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from embucket_py.engine.task_schedule import check, next_run_ms
from embucket_py.errors import SqlCompilationError, Unsupported
from embucket_py.sql.tasks import parse_schedule


def ms(text: str) -> int:
    return int(datetime.fromisoformat(text).timestamp() * 1000)


def next_of(schedule: str, after: str) -> str:
    moment = datetime.fromtimestamp(next_run_ms(parse_schedule(schedule), ms(after)) / 1000, UTC)
    return moment.isoformat()


def test_intervals() -> None:
    assert next_run_ms(parse_schedule("5 MINUTE"), 1000) == 301_000
    assert next_run_ms(parse_schedule("2 hours"), 0) == 7_200_000
    assert next_run_ms(parse_schedule("10 SECONDS"), 0) == 10_000


def test_cron_in_a_time_zone() -> None:
    # 09:00 on weekdays in Berlin (UTC+1 in winter): Friday 2026-11-27 08:00 UTC is 09:00 there.
    weekdays = "USING CRON 0 9 * * MON-FRI Europe/Berlin"
    assert next_of(weekdays, "2026-11-27T07:59:00+00:00") == "2026-11-27T08:00:00+00:00"
    # Past Friday's run: the next is Monday's.
    assert next_of(weekdays, "2026-11-27T08:00:00+00:00") == "2026-11-30T08:00:00+00:00"
    # Summer time: 09:00 is 07:00 UTC.
    assert next_of(weekdays, "2026-07-01T00:00:00+00:00") == "2026-07-01T07:00:00+00:00"


def test_cron_steps_lists_and_either_day_field() -> None:
    assert next_of("USING CRON */15 * * * * UTC", "2026-01-01T10:16:00+00:00") == "2026-01-01T10:30:00+00:00"
    assert next_of("USING CRON 0 0,12 * * * UTC", "2026-01-01T00:00:00+00:00") == "2026-01-01T12:00:00+00:00"
    # Day of month 1 OR Sunday: after Thursday Jan 1 2026 comes Sunday Jan 4.
    assert next_of("USING CRON 0 0 1 * SUN UTC", "2026-01-01T00:00:00+00:00") == "2026-01-04T00:00:00+00:00"
    assert next_of("USING CRON 30 6 1 JAN * UTC", "2026-02-01T00:00:00+00:00") == "2027-01-01T06:30:00+00:00"


def test_bad_schedules_fail_when_the_task_is_made() -> None:
    for text in ("every day", "0 MINUTES", "USING CRON 60 * * * * UTC", "USING CRON 0 * * * * Nowhere/Zone"):
        with pytest.raises(SqlCompilationError):
            check(parse_schedule(text))
    with pytest.raises(Unsupported):
        check(parse_schedule("USING CRON 0 0 L * * UTC"))

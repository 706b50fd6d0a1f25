"""AT | BEFORE (TIMESTAMP | OFFSET | STATEMENT) -> the Iceberg snapshot to read.

https://docs.snowflake.com/en/sql-reference/constructs/at-before
AT includes the changes made at the given moment or by the given statement; BEFORE(STATEMENT)
is the state just before that statement's changes.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from pyiceberg.table import Table
from sqlglot import exp

from embucket_py.catalog.retention import WINDOW
from embucket_py.catalog.tables import TimeTravelUnavailable, snapshot_as_of, snapshot_of_query
from embucket_py.engine.failures import from_datafusion
from embucket_py.sql.context import SqlContext
from embucket_py.sql.transforms.tables import TimePoint
from embucket_py.sql.translate import translate_query


class StatementLog:
    """When recent statements ran (query id -> start, end in epoch ms), for STATEMENT => id."""

    def __init__(self, capacity: int = 100_000) -> None:
        self.capacity = capacity
        self._times: OrderedDict[str, tuple[int, int]] = OrderedDict()
        self._lock = threading.Lock()
        # The durable query history, for statements of earlier runs or other servers.
        self.fallback: Callable[[str], tuple[int, int] | None] | None = None

    def record(self, query_id: str, start_ms: int, end_ms: int) -> None:
        with self._lock:
            self._times[query_id] = (start_ms, end_ms)
            while len(self._times) > self.capacity:
                self._times.popitem(last=False)

    def get(self, query_id: str) -> tuple[int, int] | None:
        with self._lock:
            found = self._times.get(query_id)
        if found is None and self.fallback is not None:
            return self.fallback(query_id)
        return found


# Statement times of this process, backed by the durable query history (engine/history.py).
STATEMENTS = StatementLog()


@dataclass(frozen=True)
class Version:
    """A resolved point: a snapshot id, or None when the table was empty then."""

    snapshot_id: int | None


def _evaluate(value: exp.Expression, cast_to: str, ctx: SqlContext) -> object:
    from embucket_py.engine.context import new_context  # context imports this module

    translation = translate_query(exp.select(exp.cast(value.copy(), cast_to)), ctx, None)
    try:
        table = new_context().sql(translation.sql).to_arrow_table()
    except Exception as e:
        raise from_datafusion(e) from None
    return table.column(0)[0].as_py()


def resolve(
    table: Table, name: str, point: TimePoint, ctx: SqlContext, log: StatementLog = STATEMENTS
) -> Version:
    """The snapshot a time-travel clause selects.

    Raises:
        TimeTravelUnavailable: the point precedes the table, or the statement is unknown.
    """
    if point.kind == "SNAPSHOT":  # a stream's offset (sql/streams.py): a snapshot id, NULL for none
        snapshot = None if isinstance(point.value, exp.Null) else int(point.value.name)
        if snapshot is not None and table.snapshot_by_id(snapshot) is None:
            raise TimeTravelUnavailable(f"Time travel data is not available for table {name}.")
        return Version(snapshot)
    if point.kind == "STATEMENT":
        query_id = str(_evaluate(point.value, "VARCHAR", ctx))
        made = snapshot_of_query(table, query_id)
        if made is not None:
            return Version(made[1] if point.before else made[0])
        times = log.get(query_id)
        if times is None:
            raise TimeTravelUnavailable(f"Statement {query_id} not found")
        return Version(_as_of(table, name, times[0] if point.before else times[1]))
    if point.kind == "OFFSET":
        seconds = float(_evaluate(point.value, "DOUBLE", ctx))  # type: ignore[arg-type]
        return Version(_as_of(table, name, int(time.time() * 1000 + seconds * 1000)))
    moment = _evaluate(point.value, "TIMESTAMP_LTZ", ctx)
    return Version(_as_of(table, name, int(moment.timestamp() * 1000)))  # type: ignore[attr-defined]


def _as_of(table: Table, name: str, epoch_ms: int) -> int | None:
    """The snapshot current at a moment, which must lie within the table's retention period.

    Raises:
        TimeTravelUnavailable: the moment is older than DATA_RETENTION_TIME_IN_DAYS allows.
    """
    earliest = WINDOW.earliest_ms(table)
    if earliest is not None and epoch_ms < earliest:
        raise TimeTravelUnavailable(
            f"Time travel data is not available for table {name}. The requested time is either beyond "
            "the allowed time travel period or before the object creation time."
        )
    return snapshot_as_of(table, name, epoch_ms)

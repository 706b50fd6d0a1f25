"""Query results reused while nothing they depend on has changed: Snowflake's persisted query
results (session parameter USE_CACHED_RESULT, TRUE by default).
https://docs.snowflake.com/en/user-guide/querying-persisted-results

A query's result is reused when, as on Snowflake, the query is the same, it reads the same data
and it holds no function whose value changes from run to run. Here that is:
- the same translation (DataFusion SQL and result names): it carries every session value the
  query reads (database and schema, context functions, variables, parameters), inlined;
- the same version of every table it reads (metadata file, time-travel snapshot, seeded
  sample), looked up on every statement: a change by any session, server or Spark job is a new
  metadata file, so a reused result is never stale;
- only stored tables (not the information schema, query history or a stage, which change
  without a new table version; nor CHANGES and streams, whose rows move with their offsets) and
  no clock, random or UUID function;
- a result read to its end (not canceled, no error), at most 24 hours old.
Privileges are checked on every statement before this point, as for any query.

Results are held in memory, per process, up to a byte budget (`configure`); the least recently
used go first, and a result larger than a quarter of the budget is not kept."""

from __future__ import annotations

import re
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass

import pyarrow as pa

from embucket_py.engine.context import StoredTables
from embucket_py.engine.result import QueryResult, ResultColumn, StatementType
from embucket_py.engine.scan import ScanStats
from embucket_py.sql.context import is_on
from embucket_py.sql.translate import QueryTranslation

REUSE_SECONDS = 24 * 3600
DEFAULT_BUDGET = 256 << 20

# DataFusion calls whose value differs from run to run: the clock (CURRENT_TIMESTAMP, SYSDATE,
# CURRENT_DATE, ... all become now()), RANDOM (seeded or not), UUID_STRING, a sequence's NEXTVAL.
# Matching inside a string literal only costs a reuse.
_NON_REUSABLE = re.compile(
    # Clocks, random values, sequences, and Python functions (whose handlers may be any of those).
    r"\b(now|random|uuid|sf_random_seeded|current_date|current_time|sf_nextval|sf_py_\w+)\s*\(",
    re.I,
)

Key = tuple[object, ...]


def reuse_enabled(parameters: dict[str, object]) -> bool:
    """USE_CACHED_RESULT as the session has it (TRUE unless set otherwise)."""
    return is_on(parameters.get("USE_CACHED_RESULT", True))


@dataclass(frozen=True)
class Reused:
    columns: list[ResultColumn]
    batches: tuple[pa.RecordBatch, ...]
    size: int
    made: float

    def result(self) -> QueryResult:
        """The kept result, as a statement's own (it scanned nothing)."""
        return QueryResult(list(self.columns), list(self.batches), StatementType.SELECT, scan=ScanStats())


class ReusedResults:
    def __init__(self, budget: int = DEFAULT_BUDGET) -> None:
        self.budget = budget
        self._kept: OrderedDict[Key, Reused] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def configure(self, budget: int) -> None:
        """Sets the byte budget (0 keeps nothing) and lets every kept result go."""
        with self._lock:
            self.budget = budget
            self._kept.clear()
            self._size = 0

    def key(self, translation: QueryTranslation, stored: StoredTables) -> Key | None:
        """What the query's result depends on; None when it may not be reused."""
        if self.budget <= 0 or _NON_REUSABLE.search(translation.sql):
            return None
        versions = []
        for use, found in zip(translation.tables, stored.tables, strict=True):
            if found is None or (use.sample is not None and use.sample.seed is None):
                return None
            if use.changes is not None:  # a stream's rows change with its offset, not the table
                return None
            table, version = found
            snapshot = "current" if version is None else version.snapshot_id
            versions.append((use.registered_as, table.metadata_location, snapshot, use.sample))
        return (translation.sql, tuple(translation.projected), tuple(versions))

    def get(self, key: Key) -> Reused | None:
        with self._lock:
            found = self._kept.get(key)
            if found is None:
                return None
            if time.monotonic() - found.made > REUSE_SECONDS:
                self._drop(key)
                return None
            self._kept.move_to_end(key)
            return found

    def keep(
        self, key: Key, columns: list[ResultColumn], batches: Iterator[pa.RecordBatch]
    ) -> Iterator[pa.RecordBatch]:
        """Passes the batches on; once the last has gone, the result is kept for reuse (unless
        it outgrew a quarter of the budget on the way)."""
        held: list[pa.RecordBatch] | None = []
        size = 0
        for batch in batches:
            if held is not None:
                size += batch.get_total_buffer_size()
                if size > self.budget // 4:
                    held = None
                else:
                    held.append(batch)
            yield batch
        if held is not None:
            self._put(key, Reused(list(columns), tuple(held), size, time.monotonic()))

    def _put(self, key: Key, reused: Reused) -> None:
        with self._lock:
            if key in self._kept:
                self._drop(key)
            self._kept[key] = reused
            self._size += reused.size
            while self._size > self.budget and self._kept:
                self._drop(next(iter(self._kept)))

    def _drop(self, key: Key) -> None:
        self._size -= self._kept.pop(key).size


REUSED = ReusedResults()

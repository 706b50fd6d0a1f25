"""CTEs read more than once are computed once, into a registered table, unless too large."""

from __future__ import annotations

import pyarrow as pa
import pytest

from embucket_py.engine import query
from embucket_py.engine.context import new_context
from embucket_py.engine.scan import ScanStats
from tests.sql.helpers import translate

ROWS = pa.table({"a": pa.array(range(1000), pa.int64()), "b": pa.array([f"g{i % 7}" for i in range(1000)])})
SQL = (
    "WITH r AS (SELECT b, SUM(a) AS s FROM t GROUP BY b) "
    "SELECT r.b, s FROM r WHERE s = (SELECT MAX(s) FROM r)"
)
SUMS = {f"g{k}": sum(range(k, 1000, 7)) for k in range(7)}


def test_the_split_reads_the_cte_by_its_registered_name() -> None:
    translation = translate(SQL)
    assert translation.shared == (
        (
            "__cte0",
            'WITH "r" AS (SELECT "b" AS "b", sum("a") AS "s" FROM "__t0" AS "t" GROUP BY "b") '
            'SELECT * FROM "r"',
        ),
    )
    assert translation.sql_over_shared == (
        'SELECT "r"."b" AS "b", "s" AS "s" FROM "__cte0" AS "r" '
        'WHERE "s" = (SELECT max("s") AS "max(s)" FROM "__cte0" AS "r")'
    )


@pytest.mark.parametrize(
    "sql",
    [
        "WITH r AS (SELECT DISTINCT a FROM t) SELECT * FROM r",  # read once
        "WITH r AS (SELECT a FROM t WHERE c > 1) SELECT * FROM r UNION ALL SELECT * FROM r",  # filters
        # shadowed by a nested WITH
        "WITH r AS (SELECT MAX(a) a FROM t) SELECT * FROM r, (WITH r AS (SELECT 1 a) SELECT a FROM r) x",
        "WITH RECURSIVE r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT * FROM r",
    ],
)
def test_ctes_stay_inlined_when_read_once_only_filtered_shadowed_or_recursive(sql: str) -> None:
    translation = translate(sql)
    assert translation.shared == () and translation.sql_over_shared is None


def _context() -> object:
    ctx = new_context()
    ctx.register_record_batches("__t0", [ROWS.to_batches()])
    ctx.scan_stats = ScanStats()  # type: ignore[attr-defined]
    return ctx


def test_a_shared_cte_is_computed_once_and_gives_the_same_answer() -> None:
    translation = translate(SQL)
    ctx = _context()
    sql = query._over_shared_ctes(ctx, translation, None)  # type: ignore[arg-type]
    assert sql == translation.sql_over_shared
    assert ctx.table("__cte0").count() == 7  # type: ignore[attr-defined]
    shared = ctx.sql(sql).to_arrow_table().to_pylist()  # type: ignore[attr-defined]
    inlined = ctx.sql(translation.sql).to_arrow_table().to_pylist()  # type: ignore[attr-defined]
    assert shared == inlined == [{"b": max(SUMS, key=SUMS.__getitem__), "s": max(SUMS.values())}]


def test_a_cte_too_large_to_hold_is_computed_at_each_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(query, "SHARED_CTE_BYTES", 16)
    translation = translate(SQL)
    assert query._over_shared_ctes(_context(), translation, None) == translation.sql  # type: ignore[arg-type]

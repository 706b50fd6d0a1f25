"""ASOF JOIN becomes a LEFT JOIN on the closest right row (sql/transforms/asof_joins.py)."""

from __future__ import annotations

import pytest

from embucket_py.engine.context import new_context
from tests.sql.helpers import CTX, translate, validate

_DATA = (
    "WITH tr AS (SELECT * FROM VALUES ('A', 3), ('A', 5), ('A', 7), ('B', 6), ('C', 1) AS v(sym, t)), "
    "q AS (SELECT * FROM VALUES ('A', 4, 10), ('A', 5, 11), ('A', 5, 11), ('A', 6, 12), ('B', 7, 20), "
    "('A', NULL, 99) AS v(sym, t, px)) "
)


@pytest.mark.parametrize(
    ("condition", "matched"),
    [
        # The latest quote at or before each trade; none for a trade before every quote.
        ("tr.t >= q.t", [None, 5, 6, None, None]),
        ("tr.t > q.t", [None, 4, 6, None, None]),
        ("tr.t <= q.t", [4, 5, None, 7, None]),
        ("tr.t < q.t", [4, 6, None, 7, None]),
        ("q.t <= tr.t", [None, 5, 6, None, None]),  # written the other way round
    ],
)
def test_each_left_row_finds_the_closest_right_row_of_its_key(
    condition: str, matched: list[int | None]
) -> None:
    sql = (
        f"{_DATA}SELECT tr.sym, tr.t, q.t AS qt FROM tr ASOF JOIN q MATCH_CONDITION({condition}) "
        "ON tr.sym = q.sym ORDER BY tr.sym, tr.t"
    )
    rows = new_context().sql(translate(sql, CTX).sql).to_pylist()
    assert [r["qt"] for r in rows] == matched  # one row per trade: duplicates of a quote match once


def test_the_right_side_becomes_a_window_over_its_rows() -> None:
    validate(
        "SELECT * FROM t ASOF JOIN u MATCH_CONDITION(t.ts >= u.ts) ON t.a = u.a",
        'SELECT * EXCEPT ("__asof_edge") FROM "__t0" AS "t" LEFT JOIN (SELECT *, lead("u"."ts") OVER '
        '(PARTITION BY "u"."a" ORDER BY "u"."ts") AS "__asof_edge" FROM "__t1" AS "u") AS "u" '
        'ON "t"."a" = "u"."a" AND ("t"."ts" >= "u"."ts" '
        'AND ("u"."__asof_edge" IS NULL OR "t"."ts" < "u"."__asof_edge"))',
    )

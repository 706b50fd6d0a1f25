"""Which pooled DataFusion context a query borrows: lookups filter rows while Parquet pages are
decoded, analytic queries (joins, aggregates) do not, small scans run in one partition."""

from __future__ import annotations

import pytest
from sqlglot import exp

from embucket_py.engine.context import ContextPool
from embucket_py.engine.query import is_lookup
from embucket_py.sql.parse import parse


@pytest.mark.parametrize(
    ("sql", "lookup"),
    [
        ("SELECT * FROM orders WHERE o_orderkey = 7", True),
        ("SELECT o_comment FROM orders WHERE o_orderkey IN (1, 2) ORDER BY 1 LIMIT 5", True),
        ("SELECT * FROM orders", False),  # nothing to filter
        ("SELECT COUNT(*) FROM orders WHERE o_orderkey = 7", False),
        ("SELECT o_custkey FROM orders WHERE o_orderkey < 9 GROUP BY 1", False),
        ("SELECT * FROM orders JOIN customer ON o_custkey = c_custkey WHERE c_custkey = 1", False),
        ("INSERT INTO t SELECT * FROM orders WHERE o_orderkey = 7", False),
    ],
)
def test_lookups_are_one_table_through_a_where(sql: str, lookup: bool) -> None:
    tree = parse(sql)[0]
    tables = len(list(tree.find_all(exp.Table)))
    assert is_lookup(tree, tables) is lookup


def test_the_pool_keeps_each_kind_apart() -> None:
    pool = ContextPool(keep=2)
    analytic = pool.borrow(filter_in_scan=False)
    lookup = pool.borrow(filter_in_scan=True)
    small = pool.borrow(one_partition=True, filter_in_scan=False)
    assert not analytic.filter_in_scan and lookup.filter_in_scan  # type: ignore[attr-defined]
    assert small.filter_in_scan  # one-partition scans are small: filtering in the scan costs nothing
    for ctx in (analytic, lookup, small):
        pool.give_back(ctx)
    assert pool.borrow(filter_in_scan=False) is analytic
    assert pool.borrow(filter_in_scan=True) is lookup
    assert pool.borrow(one_partition=True) is small

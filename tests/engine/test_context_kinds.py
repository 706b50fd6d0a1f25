"""Which pooled DataFusion context a query borrows (lookups and keyed aggregate subqueries filter
rows while Parquet pages are decoded, other analytic queries (joins, aggregates) do not, small
scans run in one partition), and the join settings every context has."""

from __future__ import annotations

import pyarrow as pa
import pytest
from sqlglot import exp

from embucket_py.engine.context import ContextPool, new_context
from embucket_py.engine.query import filters_in_scan
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
        # A keyed aggregate: the outer keys filter the aggregated table's scan (TPC-H Q17, Q18).
        (
            "SELECT SUM(l_extendedprice) FROM lineitem, part WHERE p_partkey = l_partkey AND p_brand = 'B'"
            " AND l_quantity < (SELECT 0.2 * AVG(l_quantity) FROM lineitem WHERE l_partkey = p_partkey)",
            True,
        ),
        (
            "SELECT o_orderkey FROM orders, lineitem WHERE o_orderkey = l_orderkey AND o_orderkey IN"
            " (SELECT l_orderkey FROM lineitem GROUP BY l_orderkey HAVING SUM(l_quantity) > 300)",
            True,
        ),
        # Not keyed: a whole-table aggregate (Q22), a subquery joining tables of its own (Q11),
        # an IN without grouping (Q16), EXISTS (Q4).
        (
            "SELECT c_custkey FROM customer WHERE c_acctbal > (SELECT AVG(c_acctbal) FROM customer"
            " WHERE c_acctbal > 0)",
            False,
        ),
        (
            "SELECT ps_partkey FROM partsupp, supplier WHERE ps_suppkey = s_suppkey GROUP BY 1"
            " HAVING SUM(ps_availqty) > (SELECT SUM(ps_availqty) FROM partsupp, supplier"
            " WHERE ps_suppkey = s_suppkey)",
            False,
        ),
        ("SELECT ps_partkey FROM partsupp WHERE ps_suppkey NOT IN (SELECT s_suppkey FROM supplier)", False),
        (
            "SELECT o_orderpriority FROM orders WHERE EXISTS (SELECT * FROM lineitem WHERE l_orderkey ="
            " o_orderkey AND l_commitdate < l_receiptdate)",
            False,
        ),
    ],
)
def test_filters_run_in_the_scan_for_lookups_and_keyed_aggregates(sql: str, lookup: bool) -> None:
    tree = parse(sql)[0]
    tables = len(list(tree.find_all(exp.Table)))
    assert filters_in_scan(tree, tables) is lookup


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


def test_a_join_on_a_filtered_dimensions_keys_indexes_them_in_an_array() -> None:
    # 100 keys spread over 100,000 values: too sparse for DataFusion's default (a hash table),
    # within the engine's span of 1M slots.
    ctx = new_context()
    ctx.register_table("dim", ctx.from_arrow(pa.table({"k": pa.array(range(0, 100_000, 1000), pa.int64())})))
    ctx.register_table("fact", ctx.from_arrow(pa.table({"k": pa.array(range(200_000), pa.int64())})))
    sql = "SELECT COUNT(*) AS n, SUM(fact.k) AS s FROM fact JOIN dim ON fact.k = dim.k"
    assert ctx.sql(sql).to_pylist() == [{"n": 100, "s": sum(range(0, 100_000, 1000))}]
    analyzed = ctx.sql(f"EXPLAIN ANALYZE {sql}").to_arrow_table().column(1)[0].as_py()
    assert "array_map_created_count=1" in analyzed

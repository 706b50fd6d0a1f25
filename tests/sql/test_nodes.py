"""Nodes: one walk answers what find_all answered, node for node and in the same order."""

from __future__ import annotations

import pytest
from sqlglot import exp

from embucket_py.sql.nodes import Nodes
from embucket_py.sql.parse import parse

QUERIES = [
    "SELECT 1",
    "WITH c AS (SELECT a FROM t1) SELECT * FROM c JOIN db.s.t2 ON c.a = t2.b WHERE x IN (SELECT y FROM t3)",
    "SELECT SYSTEM$GET_TAG('t', 'x', 'table'), my_udf(a), s.seq.NEXTVAL FROM t PIVOT (SUM(v) FOR k IN ('a'))",
    "SELECT a FROM t1 UNION ALL SELECT b FROM (SELECT b FROM t2) AS sub",
]


@pytest.mark.parametrize("sql", QUERIES)
@pytest.mark.parametrize(
    "classes",
    [(exp.Table,), (exp.Anonymous,), (exp.Column,), (exp.CTE,), (exp.Table, exp.Subquery), (exp.Func,)],
)
def test_of_matches_find_all(sql: str, classes: tuple[type[exp.Expression], ...]) -> None:
    tree = parse(sql)[0]
    expected = list(tree.find_all(*classes))
    found = Nodes(tree).of(*classes)
    if len(classes) == 1:  # one class: the same nodes in find_all's (breadth-first) order
        assert [id(n) for n in found] == [id(n) for n in expected]
    else:
        assert sorted(map(id, found)) == sorted(map(id, expected))


def test_has_takes_subclasses() -> None:
    nodes = Nodes(parse("SELECT a FROM t1 UNION SELECT b FROM t2")[0])
    assert nodes.has(exp.SetOperation)  # a Union is one
    assert nodes.has(exp.Union)
    assert not nodes.has(exp.MatchRecognize)
    assert not Nodes(parse("SELECT 1")[0]).has(exp.Table)

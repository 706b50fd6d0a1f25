"""ASOF JOIN ... MATCH_CONDITION(l.t >= r.t) ON l.k = r.k -> a LEFT JOIN on the one right row
whose match value is the closest, which DataFusion cannot plan as such.

Each right row is given the next (for >, >=) or previous (for <, <=) match value of its key by a
window function: the row matches the left rows between its own value and that edge, so every left
row finds at most one right row, and a left row without any keeps NULLs (ASOF is an outer join).
Of right rows sharing a match value, one is taken (the edge of the others is their own value).
https://docs.snowflake.com/en/sql-reference/constructs/asof-join
"""

from __future__ import annotations

from sqlglot import exp

from embucket_py.errors import Unsupported
from embucket_py.sql.names import normalize

EDGE = "__asof_edge"

# For each comparison (left value ? right value): the window giving the edge, and the comparison
# of the left value with it that keeps the left row before that edge.
_EDGES: dict[type[exp.Expression], tuple[str, type[exp.Expression]]] = {
    exp.GTE: ("LEAD", exp.LT),
    exp.GT: ("LEAD", exp.LTE),
    exp.LTE: ("LAG", exp.GT),
    exp.LT: ("LAG", exp.GTE),
}
_FLIPPED: dict[type[exp.Expression], type[exp.Expression]] = {
    exp.GTE: exp.LTE,
    exp.GT: exp.LT,
    exp.LTE: exp.GTE,
    exp.LT: exp.GT,
}


def asof_joins(tree: exp.Expression) -> exp.Expression:
    for select in list(tree.find_all(exp.Select)):
        for join in select.args.get("joins") or []:
            if str(join.args.get("method") or "").upper() == "ASOF":
                _rewrite(select, join)
    return tree


def _alias(table: exp.Expression) -> exp.Identifier:
    """The name the query reads the right side's columns by: its alias, or the table's name."""
    alias = table.args.get("alias")
    if isinstance(alias, exp.TableAlias) and isinstance(alias.this, exp.Identifier):
        return alias.this
    if isinstance(table, exp.Table) and isinstance(table.this, exp.Identifier):
        return table.this
    raise Unsupported("ASOF JOIN of a right side without a name")


def _is_right(node: exp.Expression, right: str) -> bool:
    """Whether every column of `node` is the right side's (find_all includes `node` itself)."""
    columns = list(node.find_all(exp.Column))
    return bool(columns) and all(c.table and normalize(c.args["table"]) == right for c in columns)


def _rewrite(select: exp.Select, join: exp.Join) -> None:
    right_table = join.this
    name = _alias(right_table)
    right = normalize(name)
    match = join.args.get("match_condition")
    if type(match) not in _EDGES:
        raise Unsupported("ASOF JOIN needs MATCH_CONDITION with one of >=, >, <=, <")
    compare = type(match)
    left_value, right_value = match.this, match.expression
    if _is_right(left_value, right) and not _is_right(right_value, right):
        left_value, right_value, compare = right_value, left_value, _FLIPPED[compare]
    if not _is_right(right_value, right):
        raise Unsupported("ASOF JOIN's MATCH_CONDITION must compare a left value with a right one")
    on = join.args.get("on")
    conjuncts = list(on.flatten()) if isinstance(on, exp.And) else [on] if on is not None else []
    keys = [
        eq.expression if _is_right(eq.expression, right) else eq.this
        for eq in conjuncts
        if isinstance(eq, exp.EQ)
    ]
    window, beyond = _EDGES[compare]
    edge = exp.Window(
        this=exp.Anonymous(this=window, expressions=[right_value.copy()]),
        partition_by=[k.copy() for k in keys],
        order=exp.Order(expressions=[exp.Ordered(this=right_value.copy(), nulls_first=False)]),
    )
    inner = exp.select(exp.Star(), exp.alias_(edge, exp.to_identifier(EDGE, quoted=True))).from_(
        right_table.copy()
    )
    join.set("this", exp.Subquery(this=inner, alias=exp.TableAlias(this=name.copy())))
    bound = exp.column(EDGE, table=name.copy(), quoted=True)
    before_edge = exp.or_(
        exp.Is(this=bound, expression=exp.Null()), beyond(this=left_value.copy(), expression=bound.copy())
    )
    condition = exp.and_(
        compare(this=left_value.copy(), expression=right_value.copy()), exp.paren(before_edge)
    )
    join.set("on", exp.and_(on, condition) if on is not None else condition)
    join.set("method", None)
    join.set("match_condition", None)
    join.set("side", "LEFT")
    _hide_edge(select, right)


def _hide_edge(select: exp.Select, right: str) -> None:
    """`*` and `right.*` leave out the edge column the rewrite added."""
    for node in select.expressions:
        star = node.this if isinstance(node, exp.Column) and isinstance(node.this, exp.Star) else node
        qualifier = node.args.get("table") if isinstance(node, exp.Column) else None
        if not isinstance(star, exp.Star) or (qualifier is not None and normalize(qualifier) != right):
            continue
        hidden = list(star.args.get("except_") or [])
        star.set("except_", [*hidden, exp.column(EDGE, quoted=True)])

"""Keys of ROLLUP, CUBE and GROUPING SETS grouped as values the engine cannot know constant.

DataFusion 54 carries a key its input holds constant (`WHERE region = 'EU'`, a literal column of a
UNION ALL, as in TPC-DS's `'store channel' AS channel ... GROUP BY ROLLUP(channel, id)`) into the
aggregate's output as constant, though the grouping sets put NULL there: it then emits groups
too early (rows missing or split) and drops the ORDER BY over that column. Such a key is grouped
as `CASE WHEN random() >= 0 THEN key END`, the same value, wherever the query names it after
grouping (select list, GROUPING, HAVING, ORDER BY, windows); aggregate arguments keep the plain
column. Keys of a plain GROUP BY are in every group, and constant for good. Positions in a
grouping set (`ROLLUP(1, 2)`) stand for the select items there.
"""

from __future__ import annotations

from sqlglot import exp

_SETS = (exp.Rollup, exp.Cube, exp.GroupingSets)


def grouping_sets(tree: exp.Expression) -> exp.Expression:
    for select in list(tree.find_all(exp.Select)):
        group = select.args.get("group")
        if group is None or not any(isinstance(node, _SETS) for node in group.expressions):
            continue
        _resolve_ordinals(select, group)
        keys = _keys(group)
        for node in group.expressions:
            if isinstance(node, _SETS):
                _wrap_in(node, keys)
        for part in (*select.expressions, select.args.get("having"), select.args.get("order")):
            if part is not None:
                _wrap_in(part, keys)
    return tree


def _resolve_ordinals(select: exp.Select, group: exp.Group) -> None:
    """`ROLLUP(1, 2)`: a position in a grouping set is the select item there (DataFusion reads
    positions only in a plain GROUP BY)."""
    items = select.expressions
    for node in group.expressions:
        if isinstance(node, _SETS):
            for key in _flattened(node.expressions):
                position = int(key.this) if _is_ordinal(key) else 0
                if 1 <= position <= len(items) and not isinstance(items[position - 1], exp.Star):
                    item = items[position - 1]
                    key.replace((item.this if isinstance(item, exp.Alias) else item).copy())


def _keys(group: exp.Group) -> list[exp.Expression]:
    """The expressions some grouping set leaves out (a select item's alias stands for its
    expression by now: `'store' AS channel ... ROLLUP(channel)` groups by the literal)."""
    keys: list[exp.Expression] = []
    for node in group.expressions:
        if isinstance(node, _SETS):
            for key in _flattened(node.expressions):
                if _is_ordinal(key) or isinstance(key, exp.Null) or _is_opaque(key):
                    continue
                if not any(_same(key, k) for k in keys):
                    keys.append(key)
    return keys


def _flattened(nodes: list[exp.Expression]) -> list[exp.Expression]:
    out = []
    for node in nodes:
        if isinstance(node, exp.Tuple | exp.Paren):
            out += _flattened(node.expressions if isinstance(node, exp.Tuple) else [node.this])
        else:
            out.append(node)
    return out


def _same(node: exp.Expression, key: exp.Expression) -> bool:
    """The same expression; columns by name when only one side names its table."""
    if isinstance(node, exp.Column) and isinstance(key, exp.Column):
        tables = {node.table.lower(), key.table.lower()} - {""}
        return node.name.lower() == key.name.lower() and len(tables) <= 1
    return node == key


def _wrap_in(node: exp.Expression, keys: list[exp.Expression]) -> None:
    for child in list(node.iter_expressions()):
        if any(_same(child, key) for key in keys):
            child.replace(_opaque(child.copy()))
        elif _is_opaque(child):
            continue
        elif isinstance(child, exp.AggFunc | exp.Subquery | exp.Select) and not _is_grouping(child):
            continue  # aggregate arguments read the input rows; subqueries their own sources
        else:
            _wrap_in(child, keys)


def _is_grouping(node: exp.Expression) -> bool:
    return isinstance(node, exp.Grouping | exp.GroupingId) or (
        isinstance(node, exp.Anonymous) and node.name.upper() == "GROUPING"
    )


def _opaque(key: exp.Expression) -> exp.Expression:
    known = exp.GTE(this=exp.Anonymous(this="random", expressions=[]), expression=exp.Literal.number(0))
    return exp.Case(ifs=[exp.If(this=known, true=key)])


def _is_opaque(node: exp.Expression) -> bool:
    ifs = node.args.get("ifs") if isinstance(node, exp.Case) else None
    condition = ifs[0].this if ifs and len(ifs) == 1 else None
    return (
        isinstance(condition, exp.GTE)
        and isinstance(condition.this, exp.Anonymous)
        and (condition.this.name == "random")
    )


def _is_ordinal(node: exp.Expression) -> bool:
    return isinstance(node, exp.Literal) and not node.is_string and node.this.isdigit()

"""Hierarchical queries (START WITH ... CONNECT BY) -> a recursive CTE over the same source.

    SELECT list FROM src [AS a] [WHERE w] START WITH s CONNECT BY c
 -> WITH RECURSIVE __connect_by AS (
        SELECT a.*, 1 AS __cb_level, ... FROM src AS a WHERE s
        UNION ALL
        SELECT a.*, __prior.__cb_level + 1, ... FROM src AS a JOIN __connect_by AS __prior ON c')
    SELECT list' FROM __connect_by AS a [WHERE w]

`PRIOR x` in the CONNECT BY condition reads the parent row (`__prior`), every other column the
child. The pseudo-columns become columns the recursion carries: LEVEL, CONNECT_BY_ROOT x (the
root row's x) and SYS_CONNECT_BY_PATH(x, sep) (sep x1 sep x2 ... from the root down). WHERE
filters the rows of the hierarchy, as in Snowflake (and Oracle), not the rows it is built from.
Without START WITH every row is a root. Rows come in no particular order, as in Snowflake.

https://docs.snowflake.com/en/sql-reference/constructs/connect-by
https://docs.snowflake.com/en/sql-reference/functions/sys_connect_by_path
"""

from __future__ import annotations

from sqlglot import exp

from embucket_py.errors import Unsupported
from embucket_py.sql.names import normalize

NAME = "__connect_by"
PRIOR = "__prior"
LEVEL = "__cb_level"
_SOURCE = "__cb_source"


def _is_level(node: exp.Expression) -> bool:
    return isinstance(node, exp.Column) and not node.table and normalize(node.this) == "LEVEL"


def _is_path(node: exp.Expression) -> bool:
    return isinstance(node, exp.Anonymous) and node.name.upper() == "SYS_CONNECT_BY_PATH"


def _column(name: str, table: exp.Identifier | str) -> exp.Column:
    return exp.Column(this=exp.to_identifier(name), table=exp.to_identifier(table).copy())


def _child_level() -> exp.Expression:
    return exp.Paren(this=exp.Add(this=_column(LEVEL, PRIOR), expression=exp.Literal.number(1)))


def _own_columns(node: exp.Expression, table: exp.Identifier | str) -> exp.Expression:
    """`node` reading its columns from the row named `table`."""
    node = node.copy()
    for column in list(node.find_all(exp.Column)):
        if not isinstance(column.this, exp.Star) and not _is_level(column):
            column.set("table", exp.to_identifier(table).copy())
    return node


class _Carried:
    """The pseudo-column values each row of the recursion carries, numbered in order of use."""

    def __init__(self, alias: exp.Identifier) -> None:
        self.alias = alias
        self.roots: dict[str, tuple[str, exp.Expression]] = {}
        self.paths: dict[str, tuple[str, exp.Expression, exp.Expression]] = {}

    def replace(self, node: exp.Expression) -> exp.Expression:
        """The outer query's expression with its pseudo-columns read from the recursion."""
        if _is_level(node):
            return _column(LEVEL, self.alias)
        if isinstance(node, exp.ConnectByRoot):
            key = node.this.sql()
            name = self.roots.setdefault(key, (f"__cb_root{len(self.roots)}", node.this))[0]
            return _column(name, self.alias)
        if _is_path(node):
            if len(node.expressions) != 2:
                raise Unsupported("SYS_CONNECT_BY_PATH takes a value and a separator.")
            value, separator = node.expressions
            key = node.sql()
            name = self.paths.setdefault(key, (f"__cb_path{len(self.paths)}", value, separator))[0]
            return _column(name, self.alias)
        return node

    def names(self) -> list[str]:
        return [LEVEL, *(n for n, _ in self.roots.values()), *(n for n, _, _ in self.paths.values())]

    def anchor(self) -> list[exp.Expression]:
        items: list[exp.Expression] = [exp.alias_(exp.Literal.number(1), LEVEL)]
        items += [exp.alias_(_own_columns(v, self.alias), n) for n, v in self.roots.values()]
        items += [
            exp.alias_(exp.DPipe(this=s.copy(), expression=_text(v, self.alias)), n)
            for n, v, s in self.paths.values()
        ]
        return items

    def step(self) -> list[exp.Expression]:
        items: list[exp.Expression] = [exp.alias_(_child_level(), LEVEL)]
        items += [exp.alias_(_column(n, PRIOR), n) for n, _ in self.roots.values()]
        for n, v, s in self.paths.values():
            path = exp.DPipe(
                this=exp.DPipe(this=_column(n, PRIOR), expression=s.copy()), expression=_text(v, self.alias)
            )
            items.append(exp.alias_(path, n))
        return items


def _text(value: exp.Expression, table: exp.Identifier) -> exp.Expression:
    """A path element: the value as text, NULL as empty."""
    return exp.Coalesce(
        this=exp.cast(_own_columns(value, table), "VARCHAR"), expressions=[exp.Literal.string("")]
    )


def _condition(connect: exp.Expression, alias: exp.Identifier) -> exp.Expression:
    """The CONNECT BY condition as a join condition: PRIOR x -> the parent's x, LEVEL -> the
    child's level, any other column -> the child's."""
    condition = connect.copy()
    for prior in list(condition.find_all(exp.Prior)):
        prior.replace(exp.Paren(this=_own_columns(prior.this, PRIOR)))
    for column in list(condition.find_all(exp.Column)):
        if _is_level(column):
            column.replace(_child_level())
        elif not column.table or normalize(column.args["table"]) != normalize(exp.to_identifier(PRIOR)):
            column.set("table", alias.copy())
    return condition


def _start(start: exp.Expression | None) -> exp.Expression | None:
    if start is None:
        return None
    start = start.copy()
    for column in list(start.find_all(exp.Column)):
        if _is_level(column):
            column.replace(exp.Literal.number(1))
    return start


def _rewrite(select: exp.Select, index: int) -> None:
    connect = select.args["connect"]
    if select.args.get("joins") or not isinstance(select.args.get("from_"), exp.From):
        raise Unsupported("CONNECT BY over a join is not supported yet; use a recursive CTE.")
    source = select.args["from_"].this
    if isinstance(source, exp.Table) and not source.alias:
        ident = source.this.copy()
    elif source.args.get("alias") is not None:
        ident = source.args["alias"].this.copy()
    else:
        ident = exp.to_identifier(_SOURCE)
    named = source.copy()
    named.set("alias", exp.TableAlias(this=ident.copy()))
    name = f"{NAME}{index}" if index else NAME

    carried = _Carried(ident)
    select.set("connect", None)
    for key in ("expressions", "where", "group", "having", "qualify", "order"):
        value = select.args.get(key)
        if value is None:
            continue
        parts = value if isinstance(value, list) else [value]
        new = [p.transform(carried.replace, copy=False) for p in parts]
        select.set(key, new if isinstance(value, list) else new[0])
    hidden = [exp.column(n) for n in carried.names()]
    for item in select.expressions:  # `*` and `a.*` leave the carried columns out
        star = item.this if isinstance(item, exp.Column) else item
        if isinstance(star, exp.Star):
            star.set("except_", [h.copy() for h in hidden])

    star = exp.Column(this=exp.Star(), table=ident.copy())
    anchor = exp.select(star.copy(), *carried.anchor()).from_(named.copy())
    start = _start(connect.args.get("start"))
    if start is not None:
        anchor = anchor.where(start)
    prior = exp.Table(this=exp.to_identifier(name), alias=exp.TableAlias(this=exp.to_identifier(PRIOR)))
    step = (
        exp.select(star, *carried.step())
        .from_(named)
        .join(prior, on=_condition(connect.args["connect"], ident))
    )
    cte = exp.CTE(
        this=exp.union(anchor, step, distinct=False), alias=exp.TableAlias(this=exp.to_identifier(name))
    )
    with_ = select.args.get("with_")
    if isinstance(with_, exp.With):
        with_.append("expressions", cte)
        with_.set("recursive", True)
    else:
        select.set("with_", exp.With(expressions=[cte], recursive=True))
    select.set(
        "from_",
        exp.From(this=exp.Table(this=exp.to_identifier(name), alias=exp.TableAlias(this=ident.copy()))),
    )


def connect_by(tree: exp.Expression) -> exp.Expression:
    """Rewrites every SELECT with a CONNECT BY clause (innermost first).

    Raises:
        Unsupported: CONNECT BY over a join.
    """
    selects = [s for s in tree.find_all(exp.Select) if s.args.get("connect")]
    for index, select in enumerate(reversed(selects)):
        _rewrite(select, index)
    return tree

"""EXISTS and IN / NOT IN over a subquery outside WHERE, HAVING and ON -> counting subqueries.

DataFusion turns these predicates into semi and mark joins only where they filter rows; in a
select list, a CASE or ORDER BY its physical planner refuses them ("does not support logical
expression Exists"). A scalar subquery that counts runs anywhere, also correlated by equality:

    EXISTS (SELECT .. FROM s WHERE w)  ->  (SELECT COUNT(*) FROM s WHERE w) > 0
    x IN (q)  ->  CASE WHEN (SELECT COUNT(*) FROM (q) AS __in(__v) WHERE __v = x) > 0 THEN TRUE
                       WHEN <q holds a NULL> OR (x IS NULL AND <q holds a row>) THEN NULL
                       ELSE FALSE END

which keeps IN's three-valued logic (1 IN (2, NULL) is NULL, NULL IN () is FALSE) and so NOT IN's.
Snowflake documents uncorrelated EXISTS anywhere a boolean goes, correlated EXISTS and IN over a
subquery in WHERE only; the correlated forms are accepted here too.
https://docs.snowflake.com/en/sql-reference/operators-subquery
"""

from __future__ import annotations

from sqlglot import exp

# Where DataFusion plans the predicates itself (as joins): left as they are.
_FILTERS = (exp.Where, exp.Having, exp.Join)
_SCOPES = (*_FILTERS, exp.Select)


def subquery_predicates(tree: exp.Expression) -> exp.Expression:
    _tuples_in(tree)
    for node in list(tree.find_all(exp.Exists, exp.In, exp.NEQ)):
        if isinstance(node.find_ancestor(*_SCOPES), _FILTERS):
            continue
        if isinstance(node, exp.Exists):
            node.replace(_exists(node))
        elif isinstance(node, exp.In) and node.args.get("query") is not None:  # not a list of values
            node.replace(_in(node.this, node.args["query"]))
        elif isinstance(node, exp.NEQ) and isinstance(node.expression, exp.All):
            # sqlglot reads `x NOT IN (q)` as `x <> ALL (q)`.
            node.replace(exp.Not(this=_in(node.this, node.expression.this)))
    return tree


def _tuples_in(tree: exp.Expression) -> None:
    """`(a, b) [NOT] IN (SELECT x, y ...)` -> [NOT] EXISTS over the subquery's rows that match
    (DataFusion's IN takes one column). NOT IN is false when a row might match: one whose every
    column equals or is NULL, so `(1, 2) NOT IN (SELECT 1, NULL)` keeps no row, as Snowflake's."""
    for node in list(tree.find_all(exp.In, exp.NEQ)):
        negated = isinstance(node, exp.NEQ)
        query = node.expression.this if negated and isinstance(node.expression, exp.All) else None
        query = node.args.get("query") if isinstance(node, exp.In) else query
        if not isinstance(node.this, exp.Tuple) or query is None:
            continue
        target: exp.Expression = node
        if isinstance(node.parent, exp.Not):  # NOT (a, b) IN (...)
            negated, target = True, node.parent
        target.replace(
            _tuple_in(node.this, query.this if isinstance(query, exp.Subquery) else query, negated)
        )


def _tuple_in(values: exp.Tuple, query: exp.Expression, negated: bool) -> exp.Expression:
    names = [exp.to_identifier(f"__v{i}") for i in range(len(values.expressions))]
    derived = exp.Subquery(
        this=query.copy(), alias=exp.TableAlias(this=exp.to_identifier("__in"), columns=names)
    )
    columns = [exp.column(name.copy(), "__in") for name in names]
    if negated:
        differs = [
            exp.NEQ(this=c, expression=v.copy()) for c, v in zip(columns, values.expressions, strict=True)
        ]
        condition: exp.Expression = exp.Not(
            this=exp.Is(this=exp.Paren(this=exp.or_(*differs)), expression=exp.true())
        )
    else:
        condition = exp.and_(
            *(exp.EQ(this=c, expression=v.copy()) for c, v in zip(columns, values.expressions, strict=True))
        )
    exists = exp.Exists(this=exp.select("1").from_(derived).where(condition))
    return exp.Not(this=exists) if negated else exists


def _count(query: exp.Expression, where: exp.Expression | None = None) -> exp.Expression:
    """(SELECT COUNT(*) FROM (query) AS __in(__v) [WHERE where]) as a scalar subquery."""
    derived = exp.Subquery(
        this=query.copy(),
        alias=exp.TableAlias(this=exp.to_identifier("__in"), columns=[exp.to_identifier("__v")]),
    )
    counting = exp.select(exp.Count(this=exp.Star())).from_(derived)
    if where is not None:
        counting = counting.where(where)
    return exp.Subquery(this=counting)


def _held(query: exp.Expression, where: exp.Expression | None = None) -> exp.Expression:
    return _positive(_count(query, where))


def _positive(count: exp.Expression) -> exp.Expression:
    return exp.GT(this=count, expression=exp.Literal.number(0))


def _value() -> exp.Column:
    return exp.column("__v", table="__in")


def _exists(node: exp.Exists) -> exp.Expression:
    query = node.this
    if isinstance(query, exp.Subquery):
        query = query.this
    if _one_row(query):
        return exp.true()
    if _plain(query):
        # Counted in place: the subquery's own WHERE may refer to the outer row.
        counting = query.copy()
        counting.set("expressions", [exp.Count(this=exp.Star())])
        return _positive(exp.Subquery(this=counting))
    return _held(exp.select("1").from_(exp.Subquery(this=query.copy(), alias="__q")))


def _one_row(query: exp.Expression) -> bool:
    """An aggregate without GROUP BY (SELECT MAX(b) FROM u WHERE ..): one row, always."""
    if not isinstance(query, exp.Select) or not query.expressions:
        return False
    if any(query.args.get(arg) for arg in ("group", "having", "qualify", "limit", "offset")):
        return False
    return all(p.find(exp.AggFunc) and not p.find(exp.Window) for p in query.expressions)


def _plain(query: exp.Expression) -> bool:
    """A SELECT whose rows are its FROM's, filtered: counting them counts the subquery's rows."""
    if not isinstance(query, exp.Select) or query.args.get("with_"):
        return False
    shaping = ("group", "having", "qualify", "distinct", "limit", "offset", "order")
    if any(query.args.get(arg) for arg in shaping) or not query.args.get("from_"):
        return False
    return not any(p.find(exp.AggFunc, exp.Window) for p in query.expressions)


def _in(x: exp.Expression, query: exp.Expression) -> exp.Expression:
    query = query.this if isinstance(query, exp.Subquery) else query
    nulls = exp.or_(
        _held(query, exp.Is(this=_value(), expression=exp.Null())),
        exp.and_(exp.Is(this=x.copy(), expression=exp.Null()), _held(query)),
    )
    return exp.Paren(
        this=exp.Case(
            ifs=[
                exp.If(this=_held(query, exp.EQ(this=_value(), expression=x.copy())), true=exp.true()),
                exp.If(this=nulls, true=exp.Null()),
            ],
            default=exp.false(),
        )
    )

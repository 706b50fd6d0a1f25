"""Conditional expression functions with Snowflake's NULL rules, on plain SQL expressions.

https://docs.snowflake.com/en/sql-reference/expressions-conditional
"""

from __future__ import annotations

from sqlglot import exp

from embucket_py.sql.transforms.functions.strings import bottom_up, call


def _truth(value: exp.Expression) -> exp.Expression:
    """A numeric argument of BOOLAND & co. as a boolean: Snowflake rounds it, nonzero is TRUE."""
    if isinstance(value, exp.Boolean) or (
        isinstance(value, exp.Literal) and not value.is_string and value.this in ("0", "1")
    ):
        if isinstance(value, exp.Literal):
            return exp.paren(exp.NEQ(this=value, expression=exp.Literal.number(0)))
        return value
    rounded = call("round", exp.Cast(this=value, to=exp.DataType.build("DOUBLE")))
    return exp.paren(exp.NEQ(this=rounded, expression=exp.Literal.number(0)))


def _null_if_any_null(node: exp.Greatest | exp.Least) -> exp.Expression:
    """Snowflake's GREATEST/LEAST are NULL when any argument is; DataFusion's skip NULLs."""
    args = [node.this, *node.expressions]
    name = "greatest" if isinstance(node, exp.Greatest) else "least"
    any_null = exp.or_(*(exp.Is(this=a.copy(), expression=exp.Null()) for a in args))
    return exp.Case().when(any_null, exp.Null()).else_(call(name, *args))


def _rewrite(node: exp.Expression) -> exp.Expression:
    if isinstance(node, exp.EqualNull):
        return exp.paren(exp.NullSafeEQ(this=node.this, expression=node.expression))
    if isinstance(node, exp.Booland):
        return exp.paren(exp.and_(_truth(node.this), _truth(node.expression)))
    if isinstance(node, exp.Boolor):
        return exp.paren(exp.or_(_truth(node.this), _truth(node.expression)))
    if isinstance(node, exp.Xor) and node.args.get("round_input"):
        return exp.paren(exp.NEQ(this=_truth(node.this), expression=_truth(node.expression)))
    if isinstance(node, exp.Boolnot):
        return exp.paren(exp.Not(this=_truth(node.this)))
    if isinstance(node, exp.Greatest | exp.Least) and not node.args.get("ignore_nulls") and node.expressions:
        return _null_if_any_null(node)
    if isinstance(node, exp.RegrValx | exp.RegrValy):
        # REGR_VALX(y, x) is x and REGR_VALY(y, x) is y, both NULL when either is NULL.
        y, x = node.this, node.expression
        either_null = exp.or_(
            exp.Is(this=y.copy(), expression=exp.Null()), exp.Is(this=x.copy(), expression=exp.Null())
        )
        value = x if isinstance(node, exp.RegrValx) else y
        return exp.Case().when(either_null, exp.Null()).else_(value)
    return node


def rewrite(tree: exp.Expression) -> exp.Expression:
    return bottom_up(tree, _rewrite)

"""Snowflake aggregate and window functions -> DataFusion built-ins (or the project's MODE UDAF).

https://docs.snowflake.com/en/sql-reference/functions-aggregation
https://docs.snowflake.com/en/sql-reference/functions-window
"""

from __future__ import annotations

from sqlglot import exp

from embucket_py.errors import Unsupported
from embucket_py.sql.transforms.functions.numeric import is_int64, number_scale, quotient_scale
from embucket_py.sql.transforms.functions.temporal import (
    add,
    call,
    cast,
    div,
    int64,
    is_text,
    mul,
    number,
    paren,
    rewrite_all,
    string,
    sub,
)


def _bool(node: exp.Expression) -> exp.Expression:
    # Snowflake's BOOL*_AGG accept numbers: non-zero is TRUE.
    return cast(node, "BOOLEAN")


def _count_if(node: exp.Expression) -> exp.Expression:
    # COUNT of the TRUE rows: 0 (not NULL) over no rows, as Snowflake gives.
    return exp.Count(this=exp.Case(ifs=[exp.If(this=node.this, true=number(1))]))


def _boolxor(node: exp.Expression) -> exp.Expression:
    """TRUE when exactly one input is TRUE; NULL when every input is NULL."""
    trues = exp.Count(this=exp.Case(ifs=[exp.If(this=_bool(node.this), true=number(1))]))
    none = exp.EQ(this=exp.Count(this=node.this.copy()), expression=number(0))
    return exp.Case(
        ifs=[exp.If(this=none, true=exp.Null())], default=exp.EQ(this=trues, expression=number(1))
    )


def _double(x: exp.Expression) -> exp.Expression:
    """x as DOUBLE, as the inner aggregates of SKEW/KURTOSIS read it. DataFusion names an
    aggregate without the casts in its argument, so `avg(CAST(x AS DOUBLE))` here and the query's
    own `AVG(x)` would be two columns of one name (a plan error): arrow_cast shows in the name."""
    return call("arrow_cast", cast(x, "DOUBLE"), exp.Literal.string("Float64"))


def _moments(x: exp.Expression) -> tuple[exp.Expression, ...]:
    fx = _double(x)
    n = cast(exp.Count(this=x.copy()), "DOUBLE")
    mean = exp.Avg(this=fx)
    # Central moments from the mean of powers: sum((x - m)^k) over n.
    m2 = exp.Anonymous(this="var_pop", expressions=[fx.copy()])
    m3 = sub(
        sub(
            exp.Avg(this=call("power", fx.copy(), number(3))),
            mul(mul(number(3), mean), exp.Avg(this=mul(fx.copy(), fx.copy()))),
        ),
        mul(number(-2), call("power", mean.copy(), number(3))),
    )
    return n, mean, m2, m3, fx


def _skew(node: exp.Expression) -> exp.Expression:
    """Sample skewness (as Excel's SKEW): n^2 / ((n-1)(n-2)) * m3 / s^3, s the sample deviation."""
    n, _, _, m3, fx = _moments(node.this)
    s = call("stddev_samp", fx.copy())
    factor = div(mul(n, n.copy()), mul(sub(n.copy(), number(1)), sub(n.copy(), number(2))))
    return div(mul(factor, m3), call("power", s, number(3)))


def _kurtosis(node: exp.Expression) -> exp.Expression:
    """Sample excess kurtosis (as Excel's KURT), from the sums of powers of x."""
    x = _double(node.this)
    n = cast(exp.Count(this=node.this.copy()), "DOUBLE")
    mean = exp.Avg(this=x)
    s4 = sub(
        add(
            sub(
                exp.Avg(this=call("power", x.copy(), number(4))),
                mul(mul(number(4), mean), exp.Avg(this=call("power", x.copy(), number(3)))),
            ),
            mul(
                mul(number(6), call("power", mean.copy(), number(2))),
                exp.Avg(this=call("power", x.copy(), number(2))),
            ),
        ),
        mul(number(3), call("power", mean.copy(), number(4))),
    )
    var = call("var_samp", x.copy())
    n1, n2, n3 = sub(n.copy(), number(1)), sub(n.copy(), number(2)), sub(n.copy(), number(3))
    lead = div(mul(mul(n.copy(), n.copy()), add(n.copy(), number(1))), mul(mul(n1, n2), n3))
    tail = div(mul(number(3), mul(n1.copy(), n1.copy())), mul(n2.copy(), n3.copy()))
    return sub(div(mul(lead, s4), call("power", var, number(2))), tail)


def _avg_source_scale(node: exp.Avg) -> int | None:
    """The scale of AVG's argument when it is a NUMBER column or literal; None when its type is
    not known here (then it stays DataFusion's AVG, a DOUBLE for integers)."""
    x = node.this
    if isinstance(x, exp.Distinct) and len(x.expressions) == 1:
        x = x.expressions[0]
    return number_scale(x)


def _avg(node: exp.Avg, source_scale: int) -> exp.Expression:
    """AVG of NUMBER(p, s): Snowflake's exact NUMBER(38, scale of a quotient), rounded (6 digits
    for integers). DataFusion averages a decimal(p, s) into scale s + 4, cutting the rest off:
    averaging at two more digits than wanted and casting down rounds correctly."""
    scale = quotient_scale(source_scale)
    wider = f"NUMBER(38, {max(scale - 2, source_scale)})"
    argument = node.this.copy()
    if source_scale > 0 and not isinstance(argument, exp.Distinct):
        # Decimals: the same quotient as the sum over the count, widened once per group instead of
        # once per row (TPC-H Q1's three averages over 6M rows: -5%). Integers sum in 64 bits,
        # which wraps, so they keep the cast per row.
        count = call("nullif", exp.Count(this=argument.copy()), number(0))
        return cast(div(cast(exp.Sum(this=argument), wider), count), f"NUMBER(38, {scale})")
    if isinstance(argument, exp.Distinct):
        value = argument.expressions[0]
        value.replace(cast(value.copy(), wider))
    else:
        argument = cast(argument, wider)
    # A call, not an exp.Avg: the rewrite descends into what it returns, and must not take it again.
    return cast(call("avg", argument), f"NUMBER(38, {scale})")


def _max_min_by(node: exp.ArgMax | exp.ArgMin) -> exp.Expression:
    """MAX_BY / MIN_BY(x, y [, n]): x of the row with the largest / smallest y (rows whose y is
    NULL do not count); with n, an ARRAY of the x of the first n such rows, in that order.
    https://docs.snowflake.com/en/sql-reference/functions/max_by"""
    key = exp.Ordered(this=node.expression.copy(), desc=isinstance(node, exp.ArgMax), nulls_first=False)
    counted = exp.Where(this=exp.Not(this=exp.Is(this=node.expression.copy(), expression=exp.Null())))
    count = node.args.get("count")
    if count is None:
        first = call("first_value", exp.Order(this=node.this.copy(), expressions=[key]))
        return exp.Filter(this=first, expression=counted)
    # ARRAY_AGG leaves NULLs out: the rows whose y is NULL give NULL.
    value = exp.Case(ifs=[exp.If(this=counted.this.copy(), true=node.this.copy())])
    ordered = exp.WithinGroup(this=exp.ArrayAgg(this=value), expression=exp.Order(expressions=[key]))
    return exp.ArraySlice(this=ordered, start=number(0), end=count.copy())


def _ratio_to_report(window: exp.Window) -> exp.Expression:
    (value,) = window.this.expressions
    total = window.copy()
    total.set("this", exp.Sum(this=value.copy()))
    total.set("order", None)
    return div(cast(value, "DOUBLE"), total)


def _conditional_true_event(window: exp.Window) -> exp.Expression:
    (condition,) = window.this.expressions
    running = window.copy()
    running.set(
        "this", exp.Sum(this=exp.Case(ifs=[exp.If(this=condition, true=number(1))], default=number(0)))
    )
    running.set(
        "spec",
        exp.WindowSpec(kind="ROWS", start="UNBOUNDED", start_side="PRECEDING", end="CURRENT ROW"),
    )
    return running


# Aggregates rewritten into an expression over several built-in aggregates.
_COMPOSITE = (exp.BoolxorAgg, exp.Skewness, exp.Kurtosis)
_AGGREGATE_CALLS = frozenset({"avg", "var_pop", "var_samp", "stddev_samp"})
# Aggregates this module writes as calls, with DataFusion's own names for them.
_NAMED_CALLS = _AGGREGATE_CALLS | {"median", "first_value", "percentile_cont", "bool_and", "bool_or"}


def _composite_window(node: exp.Window) -> exp.Expression:
    """OVER (...) of an aggregate rewritten into an expression: the window goes on each aggregate."""
    expression = _rewrite(node.this)

    def over(part: exp.Expression) -> exp.Expression:
        is_call = isinstance(part, exp.Anonymous) and part.name.lower() in _AGGREGATE_CALLS
        if not isinstance(part, exp.AggFunc) and not is_call:
            return part
        window = node.copy()
        window.set("this", part.copy())
        return window

    return expression.transform(over, copy=False)


def _window(node: exp.Window) -> exp.Expression:
    inner = node.this
    if isinstance(inner, _COMPOSITE) or (isinstance(inner, exp.Avg) and _avg_source_scale(inner) is not None):
        return _composite_window(node)
    name = inner.name.upper() if isinstance(inner, exp.Anonymous) else ""
    if name == "RATIO_TO_REPORT":
        return _ratio_to_report(node)
    if name == "CONDITIONAL_TRUE_EVENT":
        return _conditional_true_event(node)
    if (
        isinstance(inner, exp.GroupConcat)
        and isinstance(inner.this, exp.Order)
        and not node.args.get("order")
    ):
        return _ordered_window_listagg(node)
    if isinstance(inner, exp.Lag | exp.Lead) and _computed(inner.args.get("default")):
        return _shift_with_computed_default(node)
    if name == "CONDITIONAL_CHANGE_EVENT":
        (value,) = inner.expressions
        window = node.copy()
        # Values compare as text: one window UDF for every type (equal values, equal text).
        window.set("this", call("sf_conditional_change_event", cast(value, "VARCHAR")))
        window.set("spec", None)
        return window
    return node


def _computed(default: exp.Expression | None) -> bool:
    while isinstance(default, exp.Paren | exp.Neg | exp.Cast):
        default = default.this
    return default is not None and not isinstance(default, exp.Literal | exp.Null | exp.Boolean)


def _shift_with_computed_default(node: exp.Window) -> exp.Expression:
    """LAG/LEAD(x, n, default) with a default computed per row (DataFusion takes literals only):
    the shifted value where the partition has a row n away, else the default. The row's position
    comes from ROW_NUMBER over the same window, as the shift counts rows."""
    shift = node.this
    offset = shift.args.get("offset") or exp.Literal.number(1)
    default = shift.args["default"]
    shifted = node.copy()
    shifted.this.set("default", None)
    position = node.copy()
    position.set("this", exp.RowNumber())
    if isinstance(shift, exp.Lag):
        room: exp.Expression = exp.Sub(this=position, expression=exp.Literal.number(1))
    else:
        rows = node.copy()
        rows.set("this", exp.Count(this=exp.Star()))
        rows.set("order", None)
        room = exp.Sub(this=rows, expression=position)
    reached = exp.GTE(this=exp.paren(room), expression=offset.copy())
    return exp.Case(ifs=[exp.If(this=reached, true=shifted)], default=default)


def _ordered_window_listagg(node: exp.Window) -> exp.Expression:
    """LISTAGG(x, sep) WITHIN GROUP (ORDER BY y) OVER (PARTITION BY g): DataFusion orders no
    aggregate inside a window, so the window takes the order, over its whole partition (the
    aggregate then meets the rows in that order). Snowflake allows no ORDER BY in the OVER here."""
    order = node.this.this
    node.this.set("this", order.this)
    node.set("order", exp.Order(expressions=order.expressions))
    node.set(
        "spec",
        exp.WindowSpec(
            kind="ROWS", start="UNBOUNDED", start_side="PRECEDING", end="UNBOUNDED", end_side="FOLLOWING"
        ),
    )
    return node


def _mode(value: exp.Expression) -> exp.Expression:
    """MODE keeps its argument's type: text, integers exactly, other NUMBERs back at their scale."""
    if is_text(value):
        return call("sf_mode_text", value)
    scale = number_scale(value)
    if scale == 0:
        return call("sf_mode_integer", int64(value))
    mode = call("sf_mode", value)
    return mode if scale is None else cast(mode, f"NUMBER(38, {scale})")


def _windowed_percentile_cont(node: exp.WithinGroup) -> exp.Expression:
    """PERCENTILE_CONT(p) WITHIN GROUP (ORDER BY x) OVER (...) in the call form DataFusion runs
    over a window (it refuses WITHIN GROUP there); a descending order is the 1 - p quantile."""
    keys = node.expression.expressions if isinstance(node.expression, exp.Order) else []
    if len(keys) != 1:
        raise Unsupported("PERCENTILE_CONT needs one ORDER BY expression")
    key, quantile = keys[0], node.this.this
    if key.args.get("desc"):
        quantile = exp.Sub(this=exp.Literal.number(1), expression=exp.paren(quantile))
    return call("percentile_cont", key.this if isinstance(key, exp.Ordered) else key, quantile)


def _percentile_disc(node: exp.WithinGroup) -> exp.Expression:
    """PERCENTILE_DISC(p) WITHIN GROUP (ORDER BY x): the first value, in that order, whose
    cumulative share of the non-NULL values reaches p (DataFusion has no such aggregate).
    https://docs.snowflake.com/en/sql-reference/functions/percentile_disc"""
    order = node.expression.expressions[0]
    value = order.this
    present = exp.Where(this=exp.Not(this=exp.Is(this=value.copy(), expression=exp.Null())))
    values = exp.Filter(this=call("array_agg", value.copy()), expression=present)
    ordered = call("array_sort", values, string("DESC" if order.args.get("desc") else "ASC"))
    rank = call("ceil", exp.Mul(this=paren(node.this.this), expression=exp.Count(this=value.copy())))
    return call("array_element", ordered, int64(call("greatest", rank, number(1))))


def _is_listagg(node: exp.Expression) -> bool:
    """LISTAGG as written, with its WITHIN GROUP and OVER (not a part of one)."""
    if isinstance(node.parent, exp.Window | exp.WithinGroup | exp.Coalesce):
        return False
    while isinstance(node, exp.Window | exp.WithinGroup):
        node = node.this
    return isinstance(node, exp.GroupConcat)


def _distinct_listagg(node: exp.GroupConcat) -> exp.Expression | None:
    """LISTAGG(DISTINCT x, sep) WITHIN GROUP (ORDER BY x) of a non-text x: DataFusion orders a
    DISTINCT aggregate only by its argument, which it has made text ('10' before '5'). The distinct
    values are sorted as themselves, then joined."""
    order = node.this
    if not isinstance(order, exp.Order) or not isinstance(order.this, exp.Distinct):
        return None
    (value, *more) = order.this.expressions or [None]
    keys = order.expressions
    if value is None or more or len(keys) != 1 or keys[0].this != value or is_text(value):
        return None
    present = exp.Where(this=exp.Not(this=exp.Is(this=value.copy(), expression=exp.Null())))
    values = exp.Filter(this=call("array_agg", exp.Distinct(expressions=[value.copy()])), expression=present)
    ordered = call("array_sort", values, string("DESC" if keys[0].args.get("desc") else "ASC"))
    separator = node.args.get("separator") or string("")
    return exp.Coalesce(this=call("array_to_string", ordered, separator.copy()), expressions=[string("")])


def _rewrite(node: exp.Expression) -> exp.Expression:
    grouped = isinstance(node, exp.GroupConcat) and not isinstance(node.parent, exp.Window)
    if grouped and (joined := _distinct_listagg(node)) is not None:
        return joined
    if _is_listagg(node):
        # No values, or only NULLs: an empty string, not NULL (https://docs.snowflake.com/en/sql-reference/functions/listagg).
        return exp.Coalesce(this=node, expressions=[exp.Literal.string("")])
    if isinstance(node, exp.Window):
        return _window(node)
    if isinstance(node, exp.WithinGroup) and isinstance(node.this, exp.PercentileDisc):
        if isinstance(node.parent, exp.Window):
            raise Unsupported("PERCENTILE_DISC as a window function")
        return _percentile_disc(node)
    windowed = isinstance(node.parent, exp.Window)
    if isinstance(node, exp.WithinGroup) and isinstance(node.this, exp.PercentileCont) and windowed:
        return _windowed_percentile_cont(node)
    if isinstance(node, exp.Sum) and is_int64(node.this):
        # Summed as NUMBER(38, 0), as Snowflake sums integers (DataFusion's 64-bit sum wraps).
        return exp.Sum(this=cast(node.this, "NUMBER(38, 0)"))
    if isinstance(node, exp.GroupingId):
        # GROUPING_ID is GROUPING's other name (https://docs.snowflake.com/en/sql-reference/functions/grouping_id).
        return exp.Grouping(expressions=node.expressions)
    if isinstance(node, exp.Hll):
        # HLL is APPROX_COUNT_DISTINCT's other name (one HyperLogLog estimate).
        return exp.ApproxDistinct(this=node.this)
    if isinstance(node, exp.AnyValue):
        return call("first_value", node.this)
    if isinstance(node, exp.ApproxQuantile):
        # Exact interpolation: what Snowflake's t-digest returns whenever its digest holds every
        # value, where DataFusion's own digest interpolates differently (0.6 for p10 of 0..10).
        return call("percentile_cont", cast(node.this, "DOUBLE"), node.args["quantile"])
    if isinstance(node, exp.Median):
        # Of NUMBER(p, s), Snowflake's median is NUMBER(p + 3, s + 3) (3.000 of 1, 3, 10, 1, 3).
        scale = number_scale(node.this)
        return call(
            "median", node.this if scale is None else cast(node.this, f"NUMBER(38, {min(scale + 3, 37)})")
        )
    if isinstance(node, exp.Mode):
        return _mode(node.this)
    if isinstance(node, exp.CountIf):
        return _count_if(node)
    if isinstance(node, exp.BoolxorAgg):
        return _boolxor(node)
    if isinstance(node, exp.LogicalAnd):
        return call("bool_and", _bool(node.this))
    if isinstance(node, exp.LogicalOr):
        return call("bool_or", _bool(node.this))
    if isinstance(node, exp.BitwiseAndAgg | exp.BitwiseOrAgg | exp.BitwiseXorAgg):
        fn = {exp.BitwiseAndAgg: "bit_and", exp.BitwiseOrAgg: "bit_or", exp.BitwiseXorAgg: "bit_xor"}[
            type(node)
        ]
        return call(fn, cast(node.this, "NUMBER(18, 0)"))
    if isinstance(node, exp.ArgMax | exp.ArgMin):
        return _max_min_by(node)
    if isinstance(node, exp.Skewness):
        return _skew(node)
    if isinstance(node, exp.Kurtosis):
        return _kurtosis(node)
    if isinstance(node, exp.Avg) and (source_scale := _avg_source_scale(node)) is not None:
        return _avg(node, source_scale)
    return node


def _is_aggregate(node: exp.Expression) -> bool:
    return isinstance(node, exp.AggFunc) or (
        isinstance(node, exp.Anonymous) and node.name.lower() in _NAMED_CALLS
    )


def _keep_apart(tree: exp.Expression) -> None:
    """DataFusion names an aggregate after its arguments without their casts, so `SUM(x)` and
    `SUM(x::FLOAT)` in one SELECT would be two columns of one name (a plan error). The n-th
    variant of such a name gets its argument wrapped in n one-argument COALESCEs, which show in
    the name and which the optimizer takes out again."""
    for select in tree.find_all(exp.Select):
        variants: dict[str, list[str]] = {}
        for node in [n for n in select.find_all(exp.Func) if _is_aggregate(n)]:
            if node.find_ancestor(exp.Select) is not select:
                continue
            bare = node.copy().transform(_uncast).sql()
            seen, text = variants.setdefault(bare, []), node.sql()
            if text not in seen:
                seen.append(text)
            for _ in range(seen.index(text)):
                _wrap_argument(node)


def _uncast(node: exp.Expression) -> exp.Expression:
    while isinstance(node, exp.Cast):
        node = node.this
    return node


def _wrap_argument(node: exp.Expression) -> None:
    target = node.expressions[0] if isinstance(node, exp.Anonymous) and node.expressions else node.this
    if isinstance(target, exp.Distinct) and target.expressions:
        target = target.expressions[0]
    if isinstance(target, exp.Expression) and not isinstance(target, exp.Star):
        target.replace(call("coalesce", target.copy()))


def rewrite(tree: exp.Expression) -> exp.Expression:
    tree = rewrite_all(tree, _rewrite)
    _keep_apart(tree)
    return tree

"""Snowflake numeric semantics: division scale and division by zero, ROUND modes, FLOOR/CEIL scales,
DIV0, SQUARE and friends -> DataFusion.

https://docs.snowflake.com/en/sql-reference/operators-arithmetic#scale-and-precision-in-arithmetic-operations
"""

from __future__ import annotations

from decimal import Decimal

from sqlglot import exp

from embucket_py.sql.context import active
from embucket_py.sql.transforms.functions.column_kinds import (
    SEMI_KINDS,
    fixed_parts,
    fixed_scale,
    stored_kind,
)
from embucket_py.sql.transforms.functions.semistructured import is_variant
from embucket_py.sql.transforms.functions.temporal import (
    COMPARISONS,
    call,
    cast,
    int64,
    is_text,
    kind_of,
    mul,
    number,
    paren,
    rewrite_all,
)


def _literal_scale(node: exp.Expression) -> int | None:
    """Digits after the point of a number literal (None for anything else)."""
    while isinstance(node, exp.Neg | exp.Paren):
        node = node.this
    if isinstance(node, exp.Literal) and not node.is_string:
        text = node.name.lower()
        if "e" in text:
            return None
        return len(text.split(".")[1]) if "." in text else 0
    return None


_INTEGER_TYPES = (exp.DType.INT, exp.DType.BIGINT, exp.DType.SMALLINT, exp.DType.TINYINT)


def number_scale(node: exp.Expression) -> int | None:
    """The scale of a NUMBER the SQL shows: a number literal, a cast to NUMBER(p, s) or an integer
    type, a stored NUMBER(p, s) column, and arithmetic, COUNT, SUM, MIN, MAX and AVG (also as
    window functions), NULLIF, COALESCE/NVL, IFF and CASE over such NUMBERs, by Snowflake's rules;
    None otherwise (a FLOAT anywhere)."""
    literal = _literal_scale(node)
    if literal is not None:
        return literal
    while isinstance(node, exp.Paren | exp.Window):
        node = node.this
    if isinstance(node, exp.Cast):
        to = node.to
        if to.is_type(*_INTEGER_TYPES):
            return 0
        params = to.expressions if to.is_type(exp.DType.DECIMAL) else []
        return int(params[1].this.name) if len(params) == 2 else None
    if isinstance(node, exp.Count | exp.CountIf):
        return 0
    if isinstance(node, exp.Neg | exp.Sum | exp.Min | exp.Max | exp.Avg | exp.Abs):
        x = node.this.expressions[0] if isinstance(node.this, exp.Distinct) else node.this
        scale = number_scale(x) if isinstance(x, exp.Expression) else None
        # AVG: aggregates.py averages a NUMBER into an exact NUMBER, a sum over a count.
        return quotient_scale(scale) if scale is not None and isinstance(node, exp.Avg) else scale
    if isinstance(node, exp.Add | exp.Sub | exp.Mul | exp.Div | exp.Mod):
        s1, s2 = number_scale(node.this), number_scale(node.expression)
        if s1 is None or s2 is None:
            return None
        if isinstance(node, exp.Mul):
            return min(s1 + s2, max(s1, s2, 12))
        return quotient_scale(s1) if isinstance(node, exp.Div) else max(s1, s2)
    if isinstance(node, exp.Nullif):
        return number_scale(node.this)
    choices = _choices(node)
    if choices is not None:
        # NULL takes any type; the NUMBERs meet at the largest scale.
        scales = [number_scale(c) for c in choices if not isinstance(c, exp.Null)]
        return max(scales) if scales and None not in scales else None  # type: ignore[type-var]
    return fixed_scale(stored_kind(node, active()))


def _choices(node: exp.Expression) -> list[exp.Expression] | None:
    """The values one of which COALESCE/NVL, IFF or CASE gives; None for other expressions."""
    if isinstance(node, exp.Coalesce):
        return [node.this, *node.expressions]
    if isinstance(node, exp.If):
        return [v for v in (node.args.get("true"), node.args.get("false")) if v is not None]
    if isinstance(node, exp.Case):
        default = node.args.get("default")
        return [i.args["true"] for i in node.args.get("ifs") or []] + ([default] if default else [])
    return None


def quotient_scale(dividend_scale: int) -> int:
    """The scale of a NUMBER quotient (and of AVG, a sum over a count), from the dividend's."""
    return max(dividend_scale, min(dividend_scale + 6, 12))


def _divide(dividend: exp.Expression, divisor: exp.Expression) -> exp.Expression:
    """Snowflake divides NUMBERs exactly: literals and NUMBER(p, s) columns give NUMBER with scale
    max(s1, min(s1 + 6, 12)); anything else is divided as DOUBLE. Dividing by zero is an error
    (100051), never inf."""
    s1, s2 = number_scale(dividend), number_scale(divisor)  # before the casts below take them out of the tree
    checked = call("sf_divisor", cast(divisor, "DOUBLE"))
    if s1 is not None and s2 is not None:
        scale = quotient_scale(s1)
        quotient = exp.Div(
            this=paren(cast(dividend, f"NUMBER(38, {scale})")), expression=paren(divisor), typed=True
        )
        return cast(call("round", quotient, number(scale)), f"NUMBER(38, {scale})")
    return exp.Div(this=paren(cast(dividend, "DOUBLE")), expression=paren(checked), typed=True)


def _div0(node: exp.If, null_too: bool) -> exp.Expression:
    # sqlglot reads DIV0(a, b) as IF(b = 0 AND a IS NOT NULL, 0, a / b).
    division = node.args["false"]
    if isinstance(division, exp.Div):
        dividend, divisor = division.this, division.expression
        zero = exp.EQ(this=divisor.copy(), expression=number(0))
        condition: exp.Expression = (
            exp.Or(this=zero, expression=exp.Is(this=divisor.copy(), expression=exp.Null()))
            if null_too
            else zero
        )
        s1, s2 = number_scale(dividend), number_scale(divisor)
        if s1 is not None and s2 is not None:
            # NUMBERs divide exactly (DIV0(1, 2) is 0.500000); NULLIF keeps the untaken branch
            # from dividing by zero when the planner folds constants.
            scale = quotient_scale(s1)
            quotient = exp.Div(
                this=paren(cast(dividend.copy(), f"NUMBER(38, {scale})")),
                expression=call("nullif", divisor.copy(), number(0)),
                typed=True,
            )
            exact = cast(call("round", quotient, number(scale)), f"NUMBER(38, {scale})")
            zero = cast(number(0), f"NUMBER(38, {scale})")
            return exp.Case(ifs=[exp.If(this=condition, true=zero)], default=exact)
        plain = exp.Div(
            this=paren(cast(dividend, "DOUBLE")), expression=paren(cast(divisor, "DOUBLE")), typed=True
        )
        return exp.Case(ifs=[exp.If(this=condition, true=number(0))], default=plain)
    return node


def _round(node: exp.Round) -> exp.Expression:
    value, places = node.this, node.args.get("decimals") or number(0)
    mode = node.args.get("truncate")
    half_even = isinstance(mode, exp.Literal) and mode.name.upper() == "HALF_TO_EVEN"
    exact = _at_places(node, "half_even" if half_even else "round")  # a NUMBER stays an exact NUMBER
    if exact is not None:
        return exact
    if half_even:
        scaled = mul(value, call("power", number(10), places))
        tie = exp.EQ(
            this=call("abs", exp.Sub(this=scaled, expression=call("trunc", scaled.copy()))),
            expression=number(0.5),
        )
        even = exp.Div(
            this=mul(number(2), call("round", exp.Div(this=scaled.copy(), expression=number(2), typed=True))),
            expression=call("power", number(10), places.copy()),
            typed=True,
        )
        return exp.Case(ifs=[exp.If(this=tie, true=even)], default=call("round", value.copy(), places.copy()))
    # DataFusion's ROUND already rounds half away from zero, as Snowflake's default does.
    return call("round", value, places)


def _at_places(node: exp.Expression, direction: str) -> exp.Expression | None:
    """ROUND/TRUNC/FLOOR/CEIL of a NUMBER to a constant number of digits stays an exact NUMBER of
    scale max(digits, 0), as on Snowflake (DataFusion gives a DOUBLE, or keeps the input's scale):
    the remainder modulo 10^-digits (with the dividend's sign) taken off, then one step down for a
    negative remainder (FLOOR), up for a positive one (CEIL), away from zero for one of at least
    half a step (ROUND; with HALF_TO_EVEN a tie goes to the even neighbour). None when the input
    is no NUMBER or the digits are no constant."""
    places = node.args.get("decimals") or number(0)
    scale = number_scale(node.this)
    if scale is None or not places.is_int:
        return None
    digits = int(places.to_py())
    if digits >= scale:
        return node.this  # nothing to cut
    target = f"NUMBER(38, {max(digits, 0)})"
    step = _decimal_literal(Decimal(1).scaleb(-digits))
    remainder = exp.Mod(this=paren(node.this.copy()), expression=step)
    cut: exp.Expression = exp.Sub(this=paren(node.this), expression=paren(remainder))
    if direction in ("round", "half_even"):
        half = _decimal_literal(Decimal(5).scaleb(-digits - 1))
        up: exp.Expression = exp.GTE(this=remainder.copy(), expression=half)
        down: exp.Expression = exp.LTE(this=remainder.copy(), expression=exp.Neg(this=half.copy()))
        if direction == "half_even":  # a tie goes to the even neighbour
            odd = exp.NEQ(
                this=exp.Mod(this=paren(cut.copy()), expression=_decimal_literal(Decimal(2).scaleb(-digits))),
                expression=number(0),
            )
            up = exp.or_(exp.GT(this=remainder.copy(), expression=half.copy()), exp.and_(up, odd))
            down = exp.or_(
                exp.LT(this=remainder.copy(), expression=exp.Neg(this=half.copy())),
                exp.and_(down, odd.copy()),
            )
        adjust = exp.Case(
            ifs=[exp.If(this=up, true=step.copy()), exp.If(this=down, true=exp.Neg(this=step.copy()))],
            default=number(0),
        )
        cut = exp.Add(this=cut, expression=adjust)
    elif direction != "trunc":
        past = exp.LT if direction == "floor" else exp.GT
        adjust = exp.Case(
            ifs=[exp.If(this=past(this=remainder.copy(), expression=number(0)), true=step.copy())],
            default=number(0),
        )
        cut = (exp.Sub if direction == "floor" else exp.Add)(this=cut, expression=adjust)
    return cast(cut, target)


def _decimal_literal(value: Decimal) -> exp.Expression:
    """An exact NUMBER literal at its own scale (0.05 -> CAST(0.05 AS NUMBER(38, 2)))."""
    text = format(value, "f")
    return cast(exp.Literal.number(text), f"NUMBER(38, {len(text.partition('.')[2])})")


def _floor_ceil(node: exp.Expression, name: str) -> exp.Expression:
    exact = _at_places(node, name)
    if exact is not None:
        return exact
    places = node.args.get("decimals")
    if places is None:
        return call(name, node.this)
    # A DOUBLE base: DataFusion's power() over a decimal base gives NULL for some scales.
    factor = call("power", cast(number(10), "DOUBLE"), cast(places, "DOUBLE"))
    return exp.Div(
        this=call(name, mul(cast(node.this, "DOUBLE"), factor)), expression=factor.copy(), typed=True
    )


def _width_bucket(node: exp.WidthBucket) -> exp.Expression:
    """Equal-width buckets 1..n over [min, max); 0 below min, n + 1 from max up.
    https://docs.snowflake.com/en/sql-reference/functions/width_bucket"""
    value = cast(node.this, "DOUBLE")
    low, high = cast(node.args["min_value"], "DOUBLE"), cast(node.args["max_value"], "DOUBLE")
    buckets = node.args["num_buckets"]
    # DOUBLE operands: plain divisions, not Snowflake's NUMBER division (typed=True).
    width = exp.Div(
        this=paren(exp.Sub(this=high, expression=low)), expression=cast(buckets, "DOUBLE"), typed=True
    )
    offset = exp.Div(
        this=paren(exp.Sub(this=value, expression=low.copy())), expression=paren(width), typed=True
    )
    inside = exp.Add(this=cast(call("floor", offset), "BIGINT"), expression=number(1))
    return exp.Case(
        ifs=[
            exp.If(this=exp.LT(this=value.copy(), expression=low.copy()), true=number(0)),
            exp.If(
                this=exp.GTE(this=value.copy(), expression=high.copy()),
                true=exp.Add(this=cast(buckets.copy(), "BIGINT"), expression=number(1)),
            ),
        ],
        default=inside,
    )


def _exponent_literal(node: exp.Literal) -> exp.Expression:
    """A number in exponent notation (1.5e3, 15e-03) as the NUMBER literal it equals when NUMBER
    holds it (38 digits, scale up to 37), else as a FLOAT (1.7976931348623157e+308). Left as
    it is, DataFusion reads it as a decimal of negative scale, which no client accepts."""
    text = format(Decimal(node.name).normalize(), "f")
    whole, _, fraction = text.partition(".")
    if len(fraction) <= 37 and len(whole.lstrip("0")) + len(fraction) <= 38:
        return exp.Literal.number(text)
    return cast(exp.Literal.string(node.name), "DOUBLE")


def _variant(node: exp.Expression) -> bool:
    """Whether an operand is surely a VARIANT: a path into one, PARSE_JSON, a VARIANT column."""
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.JSONExtract | exp.GetExtract | exp.ParseJSON):
        return True
    if isinstance(node, exp.Bracket):
        return _variant(node.this)
    if isinstance(node, exp.Cast) and node.to.this in (exp.DType.VARIANT, exp.DType.OBJECT, exp.DType.ARRAY):
        return True
    if isinstance(node, exp.Array | exp.Struct):  # [..] and ARRAY_CONSTRUCT, {..}
        return True
    if is_variant(node):  # a UDF's VARIANT (a conditional of VARIANTs, TRANSFORM, ...)
        return True
    return isinstance(node, exp.Column) and stored_kind(node, active()) in SEMI_KINDS


def _not_a_number(node: exp.Expression) -> bool:
    """A VARIANT or a string: arithmetic casts it to a number (a FLOAT), as Snowflake coerces it
    ('5' + 3 is 8, v:price * 2 doubles the price); DataFusion refuses text operands."""
    return _variant(node) or is_text(node)


def _numeric_operands(node: exp.Expression) -> exp.Expression | None:
    """Arithmetic and SUM/AVG with their VARIANT and text operands cast to numbers; None when
    there are none."""
    operands = [node.this, node.expression] if isinstance(node, exp.Add | exp.Sub | exp.Mul | exp.Mod) else []
    if any(_not_a_number(x) for x in operands):
        double = [cast(x, "DOUBLE") if _not_a_number(x) else x for x in operands]
        return type(node)(this=double[0], expression=double[1])
    if isinstance(node, exp.Neg | exp.Abs | exp.Sum | exp.Avg) and _not_a_number(node.this):
        return type(node)(this=cast(node.this, "DOUBLE"))
    return None


def is_int64(node: exp.Expression) -> bool:
    """An operand DataFusion computes with as a 64-bit integer: an integer literal, a column stored as
    one (NUMBER(p, 0) up to 18 digits, or NUMBER(38, 0), both Iceberg longs)."""
    while isinstance(node, exp.Paren | exp.Neg):
        node = node.this
    if isinstance(node, exp.Literal):
        return not node.is_string and node.is_int
    if isinstance(node, exp.Column):
        parts = fixed_parts(stored_kind(node, active()))
        return parts is not None and parts[1] == 0 and (parts[0] <= 18 or parts[0] == 38)
    return False


# Where a NUMBER(38, 0) product may stand instead of a 64-bit integer. A grouping key must be
# spelled as its select item is (a product in SELECT and GROUP BY is the same expression).
_DECIMAL_PARENTS = (
    *(exp.Alias, exp.Select, exp.Sum, exp.Avg, exp.Min, exp.Max, exp.Cast, exp.Ordered, exp.Distinct),
    *(exp.Group, exp.Rollup, exp.Cube, exp.GroupingSets, exp.Tuple, exp.Window, exp.In, exp.Between),
)
_ARITHMETIC = (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod)


def _takes_decimals(node: exp.Expression) -> bool:
    parent, child = node.parent, node
    while isinstance(parent, exp.Paren):
        parent, child = parent.parent, parent
    if isinstance(parent, _DECIMAL_PARENTS + COMPARISONS):
        return True
    if isinstance(parent, _ARITHMETIC):
        other = parent.expression if parent.this is child else parent.this
        return number_scale(other) is not None
    return False


def _small_literals(node: exp.Binary) -> bool:
    """Two literals whose sum or product cannot leave 64 bits (`LIMIT 2 + 3` stays as written)."""
    operands = [x.unnest() for x in (node.this, node.expression)]
    operands = [x.this if isinstance(x, exp.Neg) else x for x in operands]
    return all(isinstance(x, exp.Literal) and abs(int(x.name)) < 2**31 for x in operands)


def _exact_integers(node: exp.Add | exp.Sub | exp.Mul) -> exp.Expression:
    """Integers add, subtract and multiply exactly, as Snowflake's NUMBER(38, 0) does (DataFusion's
    64-bit arithmetic wraps: 5000000000 * 5000000000 was 6553255926290448384, and
    9223372036854775807 + 1 was negative): as a NUMBER(38, 0) where one is taken, else back to a
    64-bit integer for the functions that need one, checked (past 64 bits that cast fails: an
    error, never a wrong number)."""
    exact = type(node)(this=cast(node.this, "NUMBER(38, 0)"), expression=node.expression)
    return exact if _takes_decimals(node) else int64(exact)


_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)


def _text_compared_to_number(node: exp.Binary) -> exp.Expression:
    """`'1.0' = n`: Snowflake reads the string as a number (DataFusion casts it to the other side's
    type, and '1.0' is no BIGINT). A literal is read here, once, so a column keeps its own type
    (and its pruning); a text column is read as a FLOAT; text that is no number is left for the
    engine to refuse."""
    for side, other in (("this", node.expression), ("expression", node.this)):
        value = node.args[side]
        if not is_text(value) or (number_scale(other) is None and kind_of(other) != "number"):
            continue
        if isinstance(value, exp.Literal):
            text = _plain_number(value.name)
            if text is not None:
                node.set(side, exp.Literal.number(text))
        else:  # a text column: its values read as numbers ('1.5' is no BIGINT)
            node.set(side, cast(value.copy(), "DOUBLE"))
    return node


def _plain_number(text: str) -> str | None:
    """A number written in a string, without exponent or trailing zeros ('1e3' -> '1000');
    None when the text is no number."""
    try:
        value = Decimal(text.strip())
    except ArithmeticError:
        return None
    if not value.is_finite():
        return None
    return str(int(value)) if value == value.to_integral_value() else format(value.normalize(), "f")


# The Earth's radius HAVERSINE uses: Snowflake's documented New York - Los Angeles example,
# 3936.385096389 km, comes out with 6371 km.
EARTH_RADIUS_KM = 6371


def _haversine(
    lat1: exp.Expression, lon1: exp.Expression, lat2: exp.Expression, lon2: exp.Expression
) -> exp.Expression:
    """HAVERSINE(lat1, lon1, lat2, lon2): the great-circle distance in km between two points given
    in degrees, a FLOAT."""

    def radians(degrees: exp.Expression) -> exp.Expression:
        return call("radians", cast(degrees, "DOUBLE"))

    def sin_squared_half(start: exp.Expression, end: exp.Expression) -> exp.Expression:
        half = exp.Div(
            this=paren(exp.Sub(this=radians(end), expression=radians(start))),
            expression=number(2),
            typed=True,
        )
        return call("power", call("sin", half), number(2))

    cosines = exp.Mul(this=call("cos", radians(lat1.copy())), expression=call("cos", radians(lat2.copy())))
    inner = exp.Add(
        this=sin_squared_half(lat1, lat2),
        expression=exp.Mul(this=cosines, expression=sin_squared_half(lon1, lon2)),
    )
    return exp.Mul(this=number(2 * EARTH_RADIUS_KM), expression=call("asin", call("sqrt", inner)))


def _rewrite(node: exp.Expression) -> exp.Expression:
    if isinstance(node, _COMPARISONS):
        node = _text_compared_to_number(node)
    if isinstance(node, exp.Cast) and node.to.is_type(*exp.DataType.NUMERIC_TYPES):
        literal = node.this
        if isinstance(literal, exp.Literal) and literal.is_string and "e" in literal.name.lower():
            # '1e3'::INT is 1000 on Snowflake; DataFusion reads no exponent as a decimal.
            plain = _plain_number(literal.name)
            if plain is not None:
                node.set("this", exp.Literal.string(plain))
    if (doubled := _numeric_operands(node)) is not None:
        return doubled
    if isinstance(node, exp.Add | exp.Sub | exp.Mul) and is_int64(node.this) and is_int64(node.expression):
        return node if _small_literals(node) else _exact_integers(node)
    if isinstance(node, exp.Literal) and not node.is_string and "e" in node.name.lower():
        return _exponent_literal(node)
    if isinstance(node, exp.WidthBucket):
        return _width_bucket(node)
    if isinstance(node, exp.Div) and not node.args.get("typed"):
        return _divide(node.this, node.expression)
    if isinstance(node, exp.If) and isinstance(node.args.get("false"), exp.Div):
        cond = node.this
        if isinstance(cond, exp.And):
            return _div0(node, null_too=False)
        if isinstance(cond, exp.Or):
            return _div0(node, null_too=True)
    if isinstance(node, exp.Round):
        return _round(node)
    if isinstance(node, exp.Trunc):
        exact = _at_places(node, "trunc")
        return node if exact is None else exact
    if isinstance(node, exp.Pow):
        # A FLOAT, as on Snowflake: DataFusion's power of a decimal keeps the base's scale (6.2).
        return call("power", cast(node.this, "DOUBLE"), cast(node.expression, "DOUBLE"))
    if isinstance(node, exp.Floor):
        return _floor_ceil(node, "floor")
    if isinstance(node, exp.Ceil):
        return _floor_ceil(node, "ceil")
    if isinstance(node, exp.Factorial):
        return call("factorial", node.this)
    if isinstance(node, exp.Sign):
        # -1, 0 or 1: a NUMBER for a NUMBER (DataFusion's signum gives a DOUBLE), else a FLOAT.
        scale = number_scale(node.this)  # before the call takes the operand out of the tree
        signum = call("signum", node.this)
        return signum if scale is None else cast(signum, "NUMBER(1, 0)")
    if isinstance(node, exp.Cbrt):
        return call("cbrt", cast(node.this, "DOUBLE"))
    if isinstance(node, exp.Log) and node.expression is not None:
        return call("log", cast(node.this, "DOUBLE"), cast(node.expression, "DOUBLE"))
    if isinstance(node, exp.Anonymous) and node.name.upper() == "HAVERSINE" and len(node.expressions) == 4:
        return _haversine(*node.expressions)
    if isinstance(node, exp.Anonymous) and node.name.upper() == "SQUARE":
        return call("power", node.expressions[0], number(2))
    if isinstance(node, exp.BitwiseNot):
        # DataFusion has no `~`: in two's complement, NOT x is -x - 1.
        return exp.Paren(this=exp.Sub(this=exp.Neg(this=exp.Paren(this=node.this)), expression=number(1)))
    if isinstance(node, exp.Getbit):
        shifted = exp.BitwiseRightShift(this=exp.Paren(this=node.this), expression=node.expression)
        return exp.Paren(this=exp.BitwiseAnd(this=exp.Paren(this=shifted), expression=number(1)))
    return node


def rewrite(tree: exp.Expression) -> exp.Expression:
    return rewrite_all(tree, _rewrite)


__all__ = ["kind_of", "rewrite"]

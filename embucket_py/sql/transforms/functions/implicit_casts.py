"""Snowflake's implicit conversions that DataFusion does not make (it refuses the types instead):
- numbers, dates, times and booleans given to string functions become text: `UPPER(42)` is
  '42', `LTRIM(n, '0')`, `CONTAINS(id, '2')`, `REPLACE(d, '-', '')` and `id LIKE '4%'` read the
  value's text;
- a string literal compared with a BOOLEAN reads as TO_BOOLEAN reads it (`b = 'yes'`,
  `b IN ('on', 'f')`; other text is 100037 "Boolean value 'x' is not recognized");
- a NUMBER compared with a DATE is refused, as Snowflake has no conversion between them
  (DataFusion read the number as days since 1970: `d = 20240102` matched nothing);
- a DATE minus a DATE is the number of days between them, as day numbers (`temporal.day_number`);
- a NUMBER meeting a FLOAT as one value (CASE, IFF, COALESCE/NVL, GREATEST, LEAST, the columns
  of set operations) is a FLOAT, as Snowflake makes it (DataFusion made the FLOAT a
  NUMBER(30,15): 1e30 was out of range, 2.5 came back as 2.500000000000000).
Runs before the other families, so the casts it adds are written as Snowflake writes those
values (a DATE in DATE_OUTPUT_FORMAT, a NUMBER(10,2) as 1.50) and TO_BOOLEAN is rewritten as any.
https://docs.snowflake.com/en/sql-reference/data-type-conversion#implicit-conversion-coercion
"""

from __future__ import annotations

from sqlglot import exp

from embucket_py.errors import SqlCompilationError
from embucket_py.sql.transforms.functions.column_kinds import SEMI_KINDS, kind_here
from embucket_py.sql.transforms.functions.numeric import number_scale
from embucket_py.sql.transforms.functions.temporal import day_number, kind_of, sub

# Each string function's arguments that are text (the others are lengths, positions, flags).
_TEXT_ARGUMENTS: dict[type[exp.Expression], tuple[str, ...]] = {
    exp.Upper: ("this",),
    exp.Lower: ("this",),
    exp.Initcap: ("this",),
    exp.Length: ("this",),
    exp.Trim: ("this", "expression"),
    exp.Substring: ("this",),
    exp.Left: ("this",),
    exp.Right: ("this",),
    exp.Replace: ("this", "expression", "replacement"),
    exp.Translate: ("this",),
    exp.Contains: ("this", "expression"),
    exp.StartsWith: ("this", "expression"),
    exp.EndsWith: ("this", "expression"),
    exp.Like: ("this",),
    exp.ILike: ("this",),
    exp.SplitPart: ("this", "delimiter"),
    exp.Split: ("this",),
    exp.Strtok: ("this",),
    exp.StrPosition: ("this", "substr"),
    exp.Concat: ("expressions",),
    exp.Repeat: ("this",),
    exp.Reverse: ("this",),
    exp.Pad: ("this", "fill_pattern"),
    exp.Ascii: ("this",),
    exp.Soundex: ("this",),
    exp.Levenshtein: ("this", "expression"),
    exp.RegexpLike: ("this",),
    exp.RegexpReplace: ("this",),
    exp.RegexpExtract: ("this",),
    exp.RegexpCount: ("this",),
    exp.MD5: ("this",),
    exp.SHA: ("this",),
    exp.SHA2: ("this",),
    exp.Base64Encode: ("this",),
    exp.Hex: ("this",),
}

_NOT_TEXT_KINDS = ("number", "date", "time", "timestamp", "timestamptz")
_NOT_TEXT_COLUMNS = ("FIXED", "REAL", "DATE", "TIME", "TIMESTAMP", "BOOLEAN")


def _not_text(node: exp.Expression) -> bool:
    """A value known to be a number, date, time, timestamp or boolean (a literal, a typed
    expression, a stored column of such a type)."""
    if isinstance(node, exp.Boolean) or kind_of(node) in _NOT_TEXT_KINDS or number_scale(node) is not None:
        return True
    return isinstance(node, exp.Column) and (kind_here(node) or "").startswith(_NOT_TEXT_COLUMNS)


def _as_text(node: exp.Expression) -> exp.Expression:
    return exp.Cast(this=node, to=exp.DataType.build("VARCHAR")) if _not_text(node) else node


def _boolean(node: exp.Expression) -> bool:
    return isinstance(node, exp.Boolean) or (isinstance(node, exp.Column) and kind_here(node) == "BOOLEAN")


def _as_boolean(node: exp.Expression) -> exp.Expression:
    return exp.ToBoolean(this=node) if isinstance(node, exp.Literal) and node.is_string else node


def _boolean_comparisons(tree: exp.Expression) -> None:
    for node in list(tree.find_all(exp.EQ, exp.NEQ, exp.In)):
        if isinstance(node, exp.In):
            if _boolean(node.this):
                node.set("expressions", [_as_boolean(e) for e in node.expressions])
        elif _boolean(node.this):
            node.set("expression", _as_boolean(node.expression))
        elif _boolean(node.expression):
            node.set("this", _as_boolean(node.this))


def _date(node: exp.Expression) -> bool:
    return kind_of(node) == "date" or (isinstance(node, exp.Column) and kind_here(node) == "DATE")


def _number_type(node: exp.Expression) -> str:
    """How Snowflake names a NUMBER's type in a conversion error: a literal by its own digits."""
    scale = number_scale(node) or 0
    if isinstance(node, exp.Literal):
        digits = sum(c.isdigit() for c in node.name)
        return f"NUMBER({max(digits, 1)},{scale})"
    return f"NUMBER(38,{scale})"


def _refuse_dates_with_numbers(tree: exp.Expression) -> None:
    comparisons = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ, exp.NullSafeNEQ)
    for node in tree.find_all(*comparisons, exp.In, exp.Between):
        if isinstance(node, exp.In):
            pairs = [(node.this, e) for e in node.expressions]
        elif isinstance(node, exp.Between):
            pairs = [(node.this, node.args["low"]), (node.this, node.args["high"])]
        else:
            pairs = [(node.this, node.expression), (node.expression, node.this)]
        for date, number in pairs:
            if _date(date) and number_scale(number) is not None:
                raise SqlCompilationError(
                    f"Can not convert parameter '{number.sql('snowflake')}' of type "
                    f"[{_number_type(number)}] into expected type [DATE]"
                )


def _date_differences(tree: exp.Expression) -> None:
    for node in list(tree.find_all(exp.Sub)):
        if _date(node.this) and _date(node.expression):
            node.replace(sub(day_number(node.this), day_number(node.expression)))


_FLOAT_RESULTS = (exp.Sqrt, exp.Ln, exp.Log, exp.Exp, exp.Pow, exp.Stddev, exp.StddevPop, exp.StddevSamp)
_FLOAT_RESULTS += (exp.Variance, exp.VariancePop, exp.Corr, exp.CovarPop, exp.CovarSamp, exp.Rand)
_SAME_TYPE = (exp.Paren, exp.Neg, exp.Window, exp.Abs, exp.Sum, exp.Min, exp.Max, exp.Avg, exp.Alias)


def _float(node: exp.Expression) -> bool:
    """A value known to be a FLOAT: a literal with an exponent, a cast to FLOAT, a stored FLOAT
    column, a function of FLOAT results, and arithmetic with any of them."""
    while isinstance(node, _SAME_TYPE):
        node = node.this
    if isinstance(node, exp.Literal):
        return not node.is_string and "e" in node.name.lower()
    if isinstance(node, exp.Cast):
        return node.to.is_type(exp.DType.DOUBLE, exp.DType.FLOAT)
    if isinstance(node, exp.Column):
        return kind_here(node) == "REAL"
    if isinstance(node, exp.Add | exp.Sub | exp.Mul | exp.Div):
        return _float(node.this) or _float(node.expression)
    return isinstance(node, _FLOAT_RESULTS)


def _as_float(node: exp.Expression, select_item: bool) -> exp.Expression:
    """A NUMBER as FLOAT; a select item keeps its name."""
    if isinstance(node, exp.Alias):
        node.set("this", _as_float(node.this, False))
        return node
    double = exp.Cast(this=node, to=exp.DataType.build("DOUBLE"))
    return exp.alias_(double, node.output_name) if select_item and isinstance(node, exp.Column) else double


def _number(node: exp.Expression) -> bool:
    return number_scale(node.this if isinstance(node, exp.Alias) else node) is not None


def _semi_structured(node: exp.Expression) -> bool:
    """A value known to be a VARIANT/OBJECT/ARRAY: a path into one, PARSE_JSON, TO_VARIANT, a
    stored (or FLATTEN's) semi-structured column."""
    while isinstance(node, exp.Paren | exp.Alias):
        node = node.this
    if isinstance(node, exp.JSONExtract | exp.ParseJSON | exp.ToVariant):
        return True
    return isinstance(node, exp.Column) and kind_here(node) in SEMI_KINDS


def _variant_branches(node: exp.Case | exp.If | exp.Coalesce) -> bool:
    """A conditional with a VARIANT among its values is a VARIANT, as in Snowflake (ZEROIFNULL(v)
    is no text): its other values become VARIANTs. Returns whether it is one."""
    if isinstance(node, exp.Case):
        keys = [(i, "true") for i in node.args.get("ifs") or []] + [(node, "default")]
    elif isinstance(node, exp.If):
        keys = [(node, "true"), (node, "false")]
    else:
        keys = [(node, "this")] + [(node, i) for i in range(len(node.expressions))]
    values = [
        (owner, key, owner.expressions[key] if isinstance(key, int) else owner.args.get(key))
        for owner, key in keys
    ]
    values = [(owner, key, v) for owner, key, v in values if v is not None]
    if not any(_semi_structured(v) for _, _, v in values):
        return False
    for owner, key, value in values:
        if not _semi_structured(value) and not isinstance(value, exp.Null):
            variant = exp.ToVariant(this=value.copy())
            if isinstance(key, int):
                owner.expressions[key].replace(variant)
            else:
                owner.set(key, variant)
    return True


def _one_value(values: list[exp.Expression], select_items: bool = False) -> list[exp.Expression]:
    """`values` that make one value: NUMBERs become FLOATs when a FLOAT is among them."""
    if any(_float(v) for v in values) and any(_number(v) for v in values):
        return [_as_float(v, select_items) if _number(v) else v for v in values]
    return values


def _branches(node: exp.Expression) -> list[exp.Select] | None:
    """The SELECTs a set operation combines (nested ones in their place); None when a branch is
    something else (VALUES, a parenthesized query)."""
    if isinstance(node, exp.SetOperation):
        left, right = _branches(node.this), _branches(node.expression)
        return None if left is None or right is None else left + right
    return [node] if isinstance(node, exp.Select) else None


def _set_operation_columns(node: exp.SetOperation) -> None:
    selects = _branches(node)
    if not selects or any(s.is_star or len(s.expressions) != len(selects[0].expressions) for s in selects):
        return
    columns = [
        _one_value(list(c), select_items=True) for c in zip(*(s.expressions for s in selects), strict=True)
    ]
    for i, select in enumerate(selects):
        select.set("expressions", [column[i] for column in columns])


def _floats_meet_numbers(tree: exp.Expression) -> None:
    for node in list(
        tree.find_all(exp.Case, exp.If, exp.Coalesce, exp.Greatest, exp.Least, exp.SetOperation)
    ):
        if isinstance(node, exp.SetOperation):
            if not isinstance(node.parent, exp.SetOperation):  # nested ones are the outermost's branches
                _set_operation_columns(node)
        elif isinstance(node, exp.Case | exp.If | exp.Coalesce) and _variant_branches(node):
            node.replace(exp.Anonymous(this="sf_variant_tag", expressions=[node.copy()]))
        elif isinstance(node, exp.Case):
            ifs, default = node.args.get("ifs") or [], node.args.get("default")
            values = _one_value([i.args["true"] for i in ifs] + ([default] if default else []))
            for i, value in zip(ifs, values, strict=False):
                i.set("true", value)
            if default:
                node.set("default", values[-1])
        elif isinstance(node, exp.If):
            if node.args.get("false") is not None:
                node.set("true", (values := _one_value([node.args["true"], node.args["false"]]))[0])
                node.set("false", values[1])
        else:
            values = _one_value([node.this, *node.expressions])
            node.set("this", values[0])
            node.set("expressions", values[1:])


def rewrite(tree: exp.Expression) -> exp.Expression:
    _refuse_dates_with_numbers(tree)
    _date_differences(tree)
    _floats_meet_numbers(tree)
    _boolean_comparisons(tree)
    for node in list(tree.find_all(*_TEXT_ARGUMENTS)):
        for key in _TEXT_ARGUMENTS.get(type(node), ()):  # a subclass may take other arguments
            value = node.args.get(key)
            if isinstance(value, list):
                node.set(key, [_as_text(v) for v in value])
            elif isinstance(value, exp.Expression):
                node.set(key, _as_text(value))
    return tree

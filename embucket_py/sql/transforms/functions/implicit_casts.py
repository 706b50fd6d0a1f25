"""Snowflake's implicit conversions that DataFusion does not make (it refuses the types instead):
- numbers, dates, times and booleans given to string functions become text: `UPPER(42)` is
  '42', `LTRIM(n, '0')`, `CONTAINS(id, '2')`, `REPLACE(d, '-', '')` and `id LIKE '4%'` read the
  value's text;
- a string literal compared with a BOOLEAN reads as TO_BOOLEAN reads it (`b = 'yes'`,
  `b IN ('on', 'f')`; other text is 100037 "Boolean value 'x' is not recognized");
- a NUMBER compared with a DATE is refused, as Snowflake has no conversion between them
  (DataFusion read the number as days since 1970: `d = 20240102` matched nothing);
- a DATE minus a DATE is the number of days between them, as day numbers (`temporal.day_number`).
Runs before the other families, so the casts it adds are written as Snowflake writes those
values (a DATE in DATE_OUTPUT_FORMAT, a NUMBER(10,2) as 1.50) and TO_BOOLEAN is rewritten as any.
https://docs.snowflake.com/en/sql-reference/data-type-conversion#implicit-conversion-coercion
"""

from __future__ import annotations

from sqlglot import exp

from embucket_py.errors import SqlCompilationError
from embucket_py.sql.transforms.functions.column_kinds import kind_here
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


def rewrite(tree: exp.Expression) -> exp.Expression:
    _refuse_dates_with_numbers(tree)
    _date_differences(tree)
    _boolean_comparisons(tree)
    for node in list(tree.find_all(*_TEXT_ARGUMENTS)):
        for key in _TEXT_ARGUMENTS.get(type(node), ()):  # a subclass may take other arguments
            value = node.args.get(key)
            if isinstance(value, list):
                node.set(key, [_as_text(v) for v in value])
            elif isinstance(value, exp.Expression):
                node.set(key, _as_text(value))
    return tree

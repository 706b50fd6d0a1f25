"""Regular-expression functions with Snowflake's arguments (position, occurrence, parameters,
group) on DataFusion's regexp_* built-ins; REGEXP_SUBSTR_ALL through `sf_regexp_substr_all`.

Snowflake reads parameters 'c' (case-sensitive, default), 'i', 'm', 's' and 'e' (extract a group);
the first four become inline flags of the pattern. A position p searches `substr(subject, p)`, as
Snowflake does (a `\\b` or `^` matches at p). RLIKE / REGEXP_LIKE match the whole subject.
https://docs.snowflake.com/en/sql-reference/functions-regexp
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from embucket_py.errors import Unsupported
from embucket_py.sql.transforms.functions.strings import bottom_up, call, int_literal

_ONE = exp.Literal.number(1)
_ZERO = exp.Literal.number(0)


@dataclass(frozen=True)
class _Params:
    flags: str  # inline flags for the pattern, e.g. "is"
    extract: bool


def _params(node: exp.Expression | None) -> _Params:
    if node is None:
        return _Params("", False)
    if not (isinstance(node, exp.Literal) and node.is_string):
        raise Unsupported("regular expression parameters that are not a string literal")
    insensitive, multi, dotall, extract = False, False, False, False
    for c in node.this:
        if c in "ci":
            insensitive = c == "i"
        elif c == "m":
            multi = True
        elif c == "s":
            dotall = True
        elif c == "e":
            extract = True
        else:
            raise Unsupported(f"regular expression parameter '{c}'")
    flags = "i" * insensitive + "m" * multi + "s" * dotall
    return _Params(flags, extract)


def _pattern(pattern: exp.Expression, flags: str, before: str = "", after: str = "") -> exp.Expression:
    """The pattern with inline flags and optional text around it (folded when it is a literal)."""
    head = (f"(?{flags})" if flags else "") + before
    if isinstance(pattern, exp.Literal) and pattern.is_string:
        return exp.Literal.string(head + pattern.this + after)
    parts: list[exp.Expression] = [pattern]
    if head:
        parts.insert(0, exp.Literal.string(head))
    if after:
        parts.append(exp.Literal.string(after))
    return call("concat", *parts) if len(parts) > 1 else pattern


def _from(subject: exp.Expression, position: exp.Expression | None) -> exp.Expression:
    if position is None or int_literal(position) == 1:
        return subject
    return call("substr", subject, position)


def _group(params: _Params, group: exp.Expression | None) -> exp.Expression:
    """The group to return: group_num if given (it implies 'e'), 1 for 'e' alone, else the match."""
    # sqlglot fills in group 0 when the call has none, so 0 with 'e' reads as "no group given".
    if group is not None and not (params.extract and int_literal(group) == 0):
        return group
    return _ONE.copy() if params.extract else _ZERO.copy()


def _substr(
    subject: exp.Expression,
    pattern: exp.Expression,
    occurrence: exp.Expression | None,
    params: _Params,
    group: exp.Expression,
) -> exp.Expression:
    """The occurrence-th match (or its group) of a pattern in a subject, NULL when none.

    regexp_instr finds where the occurrence starts; regexp_match from there returns its groups,
    with the whole match wrapped as group 1."""
    wrapped = _pattern(pattern.copy(), params.flags, "(", ")")
    index = exp.Add(this=exp.paren(group.copy()), expression=_ONE.copy())
    if occurrence is None or int_literal(occurrence) == 1:
        return call("array_element", call("regexp_match", subject, wrapped), index)
    start = call(
        "regexp_instr", subject.copy(), _pattern(pattern.copy(), params.flags), _ONE.copy(), occurrence
    )
    rest = call("substr", subject.copy(), start.copy())
    found = call("array_element", call("regexp_match", rest, wrapped), index)
    return exp.Case().when(exp.GT(this=start, expression=_ZERO.copy()), found)


def _regexp_substr(node: exp.RegexpExtract) -> exp.Expression:
    params = _params(node.args.get("parameters"))
    subject = _from(node.this, node.args.get("position"))
    return _substr(
        subject, node.expression, node.args.get("occurrence"), params, _group(params, node.args.get("group"))
    )


def _regexp_substr_all(node: exp.RegexpExtractAll) -> exp.Expression:
    params = _params(node.args.get("parameters"))
    group = _group(params, node.args.get("group"))
    occurrence = node.args.get("occurrence") or _ONE.copy()
    if int_literal(group) is None or int_literal(occurrence) is None:
        raise Unsupported("REGEXP_SUBSTR_ALL with a non-literal occurrence or group")
    subject = _from(node.this, node.args.get("position"))
    return call("sf_regexp_substr_all", subject, _pattern(node.expression, params.flags), occurrence, group)


def _regexp_like(node: exp.RegexpLike) -> exp.Expression:
    flag = node.args.get("flag")
    params = _params(flag)
    # Snowflake anchors the pattern at both ends; \A and \z stay anchors under 'm'.
    return call("regexp_like", node.this, _pattern(node.expression, params.flags, r"\A(?:", r")\z"))


def _regexp_replace(node: exp.RegexpReplace) -> exp.Expression:
    params = _params(node.args.get("modifiers"))
    position, occurrence = node.args.get("position"), node.args.get("occurrence")
    subject = _from(node.this.copy(), position)
    pattern = _pattern(node.expression, params.flags)
    replacement = node.args.get("replacement") or exp.Literal.string("")
    # Snowflake writes groups as \1; '$' is literal there but a group reference to DataFusion.
    if isinstance(replacement, exp.Literal) and replacement.is_string:
        replacement = exp.Literal.string(replacement.this.replace("$", "$$"))
    else:
        replacement = call("replace", replacement, exp.Literal.string("$"), exp.Literal.string("$$"))
    nth = int_literal(occurrence) if occurrence is not None else 0
    if nth == 0:
        replaced: exp.Expression = call(
            "regexp_replace", subject, pattern, replacement, exp.Literal.string("g")
        )
    elif nth == 1:
        replaced = call("regexp_replace", subject, pattern, replacement)
    elif nth is not None and nth > 1:
        start = call("regexp_instr", subject.copy(), pattern.copy(), _ONE.copy(), occurrence)
        head = call("substr", subject.copy(), _ONE.copy(), exp.Sub(this=start.copy(), expression=_ONE.copy()))
        tail = call(
            "regexp_replace", call("substr", subject.copy(), start.copy()), pattern.copy(), replacement
        )
        replaced = (
            exp.Case()
            .when(exp.EQ(this=start, expression=_ZERO.copy()), subject)
            .else_(exp.DPipe(this=head, expression=tail))
        )
    else:
        raise Unsupported("REGEXP_REPLACE with a non-literal or negative occurrence")
    if position is None or int_literal(position) == 1:
        return replaced
    prefix = call(
        "substr", node.this.copy(), _ONE.copy(), exp.Sub(this=position.copy(), expression=_ONE.copy())
    )
    return exp.DPipe(this=prefix, expression=replaced)


def _regexp_count(node: exp.RegexpCount) -> exp.Expression:
    params = _params(node.args.get("parameters"))
    subject = _from(node.this, node.args.get("position"))
    return call("regexp_count", subject, _pattern(node.expression, params.flags))


def _regexp_instr(node: exp.RegexpInstr) -> exp.Expression:
    params = _params(node.args.get("parameters"))
    position = node.args.get("position")
    occurrence = node.args.get("occurrence") or _ONE.copy()
    group = _group(params, node.args.get("group"))
    subject = _from(node.this.copy(), position)
    pattern = _pattern(node.expression.copy(), params.flags)
    found = call(
        "regexp_instr", subject, pattern, _ONE.copy(), occurrence.copy(), exp.Literal.string(""), group.copy()
    )
    result: exp.Expression = found
    if position is not None and int_literal(position) != 1:
        result = exp.Sub(
            this=exp.Add(this=found.copy(), expression=exp.paren(position.copy())), expression=_ONE.copy()
        )
    option = int_literal(node.args.get("option")) if node.args.get("option") is not None else 0
    if option == 1:
        # The position after the match (or group): its start plus its length.
        text = _substr(subject.copy(), node.expression.copy(), occurrence.copy(), params, group.copy())
        result = exp.Add(this=result, expression=call("length", text))
    elif option != 0:
        raise Unsupported("REGEXP_INSTR with a return option other than 0 or 1")
    return exp.Case().when(exp.EQ(this=found.copy(), expression=_ZERO.copy()), _ZERO.copy()).else_(result)


def _rewrite(node: exp.Expression) -> exp.Expression:
    if isinstance(node, exp.RegexpExtract):
        return _regexp_substr(node)
    if isinstance(node, exp.RegexpExtractAll):
        return _regexp_substr_all(node)
    if isinstance(node, exp.RegexpLike):
        return _regexp_like(node)
    if isinstance(node, exp.RegexpILike):
        return call("regexp_like", node.this, _pattern(node.expression, "i", r"\A(?:", r")\z"))
    if isinstance(node, exp.RegexpReplace):
        return _regexp_replace(node)
    if isinstance(node, exp.RegexpCount):
        return _regexp_count(node)
    if isinstance(node, exp.RegexpInstr):
        return _regexp_instr(node)
    return node


def rewrite(tree: exp.Expression) -> exp.Expression:
    return bottom_up(tree, _rewrite)

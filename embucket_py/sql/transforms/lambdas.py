"""Snowflake's higher-order functions (TRANSFORM, FILTER, REDUCE) -> UDF calls that run the
lambda's body as a query of its own over the array's elements.

DataFusion has no lambdas. The body is translated here, once, as the Snowflake query
`SELECT TO_VARIANT(<body>) FROM <lambda input>`: the lambda's parameters become the input's
columns `__P0` (REDUCE's accumulator, or the element) and `__P1` (REDUCE's element), and every
outer column or aggregate the body reads becomes a column `__C<i>` whose values the call passes
along. The UDF (engine/lambdas.py) builds that input from each batch, one row per element, and
runs the translated query on it, so the body is evaluated a batch at a time with every Snowflake
rewrite it needs (VARIANT paths, casts, functions, nested lambdas).

Elements are VARIANTs, as in Snowflake; a typed parameter (`x INT -> ...`) is cast by the body
(sqlglot writes the cast around each reference). REDUCE returns its initial value's type when the
SQL shows it (a cast, a literal, a constructor), a VARIANT otherwise.
https://docs.snowflake.com/en/user-guide/querying-semistructured-higher-order-functions
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from sqlglot import exp

from embucket_py.errors import SqlCompilationError, Unsupported
from embucket_py.sql.context import SqlContext, activated
from embucket_py.sql.names import normalize
from embucket_py.sql.transforms.functions.column_kinds import kind_here

if TYPE_CHECKING:
    from embucket_py.sql.translate import QueryTranslation

# The lambda input's Snowflake name (its columns are named below).
INPUT = ("__EMBUCKET", "__LAMBDA", "__INPUT")
PARAMETERS = ("__P0", "__P1")
# UDFs of engine/lambdas.py; the `_captured` forms take the outer values the body reads.
TRANSFORM, FILTER, REDUCE = "sf_transform", "sf_filter", "sf_reduce"
CAPTURED = "_captured"
NAMES = tuple(n + suffix for n in (TRANSFORM, FILTER, REDUCE) for suffix in ("", CAPTURED))

_KINDS: dict[type[exp.Expression], tuple[str, str, int, str]] = {
    # node -> (Snowflake name, the lambda's argument, its parameter count, the UDF)
    exp.Transform: ("TRANSFORM", "expression", 1, TRANSFORM),
    exp.ArrayFilter: ("FILTER", "expression", 1, FILTER),
    exp.Reduce: ("REDUCE", "merge", 2, REDUCE),
}

Translator = Callable[[exp.Expression, SqlContext], "QueryTranslation"]


def lambdas(tree: exp.Expression, ctx: SqlContext, translate: Translator) -> exp.Expression:
    """Rewrites each higher-order call, outermost first (nested ones are rewritten with the body
    they are in). `translate(query, ctx)` returns the body query's translation (its `sql` and
    `tables`)."""
    if tree.find(exp.Lambda) is None:
        return tree
    with activated(ctx):
        for node in list(tree.find_all(*_KINDS)):
            if node.find_ancestor(exp.Lambda) is None and isinstance(
                node.args.get(_KINDS[type(node)][1]), exp.Lambda
            ):
                node.replace(_call(node, ctx, translate))
    return tree


def _call(node: exp.Expression, ctx: SqlContext, translate: Translator) -> exp.Expression:
    name, argument, count, udf = _KINDS[type(node)]
    lam = node.args[argument]
    params = [normalize(p) for p in lam.expressions]
    if len(params) != count:
        raise SqlCompilationError(
            f"{name}: the lambda expression must take {count} argument(s), not {len(params)}."
        )
    # In parentheses: a body that is itself an outer column is replaced like any other.
    body = exp.Paren(this=_renamed(lam.this.copy(), dict(zip(params, PARAMETERS, strict=False))))
    if body.find(exp.Subquery, exp.Select) is not None:
        raise Unsupported(f"{name} with a subquery in its lambda expression is not supported yet.")
    result_type = _reduce_type(node.args["initial"]) if isinstance(node, exp.Reduce) else None
    if result_type is not None:  # the accumulator has the initial value's type
        for ref in list(body.find_all(exp.Column)):
            if ref.name == PARAMETERS[0] and not ref.table:
                ref.replace(exp.Cast(this=ref.copy(), to=result_type.copy()))
    outer, kinds = _captured(lam.this, body)
    inner_ctx = replace(ctx, column_kinds=_kinds_with_input(ctx, kinds, count))
    value = exp.Cast(this=body, to=exp.DataType.build("BOOLEAN")) if name == "FILTER" else _to_variant(body)
    query = exp.select(exp.alias_(value, "R")).from_(exp.table_(INPUT[2], db=INPUT[1], catalog=INPUT[0]))
    translation = translate(query, inner_ctx)
    if len(translation.tables) != 1:
        raise Unsupported(f"{name} with a lambda expression that reads a table is not supported yet.")
    sql, table = exp.Literal.string(translation.sql), exp.Literal.string(translation.tables[0].registered_as)
    args = [sql, table, node.this]
    if isinstance(node, exp.Reduce):
        args.append(_to_variant(node.args["initial"]))
    if outer:
        udf += CAPTURED
        args += [
            _list(outer, "arrow_cast", "Utf8"),
            _list(outer, "arrow_typeof"),
            _list(outer, "arrow_metadata", "embucket.sftype"),
        ]
    call = exp.Anonymous(this=udf, expressions=args)
    return exp.Cast(this=call, to=result_type) if result_type is not None else call


def _renamed(body: exp.Expression, names: dict[str, str]) -> exp.Expression:
    """The parameters' references (bare identifiers, or unqualified columns inside a nested
    lambda) renamed to the input's columns; a nested lambda's own parameter of the same name
    shadows it."""
    if isinstance(body, exp.Lambda):
        names = {k: v for k, v in names.items() if k not in {normalize(p) for p in body.expressions}}
        body.set("this", _renamed(body.this, names))
        return body
    if isinstance(body, exp.Identifier) and normalize(body) in names:
        return exp.column(names[normalize(body)])
    if isinstance(body, exp.Column) and not body.table and isinstance(body.this, exp.Identifier):
        target = names.get(normalize(body.this))
        return exp.column(target) if target else body
    for key, value in list(body.args.items()):
        if isinstance(value, exp.Expression):
            body.set(key, _renamed(value, names))
        elif isinstance(value, list):
            body.set(key, [_renamed(v, names) if isinstance(v, exp.Expression) else v for v in value])
    return body


def _captured(original: exp.Expression, body: exp.Expression) -> tuple[list[exp.Expression], dict[str, str]]:
    """The outer values the body reads (columns, aggregates and window calls without the
    lambda's parameters), each replaced by an input column `__C<i>`. Returns them (from
    `original`, where their kinds can be told) and the kinds known."""
    outer: list[exp.Expression] = []
    kinds: dict[str, str] = {}
    seen: dict[str, str] = {}
    originals = {n.sql(): n for n in original.find_all(exp.Column, exp.AggFunc, exp.Window)}
    for node in list(body.find_all(exp.Column, exp.AggFunc, exp.Window, bfs=True)):
        if _in_captured(node, body):
            continue
        if isinstance(node, exp.Column) and node.name in PARAMETERS and not node.table:
            continue
        if any(c.name in PARAMETERS and not c.table for c in node.find_all(exp.Column)):
            continue  # an aggregate of the elements: DataFusion will say what it cannot do
        key = node.sql()
        if key not in seen:
            seen[key] = f"__C{len(seen)}"
            source = originals.get(key, node)
            outer.append(source.copy())
            kind = kind_here(source) if isinstance(source, exp.Column) else None
            if kind is not None:
                kinds[seen[key]] = kind
        node.replace(exp.column(seen[key]))
    return outer, kinds


def _in_captured(node: exp.Expression, body: exp.Expression) -> bool:
    """Inside a node already replaced (detached from `body`)."""
    parent = node
    while parent is not None and parent is not body:
        parent = parent.parent
    return parent is None


def _kinds_with_input(
    ctx: SqlContext, captured: dict[str, str], count: int
) -> Callable[[list[str]], dict[str, str] | None]:
    input_kinds = {p: "VARIANT" for p in PARAMETERS[:count]} | captured
    outer = ctx.column_kinds

    def lookup(parts: list[str]) -> dict[str, str] | None:
        if tuple(parts) == INPUT:
            return input_kinds
        return outer(parts) if outer is not None else None

    return lookup


def _reduce_type(initial: exp.Expression) -> exp.DataType | None:
    """The type REDUCE returns (its accumulator's), as far as the initial value shows it."""
    while isinstance(initial, exp.Paren):
        initial = initial.this
    if isinstance(initial, exp.Cast):
        return initial.to.copy()
    if isinstance(initial, exp.Literal) and initial.is_string:
        return exp.DataType.build("VARCHAR")
    if isinstance(initial, exp.Literal):
        scale = (
            len(initial.this.split(".", 1)[1])
            if "." in initial.this and "e" not in initial.this.lower()
            else 0
        )
        return exp.DataType.build(f"NUMBER(38, {scale})", dialect="snowflake")
    if isinstance(initial, exp.Boolean):
        return exp.DataType.build("BOOLEAN")
    return None


def _to_variant(node: exp.Expression) -> exp.Expression:
    return exp.ToVariant(this=node)


def _list(values: list[exp.Expression], function: str, *extra: str) -> exp.Expression:
    """`make_array(function(v, extra...), ...)`: DataFusion's own functions, left alone by the
    rewrites (the values as Arrow writes them, their Arrow types, their Snowflake tags)."""
    items = [
        exp.Anonymous(this=function, expressions=[v.copy(), *map(exp.Literal.string, extra)]) for v in values
    ]
    if function == "arrow_metadata":
        items = [exp.Anonymous(this="coalesce", expressions=[i, exp.Literal.string("")]) for i in items]
    return exp.Anonymous(this="make_array", expressions=items)

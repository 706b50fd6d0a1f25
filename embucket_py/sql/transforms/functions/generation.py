"""Snowflake data generation functions (RANDOM, UNIFORM, RANDSTR, NORMAL, ZIPF, UUID_STRING).

Values drawn from a generator expression are a pure function of it, as in Snowflake: the same
`gen` gives the same value. https://docs.snowflake.com/en/sql-reference/functions-data-generation
"""

from __future__ import annotations

from sqlglot import exp

from embucket_py.sql.transforms.functions.temporal import call, cast, kind_of, rewrite_all, string


def _is_integer(node: exp.Expression) -> bool:
    while isinstance(node, exp.Neg | exp.Paren):
        node = node.this
    return isinstance(node, exp.Literal) and node.is_int


def _random(node: exp.Rand) -> exp.Expression:
    seed = node.this
    if seed is not None:
        return call("sf_random_seeded", cast(seed, "NUMBER(18, 0)"))
    # A signed 64-bit value, as Snowflake's RANDOM() gives (DataFusion's random() is in [0, 1)).
    spread = exp.Mul(
        this=exp.Paren(this=exp.Sub(this=call("random"), expression=exp.Literal.number(0.5))),
        expression=exp.Literal.number("18000000000000000000.0"),
    )
    return call("arrow_cast", cast(spread, "DOUBLE"), string("Int64"))


def _uniform(node: exp.Uniform) -> exp.Expression:
    low, high, gen = node.this, node.expression, cast(node.args["gen"], "NUMBER(18, 0)")
    if _is_integer(low) and _is_integer(high):
        return call("sf_uniform_int", cast(low, "NUMBER(18, 0)"), cast(high, "NUMBER(18, 0)"), gen)
    return call("sf_uniform_float", cast(low, "DOUBLE"), cast(high, "DOUBLE"), gen)


def _rewrite(node: exp.Expression) -> exp.Expression:
    if isinstance(node, exp.Rand):
        return _random(node)
    if isinstance(node, exp.Uniform):
        return _uniform(node)
    if isinstance(node, exp.Randstr):
        return call(
            "sf_randstr", cast(node.this, "NUMBER(18, 0)"), cast(node.args["generator"], "NUMBER(18, 0)")
        )
    if isinstance(node, exp.Normal):
        args = (
            cast(node.this, "DOUBLE"),
            cast(node.args["stddev"], "DOUBLE"),
            cast(node.args["gen"], "NUMBER(18, 0)"),
        )
        return call("sf_normal", *args)
    if isinstance(node, exp.Zipf):
        args = (cast(node.this, "DOUBLE"), cast(node.args["elementcount"], "NUMBER(18, 0)"))
        return call("sf_zipf", *args, cast(node.args["gen"], "NUMBER(18, 0)"))
    if isinstance(node, exp.Uuid):
        if node.this is not None and node.args.get("name") is not None:
            return call("sf_uuid5", cast(node.this, "VARCHAR"), cast(node.args["name"], "VARCHAR"))
        return call("uuid")
    return node


def rewrite(tree: exp.Expression) -> exp.Expression:
    return rewrite_all(tree, _rewrite)


__all__ = ["kind_of", "rewrite", "string"]

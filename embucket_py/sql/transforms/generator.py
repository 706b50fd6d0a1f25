"""TABLE(GENERATOR(ROWCOUNT => n)) -> DataFusion's range(n); SEQ1/2/4/8() -> its row number, or
the row's number in the SELECT's result over any other source (SEQ is not tied to GENERATOR).

https://docs.snowflake.com/en/sql-reference/functions/generator
"""

from __future__ import annotations

from sqlglot import exp

from embucket_py.errors import Unsupported

_SEQ_FUNCTIONS = ("SEQ1", "SEQ2", "SEQ4", "SEQ8")


def _over_range(select: exp.Select | None) -> bool:
    """A SELECT reading a generator's range() alone, whose `value` column numbers its rows."""
    if select is None or select.args.get("joins"):
        return False
    source = select.args.get("from_")
    table = source.this if isinstance(source, exp.From) else None
    return (
        isinstance(table, exp.Table) and isinstance(table.this, exp.Anonymous) and table.this.name == "range"
    )


def _sequence(name: str, node: exp.Expression) -> exp.Expression:
    """The row number wrapped to the function's width: SEQ1 is 1 byte, SEQ8 8; SEQn(1) is signed."""
    value: exp.Expression = exp.column("value", quoted=True)
    if not _over_range(node.parent_select):
        number = exp.cast(exp.Window(this=exp.RowNumber()), "BIGINT")
        value = exp.Paren(this=exp.Sub(this=number, expression=exp.Literal.number(1)))
    bits = {"SEQ1": 8, "SEQ2": 16, "SEQ4": 32}.get(name)
    if bits is None:
        return value
    size = exp.Literal.number(1 << bits)
    signed = node.this is not None and node.this.is_int and int(node.this.name) == 1
    if not signed:  # parenthesized: it replaces a call, which binds tighter than any operator
        return exp.Paren(this=exp.Mod(this=value, expression=size))
    half = exp.Literal.number(1 << (bits - 1))
    offset = exp.Paren(this=exp.Add(this=value, expression=half))
    shifted = exp.Paren(this=exp.Mod(this=offset, expression=size))
    return exp.Paren(this=exp.Sub(this=shifted, expression=half.copy()))


def generator(tree: exp.Expression) -> exp.Expression:
    for gen in list(tree.find_all(exp.Generator)):
        rowcount = gen.args.get("rowcount")
        if rowcount is None:
            raise Unsupported("GENERATOR without ROWCOUNT is not supported.")
        source = gen.parent if isinstance(gen.parent, exp.TableFromRows) else gen
        alias = source.args.get("alias")
        table = exp.Table(this=exp.Anonymous(this="range", expressions=[rowcount.copy()]))
        if alias is not None:
            table.set("alias", alias.copy())
        source.replace(table)

    def seq(node: exp.Expression) -> exp.Expression:
        name = type(node).__name__.upper() if not isinstance(node, exp.Anonymous) else node.name.upper()
        if isinstance(node, exp.Func) and name in _SEQ_FUNCTIONS:
            return _sequence(name, node)
        return node

    return tree.transform(seq)

"""TABLE(GENERATOR(ROWCOUNT => n)) -> DataFusion's range(n); SEQ1/2/4/8() -> its row number.

https://docs.snowflake.com/en/sql-reference/functions/generator
"""

from __future__ import annotations

from sqlglot import exp

from embucket_py.errors import Unsupported

_SEQ_FUNCTIONS = ("SEQ1", "SEQ2", "SEQ4", "SEQ8")


def generator(tree: exp.Expression) -> exp.Expression:
    gens = list(tree.find_all(exp.Generator))
    if not gens:
        return tree
    for gen in gens:
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
            return exp.column("value", quoted=True)
        return node

    return tree.transform(seq)

"""CTEs a query reads more than once, split out to be computed once.

DataFusion inlines a CTE at every reference, so `WITH r AS (...) ... FROM r ... (SELECT MAX(x)
FROM r)` computes `r` twice (TPC-H Q15); Snowflake's plans typically compute it once and read it
at each reference (WithClause / WithReference in the query profile). The engine runs each
shared CTE first, registers its result under a name of its own and runs the rest of the query
over it (engine/query.py), falling back to the whole query when a result would be too large.

Only CTEs that aggregate, deduplicate or compute windows are shared: their result is small next
to what they read, or costly to compute again, and filters from outside would not cut their
input much; a plain filter or projection is cheaper read again with the outer filters pushed into
its scan. Only the outermost WITH of the statement is split, and only when every CTE name in the
query is defined once (a nested WITH could shadow a name). Runs after `table_references`: the table
references left without a schema are CTE references.
"""

from __future__ import annotations

from sqlglot import exp

from embucket_py.sql.names import normalize

SHARED_PREFIX = "__cte"


def _references(tree: exp.Expression, name: str) -> list[exp.Table]:
    return [
        t
        for t in tree.find_all(exp.Table)
        if isinstance(t.this, exp.Identifier) and t.args.get("db") is None and normalize(t.this) == name
    ]


def _worth_sharing(body: exp.Expression) -> bool:
    return any(isinstance(n, exp.AggFunc | exp.Group | exp.Distinct | exp.Window) for n in body.walk())


def shared_ctes(tree: exp.Expression) -> tuple[exp.Expression, list[tuple[str, exp.Expression]]] | None:
    """A copy of `tree` reading its shared CTEs from registered names, and the query computing
    each one (in order: later ones may read earlier ones); None when no CTE is read twice."""
    with_ = tree.args.get("with_")
    if not isinstance(with_, exp.With) or with_.args.get("recursive"):
        return None
    names = [normalize(cte.args["alias"].this) for cte in tree.find_all(exp.CTE)]
    if len(names) != len(set(names)):
        return None
    tree = tree.copy()
    with_ = tree.args["with_"]
    kept: list[exp.CTE] = []
    shared: list[tuple[str, exp.Expression]] = []
    for cte in list(with_.expressions):
        alias = cte.args["alias"]
        references = _references(tree, normalize(alias.this))
        if len(references) < 2 or not _worth_sharing(cte.this):
            kept.append(cte)
            continue
        registered = f"{SHARED_PREFIX}{len(shared)}"
        query = exp.select("*").from_(exp.Table(this=alias.this.copy()))
        query.set("with_", exp.With(expressions=[c.copy() for c in [*kept, cte]]))
        shared.append((registered, query))
        for table in references:
            alias_of = table.args.get("alias") or exp.TableAlias(this=table.this.copy())
            table.replace(exp.Table(this=exp.to_identifier(registered, quoted=True), alias=alias_of))
    if not shared:
        return None
    with_.set("expressions", kept)
    if not kept:
        tree.set("with_", None)
    return tree, shared

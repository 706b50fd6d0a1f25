"""A CTE that reads itself is recursive (RECURSIVE is optional in Snowflake). A recursive CTE's
column list (`WITH RECURSIVE f (n, m) AS (...)`) -> aliases on its anchor SELECT: DataFusion
ignores the list of a recursive CTE and names the columns after the anchor.

https://docs.snowflake.com/en/sql-reference/constructs/with#recursive-cte-syntax
"""

from __future__ import annotations

from sqlglot import exp

from embucket_py.errors import SqlCompilationError
from embucket_py.sql.names import normalize


def _anchor(body: exp.Expression) -> exp.Select | None:
    node = body
    while isinstance(node, exp.SetOperation | exp.Subquery):
        node = node.this
    return node if isinstance(node, exp.Select) else None


def _reads_itself(cte: exp.CTE) -> bool:
    """An anchor UNION [ALL] a branch reading the CTE's own name: recursive with or without the
    RECURSIVE keyword, which Snowflake's grammar makes optional."""
    body = cte.this
    if not isinstance(body, exp.Union):
        return False
    name = normalize(cte.args["alias"].this)

    def reads(node: exp.Expression) -> bool:
        return any(
            normalize(t.this) == name and not t.args.get("db")
            for t in node.find_all(exp.Table)
            if isinstance(t.this, exp.Identifier)
        )

    return not reads(body.this) and reads(body.expression)


def recursive_ctes(tree: exp.Expression) -> exp.Expression:
    for with_ in tree.find_all(exp.With):
        recursive = [cte for cte in with_.expressions if _reads_itself(cte)]
        if recursive:
            with_.set("recursive", True)
        for cte in recursive:
            if cte.this.args.get("distinct"):
                raise SqlCompilationError("UNION not yet supported within a Recursive CTE", code=1102)
        if not with_.args.get("recursive"):
            continue
        for cte in with_.expressions:
            alias = cte.args.get("alias")
            columns = list(alias.columns) if isinstance(alias, exp.TableAlias) else []
            anchor = _anchor(cte.this)
            if not columns or anchor is None:
                continue
            items = anchor.expressions
            if any(isinstance(i, exp.Star) or isinstance(i.this, exp.Star) for i in items):
                continue  # names of a `*` are not known here: keep the list
            if len(items) != len(columns):
                raise SqlCompilationError(
                    f"Invalid column list for CTE '{alias.name.upper()}': it names {len(columns)} "
                    f"columns, the query returns {len(items)}."
                )
            anchor.set(
                "expressions",
                [
                    exp.alias_(i.this if isinstance(i, exp.Alias) else i, name.copy())
                    for i, name in zip(items, columns, strict=True)
                ],
            )
            alias.set("columns", None)
    return tree

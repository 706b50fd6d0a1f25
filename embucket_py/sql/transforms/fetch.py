"""[OFFSET n ROWS] FETCH { FIRST | NEXT } n { ROW | ROWS } [ONLY] -> LIMIT n [OFFSET n].

https://docs.snowflake.com/en/sql-reference/constructs/limit
"""

from __future__ import annotations

from sqlglot import exp


def fetch(tree: exp.Expression) -> exp.Expression:
    for node in list(tree.find_all(exp.Fetch)):
        count = node.args.get("count")
        # FETCH FIRST ROW ONLY fetches one; NULL, like LIMIT NULL, fetches all.
        node.replace(exp.Limit(expression=count if count is not None else exp.Literal.number(1)))
    return tree

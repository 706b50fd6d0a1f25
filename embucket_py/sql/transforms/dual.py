"""FROM DUAL (the one-row dummy table Snowflake accepts for Oracle compatibility) -> no FROM.

https://docs.snowflake.com/en/sql-reference/constructs/from
"""

from __future__ import annotations

from sqlglot import exp

from embucket_py.sql.names import normalize
from embucket_py.sql.nodes import Nodes
from embucket_py.sql.transforms.tables import cte_names


def dual(tree: exp.Expression) -> exp.Expression:
    nodes = Nodes(tree)
    ctes = cte_names(nodes)
    for select in nodes.of(exp.Select):
        from_ = select.args.get("from_")
        source = from_.this if isinstance(from_, exp.From) else None
        if (
            isinstance(source, exp.Table)
            and isinstance(source.this, exp.Identifier)
            and not source.this.quoted
            and source.args.get("db") is None
            and normalize(source.this) == "DUAL"
            and "DUAL" not in ctes
            and not select.args.get("joins")
        ):
            select.set("from_", None)
    return tree

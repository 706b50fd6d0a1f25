"""Identifiers -> quoted Iceberg (stored) names, so DataFusion matches Snowflake's case rules.

DataFusion folds unquoted names to lower case and keeps quoted ones; Snowflake folds to upper
case. Quoting every identifier with its stored name (`embucket_py.naming`) makes both agree.
"""

from __future__ import annotations

from sqlglot import exp

from embucket_py import naming
from embucket_py.sql.names import normalize


def identifiers(tree: exp.Expression) -> exp.Expression:
    for column in tree.find_all(exp.Column):
        # db.schema.table.column: the engine knows the table by its (alias) name alone.
        column.set("db", None)
        column.set("catalog", None)
    for ident in tree.find_all(exp.Identifier):
        if ident.name.startswith("__t") and ident.quoted:
            continue
        ident.set("this", naming.stored(normalize(ident)))
        ident.set("quoted", True)
    return tree

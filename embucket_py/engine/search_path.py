"""The session's SEARCH_PATH: where a query's unqualified names are looked for when the current
schema has no such object ($current, then $public: the PUBLIC schema of the current database).

DDL and DML statements name objects in the current schema only; queries search the path, in
order. The path is only walked after the current schema failed a query (no lookup on the common
path), and CURRENT_SCHEMAS() shows it.
https://docs.snowflake.com/en/sql-reference/name-resolution#unqualified-objects
https://docs.snowflake.com/en/sql-reference/functions/current_schemas
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TypeVar

from sqlglot import exp

from embucket_py.catalog.tables import TableName, Tables
from embucket_py.errors import ObjectNotFound
from embucket_py.sql.context import SqlContext
from embucket_py.sql.names import normalize
from embucket_py.sql.nodes import Nodes
from embucket_py.sql.views import references

DEFAULT = "$current, $public"
T = TypeVar("T")


def schemas(path: str, database: str | None, schema: str | None) -> list[tuple[str, str]]:
    """The path's schemas as (database, schema); entries naming no schema are left out."""
    out = []
    for entry in (e.strip() for e in path.split(",")):
        if entry.lower() == "$current":
            named = (database, schema)
        elif entry.lower() == "$public":
            named = (database, "PUBLIC")
        elif entry:
            parts = [normalize(exp.to_identifier(p.strip())) for p in entry.split(".")]
            named = (parts[0], parts[1]) if len(parts) == 2 else (database, parts[-1])
        else:
            continue
        if named[0] is not None and named[1] is not None:
            out.append((named[0], named[1]))
    return out


def current_schemas(path: str, database: str | None, schema: str | None) -> str:
    """CURRENT_SCHEMAS(): the path as Snowflake prints it, `["DB.S", "DB.PUBLIC"]`."""
    return json.dumps([f"{d}.{s}" for d, s in schemas(path, database, schema)])


def on_miss(
    tables: Tables, tree: exp.Expression, ctx: SqlContext, attempt: Callable[[exp.Expression], T]
) -> T:
    """`attempt(tree)`; when it fails on a missing name (002003), `attempt` of the tree with the
    names the path finds, when it finds any (else the first error stands)."""
    try:
        return attempt(tree)
    except ObjectNotFound:
        along = along_path(tables, tree, ctx)
        if along is None:
            raise
        return attempt(along)


def along_path(tables: Tables, tree: exp.Expression, ctx: SqlContext) -> exp.Expression | None:
    """`tree` with each unqualified name that the current schema lacks qualified by the first
    schema of the path that has it; None when no such name is found further along the path."""
    path = schemas(str(ctx.parameters.get("SEARCH_PATH") or DEFAULT), ctx.database, ctx.schema)
    tree = tree.copy()
    moved = False
    for table, parts in references(Nodes(tree), ctx):
        if table.args.get("db") is not None or _exists(tables, parts):
            continue
        for database, schema in path:
            if _exists(tables, [database, schema, parts[2]]):
                table.set("catalog", exp.to_identifier(database, quoted=True))
                table.set("db", exp.to_identifier(schema, quoted=True))
                moved = True
                break
    return tree if moved else None


def _exists(tables: Tables, parts: list[str]) -> bool:
    return (
        tables.find(TableName(*parts)) is not None
        or tables.views.get(*parts) is not None
        or tables.streams.any_of([parts])
    )

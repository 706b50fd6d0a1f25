"""Views as query text: what CREATE VIEW stores and how a reference to a view is inlined."""

from __future__ import annotations

from sqlglot import exp

from embucket_py.sql.context import SqlContext
from embucket_py.sql.names import SourceText, normalize, projection_name, qualify, table_parts
from embucket_py.sql.nodes import Nodes
from embucket_py.sql.parse import parse
from embucket_py.sql.transforms.projections import first_select
from embucket_py.sql.transforms.tables import stored_references


def view_query(query: exp.Expression, columns: list[str] | None, source: SourceText | None) -> str:
    """The stored definition: the SELECT with every computed column named as Snowflake names it
    (`a + 1` -> "A + 1"), and the view's column list applied when given."""
    query = query.copy()
    select = first_select(query)
    if select is not None:
        named = []
        for node in select.expressions:
            name = projection_name(node, source)
            if name is None or isinstance(node, exp.Alias | exp.Column):
                named.append(node)
            else:
                named.append(exp.alias_(node, exp.to_identifier(name, quoted=True)))
        select.set("expressions", named)
    if columns:
        alias = exp.TableAlias(
            this=exp.to_identifier("__view", quoted=True),
            columns=[exp.to_identifier(c, quoted=True) for c in columns],
        )
        query = exp.select("*").from_(exp.Subquery(this=query.copy(), alias=alias))
    return query.sql(dialect="snowflake")


def references(nodes: Nodes, ctx: SqlContext) -> list[tuple[exp.Table, list[str]]]:
    """Each catalog reference of a query with its qualified name (to look up views)."""
    return [(table, qualify(table_parts(table), ctx, "query")) for table in stored_references(nodes)]


def inline(table: exp.Table, definition: str, database: str, schema: str) -> exp.Subquery:
    """A view reference -> the view's query as a subquery under the reference's alias. Names in
    the view resolve against the view's own database and schema, not the caller's."""
    body = parse(definition)[0]
    for inner in stored_references(Nodes(body)):
        parts = qualify(table_parts(inner), SqlContext(database, schema), "query")
        inner.set("catalog", exp.to_identifier(parts[0], quoted=True))
        inner.set("db", exp.to_identifier(parts[1], quoted=True))
    alias = table.args.get("alias") or exp.TableAlias(
        this=exp.to_identifier(normalize(table.this), quoted=True)
    )
    subquery = exp.Subquery(this=body, alias=alias.copy())
    table.replace(subquery)
    return subquery

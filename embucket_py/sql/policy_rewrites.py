"""How a query applies masking and row access policies, as rewrites of its tree.

A table with policies is read through a subquery that stands in for it under its name:
`(SELECT <col>, CAST(<masking body over col> AS <col's type>) AS <masked col>, ... FROM t WHERE
<row access body over its columns>) AS t`; a view's inlined query is wrapped the same way with
`SELECT * REPLACE (...)`. Names in a body resolve in the policy's schema.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from embucket_py.errors import SqlCompilationError
from embucket_py.sql.context import SqlContext
from embucket_py.sql.names import normalize, qualify, table_parts
from embucket_py.sql.nodes import Nodes
from embucket_py.sql.parse import parse
from embucket_py.sql.transforms.tables import stored_references

SOURCE = "__POLICY_SOURCE"  # the stored table's alias inside the subquery that stands for it
_CHANGE_COLUMNS = ("METADATA$ACTION", "METADATA$ISUPDATE")  # CHANGES' (and a stream's) own columns


@dataclass(frozen=True)
class Applied:
    """A policy as a query applies it: its body over its arguments, the schema its own names
    resolve in, and the columns given to the arguments."""

    body: str
    arguments: tuple[str, ...]
    home: tuple[str, str]
    columns: tuple[str, ...]


def check_body(body: str) -> None:
    """A body must parse as one expression.

    Raises:
        SqlCompilationError: it does not.
    """
    try:
        select = parse(f"SELECT {body}")[0]
    except Exception:
        raise SqlCompilationError(f"Invalid policy body: {body}") from None
    if not isinstance(select, exp.Select) or len(select.expressions) != 1 or select.args.get("from"):
        raise SqlCompilationError(f"Invalid policy body: {body}")


def wrap_table(
    table: exp.Table,
    parts: list[str],
    columns: list[tuple[str, str]],
    masks: dict[str, Applied],
    row_access: Applied | None,
) -> None:
    """Replaces (in place) a reference to a table by the subquery that applies its policies.
    `columns`: the table's (name, Snowflake type) in order; `masks`: by masked column."""
    projections: list[exp.Expression] = []
    for name, sql_type in columns:
        mask = masks.get(name)
        if mask is None:
            projections.append(_source_column(name))
            continue
        masked = exp.Cast(this=bound_body(mask), to=exp.DataType.build(sql_type, dialect="snowflake"))
        projections.append(exp.alias_(masked, exp.to_identifier(name, quoted=True)))
    if table.args.get("changes"):
        projections += [_source_column(c) for c in _CHANGE_COLUMNS]
    inner = table.copy()
    inner.set("pivots", None)
    inner.set("catalog", exp.to_identifier(parts[0], quoted=True))
    inner.set("db", exp.to_identifier(parts[1], quoted=True))
    inner.set("alias", exp.TableAlias(this=exp.to_identifier(SOURCE, quoted=True)))
    select = exp.select(*projections).from_(inner)
    if row_access is not None:
        select = select.where(bound_body(row_access))
    alias = table.args.get("alias") or exp.TableAlias(
        this=exp.to_identifier(normalize(table.this), quoted=True)
    )
    subquery = exp.Subquery(this=select, alias=alias.copy())
    if table.args.get("pivots"):
        subquery.set("pivots", table.args["pivots"])
    table.replace(subquery)


def wrap_view(subquery: exp.Subquery, masks: dict[str, Applied], row_access: list[Applied]) -> None:
    """A view's policies over its inlined query (in place): `SELECT * REPLACE (<masking body> AS
    col, ...) FROM (<view query>) WHERE <row access body>`."""
    masked = [exp.alias_(bound_body(m), exp.to_identifier(c, quoted=True)) for c, m in masks.items()]
    source = exp.Subquery(
        this=subquery.this, alias=exp.TableAlias(this=exp.to_identifier(SOURCE, quoted=True))
    )
    select = exp.select(exp.Star(replace=masked) if masked else exp.Star()).from_(source)
    for applied in row_access:
        select = select.where(bound_body(applied))
    subquery.set("this", select)


def bound_body(policy: Applied, table: str = SOURCE) -> exp.Expression:
    """The policy's body with its arguments bound to the columns of `table`, its own names
    qualified in the policy's schema."""
    body = parse(f"SELECT {policy.body}")[0].expressions[0]
    for inner in stored_references(Nodes(body)):
        database, schema, _ = qualify(table_parts(inner), SqlContext(*policy.home), "query")
        inner.set("catalog", exp.to_identifier(database, quoted=True))
        inner.set("db", exp.to_identifier(schema, quoted=True))
    bound = dict(zip(policy.arguments, policy.columns, strict=False))
    for node in list(body.find_all(exp.Column)):
        if not node.table and isinstance(node.this, exp.Identifier) and normalize(node.this) in bound:
            node.replace(_source_column(bound[normalize(node.this)], table))
    for node in list(body.find_all(exp.Anonymous)):
        if node.name.upper() == "INVOKER_ROLE" and not node.expressions:
            node.replace(exp.Anonymous(this="CURRENT_ROLE"))  # the querying role, outside views
    return body.unalias() if isinstance(body, exp.Alias) else body


def _source_column(name: str, table: str = SOURCE) -> exp.Column:
    return exp.column(exp.to_identifier(name, quoted=True), table=exp.to_identifier(table, quoted=True))

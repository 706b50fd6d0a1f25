"""Masking and row access policies: their statements, and how a query reading a table with
policies sees it.

A table with policies attached is read through a subquery that stands in for it under its name:
`(SELECT <col>, CAST(<masking body over col> AS <col's type>) AS <masked col>, ... FROM t WHERE
<row access body over its columns>) AS t`. So a masked column is masked wherever the query uses
it (projections, filters, joins, aggregates), the row access policy sees the stored values, and
the body's context functions (CURRENT_ROLE(), IS_ROLE_IN_SESSION(...)) become the session's
values at translation, as every query's do. Names in a body resolve in the policy's schema, and
the tables it reads (mapping tables) are read with the policy owner's rights: no privilege of the
querying role is checked on them, as on Snowflake.
https://docs.snowflake.com/en/user-guide/security-column-ddm-use
https://docs.snowflake.com/en/user-guide/security-row-using
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime

import pyarrow as pa
from sqlglot import exp

from embucket_py import naming
from embucket_py.catalog.grants import ACCOUNT, Securable
from embucket_py.catalog.policies import KIND_WORDS, MASKING, ROW_ACCESS, Attachment, Policy, ref_key
from embucket_py.catalog.tables import Column, TableName, Tables
from embucket_py.engine import access
from embucket_py.engine.metadata_columns import DESCRIBED_POLICY, POLICIES, TEXT
from embucket_py.engine.result import OK, QueryResult, StatementType, constant, status
from embucket_py.errors import InvalidIdentifier, ObjectNotFound, SqlCompilationError, object_not_found
from embucket_py.sessions.session import Session
from embucket_py.sql.changes import RowChange
from embucket_py.sql.context import SqlContext
from embucket_py.sql.names import like_matches, normalize, qualify, table_parts
from embucket_py.sql.parse import parse
from embucket_py.sql.policies import PolicyStatement, name_parts
from embucket_py.sql.transforms.tables import stored_references
from embucket_py.types import arrow_field, parse_sql_type

_SOURCE = "__POLICY_SOURCE"  # the stored table's alias inside the subquery that stands for it
CHANGE_ACTION, CHANGE_IS_UPDATE = "METADATA$ACTION", "METADATA$ISUPDATE"


# --- statements -------------------------------------------------------------------------------------


def run(tables: Tables, session: Session, s: PolicyStatement, ctx: SqlContext) -> QueryResult:
    grants = tables.metastore.grants
    roles = access.active_roles(grants, session)
    if s.action == "SHOW":
        return _show(tables, roles, s)
    if s.action in ("CREATE", "ALTER", "DROP", "DESCRIBE"):
        return _on_policy(tables, roles, s)
    return _on_object(tables, roles, s, ctx)


def _on_policy(tables: Tables, roles: set[str], s: PolicyStatement) -> QueryResult:
    database, schema, name = s.parts
    word = KIND_WORDS[s.kind]
    on_schema = Securable("SCHEMA", database, schema)
    if s.action == "DESCRIBE":
        found = _visible_policy(tables, roles, s.parts, s.kind)
        # Snowflake shows the arguments' types without their lengths: `(VAL VARCHAR)`.
        signature = ", ".join(f"{naming.quote(a)} {t.split('(')[0]}" for a, t in found.signature)
        row = (found.name, f"({signature})", found.returns, found.body)
        return constant(DESCRIBED_POLICY, [row], StatementType.DESCRIBE)
    _require_create(tables, roles, s.kind, on_schema)
    policies = tables.policies
    if s.action == "CREATE":
        owner = tables.metastore.grants.owner(on_schema)
        made = Policy(database, schema, name, s.kind, s.signature, s.returns, s.body, s.comment, owner)
        _check_body(made)
        if not policies.create(made, replace=s.replace, if_not_exists=s.if_exists):
            return status(f"{naming.quote(name)} already exists, statement succeeded.")
        return status(f"{word} {naming.quote(name)} successfully created.")
    existing = policies.get(s.parts, s.kind)
    if existing is None:
        if s.if_exists:
            return status(
                OK
                if s.action == "ALTER"
                else f"Drop statement executed successfully ({naming.quote(name)} already dropped)."
            )
        raise object_not_found(word, ".".join(map(naming.quote, s.parts)))
    if s.action == "DROP":
        policies.drop(s.parts)
        return status(f"{naming.quote(name)} successfully dropped.")
    rename = s.changes.get("rename")
    if isinstance(rename, tuple):
        _require_create(tables, roles, s.kind, Securable("SCHEMA", rename[0], rename[1]))
        policies.rename(s.parts, rename, s.kind)
        return status(OK)
    if "body" in s.changes:
        _check_body(replace(existing, body=str(s.changes["body"])))
    policies.alter(s.parts, **s.changes)
    return status(OK)


def _require_create(tables: Tables, roles: set[str], kind: str, on_schema: Securable) -> None:
    # Policies have no grants of their own here: the schema's CREATE privilege stands for them.
    privilege = "CREATE MASKING POLICY" if kind == MASKING else "CREATE ROW ACCESS POLICY"
    access.require(tables.metastore.grants, roles, access.Need(privilege, on_schema))


def _check_body(policy: Policy) -> None:
    """A body must parse as one expression over the policy's arguments."""
    try:
        select = parse(f"SELECT {policy.body}")[0]
    except Exception:
        raise SqlCompilationError(f"Invalid policy body: {policy.body}") from None
    if not isinstance(select, exp.Select) or len(select.expressions) != 1 or select.args.get("from"):
        raise SqlCompilationError(f"Invalid policy body: {policy.body}")


def _visible_policy(tables: Tables, roles: set[str], parts: tuple[str, str, str], kind: str) -> Policy:
    found = None
    if access.visible(tables.metastore.grants, roles, Securable("SCHEMA", parts[0], parts[1])):
        found = tables.policies.get(parts, kind)
    if found is None:
        raise object_not_found(KIND_WORDS[kind], ".".join(map(naming.quote, parts)))
    return found


def _show(tables: Tables, roles: set[str], s: PolicyStatement) -> QueryResult:
    grants = tables.metastore.grants
    schemas = [
        (d, sc)
        for d, sc in tables.metastore.schemas_in_scope(s.scope)
        if access.visible(grants, roles, Securable("SCHEMA", d, sc))
    ]
    rows = []
    for p in tables.policies.list(s.kind, schemas):
        if s.like is not None and not like_matches(s.like, p.name):
            continue
        created = p.created_on or datetime.now(UTC)
        created = created if created.tzinfo else created.replace(tzinfo=UTC)
        rows.append((created, p.name, p.database, p.schema, p.kind, p.owner, p.comment or "", "", "ROLE"))
    return constant(POLICIES, rows, StatementType.SHOW)


def _on_object(tables: Tables, roles: set[str], s: PolicyStatement, ctx: SqlContext) -> QueryResult:
    table = tables.find(TableName(*s.target))
    kind = "TABLE" if table is not None else "VIEW"
    if table is None and tables.views.get(*s.target) is None:
        if s.if_exists:  # ALTER TABLE | VIEW IF EXISTS
            return status(OK)
        raise object_not_found(s.target_kind.capitalize(), ".".join(map(naming.quote, s.target)))
    grants = tables.metastore.grants
    # The object's owner sets its policies, or a role that may apply them anywhere.
    applies = "APPLY MASKING POLICY" if s.kind == MASKING else "APPLY ROW ACCESS POLICY"
    if not grants.allows(roles, applies, ACCOUNT):
        access.require(grants, roles, access.Need("OWNERSHIP", Securable(kind, *s.target)))
    if table is not None:
        columns = {c.name: c for c in Tables.columns(table)}
    else:
        columns = _view_columns(tables, s.target, ctx)
    policies = tables.policies
    if s.action == "UNSET_MASKING":
        _column(columns, s.column)
        policies.detach(s.target, s.column)
        return status(OK)
    if s.action == "DROP_ALL_ROW_ACCESS":
        policies.detach(s.target, "")
        return status(OK)
    policy = _visible_policy(tables, roles, s.parts, s.kind)
    if s.action == "DROP_ROW_ACCESS":
        if not policies.detach(s.target, "", s.parts):
            raise SqlCompilationError(
                f"Row access policy {naming.quote(s.parts[2])} is not attached to"
                f" {naming.quote(s.target[2])}."
            )
        return _on_object(tables, roles, s.then_add, ctx) if s.then_add is not None else status(OK)
    given = [_column(columns, c) for c in s.columns]
    if len(given) != len(policy.signature):
        raise SqlCompilationError(
            f"The number of columns ({len(given)}) does not match the number of the policy's"
            f" arguments ({len(policy.signature)})."
        )
    for column, (argument, kind) in zip(given, policy.signature, strict=True):
        if column.type.kind != parse_sql_type(kind).kind:
            raise SqlCompilationError(
                f"Specified column {naming.quote(column.name)} of type {column.type.sql} is not"
                f" compatible with the policy's argument {naming.quote(argument)} of type {kind}."
            )
    kind_of = MASKING if s.action == "SET_MASKING" else ROW_ACCESS
    attachment = Attachment(s.target, s.column, kind_of, tuple(c.name for c in given), policy.parts)
    policies.attach(attachment, force=s.force)
    return status(OK)


def check_declared(tables: Tables, session: Session, declared: list[PolicyStatement]) -> None:
    """CREATE TABLE's policy clauses name policies the session sees (checked before the table is
    made, so a misspelt policy leaves no unprotected table)."""
    roles = access.active_roles(tables.metastore.grants, session)
    for s in declared:
        _visible_policy(tables, roles, s.parts, s.kind)


def attach_declared(
    tables: Tables, session: Session, declared: list[PolicyStatement], ctx: SqlContext
) -> None:
    """Attaches CREATE TABLE's policies to the table just made; when one cannot be (a column or
    type that does not fit), the table goes again and the error stands."""
    roles = access.active_roles(tables.metastore.grants, session)
    try:
        for s in declared:
            _on_object(tables, roles, s, ctx)
    except Exception:
        tables.policies.detach_all(declared[0].target)
        tables.drop(TableName(*declared[0].target))
        raise


def _view_columns(tables: Tables, parts: tuple[str, str, str], ctx: SqlContext) -> dict[str, Column]:
    """A view's columns, from a plan of it (engine/query.py applies this module's rewrites)."""
    from embucket_py.engine.query import describe_query

    source = exp.Table(
        this=exp.to_identifier(parts[2], quoted=True),
        db=exp.to_identifier(parts[1], quoted=True),
        catalog=exp.to_identifier(parts[0], quoted=True),
    )
    described = describe_query(tables, exp.select("*").from_(source), ctx, None)
    return {c.name: Column(c.name, c.type) for c in described.columns}


def _column(columns: dict[str, Column], name: str) -> Column:
    if name not in columns:
        raise InvalidIdentifier(f"invalid identifier '{naming.quote(name)}'")
    return columns[name]


# --- queries ------------------------------------------------------------------------------------------


Found = dict[tuple[str, ...], list[Attachment]]


def attached(tables: Tables, parts: list[list[str]]) -> Found:
    """The attachments of the tables a query names (one metastore lookup)."""
    return tables.policies.attached([(p[0], p[1], p[2]) for p in parts])


def apply(tables: Tables, tree: exp.Expression, ctx: SqlContext, found: Found | None = None) -> None:
    """Replaces (in place) each reference to a table with policies by the subquery that applies
    them (see the module's doc). `found`: the attachments already looked up, if any."""
    references = [(t, qualify(table_parts(t), ctx, "query")) for t in stored_references(tree)]
    if found is None:
        found = attached(tables, [p for _, p in references])
    if not found:
        return
    bodies: Bodies = {}
    for table, parts in references:
        on = found.get(ref_key(parts))
        if not on:
            continue
        stored = tables.find(TableName(*parts))
        if stored is None:
            continue
        _wrap(table, parts, Tables.columns(stored), on, _policies(tables, on, bodies))


Bodies = dict[tuple[str, str, str], Policy]


def _policies(tables: Tables, on: list[Attachment], known: Bodies) -> Bodies:
    """The attached policies (added to `known`). One that is gone (its schema or database was
    dropped) fails the statement: the data it protects is never shown unprotected."""
    for a in on:
        if a.policy not in known:
            policy = tables.policies.get(a.policy)
            if policy is None:
                shown, on_object = ".".join(map(naming.quote, a.policy)), ".".join(map(naming.quote, a.ref))
                raise ObjectNotFound(
                    f"{KIND_WORDS[a.kind]} '{shown}' set on '{on_object}' does not exist or not authorized."
                )
            known[a.policy] = policy
    return known


def _wrap(
    table: exp.Table, parts: list[str], columns: list[Column], on: list[Attachment], bodies: Bodies
) -> None:
    masks = {a.column: a for a in on if a.kind == MASKING}
    row_access = next((a for a in on if a.kind == ROW_ACCESS), None)
    projections: list[exp.Expression] = []
    for column in columns:
        mask = masks.get(column.name)
        if mask is None:
            projections.append(_source_column(column.name))
            continue
        masked = exp.Cast(
            this=_body(bodies[mask.policy], mask.columns),
            to=exp.DataType.build(column.type.sql, dialect="snowflake"),
        )
        projections.append(exp.alias_(masked, exp.to_identifier(column.name, quoted=True)))
    if table.args.get("changes"):  # CHANGES (also a stream's read): its own columns go through
        projections += [_source_column(CHANGE_ACTION), _source_column(CHANGE_IS_UPDATE)]
    inner = table.copy()
    for key in ("alias", "pivots"):
        inner.set(key, None)
    inner.set("catalog", exp.to_identifier(parts[0], quoted=True))
    inner.set("db", exp.to_identifier(parts[1], quoted=True))
    inner.set("alias", exp.TableAlias(this=exp.to_identifier(_SOURCE, quoted=True)))
    select = exp.select(*projections).from_(inner)
    if row_access is not None:
        select = select.where(_body(bodies[row_access.policy], row_access.columns))
    alias = table.args.get("alias") or exp.TableAlias(
        this=exp.to_identifier(normalize(table.this), quoted=True)
    )
    subquery = exp.Subquery(this=select, alias=alias.copy())
    if table.args.get("pivots"):
        subquery.set("pivots", table.args["pivots"])
    table.replace(subquery)


def wrap_view(tables: Tables, subquery: exp.Subquery, parts: list[str]) -> None:
    """A view's policies over its inlined query (in place): `SELECT * REPLACE (<masking body> AS
    col, ...) FROM (<view query>) WHERE <row access body>`."""
    on = tables.policies.attached([(parts[0], parts[1], parts[2])]).get(ref_key(parts))
    if not on:
        return
    bodies = _policies(tables, on, {})
    masked = [
        exp.alias_(_body(bodies[a.policy], a.columns), exp.to_identifier(a.column, quoted=True))
        for a in on
        if a.kind == MASKING
    ]
    source = exp.Subquery(
        this=subquery.this, alias=exp.TableAlias(this=exp.to_identifier(_SOURCE, quoted=True))
    )
    select = exp.select(exp.Star(replace=masked) if masked else exp.Star()).from_(source)
    for a in on:
        if a.kind == ROW_ACCESS:
            select = select.where(_body(bodies[a.policy], a.columns))
    subquery.set("this", select)


def _source_column(name: str, table: str = _SOURCE) -> exp.Column:
    return exp.column(exp.to_identifier(name, quoted=True), table=exp.to_identifier(table, quoted=True))


def restrict_change(tables: Tables, change: RowChange) -> RowChange:
    """UPDATE, DELETE and MERGE act only on the target rows its row access policy shows the role
    (to MERGE, the others are rows that do not match)."""
    found = tables.policies.attached([(change.parts[0], change.parts[1], change.parts[2])])
    row_access = next((a for a in found.get(ref_key(change.parts), []) if a.kind == ROW_ACCESS), None)
    if row_access is None:
        return change
    policy = _policies(tables, [row_access], {})[row_access.policy]
    return replace(change, visible=_body(policy, row_access.columns, change.alias))


def _body(policy: Policy, columns: tuple[str, ...], table: str = _SOURCE) -> exp.Expression:
    """The policy's body with its arguments bound to the columns of `table`, its own names
    qualified in the policy's schema."""
    body = parse(f"SELECT {policy.body}")[0].expressions[0]
    for inner in stored_references(body):
        database, schema, _ = qualify(table_parts(inner), SqlContext(policy.database, policy.schema), "query")
        inner.set("catalog", exp.to_identifier(database, quoted=True))
        inner.set("db", exp.to_identifier(schema, quoted=True))
    bound = {argument: column for (argument, _), column in zip(policy.signature, columns, strict=False)}
    for node in list(body.find_all(exp.Column)):
        if not node.table and isinstance(node.this, exp.Identifier) and normalize(node.this) in bound:
            node.replace(_source_column(bound[normalize(node.this)], table))
    for node in list(body.find_all(exp.Anonymous)):
        if node.name.upper() == "INVOKER_ROLE" and not node.expressions:
            node.replace(exp.Anonymous(this="CURRENT_ROLE"))  # the querying role, outside views
    return body.unalias() if isinstance(body, exp.Alias) else body


# https://docs.snowflake.com/en/sql-reference/functions/policy_references#output
REFERENCE_COLUMNS = [
    *[(n, TEXT) for n in ("POLICY_DB", "POLICY_SCHEMA", "POLICY_NAME", "POLICY_KIND")],
    *[(n, TEXT) for n in ("REF_DATABASE_NAME", "REF_SCHEMA_NAME", "REF_ENTITY_NAME", "REF_ENTITY_DOMAIN")],
    *[(n, TEXT) for n in ("REF_COLUMN_NAME", "REF_ARG_COLUMN_NAMES", "TAG_DATABASE", "TAG_SCHEMA")],
    *[(n, TEXT) for n in ("TAG_NAME", "POLICY_STATUS")],
]


def references_table(tables: Tables, policy: str, entity: str, domain: str, ctx: SqlContext) -> pa.Table:
    """INFORMATION_SCHEMA.POLICY_REFERENCES(POLICY_NAME => ... | REF_ENTITY_NAME => ...,
    REF_ENTITY_DOMAIN => 'table'): where a policy is attached, or a table's policies; only those
    on tables the statement's roles see."""
    grants = tables.metastore.grants
    roles = access.context_roles(grants, ctx)
    if policy:
        found = tables.policies.references(name_parts(policy, ctx))
    else:
        if domain and domain.upper() not in ("TABLE", "VIEW"):
            raise SqlCompilationError(f"Invalid REF_ENTITY_DOMAIN '{domain}'.")
        target = name_parts(entity, ctx)
        found = tables.policies.attached([target]).get(ref_key(target), [])
    rows = []
    for a in found:
        domain = "VIEW" if tables.views.get(*a.ref) is not None else "TABLE"
        if access.visible(grants, roles, Securable(domain, *a.ref)):
            rows.append(_reference_row(a, domain))
    schema = pa.schema([arrow_field(naming.stored(n), t) for n, t in REFERENCE_COLUMNS])
    return pa.Table.from_pylist([dict(zip(schema.names, r, strict=True)) for r in rows], schema=schema)


def _reference_row(a: Attachment, domain: str) -> tuple[object, ...]:
    # REF_ARG_COLUMN_NAMES: a conditional masking policy's other columns, a row access policy's columns.
    arguments = a.columns[1:] if a.kind == MASKING else a.columns
    listed = json.dumps(list(arguments)) if arguments else None
    return (*a.policy, a.kind, *a.ref, domain, a.column or None, listed, None, None, None, "ACTIVE")

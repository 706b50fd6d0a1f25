"""Masking and row access policies: their statements, and how a query reading a table or view
with policies sees it (the tree rewrites are sql/policy_rewrites.py).

A masked column is masked wherever the query uses it (projections, filters, joins, aggregates),
the row access policy sees the stored values, and the body's context functions (CURRENT_ROLE(),
IS_ROLE_IN_SESSION(...)) become the session's values at translation, as every query's do. The
tables a body reads (mapping tables) are read with the policy owner's rights: no privilege of
the querying role is checked on them, as on Snowflake.
https://docs.snowflake.com/en/user-guide/security-column-ddm-use
https://docs.snowflake.com/en/user-guide/security-row-using
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from functools import cache, partial

import pyarrow as pa
from sqlglot import exp

from embucket_py import naming
from embucket_py.catalog.grants import ACCOUNT, Securable
from embucket_py.catalog.policies import KIND_WORDS, MASKING, ROW_ACCESS, Attachment, Policy, ref_key
from embucket_py.catalog.tables import Column, TableName, Tables
from embucket_py.catalog.tags import TagValue
from embucket_py.engine import access, tags
from embucket_py.engine.metadata_columns import DESCRIBED_POLICY, POLICIES, TEXT
from embucket_py.engine.result import OK, QueryResult, StatementType, constant, status
from embucket_py.errors import InvalidIdentifier, ObjectNotFound, SqlCompilationError, object_not_found
from embucket_py.sessions.session import Session
from embucket_py.sql import policy_rewrites as rewrites
from embucket_py.sql.changes import RowChange
from embucket_py.sql.context import SqlContext
from embucket_py.sql.names import like_matches, qualify, table_parts
from embucket_py.sql.nodes import Nodes
from embucket_py.sql.policies import PolicyStatement, object_parts
from embucket_py.sql.policy_rewrites import Applied
from embucket_py.sql.tags import asks_current_tags
from embucket_py.sql.transforms.tables import stored_references
from embucket_py.types import arrow_field, parse_sql_type

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
        rewrites.check_body(made.body)
        if s.replace and not s.if_exists:
            _refuse_on_tags(tables, s.parts)
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
        _refuse_on_tags(tables, s.parts)
        policies.drop(s.parts)
        return status(f"{naming.quote(name)} successfully dropped.")
    rename = s.changes.get("rename")
    if isinstance(rename, tuple):
        _require_create(tables, roles, s.kind, Securable("SCHEMA", rename[0], rename[1]))
        policies.rename(s.parts, rename, s.kind)
        tables.tags.rename_policy(s.parts, rename)
        return status(OK)
    if "body" in s.changes:
        rewrites.check_body(str(s.changes["body"]))
    policies.alter(s.parts, **s.changes)
    return status(OK)


def _refuse_on_tags(tables: Tables, parts: tuple[str, str, str]) -> None:
    if tables.tags.tags_of_policy(parts):
        raise SqlCompilationError(
            f"Policy {naming.quote(parts[2])} cannot be dropped/replaced as it is associated with"
            " one or more tags."
        )


def _require_create(tables: Tables, roles: set[str], kind: str, on_schema: Securable) -> None:
    # Policies have no grants of their own here: the schema's CREATE privilege stands for them.
    privilege = "CREATE MASKING POLICY" if kind == MASKING else "CREATE ROW ACCESS POLICY"
    access.require(tables.metastore.grants, roles, access.Need(privilege, on_schema))


def _visible_policy(tables: Tables, roles: set[str], parts: tuple[str, str, str], kind: str) -> Policy:
    found = None
    if access.visible(tables.metastore.grants, roles, Securable("SCHEMA", parts[0], parts[1])):
        found = tables.policies.get(parts, kind)
    if found is None:
        raise object_not_found(KIND_WORDS[kind], ".".join(map(naming.quote, parts)))
    return found


def _show(tables: Tables, roles: set[str], s: PolicyStatement) -> QueryResult:
    rows = []
    for p in tables.policies.list(s.kind, access.visible_schemas(tables.metastore, roles, s.scope)):
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
        columns = view_columns(tables, s.target, ctx)
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


def view_columns(tables: Tables, parts: tuple[str, str, str], ctx: SqlContext) -> dict[str, Column]:
    """A view's columns, from a plan of it (engine/query.py applies this module's rewrites, and
    engine/tags.py checks columns with this)."""
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


def attached(tables: Tables, refs: list[list[str]]) -> Found:
    """The policies on each of the tables (by ref_key): their own, and the masking policies their
    tags bring to columns without one of their own."""
    found = tables.policies.attached(refs)
    for key, by_tags in tags.masking_attachments(tables, refs).items():
        own = {a.column for a in found.get(key, []) if a.kind == MASKING}
        found.setdefault(key, []).extend(a for a in by_tags if a.column not in own)
    return found


def apply(tables: Tables, tree: exp.Expression, ctx: SqlContext, found: Found | None = None) -> None:
    """Replaces (in place) each reference to a table with policies by the subquery that applies
    them (see the module's doc). `found`: the attachments already looked up, if any."""
    references = [(t, qualify(table_parts(t), ctx, "query")) for t in stored_references(Nodes(tree))]
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
        _policies(tables, on, bodies)
        row_access = next((_applied(a, bodies) for a in on if a.kind == ROW_ACCESS), None)
        columns = [(c.name, c.type.sql) for c in Tables.columns(stored)]
        lineage = cache(partial(tables.tags.lineage, tuple(parts)))
        rewrites.wrap_table(table, parts, columns, _masks(on, bodies, lineage), row_access)


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


def _applied(a: Attachment, bodies: Bodies, lineage: Callable[[], list[TagValue]] | None = None) -> Applied:
    """A policy as applied to its columns; with the table's tag `lineage`, its body's
    SYSTEM$GET_TAG_ON_CURRENT_COLUMN / _TABLE calls become the masked column's tag values."""
    policy = bodies[a.policy]
    arguments = tuple(argument for argument, _ in policy.signature)
    body = policy.body
    if lineage is not None and asks_current_tags(body):
        body = tags.with_current_tags(body, lineage(), a.column, (policy.database, policy.schema))
    return Applied(body, arguments, (policy.database, policy.schema), a.columns)


def _masks(
    on: list[Attachment], bodies: Bodies, lineage: Callable[[], list[TagValue]] | None = None
) -> dict[str, Applied]:
    return {a.column: _applied(a, bodies, lineage) for a in on if a.kind == MASKING}


def wrap_view(tables: Tables, subquery: exp.Subquery, parts: list[str]) -> None:
    """A view's policies over its inlined query (in place; see sql/policy_rewrites.py)."""
    on = tables.policies.attached_to(parts)
    if not on:
        return
    bodies = _policies(tables, on, {})
    row_access = [_applied(a, bodies) for a in on if a.kind == ROW_ACCESS]
    rewrites.wrap_view(subquery, _masks(on, bodies), row_access)


def restrict_change(tables: Tables, change: RowChange) -> RowChange:
    """UPDATE, DELETE and MERGE act only on the target rows its row access policy shows the role
    (to MERGE, the others are rows that do not match)."""
    row_access = next((a for a in tables.policies.attached_to(change.parts) if a.kind == ROW_ACCESS), None)
    if row_access is None:
        return change
    applied = _applied(row_access, _policies(tables, [row_access], {}))
    return replace(change, visible=rewrites.bound_body(applied, change.alias))


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
        found = tables.policies.references(object_parts(policy, ctx))
    else:
        if domain and domain.upper() not in ("TABLE", "VIEW"):
            raise SqlCompilationError(f"Invalid REF_ENTITY_DOMAIN '{domain}'.")
        target = object_parts(entity, ctx)
        found = attached(tables, [list(target)]).get(ref_key(target), [])
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
    return (*a.policy, a.kind, *a.ref, domain, a.column or None, listed, *(a.tag or (None,) * 3), "ACTIVE")

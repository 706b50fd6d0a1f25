"""Object tags: their statements, SYSTEM$GET_TAG, INFORMATION_SCHEMA.TAG_REFERENCES and
TAG_REFERENCES_ALL_COLUMNS, and the masking policies tags bring to the columns they are on
(catalog/tags.py keeps them; engine/policies.py applies the masks).
https://docs.snowflake.com/en/user-guide/object-tagging/introduction
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pyarrow as pa
from sqlglot import exp

from embucket_py import naming
from embucket_py.catalog.dropped import dropped_of
from embucket_py.catalog.grants import ACCOUNT, Securable
from embucket_py.catalog.policies import MASKING, Attachment, Policy, ref_key
from embucket_py.catalog.tables import Column, TableName, Tables
from embucket_py.catalog.tags import LEVELS, Tag, TagValue
from embucket_py.engine import access
from embucket_py.engine.metadata_columns import TEXT, TIMESTAMP_LTZ
from embucket_py.engine.result import OK, QueryResult, StatementType, constant, status
from embucket_py.errors import (
    InvalidIdentifier,
    ObjectNotFound,
    SqlCompilationError,
    object_not_found,
)
from embucket_py.sessions.session import Session
from embucket_py.sql.context import SqlContext
from embucket_py.sql.names import first_start, like_matches
from embucket_py.sql.nodes import Nodes
from embucket_py.sql.tags import TagStatement, object_named, replace_current_tags, tag_parts
from embucket_py.types import arrow_field, parse_sql_type

Parts = tuple[str, str, str]
# https://docs.snowflake.com/en/sql-reference/sql/show-tags#output
SHOWN = [
    ("created_on", TIMESTAMP_LTZ),
    *[(n, TEXT) for n in ("name", "database_name", "schema_name", "owner", "comment", "allowed_values")],
    ("owner_role_type", TEXT),
]
# Snowflake's limits: a value's length, allowed values of one tag.
MAX_VALUE_LENGTH = 256
MAX_ALLOWED_VALUES = 300


def _shown(parts: tuple[str, ...]) -> str:
    return ".".join(naming.quote(p) for p in parts if p)


# --- statements -------------------------------------------------------------------------------------


def run(tables: Tables, session: Session, s: TagStatement, ctx: SqlContext) -> QueryResult:
    roles = access.active_roles(tables.metastore.grants, session)
    if s.action == "SHOW":
        return _show(tables, roles, s)
    if s.action in ("SET", "UNSET"):
        return _on_object(tables, roles, s, ctx)
    return _on_tag(tables, roles, s)


def _on_tag(tables: Tables, roles: set[str], s: TagStatement) -> QueryResult:
    database, schema, name = s.parts
    on_schema = Securable("SCHEMA", database, schema)
    access.require(tables.metastore.grants, roles, access.Need("CREATE TAG", on_schema))
    tags = tables.tags
    if s.action == "CREATE":
        _check_allowed(s.allowed_values or ())
        if s.or_alter and tags.get(s.parts) is not None:  # the tag becomes the one written
            tags.set_allowed(s.parts, s.allowed_values)
            tags.set_comment(s.parts, s.comment)
            return status(OK)
        owner = tables.metastore.grants.owner(on_schema)
        made = Tag(database, schema, name, s.allowed_values, s.comment, owner)
        if not tags.create(made, replace=s.replace, if_not_exists=s.if_exists):
            return status(f"{naming.quote(name)} already exists, statement succeeded.")
        return status(f"Tag {naming.quote(name)} successfully created.")
    existing = tags.get(s.parts)
    if existing is None:
        if s.if_exists:
            return status(
                OK
                if s.action == "ALTER"
                else f"Drop statement executed successfully ({naming.quote(name)} already dropped)."
            )
        raise object_not_found("Tag", _shown(s.parts))
    if s.action == "DROP":
        tags.check_droppable(s.parts)
        dropped_of(tables.metastore).remember_tag(*s.parts)
        return status(f"{naming.quote(name)} successfully dropped.")
    changes = s.changes
    if isinstance(rename := changes.get("rename"), tuple):
        access.require(
            tables.metastore.grants, roles, access.Need("CREATE TAG", Securable("SCHEMA", *rename[:2]))
        )
        tags.rename(s.parts, rename)
    elif "comment" in changes:
        tags.set_comment(s.parts, changes["comment"])  # type: ignore[arg-type]
    elif "unset_values" in changes:
        tags.set_allowed(s.parts, None)
    elif isinstance(added := changes.get("add_values"), tuple):
        allowed = existing.allowed_values or ()
        allowed += tuple(v for v in added if v not in allowed)
        _check_allowed(allowed)
        tags.set_allowed(s.parts, allowed)
    elif isinstance(dropped := changes.get("drop_values"), tuple) and existing.allowed_values is not None:
        tags.set_allowed(s.parts, tuple(v for v in existing.allowed_values if v not in dropped))
    elif isinstance(named := changes.get("set_policies"), tuple):
        _set_policies(tables, roles, existing, named, force=bool(changes.get("force")))
    elif isinstance(named := changes.get("unset_policies"), tuple):
        for policy in named:
            if not tags.unset_policy(s.parts, policy):
                raise SqlCompilationError(
                    f"Masking policy {_shown(policy)} is not set on tag {naming.quote(name)}."
                )
    return status(OK)


def _check_allowed(allowed: tuple[str, ...]) -> None:
    if len(allowed) > MAX_ALLOWED_VALUES:
        raise SqlCompilationError(f"A tag may have at most {MAX_ALLOWED_VALUES} allowed values.")
    for value in allowed:
        _check_length(value)


def _check_length(value: str) -> None:
    if len(value) > MAX_VALUE_LENGTH:
        raise SqlCompilationError(
            f"Tag value is too long: at most {MAX_VALUE_LENGTH} characters are allowed."
        )


def _set_policies(tables: Tables, roles: set[str], tag: Tag, named: tuple[Parts, ...], force: bool) -> None:
    """A tag takes at most one masking policy for each data type (FORCE replaces it). The tag's
    owner sets them, or a role that may apply masking policies anywhere."""
    grants = tables.metastore.grants
    if tag.owner not in roles:
        access.require(grants, roles, access.Need("APPLY MASKING POLICY", ACCOUNT))
    held = {p: tables.policies.get(p, MASKING) for p in tables.tags.policies().get(tag.parts, [])}
    for parts in named:
        policy = None
        if access.visible(grants, roles, Securable("SCHEMA", parts[0], parts[1])):
            policy = tables.policies.get(parts, MASKING)
        if policy is None:
            raise object_not_found("Masking policy", _shown(parts))
        kind = _argument_kind(policy)
        for other, held_policy in list(held.items()):
            if held_policy is not None and _argument_kind(held_policy) == kind:
                if not force:
                    raise SqlCompilationError(
                        f"Tag {naming.quote(tag.name)} already has a masking policy for data type {kind}."
                        " A tag can have only one masking policy for each data type."
                    )
                tables.tags.unset_policy(tag.parts, other)
                del held[other]
        tables.tags.set_policy(tag.parts, policy.parts)
        held[policy.parts] = policy


def _argument_kind(policy: Policy) -> str:
    return parse_sql_type(policy.signature[0][1]).kind


def _show(tables: Tables, roles: set[str], s: TagStatement) -> QueryResult:
    rows = []
    for t in tables.tags.list(access.visible_schemas(tables.metastore, roles, s.scope)):
        if s.like is not None and not like_matches(s.like, t.name):
            continue
        created = t.created_on or datetime.now(UTC)
        created = created if created.tzinfo else created.replace(tzinfo=UTC)
        allowed = (
            None if t.allowed_values is None else json.dumps(list(t.allowed_values), separators=(",", ":"))
        )
        rows.append((created, t.name, t.database, t.schema, t.owner, t.comment or "", allowed, "ROLE"))
    return constant(SHOWN, rows, StatementType.SHOW)


def _on_object(tables: Tables, roles: set[str], s: TagStatement, ctx: SqlContext) -> QueryResult:
    grants = tables.metastore.grants
    kind = s.target_kind
    if kind == "DATABASE":
        found = tables.metastore.database_exists(s.target[0])
        securable = Securable("DATABASE", s.target[0])
    elif kind == "SCHEMA":
        found = tables.metastore.schema_exists(s.target[0], s.target[1])
        securable = Securable("SCHEMA", s.target[0], s.target[1])
    else:
        is_table = tables.find(TableName(*s.target)) is not None
        found = is_table or tables.views.get(*s.target) is not None
        securable = Securable("TABLE" if is_table else "VIEW", *s.target)
    if not found or not access.visible(grants, roles, securable):
        if s.if_exists:
            return status(OK)
        noun = "Object" if kind in ("TABLE", "VIEW", "COLUMN") else kind.capitalize()
        raise object_not_found(noun, _shown(s.target))
    # The object's owner sets its tags, or a role that may set them anywhere.
    if not grants.allows(roles, "APPLY TAG", ACCOUNT):
        access.require(grants, roles, access.Need("OWNERSHIP", securable))
    if kind == "COLUMN" and s.column not in _columns(tables, s.target, ctx):
        raise InvalidIdentifier(f"invalid identifier '{naming.quote(s.column)}'")
    domain = "TABLE" if kind == "VIEW" else kind
    for parts, value in s.values:
        tag = _visible_tag(tables, roles, parts)
        if s.action == "UNSET":
            tables.tags.unset_value(parts, domain, s.target, s.column)
            continue
        _check_length(value)
        if tag.allowed_values is not None and value not in tag.allowed_values:
            raise SqlCompilationError(
                f"Tag {naming.quote(tag.name)} does not allow the value '{value}'; allowed values:"
                f" {', '.join(repr(v) for v in tag.allowed_values) or 'none'}."
            )
        tables.tags.set_value(TagValue(tag.parts, domain, s.target, s.column, value))
    return status(OK)


def _visible_tag(tables: Tables, roles: set[str], parts: Parts) -> Tag:
    found = None
    if access.visible(tables.metastore.grants, roles, Securable("SCHEMA", parts[0], parts[1])):
        found = tables.tags.get(parts)
    if found is None:
        raise object_not_found("Tag", _shown(parts))
    return found


def _columns(tables: Tables, parts: Parts, ctx: SqlContext) -> dict[str, Column]:
    table = tables.find(TableName(*parts))
    if table is not None:
        return {c.name: c for c in Tables.columns(table)}
    from embucket_py.engine.policies import view_columns  # engine/policies.py imports this module

    return view_columns(tables, parts, ctx)


def check_declared(tables: Tables, session: Session, declared: list[TagStatement]) -> None:
    """CREATE TABLE's WITH TAG clauses name tags the session sees, with allowed values (checked
    before the table is made)."""
    roles = access.active_roles(tables.metastore.grants, session)
    for s in declared:
        for parts, value in s.values:
            tag = _visible_tag(tables, roles, parts)
            if tag.allowed_values is not None and value not in tag.allowed_values:
                raise SqlCompilationError(f"Tag {naming.quote(tag.name)} does not allow the value '{value}'.")


def set_declared(
    tables: Tables, session: Session, declared: list[TagStatement], ctx: SqlContext, undo: bool = True
) -> None:
    """Sets a CREATE statement's tags on the object just made (or ALTER TABLE's on the columns it
    added, `undo` False); when one cannot be (a column the table lacks), a table made goes again
    and the error stands."""
    roles = access.active_roles(tables.metastore.grants, session)
    try:
        for s in declared:
            _on_object(tables, roles, s, ctx)
    except Exception:
        made = TableName(*declared[0].target)
        if undo and declared[0].target_kind in ("TABLE", "COLUMN") and tables.find(made) is not None:
            tables.drop(made)
        raise


# --- SYSTEM$GET_TAG --------------------------------------------------------------------------------

_GET_TAG = "SYSTEM$GET_TAG"


def has_calls(nodes: Nodes) -> bool:
    return any(node.name.upper() == _GET_TAG for node in nodes.of(exp.Anonymous))


def replace_calls(tables: Tables, tree: exp.Expression, ctx: SqlContext) -> exp.Expression:
    """SYSTEM$GET_TAG('tag', 'object', 'domain') -> the value set on the object itself (not
    inherited), or NULL. Changes `tree` in place."""

    def replace(node: exp.Expression) -> exp.Expression:
        if not isinstance(node, exp.Anonymous) or node.name.upper() != _GET_TAG:
            return node
        args = node.expressions
        if len(args) != 3 or not all(isinstance(a, exp.Literal) and a.is_string for a in args):
            raise SqlCompilationError(f"{_GET_TAG} takes the tag's name, the object's name and its domain.")
        tag = tag_parts(args[0].name, ctx)
        domain, ref, column = object_named(args[1].name, args[2].name, ctx)
        if not access.sees(tables, Securable("SCHEMA", tag[0], tag[1])) or tables.tags.get(tag) is None:
            raise object_not_found("Tag", _shown(tag))
        # The object is one the role sees (tables and views share one namespace of grants).
        kind = {"COLUMN": "TABLE"}.get(domain, domain)
        if not access.sees(tables, Securable(kind, *ref[: {"DATABASE": 1, "SCHEMA": 2}.get(kind, 3)])):
            raise object_not_found("Object", _shown(ref))
        value = tables.tags.direct(tag, domain, ref, column)
        found = exp.Null() if value is None else exp.Literal.string(value)
        # The call's position stays: an unnamed projection is named after the call's text.
        found.meta["start"] = first_start(node)
        return found

    return tree.transform(replace, copy=False)


# --- TAG_REFERENCES ---------------------------------------------------------------------------------

# https://docs.snowflake.com/en/sql-reference/functions/tag_references#output
REFERENCE_COLUMNS = [
    (n, TEXT)
    for n in (
        "TAG_DATABASE", "TAG_SCHEMA", "TAG_NAME", "TAG_VALUE", "APPLY_METHOD", "LEVEL",
        "OBJECT_DATABASE", "OBJECT_SCHEMA", "OBJECT_NAME", "DOMAIN", "COLUMN_NAME",
    )
]  # fmt: skip


def effective(values: list[TagValue], column: str = "") -> dict[Parts, TagValue]:
    """Each tag's value on a table (or one of its columns) from its lineage: the value set
    nearest the object wins (column, then table, schema, database)."""
    nearest: dict[Parts, TagValue] = {}
    for level in LEVELS:
        for v in values:
            if v.domain == level and (level != "COLUMN" or v.column == column):
                nearest[v.tag] = v
    return nearest


def references_table(tables: Tables, name: str, domain: str, all_columns: bool, ctx: SqlContext) -> pa.Table:
    """INFORMATION_SCHEMA.TAG_REFERENCES('object', 'domain') and TAG_REFERENCES_ALL_COLUMNS('table',
    'table'): the tags on an object, inherited ones with the LEVEL they are set at."""
    level, ref, column = object_named(name, domain, ctx)
    if all_columns and level != "TABLE":
        raise SqlCompilationError("TAG_REFERENCES_ALL_COLUMNS takes a table and the domain 'table'.")
    grants = tables.metastore.grants
    roles = access.context_roles(grants, ctx)
    if level in ("TABLE", "COLUMN"):
        is_view = tables.find(TableName(*ref)) is None
        securable = Securable("VIEW" if is_view else "TABLE", *ref)
        if (is_view and tables.views.get(*ref) is None) or not access.visible(grants, roles, securable):
            raise object_not_found("Table", _shown(ref))
        lineage = tables.tags.lineage(ref)
    else:
        lineage = [
            v for v in tables.tags.lineage((*ref[:2], "")) if LEVELS.index(v.domain) <= LEVELS.index(level)
        ]
    columns = list(_columns(tables, ref, ctx)) if all_columns else [column]
    # A database is the object's name alone; a schema its database's and its own.
    shown_ref = {"DATABASE": (None, None, ref[0]), "SCHEMA": (ref[0], None, ref[1])}.get(level, ref)
    domain = "COLUMN" if all_columns else level
    rows = []
    for col in columns:
        for tag, v in sorted(effective(lineage, col).items()):
            method = "MANUAL" if v.domain == domain else "INHERITED"
            rows.append((*tag, v.value, method, v.domain, *shown_ref, domain, col or None))
    schema = pa.schema([arrow_field(naming.stored(n), t) for n, t in REFERENCE_COLUMNS])
    return pa.Table.from_pylist([dict(zip(schema.names, r, strict=True)) for r in rows], schema=schema)


# --- masking by tags ------------------------------------------------------------------------------------


def masking_attachments(tables: Tables, refs: list[list[str]]) -> dict[tuple[str, ...], list[Attachment]]:
    """The masking policies the tables' tags bring to their columns (by policies.ref_key): for
    each column, the first of its tags (by name) with a one-argument policy for the column's type.
    None without tables, one lookup when no tag has a masking policy (the usual case).

    Raises:
        ObjectNotFound: a tag's policy is gone (its schema was dropped): the data it protects is
            never shown unprotected.
    """
    tag_policies = tables.tags.policies() if refs else None
    if not tag_policies:
        return {}
    found: dict[tuple[str, ...], list[Attachment]] = {}
    for ref in {(r[0], r[1], r[2]) for r in refs}:
        lineage = [v for v in tables.tags.lineage(ref) if v.tag in tag_policies]
        stored = tables.find(TableName(*ref)) if lineage else None
        if stored is None:
            continue
        for column in Tables.columns(stored):
            for tag in sorted(effective(lineage, column.name)):
                policy = next(
                    (p for p in _policies_of(tables, tag, tag_policies[tag]) if _masks(p, column)), None
                )
                if policy is not None:
                    attachment = Attachment(ref, column.name, MASKING, (column.name,), policy.parts, tag)
                    found.setdefault(ref_key(ref), []).append(attachment)
                    break
    return found


def _policies_of(tables: Tables, tag: Parts, named: list[Parts]) -> list[Policy]:
    policies = []
    for parts in named:
        policy = tables.policies.get(parts, MASKING)
        if policy is None:
            raise ObjectNotFound(
                f"Masking policy '{_shown(parts)}' set on tag '{_shown(tag)}' does not exist or not"
                " authorized."
            )
        policies.append(policy)
    return policies


def _masks(policy: Policy, column: Column) -> bool:
    return len(policy.signature) == 1 and _argument_kind(policy) == column.type.kind


def with_current_tags(body: str, lineage: list[TagValue], column: str, policy_schema: tuple[str, str]) -> str:
    """A policy body with SYSTEM$GET_TAG_ON_CURRENT_COLUMN('tag') and ..._TABLE('tag') replaced by
    the tag's value on the column (or its table) being masked, or NULL."""

    def value(tag: Parts, on_column: bool) -> str | None:
        values = effective(
            [v for v in lineage if on_column or v.domain != "COLUMN"], column if on_column else ""
        )
        found = values.get(tag)
        return None if found is None else found.value

    return replace_current_tags(body, value, SqlContext(*policy_schema))

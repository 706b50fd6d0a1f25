"""Access control on SQL statements: what a statement needs, checked before it runs, and the
ownership a statement's new objects get after it ran.

A statement's needs come from its parse tree: every table or view it reads (SELECT), the target it
writes (INSERT, UPDATE, DELETE, TRUNCATE; MERGE per clause), the container it creates in
(CREATE TABLE / CREATE VIEW on the schema, CREATE SCHEMA on the database, CREATE DATABASE on the
account) and the object it changes or drops (OWNERSHIP); any object also needs USAGE on its
database and schema. A view is checked as itself: its owner's rights cover what it reads, as on
Snowflake. A role that holds nothing on an object does not see it ("does not exist or not
authorized"); one that sees it but lacks the privilege gets 003001 "Insufficient privileges".
https://docs.snowflake.com/en/user-guide/security-access-control-privileges
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sqlglot import exp

from embucket_py import naming
from embucket_py.catalog.grants import ACCOUNT, ACCOUNTADMIN, Grants, Securable
from embucket_py.catalog.metastore import Metastore
from embucket_py.catalog.tables import TableName
from embucket_py.engine import history, transactions
from embucket_py.errors import AccessDenied, SqlCompilationError, object_not_found
from embucket_py.sessions.session import Session
from embucket_py.sql import names
from embucket_py.sql.context import SqlContext

_WRITES = {exp.Insert: "INSERT", exp.Update: "UPDATE", exp.Delete: "DELETE"}
_CREATES = {"TABLE": "CREATE TABLE", "VIEW": "CREATE VIEW", "SCHEMA": "CREATE SCHEMA"}
_OBJECT_KINDS = ("TABLE", "VIEW", "DYNAMIC TABLE", "ICEBERG TABLE", "MATERIALIZED VIEW")
# INFORMATION_SCHEMA lists only what the role sees; history sources hold the user's own queries.
_SKIPPED_SCHEMAS = {"INFORMATION_SCHEMA", history.SOURCE_SCHEMA}


Exists = Callable[[Securable], bool]  # does the object exist (DROP ... IF EXISTS)
ObjectOf = Callable[[exp.Table], Securable | None]


@dataclass(frozen=True)
class Need:
    privilege: str  # "ANY": any privilege at all (the object must be visible)
    on: Securable


def active_roles(grants: Grants, session: Session) -> set[str]:
    """The session's primary role, its inherited roles and, with USE SECONDARY ROLES ALL, every
    role granted to the user."""
    roles = [session.role]
    if session.secondary_roles:
        roles += grants.user_roles(session.user)
    return grants.effective_roles(roles)


def context_roles(grants: Grants, ctx: SqlContext) -> set[str]:
    """The roles a statement acts with, from its context (where no session is at hand)."""
    return grants.effective_roles([str(ctx.values.get("CURRENT_ROLE") or "PUBLIC")])


def check(grants: Grants, session: Session, tree: exp.Expression, ctx: SqlContext, exists: Exists) -> None:
    """Raises the Snowflake error for the first need of the statement the session's roles lack."""
    needs = statement_needs(tree, ctx, session, exists)
    if not needs:
        return
    roles = active_roles(grants, session)
    for need in needs:
        require(grants, roles, need)


def require(grants: Grants, roles: set[str], need: Need) -> None:
    on = need.on
    if on.kind == "ACCOUNT":
        if not grants.allows(roles, need.privilege, ACCOUNT):
            raise AccessDenied(f"Insufficient privileges to operate on account ({need.privilege})")
        return
    database = Securable("DATABASE", on.database)
    if on.kind != "DATABASE" and not grants.allows(roles, "USAGE", database):
        raise object_not_found("Database", naming.quote(on.database))
    schema = Securable("SCHEMA", on.database, on.schema)
    if on.kind not in ("DATABASE", "SCHEMA") and not grants.allows(roles, "USAGE", schema):
        raise object_not_found("Schema", f"{naming.quote(on.database)}.{naming.quote(on.schema)}")
    held = grants.privileges(roles, on)
    if not held:
        raise object_not_found(_kind_word(on.kind), _shown(on))
    if need.privilege != "ANY" and "OWNERSHIP" not in held and need.privilege not in held:
        last = on.name.removeprefix("@") or on.schema or on.database
        raise AccessDenied(f"Insufficient privileges to operate on {on.kind.lower()} '{last}'")


def visible(grants: Grants, roles: set[str], on: Securable) -> bool:
    """Whether the roles see the object at all (what SHOW lists)."""
    if on.kind != "DATABASE" and not grants.allows(roles, "USAGE", Securable("DATABASE", on.database)):
        return False
    if on.kind not in ("DATABASE", "SCHEMA") and not grants.allows(
        roles, "USAGE", Securable("SCHEMA", on.database, on.schema)
    ):
        return False
    return bool(grants.privileges(roles, on))


def visible_schemas(metastore: Metastore, roles: set[str], scope: list[str]) -> list[tuple[str, str]]:
    """The (database, schema) pairs of a SHOW ... IN scope that the roles see."""
    return [
        (database, schema)
        for database, schema in metastore.schemas_in_scope(scope)
        if visible(metastore.grants, roles, Securable("SCHEMA", database, schema))
    ]


def sees(tables: object, on: Securable) -> bool:
    """Whether the session behind a statement's tables sees the object (for functions such as
    GET_DDL that name objects in strings, out of the parse tree's sight)."""
    session = getattr(tables, "session", None)  # the session's view of the tables, when it has one
    if session is None:
        return True
    grants = tables.metastore.grants  # type: ignore[attr-defined]
    return visible(grants, active_roles(grants, session), on)


def statement_needs(tree: exp.Expression, ctx: SqlContext, session: Session, exists: Exists) -> list[Need]:
    needs: list[Need] = []
    targets: set[int] = set()  # ids of the Table nodes that are written, created or dropped

    def obj(table: exp.Table, kind: str = "TABLE") -> Securable | None:
        if not isinstance(table.this, exp.Identifier) or table.name.startswith(("@", "%")):
            return None  # a table function or a stage
        parts = names.qualify(names.table_parts(table), ctx)
        if parts[1] in _SKIPPED_SCHEMAS or transactions.key(TableName(*parts)) in session.temporary:
            return None  # TEMPORARY tables are the session's own
        return Securable(kind, *parts)

    def target(node: exp.Expression | None) -> exp.Table | None:
        while isinstance(node, exp.Schema):
            node = node.this
        if isinstance(node, exp.Table):
            targets.add(id(node))
            return node
        return None

    def add(privilege: str, table: exp.Table | None, kind: str = "TABLE") -> None:
        if table is not None and (on := obj(table, kind)) is not None:
            needs.append(Need(privilege, on))

    if isinstance(tree, exp.Insert):
        written = target(tree.this)
        add("INSERT", written)
        if tree.args.get("overwrite"):
            add("DELETE", written)
    elif isinstance(tree, exp.Update | exp.Delete):
        add(_WRITES[type(tree)], target(tree.this))
    elif isinstance(tree, exp.Merge):
        written = target(tree.this)
        for when in tree.find_all(exp.When):
            then = when.args.get("then")
            add(
                "INSERT"
                if isinstance(then, exp.Insert)
                else "UPDATE"
                if isinstance(then, exp.Update)
                else "DELETE",
                written,
            )
    elif isinstance(tree, exp.TruncateTable):
        for table in tree.expressions:
            add("TRUNCATE", target(table))
    elif isinstance(tree, exp.Copy) and not tree.this.name.startswith("@"):
        add("INSERT", target(tree.this))
    elif isinstance(tree, exp.Create):
        needs += _create_needs(tree, ctx, target(tree.this), obj)
        clone = tree.args.get("clone")
        kind = str(tree.args.get("kind") or "").upper()
        if clone is not None and kind in ("SCHEMA", "DATABASE"):
            source = target(clone.this)  # a container to use, not a table read
            if source is not None:
                needs.append(
                    Need("USAGE", _schema_of(source, ctx) if kind == "SCHEMA" else _database_of(source))
                )
    elif isinstance(tree, exp.Drop | exp.Undrop):
        for dropped in tree.args.get("tables") or [tree.this]:
            needs += _drop_needs(tree, ctx, target(dropped), obj, exists)
    elif isinstance(tree, exp.Alter):
        kind = str(tree.args.get("kind") or "").upper()
        if kind in _OBJECT_KINDS:
            add("OWNERSHIP", target(tree.this), "TABLE")
            for swap in tree.find_all(exp.SwapTable):
                add("OWNERSHIP", target(swap.this))
            for rename in tree.find_all(exp.AlterRename):
                target(rename.this)  # the new name is no read
    elif isinstance(tree, exp.Comment) and str(tree.args.get("kind") or "").upper() in _OBJECT_KINDS:
        add("OWNERSHIP", target(tree.this))
    elif isinstance(tree, exp.Comment) and str(tree.args.get("kind") or "").upper() in ("SCHEMA", "DATABASE"):
        commented = target(tree.this)
        if commented is not None:
            on = (
                _schema_of(commented, ctx)
                if tree.args["kind"].upper() == "SCHEMA"
                else _database_of(commented)
            )
            if not (tree.args.get("exists") and not exists(on)):  # IF EXISTS of a missing one: anyone
                needs.append(Need("OWNERSHIP", on))
    elif isinstance(tree, exp.Describe):
        described = target(tree.this)
        if str(tree.args.get("kind") or "").upper() != "SEQUENCE":  # sequences: engine/sequences.py
            add("ANY", described)
    elif isinstance(tree, exp.Use):
        return _use_needs(tree, ctx)
    elif isinstance(tree, exp.Show):
        return []  # SHOW lists only what the roles see (metadata.show)
    # Everything else the statement names is read.
    for table in tree.find_all(exp.Table):
        if id(table) not in targets and not _is_cte(table):
            add("SELECT", table)
    return needs


def _create_needs(tree: exp.Create, ctx: SqlContext, created: exp.Table | None, obj: ObjectOf) -> list[Need]:
    kind = str(tree.args.get("kind") or "").upper()
    if created is None or _temporary(tree):
        return []
    if kind == "DATABASE":
        return [Need("CREATE DATABASE", ACCOUNT)]
    if kind == "SCHEMA":
        return [Need("CREATE SCHEMA", Securable("DATABASE", _schema_of(created, ctx).database))]
    if kind in _CREATES:
        made = obj(created)
        if made is None:
            return []
        return [Need(_CREATES[kind], Securable("SCHEMA", made.database, made.schema))]
    return []


def _drop_needs(
    tree: exp.Drop | exp.Undrop, ctx: SqlContext, dropped: exp.Table | None, obj: ObjectOf, exists: Exists
) -> list[Need]:
    kind = str(tree.args.get("kind") or "").upper()
    if dropped is None:
        return []
    if kind == "TAG" and isinstance(tree, exp.Undrop):  # (DROP TAG is checked by engine/tags.py)
        database, schema, _ = names.qualify(names.table_parts(dropped), ctx, "undrop")
        return [Need("CREATE TAG", Securable("SCHEMA", database, schema))]
    if kind == "DATABASE":
        on = _database_of(dropped)
    elif kind == "SCHEMA":
        on = _schema_of(dropped, ctx)
    elif kind in _OBJECT_KINDS:
        on = obj(dropped)
        if on is None:
            return []
    else:
        return []
    if isinstance(tree, exp.Undrop):  # the dropped object's grants are gone: its container decides
        container = {"DATABASE": ACCOUNT, "SCHEMA": Securable("DATABASE", on.database)}
        privilege = (
            "CREATE DATABASE"
            if kind == "DATABASE"
            else "CREATE SCHEMA"
            if kind == "SCHEMA"
            else "CREATE TABLE"
        )
        return [Need(privilege, container.get(kind, Securable("SCHEMA", on.database, on.schema)))]
    if tree.args.get("exists") and not exists(on):
        return []  # DROP ... IF EXISTS of a missing object succeeds for anyone
    return [Need("OWNERSHIP", on)]


def _use_needs(tree: exp.Use, ctx: SqlContext) -> list[Need]:
    kind = tree.args["kind"].name.upper() if tree.args.get("kind") else ""
    target = tree.this
    if not isinstance(target, exp.Table):
        return []
    if kind == "DATABASE" or (not kind and target.args.get("db") is None):
        return [Need("USAGE", _database_of(target))]
    if kind == "SCHEMA" or not kind:
        return [Need("USAGE", _schema_of(target, ctx))]
    return []


def _database_of(node: exp.Table) -> Securable:
    """DATABASE d: the name is in `this` (CREATE, DROP, USE) or in `db` (UNDROP)."""
    name = node.args.get("this") or node.args.get("db")
    return Securable("DATABASE", names.normalize(name) if name is not None else "")


def _schema_of(node: exp.Table, ctx: SqlContext) -> Securable:
    """SCHEMA [d.]s: `this` and `db` in USE; `db` and `catalog` in CREATE, DROP and UNDROP."""
    if isinstance(node.args.get("this"), exp.Identifier):
        schema, database = node.args["this"], node.args.get("db")
    else:
        schema, database = node.args.get("db"), node.args.get("catalog")
    found = names.normalize(database) if database is not None else ctx.database
    return Securable("SCHEMA", found or "", names.normalize(schema) if schema is not None else "")


def _is_cte(table: exp.Table) -> bool:
    if table.args.get("db") is not None:
        return False
    name = table.name.upper()
    scope: exp.Expression | None = table
    while scope is not None:
        with_ = scope.args.get("with_") or scope.args.get("with")
        if isinstance(with_, exp.With) and any(cte.alias.upper() == name for cte in with_.expressions):
            return True
        scope = scope.parent
    return False


def _temporary(tree: exp.Create) -> bool:
    properties = tree.args.get("properties")
    return properties is not None and any(
        isinstance(p, exp.TemporaryProperty) for p in properties.expressions
    )


def _kind_word(kind: str) -> str:
    return {"DATABASE": "Database", "SCHEMA": "Schema", "STAGE": "Stage"}.get(kind, "Object")


def _shown(on: Securable) -> str:
    return ".".join(naming.quote(p) for p in (on.database, on.schema, on.name.removeprefix("@")) if p)


def require_role(grants: Grants, session: Session) -> None:
    """Account-level statements (volumes, integrations) are for ACCOUNTADMIN."""
    if ACCOUNTADMIN not in active_roles(grants, session):
        raise AccessDenied("Insufficient privileges to operate on account")


# --- ownership after a statement ran --------------------------------------------------------------


def record(grants: Grants, session: Session, tree: exp.Expression, ctx: SqlContext) -> None:
    """New objects belong to the role that created them; dropped ones take their grants along;
    renamed ones keep them."""
    if isinstance(tree, exp.Create):
        _record_create(grants, session, tree, ctx)
    elif isinstance(tree, exp.Drop):
        for dropped in tree.args.get("tables") or [tree.this]:
            on = _named(tree, dropped, ctx)
            if on is not None:
                grants.forget(on)
    elif isinstance(tree, exp.Undrop):
        on = _named(tree, tree.this, ctx)
        if on is not None:
            grants.set_owner(on, session.role, session.role)
    elif isinstance(tree, exp.Alter) and str(tree.args.get("kind") or "").upper() in _OBJECT_KINDS:
        old = _table(tree.this, ctx)
        for rename in tree.find_all(exp.AlterRename):
            new = _table(rename.this, ctx)  # an unqualified new name: the current schema, as the rename
            if old and new:
                grants.move(old, new)
        for swap in tree.find_all(exp.SwapTable):
            other = _table(swap.this, ctx)
            if old and other:
                parked = Securable("TABLE", old.database, old.schema, f"\x00swap\x00{old.name}")
                grants.move(old, parked)
                grants.move(other, old)
                grants.move(parked, other)


def _record_create(grants: Grants, session: Session, tree: exp.Create, ctx: SqlContext) -> None:
    if _temporary(tree):
        return
    on = _named(tree, tree.this, ctx)
    if on is None:
        return
    if tree.args.get("replace"):
        grants.forget(on)
    elif grants.state().owners.get(on.key) is not None:
        return  # IF NOT EXISTS of an existing object: it keeps its owner
    grants.set_owner(on, session.role, session.role)
    if on.kind == "DATABASE":
        grants.set_owner(Securable("SCHEMA", on.database, "PUBLIC"), session.role, session.role)


def _named(
    tree: exp.Create | exp.Drop | exp.Undrop, node: exp.Expression, ctx: SqlContext
) -> Securable | None:
    kind = str(tree.args.get("kind") or "").upper()
    while isinstance(node, exp.Schema):
        node = node.this
    if not isinstance(node, exp.Table):
        return None
    try:
        if kind == "DATABASE":
            return _database_of(node)
        if kind == "SCHEMA":
            return _schema_of(node, ctx)
        if kind in _OBJECT_KINDS:
            return _table(node, ctx, kind="VIEW" if "VIEW" in kind else "TABLE")
    except SqlCompilationError:
        return None
    return None


def _table(node: exp.Expression | None, ctx: SqlContext, kind: str = "TABLE") -> Securable | None:
    if not isinstance(node, exp.Table):
        return None
    return Securable(kind, *names.qualify(names.table_parts(node), ctx))

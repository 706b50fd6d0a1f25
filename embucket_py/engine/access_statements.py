"""Running the access-control statements: roles, grants, SHOW ROLES / GRANTS / USERS, DROP USER.

Who may run what follows Snowflake: CREATE ROLE and CREATE USER need those account privileges
(USERADMIN and above), a role or a privilege is granted by its owner, by a holder WITH GRANT OPTION
or by a role with MANAGE GRANTS (SECURITYADMIN and above).
https://docs.snowflake.com/en/sql-reference/sql/grant-privilege
"""

from __future__ import annotations

from datetime import UTC

from embucket_py import naming
from embucket_py.catalog.grants import (
    ACCOUNT,
    ALL_PRIVILEGES,
    PUBLIC,
    SYSTEM_ROLES,
    Grant,
    Grants,
    Securable,
)
from embucket_py.catalog.grants import stage as grants_stage
from embucket_py.catalog.metastore import Metastore
from embucket_py.catalog.tables import TableName, Tables
from embucket_py.engine import access, warehouses
from embucket_py.engine.metadata_columns import TEXT, TIMESTAMP_LTZ
from embucket_py.engine.result import OK, QueryResult, StatementType, constant, status
from embucket_py.errors import AccessDenied, AuthError, SqlCompilationError, object_not_found
from embucket_py.sessions import keypair
from embucket_py.sessions.session import Session
from embucket_py.sql import access as stmt
from embucket_py.sql.context import SqlContext
from embucket_py.sql.names import like_matches
from embucket_py.types import SfType

ROLES_COLUMNS = [
    ("created_on", TIMESTAMP_LTZ),
    ("name", TEXT),
    ("is_default", TEXT),
    ("is_current", TEXT),
    ("is_inherited", TEXT),
    ("assigned_to_users", SfType("FIXED", 38, 0)),
    ("granted_to_roles", SfType("FIXED", 38, 0)),
    ("granted_roles", SfType("FIXED", 38, 0)),
    ("owner", TEXT),
    ("comment", TEXT),
]
# SHOW GRANTS ON <object> / TO ROLE <role>.
PRIVILEGE_COLUMNS = [
    ("created_on", TIMESTAMP_LTZ),
    ("privilege", TEXT),
    ("granted_on", TEXT),
    ("name", TEXT),
    ("granted_to", TEXT),
    ("grantee_name", TEXT),
    ("grant_option", TEXT),
    ("granted_by", TEXT),
]
# SHOW GRANTS TO USER <user> / OF ROLE <role>.
ROLE_GRANT_COLUMNS = [
    ("created_on", TIMESTAMP_LTZ),
    ("role", TEXT),
    ("granted_to", TEXT),
    ("grantee_name", TEXT),
    ("granted_by", TEXT),
]
USERS_COLUMNS = [
    ("name", TEXT),
    ("created_on", TIMESTAMP_LTZ),
    ("login_name", TEXT),
    ("display_name", TEXT),
    ("disabled", TEXT),
    ("default_role", TEXT),
    ("default_secondary_roles", TEXT),
    ("owner", TEXT),
    ("has_password", TEXT),
    ("has_rsa_public_key", TEXT),
]


def run(
    metastore: Metastore, session: Session, statement: stmt.AccessStatement, ctx: SqlContext
) -> QueryResult:
    grants = metastore.grants
    roles = access.active_roles(grants, session)
    if isinstance(statement, stmt.RoleDdl):
        return _role_ddl(grants, session, roles, statement)
    if isinstance(statement, stmt.RoleGrant):
        return _role_grant(metastore, session, roles, statement)
    if isinstance(statement, stmt.PrivilegeGrant):
        return _privilege_grant(metastore, session, roles, statement, ctx)
    if isinstance(statement, stmt.OwnershipGrant):
        grants.require_role(statement.role)
        manager = grants.allows(roles, "MANAGE GRANTS", ACCOUNT)
        for on in _securables(metastore, statement.target, ctx):
            if not manager and "OWNERSHIP" not in grants.privileges(roles, on):
                raise _insufficient(on)
            grants.set_owner(on, statement.role, session.role, keep_grants=statement.copy_grants)
        return status(OK)
    if isinstance(statement, stmt.ShowRoles):
        return _show_roles(grants, session, statement)
    if isinstance(statement, stmt.ShowGrants):
        return _show_grants(metastore, session, statement, ctx)
    if isinstance(statement, stmt.ShowUsers):
        return _show_users(metastore, statement)
    if isinstance(statement, stmt.DropUser):
        return _drop_user(metastore, roles, statement)
    assert isinstance(statement, stmt.AlterUser)
    if statement.name != session.user:
        access.require(grants, roles, access.Need("CREATE USER", ACCOUNT))
    grants.set_default_role(statement.name, statement.default_role)
    return status(OK)


def _role_ddl(grants: Grants, session: Session, roles: set[str], d: stmt.RoleDdl) -> QueryResult:
    if d.action == "CREATE":
        access.require(grants, roles, access.Need("CREATE ROLE", ACCOUNT))
        return status(grants.create_role(d.name, session.role, d.comment, d.replace, d.if_not_exists))
    if grants.role_exists(d.name):
        _require_role_owner(grants, roles, d.name)
    return status(grants.drop_role(d.name, d.if_exists))


def _role_grant(metastore: Metastore, session: Session, roles: set[str], d: stmt.RoleGrant) -> QueryResult:
    grants = metastore.grants
    grants.require_role(d.role)
    if d.grantee_kind == "ROLE":
        grants.require_role(d.grantee)
    elif not metastore.user_exists(d.grantee):
        raise object_not_found("User", d.grantee)
    _require_role_owner(grants, roles, d.role)
    if d.grant:
        grants.grant_role(d.role, d.grantee_kind, d.grantee, session.role)
    else:
        grants.revoke_role(d.role, d.grantee_kind, d.grantee)
    return status(OK)


def _require_role_owner(grants: Grants, roles: set[str], role: str) -> None:
    owner = grants.require_role(role).owner
    if (owner is None or owner not in roles) and not grants.allows(roles, "MANAGE GRANTS", ACCOUNT):
        raise AccessDenied(f"Insufficient privileges to operate on role '{role}'")


def _privilege_grant(
    metastore: Metastore, session: Session, roles: set[str], d: stmt.PrivilegeGrant, ctx: SqlContext
) -> QueryResult:
    grants = metastore.grants
    grants.require_role(d.role)
    kind = d.target.kind
    privileges = list(ALL_PRIVILEGES[kind]) if d.privileges == ["ALL"] else d.privileges
    for privilege in privileges:
        if privilege not in ALL_PRIVILEGES[kind] and not (
            kind == "TABLE" and privilege in ALL_PRIVILEGES["VIEW"]
        ):
            raise SqlCompilationError(
                f"Invalid privilege {privilege} on {kind}.", code=3008, sqlstate="42601"
            )
    for on in _securables(metastore, d.target, ctx):
        for privilege in privileges:
            if not grants.may_grant(roles, privilege, on):
                raise _insufficient(on)
        if d.grant:
            grants.grant(privileges, on, d.role, d.grant_option, session.role)
        else:
            grants.revoke(privileges, on, d.role, grant_option_only=d.grant_option)
    return status(OK)


def _insufficient(on: Securable) -> AccessDenied:
    last = on.name or on.schema or on.database or "ACCOUNT"
    return AccessDenied(f"Insufficient privileges to operate on {on.kind.lower()} '{last}'")


def _securables(metastore: Metastore, target: stmt.Target, ctx: SqlContext) -> list[Securable]:
    """The existing objects a GRANT names (one, or every one `ALL ... IN` a schema or database)."""
    parts = target.parts
    if target.kind == "ACCOUNT":
        return [ACCOUNT]
    if target.kind == "WAREHOUSE":
        if Tables(metastore).warehouses.get(parts[-1]) is None:
            raise object_not_found("Warehouse", naming.quote(parts[-1]))
        return [warehouses.securable(parts[-1])]
    if target.every is None and target.kind == "DATABASE":
        if not metastore.database_exists(parts[-1]):
            raise object_not_found("Database", naming.quote(parts[-1]))
        return [Securable("DATABASE", parts[-1])]
    if target.kind == "SCHEMA" or target.every is not None:
        container_kind = target.every or "SCHEMA"
        if container_kind == "DATABASE":
            database = parts[-1]
            schemas = metastore.schema_names(database) if metastore.database_exists(database) else None
            if schemas is None:
                raise object_not_found("Database", naming.quote(database))
        else:
            database = parts[-2] if len(parts) > 1 else ctx.database or ""
            if not metastore.schema_exists(database, parts[-1]):
                raise object_not_found("Schema", f"{naming.quote(database)}.{naming.quote(parts[-1])}")
            schemas = [parts[-1]]
        if target.every is None:
            return [Securable("SCHEMA", database, schemas[0])]
        if target.kind == "SCHEMA":
            return [Securable("SCHEMA", database, s) for s in schemas]
        return [on for schema in schemas for on in _objects_in(metastore, database, schema, target.kind)]
    database, schema, name = _qualified(parts, ctx)
    if target.kind == "STAGE":
        return [grants_stage(database, schema, name)]
    ref = TableName(database, schema, name)
    tables = Tables(metastore)
    if target.kind == "STREAM":
        if tables.streams.get(database, schema, name) is None:
            raise object_not_found("Stream", str(ref))
        return [Securable("TABLE", database, schema, name)]  # a stream is read as a table is
    if target.kind == "TASK":
        if tables.tasks.get(database, schema, name) is None:
            raise object_not_found("Task", str(ref))
        return [Securable("TASK", database, schema, name)]
    if target.kind == "VIEW" and tables.views.get(database, schema, name) is None:
        raise object_not_found("View", str(ref))
    if target.kind == "TABLE" and not tables.exists(ref):
        raise object_not_found("Table", str(ref))
    return [Securable(target.kind, database, schema, name)]


def _objects_in(metastore: Metastore, database: str, schema: str, kind: str) -> list[Securable]:
    tables = Tables(metastore)
    found = tables.views.names(database, schema) if kind == "VIEW" else tables.names(database, schema)
    return [Securable(kind, database, schema, name) for name in found]


def _qualified(parts: list[str], ctx: SqlContext) -> tuple[str, str, str]:
    if len(parts) == 3:
        return parts[0], parts[1], parts[2]
    if len(parts) == 2:
        return ctx.database or "", parts[0], parts[1]
    return ctx.database or "", ctx.schema or "", parts[0]


def _show_roles(grants: Grants, session: Session, d: stmt.ShowRoles) -> QueryResult:
    role_grants = grants.role_grants()
    mine = grants.effective_roles(grants.user_roles(session.user))
    rows = []
    for role in grants.roles():
        if d.like and not like_matches(d.like, role.name):
            continue
        rows.append(
            (
                role.created_on,
                role.name,
                "Y" if grants.default_role(session.user) == role.name else "N",
                "Y" if role.name == session.role else "N",
                "Y" if role.name in mine and role.name != session.role else "N",
                sum(1 for g in role_grants if g.role == role.name and g.grantee_kind == "USER"),
                sum(1 for g in role_grants if g.role == role.name and g.grantee_kind == "ROLE"),
                sum(1 for g in role_grants if g.grantee == role.name and g.grantee_kind == "ROLE"),
                role.owner or "",
                role.comment or _SYSTEM_COMMENTS.get(role.name, ""),
            )
        )
    return constant(ROLES_COLUMNS, rows, StatementType.SHOW)


_SYSTEM_COMMENTS = {name: "" for name in SYSTEM_ROLES} | {
    "ACCOUNTADMIN": "Account administrator can manage all aspects of the account.",
    "SECURITYADMIN": "Security administrator can manage security aspects of the account.",
    "USERADMIN": "User administrator can create and manage users and roles",
    "SYSADMIN": "System administrator can create and manage databases and warehouses.",
    "PUBLIC": "Public role is automatically available to every user in the account.",
}


def _show_grants(metastore: Metastore, session: Session, d: stmt.ShowGrants, ctx: SqlContext) -> QueryResult:
    grants = metastore.grants
    if d.mode in ("TO_USER", "CURRENT"):
        user = d.name or session.user
        if not metastore.user_exists(user):
            raise object_not_found("User", user)
        found = [g for g in grants.role_grants() if g.grantee_kind == "USER" and g.grantee == user]
        rows = [(g.created_on, g.role, "USER", g.grantee, g.granted_by or "") for g in found]
        return constant(ROLE_GRANT_COLUMNS, sorted(rows, key=lambda r: r[1]), StatementType.SHOW)
    if d.mode == "OF_ROLE":
        assert d.name is not None
        grants.require_role(d.name)
        found = [g for g in grants.role_grants() if g.role == d.name]
        rows = [(g.created_on, g.role, g.grantee_kind, g.grantee, g.granted_by or "") for g in found]
        return constant(ROLE_GRANT_COLUMNS, sorted(rows, key=lambda r: (r[2], r[3])), StatementType.SHOW)
    if d.mode == "TO_ROLE":
        assert d.name is not None
        grants.require_role(d.name)
        shown = grants.grants_to_role(d.name)
        # Roles granted to the role show as USAGE on ROLE.
        usage = [g for g in grants.role_grants() if g.grantee_kind == "ROLE" and g.grantee == d.name]
        rows = [_privilege_row(g) for g in shown] + [
            (g.created_on, "USAGE", "ROLE", g.role, "ROLE", g.grantee, "false", g.granted_by or "")
            for g in usage
        ]
        return constant(PRIVILEGE_COLUMNS, sorted(rows, key=lambda r: (r[2], r[3], r[1])), StatementType.SHOW)
    assert d.target is not None
    rows = [_privilege_row(g) for on in _securables(metastore, d.target, ctx) for g in grants.grants_on(on)]
    return constant(PRIVILEGE_COLUMNS, sorted(rows, key=lambda r: (r[1], r[5])), StatementType.SHOW)


def _privilege_row(g: Grant) -> tuple:
    return (
        g.created_on,
        g.privilege,
        g.on.kind,
        g.on.shown,
        "ROLE",
        g.role,
        "true" if g.grant_option else "false",
        g.granted_by or "",
    )


def _show_users(metastore: Metastore, d: stmt.ShowUsers) -> QueryResult:
    grants = metastore.grants
    keys = keypair.UserKeys(metastore.engine)
    rows = []
    for u in metastore.users():
        if d.like and not like_matches(d.like, u.name):
            continue
        created = u.created_on if u.created_on.tzinfo else u.created_on.replace(tzinfo=UTC)
        rows.append(
            (
                u.name,
                created,
                u.name,
                u.name,
                "false",
                grants.default_role(u.name) or "",
                "",
                "",
                "false" if u.password_hash.startswith("none$") else "true",
                "true" if keys.keys(u.name) else "false",
            )
        )
    return constant(USERS_COLUMNS, rows, StatementType.SHOW)


def _drop_user(metastore: Metastore, roles: set[str], d: stmt.DropUser) -> QueryResult:
    access.require(metastore.grants, roles, access.Need("CREATE USER", ACCOUNT))
    if not metastore.user_exists(d.name):
        if d.if_exists:
            return status("Drop statement executed successfully (USER already dropped).")
        raise object_not_found("User", d.name)
    metastore.drop_user(d.name)
    keypair.UserKeys(metastore.engine).forget(d.name)
    metastore.grants.forget_user(d.name)
    return status(f"{d.name} successfully dropped.")


def login_role(grants: Grants, user: str, requested: str | None) -> str:
    """The session's first role: the one the connection asks for (if granted), else the user's
    default role (if still granted), else PUBLIC."""
    available = grants.effective_roles(grants.user_roles(user))
    if requested:
        if requested not in available:
            raise requested_role_refused(requested)
        return requested
    default = grants.default_role(user)
    return default if default in available else PUBLIC


def requested_role_refused(role: str) -> Exception:
    return AuthError(
        f"Role '{role}' specified in the connect string is not granted to this user. Contact your "
        "local system administrator, or attempt to login with another role, e.g. PUBLIC.",
        code=390189,
    )

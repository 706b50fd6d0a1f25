"""Roles, role grants and privilege grants (Snowflake's access control model), in the metastore.

- Roles form a hierarchy: `GRANT ROLE child TO ROLE parent` makes the parent inherit the child.
  The system roles are ACCOUNTADMIN (inherits SECURITYADMIN and SYSADMIN), SECURITYADMIN
  (inherits USERADMIN; MANAGE GRANTS), USERADMIN (CREATE USER, CREATE ROLE), SYSADMIN (CREATE
  DATABASE) and PUBLIC, which every user and role holds.
- A privilege is granted to a role on a securable: the account, a database, a schema or an object
  (table or view). OWNERSHIP is a privilege row too, one per object, and implies all others.
- Objects that have no OWNERSHIP row (created before access control existed, or by an engine
  that does not record one) belong to SYSADMIN, as objects made by a Snowflake administrator do.

Checks run on every statement, so the whole (small) grant state is kept in memory and reloaded
when this process changes it, or at most `REFRESH_SECONDS` after another process did.
https://docs.snowflake.com/en/user-guide/security-access-control-overview
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime

import sqlalchemy as sa

from embucket_py.errors import already_exists, object_not_found

ACCOUNTADMIN, SECURITYADMIN, USERADMIN, SYSADMIN, PUBLIC = (
    "ACCOUNTADMIN",
    "SECURITYADMIN",
    "USERADMIN",
    "SYSADMIN",
    "PUBLIC",
)
SYSTEM_ROLES = (ACCOUNTADMIN, SECURITYADMIN, USERADMIN, SYSADMIN, PUBLIC)
# (child, parent): the parent inherits the child's privileges.
_SYSTEM_HIERARCHY = ((SECURITYADMIN, ACCOUNTADMIN), (SYSADMIN, ACCOUNTADMIN), (USERADMIN, SECURITYADMIN))
_SYSTEM_PRIVILEGES = (
    (SYSADMIN, "CREATE DATABASE"),
    (SYSADMIN, "CREATE WAREHOUSE"),
    (USERADMIN, "CREATE ROLE"),
    (USERADMIN, "CREATE USER"),
    (SECURITYADMIN, "MANAGE GRANTS"),
)
IMPLIED_OWNER = SYSADMIN
REFRESH_SECONDS = 1.0

# What ALL [PRIVILEGES] grants, by the kind of securable.
ALL_PRIVILEGES = {
    "ACCOUNT": (
        "CREATE DATABASE",
        "CREATE WAREHOUSE",
        "CREATE ROLE",
        "CREATE USER",
        "MANAGE GRANTS",
        "APPLY MASKING POLICY",
        "APPLY ROW ACCESS POLICY",
        "APPLY TAG",
    ),
    "WAREHOUSE": ("USAGE", "OPERATE", "MODIFY", "MONITOR"),
    "DATABASE": ("USAGE", "CREATE SCHEMA", "MODIFY", "MONITOR"),
    "SCHEMA": (
        "USAGE",
        "CREATE TABLE",
        "CREATE VIEW",
        "CREATE STAGE",
        "CREATE FUNCTION",
        "CREATE PROCEDURE",
        "CREATE SEQUENCE",
        "CREATE STREAM",
        "CREATE TASK",
        "CREATE MASKING POLICY",
        "CREATE ROW ACCESS POLICY",
        "CREATE TAG",
        "MODIFY",
        "MONITOR",
    ),
    "TABLE": ("SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES"),
    "VIEW": ("SELECT", "REFERENCES"),
    "STREAM": ("SELECT",),
    "TASK": ("OPERATE", "MONITOR"),
    "STAGE": ("USAGE", "READ", "WRITE"),
}

_meta = sa.MetaData()
roles_table = sa.Table(
    "embucket_roles",
    _meta,
    sa.Column("name", sa.String(255), primary_key=True),
    sa.Column("owner", sa.String(255)),
    sa.Column("comment", sa.Text),
    sa.Column("created_on", sa.DateTime, nullable=False),
)
role_grants_table = sa.Table(
    "embucket_role_grants",
    _meta,
    sa.Column("role", sa.String(255), primary_key=True),
    sa.Column("grantee_kind", sa.String(8), primary_key=True),  # USER or ROLE
    sa.Column("grantee", sa.String(255), primary_key=True),
    sa.Column("granted_by", sa.String(255)),
    sa.Column("created_on", sa.DateTime, nullable=False),
)
privileges_table = sa.Table(
    "embucket_privileges",
    _meta,
    sa.Column("privilege", sa.String(64), primary_key=True),
    sa.Column("kind", sa.String(16), primary_key=True),  # ACCOUNT DATABASE SCHEMA TABLE VIEW
    sa.Column("database", sa.String(255), primary_key=True),
    sa.Column("schema", sa.String(255), primary_key=True),
    sa.Column("name", sa.String(255), primary_key=True),
    sa.Column("role", sa.String(255), primary_key=True),
    sa.Column("grant_option", sa.Boolean, nullable=False),
    sa.Column("granted_by", sa.String(255)),
    sa.Column("created_on", sa.DateTime, nullable=False),
)
default_roles_table = sa.Table(
    "embucket_default_roles",
    _meta,
    sa.Column("user", sa.String(255), primary_key=True),
    sa.Column("role", sa.String(255), nullable=False),
)
version_table = sa.Table(
    "embucket_grants_version",
    _meta,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("version", sa.Integer, nullable=False),
)


@dataclass(frozen=True)
class Securable:
    """What a privilege is granted on. Tables and views share one namespace (`name`)."""

    kind: str  # ACCOUNT, DATABASE, SCHEMA, TABLE or VIEW
    database: str = ""
    schema: str = ""
    name: str = ""

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.database, self.schema, self.name)

    @property
    def shown(self) -> str:
        """The name as SHOW GRANTS prints it."""
        parts = [p for p in (self.database, self.schema, self.name.removeprefix("@")) if p]
        return ".".join(parts) if parts else "ACCOUNT"  # Snowflake shows the account's locator


ACCOUNT = Securable("ACCOUNT")


def stage(database: str, schema: str, name: str) -> Securable:
    """Stages have their own namespace: their key is the name with an `@`."""
    return Securable("STAGE", database, schema, f"@{name}")


@dataclass(frozen=True)
class Grant:
    privilege: str
    on: Securable
    role: str
    grant_option: bool
    granted_by: str | None
    created_on: datetime


@dataclass(frozen=True)
class RoleGrant:
    role: str
    grantee_kind: str
    grantee: str
    granted_by: str | None
    created_on: datetime


@dataclass(frozen=True)
class Role:
    name: str
    owner: str | None
    comment: str | None
    created_on: datetime


@dataclass
class _State:
    roles: dict[str, Role] = field(default_factory=dict)
    role_grants: list[RoleGrant] = field(default_factory=list)
    grants: list[Grant] = field(default_factory=list)
    default_roles: dict[str, str] = field(default_factory=dict)
    # Derived for checks: (database, schema, name) -> role -> privileges.
    by_object: dict[tuple[str, str, str], dict[str, set[str]]] = field(default_factory=dict)
    owners: dict[tuple[str, str, str], str] = field(default_factory=dict)
    inherits: dict[str, set[str]] = field(default_factory=dict)  # parent -> children


class Grants:
    """The access-control store of one metastore."""

    def __init__(self, engine: sa.Engine) -> None:
        self.engine = engine
        _meta.create_all(engine)
        self._lock = threading.Lock()
        self._state: _State | None = None
        self._version = -1
        self._checked = 0.0

    # --- setup ------------------------------------------------------------------------------------

    def bootstrap(self, admin: str) -> None:
        """The system roles, their hierarchy and privileges, and ACCOUNTADMIN for the first user."""
        now = datetime.now(UTC)
        with self.engine.begin() as conn:
            have = {r[0] for r in conn.execute(sa.select(roles_table.c.name))}
            for role in SYSTEM_ROLES:
                if role not in have:
                    conn.execute(roles_table.insert().values(name=role, owner=None, created_on=now))
            if not have:
                for child, parent in _SYSTEM_HIERARCHY:
                    conn.execute(
                        role_grants_table.insert().values(
                            role=child, grantee_kind="ROLE", grantee=parent, created_on=now
                        )
                    )
            for role, privilege in _SYSTEM_PRIVILEGES:
                # CREATE WAREHOUSE came after the first release: SYSADMIN gets it where no role has it.
                held = sa.select(privileges_table.c.role).where(
                    privileges_table.c.privilege == privilege, privileges_table.c.kind == "ACCOUNT"
                )
                if not have or (privilege == "CREATE WAREHOUSE" and conn.execute(held).first() is None):
                    conn.execute(
                        privileges_table.insert().values(_row(privilege, ACCOUNT, role, False, None, now))
                    )
            admin = admin.upper()
            granted = sa.select(role_grants_table.c.role).where(
                role_grants_table.c.grantee_kind == "USER", role_grants_table.c.grantee == admin
            )
            if conn.execute(granted).first() is None:
                conn.execute(
                    role_grants_table.insert().values(
                        role=ACCOUNTADMIN, grantee_kind="USER", grantee=admin, created_on=now
                    )
                )
                conn.execute(default_roles_table.delete().where(default_roles_table.c.user == admin))
                conn.execute(default_roles_table.insert().values(user=admin, role=ACCOUNTADMIN))
            bump_version(conn)
        self._state = None

    # --- reading ----------------------------------------------------------------------------------

    def state(self) -> _State:
        now = time.monotonic()
        with self._lock:
            if self._state is not None and now - self._checked < REFRESH_SECONDS:
                return self._state
            with self.engine.connect() as conn:
                row = conn.execute(sa.select(version_table.c.version).where(version_table.c.id == 1)).first()
                version = row[0] if row else 0
                if self._state is None or version != self._version:
                    self._state = _load(conn)
                    self._version = version
            self._checked = now
            return self._state

    def role_exists(self, role: str) -> bool:
        return role in self.state().roles

    def require_role(self, role: str) -> Role:
        found = self.state().roles.get(role)
        if found is None:
            raise object_not_found("Role", role)
        return found

    def effective_roles(self, roles: Iterable[str]) -> set[str]:
        """The roles and every role they inherit, and PUBLIC."""
        inherits = self.state().inherits
        found: set[str] = set()
        todo = [*roles, PUBLIC]
        while todo:
            role = todo.pop()
            if role not in found:
                found.add(role)
                todo.extend(inherits.get(role, ()))
        return found

    def user_roles(self, user: str) -> set[str]:
        """Roles granted to the user directly, and PUBLIC."""
        granted = {g.role for g in self.state().role_grants if g.grantee_kind == "USER" and g.grantee == user}
        return granted | {PUBLIC}

    def default_role(self, user: str) -> str | None:
        return self.state().default_roles.get(user)

    def owner(self, on: Securable) -> str:
        if on.kind == "ACCOUNT":
            return ACCOUNTADMIN
        return self.state().owners.get(on.key, IMPLIED_OWNER)

    def privileges(self, roles: set[str], on: Securable) -> set[str]:
        """What the roles may do on the securable (OWNERSHIP among them when they own it)."""
        held: set[str] = set()
        for role, privileges in self.state().by_object.get(on.key, {}).items():
            if role in roles:
                held |= privileges
        if on.kind != "ACCOUNT" and self.owner(on) in roles:
            held.add("OWNERSHIP")
        return held

    def allows(self, roles: set[str], privilege: str, on: Securable) -> bool:
        held = self.privileges(roles, on)
        return "OWNERSHIP" in held or privilege in held

    def may_grant(self, roles: set[str], privilege: str, on: Securable) -> bool:
        """Owners, holders of the privilege WITH GRANT OPTION and MANAGE GRANTS may grant it."""
        if self.allows(roles, "MANAGE GRANTS", ACCOUNT) or "OWNERSHIP" in self.privileges(roles, on):
            return True
        return any(
            g.grant_option and g.role in roles and g.privilege == privilege and g.on.key == on.key
            for g in self.state().grants
        )

    def grants_on(self, on: Securable) -> list[Grant]:
        found = [g for g in self.state().grants if g.on.key == on.key and g.on.kind == on.kind]
        if on.kind != "ACCOUNT" and not any(g.privilege == "OWNERSHIP" for g in found):
            found.append(Grant("OWNERSHIP", on, IMPLIED_OWNER, True, None, datetime.fromtimestamp(0, UTC)))
        return found

    def grants_to_role(self, role: str) -> list[Grant]:
        return [g for g in self.state().grants if g.role == role]

    def role_grants(self) -> list[RoleGrant]:
        return list(self.state().role_grants)

    def roles(self) -> list[Role]:
        return sorted(self.state().roles.values(), key=lambda r: r.name)

    # --- writing ----------------------------------------------------------------------------------

    def create_role(self, name: str, by: str, comment: str | None, replace: bool, if_not_exists: bool) -> str:
        with self.engine.begin() as conn:
            exists = conn.execute(sa.select(roles_table.c.name).where(roles_table.c.name == name)).first()
            if exists and if_not_exists:
                return f"{name} already exists, statement succeeded."
            if exists and not replace:
                raise already_exists("Role", name)
            if exists:
                _forget_role(conn, name)
            now = datetime.now(UTC)
            conn.execute(roles_table.insert().values(name=name, owner=by, comment=comment, created_on=now))
            bump_version(conn)
        self.invalidate()
        return f"Role {name} successfully created."

    def drop_role(self, name: str, if_exists: bool) -> str:
        if name in SYSTEM_ROLES:
            raise _system_role(name)
        with self.engine.begin() as conn:
            exists = conn.execute(sa.select(roles_table.c.name).where(roles_table.c.name == name)).first()
            if not exists:
                if if_exists:
                    return "Drop statement executed successfully (ROLE already dropped)."
                raise object_not_found("Role", name)
            _forget_role(conn, name)
            bump_version(conn)
        self.invalidate()
        return f"{name} successfully dropped."

    def grant_role(self, role: str, grantee_kind: str, grantee: str, by: str) -> None:
        if grantee_kind == "ROLE" and grantee in self.effective_roles([role]):
            raise _cycle(role, grantee)
        t = role_grants_table
        with self.engine.begin() as conn:
            where = (t.c.role == role, t.c.grantee_kind == grantee_kind, t.c.grantee == grantee)
            if conn.execute(sa.select(t.c.role).where(*where)).first() is None:
                row = {"role": role, "grantee_kind": grantee_kind, "grantee": grantee, "granted_by": by}
                conn.execute(t.insert().values(**row, created_on=datetime.now(UTC)))
            bump_version(conn)
        self.invalidate()

    def revoke_role(self, role: str, grantee_kind: str, grantee: str) -> None:
        t = role_grants_table
        with self.engine.begin() as conn:
            conn.execute(
                t.delete().where(t.c.role == role, t.c.grantee_kind == grantee_kind, t.c.grantee == grantee)
            )
            bump_version(conn)
        self.invalidate()

    def grant(self, privileges: Iterable[str], on: Securable, role: str, grant_option: bool, by: str) -> None:
        t = privileges_table
        now = datetime.now(UTC)
        with self.engine.begin() as conn:
            for privilege in privileges:
                where = _where(privilege, on, role)
                if conn.execute(sa.select(t.c.privilege).where(*where)).first() is None:
                    conn.execute(t.insert().values(_row(privilege, on, role, grant_option, by, now)))
                elif grant_option:
                    conn.execute(t.update().where(*where).values(grant_option=True))
            bump_version(conn)
        self.invalidate()

    def revoke(self, privileges: Iterable[str], on: Securable, role: str, grant_option_only: bool) -> None:
        t = privileges_table
        with self.engine.begin() as conn:
            for privilege in privileges:
                where = _where(privilege, on, role)
                if grant_option_only:
                    conn.execute(t.update().where(*where).values(grant_option=False))
                else:
                    conn.execute(t.delete().where(*where))
            bump_version(conn)
        self.invalidate()

    def set_owner(self, on: Securable, role: str, by: str | None, keep_grants: bool = True) -> None:
        """Makes a role the owner (a created object, or GRANT OWNERSHIP)."""
        t = privileges_table
        key = (t.c.database == on.database, t.c.schema == on.schema, t.c.name == on.name)
        with self.engine.begin() as conn:
            if keep_grants:
                conn.execute(t.delete().where(*key, t.c.privilege == "OWNERSHIP"))
            else:
                conn.execute(t.delete().where(*key))
            conn.execute(t.insert().values(_row("OWNERSHIP", on, role, True, by, datetime.now(UTC))))
            bump_version(conn)
        self.invalidate()

    def forget(self, on: Securable) -> None:
        """A dropped object (or one replaced): its grants go with it."""
        t = privileges_table
        with self.engine.begin() as conn:
            conn.execute(t.delete().where(*_object_key(on)))
            bump_version(conn)
        self.invalidate()

    def move(self, old: Securable, new: Securable) -> None:
        """A renamed object keeps its grants under its new name."""
        t = privileges_table
        with self.engine.begin() as conn:
            conn.execute(t.delete().where(*_object_key(new)))
            conn.execute(
                t.update()
                .where(*_object_key(old))
                .values(database=new.database, schema=new.schema, name=new.name)
            )
            bump_version(conn)
        self.invalidate()

    def set_default_role(self, user: str, role: str | None) -> None:
        t = default_roles_table
        with self.engine.begin() as conn:
            conn.execute(t.delete().where(t.c.user == user))
            if role:
                conn.execute(t.insert().values(user=user, role=role))
            bump_version(conn)
        self.invalidate()

    def forget_user(self, user: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(default_roles_table.delete().where(default_roles_table.c.user == user))
            t = role_grants_table
            conn.execute(t.delete().where(t.c.grantee_kind == "USER", t.c.grantee == user))
            bump_version(conn)
        self.invalidate()

    def invalidate(self) -> None:
        """Drops this process's copy (the metastore's grants changed, or are about to be read anew)."""
        with self._lock:
            self._state = None


def _system_role(name: str) -> Exception:
    from embucket_py.errors import SqlCompilationError

    return SqlCompilationError(f"Cannot drop system role '{name}'.", code=3011, sqlstate="42501")


def _cycle(role: str, grantee: str) -> Exception:
    from embucket_py.errors import SqlCompilationError

    return SqlCompilationError(
        f"Granting role '{role}' to role '{grantee}' would create a cycle in the role hierarchy.",
        code=3005,
        sqlstate="42501",
    )


def _row(privilege: str, on: Securable, role: str, grant_option: bool, by: str | None, now: datetime) -> dict:
    return {
        "privilege": privilege,
        "kind": on.kind,
        "database": on.database,
        "schema": on.schema,
        "name": on.name,
        "role": role,
        "grant_option": grant_option,
        "granted_by": by,
        "created_on": now,
    }


def _object_key(on: Securable) -> tuple:
    t = privileges_table
    return (t.c.database == on.database, t.c.schema == on.schema, t.c.name == on.name, t.c.kind != "ACCOUNT")


def _where(privilege: str, on: Securable, role: str) -> tuple:
    t = privileges_table
    return (t.c.privilege == privilege, t.c.role == role, *_object_key(on)[:3], t.c.kind == on.kind)


def _forget_role(conn: sa.Connection, name: str) -> None:
    conn.execute(roles_table.delete().where(roles_table.c.name == name))
    t = role_grants_table
    conn.execute(t.delete().where(t.c.role == name))
    conn.execute(t.delete().where(t.c.grantee_kind == "ROLE", t.c.grantee == name))
    conn.execute(privileges_table.delete().where(privileges_table.c.role == name))
    conn.execute(default_roles_table.delete().where(default_roles_table.c.role == name))


def bump_version(conn: sa.Connection) -> None:
    """Tells every server (each keeps a copy of the grants) that they changed, in `conn`'s transaction."""
    t = version_table
    if conn.execute(t.update().where(t.c.id == 1).values(version=t.c.version + 1)).rowcount == 0:
        conn.execute(t.insert().values(id=1, version=1))


def _load(conn: sa.Connection) -> _State:
    state = _State()
    for r in conn.execute(sa.select(roles_table)):
        state.roles[r.name] = Role(r.name, r.owner, r.comment, _utc(r.created_on))
    for r in conn.execute(sa.select(role_grants_table)):
        state.role_grants.append(
            RoleGrant(r.role, r.grantee_kind, r.grantee, r.granted_by, _utc(r.created_on))
        )
        if r.grantee_kind == "ROLE":
            state.inherits.setdefault(r.grantee, set()).add(r.role)
    for r in conn.execute(sa.select(privileges_table)):
        on = Securable(r.kind, r.database, r.schema, r.name)
        state.grants.append(Grant(r.privilege, on, r.role, r.grant_option, r.granted_by, _utc(r.created_on)))
        if r.kind == "ACCOUNT" or r.privilege != "OWNERSHIP":
            state.by_object.setdefault(on.key, {}).setdefault(r.role, set()).add(r.privilege)
        else:
            state.owners[on.key] = r.role
    for r in conn.execute(sa.select(default_roles_table)):
        state.default_roles[r.user] = r.role
    return state


def _utc(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=UTC)

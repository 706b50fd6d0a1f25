"""Access control on the Iceberg REST catalog: the same roles and privileges as SQL, so a user
can neither read nor write through this door what the SQL door refuses.

The caller's roles: a Snowflake session token brings its session's role; an OAuth token its
user's default role (PUBLIC when that is not granted). What each operation needs:

- list namespaces / tables / views: USAGE on the database (and schema); the lists hold only what
  the roles see;
- load or read credentials of a table or view: SELECT (the metadata hands out the data files);
- commit: INSERT for appends, DELETE for deletes, UPDATE for overwrites and rewrites, OWNERSHIP
  for anything else (schema, properties, snapshot expiry, rollback);
- create a namespace: CREATE SCHEMA on the database; a table: CREATE TABLE, a view: CREATE VIEW on
  the schema; drop, rename or change properties: OWNERSHIP. New objects belong to the caller's role.
"""

from __future__ import annotations

from typing import Any

from embucket_py import naming
from embucket_py.catalog.grants import PUBLIC, Grants, Securable
from embucket_py.engine import access
from embucket_py.errors import AccessDenied, ObjectNotFound, SnowflakeError
from embucket_py.server.iceberg_rest.errors import RestError, bad_request
from embucket_py.sessions.store import SessionStore

_SNAPSHOT_PRIVILEGES = {"append": "INSERT", "delete": "DELETE", "overwrite": "UPDATE", "replace": "UPDATE"}
# Updates that come with every data commit and need nothing of their own.
_DATA_COMMIT_PARTS = {"add-snapshot", "set-snapshot-ref", "set-statistics", "assert-create"}
_CREATE_PARTS = _DATA_COMMIT_PARTS | {
    "assign-uuid",
    "upgrade-format-version",
    "add-schema",
    "set-current-schema",
    "add-spec",
    "set-default-spec",
    "add-sort-order",
    "set-default-sort-order",
    "set-location",
    "set-properties",
}


def caller(grants: Grants, user: str, token: str, sessions: SessionStore) -> tuple[str, set[str]]:
    """The primary role behind a bearer token and every role it acts with."""
    try:
        session = sessions.get(token)
    except SnowflakeError:
        session = None
    if session is not None:
        return session.role, access.active_roles(grants, session)
    available = grants.effective_roles(grants.user_roles(user))
    default = grants.default_role(user)
    role = default if default in available else PUBLIC
    return role, grants.effective_roles([role])


def check(grants: Grants, roles: set[str], route: tuple[str, ...], method: str, call: Any) -> None:
    """Raises RestError 403/404 when the roles lack what the operation needs (400 for a body
    whose parts are not the objects the operation takes: its handler would refuse it too)."""
    try:
        wanted = needs(route, method, call)
    except (AttributeError, TypeError, KeyError, IndexError):
        raise bad_request("Malformed request body: an object was expected.") from None
    for need in wanted:
        try:
            access.require(grants, roles, need)
        except ObjectNotFound as e:
            raise RestError(404, _not_found_type(need.on.kind), e.message.split("\n")[-1]) from None
        except AccessDenied as e:
            raise RestError(403, "ForbiddenException", e.message.split("\n")[-1]) from None


def needs(route: tuple[str, ...], method: str, call: Any) -> list[access.Need]:
    """What the operation at a route pattern (the `routes.TABLE` path tuple) needs."""
    if route == ("v1", "config") or route[-1] == "metrics":
        return []
    database = database_of(call)
    if route[-1] == "namespaces":  # list or create
        on = Securable("DATABASE", database)
        return [access.Need("USAGE" if method == "GET" else "CREATE SCHEMA", on)]
    if route[-2:] == ("tables", "rename") or route[-2:] == ("views", "rename"):
        source, destination = call.body.get("source") or {}, call.body.get("destination") or {}
        return [
            access.Need("OWNERSHIP", _object(database, source.get("namespace"), source.get("name"))),
            access.Need("CREATE TABLE", _schema(database, destination.get("namespace"))),
        ]
    if route[-2:] == ("transactions", "commit"):
        found = []
        for change in call.body.get("table-changes") or []:
            ident = change.get("identifier") or {}
            on = _object(database, ident.get("namespace"), ident.get("name"))
            found += [access.Need(p, on) for p in commit_privileges(change)]
        return found
    schema = _schema(database, call.params["namespace"].split("\x1f"))
    if len(route) == 4:  # the namespace itself
        return [access.Need("USAGE" if method in ("GET", "HEAD") else "OWNERSHIP", schema)]
    if route[-1] == "properties":
        return [access.Need("OWNERSHIP", schema)]
    if route[-1] in ("tables", "views", "register"):  # list or create
        if method == "GET":
            return [access.Need("USAGE", schema)]
        return [access.Need("CREATE VIEW" if route[-1] == "views" else "CREATE TABLE", schema)]
    name = call.params.get("table") or call.params.get("view")
    on = Securable("TABLE", schema.database, schema.schema, naming.display(name))
    if route[-1] == "credentials":
        return [access.Need("SELECT", on)]
    if method == "GET":
        return [access.Need("SELECT", on)]
    if method == "HEAD":
        return [access.Need("ANY", on)]
    if method == "DELETE":
        return [access.Need("OWNERSHIP", on)]
    if route[-2] == "views":  # replace a view
        return [access.Need("OWNERSHIP", on)]
    if any(r.get("type") == "assert-create" for r in call.body.get("requirements") or []):
        return [access.Need("CREATE TABLE", schema)]
    return [access.Need(p, on) for p in commit_privileges(call.body)]


def commit_privileges(change: dict[str, Any]) -> set[str]:
    """The privileges a table commit needs, from its updates."""
    found: set[str] = set()
    creating = any(r.get("type") == "assert-create" for r in change.get("requirements") or [])
    for update in change.get("updates") or []:
        action = update.get("action")
        if action == "add-snapshot":
            operation = ((update.get("snapshot") or {}).get("summary") or {}).get("operation", "overwrite")
            found.add(_SNAPSHOT_PRIVILEGES.get(operation, "UPDATE"))
        elif not (creating and action in _CREATE_PARTS) and action not in _DATA_COMMIT_PARTS:
            found.add("OWNERSHIP")
    return found or {"UPDATE"}


def after(grants: Grants, role: str, route: tuple[str, ...], method: str, call: Any) -> None:
    """Ownership of what was created; the grants of what was dropped or renamed."""
    if route == ("v1", "config") or route[-1] == "metrics" or method in ("GET", "HEAD"):
        return
    database = database_of(call)
    if route[-1] == "namespaces":
        created = (call.body.get("namespace") or [""])[0]
        grants.set_owner(Securable("SCHEMA", database, naming.display(created)), role, role)
    elif route[-2:] in (("tables", "rename"), ("views", "rename")):
        source, destination = call.body.get("source") or {}, call.body.get("destination") or {}
        old = _object(database, source.get("namespace"), source.get("name"))
        grants.move(old, _object(database, destination.get("namespace"), destination.get("name")))
    elif route[-2:] == ("transactions", "commit"):
        return
    elif len(route) == 4 and method == "DELETE":
        grants.forget(_schema(database, call.params["namespace"].split("\x1f")))
    elif route[-1] in ("tables", "views", "register"):
        kind = "VIEW" if route[-1] == "views" else "TABLE"
        made = _object(database, call.params["namespace"].split("\x1f"), call.body.get("name"))
        grants.set_owner(Securable(kind, made.database, made.schema, made.name), role, role)
    elif len(route) == 6:
        name = call.params.get("table") or call.params.get("view")
        on = _object(database, call.params["namespace"].split("\x1f"), name)
        if method == "DELETE":
            grants.forget(on)
        elif any(r.get("type") == "assert-create" for r in call.body.get("requirements") or []):
            grants.set_owner(on, role, role)


def visible(grants: Grants, roles: set[str], call: Any, result: Any) -> Any:
    """Listings show only the schemas and objects the roles hold something on."""
    if not isinstance(result, dict) or ("namespaces" not in result and "identifiers" not in result):
        return result
    database = database_of(call)
    if "namespaces" in result:
        kept = [ns for ns in result["namespaces"] if grants.allows(roles, "USAGE", _schema(database, ns))]
        return {**result, "namespaces": kept}
    kept = [
        ident
        for ident in result["identifiers"]
        if grants.privileges(roles, _object(database, ident.get("namespace"), ident.get("name")))
    ]
    return {**result, "identifiers": kept}


def database_of(call: Any) -> str:
    from embucket_py.server.iceberg_rest import names

    return naming.display(names.database_key(call.state.metastore, call.params["prefix"]))


def _schema(database: str, namespace: Any) -> Securable:
    level = namespace[0] if isinstance(namespace, list | tuple) and namespace else str(namespace or "")
    return Securable("SCHEMA", database, naming.display(level))


def _object(database: str, namespace: Any, name: Any) -> Securable:
    schema = _schema(database, namespace)
    return Securable("TABLE", database, schema.schema, naming.display(str(name or "")))


def _not_found_type(kind: str) -> str:
    return {"SCHEMA": "NoSuchNamespaceException", "DATABASE": "NoSuchNamespaceException"}.get(
        kind, "NoSuchTableException"
    )

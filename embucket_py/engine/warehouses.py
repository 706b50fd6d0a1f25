"""Warehouse statements, SHOW WAREHOUSES and DESCRIBE WAREHOUSE.

A warehouse is bookkeeping here (catalog/warehouses.py): statements run in this process whatever
warehouse the session uses, and USE WAREHOUSE accepts any name, as connection settings written
for Snowflake name warehouses that need not exist here. Privileges follow Snowflake: CREATE
WAREHOUSE on the account (SYSADMIN's by default), OPERATE to suspend and resume, MODIFY to change
properties, OWNERSHIP to rename and drop, any privilege to see it.
https://docs.snowflake.com/en/user-guide/security-access-control-privileges#virtual-warehouse-privileges
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from embucket_py import naming
from embucket_py.catalog.grants import ACCOUNT, Securable
from embucket_py.catalog.warehouses import Warehouse, Warehouses
from embucket_py.engine import access
from embucket_py.engine.metadata_columns import DESCRIBE_WAREHOUSE
from embucket_py.engine.result import OK, QueryResult, StatementType, constant, status
from embucket_py.errors import AccessDenied, SnowflakeError, object_not_found
from embucket_py.sessions.session import Session
from embucket_py.sql.warehouses import DEFAULTS, WarehouseStatement

# What each ALTER needs besides OWNERSHIP.
_ALTER_PRIVILEGE = {
    "SUSPEND": "OPERATE",
    "RESUME": "OPERATE",
    "ABORT": "OPERATE",
    "SET": "MODIFY",
    "UNSET": "MODIFY",
}


def securable(name: str) -> Securable:
    return Securable("WAREHOUSE", name=name)


def run(warehouses: Warehouses, session: Session, s: WarehouseStatement) -> QueryResult:
    """Raises: ObjectNotFound / ObjectAlreadyExists / AccessDenied / SnowflakeError (a state change
    the warehouse's state does not allow)."""
    grants = warehouses.metastore.grants
    roles = access.active_roles(grants, session)
    name = s.name or session.warehouse or ""
    if s.action == "CREATE":
        access.require(grants, roles, access.Need("CREATE WAREHOUSE", ACCOUNT))
        options = {k: v for k, v in s.properties.items() if k not in ("COMMENT", "INITIALLY_SUSPENDED")}
        state = "SUSPENDED" if s.properties.get("INITIALLY_SUSPENDED") == "true" else "STARTED"
        comment = s.properties.get("COMMENT")
        made = Warehouse(name, state, None if comment is None else str(comment), options)
        if s.replace:
            grants.forget(securable(name))
        if not warehouses.create(made, replace=s.replace, if_not_exists=s.if_exists):
            return status(f"{naming.quote(name)} already exists, statement succeeded.")
        grants.set_owner(securable(name), session.role, session.role)
        session.warehouse = name  # as on Snowflake, a new warehouse becomes the session's
        return status(f"Warehouse {naming.quote(name)} successfully created.")
    found = warehouses.get(name)
    held = grants.privileges(roles, securable(name)) if found is not None else set()
    if not held:
        if s.if_exists:
            return status(
                OK
                if s.action == "ALTER"
                else f"Drop statement executed successfully ({naming.quote(name)} already dropped)."
            )
        raise object_not_found("Warehouse", naming.quote(name))
    assert found is not None
    if s.action == "DESCRIBE":
        row = (_utc(found.created_on), found.name, "WAREHOUSE")
        return constant(DESCRIBE_WAREHOUSE, [row], StatementType.DESCRIBE)
    needed = _ALTER_PRIVILEGE.get(s.operation or "", "OWNERSHIP")
    if "OWNERSHIP" not in held and needed not in held:
        raise AccessDenied(f"Insufficient privileges to operate on warehouse '{name}'")
    if s.action == "DROP":
        warehouses.drop(name)
        grants.forget(securable(name))
        return status(f"{naming.quote(name)} successfully dropped.")
    return _alter(warehouses, session, found, s)


def columns_only(s: WarehouseStatement) -> QueryResult:
    """The result's columns without running the statement (a describe-only request)."""
    if s.action == "DESCRIBE":
        return constant(DESCRIBE_WAREHOUSE, [], StatementType.DESCRIBE)
    result = status(OK)
    result.batches = []
    return result


def _alter(warehouses: Warehouses, session: Session, found: Warehouse, s: WarehouseStatement) -> QueryResult:
    name = found.name
    if s.operation == "SUSPEND":
        if found.state == "SUSPENDED":
            raise _invalid_state(name, "suspended")
        warehouses.update(name, state="SUSPENDED")
    elif s.operation == "RESUME":
        if found.state == "STARTED" and not s.if_suspended:
            raise _invalid_state(name, "resumed")
        warehouses.update(name, state="STARTED")
    elif s.operation == "RENAME" and s.rename is not None:
        warehouses.update(name, name=s.rename)
        warehouses.metastore.grants.move(securable(name), securable(s.rename))
        if session.warehouse == name:
            session.warehouse = s.rename
    elif s.operation == "SET":
        options = {**found.options, **{k: v for k, v in s.properties.items() if k != "COMMENT"}}
        changes: dict[str, object] = {"options": options}
        if "COMMENT" in s.properties:
            changes["comment"] = str(s.properties["COMMENT"])
        warehouses.update(name, **changes)
    elif s.operation == "UNSET":
        options = {k: v for k, v in found.options.items() if k not in s.unset}
        changes = {"options": options} | ({"comment": None} if "COMMENT" in s.unset else {})
        warehouses.update(name, **changes)
    # ABORT ALL QUERIES cancels nothing: a client cancels its own statements (abort-request).
    return status(OK)


def _invalid_state(name: str, verb: str) -> SnowflakeError:
    return SnowflakeError(
        f"Invalid state. Warehouse '{name}' cannot be {verb}.", code=90064, sqlstate="22000"
    )


def show_rows(warehouses: Warehouses, session: Session) -> list[dict[str, Any]]:
    """SHOW WAREHOUSES: those the session's roles hold any privilege on."""
    grants = warehouses.metastore.grants
    roles = access.active_roles(grants, session)
    rows = []
    for w in warehouses.list():
        if not grants.privileges(roles, securable(w.name)):
            continue
        option = {**DEFAULTS, **w.options}
        started = w.state == "STARTED"
        rows.append(
            {
                "name": w.name,
                "state": w.state,
                "type": option["WAREHOUSE_TYPE"],
                "size": option["WAREHOUSE_SIZE"],
                "min_cluster_count": option["MIN_CLUSTER_COUNT"],
                "max_cluster_count": option["MAX_CLUSTER_COUNT"],
                "started_clusters": 1 if started else 0,
                "running": 0,
                "queued": 0,
                "is_default": "N",
                "is_current": "Y" if w.name == session.warehouse else "N",
                "auto_suspend": option["AUTO_SUSPEND"],
                "auto_resume": option["AUTO_RESUME"],
                "available": "100" if started else "",
                "provisioning": "0" if started else "",
                "quiescing": "0" if started else "",
                "other": "0" if started else "",
                "created_on": _utc(w.created_on),
                "resumed_on": _utc(w.resumed_on),
                "updated_on": _utc(w.updated_on),
                "owner": grants.owner(securable(w.name)),
                "comment": w.comment or "",
                "enable_query_acceleration": option["ENABLE_QUERY_ACCELERATION"],
                "query_acceleration_max_scale_factor": option["QUERY_ACCELERATION_MAX_SCALE_FACTOR"],
                "resource_monitor": option["RESOURCE_MONITOR"],
                "scaling_policy": option["SCALING_POLICY"],
                "owner_role_type": "ROLE",
            }
        )
    return rows


def _utc(value: datetime | None) -> datetime | None:
    # The metastore's DateTime columns come back naive; they hold UTC.
    return value.replace(tzinfo=UTC) if value is not None and value.tzinfo is None else value

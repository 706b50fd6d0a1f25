"""Dynamic tables: a table kept equal to its query's result.

CREATE DYNAMIC TABLE makes the table as CREATE TABLE ... AS does (INITIALIZE = ON_CREATE) and
records a task of kind DYNAMIC TABLE whose run refreshes it: the query's rows replace the table's
in one Iceberg commit (INSERT OVERWRITE; a full refresh), as the owner role, every TARGET_LAG
(DOWNSTREAM: when a dynamic table that reads it refreshes, or on ALTER DYNAMIC TABLE ...
REFRESH). The task runner and scheduler of engine/tasks.py run the refreshes; a table replaced
or dropped since is no longer refreshed.
https://docs.snowflake.com/en/user-guide/dynamic-tables-about
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from sqlglot import exp

from embucket_py.catalog.grants import Securable
from embucket_py.catalog.tables import TableName, Tables
from embucket_py.catalog.tasks import DYNAMIC_TABLE, Task, Tasks
from embucket_py.engine import access
from embucket_py.engine.metadata_columns import NUMBER, TEXT, TIMESTAMP_LTZ, Columns
from embucket_py.engine.result import QueryResult, StatementType, constant, status
from embucket_py.engine.task_schedule import check, first_run_ms
from embucket_py.errors import object_not_found
from embucket_py.sessions.session import Session
from embucket_py.sql import views
from embucket_py.sql.context import SqlContext
from embucket_py.sql.dynamic_tables import DynamicStatement, DynamicTable, definition_text
from embucket_py.sql.names import like_matches
from embucket_py.sql.nodes import Nodes
from embucket_py.sql.parse import parse
from embucket_py.sql.tasks import parse_schedule

if TYPE_CHECKING:
    from embucket_py.engine.executor import Engine

KIND = DYNAMIC_TABLE
DYNAMIC_PROPERTY = "embucket.dynamic-table"  # on the Iceberg table: SHOW's is_dynamic


def check_lag(target_lag: str) -> str | None:
    """The refresh schedule of a TARGET_LAG (None: DOWNSTREAM).

    Raises:
        SqlCompilationError: neither an interval nor DOWNSTREAM.
    """
    if target_lag.upper() == "DOWNSTREAM":
        return None
    check(parse_schedule(target_lag))
    return target_lag


def record(tables: Tables, session: Session, dynamic: DynamicTable) -> None:
    """After the CTAS made the table: marks it dynamic and records its refreshes."""
    ref = TableName(*dynamic.parts)
    with tables.load(ref).transaction() as tx:
        tx.set_properties({DYNAMIC_PROPERTY: "true"})
    schedule = check_lag(dynamic.target_lag)
    options: dict[str, object] = {
        "refresh_mode": dynamic.refresh_mode,
        "table_uuid": str(tables.load(ref).metadata.table_uuid),
    }
    task = Task(
        *dynamic.parts,
        dynamic.query,
        schedule=schedule,
        warehouse=dynamic.warehouse,
        started=True,
        next_run_ms=first_run_ms(schedule),
        owner=session.role,
    )
    options["sources"] = source_versions(tables, task)  # what the CTAS read: no refresh until they change
    tables.dynamic_tables.create(
        replace(task, options=json.dumps(options)), replace=True, if_not_exists=False
    )


def forget(tables: Tables, parts: list[str]) -> None:
    """A table of that name was created or dropped by other DDL: no refreshes of the old one."""
    tables.dynamic_tables.drop(*parts, if_exists=True)


def source_versions(tables: Tables, task: Task) -> dict[str, list[int | None]] | None:
    """The version of each table the query reads: its snapshot and schema (a renamed or dropped
    column changes what the query means); None when it reads something whose changes are not
    known so (a view, a stream, a table function): then every refresh runs."""
    (tree,) = parse(task.definition)
    if any(not isinstance(t.this, exp.Identifier) for t in tree.find_all(exp.Table)):
        return None  # TABLE(...) and other sources that are not stored tables
    versions: dict[str, list[int | None]] = {}
    for _, parts in views.references(Nodes(tree), SqlContext(task.database, task.schema)):
        table = tables.find(TableName(*parts))
        if table is None:
            return None
        snapshot = table.current_snapshot()
        versions[".".join(parts)] = [
            snapshot.snapshot_id if snapshot else None,
            table.metadata.current_schema_id,
        ]
    return versions


def downstream_sources(tables: Tables, task: Task) -> list[Task]:
    """The dynamic tables with TARGET_LAG = DOWNSTREAM (and not suspended) that the query reads:
    a refresh refreshes them first, as Snowflake refreshes such a table when one that depends on
    it refreshes."""
    (tree,) = parse(task.definition)
    found = []
    for _, parts in views.references(Nodes(tree), SqlContext(task.database, task.schema)):
        upstream = tables.dynamic_tables.get(*parts)
        if (
            upstream is not None
            and upstream.schedule is None
            and upstream.started
            and is_current(tables, upstream)
        ):
            found.append(upstream)
    return found


def unchanged_since_refresh(tables: Tables, task: Task) -> tuple[bool, dict[str, list[int | None]] | None]:
    """Whether every table the query reads is as the last refresh read it (nothing to refresh:
    Snowflake's NO_DATA), and the versions a refresh now reads (to record once it succeeds)."""
    versions = source_versions(tables, task)
    read = json.loads(task.options or "{}").get("sources")
    return versions is not None and versions == read, versions


def refreshed(store: Tasks, task: Task, versions: dict[str, list[int | None]] | None) -> None:
    """Records the source versions a successful refresh read."""
    options = {**json.loads(task.options or "{}"), "sources": versions}
    store.update(task, options=json.dumps(options))


def is_current(tables: Tables, task: Task) -> bool:
    """Whether the table is still the one the dynamic table made (not replaced or dropped)."""
    table = tables.find(TableName(*task.parts))
    uuid = json.loads(task.options or "{}").get("table_uuid")
    return table is not None and str(table.metadata.table_uuid) == uuid


def run(engine: Engine, tables: Tables, session: Session, statement: DynamicStatement) -> QueryResult:
    """ALTER DYNAMIC TABLE and SHOW DYNAMIC TABLES.

    Raises:
        ObjectNotFound: no such dynamic table (or one the role does not see).
        SnowflakeError: REFRESH's statement failed (the table keeps its rows).
    """
    grants = tables.metastore.grants
    roles = access.active_roles(grants, session)
    dynamic = tables.dynamic_tables
    if statement.action == "SHOW":
        return _show(tables, dynamic, statement, roles)
    task = dynamic.get(*statement.parts)
    on = Securable("TABLE", *statement.parts)
    if task is None or not is_current(tables, task) or not access.visible(grants, roles, on):
        if statement.if_exists:
            return status("Statement executed successfully.")
        raise object_not_found("Dynamic table", ".".join(statement.parts))
    access.require(grants, roles, access.Need("OWNERSHIP" if statement.change == "SET" else "UPDATE", on))
    if statement.change == "REFRESH":
        engine.tasks.refresh(task)
    elif statement.change == "SUSPEND":
        dynamic.update(task, started=False, next_run_ms=None, suspended_on=datetime.now(UTC))
    elif statement.change == "RESUME":
        dynamic.update(task, started=True, next_run_ms=first_run_ms(task.schedule))
    else:  # SET
        settings = statement.settings or {}
        changes: dict[str, object] = {}
        if "TARGET_LAG" in settings:
            changes["schedule"] = check_lag(settings["TARGET_LAG"])
            changes["next_run_ms"] = first_run_ms(changes["schedule"]) if task.started else None  # type: ignore[arg-type]
        if "WAREHOUSE" in settings:
            changes["warehouse"] = settings["WAREHOUSE"].upper()
        dynamic.update(task, **changes)
    return status("Statement executed successfully.")


# https://docs.snowflake.com/en/sql-reference/sql/show-dynamic-tables#output
SHOW_DYNAMIC_TABLES: Columns = [
    ("created_on", TIMESTAMP_LTZ),
    *[(n, TEXT) for n in ("name", "reserved", "database_name", "schema_name", "cluster_by")],
    ("rows", NUMBER),
    ("bytes", NUMBER),
    *[(n, TEXT) for n in ("owner", "target_lag", "refresh_mode", "refresh_mode_reason", "warehouse")],
    *[(n, TEXT) for n in ("comment", "text", "automatic_clustering", "scheduling_state")],
    ("last_suspended_on", TIMESTAMP_LTZ),
    *[(n, TEXT) for n in ("is_clone", "is_replica", "is_iceberg")],
    ("data_timestamp", TIMESTAMP_LTZ),
    ("owner_role_type", TEXT),
    ("immutable_where", TEXT),
]


def _show(tables: Tables, dynamic: Tasks, statement: DynamicStatement, roles: set[str]) -> QueryResult:
    grants = tables.metastore.grants
    rows = []
    for database, schema in tables.metastore.schemas_in_scope(statement.parts):
        for task in dynamic.list(database, schema):
            if statement.like is not None and not like_matches(statement.like, task.name):
                continue
            if not is_current(tables, task) or not access.visible(
                grants, roles, Securable("TABLE", *task.parts)
            ):
                continue
            rows.append(_row(tables, task))
    return constant(SHOW_DYNAMIC_TABLES, rows, StatementType.SHOW)


def _row(tables: Tables, task: Task) -> tuple[object, ...]:
    table = tables.load(TableName(*task.parts))
    count, size = Tables.size(table)
    snapshot = table.current_snapshot()
    lag = task.schedule or "DOWNSTREAM"
    mode = json.loads(task.options or "{}").get("refresh_mode", "AUTO")
    text = definition_text(task.name, lag, task.warehouse, mode, task.definition)
    refreshed = datetime.fromtimestamp(snapshot.timestamp_ms / 1000, UTC) if snapshot else None
    suspended = task.suspended_on if not task.started else None
    return (
        *(task.created_on, task.name, "", task.database, task.schema, "", count, size, task.owner or ""),
        *(
            lag,
            mode,
            "",
            task.warehouse,
            Tables.comment(table) or "",
            text,
            "OFF",
            "RUNNING" if task.started else "SUSPENDED",
        ),
        *(suspended, "false", "false", "false", refreshed, "ROLE", None),
    )

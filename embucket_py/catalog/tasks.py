"""Tasks and their runs, kept in the metastore.

A task is a statement with a schedule (or predecessors), a state (started or suspended) and the
time its next scheduled run is due; every run is a row of `embucket_task_runs`, which
INFORMATION_SCHEMA.TASK_HISTORY() reads. Claiming a due run is one conditional UPDATE of the due
time, so of several servers sharing the metastore exactly one runs it.
https://docs.snowflake.com/en/user-guide/tasks-intro
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa

from embucket_py import naming
from embucket_py.catalog.metastore import Metastore
from embucket_py.errors import already_exists, object_not_found

DYNAMIC_TABLE = "DYNAMIC TABLE"  # the kind of the tasks that refresh dynamic tables

_meta = sa.MetaData()
tasks_table = sa.Table(
    "embucket_tasks",
    _meta,
    sa.Column("database", sa.String(255), primary_key=True),
    sa.Column("schema", sa.String(255), primary_key=True),
    sa.Column("name", sa.String(255), primary_key=True),
    sa.Column("kind", sa.String(16), primary_key=True),  # TASK, or DYNAMIC TABLE (its refreshes)
    sa.Column("id", sa.String(64), nullable=False),  # a task made again is another task
    sa.Column("definition", sa.Text, nullable=False),
    sa.Column("schedule", sa.Text),
    sa.Column("condition", sa.Text),
    sa.Column("predecessors", sa.Text, nullable=False),  # JSON list of qualified names
    sa.Column("warehouse", sa.String(255)),
    sa.Column("comment", sa.Text),
    sa.Column("options", sa.Text),  # JSON: what a kind keeps besides (a dynamic table's refresh mode)
    sa.Column("allow_overlapping", sa.Boolean, nullable=False),
    sa.Column("started", sa.Boolean, nullable=False),
    sa.Column("next_run_ms", sa.BigInteger),  # when the next scheduled run is due (started only)
    sa.Column("owner", sa.String(255)),
    sa.Column("created_on", sa.DateTime, nullable=False),
    sa.Column("committed_on", sa.DateTime, nullable=False),
    sa.Column("suspended_on", sa.DateTime),
)
runs_table = sa.Table(
    "embucket_task_runs",
    _meta,
    sa.Column("run", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("query_id", sa.String(64)),
    sa.Column("database", sa.String(255), nullable=False),
    sa.Column("schema", sa.String(255), nullable=False),
    sa.Column("name", sa.String(255), nullable=False),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("task_id", sa.String(64), nullable=False),
    sa.Column("root_task_id", sa.String(64), nullable=False),
    sa.Column("graph_run_id", sa.BigInteger, nullable=False),
    sa.Column("query_text", sa.Text),
    sa.Column("condition_text", sa.Text),
    sa.Column("state", sa.String(16), nullable=False),  # EXECUTING SUCCEEDED FAILED SKIPPED
    sa.Column("error_code", sa.String(16)),
    sa.Column("error_message", sa.Text),
    sa.Column("scheduled_ms", sa.BigInteger, nullable=False),
    sa.Column("started_ms", sa.BigInteger),
    sa.Column("completed_ms", sa.BigInteger),
    sa.Column("next_scheduled_ms", sa.BigInteger),
    sa.Column("scheduled_from", sa.String(16), nullable=False),  # SCHEDULE | EXECUTE_TASK
    sa.Index("embucket_task_runs_scheduled", "scheduled_ms"),
)


@dataclass(frozen=True)
class Task:
    database: str
    schema: str
    name: str
    definition: str
    schedule: str | None = None
    condition: str | None = None
    predecessors: tuple[tuple[str, str, str], ...] = ()
    warehouse: str | None = None
    comment: str | None = None
    allow_overlapping: bool = False
    started: bool = False
    next_run_ms: int | None = None
    owner: str | None = None
    id: str = field(default_factory=lambda: uuid.uuid4().hex)
    created_on: datetime | None = None
    committed_on: datetime | None = None
    suspended_on: datetime | None = None
    kind: str = "TASK"
    options: str | None = None  # JSON

    @property
    def parts(self) -> tuple[str, str, str]:
        return (self.database, self.schema, self.name)


@dataclass(frozen=True)
class TaskRun:
    """One row of TASK_HISTORY."""

    query_id: str | None
    task: tuple[str, str, str]
    kind: str
    task_id: str
    root_task_id: str
    graph_run_id: int
    query_text: str | None
    condition_text: str | None
    state: str
    error_code: str | None
    error_message: str | None
    scheduled_ms: int
    started_ms: int | None
    completed_ms: int | None
    next_scheduled_ms: int | None
    scheduled_from: str


def _key(parts: tuple[str, str, str]) -> dict[str, str]:
    return {
        "database": naming.stored(parts[0]),
        "schema": naming.stored(parts[1]),
        "name": naming.stored(parts[2]),
    }


class Tasks:
    """The tasks of one kind: TASK, or DYNAMIC TABLE (a table a task refreshes)."""

    def __init__(self, metastore: Metastore, kind: str = "TASK") -> None:
        self.metastore = metastore
        self.kind = kind
        _meta.create_all(metastore.engine)

    def _where(self, database: str, schema: str, name: str | None = None) -> sa.ColumnElement[bool]:
        c = tasks_table.c
        clause = sa.and_(
            c.kind == self.kind, c.database == naming.stored(database), c.schema == naming.stored(schema)
        )
        return clause if name is None else sa.and_(clause, c.name == naming.stored(name))

    @staticmethod
    def _row_of(task: Task) -> sa.ColumnElement[bool]:
        c = tasks_table.c
        return sa.and_(c.kind == task.kind, *(c[k] == v for k, v in _key(task.parts).items()))

    def get(self, database: str, schema: str, name: str) -> Task | None:
        found = self.list(database, schema, name)
        return found[0] if found else None

    def list(self, database: str, schema: str, name: str | None = None) -> list[Task]:
        query = sa.select(tasks_table).where(self._where(database, schema, name))
        with self.metastore.engine.connect() as conn:
            return [_task(r) for r in conn.execute(query.order_by(tasks_table.c.name))]

    def due(self, now_ms: int) -> list[Task]:
        """Started tasks (of any kind) with a schedule whose next run is due."""
        c = tasks_table.c
        query = sa.select(tasks_table).where(c.started.is_(True), c.next_run_ms <= now_ms)
        with self.metastore.engine.connect() as conn:
            return [_task(r) for r in conn.execute(query)]

    def successors(self, task: Task) -> list[Task]:
        """The tasks that name `task` after AFTER (in any schema)."""
        needle = json.dumps(list(task.parts))
        with self.metastore.engine.connect() as conn:
            found = sa.and_(tasks_table.c.kind == task.kind, tasks_table.c.predecessors.contains(needle))
            rows = conn.execute(sa.select(tasks_table).where(found))
            return [_task(r) for r in rows]

    def create(self, task: Task, *, replace: bool, if_not_exists: bool) -> bool:
        """Returns False if it existed and IF NOT EXISTS was given.

        Raises:
            ObjectAlreadyExists: it exists and neither OR REPLACE nor IF NOT EXISTS was given.
        """
        self.metastore.require_schema(task.database, task.schema)
        key = self._where(*task.parts)
        now = datetime.now(UTC)
        with self.metastore.engine.begin() as conn:
            if conn.execute(sa.select(tasks_table.c.name).where(key)).first() is not None:
                if if_not_exists:
                    return False
                if not replace:
                    raise already_exists("Task", task.name)
                conn.execute(tasks_table.delete().where(key))
            made = {**_key(task.parts), **_values(task), "kind": self.kind, "created_on": now}
            conn.execute(tasks_table.insert().values(**made))
        return True

    def update(self, task: Task, **changes: Any) -> Task:
        """Stores changed attributes (those of `Task`); returns the task as it now is."""
        changed = _values(replace(task, **changes))
        with self.metastore.engine.begin() as conn:
            conn.execute(tasks_table.update().where(self._row_of(task)).values(**changed))
        with self.metastore.engine.connect() as conn:
            found = next(
                (_task(r) for r in conn.execute(sa.select(tasks_table).where(self._row_of(task)))), None
            )
        if found is None:
            raise object_not_found("Task", ".".join(task.parts))
        return found

    def claim(self, task: Task, next_run_ms: int | None) -> bool:
        """Moves a due task's next run on; True when this call did (no other server did first)."""
        c = tasks_table.c
        update = (
            tasks_table.update()
            .where(self._row_of(task), c.id == task.id, c.next_run_ms == task.next_run_ms)
            .values(next_run_ms=next_run_ms)
        )
        with self.metastore.engine.begin() as conn:
            return conn.execute(update).rowcount == 1

    def drop(self, database: str, schema: str, name: str, *, if_exists: bool) -> bool:
        with self.metastore.engine.begin() as conn:
            deleted = conn.execute(tasks_table.delete().where(self._where(database, schema, name))).rowcount
        if not deleted and not if_exists:
            raise object_not_found("Task", f"{database}.{schema}.{name}")
        return bool(deleted)

    # --- runs (TASK_HISTORY) ---------------------------------------------------------------------

    def start_run(self, run: TaskRun) -> int:
        """Records a run as it starts (or is skipped); returns its row id for `finish_run`."""
        with self.metastore.engine.begin() as conn:
            inserted = conn.execute(runs_table.insert().values(**_run_values(run)))
            return int(inserted.inserted_primary_key[0])

    def finish_run(self, row: int, **changes: Any) -> None:
        with self.metastore.engine.begin() as conn:
            conn.execute(runs_table.update().where(runs_table.c.run == row).values(**changes))

    def last_states(self, task_id: str, limit: int) -> list[str]:
        """The states of a task's latest runs that did not skip, latest first."""
        c = runs_table.c
        query = sa.select(c.state).where(c.task_id == task_id, c.state != "SKIPPED")
        with self.metastore.engine.connect() as conn:
            return [r.state for r in conn.execute(query.order_by(c.run.desc()).limit(limit))]

    def runs(self, *, limit: int, task_name: str | None = None) -> list[TaskRun]:
        """The latest runs first (by scheduled time), optionally of the tasks of one name (in any
        case, as TASK_HISTORY's TASK_NAME)."""
        query = sa.select(runs_table).where(runs_table.c.kind == self.kind)
        query = query.order_by(runs_table.c.scheduled_ms.desc(), runs_table.c.run.desc())
        if task_name is not None:
            query = query.where(sa.func.upper(runs_table.c.name) == task_name.upper())
        with self.metastore.engine.connect() as conn:
            return [_run(r) for r in conn.execute(query.limit(limit))]


def _values(task: Task) -> dict[str, Any]:
    return {
        "id": task.id,
        "definition": task.definition,
        "schedule": task.schedule,
        "condition": task.condition,
        "predecessors": json.dumps([list(p) for p in task.predecessors]),
        "warehouse": task.warehouse,
        "comment": task.comment,
        "options": task.options,
        "allow_overlapping": task.allow_overlapping,
        "started": task.started,
        "next_run_ms": task.next_run_ms,
        "owner": task.owner,
        "suspended_on": task.suspended_on,
        "committed_on": task.committed_on or datetime.now(UTC),
    }


def _utc(moment: datetime | None) -> datetime | None:
    """The metastore's DateTime columns come back naive; they hold UTC."""
    return moment.replace(tzinfo=UTC) if moment is not None and moment.tzinfo is None else moment


def _task(row: sa.Row) -> Task:
    return Task(
        naming.display(row.database),
        naming.display(row.schema),
        naming.display(row.name),
        row.definition,
        row.schedule,
        row.condition,
        tuple((p[0], p[1], p[2]) for p in json.loads(row.predecessors)),
        row.warehouse,
        row.comment,
        bool(row.allow_overlapping),
        bool(row.started),
        row.next_run_ms,
        row.owner,
        row.id,
        _utc(row.created_on),
        _utc(row.committed_on),
        _utc(row.suspended_on),
        row.kind,
        row.options,
    )


def _run_values(run: TaskRun) -> dict[str, Any]:
    return {
        "query_id": run.query_id,
        **_key(run.task),
        "kind": run.kind,
        "task_id": run.task_id,
        "root_task_id": run.root_task_id,
        "graph_run_id": run.graph_run_id,
        "query_text": run.query_text,
        "condition_text": run.condition_text,
        "state": run.state,
        "error_code": run.error_code,
        "error_message": run.error_message,
        "scheduled_ms": run.scheduled_ms,
        "started_ms": run.started_ms,
        "completed_ms": run.completed_ms,
        "next_scheduled_ms": run.next_scheduled_ms,
        "scheduled_from": run.scheduled_from,
    }


def _run(row: sa.Row) -> TaskRun:
    return TaskRun(
        row.query_id,
        (naming.display(row.database), naming.display(row.schema), naming.display(row.name)),
        row.kind,
        row.task_id,
        row.root_task_id,
        row.graph_run_id,
        row.query_text,
        row.condition_text,
        row.state,
        row.error_code,
        row.error_message,
        row.scheduled_ms,
        row.started_ms,
        row.completed_ms,
        row.next_scheduled_ms,
        row.scheduled_from,
    )

"""Tasks: CREATE / ALTER / DROP / DESCRIBE / EXECUTE TASK, SHOW TASKS, the runs of a task graph,
the scheduler that starts them, and INFORMATION_SCHEMA.TASK_HISTORY().

A run executes the task's statement in a session of its own, as the task's owner role, in the
task's database and schema (recorded in QUERY_HISTORY like any statement). A task with a WHEN
condition that is not TRUE is SKIPPED; when a task succeeds, each child task (AFTER) whose
predecessors have all succeeded in this graph run runs next. The scheduler wakes twice a second
and claims each due task in the metastore before running it, so servers sharing a metastore run
every scheduled run once.
https://docs.snowflake.com/en/user-guide/tasks-intro
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import pyarrow as pa
from sqlglot import exp

from embucket_py import naming
from embucket_py.catalog.grants import Securable
from embucket_py.catalog.tables import Tables
from embucket_py.catalog.tasks import Task, TaskRun, Tasks
from embucket_py.engine import access, dynamic_tables
from embucket_py.engine.metadata_columns import NUMBER, TEXT, TIMESTAMP_LTZ, Columns
from embucket_py.engine.result import QueryResult, StatementType, constant, status
from embucket_py.engine.task_schedule import check, first_run_ms, next_run_ms
from embucket_py.errors import SnowflakeError, SqlCompilationError, object_not_found
from embucket_py.sessions.session import Session
from embucket_py.sql.context import SqlContext
from embucket_py.sql.dynamic_tables import refresh_sql
from embucket_py.sql.names import SourceText, like_matches, name_parts, projection_name
from embucket_py.sql.tasks import TaskStatement, condition_query, parse_schedule
from embucket_py.types import arrow_field

if TYPE_CHECKING:
    from embucket_py.engine.executor import Engine

log = logging.getLogger(__name__)

TASK_USER = "SYSTEM"  # the user a task's statements run as, as on Snowflake


def securable(parts: list[str] | tuple[str, ...]) -> Securable:
    return Securable("TASK", parts[0], parts[1], parts[2])


def run(engine: Engine, tables: Tables, session: Session, statement: TaskStatement) -> QueryResult:
    """Raises: ObjectNotFound / ObjectAlreadyExists / SqlCompilationError, as Snowflake does."""
    grants = tables.metastore.grants
    roles = access.active_roles(grants, session)
    store = tables.tasks
    if statement.action == "SHOW":
        return _show(tables, statement, lambda on: access.visible(grants, roles, on))
    database, schema, name = statement.parts
    on = securable(statement.parts)
    if statement.action == "CREATE":
        access.require(grants, roles, access.Need("CREATE TASK", Securable("SCHEMA", database, schema)))
        return _create(engine, store, session, statement)
    task = store.get(database, schema, name)
    if task is not None and not access.visible(grants, roles, on):
        task = None  # another role's task is as unknown as a missing one
    if task is None:
        if statement.if_exists:
            return status("Statement executed successfully.")
        raise object_not_found("Task", ".".join(statement.parts))
    if statement.action == "DESCRIBE":
        return constant(SHOW_TASKS, [_row(task)], StatementType.DESCRIBE)
    # Running, resuming and suspending take OPERATE (or ownership); other changes, ownership.
    operates = statement.action == "EXECUTE" or statement.change in ("RESUME", "SUSPEND")
    access.require(grants, roles, access.Need("OPERATE" if operates else "OWNERSHIP", on))
    if statement.action == "DROP":
        store.drop(database, schema, name, if_exists=True)
        grants.forget(on)
        return status(f"{name} successfully dropped.")
    if statement.action == "EXECUTE":
        if task.predecessors:
            raise SqlCompilationError(
                f"Cannot execute task {name}: EXECUTE TASK runs a root task (one without AFTER).", code=91091
            )
        engine.tasks.start(task, int(time.time() * 1000), "EXECUTE_TASK", wait=statement.wait)
        return status(f"Task {name} is scheduled to run immediately.")
    _alter(engine, store, task, statement)
    return status("Statement executed successfully.")


def _create(engine: Engine, store: Tasks, session: Session, statement: TaskStatement) -> QueryResult:
    database, schema, name = statement.parts
    assert statement.definition is not None
    engine.prepare(statement.definition)  # a statement that does not parse fails here, not at its run
    after = tuple((p[0], p[1], p[2]) for p in statement.after or [])
    _check_schedule(statement.options.get("SCHEDULE"), after)
    for predecessor in after:
        if store.get(*predecessor) is None:
            raise object_not_found("Task", ".".join(predecessor))
    task = Task(
        database,
        schema,
        name,
        statement.definition,
        schedule=statement.options.get("SCHEDULE"),
        condition=statement.condition,
        predecessors=after,
        warehouse=statement.options.get("WAREHOUSE"),
        comment=statement.options.get("COMMENT"),
        allow_overlapping=(statement.options.get("ALLOW_OVERLAPPING_EXECUTION") or "").upper() == "TRUE",
        owner=session.role,
        options=_failure_limit({}, statement.options.get("SUSPEND_TASK_AFTER_NUM_FAILURES")),
    )
    if not store.create(task, replace=statement.replace, if_not_exists=statement.if_exists):
        return status(f"{name} already exists, statement succeeded.")
    store.metastore.grants.set_owner(securable(statement.parts), session.role, session.role)
    return status(f"Task {name} successfully created.")


# A task is suspended after this many failed runs in a row (SUSPEND_TASK_AFTER_NUM_FAILURES;
# 0: never): Snowflake's default. https://docs.snowflake.com/en/sql-reference/parameters
DEFAULT_FAILURE_LIMIT = 10


def _failure_limit(options: dict[str, Any], value: str | None) -> str:
    """The task's options with SUSPEND_TASK_AFTER_NUM_FAILURES set (None: the default).

    Raises:
        SqlCompilationError: not a whole number of failures.
    """
    if value is not None and not value.isdigit():
        raise SqlCompilationError(
            f"Invalid value [{value}] for parameter 'SUSPEND_TASK_AFTER_NUM_FAILURES'",
            code=1008,
            sqlstate="22023",
        )
    options = {k: v for k, v in options.items() if k != "failure_limit"}
    if value is not None:
        options["failure_limit"] = int(value)
    return json.dumps(options)


def _check_schedule(schedule: str | None, after: tuple[tuple[str, str, str], ...]) -> None:
    if schedule is not None and after:
        raise SqlCompilationError("A task with predecessors (AFTER) cannot have a SCHEDULE.", code=91092)
    if schedule is not None:
        check(parse_schedule(schedule))


def _alter(engine: Engine, store: Tasks, task: Task, statement: TaskStatement) -> None:
    change, now = statement.change, datetime.now(UTC)
    if change == "RESUME":
        store.update(task, started=True, next_run_ms=first_run_ms(task.schedule))
    elif change == "SUSPEND":
        options = {k: v for k, v in json.loads(task.options or "{}").items() if k != "suspended_reason"}
        store.update(task, started=False, next_run_ms=None, suspended_on=now, options=json.dumps(options))
    elif change in ("SET", "UNSET"):
        changes: dict[str, Any] = {}
        for option, value in statement.options.items():
            if option == "SCHEDULE":
                _check_schedule(value, task.predecessors)
                changes["schedule"] = value
                changes["next_run_ms"] = first_run_ms(value) if task.started else None
            elif option == "ALLOW_OVERLAPPING_EXECUTION":
                changes["allow_overlapping"] = (value or "").upper() == "TRUE"
            elif option == "SUSPEND_TASK_AFTER_NUM_FAILURES":
                changes["options"] = _failure_limit(json.loads(task.options or "{}"), value)
            else:
                changes[option.lower()] = value
        store.update(task, committed_on=now, **changes)
    elif change == "MODIFY_AS":
        assert statement.definition is not None
        engine.prepare(statement.definition)
        store.update(task, definition=statement.definition, committed_on=now)
    elif change in ("MODIFY_WHEN", "REMOVE_WHEN"):
        store.update(task, condition=statement.condition, committed_on=now)
    else:  # ADD_AFTER | REMOVE_AFTER
        named = [(p[0], p[1], p[2]) for p in statement.after or []]
        if change == "ADD_AFTER":
            for predecessor in named:
                if store.get(*predecessor) is None:
                    raise object_not_found("Task", ".".join(predecessor))
            after = (*task.predecessors, *(p for p in named if p not in task.predecessors))
        else:
            after = tuple(p for p in task.predecessors if p not in named)
        _check_schedule(task.schedule, after)
        store.update(task, predecessors=after, committed_on=now)


def enable_dependents(
    tables: Tables, session: Session, projection: exp.Expression, ctx: SqlContext, source: SourceText
) -> QueryResult:
    """Resumes a task and, recursively, every task after it
    (https://docs.snowflake.com/en/sql-reference/functions/system_task_dependents_enable).

    Raises:
        ObjectNotFound: no such task (or one the role does not see).
        AccessDenied: a task of the graph the role may not resume.
    """
    args = projection.unalias().expressions
    if len(args) != 1 or not (isinstance(args[0], exp.Literal) and args[0].is_string):
        raise SqlCompilationError("SYSTEM$TASK_DEPENDENTS_ENABLE takes the name of a task.")
    grants = tables.metastore.grants
    roles = access.active_roles(grants, session)
    parts = name_parts(args[0].name, ctx, "TASK")
    task = tables.tasks.get(*parts)
    if task is None or not access.visible(grants, roles, securable(parts)):
        raise object_not_found("Task", ".".join(parts))
    graph, queue = [task], [task]
    while queue:
        for child in tables.tasks.successors(queue.pop(0)):
            if child.parts not in {t.parts for t in graph}:
                graph.append(child)
                queue.append(child)
    for member in graph:
        access.require(grants, roles, access.Need("OPERATE", securable(member.parts)))
    for member in graph:
        tables.tasks.update(member, started=True, next_run_ms=first_run_ms(member.schedule))
    name = projection_name(projection, source) or "SYSTEM$TASK_DEPENDENTS_ENABLE"
    return constant([(name, TEXT)], [("",)], StatementType.SELECT)


# https://docs.snowflake.com/en/sql-reference/sql/show-tasks#output
SHOW_TASKS: Columns = [
    ("created_on", TIMESTAMP_LTZ),
    *[(n, TEXT) for n in ("name", "id", "database_name", "schema_name", "owner", "comment", "warehouse")],
    *[(n, TEXT) for n in ("schedule", "predecessors", "state", "definition", "condition")],
    ("allow_overlapping_execution", TEXT),
    ("error_integration", TEXT),
    ("last_committed_on", TIMESTAMP_LTZ),
    ("last_suspended_on", TIMESTAMP_LTZ),
    ("owner_role_type", TEXT),
    ("config", TEXT),
    ("budget", TEXT),
    ("task_relations", TEXT),
    ("last_suspended_reason", TEXT),
]


def _row(t: Task) -> tuple[object, ...]:
    predecessors = json.dumps([".".join(p) for p in t.predecessors], indent=2) if t.predecessors else "[]"
    relations = json.dumps({"Predecessors": [".".join(p) for p in t.predecessors]})
    state = "started" if t.started else "suspended"
    return (
        *(
            t.created_on,
            t.name,
            t.id,
            t.database,
            t.schema,
            t.owner or "",
            t.comment or "",
            t.warehouse,
        ),
        *(t.schedule, predecessors, state, t.definition, t.condition),
        "true" if t.allow_overlapping else "false",
        None,
        t.committed_on,
        t.suspended_on,
        "ROLE",
        None,
        None,
        relations,
        json.loads(t.options or "{}").get("suspended_reason", "USER_SUSPENDED")
        if t.suspended_on and not t.started
        else None,
    )


def _show(tables: Tables, statement: TaskStatement, visible: Callable[[Securable], bool]) -> QueryResult:
    """The tasks in scope that the session's roles see, by database, schema and name."""
    rows = [
        _row(t)
        for database, schema in tables.metastore.schemas_in_scope(statement.parts)
        for t in tables.tasks.list(database, schema)
        if (statement.like is None or like_matches(statement.like, t.name)) and visible(securable(t.parts))
    ]
    return constant(SHOW_TASKS, rows, StatementType.SHOW)


# --- runs -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GraphRun:
    """One run of a task graph: its root, id, the time it was due, what started it (SCHEDULE,
    EXECUTE_TASK, MANUAL) and when the root runs next."""

    root: Task
    id: int
    scheduled_ms: int
    source: str
    next_ms: int | None


def _new_run_id() -> int:
    return uuid.uuid4().int % (1 << 62)  # a positive 64-bit NUMBER, as RUN_ID is


class TaskRunner:
    """Runs task graphs on threads of their own, and the scheduler that starts the due ones."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.store = Tasks(engine.metastore)
        self._running: set[str] = set()  # ids of root tasks whose graph runs now (in this process)
        self._executing: set[int] = set()  # TASK_HISTORY rows of the runs executing now
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._scheduler: threading.Thread | None = None

    def start_scheduler(self, every: float = 0.5) -> None:
        def loop() -> None:
            while not self._stop.wait(every):
                try:
                    self.tick(int(time.time() * 1000))
                except Exception:  # the scheduler outlives a failed round (e.g. a metastore hiccup)
                    log.exception("task scheduler round failed")

        self._scheduler = threading.Thread(target=loop, name="task-scheduler", daemon=True)
        self._scheduler.start()

    def stop(self) -> None:
        """Stops the scheduler; runs still executing are CANCELLED in TASK_HISTORY (the process
        ends under them), unless they finish first."""
        self._stop.set()
        if self._scheduler is not None:
            self._scheduler.join(timeout=5)
        with self._lock:
            executing = list(self._executing)
        done = int(time.time() * 1000)
        for row in executing:
            self.store.finish_run(
                row, state="CANCELLED", error_message="The server stopped during the run.", completed_ms=done
            )

    def tick(self, now_ms: int) -> None:
        """Starts every due scheduled task this process claims."""
        for task in self.store.due(now_ms):
            assert task.schedule is not None and task.next_run_ms is not None
            if task.kind == dynamic_tables.KIND and not dynamic_tables.is_current(self.engine.tables, task):
                dynamic_tables.forget(self.engine.tables, list(task.parts))  # replaced or dropped
                continue
            if not self.engine.metastore.schema_exists(task.database, task.schema):
                # Its schema or database was dropped: the task stops (UNDROP brings both back).
                self.store.update(task, started=False, next_run_ms=None, suspended_on=datetime.now(UTC))
                continue
            following = next_run_ms(parse_schedule(task.schedule), max(now_ms, task.next_run_ms))
            if self.store.claim(task, following):
                self.start(task, task.next_run_ms, "SCHEDULE", next_ms=following)

    def start(
        self, root: Task, scheduled_ms: int, source: str, *, wait: bool = False, next_ms: int | None = None
    ) -> None:
        """Runs the graph rooted at `root` on a thread (with `wait`, before returning)."""
        run = GraphRun(root, _new_run_id(), scheduled_ms, source, next_ms)
        worker = threading.Thread(target=self._graph, args=(run,), name=f"task-{root.name}", daemon=True)
        worker.start()
        if wait:
            worker.join()

    def _graph(self, run: GraphRun) -> None:
        root = run.root
        with self._lock:
            overlapping = root.id in self._running
            if not overlapping or root.allow_overlapping:
                self._running.add(root.id)
        if overlapping and not root.allow_overlapping:
            skipped = ("", "The previous run of the task graph is still executing.")
            self._record(run, root, state="SKIPPED", error=skipped)
            return
        try:
            succeeded: set[tuple[str, str, str]] = set()
            queue, seen = [root], {root.parts}
            while queue:
                task = queue.pop(0)
                if self._run_one(run, task):
                    succeeded.add(task.parts)
                    for child in self.store.successors(task):
                        ready = child.started and all(p in succeeded for p in child.predecessors)
                        if ready and child.parts not in seen:
                            seen.add(child.parts)
                            queue.append(child)
        finally:
            with self._lock:
                self._running.discard(root.id)

    def _run_one(self, run: GraphRun, task: Task, *, raise_errors: bool = False) -> bool:
        """Runs one task of a graph run; True when it succeeded (with `raise_errors`, a failure
        is recorded, then raised)."""
        engine = self.engine
        session = Session(
            TASK_USER, "", task.database, task.schema, task.warehouse, task.owner or "ACCOUNTADMIN"
        )
        session.parameters.update(engine.session_defaults())
        row = None
        try:
            if task.condition is not None and not self._condition_holds(session, task.condition):
                self._record(run, task, state="SKIPPED")
                return False
            text, sources = task.definition, None
            if task.kind == dynamic_tables.KIND:
                for upstream in dynamic_tables.downstream_sources(engine.tables, task):
                    if not self._run_one(run, upstream, raise_errors=raise_errors):
                        failed = f"UPSTREAM_FAILED: {'.'.join(upstream.parts)} did not refresh"
                        self._record(run, task, state="FAILED", error=("", failed))
                        return False
                unchanged, sources = dynamic_tables.unchanged_since_refresh(engine.tables, task)
                if unchanged:  # its sources are as the last refresh read them (NO_DATA)
                    self._record(run, task, state="SKIPPED", error=("", "NO_DATA"))
                    return True
                text = refresh_sql(task.parts, task.definition)
            query_id = str(uuid.uuid4())
            row = self._record(run, task, state="EXECUTING", query_id=query_id)
            with self._lock:
                self._executing.add(row)
            for statement in engine.prepare(text):
                result = engine.execute(session, statement, query_id=query_id)
                for _ in result.batches:  # a query's rows are made as they are read
                    pass
                query_id = str(uuid.uuid4())
            self.store.finish_run(row, state="SUCCEEDED", completed_ms=int(time.time() * 1000))
            if task.kind == dynamic_tables.KIND:
                dynamic_tables.refreshed(engine.tables.dynamic_tables, task, sources)
            return True
        except Exception as e:  # the run fails; the scheduler and the server go on
            if isinstance(e, SnowflakeError):
                error = (str(e.code), e.message)
            else:
                log.exception("task %s failed", ".".join(task.parts))
                error = ("100001", f"Internal error: {type(e).__name__}")
            if row is None:  # the condition itself failed
                self._record(run, task, state="FAILED", error=error)
            else:
                done = int(time.time() * 1000)
                self.store.finish_run(
                    row, state="FAILED", error_code=error[0], error_message=error[1], completed_ms=done
                )
            self._suspend_if_failing(task)
            if raise_errors:
                raise
            return False
        finally:
            if row is not None:
                with self._lock:
                    self._executing.discard(row)
            engine.end_session(session)

    def _suspend_if_failing(self, task: Task) -> None:
        """Suspends a task whose last SUSPEND_TASK_AFTER_NUM_FAILURES runs all failed."""
        options = json.loads(task.options or "{}")
        limit = options.get("failure_limit", DEFAULT_FAILURE_LIMIT)
        if task.kind != "TASK" or not limit:
            return
        states = self.store.last_states(task.id, limit)
        if len(states) == limit and all(s == "FAILED" for s in states):
            reason = json.dumps({**options, "suspended_reason": "SUSPENDED_DUE_TO_ERRORS"})
            self.store.update(
                task, started=False, next_run_ms=None, suspended_on=datetime.now(UTC), options=reason
            )

    def refresh(self, task: Task) -> None:
        """Runs one task now, on this thread (ALTER DYNAMIC TABLE ... REFRESH).

        Raises:
            SnowflakeError: its statement failed.
        """
        run = GraphRun(task, _new_run_id(), int(time.time() * 1000), "MANUAL", None)
        self._run_one(run, task, raise_errors=True)

    def _condition_holds(self, session: Session, condition: str) -> bool:
        (statement,) = self.engine.prepare(condition_query(condition))
        result = self.engine.execute(session, statement)
        values = [v for batch in result.batches for v in batch.column(0).to_pylist()]
        return values == [True]

    def _record(
        self,
        run: GraphRun,
        task: Task,
        *,
        state: str,
        query_id: str | None = None,
        error: tuple[str, str] | None = None,
    ) -> int:
        now = int(time.time() * 1000)
        return self.store.start_run(
            TaskRun(
                query_id,
                task.parts,
                task.kind,
                task.id,
                run.root.id,
                run.id,
                task.definition,
                task.condition,
                state,
                (error[0] or None) if error else None,
                error[1] if error else None,
                run.scheduled_ms,
                now if state != "SKIPPED" else None,
                now if state != "EXECUTING" else None,
                run.next_ms if task is run.root else None,
                run.source,
            )
        )


# --- INFORMATION_SCHEMA.TASK_HISTORY() --------------------------------------------------------------

# https://docs.snowflake.com/en/sql-reference/functions/task_history#output (leading columns)
HISTORY_COLUMNS: Columns = [
    *[
        (n, TEXT)
        for n in ("QUERY_ID", "NAME", "DATABASE_NAME", "SCHEMA_NAME", "QUERY_TEXT", "CONDITION_TEXT")
    ],
    *[(n, TEXT) for n in ("STATE", "ERROR_CODE", "ERROR_MESSAGE")],
    *[
        (n, TIMESTAMP_LTZ)
        for n in ("SCHEDULED_TIME", "QUERY_START_TIME", "NEXT_SCHEDULED_TIME", "COMPLETED_TIME")
    ],
    ("ROOT_TASK_ID", TEXT),
    ("GRAPH_VERSION", NUMBER),
    ("RUN_ID", NUMBER),
    ("RETURN_VALUE", TEXT),
    ("SCHEDULED_FROM", TEXT),
    ("ATTEMPT_NUMBER", NUMBER),
]


def _millis(ms: int | None) -> datetime | None:
    return None if ms is None else datetime.fromtimestamp(ms / 1000, UTC)


def history_table(tables: Tables, limit: int, task_name: str | None, sql_ctx: SqlContext) -> pa.Table:
    """TASK_HISTORY's rows (latest first) of the tasks the statement's roles see."""
    grants = tables.metastore.grants
    roles = access.context_roles(grants, sql_ctx)
    rows = [
        (
            *(r.query_id, r.task[2], r.task[0], r.task[1], r.query_text, r.condition_text),
            *(r.state, r.error_code, r.error_message),
            *(
                _millis(r.scheduled_ms),
                _millis(r.started_ms),
                _millis(r.next_scheduled_ms),
                _millis(r.completed_ms),
            ),
            *(r.root_task_id, 1, r.graph_run_id, None, r.scheduled_from, 1),
        )
        for r in tables.tasks.runs(limit=limit, task_name=task_name)
        if access.visible(grants, roles, securable(r.task))
    ]
    schema = pa.schema([arrow_field(naming.stored(n), t) for n, t in HISTORY_COLUMNS])
    return pa.Table.from_pylist([dict(zip(schema.names, r, strict=True)) for r in rows], schema=schema)

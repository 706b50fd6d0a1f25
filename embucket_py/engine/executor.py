"""The engine's entry point: prepare statements, then execute one in a session."""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import pyarrow as pa
from pyiceberg.exceptions import CommitFailedException
from sqlglot import exp

from embucket_py import __version__
from embucket_py.catalog.account_parameters import AccountParameters
from embucket_py.catalog.grants import ACCOUNT, Securable
from embucket_py.catalog.history import history_of
from embucket_py.catalog.metastore import Metastore
from embucket_py.catalog.retention import WINDOW
from embucket_py.catalog.tables import TableName, Tables
from embucket_py.engine import (
    access,
    access_statements,
    alter,
    catalogs,
    changes,
    clustering,
    commands,
    containers,
    ddl,
    ddl_text,
    dml,
    dynamic_tables,
    explain,
    failures,
    history,
    keys,
    metadata,
    policies,
    routines,
    scripting,
    search_path,
    sequences,
    stage_statements,
    staged_query,
    stages,
    streams,
    tags,
    tasks,
    transactions,
    variables,
    warehouses,
)
from embucket_py.engine.file_sets import FILE_SETS
from embucket_py.engine.metadata_columns import PARAMETER_DOCS
from embucket_py.engine.query import column_kinds, describe_query, run_query
from embucket_py.engine.result import QueryResult, StatementType, dml_counts, status
from embucket_py.engine.stages import StageResolver
from embucket_py.engine.time_travel import STATEMENTS
from embucket_py.errors import BindError, Unsupported
from embucket_py.sessions import keypair
from embucket_py.sessions.session import Session
from embucket_py.sql import access as sql_access
from embucket_py.sql import binds as binding
from embucket_py.sql import catalogs as catalog_statements
from embucket_py.sql import dynamic_tables as dynamic_sql
from embucket_py.sql import policies as policies_sql
from embucket_py.sql import routines as routines_sql
from embucket_py.sql import scripting as scripting_sql
from embucket_py.sql import sequences as sequences_sql
from embucket_py.sql import streams as streams_sql
from embucket_py.sql import tags as tags_sql
from embucket_py.sql import tasks as tasks_sql
from embucket_py.sql import warehouses as warehouses_sql
from embucket_py.sql.account import account_alter
from embucket_py.sql.alter import alter_def, view_alter_def
from embucket_py.sql.clustering import clustering_def
from embucket_py.sql.context import ColumnKinds, SqlContext
from embucket_py.sql.ddl import comment_change, container_move, create_def, drop_def, retention_change
from embucket_py.sql.dml import InsertDef, insert_def, multi_insert_defs, single_row_values
from embucket_py.sql.metadata import describe_def, described_result, is_show, set_def, show_def, unset_def
from embucket_py.sql.names import SourceText
from embucket_py.sql.parse import parse
from embucket_py.sql.stages import is_stage_statement
from embucket_py.sql.transforms.context_functions import ACTIVE_ROLES
from embucket_py.stages.registry import StageRegistry

log = logging.getLogger(__name__)

# Reported by CURRENT_VERSION(); clients parse it as a Snowflake version.
SERVER_VERSION = "9.99.0"

_QUERY_TYPES = (exp.Select, exp.SetOperation, exp.Values, exp.Subquery)


def _checked(
    tree: exp.Expression,
    check: Callable[[exp.Expression], None],
    run: Callable[[exp.Expression], QueryResult],
) -> Callable[[exp.Expression], QueryResult]:
    """`run`, with `check` (privileges) first on a tree other than the one checked before."""

    def attempt(given: exp.Expression) -> QueryResult:
        if given is not tree:
            check(given)
        return run(given)

    return attempt


# Marks the query DESCRIBE RESULT reads (its answer is that query's columns).
_DESCRIBED_RESULT = "embucket_described_result"


@dataclass(frozen=True)
class Statement:
    tree: exp.Expression
    source: SourceText

    @property
    def text(self) -> str:
        return self.tree.sql(dialect="snowflake")

    @property
    def is_query(self) -> bool:
        return isinstance(self.tree, _QUERY_TYPES)

    @property
    def bind_count(self) -> int:
        return binding.placeholder_count(self.tree)


def _own_text(statement: Statement) -> str:
    """The statement's text as the client sent it; one statement of several (or of a huge text)
    as sqlglot writes it."""
    text = statement.source.text.strip()
    if ";" in text.rstrip(";") or len(text) > 1_000_000:
        return statement.text
    return text


class Engine:
    """Runs Snowflake statements over the metastore's Iceberg tables on DataFusion."""

    def __init__(self, metastore: Metastore, parameter_defaults: dict[str, object]) -> None:
        self.metastore = metastore
        self.tables = Tables(metastore)
        self.stages = StageResolver(self.tables, StageRegistry(metastore))
        self.history = history_of(metastore)
        # AT | BEFORE(STATEMENT => id) of a statement this process no longer remembers.
        STATEMENTS.fallback = self.history.times
        WINDOW.metastore = metastore  # time travel reaches back DATA_RETENTION_TIME_IN_DAYS
        self.parameter_defaults = parameter_defaults  # the server's (from its settings)
        self.account_parameters = AccountParameters(metastore)
        self.tasks = tasks.TaskRunner(self)
        # The sessions this process holds (set by the server), so they follow renamed containers.
        self.open_sessions: Callable[[], list[Session]] = list

    def session_defaults(self) -> dict[str, object]:
        """The parameters a session starts with: the server's, then ALTER ACCOUNT's."""
        return {**self.parameter_defaults, **self.account_parameters.values()}

    def close(self) -> None:
        """At shutdown: queued history rows and result copies reach the disk, and the folders of
        file sets are removed (uvicorn ends a process stopped by SIGTERM with that signal again,
        so exit handlers do not run)."""
        self.tasks.stop()
        self.history.close()
        FILE_SETS.close()

    def prepare(self, text: str) -> list[Statement]:
        """Parses a request's SQL text into statements.

        Raises:
            SyntaxError_: the text does not parse.
        """
        source = SourceText(text)
        return [Statement(tree, source) for tree in parse(text)]

    def sql_context(self, session: Session, query_id: str | None = None) -> SqlContext:
        values = {
            "CURRENT_DATABASE": session.database,
            "CURRENT_SCHEMA": session.schema,
            "CURRENT_USER": session.user,
            "CURRENT_ROLE": session.role,
            "CURRENT_ROLE_TYPE": "ROLE",
            "CURRENT_WAREHOUSE": session.warehouse,
            "CURRENT_VERSION": SERVER_VERSION,
            "CURRENT_CLIENT": f"{session.client_app} {session.client_version}".strip(),
            "CURRENT_ACCOUNT": session.account.upper(),
            "CURRENT_ACCOUNT_NAME": session.account.upper(),
            "CURRENT_ORGANIZATION_NAME": "EMBUCKET",
            "CURRENT_REGION": "LOCAL",
            "CURRENT_IP_ADDRESS": session.client_ip,
            "CURRENT_SCHEMAS": search_path.current_schemas(
                str(session.parameter("SEARCH_PATH", search_path.DEFAULT)), session.database, session.schema
            ),
            "CURRENT_SESSION": str(session.id),
            "CURRENT_AVAILABLE_ROLES": json.dumps(sorted(self._user_roles(session)), separators=(",", ":")),
            "CURRENT_SECONDARY_ROLES": '{"roles":"","value":""}',
            "CURRENT_EMBUCKET_VERSION": __version__,
            "CURRENT_TRANSACTION": str(session.transaction.id) if session.transaction else None,
            ACTIVE_ROLES: tuple(sorted(access.active_roles(self.metastore.grants, session))),
        }
        parameters = {k: v[0] for k, v in PARAMETER_DOCS.items()}
        parameters.update(self.parameter_defaults)
        parameters.update(session.parameters)
        return SqlContext(
            session.database,
            session.schema,
            values,
            variables=variables.values_of(session),
            query_id=query_id,
            column_kinds=self._column_kinds(session),
            parameters=parameters,
        )

    def _column_kinds(self, session: Session) -> ColumnKinds:
        return column_kinds(transactions.SessionTables(self.tables, session))

    def execute(
        self,
        session: Session,
        statement: Statement,
        binds: list[binding.Bind] | None = None,
        *,
        cancel: threading.Event | None = None,
        describe_only: bool = False,
        query_id: str | None = None,
    ) -> QueryResult:
        """Executes (or only describes) one statement.

        Raises:
            SnowflakeError: any failure, already in Snowflake's terms.
        """
        start = int(time.time() * 1000)
        text = catalog_statements.redact(_own_text(statement))  # credentials of volumes and integrations
        tree = statement.tree
        if (result_scan := described_result(tree)) is not None:  # described by its columns
            tree = result_scan
            tree.meta[_DESCRIBED_RESULT] = True
        tree = history.last_query_ids(tree, self.history, session)
        tree = history.table_sources(tree, session.database, copy=tree is statement.tree)
        statement = Statement(tree, statement.source)

        def run() -> QueryResult:
            try:
                return self._execute(session, statement, binds, cancel, describe_only, query_id)
            except OSError as e:  # storage failed under us: a Snowflake error, the session goes on
                raise failures.from_storage(e) from e
            except CommitFailedException as e:  # lost every retry to concurrent writers
                raise failures.from_conflict(e) from e

        try:
            if query_id is None or describe_only:
                return run()
            return history.run_recorded(self.history, session, statement.tree, query_id, text, run)
        finally:
            if query_id is not None:
                STATEMENTS.record(query_id, start, int(time.time() * 1000))

    def _execute(
        self,
        session: Session,
        statement: Statement,
        binds: list[binding.Bind] | None,
        cancel: threading.Event | None,
        describe_only: bool,
        query_id: str | None,
    ) -> QueryResult:
        tree = statement.tree
        tables = transactions.SessionTables(self.tables, session)
        if binds and any(isinstance(b.value, list) for b in binds):
            return self._execute_array_binds(session, statement, binds, cancel, query_id)
        if binds:
            tree = binding.substitute(tree, binds)
        elif describe_only:
            # A describe carries no values: plan with NULLs to learn the result's shape.
            tree = binding.without_placeholders(tree)
        elif binding.placeholder_count(tree):
            raise BindError("Bind variable ? not set.")
        elif tree.find(exp.DynamicIdentifier):  # IDENTIFIER('name') written out
            tree = binding.named_identifiers(tree.copy())
        if (scripted := self._scripting(session, tables, tree, cancel, describe_only)) is not None:
            return scripted
        if (catalog_statement := catalog_statements.statement_of(tree)) is not None:
            if not isinstance(catalog_statement, catalog_statements.CreateBoundDatabase):
                access.require_role(self.metastore.grants, session)  # volumes, integrations
            if not describe_only and isinstance(catalog_statement, catalog_statements.CreateBoundDatabase):
                transactions.commit_open(tables, session)  # DDL commits an open transaction
            return catalogs.run(self.metastore, catalog_statement, describe_only=describe_only)
        if (warehouse_statement := warehouses_sql.warehouse_statement(tree)) is not None:
            # Account objects: no database or schema involved.
            if describe_only:
                return warehouses.columns_only(warehouse_statement)
            if warehouse_statement.action != "DESCRIBE":
                transactions.commit_open(tables, session)  # DDL commits an open transaction
            return warehouses.run(tables.warehouses, session, warehouse_statement)
        ctx = self.sql_context(session, query_id)
        ctx.values["CURRENT_STATEMENT"] = _own_text(statement)
        if _may_be_access_statement(tree) and (access_statement := sql_access.parse(statement.text)):
            return access_statements.run(self.metastore, session, access_statement, ctx)
        dynamic_statement = dynamic_sql.dynamic_statement(tree, ctx)
        if dynamic_statement is not None and dynamic_statement.action in ("DROP", "DESCRIBE"):
            # The table's own DROP / DESCRIBE TABLE (its refreshes stop with it), checked as such.
            tree, dynamic_statement = dynamic_statement.as_table_statement(), None
        if tree.meta.get(_DESCRIBED_RESULT):
            described = metadata.describe_result(run_query(tables, tree, ctx, None, cancel).columns)
            described.batches = [] if describe_only else described.batches
            return described
        check = self._access_check(session, tables, ctx)
        if isinstance(tree, _QUERY_TYPES):  # a name the current schema lacks may be along SEARCH_PATH
            tree = search_path.on_miss(tables, tree, ctx, lambda t: check(t) or t)
        else:
            check(tree)
        tree = ddl_text.replace_calls(tables, tree, ctx, statement.source)
        if (policy_statement := policies_sql.policy_statement(tree, ctx)) is not None:
            run_policy = partial(policies.run, tables, session, policy_statement, ctx)
            return self._governance(session, tables, policy_statement.action, run_policy, describe_only)
        if (tag_statement := tags_sql.tag_statement(tree, ctx)) is not None:
            run_tag = partial(tags.run, tables, session, tag_statement, ctx)
            return self._governance(session, tables, tag_statement.action, run_tag, describe_only)
        metadata_only = is_show(tree) or isinstance(tree, exp.Describe)
        if is_stage_statement(tree) and (not describe_only or metadata_only):
            result = stage_statements.run(self.stages, tables, session, tree, ctx)
            if describe_only:
                result.batches = []
            return result
        if describe_only and (is_show(tree) or isinstance(tree, exp.Describe)):
            # SHOW/DESCRIBE only read metadata: run them for their columns, keep no rows.
            result = self._metadata(session, tree, ctx)
            result.batches = []
            return result
        if describe_only:
            return self._describe(session, tables, tree, ctx, statement.source)
        if (stream_statement := streams_sql.stream_statement(tree, ctx)) is not None:
            if stream_statement.action != "SHOW":
                transactions.commit_open(tables, session)  # DDL commits an open transaction
            return streams.run(tables, session, stream_statement, ctx)
        if dynamic_statement is not None:
            return dynamic_tables.run(self, tables, session, dynamic_statement)
        if (task_statement := tasks_sql.task_statement(tree, ctx)) is not None:
            if task_statement.action not in ("SHOW", "DESCRIBE", "EXECUTE"):
                transactions.commit_open(tables, session)  # DDL commits an open transaction
            return tasks.run(self, tables, session, task_statement)
        if (sequence_statement := sequences_sql.sequence_statement(tree, ctx)) is not None:
            if sequence_statement.action != "DESCRIBE":
                transactions.commit_open(tables, session)  # DDL commits an open transaction
            return sequences.run(tables, session, sequence_statement)
        if (dependents := tasks_sql.dependents_enable_call(tree)) is not None:
            return tasks.enable_dependents(tables, session, dependents, ctx, statement.source)
        if staged_query.reads_stage(tree):
            return staged_query.run(self.stages, session, tree, ctx, statement.source, cancel)
        if isinstance(tree, _QUERY_TYPES):
            run = partial(run_query, tables, ctx=ctx, source=statement.source, cancel=cancel)
            return search_path.on_miss(tables, tree, ctx, _checked(tree, check, run))
        if explain.is_explain(tree):
            return explain.run(tables, tree, ctx)
        if isinstance(tree, exp.Insert | exp.MultitableInserts | exp.Update | exp.Delete | exp.Merge):
            # The streams a DML statement reads move on when it commits.
            with streams.consuming() as reads:
                result = self._dml(session, tables, tree, ctx, cancel)
            transactions.consume_streams(tables, session, reads)
            return result
        if isinstance(tree, exp.TruncateTable):
            return changes.truncate(tables, tree, ctx)
        if commands.is_transaction_control(tree):
            return commands.transaction(tables, session, tree)
        if commands.is_show_transactions(tree):
            return transactions.show_transactions(session)
        if isinstance(tree, exp.Create | exp.Drop | exp.Undrop) or (
            isinstance(tree, exp.Alter)
            and (str(tree.args.get("kind") or "").upper() != "SESSION" or "AUTOCOMMIT" in tree.sql().upper())
        ):
            # Snowflake commits an open transaction before any DDL (and a change of AUTOCOMMIT).
            transactions.commit_open(tables, session)
        if isinstance(tree, exp.Create):
            dynamic = dynamic_sql.dynamic_table(tree, ctx)
            if dynamic is not None:
                dynamic_tables.check_lag(dynamic.target_lag)  # before anything is made
            created = create_def(dynamic.create if dynamic else tree, ctx)
            declared = (
                policies_sql.declared_in_create(tree, created.parts, ctx) if created.kind == "TABLE" else []
            )
            declared_tags = tags_sql.declared_in_create(tree, created.kind, created.parts, ctx)
            policies.check_declared(tables, session, declared)  # before anything is made
            tags.check_declared(tables, session, declared_tags)
            result = commands.create(tables, session, created, ctx, statement.source, cancel)
            if created.kind == "TABLE" and not created.temporary:
                keys.record_declared(tables, tree, ctx, result)
            if dynamic is not None:
                dynamic_tables.record(tables, session, dynamic)
            access.record(self.metastore.grants, session, tree, ctx)
            policies.attach_declared(tables, session, declared, ctx)
            tags.set_declared(tables, session, declared_tags, ctx)
            return result
        if isinstance(tree, exp.Drop):
            result = ddl.drop(tables, drop_def(tree, ctx))
            access.record(self.metastore.grants, session, tree, ctx)
            self._forget_dropped(session)
            return result
        if isinstance(tree, exp.Undrop):
            result = commands.undrop(tables, tree, ctx)
            access.record(self.metastore.grants, session, tree, ctx)
            return result
        if isinstance(tree, exp.Use):
            return commands.use(self.metastore, session, tree)
        if (retention := retention_change(tree, ctx)) is not None:
            return ddl.set_retention(tables, retention)
        if (comment := comment_change(tree, ctx)) is not None:
            return ddl.set_comment(tables, comment)
        if (moved := container_move(tree, ctx)) is not None:
            return containers.move(tables, session, moved, self.open_sessions())
        if (cluster := clustering_def(tree, ctx)) is not None:
            return clustering.run(tables, cluster, query_id)
        if isinstance(tree, exp.Alter) and str(tree.args.get("kind") or "").upper() == "TABLE":
            added_tags = tags_sql.declared_in_alter(tree, ctx)
            tags.check_declared(tables, session, added_tags)  # before the columns are added
            result = alter.alter_table(tables, alter_def(tree, ctx), ctx, cancel)
            access.record(self.metastore.grants, session, tree, ctx)
            tags.set_declared(tables, session, added_tags, ctx, undo=False)
            return result
        if (view_alter := view_alter_def(tree, ctx)) is not None:
            result = alter.alter_view(tables, view_alter)
            access.record(self.metastore.grants, session, tree, ctx)
            return result
        if isinstance(tree, exp.Alter) and str(tree.args.get("kind") or "").upper() == "SESSION":
            return commands.alter_session(session, tree, self.session_defaults())
        if (account_change := account_alter(tree)) is not None:
            roles = access.active_roles(self.metastore.grants, session)
            return commands.alter_account(self.account_parameters, roles, account_change)
        if is_show(tree) or isinstance(tree, exp.Describe):
            return self._metadata(session, tree, ctx)
        if isinstance(tree, exp.Set):
            return variables.set_variables(tables, session, set_def(tree), ctx, cancel)
        if (unset := unset_def(tree)) is not None:
            return variables.unset_variables(session, unset)
        if (user_statement := keypair.parse_user_statement(statement.text)) is not None:
            grants = self.metastore.grants
            if user_statement.kind == "CREATE" or user_statement.user != session.user:
                access.require(
                    grants, access.active_roles(grants, session), access.Need("CREATE USER", ACCOUNT)
                )
            message = keypair.run_user_statement(self.metastore.engine, user_statement)
            if user_statement.kind == "CREATE":
                grants.set_default_role(user_statement.user, user_statement.default_role)
            return status(message)
        raise Unsupported(f"Statement '{statement.text[:60]}' is not supported yet.")

    def _dml(
        self,
        session: Session,
        tables: Tables,
        tree: exp.Expression,
        ctx: SqlContext,
        cancel: threading.Event | None,
    ) -> QueryResult:
        if isinstance(tree, exp.Insert):
            return dml.insert(tables, insert_def(tree, ctx), ctx, cancel)
        if isinstance(tree, exp.MultitableInserts):
            defs = multi_insert_defs(tree, ctx)
            return transactions.atomically(
                tables, session, lambda: dml.multi_insert(tables, defs, ctx, cancel)
            )
        return changes.run_change(tables, tree, ctx, cancel)

    def _scripting(
        self,
        session: Session,
        tables: Tables,
        tree: exp.Expression,
        cancel: threading.Event | None,
        describe_only: bool,
    ) -> QueryResult | None:
        """Anonymous blocks, EXECUTE IMMEDIATE, stored procedures and user-defined functions'
        DDL; None for other statements. A describeOnly request runs none of them (a block's
        statements have side effects)."""
        kind = str(tree.args.get("kind") or "").upper()
        script_text = scripting_sql.script_text(tree)
        call_text = routines_sql.call_text(tree)
        anonymous_text = routines_sql.anonymous_procedure_text(tree)
        routine_text = routines_sql.routine_text(tree)
        routine_ddl = kind in ("PROCEDURE", "FUNCTION") and isinstance(tree, exp.Drop | exp.Describe)
        if not (script_text or call_text or anonymous_text or routine_text or routine_ddl):
            return None
        if describe_only:
            return scripting.described()
        if script_text is not None:
            return scripting.run_text(self, session, script_text, cancel)
        if call_text is not None:
            return routines.call(self, tables, session, call_text, cancel)
        if anonymous_text is not None:
            return routines.call_anonymous(self, session, anonymous_text, cancel)
        if isinstance(tree, exp.Describe):
            return routines.describe(tables, session, tree)
        transactions.commit_open(tables, session)  # DDL commits an open transaction
        if routine_text is not None:
            return routines.create(tables, session, routines_sql.create_routine_def(routine_text))
        assert isinstance(tree, exp.Drop)
        return routines.drop(tables, session, tree)

    def _governance(
        self,
        session: Session,
        tables: Tables,
        action: str,
        run: Callable[[], QueryResult],
        describe_only: bool,
    ) -> QueryResult:
        """A policy or tag statement (`action` its verb, `run` runs it)."""
        if describe_only and action not in ("SHOW", "DESCRIBE"):
            result = status("", StatementType.DDL)
        else:
            if action not in ("SHOW", "DESCRIBE"):
                transactions.commit_open(tables, session)  # DDL commits an open transaction
            result = run()
        if describe_only:
            result.batches = []
        return result

    def _metadata(self, session: Session, tree: exp.Expression, ctx: SqlContext) -> QueryResult:
        """SHOW ... and DESCRIBE ..."""
        tables = transactions.SessionTables(self.tables, session)
        if isinstance(tree, exp.Describe):
            return metadata.describe(tables, describe_def(tree, ctx), ctx)
        shown = show_def(tree, ctx)
        result = metadata.show(tables, session, shown, self.session_defaults(), ctx)
        return metadata.with_history(tables, shown, result) if tree.args.get("history") else result

    def _describe(
        self, session: Session, tables: Tables, tree: exp.Expression, ctx: SqlContext, source: SourceText
    ) -> QueryResult:
        if isinstance(tree, _QUERY_TYPES):
            run = partial(describe_query, tables, ctx=ctx, source=source)
            return search_path.on_miss(
                tables, tree, ctx, _checked(tree, self._access_check(session, tables, ctx), run)
            )
        if isinstance(tree, exp.Insert):
            result = dml_counts(StatementType.INSERT, {"number of rows inserted": 0})
        else:
            result = status("", StatementType.DDL)
        result.batches = []
        return result

    def _execute_array_binds(
        self,
        session: Session,
        statement: Statement,
        binds: list[binding.Bind],
        cancel: threading.Event | None,
        query_id: str | None = None,
    ) -> QueryResult:
        """executemany: an INSERT ... VALUES (?, ...) with one array per placeholder becomes one
        Arrow table and one commit; any other statement runs once per row."""
        lengths = {len(b.value) for b in binds if isinstance(b.value, list)}
        if len(lengths) != 1:
            raise BindError("Array bind variables must all have the same number of values.")
        (count,) = lengths
        tree = statement.tree
        ctx = self.sql_context(session, query_id)
        row = single_row_values(tree.args.get("expression")) if isinstance(tree, exp.Insert) else None
        if row is not None and all(isinstance(e, exp.Placeholder) for e in row) and len(row) == len(binds):
            target = insert_def(tree, ctx)
            tables = transactions.SessionTables(self.tables, session)
            kinds = self._insert_kinds(tables, target)
            if len(kinds) == len(binds):
                binds = [binding.retyped(b, kind) for b, kind in zip(binds, kinds, strict=True)]
            columns = {f"c{i}": binding.array_column(b) for i, b in enumerate(binds)}
            return dml.insert(tables, target, ctx, cancel, rows=pa.table(columns))
        total = 0
        result: QueryResult | None = None
        for i in range(count):
            row_binds = [
                binding.Bind(b.type, b.value[i] if isinstance(b.value, list) else b.value) for b in binds
            ]
            result = self.execute(session, statement, row_binds, cancel=cancel)
            total += _inserted(result)
        assert result is not None
        if result.is_dml:
            return dml_counts(result.statement_type, {"number of rows inserted": total})
        return result

    def _insert_kinds(self, tables: Tables, target: InsertDef) -> list[str]:
        """The Snowflake type kinds of an INSERT's target columns, in VALUES order."""
        columns = Tables.columns(tables.load(TableName(*target.parts)))
        kinds = {c.name: c.type.kind for c in columns}
        return [kinds.get(name, "TEXT") for name in target.columns or [c.name for c in columns]]

    def _user_roles(self, session: Session) -> set[str]:
        grants = self.metastore.grants
        return grants.effective_roles(grants.user_roles(session.user))

    def _access_check(
        self, session: Session, tables: Tables, ctx: SqlContext
    ) -> Callable[[exp.Expression], None]:
        """The privilege check of a statement, for a tree rewritten after the first check."""
        return lambda tree: access.check(self.metastore.grants, session, tree, ctx, self._exists_for(tables))

    def _exists_for(self, tables: Tables) -> access.Exists:
        def exists(on: Securable) -> bool:
            if on.kind == "DATABASE":
                return self.metastore.database_exists(on.database)
            if on.kind == "SCHEMA":
                return self.metastore.schema_exists(on.database, on.schema)
            if not self.metastore.schema_exists(on.database, on.schema):
                return False
            return tables.exists(TableName(on.database, on.schema, on.name)) or (
                tables.views.get(on.database, on.schema, on.name) is not None
            )

        return exists

    def _forget_dropped(self, session: Session) -> None:
        if session.database and not self.metastore.database_exists(session.database):
            session.database = session.schema = None
        elif (
            session.database
            and session.schema
            and not self.metastore.schema_exists(session.database, session.schema)
        ):
            session.schema = None

    def end_session(self, session: Session) -> None:
        """A session closed: roll back its open transaction, drop its TEMPORARY objects."""
        with session.lock:
            transactions.end_session(self.tables, session)
            stages.end_session(self.stages, session)

    def bootstrap(self, database: str, schema: str) -> None:
        """First start: the default database and schema exist."""
        self.metastore.create_database(database, if_not_exists=True)
        self.metastore.create_schema(database, schema, if_not_exists=True)


def _inserted(result: QueryResult) -> int:
    if not result.is_dml:
        return 0
    batches = list(result.batches)
    return int(batches[0].column(0)[0].as_py()) if batches else 0


def _may_be_access_statement(tree: exp.Expression) -> bool:
    """Cheap test before tokenizing the text again: the trees sqlglot gives access statements."""
    if isinstance(tree, exp.Grant | exp.Revoke | exp.Command | exp.Show):
        return True
    kind = str(tree.args.get("kind") or "").upper()
    return isinstance(tree, exp.Drop | exp.Alter | exp.Create) and kind in ("ROLE", "USER")

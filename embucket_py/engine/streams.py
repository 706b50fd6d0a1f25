"""Streams: CREATE / DROP / DESCRIBE STREAM, SHOW STREAMS, stream references in queries, the offsets a DML
statement moves, and SYSTEM$STREAM_HAS_DATA.

A stream reference reads its table's CHANGES (engine/table_changes.py) from the stream's offset
to the table version current when the statement starts, so every read within the statement sees
the same rows. A DML statement that reads a stream moves the offset to that version when it
commits (at once under AUTOCOMMIT, else at COMMIT; a rollback leaves it): the next read starts
where the consumed changes ended. A plain query never moves it.
https://docs.snowflake.com/en/user-guide/streams-intro
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime

from pyiceberg.table import Table
from sqlglot import exp

from embucket_py.catalog.grants import Securable
from embucket_py.catalog.streams import Stream
from embucket_py.catalog.tables import TableName, Tables
from embucket_py.engine import access
from embucket_py.engine.metadata_columns import TEXT, TIMESTAMP_LTZ, Columns
from embucket_py.engine.result import QueryResult, StatementType, constant, status
from embucket_py.engine.table_changes import ancestors, current_snapshot, is_append
from embucket_py.engine.time_travel import resolve
from embucket_py.errors import SqlCompilationError, object_not_found
from embucket_py.sessions.session import Session
from embucket_py.sql import views
from embucket_py.sql.context import SqlContext
from embucket_py.sql.names import like_matches, name_parts
from embucket_py.sql.nodes import Nodes
from embucket_py.sql.streams import StreamStatement, changes_of, view_changes, view_table

# The streams the running statement read: qualified name -> the snapshot read up to. A statement
# runs on one thread; a thread-local, not a ContextVar (CPython 3.11's context HAMT can crash in GC).
_reading = threading.local()


@contextlib.contextmanager
def consuming() -> Iterator[dict[tuple[str, str, str], int | None]]:
    """Collects the streams a DML statement reads (and the versions read up to)."""
    reads: dict[tuple[str, str, str], int | None] = {}
    outer = getattr(_reading, "reads", None)
    _reading.reads = reads
    try:
        yield reads
    finally:
        _reading.reads = outer


def run(tables: Tables, session: Session, statement: StreamStatement, ctx: SqlContext) -> QueryResult:
    """Raises: ObjectNotFound / ObjectAlreadyExists, as the statement's object is missing or taken;
    TimeTravelUnavailable, for an AT | BEFORE point outside the table's history."""
    database, schema, name = ([*statement.parts, "", "", ""])[:3]
    securable = Securable("TABLE", database, schema, name)  # streams are read as tables are
    grants = tables.metastore.grants
    roles = access.active_roles(grants, session)
    if statement.action == "SHOW":
        return _show(tables, statement, lambda on: access.visible(grants, roles, on))
    if statement.action == "DESCRIBE":
        stream = tables.streams.get(database, schema, name)
        if stream is None or not access.visible(grants, roles, securable):
            raise object_not_found("Stream", ".".join(statement.parts))
        return constant(SHOW_STREAMS, [_row(tables, stream)], StatementType.DESCRIBE)
    if statement.action == "DROP":
        if tables.streams.get(database, schema, name) is not None:
            access.require(grants, roles, access.Need("OWNERSHIP", securable))
        dropped = tables.streams.drop(database, schema, name, if_exists=statement.if_exists)
        if dropped:
            grants.forget(securable)
        return status(f"{name} successfully dropped." if dropped else "Drop statement executed successfully.")
    assert statement.table is not None
    access.require(grants, roles, access.Need("CREATE STREAM", Securable("SCHEMA", database, schema)))
    access.require(grants, roles, access.Need("SELECT", Securable("TABLE", *statement.table)))
    base, view = statement.table, None
    if statement.on_view:  # the changes of the view's one table, through the view's query
        view = tables.views.get(*statement.table)
        if view is None:
            raise object_not_found("View", ".".join(statement.table))
        base = view_table(view.query, SqlContext(view.database, view.schema))
    table = tables.load(TableName(*base))
    if statement.point is not None:  # the changes since that version
        start = resolve(table, ".".join(base), statement.point, ctx).snapshot_id
    else:
        start = None if statement.show_initial_rows else current_snapshot(table)
    stream = Stream(
        database,
        schema,
        name,
        (base[0], base[1], base[2]),
        str(table.metadata.table_uuid),
        statement.append_only,
        start,
        statement.comment,
        session.role,
        view=(view.database, view.schema, view.name) if view else None,
        view_query=view.query if view else None,
    )
    if not tables.streams.create(stream, replace=statement.replace, if_not_exists=statement.if_exists):
        return status(f"{name} already exists, statement succeeded.")
    grants.set_owner(securable, session.role, session.role)
    return status(f"Stream {name} successfully created.", StatementType.DDL)


def _base(tables: Tables, stream: Stream) -> Table:
    """The stream's table, as it was when the stream was made.

    Raises:
        SqlCompilationError: the table was dropped or replaced since (the stream is stale).
    """
    table = _live_base(tables, stream)
    if table is None:
        raise SqlCompilationError(
            f"Base {'view' if stream.view else 'table'} '{'.'.join(stream.view or stream.table)}' "
            "dropped or replaced, "
            f"cannot read from stream '{stream.name}'.",
            code=91901,
        )
    return table


def expand(tables: Tables, tree: exp.Expression, ctx: SqlContext) -> None:
    """Replaces each stream reference by a subquery of its table's CHANGES since the offset (in
    place), under the reference's alias; records the read for a consuming DML statement."""
    for reference, parts in views.references(Nodes(tree), ctx):
        stream = tables.streams.get(*parts)
        if stream is None:
            continue
        end = current_snapshot(_base(tables, stream))
        changes = changes_of(list(stream.table), stream.append_only, stream.offset, end)
        alias = reference.args.get("alias") or exp.TableAlias(
            this=exp.to_identifier(stream.name, quoted=True)
        )
        rows = (
            view_changes(stream.view_query, changes) if stream.view_query else exp.select("*").from_(changes)
        )
        reference.replace(exp.Subquery(this=rows, alias=alias.copy()))
        reads = getattr(_reading, "reads", None)
        if reads is not None:
            reads[(stream.database, stream.schema, stream.name)] = end


def has_data_calls(nodes: Nodes) -> bool:
    return any(_is_has_data(n) for n in nodes.of(exp.Anonymous))


def _is_has_data(node: exp.Expression) -> bool:
    return isinstance(node, exp.Anonymous) and node.name.upper() == "SYSTEM$STREAM_HAS_DATA"


def replace_has_data(tables: Tables, tree: exp.Expression, ctx: SqlContext) -> exp.Expression:
    """SYSTEM$STREAM_HAS_DATA('stream') -> TRUE when its table changed since the offset (an
    append-only stream: when rows were appended), as a constant.

    Raises:
        ObjectNotFound: no such stream.
    """

    def replace(node: exp.Expression) -> exp.Expression:
        if not _is_has_data(node):
            return node
        args = node.expressions
        if len(args) != 1 or not (isinstance(args[0], exp.Literal) and args[0].is_string):
            raise SqlCompilationError("SYSTEM$STREAM_HAS_DATA takes the name of a stream.")
        parts = name_parts(args[0].name, ctx, "STREAM")
        stream = tables.streams.get(*parts)
        if stream is None:
            raise object_not_found("Stream", ".".join(parts))
        return exp.Boolean(this=_has_data(_base(tables, stream), stream))

    return tree.transform(replace)


def _has_data(table: Table, stream: Stream) -> bool:
    newer = ancestors(table, current_snapshot(table), stream.offset)
    return any(not stream.append_only or is_append(snapshot) for snapshot in newer)


SHOW_STREAMS: Columns = [
    ("created_on", TIMESTAMP_LTZ),
    *[(n, TEXT) for n in ("name", "database_name", "schema_name", "owner", "comment", "table_name")],
    *[(n, TEXT) for n in ("source_type", "base_tables", "type", "stale", "mode")],
    ("stale_after", TIMESTAMP_LTZ),
    ("invalid_reason", TEXT),
    ("owner_role_type", TEXT),
]


def _show(tables: Tables, statement: StreamStatement, visible: Callable[[Securable], bool]) -> QueryResult:
    """The streams in scope that the session's roles see (as SHOW TABLES lists tables)."""
    rows = [
        _row(tables, s)
        for database, schema in tables.metastore.schemas_in_scope(statement.parts)
        for s in tables.streams.list(database, schema)
        if (statement.like is None or like_matches(statement.like, s.name))
        and visible(Securable("TABLE", s.database, s.schema, s.name))
    ]
    return constant(SHOW_STREAMS, rows, StatementType.SHOW)


def _row(tables: Tables, s: Stream) -> tuple[object, ...]:
    table, created = ".".join(s.table), s.created_on or datetime.now(UTC)
    source, kind = (".".join(s.view), "View") if s.view else (table, "Table")
    mode = "APPEND_ONLY" if s.append_only else "DEFAULT"
    stale = "false" if _live_base(tables, s) else "true"
    owned = (created.replace(tzinfo=UTC), s.name, s.database, s.schema, s.owner or "", s.comment or "")
    return (*owned, source, kind, table, "DELTA", stale, mode, None, "N/A", "ROLE")


def _live_base(tables: Tables, stream: Stream) -> Table | None:
    """The stream's table if it is still the one the stream was made on, and its view (of a
    stream on a view) the same view (None: stale)."""
    if stream.view is not None:
        view = tables.views.get(*stream.view)
        if view is None or view.query != stream.view_query:
            return None
    table = tables.find(TableName(*stream.table))
    return table if table is not None and str(table.metadata.table_uuid) == stream.table_uuid else None

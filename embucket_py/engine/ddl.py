"""CREATE and DROP of databases, schemas and tables, with Snowflake's status messages."""

from __future__ import annotations

import threading

from embucket_py import naming
from embucket_py.catalog.dropped import RETENTION_PROPERTY, dropped_of
from embucket_py.catalog.retention import check_days, retention_of
from embucket_py.catalog.tables import Column, SchemaChange, TableName, Tables
from embucket_py.engine import clones, clustering
from embucket_py.engine.column_values import conformed_table
from embucket_py.engine.query import collect, plan
from embucket_py.engine.result import OK, QueryResult, status
from embucket_py.engine.time_travel import resolve
from embucket_py.errors import ObjectAlreadyExists, SqlCompilationError, object_not_found, width_mismatch
from embucket_py.layout.clustering import clustering_key
from embucket_py.sql.clustering import ClusteringDef
from embucket_py.sql.context import SqlContext
from embucket_py.sql.ddl import ColumnDef, CommentChange, ObjectDef, RetentionChange
from embucket_py.sql.dml import insert_select
from embucket_py.sql.names import SourceText
from embucket_py.sql.views import view_query
from embucket_py.types import from_arrow_field


def create(
    tables: Tables, d: ObjectDef, ctx: SqlContext, source: SourceText | None, cancel: threading.Event | None
) -> QueryResult:
    metastore = tables.metastore
    shown = naming.quote(d.parts[-1])
    container_clone = d.clone_of is not None and d.kind in ("DATABASE", "SCHEMA")
    if container_clone:
        assert d.clone_of is not None
        container_exists(tables, d.kind, d.clone_of, if_exists=False)
        if d.clone_of == d.parts:
            raise SqlCompilationError(f"{d.kind.capitalize()} {shown} cannot be a clone of itself.")
    if d.kind == "DATABASE":
        if d.replace and metastore.database_exists(d.parts[0]):
            _drop_database(tables, d.parts[0])  # restorable by UNDROP once the new one is renamed
        created = metastore.create_database(d.parts[0], if_not_exists=d.if_exists, comment=d.comment)
    elif d.kind == "SCHEMA":
        if d.replace and metastore.schema_exists(d.parts[0], d.parts[1]):
            _drop_schema(tables, d.parts[0], d.parts[1])
        created = metastore.create_schema(
            d.parts[0], d.parts[1], if_not_exists=d.if_exists, comment=d.comment
        )
    elif d.kind == "VIEW":
        created = _create_view(tables, d, ctx, source)
    else:
        created = _create_table(tables, d, ctx, source, cancel)
    if not created:
        return status(f"{shown} already exists, statement succeeded.")
    if container_clone:
        try:
            clones.fill(tables, d, ctx)
        except Exception:  # nothing half made stays
            (_drop_database(tables, d.parts[0]) if d.kind == "DATABASE" else _drop_schema(tables, *d.parts))
            raise
    if d.retention_days is not None:
        set_retention(tables, RetentionChange(d.kind, d.parts, d.retention_days))
    return status(f"{d.kind.capitalize()} {shown} successfully created.")


def set_retention(tables: Tables, change: RetentionChange) -> QueryResult:
    """DATA_RETENTION_TIME_IN_DAYS set (or unset: None) on a table, schema or database.

    Raises:
        ObjectNotFound / SqlCompilationError (a value out of range).
    """
    days = None if change.days is None else check_days(change.days)
    if change.kind == "TABLE":
        ref = TableName(*change.parts)
        if change.if_exists and not tables.exists(ref):
            return status(OK)
        table = tables.load(ref)
        tx = table.transaction()
        if days is None:
            if RETENTION_PROPERTY in table.properties:
                tx.remove_properties(RETENTION_PROPERTY)
        else:
            tx.set_properties({RETENTION_PROPERTY: str(days)})
        tables.finish(ref, table, tx, appends_only=False)
        return status(OK)
    if container_exists(tables, change.kind, change.parts, change.if_exists):
        schema = change.parts[1] if change.kind == "SCHEMA" else None
        retention_of(tables.metastore).set(change.parts[0], schema, days)
    return status(OK)


def set_comment(tables: Tables, change: CommentChange) -> QueryResult:
    """COMMENT ON SCHEMA | DATABASE, and ALTER SCHEMA | DATABASE ... SET | UNSET COMMENT.

    Raises:
        ObjectNotFound: no such schema or database (without IF EXISTS).
    """
    if container_exists(tables, change.kind, change.parts, change.if_exists):
        if change.kind == "SCHEMA":
            tables.metastore.set_schema_comment(change.parts[0], change.parts[1], change.comment)
        else:
            tables.metastore.set_database_comment(change.parts[0], change.comment)
    return status(OK)


def container_exists(tables: Tables, kind: str, parts: list[str], if_exists: bool) -> bool:
    """Whether the schema or database an ALTER names exists; False for a missing one it may skip
    (IF EXISTS).

    Raises:
        ObjectNotFound: it is missing and may not be skipped.
    """
    metastore = tables.metastore
    exists = metastore.schema_exists(*parts) if kind == "SCHEMA" else metastore.database_exists(parts[0])
    if not exists and not if_exists:
        raise object_not_found(kind.capitalize(), ".".join(parts))
    return exists


def _drop_database(tables: Tables, database: str) -> None:
    metastore = tables.metastore
    dropped_of(metastore).remember_database(database, retention_of(metastore).of_database(database))
    metastore.drop_database(database)
    retention_of(metastore).forget(database)


def _drop_schema(tables: Tables, database: str, schema: str) -> None:
    metastore = tables.metastore
    dropped_of(metastore).remember_schema(
        database, schema, retention_of(metastore).of_schema(database, schema)
    )
    metastore.drop_schema(database, schema)
    retention_of(metastore).forget(database, schema)


def _create_table(
    tables: Tables, d: ObjectDef, ctx: SqlContext, source: SourceText | None, cancel: threading.Event | None
) -> bool:
    ref = TableName(*d.parts)
    if d.clone_of is not None:
        source_ref = TableName(*d.clone_of)
        source = tables.load(source_ref)
        current = source.current_snapshot()
        snapshot_id = current.snapshot_id if current else None
        if d.clone_point is not None:
            snapshot_id = resolve(source, str(source_ref), d.clone_point, ctx).snapshot_id
        made = tables.clone(ref, source, snapshot_id, replace=d.replace, if_not_exists=d.if_exists)
        if made:
            tables.policies.copy_attachments(tuple(d.clone_of), tuple(d.parts))  # type: ignore[arg-type]
            tables.tags.copy_object(tuple(d.clone_of), tuple(d.parts))  # type: ignore[arg-type]
        return made
    if d.like is not None:
        return _create_like(tables, ref, d)
    if d.query is None:
        columns = [_column(c) for c in d.columns or []]
        created = tables.create(ref, columns, replace=d.replace, if_not_exists=d.if_exists, comment=d.comment)
        if created:
            _table_options(tables, ref, d)
        return created
    if tables.exists(ref):
        if d.if_exists:
            return False
        if not d.replace:
            raise ObjectAlreadyExists(f"Object '{d.parts[-1]}' already exists.")
    if d.columns:
        # CREATE TABLE t (a INT, ...) AS SELECT: the list names and types the columns, by position.
        columns = [_column(c) for c in d.columns]
        query = insert_select(d.query, [(c.name, c.type) for c in columns])
        data = conformed_table(columns, collect(plan(tables, query, ctx, None)[0], cancel))
        names = [c.name for c in columns]
        tables.create(ref, columns, replace=d.replace, comment=d.comment)
        _table_options(tables, ref, d)
        tables.append(ref, data.rename_columns([naming.stored(n) for n in names]), ctx.query_id)
        return True
    # CREATE TABLE ... AS SELECT: the query decides names and types, then one commit.
    frame, names = plan(tables, d.query, ctx, source)
    if d.column_names:  # CREATE TABLE t (a, b) AS SELECT: the list names the query's columns
        if len(d.column_names) != len(names):
            raise width_mismatch(len(d.column_names), len(names))
        names = d.column_names
    data = collect(frame, cancel)
    columns = [Column(name, from_arrow_field(f)) for name, f in zip(names, data.schema, strict=True)]
    data = conformed_table(columns, data)  # before the table is made (or replaced): nothing half-done
    tables.create(ref, columns, replace=d.replace, comment=d.comment)
    _table_options(tables, ref, d)
    tables.append(ref, data.rename_columns([naming.stored(n) for n in names]), ctx.query_id)
    return True


def _table_options(tables: Tables, ref: TableName, d: ObjectDef) -> None:
    """What CREATE TABLE sets besides the columns: CLUSTER BY, CHANGE_TRACKING = TRUE."""
    if d.cluster_by:
        _cluster_by(tables, ref, d.cluster_by)
    if d.change_tracking:
        tables.evolve(ref, SchemaChange(change_tracking=True))


def _column(c: ColumnDef) -> Column:
    return Column(c.name, c.type, c.nullable, c.comment, c.default, c.identity)


def _create_like(tables: Tables, ref: TableName, d: ObjectDef) -> bool:
    """CREATE TABLE ... LIKE: the source's columns (types, NOT NULL, defaults, comments, identity
    restarted) and clustering key, no rows."""
    assert d.like is not None
    source = tables.load(TableName(*d.like))
    created = tables.create(
        ref, Tables.columns(source), replace=d.replace, if_not_exists=d.if_exists, comment=d.comment
    )
    key = d.cluster_by or [naming.display(c) for c in clustering_key(source) or []]
    if created and key:
        _cluster_by(tables, ref, key)
    return created


def _cluster_by(tables: Tables, ref: TableName, columns: list[str]) -> None:
    """CREATE TABLE ... CLUSTER BY: the key is set before any row is written."""
    clustering.run(tables, ClusteringDef([ref.database, ref.schema, ref.name], "CLUSTER", columns), None)


def _create_view(tables: Tables, d: ObjectDef, ctx: SqlContext, source: SourceText | None) -> bool:
    assert d.query is not None
    plan(tables, d.query, ctx, None)  # Snowflake refuses a view whose query does not compile
    return tables.views.create(
        *d.parts,
        view_query(d.query, d.column_names, source),
        source.text if source is not None else "",
        replace=d.replace,
        if_not_exists=d.if_exists,
        comment=d.comment,
        secure=d.secure,
    )


def drop(tables: Tables, d: ObjectDef) -> QueryResult:
    metastore = tables.metastore
    if d.kind == "DATABASE":
        if metastore.database_exists(d.parts[0]):
            _drop_database(tables, d.parts[0])  # kept for UNDROP DATABASE
            dropped = True
        else:
            dropped = metastore.drop_database(d.parts[0], if_exists=d.if_exists)
    elif d.kind == "SCHEMA":
        if metastore.schema_exists(d.parts[0], d.parts[1]):
            _drop_schema(tables, d.parts[0], d.parts[1])  # kept for UNDROP SCHEMA
            dropped = True
        else:
            dropped = metastore.drop_schema(d.parts[0], d.parts[1], if_exists=d.if_exists)
    elif d.kind == "VIEW":
        dropped = tables.views.drop(*d.parts, if_exists=d.if_exists)
        tables.policies.detach_all((d.parts[0], d.parts[1], d.parts[2]))  # they went with the view
        tables.tags.drop_object((d.parts[0], d.parts[1], d.parts[2]))
    else:
        dropped = tables.drop(TableName(*d.parts), if_exists=d.if_exists)
    shown = naming.quote(d.parts[-1])
    if not dropped:
        return status(f"Drop statement executed successfully ({shown} already dropped).")
    return status(f"{shown} successfully dropped.")

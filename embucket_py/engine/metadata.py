"""SHOW and DESCRIBE: Snowflake's metadata commands, with its output columns in its order.

Rows are built as dicts keyed by column name, filtered (LIKE, STARTS WITH, LIMIT ... FROM) and
then laid out by the command's column list, so TERSE forms are the same rows with fewer columns.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from pyiceberg.table import Table

from embucket_py import naming
from embucket_py.catalog.dropped import dropped_of
from embucket_py.catalog.grants import Securable
from embucket_py.catalog.retention import retention_of
from embucket_py.catalog.tables import Column, TableName, Tables
from embucket_py.catalog.views import View
from embucket_py.engine import access, catalogs, keys, routines, sequences, variables, warehouses
from embucket_py.engine.dynamic_tables import DYNAMIC_PROPERTY
from embucket_py.engine.metadata_columns import (
    COLUMNS,
    DATABASES,
    DESCRIBE_CONTAINER,
    DESCRIBE_TABLE,
    EMPTY_KINDS,
    FUNCTIONS,
    OBJECTS,
    OWNER,
    PARAMETERS,
    PROCEDURES,
    RETENTION_TIME,
    SCHEMAS,
    SEQUENCES,
    TABLES,
    TERSE,
    TIMESTAMP_LTZ,
    VARIABLES,
    VIEWS,
    WAREHOUSES,
    Columns,
)
from embucket_py.engine.parameters import parameter_rows
from embucket_py.engine.query import described_schema, plan
from embucket_py.engine.result import QueryResult, ResultColumn, StatementType, constant
from embucket_py.errors import (
    ObjectNotFound,
    SnowflakeError,
    SqlCompilationError,
    TableUnreadable,
    Unsupported,
    object_not_found,
)
from embucket_py.layout.clustering import clustering_key
from embucket_py.sessions.session import Session
from embucket_py.sql.context import SqlContext
from embucket_py.sql.metadata import DescribeDef, ShowDef, select_all
from embucket_py.sql.names import like_matches
from embucket_py.types import MAX_VARCHAR, from_arrow_field

log = logging.getLogger(__name__)

# --- filters -------------------------------------------------------------------------------------


def _filtered(rows: list[dict[str, Any]], d: ShowDef, key: str = "name") -> list[dict[str, Any]]:
    """LIKE (case-insensitive), STARTS WITH (case-sensitive), LIMIT n FROM 'name' (rows from the
    first name not before it). https://docs.snowflake.com/en/sql-reference/sql/show-tables"""
    if d.like is not None:
        rows = [r for r in rows if like_matches(d.like, r[key])]
    if d.starts_with is not None:
        rows = [r for r in rows if r[key].startswith(d.starts_with)]
    if d.from_name is not None:
        rows = [r for r in rows if r[key] >= d.from_name]
    if d.limit is not None:
        rows = rows[: d.limit]
    return rows


def _result(columns: Columns, rows: list[dict[str, Any]], kind: StatementType) -> QueryResult:
    names = [n for n, _ in columns]
    return constant(columns, [tuple(r.get(n) for n in names) for r in rows], kind)


# --- SHOW ----------------------------------------------------------------------------------------


def show(
    tables: Tables, session: Session, d: ShowDef, parameter_defaults: dict[str, object], ctx: SqlContext
) -> QueryResult:
    """Runs one SHOW command.

    Raises:
        ObjectNotFound: the database, schema or table of the IN clause does not exist.
    """
    if d.kind == "PARAMETERS":
        values = session.parameters if d.scope == "SESSION" else parameter_defaults
        rows = _filtered(parameter_rows(values, parameter_defaults), d, "key")
        return _result(PARAMETERS, rows, StatementType.SHOW)
    if d.kind in keys.KEY_KINDS:
        return _result(keys.columns_for(d.kind), keys.show_rows(tables, d), StatementType.SHOW)
    if d.kind == "VARIABLES":
        rows = _filtered(variables.variable_rows(session), d)
        return _result(VARIABLES, rows, StatementType.SHOW)
    if d.kind == "DATABASES":
        rows = _filtered(_visible(tables, session, _database_rows(tables, session), "DATABASE"), d)
        return _result(TERSE if d.terse else DATABASES, rows, StatementType.SHOW)
    if d.kind == "SCHEMAS":
        rows = _filtered(_visible(tables, session, _schema_rows(tables, session, d), "SCHEMA"), d)
        return _result(TERSE if d.terse else SCHEMAS, rows, StatementType.SHOW)
    if d.kind == "COLUMNS":
        rows = _filtered(
            _visible(tables, session, list(_column_rows(tables, d, ctx)), "TABLE"), d, "column_name"
        )
        return _result(COLUMNS, rows, StatementType.SHOW)
    if d.kind in ("PROCEDURES", "FUNCTIONS"):
        # Only user-defined ones: the built-in functions are not listed.
        shown = routines.show_rows(d.kind[:-1], tables, session, _schemas_in_scope(tables, d))
        rows = _filtered(list(shown), d)
        return _result(PROCEDURES if d.kind == "PROCEDURES" else FUNCTIONS, rows, StatementType.SHOW)
    if d.kind == "SEQUENCES":
        rows = _filtered(list(sequences.show_rows(tables, session, _schemas_in_scope(tables, d))), d)
        return _result(SEQUENCES, rows, StatementType.SHOW)
    if d.kind == "WAREHOUSES":
        rows = _filtered(warehouses.show_rows(tables.warehouses, session), d)
        return _result(WAREHOUSES, rows, StatementType.SHOW)
    if d.kind in EMPTY_KINDS:
        return _show_empty(tables, d)
    if d.kind == "VIEWS":
        rows = _filtered(_visible(tables, session, list(_view_rows(tables, d)), "TABLE"), d)
        return _result(TERSE if d.terse else VIEWS, rows, StatementType.SHOW)
    if d.kind == "OBJECTS" and d.scope == "SCHEMA" and not _schema_exists(tables, d):
        # What clients such as dbt check for to learn that a schema is not there yet.
        raise SqlCompilationError(
            "Object does not exist, or operation cannot be performed.", code=2043, sqlstate="02000"
        )
    rows = list(_table_rows(tables, d))
    if d.kind == "OBJECTS":
        # SHOW OBJECTS calls every table a TABLE (dbt reads this column); only SHOW TABLES tells
        # TRANSIENT and TEMPORARY apart.
        rows = [{**r, "kind": "TABLE"} for r in rows]
        rows = sorted([*rows, *_view_rows(tables, d)], key=_object_order)
    rows = _filtered(_visible(tables, session, rows, "TABLE"), d)
    if d.terse:
        return _result(TERSE, rows, StatementType.SHOW)
    return _result(TABLES if d.kind == "TABLES" else OBJECTS, rows, StatementType.SHOW)


def _show_empty(tables: Tables, d: ShowDef) -> QueryResult:
    """SHOW of a kind of object this server has none of: the kind's columns and no rows, once the
    database or schema of an IN clause is found. SHOW INTEGRATIONS lists the catalog integrations.

    Raises:
        ObjectNotFound: the database or schema of the IN clause does not exist.
        Unsupported: TERSE of a kind without a TERSE form.
    """
    key = f"TERSE {d.kind}" if d.terse else d.kind
    if key not in EMPTY_KINDS:
        raise Unsupported(f"SHOW {key} is not supported.")
    if d.scope != "ACCOUNT":
        _schemas_in_scope(tables, d)
    if d.kind == "INTEGRATIONS":
        return catalogs.show_integrations(tables.metastore, d.like)
    return _result(EMPTY_KINDS[key], [], StatementType.SHOW)


def _visible(tables: Tables, session: Session, rows: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    """Only what the session's roles hold something on, as on Snowflake, each with its owner."""
    grants = tables.metastore.grants
    roles = access.active_roles(grants, session)
    kept = []
    for row in rows:
        if kind == "DATABASE":
            on = Securable("DATABASE", row["name"])
        elif kind == "SCHEMA":
            on = Securable("SCHEMA", row["database_name"], row["name"])
        else:
            name = row.get("table_name") or row["name"]
            on = Securable("TABLE", row["database_name"], row["schema_name"], name)
        if not access.visible(grants, roles, on):
            continue
        kept.append({**row, "owner": grants.owner(on)} if "owner" in row else row)
    return kept


def _schema_exists(tables: Tables, d: ShowDef) -> bool:
    return (
        d.database is not None
        and d.schema is not None
        and tables.metastore.schema_exists(d.database, d.schema)
    )


def _database_names(tables: Tables, d: ShowDef) -> list[str]:
    if d.scope == "ACCOUNT" or d.database is None:
        return tables.metastore.database_names()
    if not tables.metastore.database_exists(d.database):
        raise object_not_found("Database", d.database)
    return [d.database]


def _database_rows(tables: Tables, session: Session) -> list[dict[str, Any]]:
    rows = []
    for name in tables.metastore.database_names():
        info = tables.metastore.database_info(name)
        if info is None:
            continue  # dropped meanwhile
        rows.append(
            {
                "created_on": info.created_on,
                "name": info.name,
                "is_default": "N",
                "is_current": "Y" if info.name == session.database else "N",
                "origin": "",
                "owner": OWNER,
                "comment": info.comment or "",
                "options": "",
                "retention_time": str(retention_of(tables.metastore).of_database(info.name)),
                "kind": "STANDARD",
                "owner_role_type": "ROLE",
                "database_name": None,
                "schema_name": None,
            }
        )
    return rows


def _schemas_in_scope(tables: Tables, d: ShowDef) -> list[tuple[str, str]]:
    """(database, schema) pairs an IN clause covers, ordered by database then schema."""
    if d.scope in ("SCHEMA", "TABLE") and d.database is not None and d.schema is not None:
        tables.metastore.require_schema(d.database, d.schema)
        return [(d.database, d.schema)]
    return [(db, s) for db in _database_names(tables, d) for s in tables.metastore.schema_names(db)]


def _schema_rows(tables: Tables, session: Session, d: ShowDef) -> list[dict[str, Any]]:
    rows = []
    for database in _database_names(tables, d):
        info = tables.metastore.database_info(database)
        for schema in tables.metastore.schema_names(database):
            current = database == session.database and schema == session.schema
            rows.append(
                {
                    # Iceberg namespaces keep no creation time: the database's stands in.
                    "created_on": info.created_on if info else None,
                    "name": schema,
                    "is_default": "N",
                    "is_current": "Y" if current else "N",
                    "database_name": database,
                    "owner": OWNER,
                    "comment": tables.metastore.schema_comment(database, schema) or "",
                    "options": "",
                    "retention_time": str(retention_of(tables.metastore).of_schema(database, schema)),
                    "owner_role_type": "ROLE",
                    "kind": None,  # TERSE: kind and schema_name are NULL for schemas
                    "schema_name": None,
                }
            )
    return rows


def _loaded_tables(tables: Tables, d: ShowDef) -> Iterator[tuple[TableName, Table | None]]:
    """The tables in scope; None for one whose metadata cannot be read (listed, not fatal)."""
    if d.scope == "TABLE" and d.database and d.schema and d.table:
        ref = TableName(d.database, d.schema, d.table)
        yield ref, tables.load(ref)
        return
    for database, schema in _schemas_in_scope(tables, d):
        for name in tables.names(database, schema):
            ref = TableName(database, schema, name)
            try:
                yield ref, tables.load(ref)
            except ObjectNotFound:
                continue  # dropped while we listed
            except TableUnreadable as e:
                log.warning("listing without its metadata: %s", e)
                yield ref, None


def _cluster_by(table: Table) -> str:
    key = clustering_key(table)
    return f"LINEAR({', '.join(naming.display(c) for c in key)})" if key else ""


def _table_rows(tables: Tables, d: ShowDef) -> Iterator[dict[str, Any]]:
    for ref, table in _loaded_tables(tables, d):
        # An unreadable table is still listed, with what its metadata would have told blank.
        rows, size = Tables.size(table) if table else (None, None)
        yield {
            "created_on": Tables.created_on(table) if table else None,
            "name": ref.name,
            "database_name": ref.database,
            "schema_name": ref.schema,
            "kind": tables.kind(ref, table) if table else "TABLE",
            "comment": (Tables.comment(table) if table else None) or "",
            "cluster_by": _cluster_by(table) if table else "",
            "rows": rows,
            "bytes": size,
            "owner": OWNER,
            "retention_time": str(
                retention_of(tables.metastore).of_table(
                    ref.database, ref.schema, table.properties if table else {}
                )
            ),
            "automatic_clustering": "OFF",
            "change_tracking": "ON" if table and Tables.change_tracking(table) else "OFF",
            "search_optimization": "OFF",
            "search_optimization_progress": None,
            "search_optimization_bytes": None,
            "is_external": "N",
            "enable_schema_evolution": "N",
            "owner_role_type": "ROLE",
            "is_event": "N",
            "is_hybrid": "N",
            # Stored as Iceberg, but managed like an ordinary Snowflake table.
            "is_iceberg": "N",
            "is_dynamic": "Y" if table and table.properties.get(DYNAMIC_PROPERTY) else "N",
            "is_immutable": "N",
        }


def _object_order(row: dict[str, Any]) -> tuple[str, str, str]:
    """SHOW output order: database, schema, then object name."""
    return (row["database_name"], row["schema_name"], row["name"])


def _views_in_scope(tables: Tables, d: ShowDef) -> Iterator[View]:
    for database, schema in _schemas_in_scope(tables, d):
        for name in tables.views.names(database, schema):
            view = tables.views.get(database, schema, name)
            if view is not None:  # else dropped while we listed
                yield view


def _utc(value: datetime) -> datetime:
    # The metastore's DateTime columns come back naive; they hold UTC.
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _view_rows(tables: Tables, d: ShowDef) -> Iterator[dict[str, Any]]:
    """Rows for SHOW VIEWS (and the view rows of SHOW OBJECTS / DESCRIBE SCHEMA)."""
    for view in _views_in_scope(tables, d):
        yield {
            "created_on": _utc(view.created_on),
            "name": view.name,
            "reserved": "",
            "database_name": view.database,
            "schema_name": view.schema,
            "kind": "VIEW",
            "owner": OWNER,
            "comment": view.comment or "",
            "text": view.text,
            "is_secure": "true" if view.secure else "false",
            "is_materialized": "false",
            "owner_role_type": "ROLE",
            "change_tracking": "OFF",
            "cluster_by": "",
            # A view stores no data.
            "rows": None,
            "bytes": None,
            "retention_time": RETENTION_TIME,
            "is_hybrid": "N",
            "is_dynamic": "N",
            "is_iceberg": "N",
        }


def _view_columns(tables: Tables, parts: list[str], ctx: SqlContext) -> list[Column]:
    """A view's columns: the names and types of its query's result."""
    frame, names = plan(tables, select_all(parts), ctx, None)
    return [
        Column(name, from_arrow_field(f), f.nullable)
        for name, f in zip(names, described_schema(frame), strict=True)
    ]


def _relation_columns(tables: Tables, parts: list[str], ctx: SqlContext, kind: str) -> list[Column]:
    """Columns of a table, or of a view (DESCRIBE TABLE and DESCRIBE VIEW are interchangeable).

    Raises:
        ObjectNotFound: neither a table nor a view has that name.
    """
    ref = TableName(*parts)
    if tables.exists(ref):
        return Tables.columns(tables.load(ref))
    if tables.metastore.schema_exists(ref.database, ref.schema) and tables.views.get(*parts) is not None:
        return _view_columns(tables, parts, ctx)
    raise object_not_found(kind.capitalize(), str(ref))


def data_type_json(column: Column) -> str:
    """SHOW COLUMNS' data_type: the type as Snowflake's JSON, e.g.
    {"type":"FIXED","precision":38,"scale":0,"nullable":true}.
    https://docs.snowflake.com/en/sql-reference/sql/show-columns#output"""
    t = column.type
    doc: dict[str, Any] = {"type": t.kind}
    if t.kind == "FIXED":
        doc.update(precision=t.precision, scale=t.scale)
    elif t.kind == "TEXT":
        length = t.length or MAX_VARCHAR
        # byteLength allows four bytes per character, capped at the maximum VARCHAR size.
        doc.update(length=length, byteLength=min(length * 4, MAX_VARCHAR))
    elif t.kind == "BINARY":
        doc.update(length=t.length, byteLength=t.length)
    elif t.kind in ("TIME", "TIMESTAMP_NTZ", "TIMESTAMP_LTZ", "TIMESTAMP_TZ"):
        doc.update(precision=0, scale=t.scale if t.scale is not None else 9)
    doc["nullable"] = column.nullable
    if t.kind in ("TEXT", "BINARY"):
        doc["fixed"] = t.kind == "BINARY"
    return json.dumps(doc, separators=(",", ":"))


def _relations(tables: Tables, d: ShowDef, ctx: SqlContext) -> Iterator[tuple[TableName, list[Column]]]:
    """Tables and views in scope with their columns, ordered by database, schema and name."""
    if d.scope == "TABLE" and d.database and d.schema and d.table:
        parts = [d.database, d.schema, d.table]
        yield TableName(*parts), _relation_columns(tables, parts, ctx, "TABLE")
        return
    found: list[tuple[TableName, list[Column]]] = [
        (ref, Tables.columns(table)) for ref, table in _loaded_tables(tables, d) if table is not None
    ]
    for view in _views_in_scope(tables, d):
        parts = [view.database, view.schema, view.name]
        try:
            found.append((TableName(*parts), _view_columns(tables, parts, ctx)))
        except SnowflakeError:
            continue  # a view whose query no longer plans has no columns to show
    yield from sorted(found, key=lambda item: (item[0].database, item[0].schema, item[0].name))


def _column_rows(tables: Tables, d: ShowDef, ctx: SqlContext) -> Iterator[dict[str, Any]]:
    for ref, columns in _relations(tables, d, ctx):
        for column in columns:
            yield {
                "table_name": ref.name,
                "schema_name": ref.schema,
                "column_name": column.name,
                "data_type": data_type_json(column),
                "null?": "true" if column.nullable else "false",
                "default": "",
                "kind": "COLUMN",
                "expression": "",
                "comment": column.comment or "",
                "database_name": ref.database,
                "autoincrement": "",
                "schema_evolution_record": None,
            }


def with_history(tables: Tables, d: ShowDef, live: QueryResult) -> QueryResult:
    """SHOW TABLES | SCHEMAS | DATABASES HISTORY: the live objects plus the dropped ones still
    restorable, with an extra `dropped_on` column (NULL for live objects).
    https://docs.snowflake.com/en/sql-reference/sql/show-tables#parameters"""
    if d.kind not in ("TABLES", "SCHEMAS", "DATABASES"):
        raise Unsupported(f"SHOW {d.kind} HISTORY is not supported.")
    columns = [(c.name, c.type) for c in live.columns] + [("dropped_on", TIMESTAMP_LTZ)]
    rows = [row | {"dropped_on": None} for batch in live.batches for row in batch.to_pylist()]
    kind = d.kind[:-1] if d.kind != "SCHEMAS" else "SCHEMA"
    scoped = {
        "TABLES": (d.database, d.schema),
        "SCHEMAS": (d.database, None),
        "DATABASES": (None, None),
    }[d.kind]
    gone = []
    for entry in dropped_of(tables.metastore).entries(kind, *scoped):
        name = {"TABLE": entry.name, "SCHEMA": entry.schema, "DATABASE": entry.database}[kind]
        gone.append(
            {
                "created_on": entry.created_on,
                "name": name,
                "database_name": entry.database,
                "schema_name": entry.schema,
                "kind": "TABLE" if kind == "TABLE" else None,
                "comment": entry.comment,
                "owner": OWNER,
                "retention_time": str(entry.retention_days),
                "dropped_on": datetime.fromtimestamp(entry.dropped_ms / 1000, UTC),
            }
        )
    return _result(
        columns, rows + _filtered(gone, replace(d, limit=None, from_name=None)), StatementType.SHOW
    )


# --- DESCRIBE ------------------------------------------------------------------------------------


def describe(tables: Tables, d: DescribeDef, ctx: SqlContext) -> QueryResult:
    """DESCRIBE TABLE/VIEW (one row per column), DATABASE (its schemas), SCHEMA (its objects).

    Raises:
        ObjectNotFound: the object does not exist.
    """
    if d.kind == "DATABASE":
        info = tables.metastore.database_info(d.parts[0])
        if info is None:
            raise object_not_found("Database", d.parts[0])
        rows = [
            {"created_on": info.created_on, "name": s, "kind": "SCHEMA"}
            for s in tables.metastore.schema_names(d.parts[0])
        ]
        return _result(DESCRIBE_CONTAINER, rows, StatementType.DESCRIBE)
    if d.kind == "SCHEMA":
        database, schema = d.parts
        show_def = ShowDef("OBJECTS", scope="SCHEMA", database=database, schema=schema)
        objects = sorted([*_table_rows(tables, show_def), *_view_rows(tables, show_def)], key=_object_order)
        rows = [{"created_on": r["created_on"], "name": r["name"], "kind": r["kind"]} for r in objects]
        return _result(DESCRIBE_CONTAINER, rows, StatementType.DESCRIBE)
    columns = _relation_columns(tables, d.parts, ctx, d.kind)
    primary, unique = keys.key_columns(tables, TableName(*d.parts))
    masked = tables.policies.masked_columns(d.parts)
    rows = [_describe_column(c, c.name in primary, c.name in unique, masked.get(c.name)) for c in columns]
    return _result(DESCRIBE_TABLE, rows, StatementType.DESCRIBE)


def describe_result(columns: list[ResultColumn]) -> QueryResult:
    """DESCRIBE RESULT: a query result's columns, as DESCRIBE TABLE shows a table's."""
    rows = [_describe_column(Column(c.name, c.type, c.nullable)) for c in columns]
    return _result(DESCRIBE_TABLE, rows, StatementType.DESCRIBE)


def _shown_default(column: Column) -> str | None:
    """DESCRIBE's `default`: the expression, or Snowflake's IDENTITY description."""
    if column.identity is not None:
        return f"IDENTITY START {column.identity[0]} INCREMENT {column.identity[1]} ORDER"
    return column.default


def _describe_column(
    column: Column, primary: bool = False, unique: bool = False, policy: str | None = None
) -> dict[str, Any]:
    return {
        "name": column.name,
        "type": column.type.sql,
        "kind": "COLUMN",
        "null?": "Y" if column.nullable else "N",
        "default": _shown_default(column),
        "primary key": "Y" if primary else "N",
        "unique key": "Y" if unique else "N",
        "check": None,
        "expression": None,
        "comment": column.comment,
        "policy name": policy,
        "privacy domain": None,
    }

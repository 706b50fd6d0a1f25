"""INFORMATION_SCHEMA: each database's read-only views, built as Arrow tables from the metastore.

A query naming `db.INFORMATION_SCHEMA.<view>` (or `INFORMATION_SCHEMA.<view>` in the current
database) gets that view registered in its DataFusion context as an in-memory table, so any SQL
(filters, joins, aggregates) runs over it in the engine. Column names, types and order follow
Snowflake's pages, one URL per view. https://docs.snowflake.com/en/sql-reference/info-schema

"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pyarrow as pa
from pyiceberg.table import Table

from embucket_py import naming
from embucket_py.catalog.constraints import Key, keys_of
from embucket_py.catalog.grants import Grants, Securable, stage
from embucket_py.catalog.routines import FUNCTION, PROCEDURE
from embucket_py.catalog.tables import Column, TableName, Tables
from embucket_py.catalog.views import View
from embucket_py.engine import access, routines
from embucket_py.engine.information_schema_columns import LAYOUTS
from embucket_py.engine.keys import primary_key
from embucket_py.engine.scripting import declared_type
from embucket_py.errors import ObjectNotFound, SnowflakeError, TableUnreadable, object_not_found
from embucket_py.sql.constraints import FOREIGN_KEY
from embucket_py.sql.context import SqlContext
from embucket_py.stages.formats import file_format, option_text, show_options
from embucket_py.stages.registry import StageInfo, StageRegistry, load_key
from embucket_py.types import MAX_VARCHAR, SfType, arrow_field, from_arrow_field

SCHEMA = "INFORMATION_SCHEMA"
OWNER = "ACCOUNTADMIN"
# Snowflake's default DATA_RETENTION_TIME_IN_DAYS.
RETENTION_DAYS = 1

# Columns of a view's result, given its [database, schema, name]: the engine plans the view.
ViewColumns = Callable[[list[str]], list[Column]]
Rows = Iterator[dict[str, Any]]


log = logging.getLogger(__name__)
Visible = Callable[[Securable], bool]


def is_information_schema(schema: str) -> bool:
    return schema == SCHEMA


def build_for_query(tables: Tables, database: str, name: str, sql_ctx: SqlContext) -> pa.Table:
    """`build`, with view columns learnt by planning each view in the statement's context."""
    # Imported here: the query planner registers these views, so it imports this module.
    from embucket_py.engine.query import described_schema, plan
    from embucket_py.sql.metadata import select_all

    def view_columns(parts: list[str]) -> list[Column]:
        frame, names = plan(tables, select_all(parts), sql_ctx, None)
        return [
            Column(n, from_arrow_field(f), f.nullable)
            for n, f in zip(names, described_schema(frame), strict=True)
        ]

    grants = tables.metastore.grants
    roles = access.context_roles(grants, sql_ctx)
    user = str(sql_ctx.values.get("CURRENT_USER") or "")
    session = int(sql_ctx.values.get("CURRENT_SESSION") or 0)
    role = str(sql_ctx.values.get("CURRENT_ROLE") or "")
    return build(
        tables,
        database,
        name,
        view_columns,
        lambda on: access.visible(grants, roles, on),
        roles,
        user,
        session,
        role,
    )


def build(
    tables: Tables,
    database: str,
    name: str,
    view_columns: ViewColumns,
    visible: Visible = lambda on: True,
    roles: set[str] | None = None,
    user: str = "",
    session: int = 0,
    role: str = "",
) -> pa.Table:
    """One INFORMATION_SCHEMA view of a database, as an Arrow table.

    Raises:
        ObjectNotFound: the database, or a view of that name in INFORMATION_SCHEMA, does not exist.
    """
    if name not in LAYOUTS:
        raise object_not_found("Object", f"{database}.{SCHEMA}.{name}")
    info = tables.metastore.database_info(database)
    if info is None or not visible(Securable("DATABASE", database)):
        raise object_not_found("Database", database)
    scope = _Scope(tables, database, info.created_on, view_columns, visible)
    grants = tables.metastore.grants
    rows = {
        "INFORMATION_SCHEMA_CATALOG_NAME": lambda: iter([{"CATALOG_NAME": database}]),
        "ENABLED_ROLES": lambda: _enabled_roles(grants, roles or set()),
        "APPLICABLE_ROLES": lambda: _applicable_roles(grants, user),
        "TABLE_PRIVILEGES": scope.table_privilege_rows,
        "STAGES": lambda: scope.stage_rows(session),
        "FILE_FORMATS": lambda: scope.file_format_rows(session, role),
        "OBJECT_PRIVILEGES": lambda: scope.object_privilege_rows(session),
        "USAGE_PRIVILEGES": scope.usage_privilege_rows,
        "LOAD_HISTORY": scope.load_history_rows,
        "PIPES": lambda: iter([]),  # no Snowpipe here: SHOW PIPES answers no rows either
        "DATABASES": scope.database_rows,
        "SCHEMATA": scope.schema_rows,
        "TABLES": scope.table_rows,
        "COLUMNS": scope.column_rows,
        "VIEWS": scope.view_rows,
        "TABLE_STORAGE_METRICS": scope.storage_rows,
        "TABLE_CONSTRAINTS": scope.constraint_rows,
        "REFERENTIAL_CONSTRAINTS": scope.referential_rows,
        "FUNCTIONS": lambda: scope.routine_rows(FUNCTION),
        "PROCEDURES": lambda: scope.routine_rows(PROCEDURE),
        "SEQUENCES": scope.sequence_rows,
    }[name]()
    layout = LAYOUTS[name]
    # Fields carry the engine's stored names, as every table's do (TABLE_NAME -> table_name).
    schema = pa.schema([arrow_field(naming.stored(n), t) for n, t in layout])
    return pa.Table.from_pylist(
        [{naming.stored(n): r.get(n) for n, _ in layout} for r in rows], schema=schema
    )


def _enabled_roles(grants: Grants, roles: set[str]) -> Rows:
    """The session's current role and every role it inherits."""
    owners = {r.name: r.owner for r in grants.roles()}
    for role in sorted(roles):
        yield {"ROLE_NAME": role, "ROLE_OWNER": owners.get(role)}


def _applicable_roles(grants: Grants, user: str) -> Rows:
    """Each grant of a role to the user, or to a role the user holds (directly or inherited)."""
    held = grants.effective_roles(grants.user_roles(user))
    owners = {r.name: r.owner for r in grants.roles()}
    for g in grants.role_grants():
        if (g.grantee_kind == "USER" and g.grantee == user) or (
            g.grantee_kind == "ROLE" and g.grantee in held
        ):
            yield {
                "GRANTEE": g.grantee,
                "ROLE_NAME": g.role,
                "ROLE_OWNER": owners.get(g.role),
                "IS_GRANTABLE": "NO",
            }


def data_type(t: SfType) -> str:
    """COLUMNS.DATA_TYPE: the standard Snowflake type name without parameters."""
    return {"FIXED": "NUMBER", "REAL": "FLOAT"}.get(t.kind, t.kind)


def _yes_no(flag: bool) -> str:
    return "YES" if flag else "NO"


def _millis(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, UTC)


LOAD_HISTORY_DAYS = timedelta(days=14)

# FILE_FORMATS' text columns that are options of the format (NULL for a type without them).
_FORMAT_TEXTS = (
    "RECORD_DELIMITER",
    "FIELD_DELIMITER",
    "DATE_FORMAT",
    "TIME_FORMAT",
    "TIMESTAMP_FORMAT",
    "BINARY_FORMAT",
    "ESCAPE",
    "ESCAPE_UNENCLOSED_FIELD",
    "TRIM_SPACE",
    "FIELD_OPTIONALLY_ENCLOSED_BY",
    "NULL_IF",
    "COMPRESSION",
    "ERROR_ON_COLUMN_COUNT_MISMATCH",
)


def _object_privilege(
    on: Securable, grantor: str, grantee: str, privilege: str, grantable: bool, created: datetime | None
) -> dict[str, Any]:
    """A row of OBJECT_PRIVILEGES / USAGE_PRIVILEGES: the object named within its container (a
    database by its name alone, a schema within its database)."""
    path = [p for p in (on.database, on.schema, on.name.removeprefix("@")) if p]
    return {
        "GRANTOR": grantor,
        "GRANTEE": grantee,
        "GRANTED_TO": "ROLE",
        "OBJECT_CATALOG": path[0] if len(path) > 1 else None,
        "OBJECT_SCHEMA": path[1] if len(path) > 2 else None,
        "OBJECT_NAME": path[-1],
        "OBJECT_TYPE": on.kind,
        "PRIVILEGE_TYPE": privilege,
        "IS_GRANTABLE": _yes_no(grantable),
        "CREATED": _utc(created) if created else None,
    }


def _utc(value: datetime) -> datetime:
    # The metastore's DateTime columns come back naive; they hold UTC.
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def column_facts(column: Column, position: int) -> dict[str, Any]:
    """The type-dependent COLUMNS fields of one column."""
    t = column.type
    row: dict[str, Any] = {
        "COLUMN_NAME": column.name,
        "ORDINAL_POSITION": position,
        "IS_NULLABLE": _yes_no(column.nullable),
        "DATA_TYPE": data_type(t),
        "IS_SELF_REFERENCING": "NO",
        "IS_IDENTITY": _yes_no(column.identity is not None),
        "COLUMN_DEFAULT": column.default,
        "COMMENT": column.comment,
        "DATA_TYPE_ALIAS": t.sql,
    }
    if column.identity is not None:
        start, step = column.identity
        row.update(IDENTITY_START=str(start), IDENTITY_INCREMENT=str(step), IDENTITY_ORDERED="YES")
    return row | type_facts(t)


def type_facts(t: SfType) -> dict[str, Any]:
    """Lengths of text and binary types, precision and scale of numbers."""
    if t.kind == "TEXT":
        length = t.length or MAX_VARCHAR
        return {"CHARACTER_MAXIMUM_LENGTH": length, "CHARACTER_OCTET_LENGTH": min(length * 4, MAX_VARCHAR)}
    if t.kind == "BINARY":
        return {"CHARACTER_MAXIMUM_LENGTH": t.length, "CHARACTER_OCTET_LENGTH": t.length}
    if t.kind == "FIXED":
        return {"NUMERIC_PRECISION": t.precision, "NUMERIC_PRECISION_RADIX": 10, "NUMERIC_SCALE": t.scale}
    return {}


class _Scope:
    """The objects of one database, loaded once per view build."""

    def __init__(
        self, tables: Tables, database: str, created: datetime, view_columns: ViewColumns, visible: Visible
    ) -> None:
        self.tables = tables
        self.database = database
        self.created = created
        self.view_columns = view_columns
        # Only what the statement's role sees, as on Snowflake.
        self.visible = visible
        self.schemas = [
            s for s in tables.metastore.schema_names(database) if visible(Securable("SCHEMA", database, s))
        ]
        self.registry = StageRegistry(tables.metastore)

    def stages(self, session: int) -> Iterator[tuple[str, StageInfo, Securable]]:
        """(schema, stage, securable) of each named stage the role sees (a session's temporary
        stages to that session only)."""
        for schema in self.schemas:
            for s in self.registry.stages(self.database, schema, session):
                securable = stage(self.database, schema, s.name)
                if self.visible(securable):
                    yield schema, s, securable

    def loaded(self) -> Iterator[tuple[TableName, Table]]:
        for schema in self.schemas:
            for name in self.tables.names(self.database, schema):
                ref = TableName(self.database, schema, name)
                if not self.visible(Securable("TABLE", self.database, schema, name)):
                    continue
                try:
                    yield ref, self.tables.load(ref)
                except ObjectNotFound:
                    continue  # dropped while we listed
                except TableUnreadable as e:  # only that table is missing from the views
                    log.warning("left out of INFORMATION_SCHEMA: %s", e)

    def views(self) -> Iterator[View]:
        for schema in self.schemas:
            for name in self.tables.views.names(self.database, schema):
                if not self.visible(Securable("VIEW", self.database, schema, name)):
                    continue
                view = self.tables.views.get(self.database, schema, name)
                if view is not None:
                    yield view

    def database_rows(self) -> Rows:
        # Every database of the account, as on Snowflake (not just this one).
        for name in self.tables.metastore.database_names():
            info = self.tables.metastore.database_info(name)
            if info is None or not self.visible(Securable("DATABASE", name)):
                continue
            yield {
                "DATABASE_NAME": info.name,
                "DATABASE_OWNER": OWNER,
                "IS_TRANSIENT": "NO",
                "COMMENT": info.comment,
                "CREATED": info.created_on,
                "LAST_ALTERED": info.created_on,
                "RETENTION_TIME": RETENTION_DAYS,
                "TYPE": "STANDARD",
                "REPLICABLE_WITH_FAILOVER_GROUPS": "NO",
                "OWNER_ROLE_TYPE": "ROLE",
            }

    def schema_rows(self) -> Rows:
        for schema in sorted([*self.schemas, SCHEMA]):
            yield {
                "CATALOG_NAME": self.database,
                "SCHEMA_NAME": schema,
                "SCHEMA_OWNER": None if schema == SCHEMA else OWNER,
                "IS_TRANSIENT": "NO",
                "IS_MANAGED_ACCESS": "NO",
                "RETENTION_TIME": RETENTION_DAYS,
                # Iceberg namespaces keep no creation time: the database's stands in.
                "CREATED": self.created,
                "LAST_ALTERED": self.created,
                "COMMENT": "Views describing the contents of schemas in this database"
                if schema == SCHEMA
                else self.tables.metastore.schema_comment(self.database, schema),
                "REPLICABLE_WITH_FAILOVER_GROUPS": "NO",
                "OWNER_ROLE_TYPE": None if schema == SCHEMA else "ROLE",
            }

    def table_rows(self) -> Rows:
        rows = [*self._base_tables(), *self._view_tables(), *self._own_views()]
        yield from sorted(rows, key=lambda r: (r["TABLE_SCHEMA"], r["TABLE_NAME"]))

    def _base_tables(self) -> Rows:
        for ref, table in self.loaded():
            count, size = Tables.size(table)
            altered = _millis(table.metadata.last_updated_ms)
            yield {
                **self._relation(ref.schema, ref.name),
                "TABLE_TYPE": "BASE TABLE",
                "IS_TRANSIENT": _yes_no(self.tables.kind(ref, table) == "TRANSIENT"),
                "ROW_COUNT": count,
                "BYTES": size,
                "RETENTION_TIME": RETENTION_DAYS,
                "IS_INSERTABLE_INTO": "YES",
                "IS_TYPED": "YES",
                "CREATED": Tables.created_on(table),
                "LAST_ALTERED": altered,
                "LAST_DDL": altered,
                "AUTO_CLUSTERING_ON": "NO",
                "COMMENT": Tables.comment(table),
                "IS_TEMPORARY": "NO",
            }

    def _view_tables(self) -> Rows:
        for view in self.views():
            created = _utc(view.created_on)
            yield {
                **self._relation(view.schema, view.name),
                "TABLE_TYPE": "VIEW",
                "IS_INSERTABLE_INTO": "NO",
                "IS_TYPED": "NO",
                "CREATED": created,
                "LAST_ALTERED": created,
                "LAST_DDL": created,
                "COMMENT": view.comment,
                "IS_TEMPORARY": "NO",
            }

    def _own_views(self) -> Rows:
        """INFORMATION_SCHEMA lists its own views too."""
        for name in LAYOUTS:
            yield {
                **self._relation(SCHEMA, name),
                "TABLE_OWNER": None,
                "LAST_DDL_BY": None,
                "TABLE_TYPE": "VIEW",
                "IS_INSERTABLE_INTO": "NO",
                "IS_TYPED": "NO",
                "CREATED": self.created,
                "LAST_ALTERED": self.created,
                "LAST_DDL": self.created,
                "IS_TEMPORARY": "NO",
            }

    def _relation(self, schema: str, name: str) -> dict[str, Any]:
        return {
            "TABLE_CATALOG": self.database,
            "TABLE_SCHEMA": schema,
            "TABLE_NAME": name,
            "TABLE_OWNER": OWNER,
            "LAST_DDL_BY": OWNER,
            "IS_ICEBERG": "NO",
            "IS_DYNAMIC": "NO",
            "IS_IMMUTABLE": "NO",
            "IS_HYBRID": "NO",
        }

    def column_rows(self) -> Rows:
        found: list[tuple[str, str, list[Column]]] = [
            (ref.schema, ref.name, Tables.columns(table)) for ref, table in self.loaded()
        ]
        for view in self.views():
            try:
                found.append(
                    (view.schema, view.name, self.view_columns([view.database, view.schema, view.name]))
                )
            except SnowflakeError:
                continue  # a view whose query no longer plans has no columns to show
        for name, layout in LAYOUTS.items():
            found.append((SCHEMA, name, [Column(n, t) for n, t in layout]))
        for schema, name, columns in sorted(found, key=lambda item: (item[0], item[1])):
            for position, column in enumerate(columns, start=1):
                yield {
                    "TABLE_CATALOG": self.database,
                    "TABLE_SCHEMA": schema,
                    "TABLE_NAME": name,
                    **column_facts(column, position),
                }

    def view_rows(self) -> Rows:
        for view in self.views():
            created = _utc(view.created_on)
            yield {
                "TABLE_CATALOG": self.database,
                "TABLE_SCHEMA": view.schema,
                "TABLE_NAME": view.name,
                "TABLE_OWNER": OWNER,
                "VIEW_DEFINITION": view.text,
                "CHECK_OPTION": "NONE",
                "IS_UPDATABLE": "NO",
                "INSERTABLE_INTO": "NO",
                "IS_SECURE": _yes_no(view.secure),
                "CREATED": created,
                "LAST_ALTERED": created,
                "LAST_DDL": created,
                "LAST_DDL_BY": OWNER,
                "COMMENT": view.comment,
            }

    def routine_rows(self, kind: str) -> Rows:
        """FUNCTIONS / PROCEDURES: the user's, in SQL."""
        for schema in self.schemas:
            for r in self.tables.routines.list(kind, self.database, schema):
                created = _utc(r.created_on) if r.created_on else None
                signature = ", ".join(f"{name} {routines.signature_type(t)}" for name, t, _ in r.arguments)
                row = {
                    f"{kind}_CATALOG": self.database,
                    f"{kind}_SCHEMA": r.schema,
                    f"{kind}_NAME": r.name,
                    f"{kind}_OWNER": OWNER,
                    "ARGUMENT_SIGNATURE": f"({signature})",
                    f"{kind}_LANGUAGE": r.language,
                    f"{kind}_DEFINITION": r.body,
                    "CREATED": created,
                    "LAST_ALTERED": created,
                    "COMMENT": r.comment,
                    "VOLATILITY": "VOLATILE",
                    "IS_NULL_CALL": "YES",
                    "IS_SECURE": "NO",
                    "IS_EXTERNAL": "NO",
                    "IS_MEMOIZABLE": "NO",
                }
                if r.returns_table:
                    yield row | {"DATA_TYPE": r.returns}
                else:
                    returned = declared_type(r.returns)
                    yield row | {"DATA_TYPE": data_type(returned)} | type_facts(returned)

    def sequence_rows(self) -> Rows:
        for schema in self.schemas:  # a sequence is seen with its schema (engine/sequences.py)
            for s in self.tables.sequences.list(self.database, schema):
                created = _utc(s.created_on) if s.created_on else None
                yield {
                    "SEQUENCE_CATALOG": s.database,
                    "SEQUENCE_SCHEMA": s.schema,
                    "SEQUENCE_NAME": s.name,
                    "SEQUENCE_OWNER": OWNER,
                    "DATA_TYPE": "NUMBER",
                    "NUMERIC_PRECISION": 38,
                    "NUMERIC_PRECISION_RADIX": 10,
                    "NUMERIC_SCALE": 0,
                    "START_VALUE": None if s.start is None else str(s.start),
                    "NEXT_VALUE": str(s.next_value),
                    "INCREMENT": str(s.increment),
                    "CREATED": created,
                    "LAST_ALTERED": _utc(s.last_altered) if s.last_altered else created,
                    "ORDERED": "NO",
                    "COMMENT": s.comment,
                }

    def table_privilege_rows(self) -> Rows:
        """The grants on the tables and views the role sees (an owner holds OWNERSHIP alone)."""
        grants = self.tables.metastore.grants
        named = [(ref.schema, ref.name, "TABLE") for ref, _ in self.loaded()]
        named += [(v.schema, v.name, "VIEW") for v in self.views()]
        for schema, name, kind in named:
            for g in grants.grants_on(Securable(kind, self.database, schema, name)):
                yield {
                    "GRANTOR": g.granted_by or g.role,
                    "GRANTEE": g.role,
                    "GRANTED_TO": "ROLE",
                    "TABLE_CATALOG": self.database,
                    "TABLE_SCHEMA": schema,
                    "TABLE_NAME": name,
                    "PRIVILEGE_TYPE": g.privilege,
                    "IS_GRANTABLE": _yes_no(g.grant_option),
                    "WITH_HIERARCHY": "NO",
                    "CREATED": _utc(g.created_on),
                }

    def object_privilege_rows(self, session: int) -> Rows:
        """The grants on every object of the database the role sees: the database, its schemas,
        tables, views and stages (an owner holds OWNERSHIP alone), and its sequences' ownership."""
        grants = self.tables.metastore.grants
        objects = [Securable("DATABASE", self.database)]
        objects += [Securable("SCHEMA", self.database, s) for s in self.schemas]
        objects += [Securable("TABLE", self.database, ref.schema, ref.name) for ref, _ in self.loaded()]
        objects += [Securable("VIEW", self.database, v.schema, v.name) for v in self.views()]
        objects += [securable for _, _, securable in self.stages(session)]
        for on in objects:
            for g in grants.grants_on(on):
                granted = (g.granted_by or g.role, g.role, g.privilege, g.grant_option, g.created_on)
                yield _object_privilege(on, *granted)
        yield from self.usage_privilege_rows()

    def usage_privilege_rows(self) -> Rows:
        """Sequences carry no grants of their own here: their owner's OWNERSHIP, as SEQUENCES shows."""
        for schema in self.schemas:
            for s in self.tables.sequences.list(self.database, schema):
                on = Securable("SEQUENCE", self.database, schema, s.name)
                yield _object_privilege(on, OWNER, OWNER, "OWNERSHIP", True, s.created_on)

    def load_history_rows(self) -> Rows:
        """What COPY INTO made of each file it read into the tables the role sees over the last
        14 days, as on Snowflake (a dropped table's history goes with it; the newest load of a file
        replaces older ones; COPY itself remembers loaded files longer)."""
        since = datetime.now(UTC) - LOAD_HISTORY_DAYS
        by_key = {
            load_key([ref.database, ref.schema, ref.name]): (ref, table) for ref, table in self.loaded()
        }
        for key, uuid, load in self.registry.load_history(load_key([self.database]) + "."):
            ref, table = by_key.get(key, (None, None))
            loaded = _utc(load.loaded_on) if load.loaded_on else None
            if ref is None or table is None or (loaded is not None and loaded < since):
                continue
            if uuid is not None and uuid != str(table.metadata.table_uuid):
                continue  # loaded into an earlier table of that name
            yield {
                "SCHEMA_NAME": ref.schema,
                "FILE_NAME": load.file_name or load.file,
                "TABLE_NAME": ref.name,
                "LAST_LOAD_TIME": loaded,
                "STATUS": load.status or "LOADED",  # recorded before statuses were: loaded ones only
                "ROW_COUNT": load.rows_loaded,
                "ROW_PARSED": load.rows_parsed,
                "FIRST_ERROR_MESSAGE": load.first_error,
                "FIRST_ERROR_LINE_NUMBER": load.first_error_line,
                "FIRST_ERROR_CHARACTER_POSITION": load.first_error_character,
                "FIRST_ERROR_COL_NAME": load.first_error_column,
                "ERROR_COUNT": load.error_count,
                "ERROR_LIMIT": load.error_limit,
            }

    def stage_rows(self, session: int) -> Rows:
        """Named stages the role sees (a session's temporary stages to that session only)."""
        for schema, s, securable in self.stages(session):
            created = _utc(s.created_on)
            yield {
                "STAGE_CATALOG": self.database,
                "STAGE_SCHEMA": schema,
                "STAGE_NAME": s.name,
                "STAGE_URL": s.url,
                "STAGE_TYPE": "External Named" if s.external else "Internal Named",
                "STAGE_OWNER": self.tables.metastore.grants.owner(securable),
                "COMMENT": s.comment,
                "CREATED": created,
                "LAST_ALTERED": created,
            }

    def file_format_rows(self, session: int, role: str) -> Rows:
        """Named file formats (a session's temporary ones to that session only), each option at its
        effective value as DESCRIBE FILE FORMAT shows it; NULL where the type has no such option.
        File formats carry no grants here: their owner is the querying role, as SHOW shows."""
        for schema in self.schemas:
            for f in self.registry.file_formats(self.database, schema, session):
                options = show_options(file_format(f.options))
                created = _utc(f.created_on)
                yield {
                    "FILE_FORMAT_CATALOG": self.database,
                    "FILE_FORMAT_SCHEMA": schema,
                    "FILE_FORMAT_NAME": f.name,
                    "FILE_FORMAT_OWNER": role,
                    "FILE_FORMAT_TYPE": options["TYPE"],
                    **{k: option_text(options[k]) for k in _FORMAT_TEXTS if k in options},
                    "SKIP_HEADER": options.get("SKIP_HEADER"),
                    "CREATED": created,
                    "LAST_ALTERED": created,
                    "COMMENT": f.comment,
                }

    def storage_rows(self) -> Rows:
        for ref, table in self.loaded():
            _, size = Tables.size(table)
            created = Tables.created_on(table)
            yield {
                "TABLE_CATALOG": ref.database,
                "TABLE_SCHEMA": ref.schema,
                "TABLE_NAME": ref.name,
                "IS_TRANSIENT": _yes_no(self.tables.kind(ref, table) == "TRANSIENT"),
                "ACTIVE_BYTES": size,
                "TIME_TRAVEL_BYTES": 0,
                "FAILSAFE_BYTES": 0,
                "RETAINED_FOR_CLONE_BYTES": 0,
                "DELETED": "NO",
                "TABLE_CREATED": created,
                "CATALOG_CREATED": self.created,
                "SCHEMA_CREATED": self.created,
                "COMMENT": Tables.comment(table),
            }

    def constraints(self) -> Iterator[tuple[TableName, Table, Key]]:
        for ref, table in self.loaded():
            for key in keys_of(table):
                yield ref, table, key

    def constraint_rows(self) -> Rows:
        for ref, table, key in self.constraints():
            created = Tables.created_on(table)
            yield {
                "CONSTRAINT_CATALOG": ref.database,
                "CONSTRAINT_SCHEMA": ref.schema,
                "CONSTRAINT_NAME": key.name,
                "TABLE_CATALOG": ref.database,
                "TABLE_SCHEMA": ref.schema,
                "TABLE_NAME": ref.name,
                "CONSTRAINT_TYPE": key.type,
                "IS_DEFERRABLE": "NO",
                "INITIALLY_DEFERRED": "NO",
                # Snowflake enforces only NOT NULL: declared keys are informational.
                "ENFORCED": "NO",
                "CREATED": created,
                "LAST_ALTERED": created,
                "RELY": "NO",
            }

    def referential_rows(self) -> Rows:
        for ref, table, key in self.constraints():
            if key.type != FOREIGN_KEY or key.references is None:
                continue
            created = Tables.created_on(table)
            target = TableName(*key.references)
            primary = primary_key(self.tables, target)
            yield {
                "CONSTRAINT_CATALOG": ref.database,
                "CONSTRAINT_SCHEMA": ref.schema,
                "CONSTRAINT_NAME": key.name,
                "UNIQUE_CONSTRAINT_CATALOG": target.database,
                "UNIQUE_CONSTRAINT_SCHEMA": target.schema,
                "UNIQUE_CONSTRAINT_NAME": primary.name if primary else None,
                "MATCH_OPTION": "NONE",
                "UPDATE_RULE": "NO ACTION",
                "DELETE_RULE": "NO ACTION",
                "CREATED": created,
                "LAST_ALTERED": created,
            }

"""Dropped tables, schemas and databases, kept for their retention period so UNDROP restores them.

https://docs.snowflake.com/en/sql-reference/sql/undrop-table
Dropping removes the catalog entry only (Iceberg files stay, clones may share them); the
metadata location is kept here with the drop time, and UNDROP registers it again. A schema or
database drop records its tables under one drop id, so UNDROP SCHEMA/DATABASE brings them back
together. Entries past DATA_RETENTION_TIME_IN_DAYS are purged (the default is 1 day; 0 keeps
nothing). The views, procedures, functions and sequences of a dropped schema or database leave
their metastore tables with it (kept under the drop id as rows) and come back with UNDROP, so a
new schema of the same name starts empty.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime

import sqlalchemy as sa

from embucket_py import naming
from embucket_py.catalog.metastore import Metastore, databases_table
from embucket_py.catalog.policies import attachments_of, attachments_table, policies_table
from embucket_py.catalog.routines import routines_table
from embucket_py.catalog.sequences import sequences_table
from embucket_py.catalog.tags import tag_row, tag_values_table, tags_table, values_of_tag, values_on
from embucket_py.catalog.views import views_table
from embucket_py.errors import ObjectNotFound, already_exists

RETENTION_PROPERTY = "embucket.data-retention-days"
DEFAULT_RETENTION_DAYS = 1
_DAY_MS = 86_400_000

_meta = sa.MetaData()
dropped_table = sa.Table(
    "embucket_dropped",
    _meta,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("drop_id", sa.String(64), nullable=False, index=True),
    sa.Column("kind", sa.String(16), nullable=False),  # TABLE SCHEMA DATABASE (what the DROP named)
    sa.Column("database", sa.String(255), nullable=False),
    sa.Column("schema", sa.String(255)),
    sa.Column("name", sa.String(255)),
    sa.Column("metadata_location", sa.String(1000)),
    sa.Column("dropped_ms", sa.BigInteger, nullable=False),
    sa.Column("retention_days", sa.Integer, nullable=False),
    sa.Column("top", sa.Boolean, nullable=False),  # the object the DROP named (not one inside it)
    sa.Column("created_on", sa.DateTime),
    sa.Column("comment", sa.Text),
)


# The objects a schema holds besides its tables, each kind in a metastore table of its own.
_CONTAINED = {t.name: t for t in (views_table, routines_table, sequences_table, policies_table, tags_table)}
# What a drop may set aside for UNDROP: those, and a dropped table's policy attachments and tags.
_KEPT = {**_CONTAINED, attachments_table.name: attachments_table, tag_values_table.name: tag_values_table}
dropped_objects_table = sa.Table(
    "embucket_dropped_objects",
    _meta,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("drop_id", sa.String(64), nullable=False, index=True),
    sa.Column("source", sa.String(64), nullable=False),  # the metastore table the row came from
    sa.Column("data", sa.Text, nullable=False),  # the row as JSON, datetimes as ISO text
)


@dataclass(frozen=True)
class DroppedTable:
    database: str
    schema: str
    name: str
    dropped_on: datetime
    metadata_location: str


class Dropped:
    """Records drops and undoes them."""

    def __init__(self, metastore: Metastore) -> None:
        self.metastore = metastore
        _meta.create_all(metastore.engine)

    def _tables_of(self, database: str, schema: str | None = None) -> list[tuple[str, str, str]]:
        """(schema, table, metadata location) of every table in a database or one schema."""
        cat = self.metastore.catalog(database)
        namespaces = [(naming.stored(schema),)] if schema else cat.list_namespaces()
        found = []
        for ns in namespaces:
            for identifier in cat.list_tables(ns):
                table = cat.load_table(identifier)
                found.append(
                    (naming.display(ns[-1]), naming.display(identifier[-1]), table.metadata_location)
                )
        return found

    def _insert(self, rows: list[dict[str, object]]) -> None:
        if rows:
            with self.metastore.engine.begin() as conn:
                conn.execute(dropped_table.insert(), rows)

    def remember_table(self, database: str, schema: str, name: str, location: str, retention: int) -> None:
        drop_id = uuid.uuid4().hex
        if retention > 0:
            self._insert(
                [_row("TABLE", database, schema, name, location, retention, top=True, drop_id=drop_id)]
            )
        # The table's policies and tags go with it, and come back with UNDROP.
        with self.metastore.engine.begin() as conn:
            _keep(
                conn, drop_id, attachments_table, attachments_of((database, schema, name)), keep=retention > 0
            )
            _keep(conn, drop_id, tag_values_table, values_on((database, schema, name)), keep=retention > 0)
        self.purge()

    def remember_schema(self, database: str, schema: str, retention: int = DEFAULT_RETENTION_DAYS) -> None:
        drop_id = uuid.uuid4().hex
        rows = [_row("SCHEMA", database, schema, None, None, retention, top=True, drop_id=drop_id)]
        rows += [
            _row("TABLE", database, s, t, loc, retention, top=False, drop_id=drop_id)
            for s, t, loc in self._tables_of(database, schema)
        ]
        if retention > 0:
            self._insert(rows)
        self._set_aside(drop_id, database, schema, keep=retention > 0)
        self.purge()

    def remember_database(self, database: str, retention: int = DEFAULT_RETENTION_DAYS) -> None:
        info = self.metastore.database_info(database)
        drop_id = uuid.uuid4().hex
        top = _row("DATABASE", database, None, None, None, retention, top=True, drop_id=drop_id)
        if info is not None:
            top |= {"created_on": info.created_on, "comment": info.comment}
        rows = [top]
        rows += [
            _row("SCHEMA", database, s, None, None, retention, top=False, drop_id=drop_id)
            for s in self.metastore.schema_names(database)
        ]
        rows += [
            _row("TABLE", database, s, t, loc, retention, top=False, drop_id=drop_id)
            for s, t, loc in self._tables_of(database)
        ]
        if retention > 0:
            self._insert(rows)
        self._set_aside(drop_id, database, None, keep=retention > 0)
        self.purge()

    def _set_aside(self, drop_id: str, database: str, schema: str | None, *, keep: bool) -> None:
        """Takes the views, routines and sequences of a dropped schema or database out of their
        tables, kept under `drop_id` for UNDROP when `keep`."""
        with self.metastore.engine.begin() as conn:
            for table in _CONTAINED.values():
                where = table.c.database == naming.stored(database)
                if schema is not None:
                    where = sa.and_(where, table.c.schema == naming.stored(schema))
                _keep(conn, drop_id, table, where, keep=keep)

    def _bring_back(self, drop_id: str) -> None:
        """Puts back what `_set_aside` kept under `drop_id`."""
        where = dropped_objects_table.c.drop_id == drop_id
        with self.metastore.engine.begin() as conn:
            for kept in conn.execute(sa.select(dropped_objects_table).where(where)).all():
                table = _KEPT[kept.source]
                conn.execute(table.insert().values(**_loads(table, kept.data)))
            conn.execute(dropped_objects_table.delete().where(where))

    def purge(self) -> int:
        """Forgets drops past their retention; returns how many entries went."""
        now = int(time.time() * 1000)
        with self.metastore.engine.begin() as conn:
            expired = sa.literal(now) - dropped_table.c.dropped_ms > dropped_table.c.retention_days * _DAY_MS
            gone = int(conn.execute(dropped_table.delete().where(expired)).rowcount or 0)
            if gone:
                alive = sa.select(dropped_table.c.drop_id)
                conn.execute(
                    dropped_objects_table.delete().where(dropped_objects_table.c.drop_id.not_in(alive))
                )
            return gone

    def _latest(self, kind: str, database: str, schema: str | None, name: str | None) -> sa.Row | None:
        self.purge()
        where = [
            dropped_table.c.kind == kind,
            dropped_table.c.top.is_(True),
            dropped_table.c.database == database,
        ]
        if schema is not None:
            where.append(dropped_table.c.schema == schema)
        if name is not None:
            where.append(dropped_table.c.name == name)
        query = sa.select(dropped_table).where(*where).order_by(dropped_table.c.dropped_ms.desc()).limit(1)
        with self.metastore.engine.connect() as conn:
            return conn.execute(query).first()

    def _register(self, database: str, schema: str, name: str, location: str) -> None:
        cat = self.metastore.catalog(database)
        cat.register_table((naming.stored(schema), naming.stored(name)), location)

    def _forget(self, drop_id: str | None, row_id: int | None = None) -> None:
        with self.metastore.engine.begin() as conn:
            if row_id is not None:
                conn.execute(dropped_table.delete().where(dropped_table.c.id == row_id))
            else:
                conn.execute(dropped_table.delete().where(dropped_table.c.drop_id == drop_id))

    def undrop_table(self, database: str, schema: str, name: str) -> None:
        """Raises: ObjectAlreadyExists (a table of that name exists) / ObjectNotFound."""
        row = self._latest("TABLE", database, schema, name)
        if row is None:
            raise ObjectNotFound(f"Table {naming.quote(name)} did not exist or was purged.")
        self.metastore.require_schema(database, schema)
        if self.metastore.catalog(database).table_exists((naming.stored(schema), naming.stored(name))):
            raise already_exists("Table", name)
        self._register(database, schema, name, row.metadata_location)
        self._bring_back(row.drop_id)
        self._forget(None, row.id)

    def remember_tag(self, database: str, schema: str, name: str) -> None:
        """Sets a dropped tag aside with its values, for UNDROP TAG."""
        drop_id = uuid.uuid4().hex
        self._insert(
            [_row("TAG", database, schema, name, None, DEFAULT_RETENTION_DAYS, top=True, drop_id=drop_id)]
        )
        with self.metastore.engine.begin() as conn:
            _keep(conn, drop_id, tags_table, tag_row((database, schema, name)), keep=True)
            _keep(conn, drop_id, tag_values_table, values_of_tag((database, schema, name)), keep=True)
        self.purge()

    def undrop_tag(self, database: str, schema: str, name: str) -> None:
        """Raises: ObjectAlreadyExists (a tag of that name exists) / ObjectNotFound."""
        row = self._latest("TAG", database, schema, name)
        if row is None:
            raise ObjectNotFound(f"Tag {naming.quote(name)} did not exist or was purged.")
        self.metastore.require_schema(database, schema)
        with self.metastore.engine.connect() as conn:
            if conn.execute(sa.select(tags_table.c.name).where(tag_row((database, schema, name)))).first():
                raise already_exists("Tag", name)
        self._bring_back(row.drop_id)
        self._forget(None, row.id)

    def undrop_schema(self, database: str, schema: str) -> None:
        row = self._latest("SCHEMA", database, schema, None)
        if row is None:
            raise ObjectNotFound(f"Schema {naming.quote(schema)} did not exist or was purged.")
        if self.metastore.schema_exists(database, schema):
            raise already_exists("Schema", schema)
        self.metastore.create_schema(database, schema)
        self._bring_back(row.drop_id)
        self._restore_tables(row.drop_id)

    def undrop_database(self, database: str) -> None:
        row = self._latest("DATABASE", database, None, None)
        if row is None:
            raise ObjectNotFound(f"Database {naming.quote(database)} did not exist or was purged.")
        if self.metastore.database_exists(database):
            raise already_exists("Database", database)
        with self.metastore.engine.begin() as conn:
            conn.execute(
                databases_table.insert().values(
                    name=naming.stored(database),
                    created_on=row.created_on or datetime.now(UTC),
                    comment=row.comment,
                )
            )
        with self.metastore.engine.connect() as conn:
            schemas = conn.execute(
                sa.select(dropped_table.c.schema).where(
                    dropped_table.c.drop_id == row.drop_id, dropped_table.c.kind == "SCHEMA"
                )
            ).all()
        for (schema,) in schemas:
            self.metastore.create_schema(database, schema, if_not_exists=True)
        self._bring_back(row.drop_id)
        self._restore_tables(row.drop_id)

    def _restore_tables(self, drop_id: str) -> None:
        with self.metastore.engine.connect() as conn:
            tables = conn.execute(
                sa.select(dropped_table).where(
                    dropped_table.c.drop_id == drop_id, dropped_table.c.kind == "TABLE"
                )
            ).all()
        for t in tables:
            self._register(t.database, t.schema, t.name, t.metadata_location)
        self._forget(drop_id)

    def tables(self, database: str, schema: str) -> list[DroppedTable]:
        """Dropped tables still restorable in a schema (SHOW TABLES HISTORY), newest first."""
        self.purge()
        query = (
            sa.select(dropped_table)
            .where(
                dropped_table.c.kind == "TABLE",
                dropped_table.c.database == database,
                dropped_table.c.schema == schema,
            )
            .order_by(dropped_table.c.dropped_ms.desc())
        )
        with self.metastore.engine.connect() as conn:
            return [
                DroppedTable(
                    r.database,
                    r.schema,
                    r.name,
                    datetime.fromtimestamp(r.dropped_ms / 1000, UTC),
                    r.metadata_location,
                )
                for r in conn.execute(query)
            ]

    def entries(self, kind: str, database: str | None = None, schema: str | None = None) -> list[sa.Row]:
        """Dropped objects of a kind still within retention (SHOW ... HISTORY), newest first."""
        self.purge()
        where = [dropped_table.c.kind == kind]
        if kind == "DATABASE":
            where.append(dropped_table.c.top.is_(True))
        if database is not None:
            where.append(dropped_table.c.database == database)
        if schema is not None:
            where.append(dropped_table.c.schema == schema)
        query = sa.select(dropped_table).where(*where).order_by(dropped_table.c.dropped_ms.desc())
        with self.metastore.engine.connect() as conn:
            return list(conn.execute(query))


def _keep(
    conn: sa.Connection, drop_id: str, table: sa.Table, where: sa.ColumnElement[bool], *, keep: bool
) -> None:
    """Takes the rows out of `table`, kept under `drop_id` for UNDROP when `keep`."""
    if keep:
        rows = conn.execute(sa.select(table).where(where)).mappings().all()
        kept = [{"drop_id": drop_id, "source": table.name, "data": _dumps(r)} for r in rows]
        if kept:
            conn.execute(dropped_objects_table.insert(), kept)
    conn.execute(table.delete().where(where))


def _row(
    kind: str,
    database: str,
    schema: str | None,
    name: str | None,
    location: str | None,
    retention: int,
    *,
    top: bool,
    drop_id: str | None = None,
) -> dict[str, object]:
    return {
        "drop_id": drop_id or uuid.uuid4().hex,
        "kind": kind,
        "database": database,
        "schema": schema,
        "name": name,
        "metadata_location": location,
        "dropped_ms": int(time.time() * 1000),
        "retention_days": retention,
        "top": top,
        "created_on": None,
        "comment": None,
    }


def retention_of(properties: dict[str, str]) -> int:
    """A table's DATA_RETENTION_TIME_IN_DAYS (Snowflake's default when never set)."""
    try:
        return int(properties.get(RETENTION_PROPERTY, DEFAULT_RETENTION_DAYS))
    except ValueError:
        return DEFAULT_RETENTION_DAYS


_DROPPED: dict[int, Dropped] = {}


def dropped_of(metastore: Metastore) -> Dropped:
    """The one Dropped record keeper of a metastore (its table is created on first use)."""
    found = _DROPPED.get(id(metastore))
    if found is None:
        found = _DROPPED[id(metastore)] = Dropped(metastore)
    return found


def _dumps(row: sa.RowMapping) -> str:
    return json.dumps({k: v.isoformat() if isinstance(v, datetime) else v for k, v in row.items()})


def _loads(table: sa.Table, text: str) -> dict[str, object]:
    values: dict[str, object] = json.loads(text)
    for column in table.columns:
        if isinstance(column.type, sa.DateTime) and isinstance(values.get(column.name), str):
            values[column.name] = datetime.fromisoformat(values[column.name])  # type: ignore[arg-type]
    return values

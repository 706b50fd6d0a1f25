"""Streams, kept in the metastore: the table a stream watches and its offset, the table version
(Iceberg snapshot) its changes start from.

A query of the stream reads the table's changes from the offset to the version current when the
query starts (engine/streams.py); a DML statement that reads it moves the offset to that version
when it commits, as Snowflake's streams advance.
https://docs.snowflake.com/en/user-guide/streams-intro
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime

import sqlalchemy as sa

from embucket_py import naming
from embucket_py.catalog.metastore import Metastore, add_missing_columns
from embucket_py.errors import already_exists, object_not_found

_meta = sa.MetaData()
streams_table = sa.Table(
    "embucket_streams",
    _meta,
    sa.Column("database", sa.String(255), primary_key=True),
    sa.Column("schema", sa.String(255), primary_key=True),
    sa.Column("name", sa.String(255), primary_key=True),
    sa.Column("table_database", sa.String(255), nullable=False),
    sa.Column("table_schema", sa.String(255), nullable=False),
    sa.Column("table_name", sa.String(255), nullable=False),
    sa.Column("table_uuid", sa.String(64), nullable=False),  # a table made again is another table
    sa.Column("append_only", sa.Boolean, nullable=False),
    sa.Column("offset_snapshot", sa.BigInteger),  # NULL: from the table's first version
    sa.Column("comment", sa.Text),
    sa.Column("owner", sa.String(255)),
    sa.Column("created_on", sa.DateTime, nullable=False),
    # A stream on a view: the view (JSON [database, schema, name]) and its query when the stream
    # was made (a view replaced since makes the stream stale); the table is the view's table.
    sa.Column("view", sa.Text),
    sa.Column("view_query", sa.Text),
)


@dataclass(frozen=True)
class Stream:
    database: str
    schema: str
    name: str
    table: tuple[str, str, str]  # database, schema, name (Snowflake spelling)
    table_uuid: str
    append_only: bool
    offset: int | None  # the snapshot the changes start after (None: the table's beginning)
    comment: str | None = None
    owner: str | None = None
    created_on: datetime | None = None
    view: tuple[str, str, str] | None = None
    view_query: str | None = None


class Streams:
    def __init__(self, metastore: Metastore) -> None:
        self.metastore = metastore
        _meta.create_all(metastore.engine)
        add_missing_columns(metastore.engine, streams_table)

    @staticmethod
    def _where(database: str, schema: str, name: str | None = None) -> sa.ColumnElement[bool]:
        c = streams_table.c
        clause = sa.and_(c.database == naming.stored(database), c.schema == naming.stored(schema))
        return clause if name is None else sa.and_(clause, c.name == naming.stored(name))

    def any_of(self, names: list[list[str]]) -> bool:
        """Whether any of these qualified names is a stream (one metastore query for them all)."""
        if not names:
            return False
        c = streams_table.c
        keys = [tuple(naming.stored(p) for p in parts) for parts in names]
        query = sa.select(c.name).where(sa.tuple_(c.database, c.schema, c.name).in_(keys)).limit(1)
        with self.metastore.engine.connect() as conn:
            return conn.execute(query).first() is not None

    def get(self, database: str, schema: str, name: str) -> Stream | None:
        found = self.list(database, schema, name)
        return found[0] if found else None

    def list(self, database: str, schema: str, name: str | None = None) -> list[Stream]:
        query = sa.select(streams_table).where(self._where(database, schema, name))
        with self.metastore.engine.connect() as conn:
            return [_stream(r) for r in conn.execute(query.order_by(streams_table.c.name))]

    def create(self, stream: Stream, *, replace: bool, if_not_exists: bool) -> bool:
        """Returns False if it existed and IF NOT EXISTS was given.

        Raises:
            ObjectAlreadyExists: it exists and neither OR REPLACE nor IF NOT EXISTS was given.
        """
        self.metastore.require_schema(stream.database, stream.schema)
        key = self._where(stream.database, stream.schema, stream.name)
        with self.metastore.engine.begin() as conn:
            if conn.execute(sa.select(streams_table.c.name).where(key)).first() is not None:
                if if_not_exists:
                    return False
                if not replace:
                    raise already_exists("Stream", stream.name)
                conn.execute(streams_table.delete().where(key))
            conn.execute(
                streams_table.insert().values(
                    database=naming.stored(stream.database),
                    schema=naming.stored(stream.schema),
                    name=naming.stored(stream.name),
                    table_database=naming.stored(stream.table[0]),
                    table_schema=naming.stored(stream.table[1]),
                    table_name=naming.stored(stream.table[2]),
                    table_uuid=stream.table_uuid,
                    append_only=stream.append_only,
                    offset_snapshot=stream.offset,
                    comment=stream.comment,
                    owner=stream.owner,
                    created_on=datetime.now(UTC),
                    view=json.dumps(list(stream.view)) if stream.view else None,
                    view_query=stream.view_query,
                )
            )
        return True

    def advance(self, database: str, schema: str, name: str, offset: int | None) -> None:
        """Moves the offset to the version a committed DML statement read the stream at."""
        update = streams_table.update().where(self._where(database, schema, name))
        with self.metastore.engine.begin() as conn:
            conn.execute(update.values(offset_snapshot=offset))

    def drop(self, database: str, schema: str, name: str, *, if_exists: bool) -> bool:
        with self.metastore.engine.begin() as conn:
            deleted = conn.execute(streams_table.delete().where(self._where(database, schema, name))).rowcount
        if not deleted and not if_exists:
            raise object_not_found("Stream", f"{database}.{schema}.{name}")
        return bool(deleted)


def _stream(row: sa.Row) -> Stream:
    return Stream(
        naming.display(row.database),
        naming.display(row.schema),
        naming.display(row.name),
        (
            naming.display(row.table_database),
            naming.display(row.table_schema),
            naming.display(row.table_name),
        ),
        row.table_uuid,
        bool(row.append_only),
        row.offset_snapshot,
        row.comment,
        row.owner,
        row.created_on,
        tuple(json.loads(row.view)) if row.view else None,
        row.view_query,
    )

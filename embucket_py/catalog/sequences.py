"""Sequences, kept in the metastore: the next value to hand out and the step.

Values are handed out in blocks: a statement reserves as many as a batch of rows needs in one
metastore transaction (an UPDATE, which SQLite and PostgreSQL both serialize), so concurrent
statements and server processes never get the same value. As on Snowflake, values are unique and
follow the step, but a statement may leave gaps.
https://docs.snowflake.com/en/user-guide/querying-sequences
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import sqlalchemy as sa

from embucket_py import naming
from embucket_py.catalog.metastore import Metastore, add_missing_columns
from embucket_py.errors import SqlCompilationError, already_exists, object_not_found

_meta = sa.MetaData()
sequences_table = sa.Table(
    "embucket_sequences",
    _meta,
    sa.Column("database", sa.String(255), primary_key=True),
    sa.Column("schema", sa.String(255), primary_key=True),
    sa.Column("name", sa.String(255), primary_key=True),
    sa.Column("next_value", sa.BigInteger, nullable=False),
    sa.Column("increment", sa.BigInteger, nullable=False),
    sa.Column("comment", sa.Text),
    sa.Column("created_on", sa.DateTime, nullable=False),
    # Added after the first release (add_missing_columns): NULL in older rows.
    sa.Column("start_value", sa.BigInteger),
    sa.Column("last_altered", sa.DateTime),
)


@dataclass(frozen=True)
class Sequence:
    database: str
    schema: str
    name: str
    next_value: int
    increment: int
    comment: str | None = None
    created_on: datetime | None = None
    start: int | None = None  # the first value (None: made before it was kept)
    last_altered: datetime | None = None


class Sequences:
    def __init__(self, metastore: Metastore) -> None:
        self.metastore = metastore
        _meta.create_all(metastore.engine)
        add_missing_columns(metastore.engine, sequences_table)

    def _where(self, database: str, schema: str, name: str | None = None) -> sa.ColumnElement[bool]:
        c = sequences_table.c
        clause = sa.and_(c.database == naming.stored(database), c.schema == naming.stored(schema))
        return clause if name is None else sa.and_(clause, c.name == naming.stored(name))

    def get(self, database: str, schema: str, name: str) -> Sequence | None:
        found = self.list(database, schema, name)
        return found[0] if found else None

    def list(self, database: str, schema: str, name: str | None = None) -> list[Sequence]:
        query = sa.select(sequences_table).where(self._where(database, schema, name))
        with self.metastore.engine.connect() as conn:
            return [_sequence(r) for r in conn.execute(query.order_by(sequences_table.c.name))]

    def create(self, sequence: Sequence, *, replace: bool, if_not_exists: bool) -> bool:
        """Returns False if it existed and IF NOT EXISTS was given.

        Raises:
            ObjectAlreadyExists: it exists and neither OR REPLACE nor IF NOT EXISTS was given.
        """
        self.metastore.require_schema(sequence.database, sequence.schema)
        key = self._where(sequence.database, sequence.schema, sequence.name)
        with self.metastore.engine.begin() as conn:
            if conn.execute(sa.select(sequences_table.c.name).where(key)).first() is not None:
                if if_not_exists:
                    return False
                if not replace:
                    raise already_exists("Sequence", sequence.name)
                conn.execute(sequences_table.delete().where(key))
            now = datetime.now(UTC)
            conn.execute(
                sequences_table.insert().values(
                    database=naming.stored(sequence.database),
                    schema=naming.stored(sequence.schema),
                    name=naming.stored(sequence.name),
                    next_value=sequence.next_value,
                    increment=sequence.increment,
                    comment=sequence.comment,
                    created_on=now,
                    start_value=sequence.next_value,
                    last_altered=now,
                )
            )
        return True

    def alter(self, database: str, schema: str, name: str, values: dict[str, object]) -> bool:
        """Sets `increment` and/or `comment` (None removes it); False when there is no such sequence."""
        update = sequences_table.update().where(self._where(database, schema, name))
        with self.metastore.engine.begin() as conn:
            return bool(conn.execute(update.values(**values, last_altered=datetime.now(UTC))).rowcount)

    def rename(self, database: str, schema: str, name: str, to: tuple[str, str, str]) -> bool:
        """Moves a sequence to a new name (and schema); False when there is no such sequence.

        Raises:
            ObjectAlreadyExists / ObjectNotFound: the new name is taken / its schema does not exist.
        """
        old = (database, schema, name)
        return self.metastore.move_object(
            sequences_table, "Sequence", old, to, last_altered=datetime.now(UTC)
        )

    def drop(self, database: str, schema: str, name: str, *, if_exists: bool) -> bool:
        with self.metastore.engine.begin() as conn:
            deleted = conn.execute(
                sequences_table.delete().where(self._where(database, schema, name))
            ).rowcount
        if not deleted and not if_exists:
            raise object_not_found("Sequence", f"{database}.{schema}.{name}")
        return bool(deleted)

    def reserve(self, database: str, schema: str, name: str, count: int) -> tuple[int, int]:
        """Hands out `count` values: the first one and the step between them.

        Raises:
            SqlCompilationError: the sequence is gone (dropped while the statement ran).
        """
        c = sequences_table.c
        where = self._where(database, schema, name)
        with self.metastore.engine.begin() as conn:
            # The UPDATE comes first: it takes the row's write lock before the value is read.
            moved = conn.execute(
                sequences_table.update().where(where).values(next_value=c.next_value + c.increment * count)
            ).rowcount
            row = conn.execute(sa.select(c.next_value, c.increment).where(where)).first()
        if not moved or row is None:
            raise SqlCompilationError(
                f"Sequence '{database}.{schema}.{name}' does not exist or not authorized."
            )
        return row.next_value - row.increment * count, row.increment


def _sequence(row: sa.Row) -> Sequence:
    return Sequence(
        naming.display(row.database),
        naming.display(row.schema),
        naming.display(row.name),
        row.next_value,
        row.increment,
        row.comment,
        row.created_on,
        row.start_value,
        row.last_altered,
    )

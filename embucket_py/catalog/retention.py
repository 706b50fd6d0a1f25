"""DATA_RETENTION_TIME_IN_DAYS of tables, schemas and databases, and the one each object gets.

https://docs.snowflake.com/en/sql-reference/parameters#data-retention-time-in-days
A table's own value lives in its Iceberg properties (`embucket.data-retention-days`); schemas and
databases keep theirs in a metastore table. An object without its own value inherits: table >
schema > database > the account default of 1 day. The value bounds time travel on the table and
how long a dropped object stays restorable by UNDROP.
"""

from __future__ import annotations

import time

import sqlalchemy as sa
from pyiceberg.table import Table

from embucket_py import naming
from embucket_py.catalog.dropped import DEFAULT_RETENTION_DAYS, RETENTION_PROPERTY
from embucket_py.catalog.metastore import Metastore
from embucket_py.errors import SqlCompilationError

DAY_MS = 86_400_000
MAX_RETENTION_DAYS = 90  # Enterprise Edition's maximum

_meta = sa.MetaData()
retention_table = sa.Table(
    "embucket_retention",
    _meta,
    sa.Column("database", sa.String(255), primary_key=True),
    sa.Column("schema", sa.String(255), primary_key=True),  # "" for the database's own value
    sa.Column("days", sa.Integer, nullable=False),
)


def check_days(days: int) -> int:
    """Raises: SqlCompilationError (outside 0..90)."""
    if not 0 <= days <= MAX_RETENTION_DAYS:
        raise SqlCompilationError(
            f"Invalid value [{days}] for parameter 'DATA_RETENTION_TIME_IN_DAYS'", code=1008, sqlstate="22023"
        )
    return days


class Retention:
    """Reads and sets retention of schemas and databases; resolves inheritance."""

    def __init__(self, metastore: Metastore) -> None:
        self.metastore = metastore
        _meta.create_all(metastore.engine)

    def _key(self, database: str, schema: str | None) -> dict[str, str]:
        return {"database": naming.stored(database), "schema": naming.stored(schema) if schema else ""}

    def own(self, database: str, schema: str | None = None) -> int | None:
        """The value set on a database (schema None) or a schema itself, if any."""
        key = self._key(database, schema)
        with self.metastore.engine.connect() as conn:
            row = conn.execute(
                sa.select(retention_table.c.days).where(
                    retention_table.c.database == key["database"], retention_table.c.schema == key["schema"]
                )
            ).first()
        return int(row[0]) if row else None

    def set(self, database: str, schema: str | None, days: int | None) -> None:
        """Sets (None: unsets) the value of a database or schema."""
        key = self._key(database, schema)
        where = (retention_table.c.database == key["database"], retention_table.c.schema == key["schema"])
        with self.metastore.engine.begin() as conn:
            conn.execute(retention_table.delete().where(*where))
            if days is not None:
                conn.execute(retention_table.insert().values(**key, days=check_days(days)))

    def forget(self, database: str, schema: str | None = None) -> None:
        """A database or schema replaced by a new one of the same name: its settings go."""
        key = self._key(database, schema)
        with self.metastore.engine.begin() as conn:
            where = [retention_table.c.database == key["database"]]
            if schema is not None:
                where.append(retention_table.c.schema == key["schema"])
            conn.execute(retention_table.delete().where(*where))

    def of_schema(self, database: str, schema: str) -> int:
        found = self.own(database, schema)
        return found if found is not None else self.of_database(database)

    def of_database(self, database: str) -> int:
        found = self.own(database)
        return found if found is not None else DEFAULT_RETENTION_DAYS

    def of_table(self, database: str, schema: str, properties: dict[str, str]) -> int:
        own = properties.get(RETENTION_PROPERTY)
        if own is not None and own.isdigit():
            return int(own)
        return self.of_schema(database, schema)

    def of_loaded(self, table: Table) -> int:
        """The retention of a loaded Iceberg table, its database and schema from its catalog."""
        own = table.properties.get(RETENTION_PROPERTY)
        if own is not None and own.isdigit():
            return int(own)
        identifier = table.name()
        database = getattr(table.catalog, "name", None)
        if database is None or len(identifier) < 2:
            return DEFAULT_RETENTION_DAYS
        return self.of_schema(naming.display(database), naming.display(identifier[-2]))


_RETENTIONS: dict[int, Retention] = {}


def retention_of(metastore: Metastore) -> Retention:
    found = _RETENTIONS.get(id(metastore))
    if found is None:
        found = _RETENTIONS[id(metastore)] = Retention(metastore)
    return found


class TimeTravelWindow:
    """The retention lookup time travel uses; the engine points it at its metastore."""

    metastore: Metastore | None = None

    def earliest_ms(self, table: Table) -> int | None:
        """The oldest moment time travel on this table may reach (None: no lookup configured)."""
        if self.metastore is None:
            return None
        days = retention_of(self.metastore).of_loaded(table)
        return int(time.time() * 1000) - days * DAY_MS


WINDOW = TimeTravelWindow()

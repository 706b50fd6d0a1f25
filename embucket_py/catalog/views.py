"""Views, kept in the metastore: name -> defining query text (Snowflake SQL), comment, secure.

Iceberg views exist only in REST catalogs; the SQL catalog has none, so views live in a table of
their own next to the databases. The engine inlines a view's query where it is referenced.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import sqlalchemy as sa

from embucket_py import naming
from embucket_py.catalog.metastore import Metastore
from embucket_py.errors import already_exists, object_not_found

_meta = sa.MetaData()
views_table = sa.Table(
    "embucket_views",
    _meta,
    sa.Column("database", sa.String(255), primary_key=True),
    sa.Column("schema", sa.String(255), primary_key=True),
    sa.Column("name", sa.String(255), primary_key=True),
    sa.Column("query", sa.Text, nullable=False),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("comment", sa.Text),
    sa.Column("secure", sa.Boolean, nullable=False, default=False),
    sa.Column("created_on", sa.DateTime, nullable=False),
)


# A view by its key, values bound per run (`Views._key`): every table reference looks its name up
# here, and building the clause took longer than the lookup.
_MATCH = sa.and_(*(views_table.c[k] == sa.bindparam(k) for k in ("database", "schema", "name")))
_GET = sa.select(views_table).where(_MATCH)


@dataclass(frozen=True)
class View:
    database: str
    schema: str
    name: str
    query: str  # the defining SELECT, Snowflake SQL
    text: str  # the CREATE VIEW statement as written (SHOW VIEWS' text column)
    comment: str | None
    secure: bool
    created_on: datetime


class Views:
    """CRUD of views over the metastore's SQL database."""

    def __init__(self, metastore: Metastore) -> None:
        self.metastore = metastore
        _meta.create_all(metastore.engine)

    def _key(self, database: str, schema: str, name: str) -> dict[str, str]:
        return {
            "database": naming.stored(database),
            "schema": naming.stored(schema),
            "name": naming.stored(name),
        }

    def get(self, database: str, schema: str, name: str) -> View | None:
        with self.metastore.engine.connect() as conn:
            row = conn.execute(_GET, self._key(database, schema, name)).first()
        if row is None:
            return None
        return View(
            naming.display(row.database),
            naming.display(row.schema),
            naming.display(row.name),
            row.query,
            row.text,
            row.comment,
            bool(row.secure),
            row.created_on,
        )

    def names(self, database: str, schema: str) -> list[str]:
        with self.metastore.engine.connect() as conn:
            rows = conn.execute(
                sa.select(views_table.c.name).where(
                    views_table.c.database == naming.stored(database),
                    views_table.c.schema == naming.stored(schema),
                )
            )
            return sorted(naming.display(r[0]) for r in rows)

    def create(
        self,
        database: str,
        schema: str,
        name: str,
        query: str,
        text: str,
        *,
        replace: bool = False,
        if_not_exists: bool = False,
        comment: str | None = None,
        secure: bool = False,
    ) -> bool:
        """Creates a view. Returns False if it existed and IF NOT EXISTS was given.

        Raises:
            ObjectAlreadyExists: it exists and neither OR REPLACE nor IF NOT EXISTS was given.
        """
        self.metastore.require_schema(database, schema)
        key = self._key(database, schema, name)
        values = {**key, "query": query, "text": text, "comment": comment, "secure": secure,
                  "created_on": datetime.now(UTC)}  # fmt: skip
        with self.metastore.engine.begin() as conn:
            exists = conn.execute(sa.select(views_table.c.name).where(_MATCH), key).first()
            if exists is not None:
                if if_not_exists:
                    return False
                if not replace:
                    raise already_exists("View", name)
                conn.execute(views_table.delete().where(_MATCH), key)
            conn.execute(views_table.insert().values(**values))
        return True

    def update(self, database: str, schema: str, name: str, **values: object) -> bool:
        """Sets a view's `comment` (None removes it) or `secure`; False when there is no such view."""
        with self.metastore.engine.begin() as conn:
            return bool(
                conn.execute(
                    views_table.update().where(self._match(database, schema, name)).values(**values)
                ).rowcount
            )

    def rename(self, database: str, schema: str, name: str, to: tuple[str, str, str]) -> bool:
        """Moves a view to a new name (and schema); False when there is no such view.

        Raises:
            ObjectAlreadyExists / ObjectNotFound: the new name is taken / its schema does not exist.
        """
        return self.metastore.move_object(views_table, "View", (database, schema, name), to)

    def _match(self, database: str, schema: str, name: str) -> sa.ColumnElement[bool]:
        # Bound by value: the bind names of _MATCH are the columns' own, reserved in an UPDATE.
        return sa.and_(*(views_table.c[k] == v for k, v in self._key(database, schema, name).items()))

    def drop(self, database: str, schema: str, name: str, *, if_exists: bool = False) -> bool:
        with self.metastore.engine.begin() as conn:
            deleted = conn.execute(
                views_table.delete().where(_MATCH), self._key(database, schema, name)
            ).rowcount
        if not deleted and not if_exists:
            raise object_not_found("View", f"{database}.{schema}.{name}")
        return bool(deleted)

"""Stored procedures and user-defined functions (SQL, or Python functions), kept in the metastore.

Snowflake tells routines of one name apart by their argument types, so those are part of the key
(`NUMBER, VARCHAR`). The body is kept as written: a procedure's is parsed again by each CALL, a
function's is inlined where it is called.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime

import sqlalchemy as sa

from embucket_py import naming
from embucket_py.catalog.metastore import Metastore, add_missing_columns
from embucket_py.errors import already_exists, object_not_found

PROCEDURE = "PROCEDURE"
FUNCTION = "FUNCTION"

_meta = sa.MetaData()
routines_table = sa.Table(
    "embucket_routines",
    _meta,
    sa.Column("kind", sa.String(16), primary_key=True),
    sa.Column("database", sa.String(255), primary_key=True),
    sa.Column("schema", sa.String(255), primary_key=True),
    sa.Column("name", sa.String(255), primary_key=True),
    sa.Column("signature", sa.String(1000), primary_key=True),
    sa.Column("arguments", sa.Text, nullable=False),  # JSON: [[name, type, default], ...]
    sa.Column("returns", sa.Text, nullable=False),
    sa.Column("language", sa.String(32), nullable=False),
    sa.Column("body", sa.Text, nullable=False),
    sa.Column("comment", sa.Text),
    sa.Column("created_on", sa.DateTime, nullable=False),
    # Added after the first release (add_missing_columns): JSON {"handler": ..., "strict": ...}.
    sa.Column("properties", sa.Text),
)


@dataclass(frozen=True)
class Routine:
    kind: str  # PROCEDURE | FUNCTION
    database: str
    schema: str
    name: str
    signature: str  # argument types, as SHOW PROCEDURES / FUNCTIONS prints them: "NUMBER, VARCHAR"
    arguments: list[tuple[str, str, str | None]]  # name, type as declared, default expression
    returns: str  # a data type, or TABLE (...)
    language: str
    body: str
    comment: str | None
    created_on: datetime | None = None  # stamped by the catalog
    handler: str | None = None  # a Python function's HANDLER
    strict: bool = False  # RETURNS NULL ON NULL INPUT

    @property
    def returns_table(self) -> bool:
        return self.returns.upper().startswith("TABLE")

    def takes(self, count: int) -> bool:
        """Whether a call with `count` arguments fits (arguments with defaults may be left out)."""
        return sum(1 for a in self.arguments if a[2] is None) <= count <= len(self.arguments)


class Routines:
    def __init__(self, metastore: Metastore) -> None:
        self.metastore = metastore
        _meta.create_all(metastore.engine)
        add_missing_columns(metastore.engine, routines_table)

    def _where(
        self, kind: str, database: str, schema: str, name: str | None = None
    ) -> sa.ColumnElement[bool]:
        c = routines_table.c
        clause = sa.and_(
            c.kind == kind, c.database == naming.stored(database), c.schema == naming.stored(schema)
        )
        return clause if name is None else sa.and_(clause, c.name == naming.stored(name))

    def list(self, kind: str, database: str, schema: str, name: str | None = None) -> list[Routine]:
        query = sa.select(routines_table).where(self._where(kind, database, schema, name))
        with self.metastore.engine.connect() as conn:
            rows = conn.execute(query.order_by(routines_table.c.name, routines_table.c.signature))
            return [_routine(r) for r in rows]

    def create(self, routine: Routine, *, replace: bool, if_not_exists: bool) -> bool:
        """Returns False if it existed and IF NOT EXISTS was given.

        Raises:
            ObjectAlreadyExists: it exists and neither OR REPLACE nor IF NOT EXISTS was given.
        """
        self.metastore.require_schema(routine.database, routine.schema)
        key = sa.and_(
            self._where(routine.kind, routine.database, routine.schema, routine.name),
            routines_table.c.signature == routine.signature,
        )
        with self.metastore.engine.begin() as conn:
            if conn.execute(sa.select(routines_table.c.name).where(key)).first() is not None:
                if if_not_exists:
                    return False
                if not replace:
                    raise already_exists("Function", f"{routine.name}({routine.signature})")
                conn.execute(routines_table.delete().where(key))
            conn.execute(
                routines_table.insert().values(
                    kind=routine.kind,
                    database=naming.stored(routine.database),
                    schema=naming.stored(routine.schema),
                    name=naming.stored(routine.name),
                    signature=routine.signature,
                    arguments=json.dumps(routine.arguments),
                    returns=routine.returns,
                    language=routine.language,
                    body=routine.body,
                    comment=routine.comment,
                    created_on=datetime.now(UTC),
                    properties=json.dumps({"handler": routine.handler, "strict": routine.strict}),
                )
            )
        return True

    def drop(
        self, kind: str, database: str, schema: str, name: str, signature: str, *, if_exists: bool
    ) -> bool:
        key = sa.and_(self._where(kind, database, schema, name), routines_table.c.signature == signature)
        with self.metastore.engine.begin() as conn:
            deleted = conn.execute(routines_table.delete().where(key)).rowcount
        if not deleted and not if_exists:
            raise object_not_found(kind.title(), f"{database}.{schema}.{name}({signature})")
        return bool(deleted)


def _routine(row: sa.Row) -> Routine:
    properties = json.loads(row.properties or "{}")
    return Routine(
        row.kind,
        naming.display(row.database),
        naming.display(row.schema),
        naming.display(row.name),
        row.signature,
        [tuple(a) for a in json.loads(row.arguments)],  # type: ignore[misc]
        row.returns,
        row.language,
        row.body,
        row.comment,
        row.created_on,
        properties.get("handler"),
        bool(properties.get("strict")),
    )

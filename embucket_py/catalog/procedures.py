"""Stored procedures, kept in the metastore: name and argument types -> definition.

Snowflake tells procedures of one name apart by their argument types, so those are part of the key
(`NUMBER, VARCHAR`). The body is kept as written and parsed again by each CALL.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime

import sqlalchemy as sa

from embucket_py import naming
from embucket_py.catalog.metastore import Metastore
from embucket_py.errors import already_exists, object_not_found

_meta = sa.MetaData()
procedures_table = sa.Table(
    "embucket_procedures",
    _meta,
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
)


@dataclass(frozen=True)
class Procedure:
    database: str
    schema: str
    name: str
    signature: str  # argument types, as SHOW PROCEDURES prints them: "NUMBER, VARCHAR"
    arguments: list[tuple[str, str, str | None]]  # name, type as declared, default expression
    returns: str
    language: str
    body: str
    comment: str | None
    created_on: datetime | None = None  # stamped by the catalog


class Procedures:
    def __init__(self, metastore: Metastore) -> None:
        self.metastore = metastore
        _meta.create_all(metastore.engine)

    def _where(self, database: str, schema: str, name: str | None = None) -> sa.ColumnElement[bool]:
        c = procedures_table.c
        clause = sa.and_(c.database == naming.stored(database), c.schema == naming.stored(schema))
        return clause if name is None else sa.and_(clause, c.name == naming.stored(name))

    def list(self, database: str, schema: str, name: str | None = None) -> list[Procedure]:
        query = sa.select(procedures_table).where(self._where(database, schema, name))
        with self.metastore.engine.connect() as conn:
            rows = conn.execute(query.order_by(procedures_table.c.name, procedures_table.c.signature))
            return [_procedure(r) for r in rows]

    def create(self, procedure: Procedure, *, replace: bool, if_not_exists: bool) -> bool:
        """Returns False if it existed and IF NOT EXISTS was given.

        Raises:
            ObjectAlreadyExists: it exists and neither OR REPLACE nor IF NOT EXISTS was given.
        """
        self.metastore.require_schema(procedure.database, procedure.schema)
        key = sa.and_(
            self._where(procedure.database, procedure.schema, procedure.name),
            procedures_table.c.signature == procedure.signature,
        )
        with self.metastore.engine.begin() as conn:
            if conn.execute(sa.select(procedures_table.c.name).where(key)).first() is not None:
                if if_not_exists:
                    return False
                if not replace:
                    raise already_exists("Function", f"{procedure.name}({procedure.signature})")
                conn.execute(procedures_table.delete().where(key))
            conn.execute(
                procedures_table.insert().values(
                    database=naming.stored(procedure.database),
                    schema=naming.stored(procedure.schema),
                    name=naming.stored(procedure.name),
                    signature=procedure.signature,
                    arguments=json.dumps(procedure.arguments),
                    returns=procedure.returns,
                    language=procedure.language,
                    body=procedure.body,
                    comment=procedure.comment,
                    created_on=datetime.now(UTC),
                )
            )
        return True

    def drop(self, database: str, schema: str, name: str, signature: str, *, if_exists: bool) -> bool:
        key = sa.and_(self._where(database, schema, name), procedures_table.c.signature == signature)
        with self.metastore.engine.begin() as conn:
            deleted = conn.execute(procedures_table.delete().where(key)).rowcount
        if not deleted and not if_exists:
            raise object_not_found("Procedure", f"{database}.{schema}.{name}({signature})")
        return bool(deleted)


def _procedure(row: sa.Row) -> Procedure:
    return Procedure(
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
    )

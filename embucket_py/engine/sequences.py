"""Sequences: their statements, SHOW SEQUENCES, and `seq.NEXTVAL` in queries.

A NEXTVAL reference becomes a call of the volatile UDF `sf_nextval`, which DataFusion calls once
per batch: it reserves the batch's values in the metastore in one step (catalog/sequences.py), so
each row, and each reference within a row, gets a value of its own.
https://docs.snowflake.com/en/user-guide/querying-sequences
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pyarrow as pa
from datafusion import udf
from sqlglot import exp

from embucket_py import naming
from embucket_py.catalog.grants import Securable
from embucket_py.catalog.sequences import Sequence, Sequences
from embucket_py.catalog.tables import Tables
from embucket_py.engine import access
from embucket_py.engine.metadata_columns import SEQUENCES
from embucket_py.engine.result import OK, QueryResult, StatementType, constant, status
from embucket_py.errors import object_not_found
from embucket_py.sessions.session import Session
from embucket_py.sql.context import SqlContext
from embucket_py.sql.nodes import Nodes
from embucket_py.sql.sequences import NEXTVAL, SequenceStatement, nextval_references, sequence_parts

NEXTVAL_UDF = "sf_nextval"


def run(tables: Tables, session: Session, s: SequenceStatement) -> QueryResult:
    database, schema, name = s.parts
    grants = tables.metastore.grants
    roles = access.active_roles(grants, session)
    on_schema = Securable("SCHEMA", database, schema)
    if s.action == "DESCRIBE":
        if not access.visible(grants, roles, on_schema):
            raise object_not_found("Sequence", ".".join(s.parts))
        found = tables.sequences.get(database, schema, name)
        if found is None:
            raise object_not_found("Sequence", ".".join(s.parts))
        row = _row(found, grants.owner(on_schema))
        return constant(SEQUENCES, [tuple(row[c] for c, _ in SEQUENCES)], StatementType.DESCRIBE)
    # Sequences have no owner of their own here: the schema's privilege stands for it.
    access.require(grants, roles, access.Need("CREATE SEQUENCE", on_schema))
    if s.action == "CREATE":
        made = Sequence(database, schema, name, s.start, s.increment, s.comment)
        if not tables.sequences.create(made, replace=s.replace, if_not_exists=s.if_exists):
            return status(f"{naming.quote(name)} already exists, statement succeeded.")
        return status(f"Sequence {naming.quote(name)} successfully created.")
    if s.action == "DROP":
        if not tables.sequences.drop(database, schema, name, if_exists=s.if_exists):
            return status(
                "Drop statement executed successfully (" + naming.quote(name) + " already dropped)."
            )
        return status(f"{naming.quote(name)} successfully dropped.")
    rename = s.changes.get("rename")
    if isinstance(rename, list):
        to_database, to_schema, to_name = rename
        # Moving it into another schema creates a sequence there.
        access.require(
            grants, roles, access.Need("CREATE SEQUENCE", Securable("SCHEMA", to_database, to_schema))
        )
        done = tables.sequences.rename(database, schema, name, (to_database, to_schema, to_name))
    else:
        done = tables.sequences.alter(database, schema, name, s.changes)
    if not done and not s.if_exists:
        raise object_not_found("Sequence", ".".join(s.parts))
    return status(OK)


def show_rows(
    tables: Tables, session: Session, schemas: Iterator[tuple[str, str]]
) -> Iterator[dict[str, Any]]:
    """SHOW SEQUENCES: those of the schemas the session's roles see."""
    grants = tables.metastore.grants
    roles = access.active_roles(grants, session)
    for database, schema in schemas:
        on_schema = Securable("SCHEMA", database, schema)
        if access.visible(grants, roles, on_schema):
            owner = grants.owner(on_schema)
            yield from (_row(s, owner) for s in tables.sequences.list(database, schema))


def _row(s: Sequence, owner: str | None) -> dict[str, Any]:
    created = s.created_on or datetime.now(UTC)
    return {
        "created_on": created if created.tzinfo else created.replace(tzinfo=UTC),
        "name": s.name,
        "schema_name": s.schema,
        "database_name": s.database,
        "next_value": s.next_value,
        "interval": s.increment,
        "owner": owner,
        "owner_role_type": "ROLE",
        "comment": s.comment or "",
        "ordered": "N",
    }


def uses_nextval(nodes: Nodes) -> bool:
    return bool(nextval_references(nodes))


def expand(tables: Tables, tree: exp.Expression, ctx: SqlContext) -> None:
    """Replaces (in place) each `seq.NEXTVAL` of a sequence the statement's roles see by a call of
    NEXTVAL_UDF; other `x.NEXTVAL` columns stay columns."""
    grants = tables.metastore.grants
    roles = access.context_roles(grants, ctx)
    for column in nextval_references(Nodes(tree)):
        database, schema, name = sequence_parts(column, ctx)
        if not access.visible(grants, roles, Securable("SCHEMA", database, schema)):
            continue
        if tables.sequences.get(database, schema, name) is None:
            continue
        key = exp.Literal.string(json.dumps([database, schema, name]))
        call: exp.Expression = exp.Anonymous(this=NEXTVAL_UDF, expressions=[key])
        if isinstance(column.parent, exp.Select) and column.arg_key == "expressions":
            call = exp.alias_(call, exp.to_identifier(NEXTVAL))  # a column's name: its last part
        column.replace(call)


def nextval_udf(sequences: Sequences) -> Any:
    """The UDF handing out a sequence's values, one per row of each batch."""

    def nextval(keys: pa.Array) -> pa.Array:
        if not len(keys):
            return pa.array([], pa.int64())
        database, schema, name = json.loads(keys[0].as_py())
        first, step = sequences.reserve(database, schema, name, len(keys))
        return pa.array(range(first, first + step * len(keys), step), pa.int64())

    return udf(nextval, [pa.string()], pa.int64(), "volatile", name=NEXTVAL_UDF)

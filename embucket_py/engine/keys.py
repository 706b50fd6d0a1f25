"""Declared keys: recorded at CREATE TABLE, added and dropped by ALTER TABLE, listed by SHOW
PRIMARY | UNIQUE | IMPORTED KEYS.

https://docs.snowflake.com/en/sql-reference/sql/show-primary-keys
https://docs.snowflake.com/en/sql-reference/sql/show-unique-keys
https://docs.snowflake.com/en/sql-reference/sql/show-imported-keys
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

from pyiceberg.table import Table
from sqlglot import exp

from embucket_py.catalog.constraints import Key, keys_of, set_keys
from embucket_py.catalog.tables import TableName, Tables
from embucket_py.engine.metadata_columns import NUMBER, TEXT, TIMESTAMP_LTZ, Columns
from embucket_py.engine.result import QueryResult
from embucket_py.errors import ObjectNotFound, SqlCompilationError, object_not_found
from embucket_py.sql.alter import DropKey
from embucket_py.sql.constraints import FOREIGN_KEY, PRIMARY_KEY, UNIQUE, KeyDef, declared_keys
from embucket_py.sql.context import SqlContext
from embucket_py.sql.metadata import ShowDef
from embucket_py.sql.names import qualify, table_parts

KEY_KINDS = {"PRIMARY KEYS": PRIMARY_KEY, "UNIQUE KEYS": UNIQUE, "IMPORTED KEYS": FOREIGN_KEY}

# SHOW PRIMARY KEYS and SHOW UNIQUE KEYS share these columns.
KEYS: Columns = [
    ("created_on", TIMESTAMP_LTZ),
    ("database_name", TEXT),
    ("schema_name", TEXT),
    ("table_name", TEXT),
    ("column_name", TEXT),
    ("key_sequence", NUMBER),
    ("constraint_name", TEXT),
    ("rely", TEXT),
    ("comment", TEXT),
]

IMPORTED_KEYS: Columns = [
    ("created_on", TIMESTAMP_LTZ),
    ("pk_database_name", TEXT),
    ("pk_schema_name", TEXT),
    ("pk_table_name", TEXT),
    ("pk_column_name", TEXT),
    ("fk_database_name", TEXT),
    ("fk_schema_name", TEXT),
    ("fk_table_name", TEXT),
    ("fk_column_name", TEXT),
    ("key_sequence", NUMBER),
    ("update_rule", TEXT),
    ("delete_rule", TEXT),
    ("fk_name", TEXT),
    ("pk_name", TEXT),
    ("deferrability", TEXT),
    ("rely", TEXT),
    ("comment", TEXT),
]


def record_declared(tables: Tables, tree: exp.Create, ctx: SqlContext, result: QueryResult) -> None:
    """Stores the constraints a CREATE TABLE declared, once it created the table; unnamed ones
    get Snowflake-style names."""
    declared = declared_keys(tree, ctx)
    if not declared or not _created(result):
        return
    target = tree.this.this
    assert isinstance(target, exp.Table)
    ref = TableName(*qualify(table_parts(target), ctx))
    set_keys(tables.load(ref), [_stored(k) for k in declared])


def _stored(k: KeyDef) -> Key:
    """A declared key as recorded; an unnamed one gets a Snowflake-style name."""
    return Key(
        k.name or f"SYS_CONSTRAINT_{uuid.uuid4()}", k.type, k.columns, k.references, k.referenced_columns
    )


def alter_keys(tables: Tables, ref: TableName, added: list[KeyDef], dropped: list[DropKey]) -> None:
    """ALTER TABLE ... ADD | DROP constraints, in one metadata commit.

    Raises:
        SqlCompilationError: a second primary key, a column the table lacks, or a constraint to
            drop that the table does not have.
    """
    table = tables.load(ref)
    keys = keys_of(table)
    columns = {c.name for c in Tables.columns(table)}
    for drop in dropped:
        kept = [k for k in keys if not _matches(k, drop)]
        if len(kept) == len(keys):
            what = drop.name or f"{drop.type} {', '.join(drop.columns or [])}".strip()
            raise SqlCompilationError(f"Constraint '{what}' does not exist.", code=2003, sqlstate="42704")
        keys = kept
    for key in added:
        missing = [c for c in key.columns if c not in columns]
        if missing:
            raise SqlCompilationError(
                f"error line 1 at position 0\ninvalid identifier '{missing[0]}'", code=904
            )
        if key.type == PRIMARY_KEY and any(k.type == PRIMARY_KEY for k in keys):
            raise SqlCompilationError(f"Table '{ref.name}' already has a primary key.", code=2162)
        keys.append(_stored(key))
    set_keys(table, keys)


def _matches(key: Key, drop: DropKey) -> bool:
    if drop.name is not None:
        return key.name == drop.name
    return key.type == drop.type and (drop.columns is None or key.columns == drop.columns)


def _created(result: QueryResult) -> bool:
    """Whether CREATE made the table (not "already exists, statement succeeded")."""
    batches = list(result.batches)
    result.batches = batches
    return bool(batches) and str(batches[0].column(0)[0].as_py()).endswith("successfully created.")


def columns_for(kind: str) -> Columns:
    return IMPORTED_KEYS if kind == "IMPORTED KEYS" else KEYS


def show_rows(tables: Tables, d: ShowDef) -> list[dict[str, Any]]:
    """Rows of SHOW <kind> KEYS over the tables in scope, ordered by table then key sequence.

    Raises:
        ObjectNotFound: the table, schema or database of the IN clause does not exist.
    """
    wanted = KEY_KINDS[d.kind]
    rows: list[dict[str, Any]] = []
    for ref, table in _tables_in_scope(tables, d):
        created = Tables.created_on(table)
        for key in keys_of(table):
            if key.type != wanted:
                continue
            if wanted == FOREIGN_KEY:
                rows.extend(_imported_rows(tables, ref, key, created))
                continue
            rows.extend(
                {
                    "created_on": created,
                    "database_name": ref.database,
                    "schema_name": ref.schema,
                    "table_name": ref.name,
                    "column_name": column,
                    "key_sequence": i,
                    "constraint_name": key.name,
                    "rely": "false",
                    "comment": None,
                }
                for i, column in enumerate(key.columns, start=1)
            )
    return rows


def _imported_rows(tables: Tables, ref: TableName, key: Key, created: Any) -> Iterator[dict[str, Any]]:
    assert key.references is not None
    target = TableName(*key.references)
    primary = primary_key(tables, target)
    referenced = key.referenced_columns or (primary.columns if primary else [])
    for i, (column, pk_column) in enumerate(zip(key.columns, referenced, strict=False), start=1):
        yield {
            "created_on": created,
            "pk_database_name": target.database,
            "pk_schema_name": target.schema,
            "pk_table_name": target.name,
            "pk_column_name": pk_column,
            "fk_database_name": ref.database,
            "fk_schema_name": ref.schema,
            "fk_table_name": ref.name,
            "fk_column_name": column,
            "key_sequence": i,
            "update_rule": "NO ACTION",
            "delete_rule": "NO ACTION",
            "fk_name": key.name,
            "pk_name": primary.name if primary else None,
            "deferrability": "NOT DEFERRABLE",
            "rely": "false",
            "comment": None,
        }


def key_columns(tables: Tables, ref: TableName) -> tuple[set[str], set[str]]:
    """The columns in a table's PRIMARY KEY and in its UNIQUE keys (DESCRIBE TABLE marks them);
    empty for views."""
    if not tables.exists(ref):
        return set(), set()
    declared = keys_of(tables.load(ref))
    primary = {c for k in declared if k.type == PRIMARY_KEY for c in k.columns}
    return primary, {c for k in declared if k.type == UNIQUE for c in k.columns}


def primary_key(tables: Tables, ref: TableName) -> Key | None:
    if not tables.exists(ref):
        return None
    return next((k for k in keys_of(tables.load(ref)) if k.type == PRIMARY_KEY), None)


def _tables_in_scope(tables: Tables, d: ShowDef) -> Iterator[tuple[TableName, Table]]:
    if d.scope == "TABLE" and d.database and d.schema and d.table:
        ref = TableName(d.database, d.schema, d.table)
        yield ref, tables.load(ref)
        return
    if d.scope == "SCHEMA" and d.database and d.schema:
        pairs = [(d.database, d.schema)]
    elif d.scope == "DATABASE" and d.database:
        if not tables.metastore.database_exists(d.database):
            raise object_not_found("Database", d.database)
        pairs = [(d.database, s) for s in tables.metastore.schema_names(d.database)]
    else:
        pairs = [
            (db, s) for db in tables.metastore.database_names() for s in tables.metastore.schema_names(db)
        ]
    for database, schema in pairs:
        for name in tables.names(database, schema):
            ref = TableName(database, schema, name)
            try:
                yield ref, tables.load(ref)
            except ObjectNotFound:
                continue  # dropped while we listed

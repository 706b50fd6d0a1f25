"""ALTER SCHEMA | DATABASE ... RENAME TO | SWAP WITH in the metastore: every row kept under the
container's name moves in one transaction, so no reader sees it half moved. Table files stay
where they are (each Iceberg table's metadata names its own location, as after ALTER TABLE
RENAME); internal stages' files move with their names (see engine/containers.py)."""

from __future__ import annotations

import sqlalchemy as sa

from embucket_py import naming
from embucket_py.catalog.grants import bump_version

# The metastore's tables whose rows belong to a schema: (table, database column, schema column,
# names as Snowflake spells them rather than as stored, see naming.py). History (query history,
# task runs, result copies) keeps the names objects had when it ran.
_SCHEMA_ROWS = (
    ("iceberg_tables", "catalog_name", "table_namespace", False),
    ("iceberg_namespace_properties", "catalog_name", "namespace", False),
    ("embucket_views", "database", "schema", False),
    ("embucket_sequences", "database", "schema", False),
    ("embucket_streams", "database", "schema", False),
    ("embucket_streams", "table_database", "table_schema", False),  # a stream's table
    ("embucket_routines", "database", "schema", False),
    ("embucket_tasks", "database", "schema", False),
    ("embucket_stages", "database", "schema", False),
    ("embucket_file_formats", "database", "schema", False),
    ("embucket_retention", "database", "schema", False),
    ("embucket_privileges", "database", "schema", True),
    ("embucket_dropped", "database", "schema", True),
)
# ... and those whose rows belong to a database alone.
_DATABASE_ROWS = (("embucket_databases", "name", False), ("embucket_database_bindings", "database", False))
# COPY's load history, keyed by the table's stored "database.schema.table" (files loaded once).
_LOAD_HISTORY = ("embucket_load_history", "table_key")

_SWAPPING = "\x00swap"  # a name no identifier can have: one side's rows while the other moves


def rename(engine: sa.Engine, old: list[str], new: list[str]) -> None:
    """Moves the rows of schema `old` ([database, schema]) or database `old` ([database]) to the
    name `new` (of the same length)."""
    with engine.begin() as conn:
        _move(conn, old, new)
        bump_version(conn)  # grants on the container and its objects moved too


def swap(engine: sa.Engine, first: list[str], second: list[str]) -> None:
    """Exchanges the names of two schemas (or two databases) and of everything in them."""
    aside = [*first[:-1], first[-1] + _SWAPPING]
    with engine.begin() as conn:
        _move(conn, first, aside)
        _move(conn, second, first)
        _move(conn, aside, second)
        bump_version(conn)


def _move(conn: sa.Connection, old: list[str], new: list[str]) -> None:
    tables = set(sa.inspect(conn).get_table_names())

    def spelled(parts: list[str], as_snowflake: bool) -> list[str]:
        return parts if as_snowflake else [naming.stored(p) for p in parts]

    if len(old) == 2:
        for name, database, schema, as_snowflake in _SCHEMA_ROWS:
            if name in tables:
                (db, sc), (new_db, new_sc) = spelled(old, as_snowflake), spelled(new, as_snowflake)
                table = sa.table(name, sa.column(database), sa.column(schema))
                where = sa.and_(table.c[database] == db, table.c[schema] == sc)
                conn.execute(table.update().where(where).values({database: new_db, schema: new_sc}))
    else:
        columns = [(n, d, as_snowflake) for n, d, _, as_snowflake in _SCHEMA_ROWS] + list(_DATABASE_ROWS)
        for name, database, as_snowflake in dict.fromkeys(columns):
            if name in tables:
                (db,), (new_db,) = spelled(old, as_snowflake), spelled(new, as_snowflake)
                table = sa.table(name, sa.column(database))
                conn.execute(table.update().where(table.c[database] == db).values({database: new_db}))
    name, key = _LOAD_HISTORY
    if name in tables:
        table = sa.table(name, sa.column(key))
        prefix = ".".join(spelled(old, False)) + "."
        rest = sa.func.substr(table.c[key], len(prefix) + 1, type_=sa.String)
        moved = sa.literal(".".join(spelled(new, False)) + ".", sa.String) + rest
        # Matched by its prefix exactly (LIKE would read `_` in names as a wildcard).
        where = sa.func.substr(table.c[key], 1, len(prefix), type_=sa.String) == prefix
        conn.execute(table.update().where(where).values({key: moved}))

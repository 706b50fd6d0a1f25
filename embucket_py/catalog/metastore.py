"""The metastore: databases (each one an Iceberg catalog), users, and the catalogs themselves.

Databases map to pyiceberg SqlCatalogs sharing one SQLAlchemy database (SQLite by default): the
catalog name is the database, Iceberg namespaces are its schemas. Names arriving here are
Snowflake names (already case-normalised); `naming.stored` turns them into Iceberg names.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import sqlalchemy as sa
from pyiceberg.catalog import Catalog
from pyiceberg.catalog.sql import SqlCatalog

from embucket_py import naming
from embucket_py.catalog import external, grants, sqlite_tuning, storage, volumes
from embucket_py.errors import already_exists, object_not_found

log = logging.getLogger(__name__)

_meta = sa.MetaData()
databases_table = sa.Table(
    "embucket_databases",
    _meta,
    sa.Column("name", sa.String(255), primary_key=True),
    sa.Column("created_on", sa.DateTime, nullable=False),
    sa.Column("comment", sa.Text),
)
users_table = sa.Table(
    "embucket_users",
    _meta,
    sa.Column("name", sa.String(255), primary_key=True),
    sa.Column("password_hash", sa.String(512), nullable=False),
    sa.Column("created_on", sa.DateTime, nullable=False),
)


def add_missing_columns(engine: sa.Engine, table: sa.Table) -> None:
    """A metastore made by an older version lacks a table's newer (nullable) columns."""
    present = {c["name"] for c in sa.inspect(engine).get_columns(table.name)}
    with engine.begin() as conn:
        for column in table.columns:
            if column.name not in present:
                kind = column.type.compile(dialect=engine.dialect)
                conn.execute(sa.text(f"ALTER TABLE {table.name} ADD COLUMN {column.name} {kind}"))


# scrypt is memory-hard: 16 MiB and about 50 ms per hash on this kind of machine.
_SCRYPT = {"n": 2**14, "r": 8, "p": 1}


def hash_password(password: str, salt: bytes | None = None) -> str:
    salt = salt or os.urandom(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, dklen=32, **_SCRYPT)
    return f"scrypt${salt.hex()}${digest.hex()}"


def check_password(password: str, encoded: str) -> bool:
    _, salt, digest = encoded.split("$")
    return hmac.compare_digest(hash_password(password, bytes.fromhex(salt)).split("$")[2], digest)


# A schema's comment, kept as a property of its Iceberg namespace.
COMMENT_PROPERTY = "comment"


def _listed(cat: object) -> dict[str, str]:
    """The property that keeps a namespace of ours listed: the SQL catalog knows a namespace by its
    property rows (pyiceberg writes `exists` when it is given none), so removing the last one
    would drop the schema."""
    return {"exists": "true"} if isinstance(cat, SqlCatalog) else {}


@dataclass(frozen=True)
class DatabaseInfo:
    name: str
    created_on: datetime
    comment: str | None


class Metastore:
    """Databases, schemas and users; hands out the Iceberg catalog of each database."""

    def __init__(self, uri: str, warehouse: str) -> None:
        if uri.startswith("sqlite:///"):
            Path(uri.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
        self.uri = uri
        self.warehouse = warehouse
        # The local directory, or the bucket of an s3:// warehouse (credentials registered first).
        storage.ensure_location(warehouse)
        sqlite_tuning.install()  # WAL, synchronous=NORMAL: commits without fsync, readers never blocked
        self.engine = sa.create_engine(uri)
        _meta.create_all(self.engine)
        # External volumes and catalog integrations, and which database is bound to which.
        self.volumes = volumes.Volumes(self.engine)
        self.integrations = external.Integrations(self.engine)
        self.grants = grants.Grants(self.engine)  # roles and privileges
        self.volumes.register_all()
        self._catalogs: dict[str, Catalog] = {}
        self._lock = threading.Lock()

    # --- databases ------------------------------------------------------------------------------

    def database_names(self) -> list[str]:
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(databases_table.c.name).order_by(databases_table.c.name))
            return [naming.display(r[0]) for r in rows]

    def database_keys(self) -> list[str]:
        """Stored (Iceberg) names of all databases; `catalog(key)` accepts each as is."""
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(databases_table.c.name).order_by(databases_table.c.name))
            return [r[0] for r in rows]

    def database_info(self, name: str) -> DatabaseInfo | None:
        """Name, creation time (UTC) and comment of a database; None if it does not exist."""
        with self.engine.connect() as conn:
            query = sa.select(databases_table).where(databases_table.c.name == naming.stored(name))
            row = conn.execute(query).first()
        if row is None:
            return None
        created = row.created_on if row.created_on.tzinfo else row.created_on.replace(tzinfo=UTC)
        return DatabaseInfo(naming.display(row.name), created, row.comment)

    def database_exists(self, name: str) -> bool:
        with self.engine.connect() as conn:
            query = sa.select(databases_table.c.name).where(databases_table.c.name == naming.stored(name))
            return conn.execute(query).first() is not None

    def create_database(
        self,
        name: str,
        *,
        if_not_exists: bool = False,
        comment: str | None = None,
        binding: external.Binding | None = None,
    ) -> bool:
        """Creates a database with its PUBLIC schema. Returns False if it existed (IF NOT EXISTS).
        `binding` puts it on an external volume or links it to a catalog integration."""
        if self.database_exists(name):
            if if_not_exists:
                return False
            raise already_exists("Database", name)
        with self.engine.begin() as conn:
            conn.execute(
                databases_table.insert().values(
                    name=naming.stored(name), created_on=datetime.now(UTC), comment=comment
                )
            )
            if binding is not None:
                external.bind(conn, naming.stored(name), binding)
        self.forget_catalog(name)
        self.catalog(name).create_namespace_if_not_exists(naming.stored("PUBLIC"))
        return True

    def drop_database(self, name: str, *, if_exists: bool = False) -> bool:
        if not self.database_exists(name):
            if if_exists:
                return False
            raise object_not_found("Database", name)
        binding = self.integrations.binding(naming.stored(name))
        if binding is None or binding.integration is None:  # a linked catalog's tables are not ours
            cat = self.catalog(name)
            for schema in cat.list_namespaces():
                for table in cat.list_tables(schema):
                    cat.drop_table(table)
                cat.drop_namespace(schema)
        with self.engine.begin() as conn:
            conn.execute(databases_table.delete().where(databases_table.c.name == naming.stored(name)))
            external.unbind(conn, naming.stored(name))
        self.forget_catalog(name)
        return True

    def catalog(self, database: str) -> SqlCatalog:
        """The Iceberg catalog of a database (which must exist): a SqlCatalog over this metastore,
        or the RestCatalog of the integration the database is linked to."""
        key = naming.stored(database)
        with self._lock:
            cat = self._catalogs.get(key)
            if cat is None:
                binding = self.integrations.binding(key)
                if binding is not None and binding.integration is not None:
                    integration = self.integrations.require(binding.integration)
                    cat = external.rest_catalog(key, integration)
                    self._catalogs[key] = cat
                    return cat  # type: ignore[return-value]
                warehouse = self.warehouse
                if binding is not None and binding.volume is not None:
                    warehouse = self.volumes.warehouse(binding.volume)
                cat = SqlCatalog(
                    key,
                    uri=self.uri,
                    warehouse=storage.join(warehouse, key),
                    **storage.iceberg_properties(warehouse),
                    # Let DataFusion read every file pyiceberg writes at full speed.
                    **{"write.parquet.compression-codec": "zstd"},
                )
                self._catalogs[key] = cat
            return cat

    def forget_catalog(self, database: str) -> None:
        """Drops the catalog kept for a database (renamed or swapped: made again on next use)."""
        with self._lock:
            self._catalogs.pop(naming.stored(database), None)

    def known_catalog(self, database: str) -> SqlCatalog | None:
        """The database's catalog if this process has used it (no existence check, no query)."""
        with self._lock:
            return self._catalogs.get(naming.stored(database))  # type: ignore[return-value]

    def require_database(self, name: str) -> SqlCatalog:
        if not self.database_exists(name):
            raise object_not_found("Database", name)
        return self.catalog(name)

    # --- schemas --------------------------------------------------------------------------------

    def schema_names(self, database: str) -> list[str]:
        cat = self.require_database(database)
        return sorted(naming.display(ns[-1]) for ns in cat.list_namespaces())

    def schemas_in_scope(self, parts: list[str]) -> list[tuple[str, str]]:
        """The (database, schema) pairs a SHOW ... IN looks in: one schema ([database, schema]),
        a database's ([database]) or every one ([]).

        Raises:
            ObjectNotFound: the database or schema named does not exist.
        """
        if len(parts) == 2:
            self.require_schema(parts[0], parts[1])
            return [(parts[0], parts[1])]
        return [(d, s) for d in parts or self.database_names() for s in self.schema_names(d)]

    def schema_exists(self, database: str, schema: str) -> bool:
        return self.database_exists(database) and self.catalog(database).namespace_exists(
            naming.stored(schema)
        )

    def create_schema(
        self, database: str, schema: str, *, if_not_exists: bool = False, comment: str | None = None
    ) -> bool:
        cat = self.require_database(database)
        if cat.namespace_exists(naming.stored(schema)):
            if if_not_exists:
                return False
            raise already_exists("Schema", schema)
        cat.create_namespace(
            naming.stored(schema), {COMMENT_PROPERTY: comment, **_listed(cat)} if comment else {}
        )
        return True

    def schema_comment(self, database: str, schema: str) -> str | None:
        properties = self.catalog(database).load_namespace_properties((naming.stored(schema),))
        return properties.get(COMMENT_PROPERTY)

    def set_schema_comment(self, database: str, schema: str, comment: str | None) -> None:
        """Sets (None: removes) a schema's comment, an Iceberg namespace property as Spark's
        COMMENT ON NAMESPACE sets it."""
        cat, namespace = self.catalog(database), (naming.stored(schema),)
        if comment is None:
            cat.update_namespace_properties(namespace, removals={COMMENT_PROPERTY}, updates=_listed(cat))
        else:
            cat.update_namespace_properties(namespace, updates={COMMENT_PROPERTY: comment})

    def set_database_comment(self, name: str, comment: str | None) -> None:
        with self.engine.begin() as conn:
            where = databases_table.c.name == naming.stored(name)
            conn.execute(databases_table.update().where(where).values(comment=comment))

    def drop_schema(self, database: str, schema: str, *, if_exists: bool = False) -> bool:
        if not self.schema_exists(database, schema):
            if if_exists:
                return False
            raise object_not_found("Schema", f"{database}.{schema}")
        cat = self.catalog(database)
        for table in cat.list_tables(naming.stored(schema)):
            cat.drop_table(table)
        cat.drop_namespace(naming.stored(schema))
        return True

    def move_object(
        self,
        table: sa.Table,
        kind: str,
        old: tuple[str, str, str],
        new: tuple[str, str, str],
        **values: object,
    ) -> bool:
        """Gives the row of a schema object kept in `table` (keyed database, schema, name) a new
        name and schema; False when there is no such row.

        Raises:
            ObjectNotFound: the new schema does not exist.
            ObjectAlreadyExists: an object of the new name exists.
        """
        self.require_schema(new[0], new[1])

        def stored(parts: tuple[str, str, str]) -> dict[str, str]:
            return {c: naming.stored(p) for c, p in zip(("database", "schema", "name"), parts, strict=True)}

        def where(parts: tuple[str, str, str]) -> sa.ColumnElement[bool]:
            return sa.and_(*(table.c[c] == v for c, v in stored(parts).items()))

        with self.engine.begin() as conn:
            if conn.execute(sa.select(table.c.name).where(where(new))).first() is not None:
                raise already_exists(kind, new[2])
            return bool(
                conn.execute(table.update().where(where(old)).values(**stored(new), **values)).rowcount
            )

    def require_schema(self, database: str, schema: str) -> SqlCatalog:
        cat = self.require_database(database)
        if not cat.namespace_exists(naming.stored(schema)):
            raise object_not_found("Schema", f"{database}.{schema}")
        return cat

    # --- users ----------------------------------------------------------------------------------

    def user_exists(self, name: str) -> bool:
        with self.engine.connect() as conn:
            query = sa.select(users_table.c.name).where(users_table.c.name == name)
            return conn.execute(query).first() is not None

    def users(self) -> list[sa.Row]:
        """Every user's row (name, password_hash, created_on), by name."""
        with self.engine.connect() as conn:
            return list(conn.execute(sa.select(users_table).order_by(users_table.c.name)))

    def drop_user(self, name: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(users_table.delete().where(users_table.c.name == name))

    def ensure_user(self, name: str, password: str) -> bool:
        """Creates the user if no user of that name exists. Returns True when created."""
        with self.engine.begin() as conn:
            query = sa.select(users_table.c.name).where(users_table.c.name == name.upper())
            if conn.execute(query).first() is not None:
                return False
            conn.execute(
                users_table.insert().values(
                    name=name.upper(), password_hash=hash_password(password), created_on=datetime.now(UTC)
                )
            )
            return True

    def authenticate(self, name: str, password: str) -> bool:
        with self.engine.connect() as conn:
            query = sa.select(users_table.c.password_hash).where(users_table.c.name == name.upper())
            row = conn.execute(query).first()
        if row is None:
            # Spend the same time as for a real user, so timing does not reveal who exists.
            check_password(password, hash_password("-"))
            return False
        return check_password(password, row[0])

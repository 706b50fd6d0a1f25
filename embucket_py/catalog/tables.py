"""Iceberg tables: create, load, drop, scan planning and appends with optimistic concurrency.

Each table keeps the declared Snowflake type of every column (VARCHAR(10), NUMBER(10,2),
VARIANT...) in the table property `embucket.sftypes`, keyed by Iceberg field id, because Iceberg
types alone cannot tell a VARIANT from a VARCHAR.
"""

from __future__ import annotations

import json
import logging
import random
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime

import pyarrow as pa
import sqlalchemy as sa
from pyiceberg.catalog.sql import IcebergTables
from pyiceberg.exceptions import CommitFailedException, NoSuchTableError
from pyiceberg.exceptions import ValidationError as IcebergValidationError
from pyiceberg.manifest import DataFile
from pyiceberg.schema import Schema, make_compatible_name
from pyiceberg.table import Table, Transaction
from pyiceberg.table.metadata import TableMetadata
from pyiceberg.types import NestedField
from sqlalchemy.orm import Session as OrmSession

from embucket_py import naming
from embucket_py.catalog import dropped, loading
from embucket_py.catalog.metastore import Metastore
from embucket_py.catalog.policies import Policies
from embucket_py.catalog.retention import retention_of
from embucket_py.catalog.routines import Routines
from embucket_py.catalog.sequences import Sequences
from embucket_py.catalog.storage import engine_path
from embucket_py.catalog.streams import Streams
from embucket_py.catalog.tags import Tags
from embucket_py.catalog.tasks import DYNAMIC_TABLE, Tasks
from embucket_py.catalog.views import Views
from embucket_py.catalog.warehouses import Warehouses
from embucket_py.errors import (
    InvalidIdentifier,
    ObjectAlreadyExists,
    ObjectNotFound,
    SnowflakeError,
    TableUnreadable,
    Unsupported,
    already_exists,
    object_not_found,
)
from embucket_py.layout.clustering import clustering_key, new_data_files
from embucket_py.lru import Lru
from embucket_py.types import SfType, arrow_field, from_iceberg, parse_sql_type, to_iceberg

log = logging.getLogger(__name__)

SFTYPES_PROPERTY = "embucket.sftypes"
# Column DEFAULT expressions (Snowflake SQL text) and IDENTITY sequences, keyed by field id.
DEFAULTS_PROPERTY = "embucket.defaults"
IDENTITY_PROPERTY = "embucket.identity"
COMMENT_PROPERTY = "comment"
CHANGE_TRACKING_PROPERTY = "embucket.change-tracking"
COMMIT_RETRIES = 30


@dataclass(frozen=True)
class TableName:
    """A fully qualified Snowflake table name (each part already case-normalised)."""

    database: str
    schema: str
    name: str

    @property
    def identifier(self) -> tuple[str, str]:
        return (naming.stored(self.schema), naming.stored(self.name))

    def __str__(self) -> str:
        return ".".join(naming.quote(p) for p in (self.database, self.schema, self.name))


@dataclass(frozen=True)
class Column:
    name: str
    type: SfType
    nullable: bool = True
    comment: str | None = None
    default: str | None = None  # the DEFAULT expression, as Snowflake SQL
    identity: tuple[int, int] | None = None  # AUTOINCREMENT / IDENTITY (start, increment)


# A table's columns and Arrow schema, kept per metadata object: parsed metadata is immutable and
# shared by every load of its file (catalog/loading.py), and reading them again cost ~0.2 ms per
# table reference per statement (three JSON properties, a type per column). The entry holds its
# metadata, so no other object can take its id while it is kept.
_DESCRIBED: Lru[tuple[TableMetadata, tuple[Column, ...], pa.Schema]] = Lru(loading.MAX_FILES)


def _described(table: Table) -> tuple[TableMetadata, tuple[Column, ...], pa.Schema]:
    def describe() -> tuple[TableMetadata, tuple[Column, ...], pa.Schema]:
        columns = tuple(Tables._columns(table))
        schema = pa.schema([arrow_field(naming.stored(c.name), c.type, c.nullable) for c in columns])
        return table.metadata, columns, schema

    return _DESCRIBED.get(id(table.metadata), describe)


def own_name(columns: list[Column], name: str) -> str:
    """The table's name for the column a statement names `name` (a quoted lower-case name is its
    unquoted twin, naming.py).

    Raises:
        InvalidIdentifier: no such column.
    """
    for c in columns:
        if naming.stored(c.name) == naming.stored(name):
            return c.name
    raise InvalidIdentifier(f"error line 1 at position 0\ninvalid identifier '{naming.quote(name)}'")


def reads_by_field_id(table: Table) -> bool:
    """Whether the table's data files must be read by Iceberg field id, not by column name: a
    column was renamed (older files carry the old name), a dropped column's name was taken again
    (older files carry the dropped values under it), or a name is one Parquet files keep
    sanitized (pyiceberg writes "Mixed Col" as Mixed_x20Col). Read by name, such columns would
    come back NULL, and UPDATE, DELETE and MERGE would write the NULLs back."""
    current = {f.field_id: f.name for f in table.schema().fields}
    names = set(current.values())
    for schema in table.metadata.schemas:
        for f in schema.fields:
            if current.get(f.field_id) != f.name and (f.field_id in current or f.name in names):
                return True
    return any(make_compatible_name(name) != name for name in names)


@dataclass(frozen=True)
class ScanFiles:
    """The live data files of one snapshot, as local paths DataFusion can read."""

    paths: list[str]
    has_deletes: bool
    files: list[DataFile]
    snapshot_id: int | None


@dataclass
class SchemaChange:
    """Column changes applied together as one Iceberg schema update (no data is rewritten)."""

    add: list[Column] = field(default_factory=list)
    drop: list[str] = field(default_factory=list)
    rename: list[tuple[str, str]] = field(default_factory=list)
    retype: list[tuple[str, SfType]] = field(default_factory=list)
    column_comments: dict[str, str | None] = field(default_factory=dict)
    nullable: dict[str, bool] = field(default_factory=dict)  # DROP NOT NULL: True, SET NOT NULL: False
    drop_defaults: list[str] = field(default_factory=list)
    table_comment: tuple[str | None] | None = None  # (comment,) to set, (None,) to unset
    change_tracking: bool | None = None  # CHANGE_TRACKING = TRUE | FALSE


def _why(error: Exception) -> str:
    """The telling line of a (pydantic) validation error, without its headline and doc link."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    telling = [line for line in lines if "validation error" not in line and "errors.pydantic" not in line]
    return (telling or lines or [type(error).__name__])[0].split(" [type=")[0]


TEMPORARY_PREFIX = "__TEMP_"
TRANSIENT_PROPERTY = "embucket.transient"  # "true" on TRANSIENT tables


class Tables:
    """Table operations over the metastore's catalogs."""

    def __init__(self, metastore: Metastore) -> None:
        self.metastore = metastore
        self.views = Views(metastore)
        self.routines = Routines(metastore)
        self.sequences = Sequences(metastore)
        self.policies = Policies(metastore)
        self.tags = Tags(metastore)
        self.streams = Streams(metastore)
        self.tasks = Tasks(metastore)
        self.dynamic_tables = Tasks(metastore, DYNAMIC_TABLE)  # the tasks that refresh them
        self.warehouses = Warehouses(metastore)

    def load(self, ref: TableName) -> Table:
        # A database this process has used is read straight away; its database and schema are
        # checked only when the table is missing (to name what is), not on every statement.
        cat = self.metastore.known_catalog(ref.database) or self.metastore.require_schema(
            ref.database, ref.schema
        )
        try:
            return loading.load(cat, ref.identifier)
        except NoSuchTableError:
            self.metastore.require_schema(ref.database, ref.schema)
            raise object_not_found("Object", str(ref)) from None
        except FileNotFoundError as e:
            missing = e.filename or e
            raise TableUnreadable(f"Iceberg metadata of table '{ref}' is missing: {missing}") from None
        except (ValueError, IcebergValidationError) as e:  # not JSON, or JSON that is no table metadata
            raise TableUnreadable(f"Iceberg metadata of table '{ref}' is not valid: {_why(e)}") from None
        except OSError as e:
            first = str(e).split("\n")[0]
            raise TableUnreadable(f"Iceberg metadata of table '{ref}' cannot be read: {first}") from None

    def find(self, ref: TableName) -> Table | None:
        """The table, or None when it (or its schema or database) does not exist: one lookup
        where `exists` and then `load` make four."""
        try:
            return self.load(ref)
        except ObjectNotFound:
            return None

    def exists(self, ref: TableName) -> bool:
        if not self.metastore.schema_exists(ref.database, ref.schema):
            return False
        return self.metastore.catalog(ref.database).table_exists(ref.identifier)

    def names(self, database: str, schema: str) -> list[str]:
        cat = self.metastore.require_schema(database, schema)
        found = (naming.display(t[-1]) for t in cat.list_tables(naming.stored(schema)))
        # Sessions' TEMPORARY tables live under hidden names; only their own session lists them.
        return sorted(n for n in found if not n.startswith(TEMPORARY_PREFIX))

    def create(
        self,
        ref: TableName,
        columns: list[Column],
        *,
        replace: bool = False,
        if_not_exists: bool = False,
        comment: str | None = None,
    ) -> bool:
        """Creates an empty table. Returns False when it existed and IF NOT EXISTS was given.

        Raises:
            ObjectAlreadyExists: the table exists and neither OR REPLACE nor IF NOT EXISTS was given.
        """
        cat = self.metastore.require_schema(ref.database, ref.schema)
        if cat.table_exists(ref.identifier):
            if if_not_exists:
                return False
            if not replace:
                raise already_exists("Table", ref.name)
            Tables.drop(self, ref)  # the replaced table stays restorable by UNDROP, as a drop leaves it
        fields = [
            NestedField(
                i + 1, naming.stored(c.name), to_iceberg(c.type), required=not c.nullable, doc=c.comment
            )
            for i, c in enumerate(columns)
        ]
        properties = {
            SFTYPES_PROPERTY: json.dumps({str(i + 1): c.type.sql for i, c in enumerate(columns)}),
            # Merge small manifests on append: scan planning reads every manifest of a snapshot.
            "commit.manifest-merge.enabled": "true",
        }
        if comment is not None:
            properties[COMMENT_PROPERTY] = comment
        properties.update(_default_properties(columns))
        cat.create_table(ref.identifier, Schema(*fields), properties=properties)
        return True

    def clone(
        self, ref: TableName, source: Table, snapshot_id: int | None, *, replace: bool, if_not_exists: bool
    ) -> bool:
        """Zero-copy clone: a new table whose first snapshot lists the source snapshot's data files.
        Writes to either table afterwards add new files and never touch shared ones.

        Raises:
            Unsupported: the source snapshot has delete files (merge-on-read), not shared yet.
        """
        files = Tables.scan_files(source, snapshot_id) if snapshot_id is not None else None
        if files is not None and files.has_deletes:
            raise Unsupported("CLONE of a table version with delete files is not supported yet.")
        comment = source.properties.get(COMMENT_PROPERTY)
        if not self.create(
            ref, Tables.columns(source), replace=replace, if_not_exists=if_not_exists, comment=comment
        ):
            return False
        if files is not None and files.files:
            table = self.load(ref)
            with table.transaction() as tx, tx.update_snapshot().fast_append() as snapshot:
                for data_file in files.files:
                    snapshot.append_data_file(data_file)
        return True

    def rename(self, ref: TableName, to: TableName) -> None:
        """Raises: ObjectAlreadyExists / Unsupported (across databases)."""
        if to.database != ref.database:
            raise Unsupported("Renaming a table into another database is not supported.")
        self.load(ref)
        if self.exists(to):
            raise already_exists("Table", to.name)
        self.metastore.require_schema(to.database, to.schema)
        self.metastore.catalog(ref.database).rename_table(ref.identifier, to.identifier)
        self.policies.move_attachments(
            (ref.database, ref.schema, ref.name), (to.database, to.schema, to.name)
        )
        self.tags.move_object((ref.database, ref.schema, ref.name), (to.database, to.schema, to.name))

    def swap(self, ref: TableName, other: TableName) -> None:
        """ALTER TABLE ... SWAP WITH: both catalog entries exchange their metadata pointers in one
        SQL transaction, so no reader ever sees one name missing or both the same.

        Raises:
            ObjectNotFound / Unsupported (across databases) / CommitFailedException (a concurrent commit).
        """
        if other.database != ref.database:
            raise Unsupported("Swapping tables of different databases is not supported.")
        first, second = self.load(ref), self.load(other)
        assert first.metadata_location is not None and second.metadata_location is not None
        cat = self.metastore.catalog(ref.database)
        if not hasattr(cat, "engine"):  # a RestCatalog (linked database): no atomic pointer swap
            raise Unsupported("SWAP WITH on a database linked to an external catalog is not supported.")
        rows = {
            ref.identifier: (first.metadata_location, second.metadata_location),
            other.identifier: (second.metadata_location, first.metadata_location),
        }
        with OrmSession(cat.engine) as session:
            for identifier, (current, new) in rows.items():
                changed = session.execute(
                    sa.update(IcebergTables)
                    .where(
                        IcebergTables.catalog_name == cat.name,
                        IcebergTables.table_namespace == identifier[0],
                        IcebergTables.table_name == identifier[1],
                        IcebergTables.metadata_location == current,
                    )
                    .values(metadata_location=new, previous_metadata_location=current)
                )
                if changed.rowcount < 1:  # type: ignore[attr-defined]
                    session.rollback()
                    raise CommitFailedException(f"{ref} or {other} changed while swapping")
            session.commit()

    def evolve(self, ref: TableName, change: SchemaChange) -> None:
        """Applies column changes as one schema update plus the declared-type property.

        Raises:
            InvalidIdentifier / ObjectAlreadyExists: a column is missing, or exists already.
        """
        table = self.load(ref)
        declared: dict[str, str] = json.loads(table.properties.get(SFTYPES_PROPERTY, "{}"))
        columns = {c.name: c for c in Tables.columns(table)}
        named = [*change.drop, *(old for old, _ in change.rename), *(n for n, _ in change.retype)]
        for name in [*named, *change.nullable, *change.drop_defaults, *change.column_comments]:
            if name not in columns:
                raise InvalidIdentifier(f"error line 1 at position 0\ninvalid identifier '{name}'")
        for column in change.add:
            if column.name in columns:
                raise ObjectAlreadyExists(f"column '{column.name}' already exists")
        with table.transaction() as tx:
            # A column made required: the caller has checked that no row holds a NULL in it.
            with tx.update_schema(allow_incompatible_changes=not all(change.nullable.values())) as update:
                for column in change.add:
                    update.add_column(naming.stored(column.name), to_iceberg(column.type), doc=column.comment)
                for name in change.drop:
                    update.delete_column(naming.stored(name))
                for old, new in change.rename:
                    update.rename_column(naming.stored(old), naming.stored(new))
                for name, sf_type in change.retype:
                    if to_iceberg(sf_type) != to_iceberg(columns[name].type):
                        update.update_column(naming.stored(name), field_type=to_iceberg(sf_type))
                for name, comment in change.column_comments.items():
                    # pyiceberg reads doc=None as "unchanged": an unset comment is stored empty.
                    update.update_column(naming.stored(name), doc=comment or "")
                for name, nullable in change.nullable.items():
                    update.update_column(naming.stored(name), required=not nullable)
            schema = tx.table_metadata.schema()
            ids = {f.name: str(f.field_id) for f in schema.fields}
            for column in change.add:
                declared[ids[naming.stored(column.name)]] = column.type.sql
            for name, sf_type in change.retype:
                declared[ids[naming.stored(name)]] = sf_type.sql
            declared = {k: v for k, v in declared.items() if k in ids.values()}
            properties = {SFTYPES_PROPERTY: json.dumps(declared)}
            added = {ids[naming.stored(c.name)]: c.default for c in change.add if c.default is not None}
            if added or change.drop_defaults:
                defaults = json.loads(table.properties.get(DEFAULTS_PROPERTY, "{}")) | added
                for name in change.drop_defaults:
                    defaults.pop(ids[naming.stored(name)], None)
                properties[DEFAULTS_PROPERTY] = json.dumps(defaults)
            if change.table_comment is not None and change.table_comment[0] is not None:
                properties[COMMENT_PROPERTY] = change.table_comment[0]
            if change.change_tracking is not None:
                properties[CHANGE_TRACKING_PROPERTY] = str(change.change_tracking).lower()
            tx.set_properties(properties)
            if change.table_comment == (None,) and COMMENT_PROPERTY in table.properties:
                tx.remove_properties(COMMENT_PROPERTY)

    def drop(self, ref: TableName, *, if_exists: bool = False) -> bool:
        """Drops a table from the catalog. Its files stay: clones may share them, and dropped
        tables are kept for their retention period."""
        if not self.exists(ref):
            if if_exists:
                return False
            raise object_not_found("Table", str(ref))
        if not ref.name.startswith(TEMPORARY_PREFIX):
            table = self.load(ref)
            assert table.metadata_location is not None
            retention = retention_of(self.metastore).of_table(ref.database, ref.schema, table.properties)
            dropped.dropped_of(self.metastore).remember_table(
                ref.database, ref.schema, ref.name, table.metadata_location, retention
            )
        self.metastore.catalog(ref.database).drop_table(ref.identifier)
        self.policies.detach_all((ref.database, ref.schema, ref.name))  # they went with the table
        self.tags.drop_object((ref.database, ref.schema, ref.name))  # so did its tags
        return True

    def kind(self, ref: TableName, table: Table) -> str:
        """SHOW TABLES' kind: TABLE or TRANSIENT (a session's own view adds TEMPORARY)."""
        return "TRANSIENT" if table.properties.get(TRANSIENT_PROPERTY) == "true" else "TABLE"

    def mark_transient(self, ref: TableName) -> None:
        """Records that a table was created TRANSIENT (no Fail-safe; kept like any other here)."""
        with self.load(ref).transaction() as tx:
            tx.set_properties({TRANSIENT_PROPERTY: "true"})

    @staticmethod
    def columns(table: Table) -> list[Column]:
        return list(_described(table)[1])

    @staticmethod
    def _columns(table: Table) -> list[Column]:
        declared = json.loads(table.properties.get(SFTYPES_PROPERTY, "{}"))
        defaults = json.loads(table.properties.get(DEFAULTS_PROPERTY, "{}"))
        identities = json.loads(table.properties.get(IDENTITY_PROPERTY, "{}"))
        result = []
        for f in table.schema().fields:
            key = str(f.field_id)
            sf_type = parse_sql_type(declared[key]) if key in declared else None
            identity = identities.get(key)
            result.append(
                Column(
                    naming.display(f.name),
                    sf_type or from_iceberg(f.field_type),
                    not f.required,
                    f.doc or None,
                    defaults.get(key),
                    (int(identity["start"]), int(identity["increment"])) if identity else None,
                )
            )
        return result

    @staticmethod
    def created_on(table: Table) -> datetime:
        """When the table was created: the time of its first metadata file (UTC)."""
        log = table.metadata.metadata_log
        millis = log[0].timestamp_ms if log else table.metadata.last_updated_ms
        return datetime.fromtimestamp(millis / 1000, UTC)

    @staticmethod
    def comment(table: Table) -> str | None:
        return table.properties.get(COMMENT_PROPERTY)

    @staticmethod
    def change_tracking(table: Table) -> bool:
        return table.properties.get(CHANGE_TRACKING_PROPERTY) == "true"

    @staticmethod
    def size(table: Table) -> tuple[int, int]:
        """(rows, bytes of data files) of the current snapshot, from its summary; (0, 0) if empty."""
        snapshot = table.current_snapshot()
        summary = snapshot.summary if snapshot is not None else None
        if summary is None:
            return 0, 0
        return int(summary["total-records"] or 0), int(summary["total-files-size"] or 0)

    @staticmethod
    def arrow_schema(table: Table) -> pa.Schema:
        """The engine's view of a table: stored names, engine Arrow types, Snowflake type tags."""
        return _described(table)[2]

    @staticmethod
    def scan_files(table: Table, snapshot_id: int | None = None) -> ScanFiles:
        """Plans the live data files of a snapshot (pruned by manifest statistics)."""
        scan = table.scan(snapshot_id=snapshot_id)
        tasks = list(scan.plan_files())
        snapshot = scan.snapshot()
        return ScanFiles(
            paths=[engine_path(t.file.file_path) for t in tasks],
            has_deletes=any(t.delete_files for t in tasks),
            files=[t.file for t in tasks],
            snapshot_id=snapshot.snapshot_id if snapshot else None,
        )

    def rewrite(
        self,
        ref: TableName,
        base_snapshot: int | None,
        removed: list[DataFile],
        added: pa.Table,
        query_id: str | None = None,
    ) -> None:
        """Replaces data files in one commit (copy-on-write UPDATE/DELETE/MERGE).

        Raises:
            CommitFailedException: the table changed since `base_snapshot`; the caller re-plans.
        """
        table = self.load(ref)
        current = table.current_snapshot()
        if (current.snapshot_id if current else None) != base_snapshot:
            raise CommitFailedException(f"{ref} changed while the statement ran")
        if not removed and added.num_rows == 0:
            return
        properties = _snapshot_properties(query_id)
        tx = table.transaction()
        with tx.update_snapshot(properties).overwrite() as snapshot:
            for data_file in removed:
                snapshot.delete_data_file(data_file)
            if added.num_rows:
                data = added.cast(table.schema().as_arrow())
                for data_file in new_data_files(table, tx, data):
                    snapshot.append_data_file(data_file)
        self.finish(ref, table, tx, appends_only=False)

    def finish(self, ref: TableName, table: Table, tx: Transaction, *, appends_only: bool) -> None:
        """Ends a write: commits it (a session's open transaction stages it instead).

        Raises:
            CommitFailedException: the table changed since `table` was loaded.
        """
        # pyiceberg would replay a conflicting commit on the new snapshot by itself: right for
        # appends, wrong for copy-on-write rewrites planned on the old one. The engine retries
        # appends and re-plans rewrites itself, so each commit makes one attempt. Set in memory
        # only: other engines (Spark) keep retrying by the table's own settings.
        properties = {**table.metadata.properties, "commit.retry.num-retries": "0"}
        table.metadata = table.metadata.model_copy(
            update={"properties": properties}
        )  # loaded metadata is shared
        tx.commit_transaction()

    def append(
        self, ref: TableName, data: pa.Table, query_id: str | None = None, identity: list[str] | None = None
    ) -> int:
        """Appends rows in one Iceberg commit, retrying on concurrent commits. Returns the row count.
        `identity` names IDENTITY columns numbered from the table's sequence at commit."""
        if data.num_rows == 0:
            return 0
        return self._commit(ref, data, overwrite=False, query_id=query_id, identity=identity)

    def overwrite(
        self, ref: TableName, data: pa.Table, query_id: str | None = None, identity: list[str] | None = None
    ) -> int:
        """Replaces all rows in one Iceberg commit (INSERT OVERWRITE). Returns the row count."""
        return self._commit(ref, data, overwrite=True, query_id=query_id, identity=identity)

    def _commit(
        self,
        ref: TableName,
        data: pa.Table,
        *,
        overwrite: bool,
        query_id: str | None,
        identity: list[str] | None = None,
    ) -> int:
        properties = _snapshot_properties(query_id)
        plain = not overwrite and not identity
        written: list[DataFile] | None = None  # a plain append's files, written once for all retries
        for attempt in range(COMMIT_RETRIES):
            table = self.load(ref)
            if plain and written is None and not clustering_key(table):
                # Written before queueing for the commit: other writers need not wait for it.
                written = new_data_files(table, table.transaction(), data.cast(table.schema().as_arrow()))
            try:
                with _commit_lock(ref):
                    return self._commit_once(ref, data, overwrite, identity, properties, written)
            except CommitFailedException:
                log.info("commit conflict on %s, retrying (%d)", ref, attempt + 1)
                # Jittered so that writers which collided do not collide again in step.
                time.sleep(random.uniform(0.5, 1.0) * min(0.01 * 2**attempt, 0.5))
        raise CommitFailedException(f"could not commit to {ref} after {COMMIT_RETRIES} attempts")

    def _commit_once(
        self,
        ref: TableName,
        data: pa.Table,
        overwrite: bool,
        identity: list[str] | None,
        properties: dict[str, str],
        written: list[DataFile] | None,
    ) -> int:
        """One attempt on the table as it is now. Raises CommitFailedException (retry)."""
        table = self.load(ref)
        data = data.cast(table.schema().as_arrow())
        tx = table.transaction()
        data = assign_identities(table, tx, data, identity or [])
        if written is not None and not clustering_key(table):
            _append_files(table, tx, written, properties)
        elif clustering_key(table):
            _write_clustered(table, tx, data, overwrite, properties)
        elif overwrite:
            tx.overwrite(data, snapshot_properties=properties)
        else:
            tx.append(data, snapshot_properties=properties)
        # Numbered rows cannot be rebased onto another commit: the sequence would repeat.
        self.finish(ref, table, tx, appends_only=not overwrite and not identity)
        return data.num_rows


_locks: dict[tuple[str, str, str], threading.Lock] = {}
_locks_guard = threading.Lock()


def _commit_lock(ref: TableName) -> threading.Lock:
    """Writers of one table in this process commit one at a time: they queue here instead of
    colliding in the catalog (other processes still collide, and retry)."""
    key = (ref.database, ref.schema, ref.name)
    with _locks_guard:
        return _locks.setdefault(key, threading.Lock())


def _append_files(table: Table, tx: Transaction, files: list[DataFile], properties: dict[str, str]) -> None:
    """Adds already written data files in one snapshot (merging manifests when the table asks)."""
    update = tx.update_snapshot(properties)
    merge = table.properties.get("commit.manifest-merge.enabled", "false").lower() == "true"
    with update.merge_append() if merge else update.fast_append() as snapshot:
        for data_file in files:
            snapshot.append_data_file(data_file)


def _write_clustered(
    table: Table, tx: Transaction, data: pa.Table, overwrite: bool, properties: dict[str, str]
) -> None:
    """An append (or a full overwrite) of a clustered table, its files laid out by the cube tree."""
    files = new_data_files(table, tx, data)
    if overwrite:
        with tx.update_snapshot(properties).overwrite() as snapshot:
            for task in table.scan().plan_files():
                snapshot.delete_data_file(task.file)
            for data_file in files:
                snapshot.append_data_file(data_file)
    else:
        with tx.update_snapshot(properties).fast_append() as snapshot:
            for data_file in files:
                snapshot.append_data_file(data_file)


def _default_properties(columns: list[Column]) -> dict[str, str]:
    """The DEFAULT and IDENTITY properties of a new table's columns (field ids count from 1)."""
    defaults = {str(i + 1): c.default for i, c in enumerate(columns) if c.default is not None}
    identities = {
        str(i + 1): {"start": c.identity[0], "increment": c.identity[1], "next": c.identity[0]}
        for i, c in enumerate(columns)
        if c.identity is not None
    }
    properties = {}
    if defaults:
        properties[DEFAULTS_PROPERTY] = json.dumps(defaults)
    if identities:
        properties[IDENTITY_PROPERTY] = json.dumps(identities)
    return properties


def assign_identities(table: Table, tx: Transaction, data: pa.Table, columns: list[str]) -> pa.Table:
    """Fills the named IDENTITY columns of rows about to be appended from the table's sequence and
    advances it in the same transaction: a concurrent append conflicts and retries with fresh numbers.
    """
    if not columns or data.num_rows == 0:
        return data
    identities = json.loads(table.properties.get(IDENTITY_PROPERTY, "{}"))
    ids = {naming.display(f.name): str(f.field_id) for f in table.schema().fields}
    for name in columns:
        state = identities[ids[name]]
        start, step = int(state["next"]), int(state["increment"])
        values = pa.array(range(start, start + step * data.num_rows, step), pa.int64())
        index = data.schema.get_field_index(naming.stored(name))
        data = data.set_column(index, data.field(index), values.cast(data.field(index).type))
        state["next"] = start + step * data.num_rows
    tx.set_properties({IDENTITY_PROPERTY: json.dumps(identities)})
    return data


QUERY_ID_PROPERTY = "embucket.query-id"


def _snapshot_properties(query_id: str | None) -> dict[str, str]:
    """Each snapshot remembers the statement that made it (for AT/BEFORE(STATEMENT => id))."""
    return {QUERY_ID_PROPERTY: query_id} if query_id else {}


class TimeTravelUnavailable(SnowflakeError):
    code = 707
    sqlstate = "02000"


def snapshot_as_of(table: Table, name: str, epoch_ms: int) -> int | None:
    """The snapshot current at a moment (None: the table was empty then).

    Raises:
        TimeTravelUnavailable: the moment precedes the table's creation.
    """
    log = table.metadata.metadata_log
    created = log[0].timestamp_ms if log else table.metadata.last_updated_ms
    first = table.metadata.snapshot_log[0].timestamp_ms if table.metadata.snapshot_log else created
    if epoch_ms < min(created, first):
        raise TimeTravelUnavailable(
            f"Time travel data is not available for table {name}. The requested time is either beyond "
            "the allowed time travel period or before the object creation time."
        )
    current = None
    for entry in table.metadata.snapshot_log:
        if entry.timestamp_ms <= epoch_ms:
            current = entry.snapshot_id
    return current


def snapshot_of_query(table: Table, query_id: str) -> tuple[int, int | None] | None:
    """(snapshot id, parent id) of the snapshot a statement committed, if it changed this table."""
    for snapshot in table.metadata.snapshots:
        if snapshot.summary is not None and snapshot.summary.get(QUERY_ID_PROPERTY) == query_id:
            return snapshot.snapshot_id, snapshot.parent_snapshot_id
    return None

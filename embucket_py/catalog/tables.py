"""Iceberg tables: create, load, drop, scan planning and appends with optimistic concurrency.

Each table keeps the declared Snowflake type of every column (VARCHAR(10), NUMBER(10,2),
VARIANT...) in the table property `embucket.sftypes`, keyed by Iceberg field id, because Iceberg
types alone cannot tell a VARIANT from a VARCHAR.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass

import pyarrow as pa
from pyiceberg.exceptions import CommitFailedException, NoSuchTableError
from pyiceberg.io.pyarrow import _dataframe_to_data_files
from pyiceberg.manifest import DataFile
from pyiceberg.schema import Schema
from pyiceberg.table import Table
from pyiceberg.types import NestedField

from embucket_py import naming
from embucket_py.catalog.metastore import Metastore
from embucket_py.catalog.storage import local_path
from embucket_py.errors import already_exists, object_not_found
from embucket_py.types import SfType, arrow_field, from_iceberg, parse_sql_type, to_iceberg

log = logging.getLogger(__name__)

SFTYPES_PROPERTY = "embucket.sftypes"
COMMENT_PROPERTY = "comment"
COMMIT_RETRIES = 10


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


@dataclass(frozen=True)
class ScanFiles:
    """The live data files of one snapshot, as local paths DataFusion can read."""

    paths: list[str]
    has_deletes: bool
    files: list[DataFile]
    snapshot_id: int | None


class Tables:
    """Table operations over the metastore's catalogs."""

    def __init__(self, metastore: Metastore) -> None:
        self.metastore = metastore

    def load(self, ref: TableName) -> Table:
        cat = self.metastore.require_schema(ref.database, ref.schema)
        try:
            return cat.load_table(ref.identifier)
        except NoSuchTableError:
            raise object_not_found("Object", str(ref)) from None

    def exists(self, ref: TableName) -> bool:
        if not self.metastore.schema_exists(ref.database, ref.schema):
            return False
        return self.metastore.catalog(ref.database).table_exists(ref.identifier)

    def names(self, database: str, schema: str) -> list[str]:
        cat = self.metastore.require_schema(database, schema)
        return sorted(naming.display(t[-1]) for t in cat.list_tables(naming.stored(schema)))

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
            cat.purge_table(ref.identifier)
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
        cat.create_table(ref.identifier, Schema(*fields), properties=properties)
        return True

    def drop(self, ref: TableName, *, if_exists: bool = False) -> bool:
        if not self.exists(ref):
            if if_exists:
                return False
            raise object_not_found("Table", str(ref))
        self.metastore.catalog(ref.database).purge_table(ref.identifier)
        return True

    @staticmethod
    def columns(table: Table) -> list[Column]:
        declared = json.loads(table.properties.get(SFTYPES_PROPERTY, "{}"))
        result = []
        for f in table.schema().fields:
            sf_type = parse_sql_type(declared[str(f.field_id)]) if str(f.field_id) in declared else None
            result.append(
                Column(naming.display(f.name), sf_type or from_iceberg(f.field_type), not f.required, f.doc)
            )
        return result

    @staticmethod
    def arrow_schema(table: Table) -> pa.Schema:
        """The engine's view of a table: stored names, engine Arrow types, Snowflake type tags."""
        return pa.schema(
            [arrow_field(naming.stored(c.name), c.type, c.nullable) for c in Tables.columns(table)]
        )

    @staticmethod
    def scan_files(table: Table, snapshot_id: int | None = None) -> ScanFiles:
        """Plans the live data files of a snapshot (pruned by manifest statistics)."""
        scan = table.scan(snapshot_id=snapshot_id)
        tasks = list(scan.plan_files())
        snapshot = scan.snapshot()
        return ScanFiles(
            paths=[local_path(t.file.file_path) for t in tasks],
            has_deletes=any(t.delete_files for t in tasks),
            files=[t.file for t in tasks],
            snapshot_id=snapshot.snapshot_id if snapshot else None,
        )

    def rewrite(
        self, ref: TableName, base_snapshot: int | None, removed: list[DataFile], added: pa.Table
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
        with table.transaction() as tx, tx.update_snapshot().overwrite() as snapshot:
            for data_file in removed:
                snapshot.delete_data_file(data_file)
            if added.num_rows:
                data = added.cast(table.schema().as_arrow())
                for data_file in _dataframe_to_data_files(tx.table_metadata, data, table.io):
                    snapshot.append_data_file(data_file)

    def append(self, ref: TableName, data: pa.Table) -> int:
        """Appends rows in one Iceberg commit, retrying on concurrent commits. Returns the row count."""
        if data.num_rows == 0:
            return 0
        return self._commit(ref, data, overwrite=False)

    def overwrite(self, ref: TableName, data: pa.Table) -> int:
        """Replaces all rows in one Iceberg commit (INSERT OVERWRITE). Returns the row count."""
        return self._commit(ref, data, overwrite=True)

    def _commit(self, ref: TableName, data: pa.Table, *, overwrite: bool) -> int:
        for attempt in range(COMMIT_RETRIES):
            table = self.load(ref)
            try:
                data = data.cast(table.schema().as_arrow())
                if overwrite:
                    table.overwrite(data)
                else:
                    table.append(data)
                return data.num_rows
            except CommitFailedException:
                log.info("commit conflict on %s, retrying (%d)", ref, attempt + 1)
                time.sleep(0.01 * 2**attempt)
        raise CommitFailedException(f"could not commit to {ref} after {COMMIT_RETRIES} attempts")

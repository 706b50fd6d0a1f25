"""Staged table changes and the all-or-nothing commit of several tables.

A write inside an open transaction is made like any other (data files, manifests, a snapshot) but
its new metadata file is only written, never pointed to: the catalog row keeps the committed
version, so other sessions do not see it. COMMIT then swaps every touched table's pointer from
the version the transaction started on to its staged version in ONE SQL transaction, the same
way the Iceberg REST multi-table commit does. A table another writer changed meanwhile is rebased
when the transaction only appended to it (its added files are appended again on top of the new
version); any other change to it is a conflict and nothing is applied.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import sqlalchemy as sa
from pyiceberg.catalog import Catalog
from pyiceberg.catalog.sql import IcebergTables, SqlCatalog
from pyiceberg.manifest import DataFile, ManifestEntryStatus
from pyiceberg.table import Table, Transaction
from pyiceberg.typedef import Identifier
from sqlalchemy.orm import Session as OrmSession

from embucket_py.catalog.loading import load_at, pointer
from embucket_py.catalog.metastore import Metastore
from embucket_py.errors import SnowflakeError, Unsupported

log = logging.getLogger(__name__)

COMMIT_ATTEMPTS = 10


class TransactionConflict(SnowflakeError):
    """A table the transaction changed was changed by someone else first.
    Snowflake reports lock conflicts of DML with 000625 / 57014."""

    code = 625
    sqlstate = "57014"


@dataclass(frozen=True)
class TableCommit:
    """One table's part of a commit: swap `base_location` for `staged_location`."""

    database: str
    identifier: Identifier
    base_location: str
    staged_location: str
    appends_only: bool


def stage(table: Table, tx: Transaction) -> Table:
    """Writes the transaction's changes as a new metadata file without committing it.

    Returns the table as the changes leave it (its metadata_location is the staged file).
    """
    cat = table.catalog
    if not isinstance(cat, SqlCatalog):  # a database linked to an external REST catalog
        raise Unsupported("Transactions on a database linked to an external catalog are not supported.")
    staged = cat._update_and_stage_table(table, table.name(), (), tx._updates)
    cat._write_metadata(staged.metadata, staged.io, staged.metadata_location)
    return Table(table.name(), staged.metadata, staged.metadata_location, staged.io, cat)


def _added_files(staged: Table, base: Table) -> list[DataFile]:
    """The data files the staged snapshots added on top of `base`."""
    known = {s.snapshot_id for s in base.metadata.snapshots}
    files = []
    for snapshot in staged.metadata.snapshots:
        if snapshot.snapshot_id in known:
            continue
        for manifest in snapshot.manifests(staged.io):
            entries = manifest.fetch_manifest_entry(staged.io, discard_deleted=True)
            files.extend(
                e.data_file
                for e in entries
                if e.status == ManifestEntryStatus.ADDED and e.snapshot_id == snapshot.snapshot_id
            )
    return files


def _rebase(cat: SqlCatalog, change: TableCommit, current_location: str) -> str:
    """Re-applies an append-only change on top of the table's newer committed version."""
    base = load_at(cat, change.identifier, change.base_location)
    staged = load_at(cat, change.identifier, change.staged_location)
    current = load_at(cat, change.identifier, current_location)
    files = _added_files(staged, base)
    tx = current.transaction()
    if files:
        with tx.update_snapshot().fast_append() as snapshot:
            for data_file in files:
                snapshot.append_data_file(data_file)
    return stage(current, tx).metadata_location


def commit_all(metastore: Metastore, changes: list[TableCommit]) -> None:
    """Points every table at its staged version in one SQL transaction.

    Raises:
        TransactionConflict: a table was dropped, or changed in a way the transaction's own
            changes cannot be re-applied on; nothing is committed.
    """
    targets = {(*c.identifier, c.database): c for c in changes}
    for _ in range(COMMIT_ATTEMPTS):
        plan: list[tuple[SqlCatalog, TableCommit, str, str]] = []
        for change in targets.values():
            cat = metastore.catalog(change.database)
            current = pointer(cat, change.identifier)
            name = ".".join(change.identifier)
            if current is None:
                raise TransactionConflict(f"Transaction aborted: table {name} was dropped meanwhile.")
            if current == change.base_location:
                plan.append((cat, change, current, change.staged_location))
            elif change.appends_only:
                plan.append((cat, change, current, _rebase(cat, change, current)))
            else:
                raise TransactionConflict(
                    f"Transaction aborted: table {name} was changed by another transaction "
                    "after this transaction changed it; no change was applied."
                )
        if _swap(metastore.engine, plan):
            return
        log.info("multi-table commit lost a race, re-validating")
    raise TransactionConflict("Transaction aborted: too many concurrent commits; no change was applied.")


def _swap(engine: sa.Engine, plan: list[tuple[SqlCatalog, TableCommit, str, str]]) -> bool:
    with OrmSession(engine) as session:
        for cat, change, current, new in plan:
            if current == new:
                continue
            result = session.execute(
                sa.update(IcebergTables)
                .where(
                    IcebergTables.catalog_name == cat.name,
                    IcebergTables.table_namespace == Catalog.namespace_to_string(change.identifier[:-1]),
                    IcebergTables.table_name == change.identifier[-1],
                    IcebergTables.metadata_location == current,
                )
                .values(metadata_location=new, previous_metadata_location=current)
            )
            if result.rowcount < 1:  # type: ignore[attr-defined]
                session.rollback()
                return False
        session.commit()
    return True

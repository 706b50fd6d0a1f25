"""Iceberg orphan-file cleanup: files under a table's location that no kept snapshot references.

A crash between writing files and committing them (kill -9 in a write storm, a failed commit)
leaves data files, manifests and metadata files nothing points at. They are invisible to
readers but take space. A file is removed only when it is older than the grace period, so the
files of a write still in flight (or of a transaction not yet committed) are never touched.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlparse

import sqlalchemy as sa
from pyiceberg.table import StaticTable, Table

from embucket_py import naming
from embucket_py.catalog.metastore import Metastore
from embucket_py.errors import Unsupported

log = logging.getLogger(__name__)

DEFAULT_GRACE_SECONDS = 3 * 24 * 3600  # Iceberg's own default for remove_orphan_files


@dataclass
class OrphanReport:
    tables: int = 0
    referenced: int = 0
    removed: list[str] = field(default_factory=list)
    kept_young: int = 0  # unreferenced, but inside the grace period
    dry_run: bool = False  # asked for, or forced because some table's metadata would not load
    failed_tables: dict[str, str] = field(default_factory=dict)  # tables that would not load


def _local_path(location: str) -> Path:
    parsed = urlparse(location)
    if parsed.scheme not in ("", "file"):
        raise Unsupported(f"Orphan file removal on {parsed.scheme}:// warehouses is not supported yet.")
    return Path(unquote(parsed.path if parsed.scheme else location))


def referenced_files(table: Table) -> set[Path]:
    """Every file the table's metadata reaches: metadata files, manifest lists, manifests, data
    and delete files of every kept snapshot, and statistics files."""
    io = table.io
    metadata = table.metadata
    found: set[str] = set()
    if table.metadata_location:
        found.add(table.metadata_location)
    found.update(entry.metadata_file for entry in metadata.metadata_log)
    found.update(stat.statistics_path for stat in metadata.statistics)
    found.update(stat.statistics_path for stat in metadata.partition_statistics)
    for snapshot in metadata.snapshots:
        found.add(snapshot.manifest_list)
        for manifest in snapshot.manifests(io):
            if manifest.manifest_path in found:
                continue
            found.add(manifest.manifest_path)
            for entry in manifest.fetch_manifest_entry(io, discard_deleted=False):
                found.add(entry.data_file.file_path)
    return {_local_path(location).resolve() for location in found}


def _files_under(root: Path) -> Iterator[Path]:
    for directory, _, names in os.walk(root):
        for name in names:
            yield Path(directory, name).resolve()


def _dropped_locations(metastore: Metastore) -> list[tuple[str, str]]:
    """(name, metadata location) of dropped tables kept for UNDROP: their files are not orphans."""
    from embucket_py.catalog.dropped import dropped_table

    with metastore.engine.connect() as conn:
        dropped_table.create(conn, checkfirst=True)
        rows = conn.execute(sa.select(dropped_table.c.name, dropped_table.c.metadata_location)).all()
    return [(f"dropped {row[0]}", row[1]) for row in rows if row[1]]


def remove_orphan_files(
    metastore: Metastore, older_than_seconds: float = DEFAULT_GRACE_SECONDS, dry_run: bool = False
) -> OrphanReport:
    """Removes (or with dry_run only lists) orphaned files under every table's location.

    A file is kept when ANY table references it (clones share files; dropped tables kept for
    UNDROP still own theirs). When some table's metadata cannot be read, nothing is removed:
    the files it references are unknown.
    """
    report = OrphanReport()
    cutoff = time.time() - older_than_seconds
    keep: set[Path] = set()
    roots: list[Path] = []
    for database in metastore.database_keys():
        catalog = metastore.catalog(database)
        for namespace in catalog.list_namespaces():
            for identifier in catalog.list_tables(namespace):
                name = ".".join(naming.display(part) for part in (database, *identifier))
                try:
                    table = catalog.load_table(identifier)
                    keep |= referenced_files(table)
                except Unsupported:
                    raise
                except Exception as e:  # reported; the other tables still load
                    report.failed_tables[name] = f"{type(e).__name__}: {e}"
                    continue
                report.tables += 1
                roots.append(_local_path(table.location()))
    for name, location in _dropped_locations(metastore):
        try:
            keep |= referenced_files(StaticTable.from_metadata(location))
        except Exception as e:
            report.failed_tables[name] = f"{type(e).__name__}: {e}"
    report.referenced = len(keep)
    dry_run = report.dry_run = dry_run or bool(report.failed_tables)
    for root in roots:
        for path in _files_under(root):
            if path in keep:
                continue
            if path.stat().st_mtime > cutoff:
                report.kept_young += 1
                continue
            report.removed.append(str(path))
            if not dry_run:
                path.unlink(missing_ok=True)
    log.info("orphan files: %d removed, %d young ones kept", len(report.removed), report.kept_young)
    return report

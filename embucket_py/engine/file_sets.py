"""One DataFusion listing table per set of local data files, kept across statements.

DataFusion's `read_parquet` takes one path. A union of one scan per file (the other way to read a
snapshot's exact files) gives the planner one partition per file and no table-wide statistics: it
then orders joins badly (TPC-H Q7 built its hash table on the large side: 2.5x raw DataFusion) and
cannot split files into byte ranges across cores. A folder holding symbolic links to exactly the
snapshot's live files is one listing table, planned as raw DataFusion plans a directory of Parquet.

Iceberg never changes a data file, so a set of paths always means the same rows: its folder and
its table provider are made once and reused by every statement that reads the set. The provider
keeps what planning learned (file statistics), which a fresh table per statement re-reads from
every file's footer (~20 ms for 48 files); each statement still plans and runs it with its own
session settings and memory pool. The scan reads the files in no fixed order (rows come as a
multi-partition scan gives them): statements that scan little read small tables in memory instead,
in insertion order (engine/context.py).

The live files of a snapshot are kept the same way (a snapshot of a table never changes either):
pyiceberg's planning reads the manifests again each time (~5-10 ms per table reference).
"""

from __future__ import annotations

import atexit
import glob
import hashlib
import os
import shutil
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Callable

import pyarrow as pa
from datafusion import SessionContext
from datafusion.catalog import Table as Provider
from pyiceberg.table import Table

from embucket_py.catalog.tables import ScanFiles, Tables
from embucket_py.lru import Lru

# Sets kept; the least recently used beyond this are dropped (folder removed). A statement plans
# and opens its files within moments of asking for a set, long before hundreds of others evict it.
MAX_SETS = 512
MAX_SNAPSHOTS = 256
# The name a provider is registered under in its holder context, only while it is being made.
_HELD = "file_set"
# Folders are named by the process that made them, so another process can tell when they are orphans.
PREFIX = "embucket-file-sets-"


class FileSets:
    def __init__(self, max_sets: int = MAX_SETS) -> None:
        self.max_sets = max_sets
        self.root: str | None = None
        # The contexts providers are made in, by whether their scans filter while decoding.
        self.holders: dict[bool, SessionContext] = {}
        self.folders: OrderedDict[str, str] = OrderedDict()
        self.providers: dict[tuple[str, pa.Schema, bool], Provider] = {}
        self.lock = threading.Lock()

    def folder(self, paths: list[str]) -> str:
        """The folder listing exactly `paths` (absolute local files)."""
        key = _key(paths)
        with self.lock:
            return self._folder(key, paths)

    def provider(
        self,
        paths: list[str],
        schema: pa.Schema,
        new_context: Callable[..., SessionContext],
        filter_in_scan: bool = True,
    ) -> Provider:
        """A listing table over exactly `paths` read as `schema`, shared by every statement.
        `new_context(filter_in_scan=...)` makes the context providers are created in, with the
        engine's settings (the Parquet reader options are taken from it, not the statement's)."""
        key = _key(paths)
        with self.lock:
            found = self.providers.get((key, schema, filter_in_scan))
            if found is not None:
                self.folders.move_to_end(key)
                return found
            folder = self._folder(key, paths)
            if filter_in_scan not in self.holders:
                self.holders[filter_in_scan] = new_context(filter_in_scan=filter_in_scan)
            holder = self.holders[filter_in_scan]
            # Registered, not wrapped as a view of read_parquet's frame: a view is optimized
            # again inside every plan that reads it (~5 ms of planning per table reference).
            holder.register_parquet(_HELD, folder, schema=schema)
            made = holder.catalog().schema().table(_HELD)
            holder.deregister_table(_HELD)  # the provider lives on in the statements' plans
            self.providers[(key, schema, filter_in_scan)] = made
            return made

    def _folder(self, key: str, paths: list[str]) -> str:
        found = self.folders.get(key)
        if found is not None:
            self.folders.move_to_end(key)
            return found
        if self.root is None:
            _remove_orphans()
            self.root = tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-")
            atexit.register(self.close)
        folder = os.path.join(self.root, key)
        os.makedirs(folder, exist_ok=True)
        width = len(str(len(paths)))
        for i, path in enumerate(paths):
            link = os.path.join(folder, f"{i:0{width}d}.parquet")
            if not os.path.lexists(link):
                os.symlink(path, link)
        self.folders[key] = folder
        while len(self.folders) > self.max_sets:
            old_key, old = self.folders.popitem(last=False)
            for k in [k for k in self.providers if k[0] == old_key]:
                del self.providers[k]
            shutil.rmtree(old, ignore_errors=True)
        return folder

    def close(self) -> None:
        """Removes the folders (at exit, and at server shutdown: see Engine.close)."""
        with self.lock:
            if self.root is not None:
                shutil.rmtree(self.root, ignore_errors=True)
            self.root = None
            self.folders.clear()
            self.providers.clear()


def _remove_orphans() -> None:
    """Folders left by processes that are gone (killed before they could remove their own)."""
    for path in glob.glob(os.path.join(tempfile.gettempdir(), f"{PREFIX}*-*")):
        pid = os.path.basename(path)[len(PREFIX) :].split("-", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(path, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        pass
    return True


def _key(paths: list[str]) -> str:
    return hashlib.sha256("\n".join(paths).encode()).hexdigest()[:32]


class SnapshotFiles:
    """The live data files per (table, snapshot), planned once."""

    def __init__(self, max_snapshots: int = MAX_SNAPSHOTS) -> None:
        self.planned: Lru[ScanFiles] = Lru(max_snapshots)

    def files(self, table: Table, snapshot_id: int | None = None) -> ScanFiles:
        if snapshot_id is None:
            current = table.current_snapshot()
            if current is None:
                return Tables.scan_files(table)
            snapshot_id = current.snapshot_id
        key = (str(table.metadata.table_uuid), snapshot_id)
        return self.planned.get(key, lambda: Tables.scan_files(table, snapshot_id))


FILE_SETS = FileSets()
SNAPSHOT_FILES = SnapshotFiles()

"""Writes loaded rows as Parquet data files as they come, then commits them all at once.

Memory stays bounded: rows are written out every `FLUSH_BYTES`, and only the data-file
descriptions wait for the commit. One COPY is one Iceberg snapshot (a fast append); files of a
skipped input file, or of an aborted COPY, are deleted and never become visible.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import pyarrow as pa
from pyiceberg.exceptions import CommitFailedException
from pyiceberg.io.pyarrow import _dataframe_to_data_files
from pyiceberg.manifest import DataFile
from pyiceberg.table import Table

log = logging.getLogger(__name__)

FLUSH_BYTES = 64 << 20
COMMIT_RETRIES = 10


class DataFileSink:
    def __init__(self, table: Table) -> None:
        self.table = table
        self.schema = table.schema().as_arrow()
        self.pending: list[pa.RecordBatch] = []
        self.pending_bytes = 0
        self.files: list[DataFile] = []
        self.rows = 0

    def add(self, batch: pa.RecordBatch) -> None:
        if batch.num_rows == 0:
            return
        self.pending.append(batch)
        self.pending_bytes += batch.nbytes
        if self.pending_bytes >= FLUSH_BYTES:
            self.flush()

    def flush(self) -> None:
        if not self.pending:
            return
        data = pa.Table.from_batches(self.pending).rename_columns(self.schema.names).cast(self.schema)
        self.pending, self.pending_bytes = [], 0
        self.rows += data.num_rows
        self.files.extend(_dataframe_to_data_files(self.table.metadata, data, self.table.io))

    def mark(self) -> tuple[int, int]:
        """A point to roll back to (before one input file's rows)."""
        self.flush()
        return len(self.files), self.rows

    def rollback(self, mark: tuple[int, int]) -> None:
        self.pending, self.pending_bytes = [], 0
        for data_file in self.files[mark[0] :]:
            self.table.io.delete(data_file.file_path)
        self.files = self.files[: mark[0]]
        self.rows = mark[1]

    def abort(self) -> None:
        self.rollback((0, 0))

    def commit(self, tables: Any, ref: Any, properties: dict[str, str]) -> int:
        """Appends every written file in one snapshot through `tables.finish` (so an open
        transaction stages it), retrying on concurrent commits."""
        self.flush()
        if not self.files:
            return 0
        for attempt in range(COMMIT_RETRIES):
            table = tables.load(ref)
            tx = table.transaction()
            with tx.update_snapshot(properties).fast_append() as snapshot:
                for data_file in self.files:
                    snapshot.append_data_file(data_file)
            try:
                tables.finish(ref, table, tx, appends_only=True)
                return self.rows
            except CommitFailedException:
                log.info("commit conflict on COPY, retrying (%d)", attempt + 1)
                time.sleep(0.01 * 2**attempt)
        raise CommitFailedException(f"could not commit COPY after {COMMIT_RETRIES} attempts")

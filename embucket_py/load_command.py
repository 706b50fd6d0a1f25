"""The `load` subcommand's terminal side: settings, a progress bar (bytes and rows), the result."""

from __future__ import annotations

import argparse
import os
import sys
import time

from embucket_py.catalog.metastore import Metastore
from embucket_py.config import load_settings
from embucket_py.errors import SnowflakeError
from embucket_py.stages.fileio import StagedFile

_SETTINGS = ("data_dir", "metastore_uri", "warehouse", "user", "default_database", "default_schema")


class Progress:
    """One line on stderr: a bar over the bytes of all files, rows so far, throughput."""

    def __init__(self, total_bytes: int, enabled: bool) -> None:
        self.total = max(total_bytes, 1)
        self.enabled = enabled
        self.done: dict[str, tuple[int, int]] = {}
        self.start = time.monotonic()
        self.shown = 0.0

    def __call__(self, file: StagedFile, read: int, rows: int) -> None:
        self.done[file.uri] = (read, rows)
        now = time.monotonic()
        if self.enabled and now - self.shown >= 0.2:
            self.shown = now
            self.draw()

    def draw(self, final: bool = False) -> None:
        read = sum(b for b, _ in self.done.values())
        rows = sum(r for _, r in self.done.values())
        elapsed = max(time.monotonic() - self.start, 1e-9)
        share = 1.0 if final else min(read / self.total, 1.0)
        bar = "#" * int(share * 30)
        sys.stderr.write(
            f"\r[{bar:<30}] {share:6.1%} {read / 1e6:,.1f}/{self.total / 1e6:,.1f} MB "
            f"{rows:,} rows {read / 1e6 / elapsed:,.1f} MB/s {rows / elapsed:,.0f} rows/s"
        )
        if final:
            sys.stderr.write("\n")
        sys.stderr.flush()


def run_load(args: argparse.Namespace) -> int:
    from embucket_py.engine.bulk_load import load_files
    from embucket_py.engine.stages import local_sources

    overrides = {k: getattr(args, k) for k in _SETTINGS if getattr(args, k) is not None}
    settings = load_settings(overrides)
    metastore = Metastore(settings.resolved_metastore_uri, settings.resolved_warehouse)
    metastore.create_database(settings.default_database, if_not_exists=True)
    metastore.create_schema(settings.default_database, settings.default_schema, if_not_exists=True)
    total = sum(os.path.getsize(f) for f in local_sources(args.files))
    progress = Progress(total, enabled=not args.quiet and sys.stderr.isatty())
    try:
        result = load_files(
            metastore, settings.user, settings.account, settings.default_database, settings.default_schema,
            args.files, args.table, args.format.upper(), args.format_options, args.copy_options, progress,
        )  # fmt: skip
    except SnowflakeError as e:
        sys.stderr.write(f"\n{e.code_text} ({e.sqlstate}): {e.message}\n")
        return 1
    if progress.enabled:
        progress.draw(final=True)
    names = [c.name for c in result.columns]
    for batch in result.batches:
        for row in batch.to_pylist():
            print("\t".join("" if row[n] is None else str(row[n]) for n in names))
    return 0

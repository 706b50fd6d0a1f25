"""Listing tables over exact sets of data files, and the live files planned once per snapshot."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from pyiceberg.catalog.sql import SqlCatalog
from starlette.testclient import TestClient

from embucket_py.config import load_settings
from embucket_py.engine.context import new_context
from embucket_py.engine.file_sets import FILE_SETS, PREFIX, FileSets, SnapshotFiles
from embucket_py.lru import Lru
from embucket_py.server.app import build_app

SCHEMA = pa.schema([pa.field("n", pa.int64())])


def _files(folder: Path, count: int) -> list[str]:
    paths = []
    for i in range(count):
        path = folder / f"data-{i}.parquet"
        pq.write_table(pa.table({"n": [10 * i + 1, 10 * i + 2]}, schema=SCHEMA), path)
        paths.append(str(path))
    return paths


def _read(sets: FileSets, paths: list[str], schema: pa.Schema = SCHEMA) -> tuple[list[int], str]:
    ctx = new_context()
    ctx.sql("SET datafusion.execution.target_partitions = 1")
    ctx.register_table("t", sets.provider(paths, schema, new_context))
    frame = ctx.sql("SELECT n FROM t")
    return frame.to_arrow_table().column("n").to_pylist(), frame.execution_plan().display_indent()


def test_a_set_reads_exactly_its_files(tmp_path: Path) -> None:
    paths = _files(tmp_path, 4)  # all in one folder: the set must not read the others
    sets = FileSets()
    rows, plan = _read(sets, [paths[3], paths[0], paths[2]])
    assert sorted(rows) == [1, 2, 21, 22, 31, 32]
    assert "UnionExec" not in plan  # one scan of the whole set
    assert sorted(os.listdir(sets.folder([paths[3], paths[0], paths[2]]))) == [
        "0.parquet",
        "1.parquet",
        "2.parquet",
    ]


def test_a_set_is_one_scan_split_across_partitions(tmp_path: Path) -> None:
    paths = _files(tmp_path, 3)
    ctx = new_context(partitions=2)
    ctx.register_table("t", FileSets().provider(paths, SCHEMA, lambda **kw: new_context(2, **kw)))
    plan = ctx.sql("SELECT n FROM t WHERE n > 0").execution_plan()
    assert plan.partition_count == 2
    assert "UnionExec" not in plan.display_indent()


def test_the_provider_is_made_once_per_set_and_schema(tmp_path: Path) -> None:
    paths = _files(tmp_path, 2)
    sets = FileSets()
    first = sets.provider(paths, SCHEMA, new_context)
    assert sets.provider(list(paths), SCHEMA, new_context) is first
    wider = pa.schema([*SCHEMA, pa.field("added", pa.string())])
    assert sets.provider(paths, wider, new_context) is not first
    assert sorted(_read(sets, paths, wider)[0]) == [1, 2, 11, 12]  # a column added later reads as NULL


def test_the_least_recently_used_set_is_dropped_with_its_folder(tmp_path: Path) -> None:
    paths = _files(tmp_path, 3)
    sets = FileSets(max_sets=1)
    old = sets.folder(paths[:2])
    first = sets.provider(paths[:2], SCHEMA, new_context)
    sets.folder(paths[1:])
    assert not os.path.exists(old)
    assert sets.provider(paths[:2], SCHEMA, new_context) is not first
    assert sorted(_read(sets, paths[:2])[0]) == [1, 2, 11, 12]


def test_live_files_are_planned_once_per_snapshot(tmp_path: Path) -> None:
    catalog = SqlCatalog("t", uri=f"sqlite:///{tmp_path}/c.db", warehouse=tmp_path.as_uri())
    catalog.create_namespace("s")
    table = catalog.create_table("s.t", schema=SCHEMA)
    table.append(pa.table({"n": [1]}, schema=SCHEMA))
    snapshots = SnapshotFiles()
    first = snapshots.files(table)
    assert len(first.paths) == 1 and snapshots.files(catalog.load_table("s.t")) is first
    table.append(pa.table({"n": [2]}, schema=SCHEMA))
    assert len(snapshots.files(table).paths) == 2
    assert snapshots.files(table, first.snapshot_id) is first  # time travel to the older snapshot


def test_the_least_recently_used_value_is_dropped_beyond_the_size() -> None:
    kept: Lru[str] = Lru(2)
    made: list[str] = []

    def make(key: str) -> str:
        made.append(key)
        return key.upper()

    for key in ("a", "b", "a", "c", "a", "b"):  # "b" is the least recently used when "c" comes
        assert kept.get(key, lambda key=key: make(key)) == key.upper()
    assert made == ["a", "b", "c", "b"]


def test_scans_that_filter_while_decoding_get_providers_of_their_own(tmp_path: Path) -> None:
    # The Parquet reader options come from the context a provider is made in, not the statement's.
    paths = _files(tmp_path, 2)
    sets = FileSets()
    lookup = sets.provider(paths, SCHEMA, new_context, filter_in_scan=True)
    analytic = sets.provider(paths, SCHEMA, new_context, filter_in_scan=False)
    assert lookup is not analytic
    assert sets.provider(paths, SCHEMA, new_context, filter_in_scan=False) is analytic
    assert sets.holders[True].filter_in_scan and not sets.holders[False].filter_in_scan  # type: ignore[attr-defined]


def test_closing_removes_the_folders_and_a_later_set_makes_new_ones(tmp_path: Path) -> None:
    paths = _files(tmp_path, 2)
    sets = FileSets()
    folder = sets.folder(paths)
    root = sets.root
    assert root is not None and os.path.basename(root).startswith(f"{PREFIX}{os.getpid()}-")
    sets.close()
    assert not os.path.exists(root) and not os.path.exists(folder)
    assert sorted(_read(sets, paths)[0]) == [1, 2, 11, 12]  # works again, in a new root
    assert sets.root is not None and sets.root != root
    sets.close()


def test_folders_of_processes_that_are_gone_are_removed(tmp_path: Path) -> None:
    pid = "import os; print(os.getpid())"
    gone = subprocess.run([sys.executable, "-c", pid], capture_output=True, text=True, check=True)
    orphan = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{int(gone.stdout)}-"))
    (orphan / "set").mkdir()
    alive = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getppid()}-"))  # the test runner's parent lives
    sets = FileSets()
    try:
        sets.folder(_files(tmp_path, 2))
        assert not orphan.exists()
        assert alive.exists()
    finally:
        sets.close()
        shutil.rmtree(alive, ignore_errors=True)


def test_server_shutdown_removes_the_folders(tmp_path: Path) -> None:
    # uvicorn ends a server stopped by SIGTERM with that signal again: exit handlers do not run,
    # so the app's shutdown removes them.
    paths = _files(tmp_path, 2)
    settings = load_settings({"data_dir": str(tmp_path / "data")}, env={})
    with TestClient(build_app(settings)):
        FILE_SETS.folder(paths)
        root = FILE_SETS.root
        assert root is not None and os.path.isdir(root)
    assert not os.path.exists(root)

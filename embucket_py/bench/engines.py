"""The same TPC-H queries on the same Iceberg data files, run in-process by raw DataFusion and by
DuckDB: the baselines the server's times are divided by."""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar
from urllib.parse import urlparse

import pyarrow as pa
import sqlglot
from datafusion import SessionConfig, SessionContext
from pyiceberg.catalog.rest import RestCatalog
from sqlglot import exp

from embucket_py.engine.context import TARGET_PARTITIONS, TUNED_SETTINGS, no_huge_pages
from embucket_py.engine.query import filters_in_scan


@dataclass(frozen=True)
class TableFiles:
    name: str
    metadata_location: str
    paths: list[str]  # live data files of the current snapshot


def table_files(
    port: int, database: str, schema: str, tables: list[str], credential: str
) -> list[TableFiles]:
    """Each table's live data files, asked of the server's Iceberg REST catalog."""
    uri = f"http://127.0.0.1:{port}/iceberg"
    catalog = RestCatalog(
        database,
        uri=uri,
        warehouse=database,
        credential=credential,
        **{"oauth2-server-uri": f"{uri}/v1/oauth/tokens"},
    )
    found = []
    for name in tables:
        table = catalog.load_table((schema, name))
        paths = [urlparse(task.file.file_path).path for task in table.scan().plan_files()]
        found.append(TableFiles(name, table.metadata_location, paths))
    return found


def link_files(files: list[TableFiles], into: Path) -> dict[str, Path]:
    """Hard links of each table's live files in a folder of its own, for register_parquet."""
    folders = {}
    for t in files:
        folder = into / t.name
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.iterdir():
            old.unlink()
        for i, path in enumerate(t.paths):
            os.link(path, folder / f"{i:05d}.parquet")
        folders[t.name] = folder
    return folders


T = TypeVar("T")


def timed(run: Callable[[], T], runs: int) -> tuple[float, T]:
    """Median seconds of `runs` runs after one warm-up, and the last result."""
    result = run()
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        result = run()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples), result


class RawDataFusion:
    """DataFusion over the tables' Parquet files, the engine's own limit."""

    def __init__(self, folders: dict[str, Path]) -> None:
        # Set up as the server runs DataFusion (huge pages off, the same settings, filters in the
        # scan where the server runs them there): the ratio is the server's own overhead.
        no_huge_pages()
        self.contexts = {}
        for filter_in_scan in (True, False):
            config = SessionConfig().with_target_partitions(TARGET_PARTITIONS)
            config = config.set("datafusion.execution.parquet.pushdown_filters", str(filter_in_scan).lower())
            for key, value in TUNED_SETTINGS.items():
                config = config.set(key, value)
            ctx = self.contexts[filter_in_scan] = SessionContext(config)
            for name, folder in folders.items():
                ctx.register_parquet(name, str(folder))
        self.ctx = self.contexts[False]

    def query(self, snowflake_sql: str) -> pa.Table:
        tree = sqlglot.parse_one(snowflake_sql, read="snowflake")
        in_scan = filters_in_scan(tree, len(list(tree.find_all(exp.Table))))
        return self.contexts[in_scan].sql(tree.sql("postgres")).to_arrow_table()


class DuckDB:
    """DuckDB over the same Iceberg tables (iceberg_scan of each table's metadata file)."""

    def __init__(self, files: list[TableFiles], con: object) -> None:
        self.con = con
        for t in files:
            location = urlparse(t.metadata_location).path
            con.sql(f"CREATE OR REPLACE VIEW {t.name} AS SELECT * FROM iceberg_scan('{location}')")  # type: ignore[attr-defined]

    def query(self, snowflake_sql: str) -> pa.Table:
        sql = sqlglot.transpile(snowflake_sql, read="snowflake", write="duckdb")[0]
        return self.con.sql(sql).fetch_arrow_table()  # type: ignore[attr-defined]

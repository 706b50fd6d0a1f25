"""TPC-H on the server's query path versus raw DataFusion, both in this process (no HTTP).

What the server adds to a query itself (translation, table registration, the plan it gets) shows
up here without the protocol's cost: each query alternates server-path and raw runs round by round
on the same machine moment, so the shared machine's noise falls on both alike.

    python -m embucket_py.bench.in_process --data-dir /tmp/tpch-sf1/server [--queries 7,14] [--explain]

The data directory is one a server loaded with `embucket-py bench tpch` (or its load step).
"""

from __future__ import annotations

import argparse
import math
import statistics
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import sqlglot
from datafusion import DataFrame

from embucket_py.bench.engines import RawDataFusion, TableFiles, link_files
from embucket_py.bench.tpch_data import TABLES
from embucket_py.bench.tpch_queries import QUERIES
from embucket_py.catalog.metastore import Metastore
from embucket_py.catalog.tables import TableName, Tables
from embucket_py.config import load_settings
from embucket_py.engine.query import collect, column_kinds, plan, translate
from embucket_py.sql.context import SqlContext
from embucket_py.sql.parse import parse


class ServerPath:
    """The server's own query path: parse, translate, register the tables, plan, collect."""

    def __init__(self, data_dir: Path, database: str, schema: str) -> None:
        settings = load_settings({"data_dir": str(data_dir)})
        self.tables = Tables(Metastore(settings.resolved_metastore_uri, settings.resolved_warehouse))
        # Declared column types, as the server's statements have them (AVG and division follow them).
        self.ctx = SqlContext(database.upper(), schema.upper(), column_kinds=column_kinds(self.tables))

    def live_files(self) -> list[TableFiles]:
        found = []
        for name in TABLES:
            table = self.tables.load(TableName(self.ctx.database, self.ctx.schema, name.upper()))  # type: ignore[arg-type]
            found.append(TableFiles(name, table.metadata_location, Tables.scan_files(table).paths))
        return found

    def frame(self, sql: str) -> DataFrame:
        return plan(self.tables, parse(sql)[0], self.ctx, None)[0]

    def query(self, sql: str) -> pa.Table:
        return collect(self.frame(sql))

    def translated(self, sql: str) -> str:
        return translate(self.tables, parse(sql)[0], self.ctx, None).sql


def compare(
    server: ServerPath, raw: RawDataFusion, numbers: list[int], rounds: int
) -> dict[int, tuple[float, float, float]]:
    """Per query: median seconds of the server path and of raw DataFusion, runs alternating after
    one warm-up of each, and the ratio of their median CPU seconds (every thread of this process:
    steadier than wall time when other work shares the machine)."""
    out = {}
    for n in numbers:
        sql = QUERIES[n]
        server.query(sql), raw.query(sql)
        wall: tuple[list[float], list[float]] = ([], [])
        cpu: tuple[list[float], list[float]] = ([], [])
        for _ in range(rounds):
            for i, run in enumerate((server.query, raw.query)):
                start, start_cpu = time.perf_counter(), time.process_time()
                run(sql)
                wall[i].append(time.perf_counter() - start)
                cpu[i].append(time.process_time() - start_cpu)
        s, r = statistics.median(wall[0]), statistics.median(wall[1])
        out[n] = (s, r, statistics.median(cpu[0]) / statistics.median(cpu[1]))
        print(f"{n:>5} {s:9.3f} {r:9.3f} {s / r:7.2f} {out[n][2]:9.2f}", flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--database", default="tpch")
    parser.add_argument("--schema", default="public")
    parser.add_argument("--queries", default="1-22")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--explain", action="store_true", help="print both physical plans instead")
    parser.add_argument("--sql", action="store_true", help="print the translated SQL instead")
    args = parser.parse_args()
    numbers: list[int] = []
    for part in args.queries.split(","):
        low, _, high = part.partition("-")
        numbers += range(int(low), int(high or low) + 1)
    server = ServerPath(args.data_dir, args.database, args.schema)
    links = Path(tempfile.gettempdir()) / f"embucket-in-process-{args.data_dir.name}"
    raw = RawDataFusion(link_files(server.live_files(), links))
    if args.sql or args.explain:
        for n in numbers:
            print(f"-- Q{n}")
            if args.sql:
                print(server.translated(QUERIES[n]))
            if args.explain:
                print("-- server\n" + server.frame(QUERIES[n]).execution_plan().display_indent())
                raw_sql = sqlglot.transpile(QUERIES[n], read="snowflake", write="postgres")[0]
                print("-- raw\n" + raw.ctx.sql(raw_sql).execution_plan().display_indent())
        return
    print(
        f"{'query':>5} {'server':>9} {'raw DF':>9} {'ratio':>7} {'CPU ratio':>9}  (medians of {args.rounds})"
    )
    results = compare(server, raw, numbers, args.rounds)
    print(
        f"geomean ratio server path / raw: {_geomean([s / r for s, r, _ in results.values()]):.3f} wall, "
        f"{_geomean([c for _, _, c in results.values()]):.3f} CPU"
    )


def _geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


if __name__ == "__main__":
    main()

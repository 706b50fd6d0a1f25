"""Semi-structured data through the server, next to DuckDB on the same files.

    embucket-py bench variant [--rows 1000000] [--runs 3] [--json out.json]

Builds a table of JSON objects in a VARIANT column with OBJECT_CONSTRUCT (CTAS, timed), then
times queries that read fields by path through the connector (median of `--runs` after a
warm-up). DuckDB runs the same questions over the table's own Parquet files with its JSON
functions, and each answer is checked against DuckDB's.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from embucket_py.bench.engines import timed
from embucket_py.bench.process import ServerProcess, environment

TABLE = "events"
BUILD = (
    f"CREATE OR REPLACE TABLE {TABLE} AS SELECT OBJECT_CONSTRUCT('id', SEQ4(), 'user', 'user' || "
    "(SEQ4() % 1000), 'score', SEQ4() % 100, 'tags', ARRAY_CONSTRUCT('a', 'b')) AS v "
    "FROM TABLE(GENERATOR(ROWCOUNT => {rows}))"
)
# name: (Snowflake SQL through the server, DuckDB SQL over the Parquet files as `t`)
QUERIES = {
    "sum of a field": (
        f"SELECT SUM(v:score::INT) FROM {TABLE}",
        "SELECT SUM((v->>'score')::INT) FROM t",
    ),
    "group by a field": (
        f"SELECT v:user::VARCHAR AS u, COUNT(*) AS n FROM {TABLE} GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 5",
        "SELECT v->>'user' AS u, COUNT(*) AS n FROM t GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 5",
    ),
    "filter on an array element": (
        f"SELECT COUNT(*) FROM {TABLE} WHERE v:tags[0] = 'a' AND v:score::INT < 50",
        "SELECT COUNT(*) FROM t WHERE v->'tags'->>0 = 'a' AND (v->>'score')::INT < 50",
    ),
    "fields as columns": (
        f"SELECT MAX(v:id::INT), MIN(v:user::VARCHAR), COUNT(DISTINCT v:score) FROM {TABLE}",
        "SELECT MAX((v->>'id')::INT), MIN(v->>'user'), COUNT(DISTINCT (v->>'score')::INT) FROM t",
    ),
}


def _table_files(data_dir: Path) -> list[str]:
    from embucket_py.bench.in_process import ServerPath
    from embucket_py.catalog.tables import TableName, Tables

    table = ServerPath(data_dir, "EMBUCKET", "PUBLIC").tables.load(
        TableName("EMBUCKET", "PUBLIC", TABLE.upper())
    )
    return [p.removeprefix("file://") for p in Tables.scan_files(table).paths]


def run(args: argparse.Namespace) -> None:
    data_dir = Path(tempfile.mkdtemp(prefix="variant-", dir=args.work_dir))
    try:
        _run(args, data_dir)
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


def _run(args: argparse.Namespace, data_dir: Path) -> None:
    import duckdb

    out: dict[str, Any] = {"environment": environment(), "rows": args.rows, "queries": {}}
    with ServerProcess(data_dir) as server, server.connect(database="EMBUCKET", schema="PUBLIC") as conn:
        cur = conn.cursor()
        start = time.perf_counter()
        cur.execute(BUILD.format(rows=args.rows))
        out["build_seconds"] = round(time.perf_counter() - start, 3)
        print(f"build {args.rows:,} objects (CTAS)    {out['build_seconds']:7.3f} s")
        con = duckdb.connect()
        con.sql(f"CREATE VIEW t AS SELECT v::JSON AS v FROM read_parquet({_table_files(data_dir)!r})")
        for name, (server_sql, duck_sql) in QUERIES.items():
            seconds, answer = timed(lambda s=server_sql: cur.execute(s).fetchall(), args.runs)
            duck_seconds, duck_answer = timed(lambda s=duck_sql: con.sql(s).fetchall(), args.runs)
            same = [tuple(r) for r in answer] == [tuple(r) for r in duck_answer]
            out["queries"][name] = {
                "server": round(seconds, 4),
                "duckdb": round(duck_seconds, 4),
                "ratio": round(seconds / duck_seconds, 2),
                "answer": "ok" if same else f"differs: {answer} vs {duck_answer}",
            }
            print(
                f"{name:32s} {seconds:7.3f} s  DuckDB {duck_seconds:7.3f} s  {out['queries'][name]['answer']}"
            )
        out["server_peak_rss_mb"] = round(server.peak_rss_mb())
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))

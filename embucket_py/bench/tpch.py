"""`embucket-py bench tpch`: TPC-H through the server versus raw DataFusion and DuckDB.

Generates the data (tpchgen-cli), starts a server, loads the tables through it (PUT + COPY INTO),
runs the 22 queries through the real connector (time includes fetching the result), checks each
answer against the TPC-H reference answers, runs the same queries on the same data files with raw
DataFusion and DuckDB, then measures latency, fetch throughput and concurrent throughput.
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

import pyarrow as pa

from embucket_py.bench import answers, latency
from embucket_py.bench.engines import DuckDB, RawDataFusion, link_files, table_files, timed
from embucket_py.bench.process import ServerProcess, environment
from embucket_py.bench.tpch_data import TABLES, generate, load
from embucket_py.bench.tpch_queries import QUERIES

DATABASE, SCHEMA = "tpch", "public"


def _query_numbers(spec: str) -> list[int]:
    numbers: list[int] = []
    for part in spec.split(","):
        low, _, high = part.partition("-")
        numbers += range(int(low), int(high or low) + 1)
    return numbers


def _server_query(cur: Any, sql: str) -> pa.Table:
    cur.execute(sql)
    table = cur.fetch_arrow_all()
    return table if table is not None else pa.table({})


def geomean(values: list[float]) -> float:
    values = [v for v in values if v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def run(args: argparse.Namespace) -> dict[str, Any]:
    files = generate(args.scale, args.work_dir / "data", args.parts, args.generator)
    reference = answers.reference_answers(args.scale) if args.generator == "dbgen" else {}
    numbers = _query_numbers(args.queries)
    report: dict[str, Any] = {
        "environment": environment(),
        "scale": args.scale,
        "generator": args.generator,
        "answers_checked_against": "TPC reference answers" if reference else "DuckDB",
        "queries": {},
    }
    server_dir = args.work_dir / "server"
    with ServerProcess(server_dir) as server:
        conn = server.connect()
        cur = conn.cursor()
        cur.execute(f"CREATE OR REPLACE DATABASE {DATABASE}")
        cur.execute(f"USE SCHEMA {DATABASE}.{SCHEMA}")
        report["load_seconds"] = load(conn, files)
        live = table_files(server.port, DATABASE, SCHEMA, list(TABLES), f"{server.user}:{server.password}")
        raw = RawDataFusion(link_files(live, args.work_dir / "links"))
        duck = None if args.no_duckdb and reference else DuckDB(live, answers.duckdb_connection())
        print(f"TPC-H SF{args.scale:g}: median of {args.runs} runs after a warm-up, seconds")
        print(f"{'query':>5} {'server':>9} {'raw DF':>9} {'ratio':>7} {'DuckDB':>9}  answer")
        for n in numbers:
            sql = QUERIES[n]
            entry: dict[str, Any] = {}
            expected = reference.get(n)
            if duck is not None:
                entry["duckdb"], duck_result = timed(lambda sql=sql: duck.query(sql), args.runs)
                expected = expected or answers.as_text_rows(duck_result)
            try:
                entry["server"], result = timed(lambda sql=sql: _server_query(cur, sql), args.runs)
                entry["answer"] = answers.check(result, expected) or "ok" if expected else "unchecked"
            except Exception as e:  # a failing query is a result to report, not a crash
                entry["answer"] = f"error: {e}".splitlines()[0][:120]
            entry["raw_datafusion"], _ = timed(lambda sql=sql: raw.query(sql), args.runs)
            if "server" in entry:
                entry["ratio"] = entry["server"] / entry["raw_datafusion"]
            report["queries"][n] = entry
            print(
                f"{n:>5} {entry.get('server', float('nan')):9.3f} {entry['raw_datafusion']:9.3f} "
                f"{entry.get('ratio', float('nan')):7.2f} {entry.get('duckdb', float('nan')):9.3f}  "
                f"{entry['answer']}",
                flush=True,
            )
        report["summary"] = _summary(report["queries"])
        if not args.no_latency:
            report["latency"] = latency.measure(server, raw, args.concurrency_seconds)
        report["server_peak_rss_mb"] = server.peak_rss_mb()
        conn.close()
    _print_summary(report)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, default=str))
    return report


def _summary(queries: dict[int, dict[str, Any]]) -> dict[str, Any]:
    timed_ok = [q for q in queries.values() if "server" in q]
    out = {
        "correct": sum(q["answer"] == "ok" for q in queries.values()),
        "queries": len(queries),
        "geomean_server": geomean([q["server"] for q in timed_ok]),
        "geomean_raw_datafusion": geomean([q["raw_datafusion"] for q in timed_ok]),
        "geomean_ratio_server_over_raw": geomean([q["ratio"] for q in timed_ok]),
    }
    if all("duckdb" in q for q in timed_ok) and timed_ok:
        out["geomean_duckdb"] = geomean([q["duckdb"] for q in timed_ok])
        out["geomean_ratio_server_over_duckdb"] = out["geomean_server"] / out["geomean_duckdb"]
    return out


def _print_summary(report: dict[str, Any]) -> None:
    s = report["summary"]
    print(f"\nanswers correct: {s['correct']}/{s['queries']}")
    for key, value in s.items():
        if key.startswith("geomean"):
            print(f"{key:<36} {value:9.3f}")
    for key, value in report.get("latency", {}).items():
        print(f"{key:<36} {value}")
    print(f"{'server peak RSS (MB)':<36} {report['server_peak_rss_mb']:9.1f}")

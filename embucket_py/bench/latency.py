"""Latency and throughput through the connector, next to raw DataFusion in-process."""

from __future__ import annotations

import json
import random
import statistics
import subprocess
import sys
import threading
import time
from typing import Any

from embucket_py.bench.engines import RawDataFusion
from embucket_py.bench.process import ServerProcess
from embucket_py.bench.tpch_queries import QUERIES

# A mix of short and medium TPC-H queries for the concurrency figures.
MIX = (1, 3, 5, 6, 10, 12, 14, 19)
# Repeated with USE_CACHED_RESULT on: the result is reused, not computed (the figures above run
# every query; see engine/reused_results.py).
REUSED_SQL = QUERIES[1]
# 10 million rows x 4 columns (LINEITEM read twice: SF1 holds 6,001,215 rows).
_FETCH_COLUMNS = "SELECT l_orderkey, l_partkey, l_suppkey, l_extendedprice FROM lineitem"
FETCH_SQL = f"{_FETCH_COLUMNS} UNION ALL {_FETCH_COLUMNS} LIMIT 10000000"


def _percentile(samples: list[float], pct: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * pct))]


def _python_loop_ms() -> float:
    """This VM's speed at the moment: a million-iteration Python loop, best of 5 (its CPU speed
    swings up to 2x within minutes, client and server alike, which the latencies follow)."""
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(1_000_000):
            pass
        best = min(best, time.perf_counter() - start)
    return round(best * 1000, 1)


def _latencies(cur: Any, sql: str, repeat: int) -> list[float]:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        cur.execute(sql)
        cur.fetchall()
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def measure(server: ServerProcess, raw: RawDataFusion, seconds: float) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with server.connect() as conn:
        cur = conn.cursor()
        cur.execute("USE SCHEMA tpch.public")
        out["python_loop_ms"] = _python_loop_ms()
        select1 = _latencies(cur, "SELECT 1", 300)
        out["select_1_p50_ms"] = round(statistics.median(select1), 2)
        out["select_1_p99_ms"] = round(_percentile(select1, 0.99), 2)
        # `SELECT 1` (literals only) is computed once; a one-row query the engine plans and runs
        # every time shows that path's round trip.
        planned = _latencies(cur, "SELECT CURRENT_DATE()", 300)
        out["select_current_date_p50_ms"] = round(statistics.median(planned), 2)
        (key,) = cur.execute("SELECT MAX(o_orderkey) / 2 FROM orders").fetchone()
        lookup = f"SELECT * FROM orders WHERE o_orderkey = {int(key) // 4 * 4 + 1}"
        out["point_lookup_p50_ms"] = round(statistics.median(_latencies(cur, lookup, 30)), 2)
        raw_lookup = []
        for _ in range(30):
            start = time.perf_counter()
            raw.query(lookup)
            raw_lookup.append((time.perf_counter() - start) * 1000)
        out["point_lookup_raw_datafusion_p50_ms"] = round(statistics.median(raw_lookup), 2)
        out.update(_fetch_throughput(cur, raw))
        out.update(_fresh_client_fetch(server, raw))
    with server.connect(reuse=True) as conn:
        cur = conn.cursor()
        cur.execute("USE SCHEMA tpch.public")
        cur.execute(REUSED_SQL).fetchall()
        out["tpch_q1_reused_p50_ms"] = round(statistics.median(_latencies(cur, REUSED_SQL, 30)), 2)
    for clients in (1, 4, 16):
        out[f"queries_per_minute_{clients}_clients"] = round(_throughput(server, clients, seconds), 1)
    return out


# Fetches timed on each side, alternating (best of them: this VM's timings vary by up to 2x).
FETCH_RUNS = 5


def _fetch_throughput(cur: Any, raw: RawDataFusion) -> dict[str, Any]:
    best_server = best_raw = float("inf")
    rows = nbytes = 0
    for _ in range(FETCH_RUNS):
        start = time.perf_counter()
        cur.execute(FETCH_SQL)
        table = cur.fetch_arrow_all()
        best_server = min(best_server, time.perf_counter() - start)
        rows, nbytes = table.num_rows, table.nbytes
        del table  # the client holds one result at a time, as the raw side does
        start = time.perf_counter()
        raw.query(FETCH_SQL)
        best_raw = min(best_raw, time.perf_counter() - start)
    mb = nbytes / 1e6
    return {
        "fetch_rows": rows,
        "fetch_server_mb_per_s": round(mb / best_server, 1),
        "fetch_raw_datafusion_mb_per_s": round(mb / best_raw, 1),
        "fetch_server_share_of_raw": round(best_raw / best_server, 2),
    }


def _fresh_client_fetch(server: ServerProcess, raw: RawDataFusion) -> dict[str, Any]:
    """The same fetch from a fresh client process each time (bench/fetch_client.py), alternating
    with the raw collect: the connector without the benchmark's DuckDB and DataFusion state."""
    command = [sys.executable, "-m", "embucket_py.bench.fetch_client", "--port", str(server.port)]
    command += ["--user", server.user, "--password", server.password, "--schema", "tpch.public"]
    best_client = best_raw = float("inf")
    nbytes = 0
    for _ in range(FETCH_RUNS):
        done = subprocess.run([*command, "--sql", FETCH_SQL], capture_output=True, text=True, check=True)
        report = json.loads(done.stdout.strip().splitlines()[-1])
        best_client, nbytes = min(best_client, report["seconds"]), report["nbytes"]
        start = time.perf_counter()
        raw.query(FETCH_SQL)
        best_raw = min(best_raw, time.perf_counter() - start)
    return {
        "fetch_fresh_client_mb_per_s": round(nbytes / 1e6 / best_client, 1),
        "fetch_fresh_client_share_of_raw": round(best_raw / best_client, 2),
    }


def _throughput(server: ServerProcess, clients: int, seconds: float) -> float:
    done = [0] * clients
    deadline = time.monotonic() + seconds

    def client(i: int) -> None:
        rng = random.Random(i)
        with server.connect() as conn:
            cur = conn.cursor()
            cur.execute("USE SCHEMA tpch.public")
            while time.monotonic() < deadline:
                cur.execute(QUERIES[rng.choice(MIX)])
                cur.fetchall()
                done[i] += 1

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    start = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(done) / ((time.monotonic() - start) / 60)

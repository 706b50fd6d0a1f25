"""Benchmark: protocol round trips through the real connector. Prints numbers; asserts nothing.

    .venv/bin/python -m tests.bench.roundtrip [--repeat 200]

Starts a server on a free port with a temporary data directory, then measures SELECT 1 latency,
fetching 1,000,000 rows (fetchall and fetch_pandas_all) and single-row INSERT latency.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from tests.e2e.conftest import Server


def _timed(fn: object, repeat: int) -> list[float]:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def _report(name: str, samples: list[float]) -> None:
    samples.sort()
    p95 = samples[int(len(samples) * 0.95) - 1] if len(samples) > 1 else samples[0]
    print(f"{name:<32} p50 {statistics.median(samples):9.2f} ms   p95 {p95:9.2f} ms   n={len(samples)}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(Path(tmp))
        server.start()
        try:
            # Every statement runs: a reused result would skip the engine (USE_CACHED_RESULT).
            with server.connect(session_parameters={"USE_CACHED_RESULT": False}) as conn:
                cur = conn.cursor()
                _report("SELECT 1", _timed(lambda: cur.execute("SELECT 1").fetchall(), args.repeat))
                million = "SELECT seq4() AS n, seq4() * 2 AS m FROM TABLE(GENERATOR(ROWCOUNT => 1000000))"
                _report("1M rows x 2 cols fetchall", _timed(lambda: cur.execute(million).fetchall(), 5))
                _report("1M rows x 2 cols pandas", _timed(lambda: cur.execute(million).fetch_pandas_all(), 5))
                cur.execute("CREATE OR REPLACE TABLE bench (a INT, b VARCHAR)")
                _report(
                    "INSERT one row",
                    _timed(lambda: cur.execute("INSERT INTO bench VALUES (1, 'x')"), min(args.repeat, 50)),
                )
                _report(
                    "COUNT(*) after inserts",
                    _timed(lambda: cur.execute("SELECT COUNT(*) FROM bench").fetchall(), 20),
                )
        finally:
            server.stop()


if __name__ == "__main__":
    main()

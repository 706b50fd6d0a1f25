"""Command-line options of `embucket-py bench tpch|layout` (kept light: parsed before any heavy
import)."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path


def add_tpch_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--scale", type=float, default=1.0, help="TPC-H scale factor (default 1)")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per query after a warm-up")
    parser.add_argument("--queries", default="1-22", help="e.g. 1-22 or 1,3,6")
    parser.add_argument(
        "--generator",
        choices=("tpchgen", "dbgen"),
        default="tpchgen",
        help="tpchgen-cli (answers checked against DuckDB) or DuckDB's dbgen (checked against the "
        "TPC reference answers)",
    )
    parser.add_argument("--parts", type=int, default=4, help="Parquet files per large table")
    parser.add_argument("--work-dir", type=Path, default=Path(tempfile.gettempdir()) / "embucket-bench")
    parser.add_argument("--no-duckdb", action="store_true", help="skip the DuckDB comparison")
    parser.add_argument("--no-latency", action="store_true", help="skip latency and throughput")
    parser.add_argument("--concurrency-seconds", type=float, default=20.0)
    parser.add_argument("--json", type=Path, metavar="OUT", help="also write the results as JSON")


def add_layout_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rows", type=int, default=20_000_000, help="rows in the table (default 20M)")
    parser.add_argument("--boxes", type=int, default=20, help="random boxes per (columns, selectivity)")
    parser.add_argument("--work-dir", type=Path, default=Path(tempfile.gettempdir()) / "embucket-layout")
    parser.add_argument("--no-server", action="store_true", help="skip the connector timings and RECLUSTER")
    parser.add_argument("--json", type=Path, metavar="OUT", help="also write the results as JSON")


def add_variant_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rows", type=int, default=1_000_000, help="JSON objects in the table (default 1M)")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per query after a warm-up")
    parser.add_argument("--work-dir", type=Path, default=Path(tempfile.gettempdir()))
    parser.add_argument("--json", type=Path, metavar="OUT", help="also write the results as JSON")

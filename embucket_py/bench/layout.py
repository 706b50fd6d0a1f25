"""`embucket-py bench layout`: bytes read by range queries under four data layouts, sampling
cost and accuracy, RECLUSTER's rewrite amplification, and query times through the connector.

Bytes read are DataFusion's own scan metrics (Parquet row groups and pages actually fetched after
pruning by file, row-group and page statistics) over the same rows written four ways; the ideal is
the query's selectivity. Times come from the server, with each layout's files added to an Iceberg
table through the server's Iceberg REST catalog.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from datafusion import SessionConfig, SessionContext

from embucket_py.bench.layouts import LAYOUTS, generate, write
from embucket_py.bench.process import ServerProcess, environment
from embucket_py.engine.scan import ScanStats, execute
from embucket_py.layout.sampling import chosen_row_groups

KEY = ["a", "b", "ts"]
SELECTIVITIES = (0.001, 0.01, 0.1)
SCHEMA_SQL = "a FLOAT, b FLOAT, c INTEGER, ts TIMESTAMP_NTZ, amount FLOAT, qty INTEGER"


@dataclass(frozen=True)
class Box:
    predicate: str
    selectivity: float  # the true share of rows inside


def boxes(data: pa.Table, dims: int, selectivity: float, count: int, rng: random.Random) -> list[Box]:
    """Random boxes over `dims` of the key's columns, each side covering selectivity**(1/dims) of
    that column's distribution (so the box holds about `selectivity` of the rows)."""
    side = selectivity ** (1 / dims)
    columns = {c: _numbers(data.column(c)) for c in KEY}
    sorted_columns = {c: np.sort(v) for c, v in columns.items()}
    out = []
    for _ in range(count):
        terms, inside = [], np.ones(data.num_rows, dtype=bool)
        for c in rng.sample(KEY, dims):
            values = sorted_columns[c]
            low_q = rng.random() * (1 - side)
            last = len(values) - 1
            low, high = values[int(low_q * last)], values[int((low_q + side) * last)]
            terms.append(f"{c} BETWEEN {_literal(c, low)} AND {_literal(c, high)}")
            inside &= (columns[c] >= low) & (columns[c] <= high)
        out.append(Box(" AND ".join(terms), float(inside.mean())))
    return out


def _numbers(column: pa.ChunkedArray) -> np.ndarray:
    if pa.types.is_timestamp(column.type):
        return column.cast(pa.int64()).to_numpy()
    return column.to_numpy()


def _literal(column: str, value: float) -> str:
    if column == "ts":
        return f"'{np.datetime64(int(value), 'us')}'::TIMESTAMP"
    return repr(float(value))


def bytes_read(ctx: SessionContext, sql: str) -> int:
    frame = ctx.sql(sql)
    frame.session_context = ctx  # type: ignore[attr-defined]
    stats = ScanStats()
    for _ in execute(frame, stats):
        pass
    return stats.bytes_scanned


def _context(folders: dict[str, Path]) -> SessionContext:
    config = SessionConfig().set("datafusion.execution.parquet.pushdown_filters", "true")
    ctx = SessionContext(config)
    for name, folder in folders.items():
        ctx.register_parquet(name, str(folder))
    return ctx


def pruning(
    ctx: SessionContext, sizes: dict[str, int], workload: dict[tuple[int, float], list[Box]]
) -> list[dict]:
    rows = []
    for (dims, selectivity), group in workload.items():
        for layout in LAYOUTS:
            read = [
                bytes_read(ctx, f"SELECT COUNT(*), SUM(amount) FROM {layout} WHERE {b.predicate}")
                for b in group
            ]
            share = statistics.mean(read) / sizes[layout]
            ideal = statistics.mean(b.selectivity for b in group)
            rows.append({"columns": dims, "selectivity": selectivity, "layout": layout,
                         "bytes_read_share": share, "times_ideal": share / ideal})  # fmt: skip
    return rows


def sampling(paths: dict[str, list[Path]], data: pa.Table, runs: int = 20) -> list[dict]:
    """SAMPLE SYSTEM (p) as the engine runs it (each row group kept with probability p): bytes
    read, and how far the sample's means are from the table's, for a key column (`a`, clustered:
    the hard case for block sampling) and a column outside the key (`amount`)."""
    truth = {c: float(np.mean(data.column(c).to_numpy())) for c in ("a", "amount")}
    out = []
    for layout in ("unclustered", "cube"):
        files = [pq.ParquetFile(p) for p in paths[layout]]
        total = sum(p.stat().st_size for p in paths[layout])
        for percent in (1, 10):
            shares, errors = [], {c: [] for c in truth}
            for seed in range(runs):
                rng = random.Random(seed)
                read, parts = 0, []
                for f in files:
                    chosen = chosen_row_groups(f.metadata, percent, rng)
                    if chosen:
                        groups = [f.metadata.row_group(i) for i in chosen]
                        read += sum(
                            g.column(c).total_compressed_size for g in groups for c in range(g.num_columns)
                        )
                        parts.append(f.read_row_groups(chosen, columns=list(truth)))
                shares.append(read / total)
                sample = pa.concat_tables(parts) if parts else None
                for c, value in truth.items():
                    mean = float(np.mean(sample.column(c).to_numpy())) if sample else 0.0
                    errors[c].append(abs(mean - value) / abs(value))
            out.append({"layout": layout, "percent": percent, "bytes_read_share": statistics.mean(shares)}
                       | {f"mean_error_avg_{c}": statistics.mean(e) for c, e in errors.items()})  # fmt: skip
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    report: dict[str, Any] = {"environment": environment(), "rows": args.rows, "key": KEY}
    started = time.perf_counter()
    data = generate(args.rows)
    paths = {layout: _written(layout, data, args.work_dir / layout) for layout in LAYOUTS}
    sizes = {layout: sum(p.stat().st_size for p in files) for layout, files in paths.items()}
    print(f"{args.rows:,} rows, {sizes['unclustered'] / 1e6:.0f} MB per layout; written in "
          f"{time.perf_counter() - started:.0f} s")  # fmt: skip
    rng = random.Random(1)
    workload = {(d, s): boxes(data, d, s, args.boxes, rng) for d in (1, 2, 3) for s in SELECTIVITIES}
    ctx = _context({layout: args.work_dir / layout for layout in LAYOUTS})
    report["pruning"] = pruning(ctx, sizes, workload)
    _print_pruning(report["pruning"])
    report["sampling"] = sampling(paths, data)
    print("\nSAMPLE SYSTEM (p): share of bytes read; relative error of the sample's AVG (20 seeds)")
    for r in report["sampling"]:
        errors = f"AVG(a) {r['mean_error_avg_a']:6.2%}  AVG(amount) {r['mean_error_avg_amount']:6.2%}"
        print(f"  {r['layout']:<12} {r['percent']:>3}%  read {r['bytes_read_share']:6.1%}  {errors}")
    if not args.no_server:
        report.update(_through_server(args, paths, workload))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, default=str))
    return report


def _written(layout: str, data: pa.Table, folder: Path) -> list[Path]:
    """The layout's files, reused from an earlier run of the same size (the data is seeded)."""
    marker = folder / f".complete-{data.num_rows}"
    if marker.exists():
        return sorted(folder.glob("*.parquet"))
    for old in folder.glob("*.parquet"):
        old.unlink()
    paths = write(layout, data, KEY, folder)
    marker.touch()
    return paths


def _print_pruning(rows: list[dict]) -> None:
    print("\nbytes read / table bytes (x ideal = / selectivity), mean over the boxes")
    print(f"{'cols':>4} {'select':>7}  " + "  ".join(f"{layout:>20}" for layout in LAYOUTS))
    keyed = {(r["columns"], r["selectivity"], r["layout"]): r for r in rows}
    for dims in (1, 2, 3):
        for s in SELECTIVITIES:
            cells = []
            for layout in LAYOUTS:
                r = keyed[(dims, s, layout)]
                cells.append(f"{r['bytes_read_share']:8.2%} ({r['times_ideal']:6.1f}x)")
            print(f"{dims:>4} {s:>7.1%}  " + "  ".join(f"{c:>20}" for c in cells))


def _through_server(args: argparse.Namespace, paths: dict[str, list[Path]], workload: dict) -> dict[str, Any]:
    from pyiceberg.catalog.rest import RestCatalog

    out: dict[str, Any] = {}
    with ServerProcess(args.work_dir / "server") as server, server.connect() as conn:
        cur = conn.cursor()
        cur.execute("CREATE OR REPLACE DATABASE layout_bench")
        cur.execute("USE SCHEMA layout_bench.public")
        uri = f"http://127.0.0.1:{server.port}/iceberg"
        catalog = RestCatalog("layout_bench", uri=uri, warehouse="layout_bench",
                              credential=f"{server.user}:{server.password}",
                              **{"oauth2-server-uri": f"{uri}/v1/oauth/tokens"})  # fmt: skip
        for layout, files in paths.items():
            cur.execute(f"CREATE TABLE {layout} ({SCHEMA_SQL})")
            catalog.load_table(("public", layout)).add_files([str(p) for p in files])
        times: dict[str, dict[str, float]] = {}
        for (dims, selectivity), group in workload.items():
            if selectivity != 0.01:
                continue
            for layout in LAYOUTS:
                samples = []
                for b in group[:10]:
                    sql = f"SELECT COUNT(*), SUM(amount) FROM {layout} WHERE {b.predicate}"
                    start = time.perf_counter()
                    cur.execute(sql).fetchall()
                    samples.append(time.perf_counter() - start)
                times.setdefault(f"{dims} columns at 1%", {})[layout] = statistics.median(samples) * 1000
        out["connector_ms"] = times
        print("\nthrough the connector, median ms per box query (1% selectivity)")
        for label, per_layout in times.items():
            print(f"  {label:<18} " + "  ".join(f"{k} {v:7.1f}" for k, v in per_layout.items()))
        out["recluster"] = _recluster(cur, catalog)
        r = out["recluster"]
        print(f"\nRECLUSTER after ten 1% appends: {r['rewritten_bytes'] / 1e6:.1f} MB rewritten for "
              f"{r['appended_bytes'] / 1e6:.1f} MB appended: amplification {r['amplification']:.2f}x; "
              f"files {r['files_before']} -> {r['files_after']}")  # fmt: skip
    return out


def _recluster(cur: Any, catalog: Any) -> dict[str, Any]:
    cur.execute(f"CREATE TABLE recl ({SCHEMA_SQL}) CLUSTER BY ({', '.join(KEY)})")
    cur.execute("INSERT INTO recl SELECT * FROM unclustered")
    table = catalog.load_table(("public", "recl"))
    base = table.current_snapshot().snapshot_id
    for _ in range(10):
        cur.execute("INSERT INTO recl SELECT * FROM unclustered SAMPLE (1)")
    table = catalog.load_table(("public", "recl"))
    appended = sum(
        int(s.summary.additional_properties.get("added-files-size", 0))
        for s in table.snapshots()
        if s.snapshot_id != base
        and s.parent_snapshot_id is not None
        and s.sequence_number > _seq(table, base)
    )
    files_before = len(list(table.scan().plan_files()))
    cur.execute("ALTER TABLE recl RECLUSTER")
    table = catalog.load_table(("public", "recl"))
    summary = table.current_snapshot().summary.additional_properties
    rewritten = int(summary.get("added-files-size", 0))
    return {
        "appended_bytes": appended,
        "rewritten_bytes": rewritten,
        "amplification": rewritten / appended if appended else float("nan"),
        "files_before": files_before,
        "files_after": len(list(table.scan().plan_files())),
    }


def _seq(table: Any, snapshot_id: int) -> int:
    return int(table.snapshot_by_id(snapshot_id).sequence_number)

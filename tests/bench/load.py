"""Benchmark: bulk loading through COPY (the `embucket-py load` path). Prints numbers; asserts nothing.

    .venv/bin/python -m tests.bench.load [--mb 500] [--workdir /tmp/load-bench]

Generates a CSV of about `--mb` megabytes (5 columns: INT, VARCHAR, NUMBER(12,2), DATE,
TIMESTAMP_NTZ) and the same rows as Parquet, then loads each into a fresh table with
`embucket-py load` in a child process, and reports wall time, MB/s, rows/s and the child's peak
resident memory (ru_maxrss), which is what bounded streaming is meant to keep flat.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv
import pyarrow.parquet as pq

BATCH_ROWS = 1_000_000
CREATE = (
    "from embucket_py.catalog.metastore import Metastore; from embucket_py.engine.executor import Engine; "
    "from embucket_py.sessions.session import Session; import sys; "
    "d = sys.argv[1]; m = Metastore(f'sqlite:///{d}/metastore.db', f'file://{d}/warehouse'); "
    "e = Engine(m, {}); e.bootstrap('EMBUCKET', 'PUBLIC'); "
    "s = Session(user='EMBUCKET', account='embucket', database='EMBUCKET', schema='PUBLIC'); "
    "[e.execute(s, st) for st in e.prepare(sys.argv[2])]"
)
TABLE = (
    "CREATE OR REPLACE TABLE {name} (id INT, name VARCHAR, amount NUMBER(12, 2), day DATE, ts TIMESTAMP_NTZ)"
)


def _batch(start: int, rows: int) -> pa.RecordBatch:
    ids = pa.array(range(start, start + rows), pa.int64())
    names = pc.binary_join_element_wise("name-", pc.cast(ids, pa.string()), "")
    amounts = pc.cast(pc.divide(pc.cast(pc.multiply(ids, 7), pa.float64()), 100.0), pa.decimal128(12, 2))
    days = pc.cast(pc.cast(pc.add(pc.divide(ids, 1000), 18000), pa.int32()), pa.date32())
    stamps = pc.cast(pc.multiply(ids, 1_000_000), pa.timestamp("us"))
    return pa.RecordBatch.from_arrays(
        [ids, names, amounts, days, stamps], ["ID", "NAME", "AMOUNT", "DAY", "TS"]
    )


def generate(directory: Path, megabytes: int) -> tuple[Path, Path, int]:
    csv_path, parquet_path = directory / "bench.csv", directory / "bench.parquet"
    rows = 0
    schema = _batch(0, 1).schema
    with pcsv.CSVWriter(csv_path, schema, write_options=pcsv.WriteOptions(include_header=False)) as csv_out, \
            pq.ParquetWriter(parquet_path, schema) as parquet_out:  # fmt: skip
        while csv_path.stat().st_size < megabytes * 1_000_000:
            batch = _batch(rows, BATCH_ROWS)
            csv_out.write_batch(batch)
            parquet_out.write_batch(batch)
            rows += BATCH_ROWS
    return csv_path, parquet_path, rows


def _run(args: list[str]) -> None:
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)


def _peak(args: list[str]) -> tuple[float, int]:
    """Seconds and peak RSS (bytes) of one child process, measured for that child alone."""
    start = time.perf_counter()
    child = subprocess.Popen(args, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise SystemExit(f"{args} failed with {child.returncode}")
    return time.perf_counter() - start, usage.ru_maxrss * 1024


def load(data_dir: Path, path: Path, table: str) -> tuple[float, int]:
    """Seconds and peak RSS (bytes) of one `embucket-py load` child."""
    _run([sys.executable, "-c", CREATE, str(data_dir), TABLE.format(name=table)])
    command = [sys.executable, "-m", "embucket_py", "load", str(path), table, "--data-dir", str(data_dir)]
    return _peak([*command, "--quiet"])


def baseline() -> int:
    """Peak RSS of a child that only imports the engine (what any load costs before data)."""
    return _peak([sys.executable, "-c", "import embucket_py.engine.bulk_load"])[1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=500, help="size of the generated CSV")
    parser.add_argument("--workdir", default=None)
    args = parser.parse_args()
    work = Path(args.workdir or tempfile.mkdtemp(prefix="load-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    csv_path, parquet_path, rows = generate(work, args.mb)
    print(f"generated {rows:,} rows: CSV {csv_path.stat().st_size / 1e6:,.0f} MB, "
          f"Parquet {parquet_path.stat().st_size / 1e6:,.0f} MB")  # fmt: skip
    print(f"baseline (imports only) peak RSS {baseline() / 1e6:,.0f} MB")
    for label, path in (("csv", csv_path), ("parquet", parquet_path)):
        data_dir = work / f"data-{label}"
        seconds, peak = load(data_dir, path, f"bench_{label}")
        size = os.path.getsize(path) / 1e6
        print(f"{label:8} {seconds:7.1f} s  {size / seconds:7.1f} MB/s  {rows / seconds:12,.0f} rows/s  "
              f"peak RSS {peak / 1e6:,.0f} MB")  # fmt: skip


if __name__ == "__main__":
    main()

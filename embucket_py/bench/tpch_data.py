"""TPC-H data as Parquet, loaded through the server with PUT + COPY INTO.

Two generators: tpchgen-cli (fast, the default) and DuckDB's dbgen. Only dbgen's text columns
(names, addresses, comments) are byte-identical to the TPC's own dbgen, so only its data can be
checked against the published reference answers; tpchgen-cli data is checked against DuckDB.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

from snowflake.connector import SnowflakeConnection

# Snowflake column types per the TPC-H specification (identifiers INTEGER, money NUMBER(15,2)).
TABLES: dict[str, str] = {
    "region": "r_regionkey INTEGER, r_name VARCHAR(25), r_comment VARCHAR(152)",
    "nation": "n_nationkey INTEGER, n_name VARCHAR(25), n_regionkey INTEGER, n_comment VARCHAR(152)",
    "part": "p_partkey INTEGER, p_name VARCHAR(55), p_mfgr VARCHAR(25), p_brand VARCHAR(10), "
    "p_type VARCHAR(25), p_size INTEGER, p_container VARCHAR(10), p_retailprice NUMBER(15,2), "
    "p_comment VARCHAR(23)",
    "supplier": "s_suppkey INTEGER, s_name VARCHAR(25), s_address VARCHAR(40), s_nationkey INTEGER, "
    "s_phone VARCHAR(15), s_acctbal NUMBER(15,2), s_comment VARCHAR(101)",
    "partsupp": "ps_partkey INTEGER, ps_suppkey INTEGER, ps_availqty INTEGER, "
    "ps_supplycost NUMBER(15,2), ps_comment VARCHAR(199)",
    "customer": "c_custkey INTEGER, c_name VARCHAR(25), c_address VARCHAR(40), c_nationkey INTEGER, "
    "c_phone VARCHAR(15), c_acctbal NUMBER(15,2), c_mktsegment VARCHAR(10), c_comment VARCHAR(117)",
    "orders": "o_orderkey INTEGER, o_custkey INTEGER, o_orderstatus VARCHAR(1), "
    "o_totalprice NUMBER(15,2), o_orderdate DATE, o_orderpriority VARCHAR(15), o_clerk VARCHAR(15), "
    "o_shippriority INTEGER, o_comment VARCHAR(79)",
    "lineitem": "l_orderkey INTEGER, l_partkey INTEGER, l_suppkey INTEGER, l_linenumber INTEGER, "
    "l_quantity NUMBER(15,2), l_extendedprice NUMBER(15,2), l_discount NUMBER(15,2), "
    "l_tax NUMBER(15,2), l_returnflag VARCHAR(1), l_linestatus VARCHAR(1), l_shipdate DATE, "
    "l_commitdate DATE, l_receiptdate DATE, l_shipinstruct VARCHAR(25), l_shipmode VARCHAR(10), "
    "l_comment VARCHAR(44)",
}


def generate(scale: float, out: Path, parts: int, generator: str = "tpchgen") -> Path:
    """Parquet files under out/<generator>-sf<scale>/<table>/ (kept between runs: generation is
    deterministic)."""
    target = out / f"{generator}-sf{scale:g}"
    if (target / "lineitem").is_dir():
        return target
    tmp = out / f".{target.name}.partial"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    if generator == "dbgen":
        _dbgen(scale, tmp)
    else:
        cli = shutil.which("tpchgen-cli") or str(Path(sys.executable).parent / "tpchgen-cli")
        subprocess.run(
            [cli, "parquet", "-s", f"{scale:g}", f"--parts={parts}", f"--output-dir={tmp}"],
            check=True,
        )
    for table in TABLES:  # tables too small to split come out as single files
        single = tmp / f"{table}.parquet"
        if single.exists():
            (tmp / table).mkdir(exist_ok=True)
            single.rename(tmp / table / f"{table}.1.parquet")
    tmp.rename(target)
    return target


def _dbgen(scale: float, out: Path) -> None:
    from embucket_py.bench.answers import duckdb_connection

    con = duckdb_connection()
    con.sql(f"CALL dbgen(sf = {scale})")
    for table in TABLES:
        con.sql(f"COPY {table} TO '{out / table}.parquet' (FORMAT PARQUET)")


def load(conn: SnowflakeConnection, files: Path) -> dict[str, float]:
    """Creates the tables and loads each with PUT to a stage + one COPY INTO; seconds per table."""
    cur = conn.cursor()
    cur.execute("CREATE OR REPLACE STAGE tpch_files")
    seconds = {}
    for table, columns in TABLES.items():
        start = time.perf_counter()
        cur.execute(f"CREATE OR REPLACE TABLE {table} ({columns})")
        cur.execute(f"PUT 'file://{files / table}/*.parquet' @tpch_files/{table}/ AUTO_COMPRESS=FALSE")
        cur.execute(
            f"COPY INTO {table} FROM @tpch_files/{table}/ FILE_FORMAT = (TYPE = PARQUET) "
            "MATCH_BY_COLUMN_NAME = CASE_INSENSITIVE"
        )
        seconds[table] = time.perf_counter() - start
    return seconds

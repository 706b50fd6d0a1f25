"""Command line: `embucket-py serve` (and `--help` for every setting), `embucket-py spark-job`."""

from __future__ import annotations

import argparse
import logging
from dataclasses import fields

from embucket_py.config import Settings, load_settings, parse_bool


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="embucket-py", description="Snowflake-compatible lakehouse server")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="run the server")
    for f in fields(Settings):
        kind = {"int": int, "float": float, "bool": parse_bool}.get(str(f.type), str)
        serve.add_argument(
            f"--{f.name.replace('_', '-')}",
            dest=f.name,
            type=kind,
            default=None,
            help=f"{f.metadata.get('help', '')} (env EMBUCKET_{f.name.upper()}, default {f.default!r})",
        )
    job = commands.add_parser("spark-job", help="run a Spark batch job against a running server")
    job.add_argument("job", help="medallion, maintenance, recluster, sample-events or shell")
    job.add_argument("args", nargs=argparse.REMAINDER, help="job options (--help for the job's)")
    load = commands.add_parser("load", help="load local files into a table (COPY INTO, with progress)")
    load.add_argument("files", help="a file or a glob, e.g. 'data/*.csv.gz'")
    load.add_argument("table", help="target table: name, schema.name or database.schema.name")
    load.add_argument("--format", default="", help="CSV, JSON or PARQUET (default: by file extension)")
    load.add_argument("--format-options", default="", help='file format options, e.g. "SKIP_HEADER=1"')
    load.add_argument("--copy-options", default="", help='COPY options, e.g. "ON_ERROR=CONTINUE"')
    load.add_argument("--quiet", action="store_true", help="no progress bar")
    for name in ("data_dir", "metastore_uri", "warehouse", "user", "default_database", "default_schema"):
        load.add_argument(f"--{name.replace('_', '-')}", dest=name, default=None)
    maintenance = commands.add_parser("maintenance", help="offline maintenance of the data directory")
    tasks = maintenance.add_subparsers(dest="task", required=True)
    orphans = tasks.add_parser("remove-orphans", help="delete files no Iceberg snapshot references")
    orphans.add_argument("--older-than", type=float, default=3 * 24 * 3600, help="grace period, seconds")
    orphans.add_argument("--dry-run", action="store_true", help="only list the files")
    for name in ("data_dir", "metastore_uri", "warehouse"):
        orphans.add_argument(f"--{name.replace('_', '-')}", dest=name, default=None)
    bench = commands.add_parser("bench", help="benchmarks (needs the bench extra)")
    suites = bench.add_subparsers(dest="suite", required=True)
    from embucket_py.bench.options import add_layout_arguments, add_tpch_arguments, add_variant_arguments

    add_tpch_arguments(
        suites.add_parser("tpch", help="TPC-H through the server vs raw DataFusion and DuckDB")
    )
    add_layout_arguments(suites.add_parser("layout", help="bytes read under four data layouts, sampling"))
    add_variant_arguments(suites.add_parser("variant", help="JSON in a VARIANT column vs DuckDB"))
    return parser


def main(argv: list[str] | None = None) -> None:
    args = _parser().parse_args(argv)
    if args.command == "serve":
        overrides = {k: v for k, v in vars(args).items() if k != "command"}
        settings = load_settings(overrides)
        logging.basicConfig(
            level=settings.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
        )
        from embucket_py.server.app import serve

        serve(settings)
    elif args.command == "spark-job":
        from embucket_py.spark.runner import run_job

        raise SystemExit(run_job(args.job, args.args))
    elif args.command == "load":
        from embucket_py.load_command import run_load

        raise SystemExit(run_load(args))
    elif args.command == "bench" and args.suite == "layout":
        from embucket_py.bench.layout import run as run_layout

        run_layout(args)
    elif args.command == "bench" and args.suite == "variant":
        from embucket_py.bench.variant import run as run_variant

        run_variant(args)
    elif args.command == "maintenance":
        raise SystemExit(_remove_orphans(args))
    elif args.command == "bench":
        from embucket_py.bench.tpch import run

        run(args)


def _remove_orphans(args: argparse.Namespace) -> int:
    """`maintenance remove-orphans`: prints what it removed; exit 1 if some table would not load."""
    from embucket_py.catalog.metastore import Metastore
    from embucket_py.engine.maintenance import remove_orphan_files

    overrides = {k: getattr(args, k) for k in ("data_dir", "metastore_uri", "warehouse")}
    settings = load_settings(overrides)
    metastore = Metastore(settings.resolved_metastore_uri, settings.resolved_warehouse)
    report = remove_orphan_files(metastore, args.older_than, args.dry_run)
    verb = "would remove" if report.dry_run else "removed"
    for path in report.removed:
        print(f"{verb} {path}")
    for name, error in report.failed_tables.items():
        print(f"cannot read table {name}: {error}")
    print(
        f"{report.tables} tables, {report.referenced} referenced files, {len(report.removed)} orphans "
        f"{verb}, {report.kept_young} younger than the grace period kept"
    )
    return 1 if report.failed_tables else 0

"""`embucket-py spark-job <job> [options]`: one SparkSession on the server's REST catalog, one job."""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from collections.abc import Callable

from embucket_py.spark.jobs import JOBS

Progress = Callable[[str], None]


def progress_printer(job: str) -> Progress:
    start = time.monotonic()

    def say(message: str) -> None:
        print(f"[{job} {time.monotonic() - start:7.1f}s] {message}", flush=True)

    return say


def job_parser(job: str) -> argparse.ArgumentParser:
    module = importlib.import_module(JOBS[job])
    parser = argparse.ArgumentParser(prog=f"embucket-py spark-job {job}", description=module.__doc__)
    server = parser.add_argument_group("server (defaults from EMBUCKET_* environment)")
    server.add_argument("--url", help="server URL (default http://127.0.0.1:$EMBUCKET_PORT or :3000)")
    server.add_argument("--user", help="user (default $EMBUCKET_USER or embucket)")
    server.add_argument("--password", help="password (default $EMBUCKET_PASSWORD or embucket)")
    server.add_argument("--database", help="Snowflake database = Spark catalog (default EMBUCKET)")
    server.add_argument("--master", help="Spark master (default local[2])")
    server.add_argument("--jars", default="", help="comma-separated extra jars (e.g. iceberg-aws-bundle)")
    server.add_argument(
        "--conf", action="append", default=[], metavar="KEY=VALUE", help="extra Spark setting (repeatable)"
    )
    module.add_arguments(parser)
    return parser


def run_job(job: str, argv: list[str]) -> int:
    if job not in JOBS:
        print(f"unknown job {job!r}; jobs: {', '.join(sorted(JOBS))}", file=sys.stderr)
        return 2
    args = job_parser(job).parse_args(argv)
    module = importlib.import_module(JOBS[job])
    say = progress_printer(job)
    if not getattr(module, "NEEDS_SPARK", True):
        module.run(None, None, args, say)
        return 0
    from embucket_py.spark.session import SparkTarget, catalog_alias, timed_session

    target = SparkTarget.from_env(
        url=args.url,
        user=args.user,
        password=args.password,
        databases=(args.database,) if args.database else None,
        master=args.master,
        app_name=f"embucket-py {job}",
        conf=dict(item.split("=", 1) for item in args.conf),
        extra_jars=tuple(j for j in args.jars.split(",") if j),
    )
    say(f"starting Spark ({target.master}) on {target.url}/iceberg, database {target.databases[0]}")
    spark, seconds = timed_session(target)
    spark.sparkContext.setLogLevel("WARN")
    say(f"Spark session ready in {seconds:.1f}s")
    try:
        module.run(spark, catalog_alias(target.databases[0]), args, say)
    finally:
        spark.stop()
    say("done")
    return 0

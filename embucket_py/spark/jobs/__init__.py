"""Spark batch jobs, each runnable as `embucket-py spark-job <name> ...`.

A job module defines `add_arguments(parser)` and `run(spark, catalog, args, progress)`; the runner
(embucket_py/spark/runner.py) builds the session and reports timings.
"""

from __future__ import annotations

JOBS = {
    "medallion": "embucket_py.spark.jobs.medallion",
    "maintenance": "embucket_py.spark.jobs.maintenance",
    "recluster": "embucket_py.spark.jobs.recluster",
    "sample-events": "embucket_py.spark.jobs.sample_events",
    "shell": "embucket_py.spark.jobs.shell",
}

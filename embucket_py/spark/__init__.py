"""Spark on the server's own Iceberg REST catalog: `spark_session()` and batch jobs (jobs/).

Needs the `spark` extra (pyspark, the Iceberg runtime jar) and Debian's libhttpclient5-java and
libhttpcore5-java; jars.py relocates what the runtime jar expects, once.
"""

from __future__ import annotations

from embucket_py.spark.session import SparkTarget, spark_session

__all__ = ["SparkTarget", "spark_session"]

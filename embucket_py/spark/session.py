"""A SparkSession wired to a running embucket_py server's Iceberg REST catalog.

One Spark catalog per Snowflake database (the REST "warehouse"): with `databases=["EMBUCKET"]`,
Spark writes `embucket.public.orders`, which Snowflake clients query as EMBUCKET.PUBLIC.ORDERS.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from embucket_py import naming
from embucket_py.spark.jars import spark_jars

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@dataclass(frozen=True)
class SparkTarget:
    """Where the server is and who we are to it."""

    url: str = "http://127.0.0.1:3000"
    user: str = "embucket"
    password: str = "embucket"
    databases: tuple[str, ...] = ("EMBUCKET",)
    master: str = "local[2]"
    app_name: str = "embucket-py"
    conf: dict[str, str] = field(default_factory=dict)
    # More jars, e.g. iceberg-aws-bundle for s3:// tables (not obtainable here, see the README note).
    extra_jars: tuple[str, ...] = ()

    @classmethod
    def from_env(cls, **overrides: object) -> SparkTarget:
        """Defaults < EMBUCKET_* environment (the server's own settings) < explicit overrides."""
        env = os.environ
        port = env.get("EMBUCKET_PORT", "3000")
        values: dict[str, object] = {
            "url": env.get("EMBUCKET_URL", f"http://127.0.0.1:{port}"),
            "user": env.get("EMBUCKET_USER", "embucket"),
            "password": env.get("EMBUCKET_PASSWORD", "embucket"),
            "databases": (env.get("EMBUCKET_DEFAULT_DATABASE", "EMBUCKET"),),
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)  # type: ignore[arg-type]


def catalog_alias(database: str) -> str:
    """The Spark catalog name of a database: its stored (Iceberg) name."""
    return naming.stored(database)


def spark_conf(target: SparkTarget) -> dict[str, str]:
    jars = ",".join([*(str(p) for p in spark_jars()), *target.extra_jars])
    conf = {
        "spark.master": target.master,
        "spark.app.name": target.app_name,
        "spark.jars": jars,
        "spark.sql.extensions": "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.driver.host": "127.0.0.1",
        # Small local jobs: few shuffle partitions, session timezone fixed for reproducible output.
        "spark.sql.shuffle.partitions": "4",
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.adaptive.enabled": "true",
    }
    for database in target.databases:
        conf.update(catalog_conf(target, database))
    if target.databases:
        conf["spark.sql.defaultCatalog"] = catalog_alias(target.databases[0])
    conf.update(target.conf)
    return conf


def catalog_conf(target: SparkTarget, database: str) -> dict[str, str]:
    """Settings of the Spark catalog of one database (they may also be set on a running session)."""
    prefix = f"spark.sql.catalog.{catalog_alias(database)}"
    uri = target.url.rstrip("/") + "/iceberg"
    return {
        prefix: "org.apache.iceberg.spark.SparkCatalog",
        f"{prefix}.type": "rest",
        f"{prefix}.uri": uri,
        f"{prefix}.warehouse": naming.stored(database),
        # OAuth2 client credentials: the server's user and password.
        f"{prefix}.rest.auth.type": "oauth2",
        f"{prefix}.oauth2-server-uri": uri + "/v1/oauth/tokens",
        f"{prefix}.credential": f"{target.user}:{target.password}",
        f"{prefix}.scope": "catalog",
        # Other writers (the SQL side) commit to the same tables: never serve stale metadata.
        f"{prefix}.cache-enabled": "false",
    }


def add_catalog(spark: SparkSession, target: SparkTarget, database: str) -> str:
    """Wires one more database into a running session; returns its catalog name."""
    for key, value in catalog_conf(target, database).items():
        spark.conf.set(key, value)
    return catalog_alias(database)


def spark_session(target: SparkTarget | None = None, **overrides: object) -> SparkSession:
    """Gets or creates the SparkSession for `target` (default: from the EMBUCKET_* environment)."""
    from pyspark.sql import SparkSession

    # Spark otherwise resolves the host name and may bind a public interface.
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    # Python workers (mapInArrow in the recluster job) need this interpreter and its packages.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    target = target or SparkTarget.from_env(**overrides)
    builder = SparkSession.builder
    for key, value in spark_conf(target).items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


def timed_session(target: SparkTarget | None = None, **overrides: object) -> tuple[SparkSession, float]:
    """The session and the seconds it took to start (reported by jobs and tests)."""
    start = time.monotonic()
    session = spark_session(target, **overrides)
    return session, time.monotonic() - start

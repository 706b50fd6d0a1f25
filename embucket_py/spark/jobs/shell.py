"""An interactive Python shell with `spark` wired to the server's REST catalog (one catalog per
database, the first one the default): try `spark.sql("SHOW NAMESPACES").show()`."""

from __future__ import annotations

import argparse
import code
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def add_arguments(parser: argparse.ArgumentParser) -> None:
    return None


def run(spark: SparkSession, catalog: str, args: argparse.Namespace, say: Callable[[str], None]) -> None:
    banner = f"spark: SparkSession, default catalog {catalog!r} (e.g. spark.sql('SHOW TABLES IN public'))"
    code.interact(banner=banner, local={"spark": spark, "catalog": catalog}, exitmsg="")

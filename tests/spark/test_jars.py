"""The relocated jars Spark's Iceberg REST client needs, built from installed packages."""

from __future__ import annotations

import zipfile

from embucket_py.spark import jars


def test_relocated_jars_hold_what_the_runtime_references() -> None:
    runtime, jackson, http = jars.spark_jars()
    assert runtime.name == jars.RUNTIME_JAR
    with zipfile.ZipFile(jackson) as z:
        names = set(z.namelist())
        assert "org/apache/iceberg/shaded/com/fasterxml/jackson/databind/ObjectMapper.class" in names
        assert not any(n.startswith("com/fasterxml/") for n in names)
        mapper = z.read("org/apache/iceberg/shaded/com/fasterxml/jackson/databind/ObjectMapper.class")
        assert b"org/apache/iceberg/shaded/com/fasterxml/jackson/core/" in mapper
        assert b"Lcom/fasterxml/jackson/" not in mapper
    with zipfile.ZipFile(http) as z:
        names = set(z.namelist())
        assert "org/apache/iceberg/shaded/org/apache/hc/core5/http/Method.class" in names
        assert "org/apache/iceberg/shaded/org/apache/hc/client5/http/ssl/TlsSocketStrategy.class" in names
    # Cached: a second call builds nothing and returns the same files.
    assert jars.spark_jars() == [runtime, jackson, http]

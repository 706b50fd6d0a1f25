"""The jars Spark needs for Iceberg's REST catalog, found in installed packages and built once.

The Iceberg Spark runtime jar from PyPI (`snowpark-connect-deps-iceberg`) references relocated
Jackson (`org.apache.iceberg.shaded.com.fasterxml.jackson`) and relocated Apache HttpClient 5
(`org.apache.iceberg.shaded.org.apache.hc`) but ships neither. We build both by relocating
pyspark's own Jackson jars and Debian's httpclient5/httpcore5 jars (libhttpclient5-java,
libhttpcore5-java): entry names, class-file constant pools and service files are rewritten.
Results are cached under a content key, so the work happens once per machine.
See shared/design/iceberg-rest-catalog.md section 8.
"""

from __future__ import annotations

import hashlib
import io
import os
import struct
import zipfile
from dataclasses import dataclass
from pathlib import Path

RUNTIME_JAR = "iceberg-spark-runtime-3.5_2.12-1.10.2.jar"
JACKSON_JARS = ("jackson-core-*.jar", "jackson-databind-*.jar", "jackson-annotations-*.jar")
DEBIAN_JAVA_DIR = Path("/usr/share/java")
# Versioned names (symlinks in Debian) pin the 5.x line.
HTTPCLIENT_JARS = ("httpclient5-5.*.jar", "httpcore5-5.*.jar", "httpcore5-h2-5.*.jar")
DEBIAN_PACKAGES = ("libhttpclient5-java", "libhttpcore5-java")
SHADED = "org/apache/iceberg/shaded/"
# Bump when the relocation output changes, so stale caches are rebuilt.
_FORMAT = "1"


class JarSetupError(RuntimeError):
    """A part Spark needs is not installed."""


@dataclass(frozen=True)
class Relocation:
    prefix: str  # slash form, e.g. "com/fasterxml/jackson/"

    def rename(self, data: bytes) -> bytes:
        slash, dot = self.prefix, self.prefix.replace("/", ".")
        data = data.replace(slash.encode(), (SHADED + slash).encode())
        return data.replace(dot.encode(), (SHADED + slash).replace("/", ".").encode())


JACKSON = Relocation("com/fasterxml/jackson/")
HTTPCLIENT = Relocation("org/apache/hc/")


def cache_dir() -> Path:
    """Where built jars live: $EMBUCKET_SPARK_JARS, else `.spark-jars/` beside the package (git-ignored)."""
    configured = os.environ.get("EMBUCKET_SPARK_JARS")
    if configured:
        return Path(configured)
    beside = Path(__file__).resolve().parents[2] / ".spark-jars"
    if os.access(beside.parent, os.W_OK):
        return beside
    return Path.home() / ".cache" / "embucket_py" / "spark-jars"


def runtime_jar() -> Path:
    try:
        import snowpark_connect_deps_iceberg as deps
    except ImportError:
        raise JarSetupError("install the spark extra: pip install 'embucket-py[spark]'") from None
    return Path(deps.get_jar_path(RUNTIME_JAR))


def pyspark_jars_dir() -> Path:
    try:
        import pyspark
    except ImportError:
        raise JarSetupError("install the spark extra: pip install 'embucket-py[spark]'") from None
    return Path(pyspark.__file__).parent / "jars"


def _find(directory: Path, patterns: tuple[str, ...], what: str) -> list[Path]:
    found = []
    for pattern in patterns:
        matches = sorted(directory.glob(pattern))
        if not matches:
            raise JarSetupError(f"{what}: no {pattern} in {directory}")
        found.append(matches[0])
    return found


def jackson_inputs() -> list[Path]:
    return _find(pyspark_jars_dir(), JACKSON_JARS, "Jackson (from pyspark)")


def httpclient_inputs() -> list[Path]:
    hint = f"apt-get install -y --no-install-recommends {' '.join(DEBIAN_PACKAGES)}"
    return _find(DEBIAN_JAVA_DIR, HTTPCLIENT_JARS, f"Apache HttpClient 5 ({hint})")


def spark_jars() -> list[Path]:
    """The three jars for `spark.jars`, building the relocated ones on first use."""
    runtime = runtime_jar()
    jackson = jackson_inputs()
    http = httpclient_inputs()
    key = hashlib.sha256(
        repr([_FORMAT, *((p.name, p.stat().st_size) for p in (*jackson, *http))]).encode()
    ).hexdigest()[:12]
    target = cache_dir() / key
    out_jackson = target / "iceberg-jackson.jar"
    out_http = target / "iceberg-httpclient5.jar"
    if not out_jackson.exists():
        relocate(jackson, out_jackson, JACKSON)
    if not out_http.exists():
        extra = {"org/apache/hc/client5/http/ssl/TlsSocketStrategy.class": _empty_interface(_TLS_STRATEGY)}
        relocate(http, out_http, HTTPCLIENT, extra)
    return [runtime, out_jackson, out_http]


def relocate(
    inputs: list[Path], output: Path, relocation: Relocation, extra: dict[str, bytes] | None = None
) -> None:
    """Writes one jar holding every entry of `inputs` (first copy wins), relocated. Atomic."""
    output.parent.mkdir(parents=True, exist_ok=True)
    tmp = output.with_suffix(f".{os.getpid()}.tmp")
    seen: set[str] = set()
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as out:
        sources: list[tuple[str, bytes]] = list((extra or {}).items())
        for jar in inputs:
            with zipfile.ZipFile(jar) as zin:
                sources.extend(
                    (info.filename, zin.read(info)) for info in zin.infolist() if not info.is_dir()
                )
        for name, data in sources:
            if name == "META-INF/MANIFEST.MF" or name.endswith("module-info.class"):
                continue
            if name.endswith(".class"):
                data = relocate_class(data, relocation)
            elif name.startswith("META-INF/services/"):
                data = relocation.rename(data)
            new_name = relocation.rename(name.encode()).decode()
            if new_name in seen:
                continue
            seen.add(new_name)
            out.writestr(new_name, data)
    tmp.replace(output)


# Byte widths of constant-pool entries other than Utf8 (JVMS 4.4).
_CP_WIDTHS = {3: 4, 4: 4, 5: 8, 6: 8, 7: 2, 8: 2, 9: 4, 10: 4, 11: 4, 12: 4, 15: 3, 16: 2, 17: 4, 18: 4}
_CP_WIDTHS.update({19: 2, 20: 2})


def relocate_class(data: bytes, relocation: Relocation) -> bytes:
    """Rewrites every Utf8 constant of a class file; the rest of the file is position-independent."""
    if data[:4] != b"\xca\xfe\xba\xbe":
        return data
    count = struct.unpack_from(">H", data, 8)[0]
    out = io.BytesIO()
    out.write(data[:10])
    pos, index = 10, 1
    while index < count:
        tag = data[pos]
        if tag == 1:
            length = struct.unpack_from(">H", data, pos + 1)[0]
            text = relocation.rename(data[pos + 3 : pos + 3 + length])
            out.write(struct.pack(">BH", 1, len(text)) + text)
            pos += 3 + length
        else:
            width = _CP_WIDTHS[tag]
            out.write(data[pos : pos + 1 + width])
            pos += 1 + width
            if tag in (5, 6):  # longs and doubles take two slots
                index += 1
        index += 1
    out.write(data[pos:])
    return out.getvalue()


_TLS_STRATEGY = "org/apache/hc/client5/http/ssl/TlsSocketStrategy"


def _empty_interface(name: str) -> bytes:
    """A public empty interface. Iceberg 1.10 builds against HttpClient 5.5, Debian has 5.2, which
    lacks this type; the verifier needs the name, and only an unused code path would call it."""

    def utf8(s: str) -> bytes:
        return struct.pack(">BH", 1, len(s)) + s.encode()

    pool = struct.pack(">BH", 7, 2) + utf8(name) + struct.pack(">BH", 7, 4) + utf8("java/lang/Object")
    return (
        b"\xca\xfe\xba\xbe"
        + struct.pack(">HHH", 0, 55, 5)
        + pool
        + struct.pack(">HHHHHHH", 0x0601, 1, 3, 0, 0, 0, 0)
    )

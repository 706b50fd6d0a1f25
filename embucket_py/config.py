"""One settings object: embedded defaults < EMBUCKET_* environment variables < command-line flags."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

# Snowflake's own default for the TIMEZONE session parameter.
# https://docs.snowflake.com/en/sql-reference/parameters#timezone
SNOWFLAKE_DEFAULT_TIMEZONE = "America/Los_Angeles"


@dataclass(frozen=True)
class Settings:
    """Every setting of the server. Each one is `EMBUCKET_<NAME>` in the environment and `--<name>`."""

    host: str = field(default="127.0.0.1", metadata={"help": "address to listen on"})
    port: int = field(default=3000, metadata={"help": "port to listen on"})
    data_dir: str = field(
        default="embucket-data",
        metadata={"help": "directory holding the SQLite metastore and the file:// warehouse"},
    )
    metastore_uri: str = field(
        default="",
        metadata={"help": "SQLAlchemy URI of the metastore (default: sqlite in the data directory)"},
    )
    warehouse: str = field(
        default="", metadata={"help": "where table files live (default: file:// in the data directory)"}
    )
    s3_endpoint: str = field(
        default="",
        metadata={"help": "S3 endpoint of an s3:// warehouse, e.g. http://127.0.0.1:8333 (empty: AWS)"},
    )
    s3_region: str = field(default="us-east-1", metadata={"help": "S3 region of an s3:// warehouse"})
    s3_access_key_id: str = field(default="", metadata={"help": "S3 access key id of an s3:// warehouse"})
    s3_secret_access_key: str = field(
        default="", repr=False, metadata={"help": "S3 secret access key of an s3:// warehouse (never logged)"}
    )
    secret: str = field(
        default="",
        repr=False,
        metadata={
            "help": "shared secret of several servers on one metastore: sessions, results and "
            "Iceberg REST tokens then live in the metastore, valid on every server"
        },
    )
    user: str = field(default="embucket", metadata={"help": "user created on first start"})
    password: str = field(default="embucket", metadata={"help": "password of that user (stored hashed)"})
    account: str = field(default="embucket", metadata={"help": "account name reported to clients"})
    default_database: str = field(default="EMBUCKET", metadata={"help": "database created on first start"})
    default_schema: str = field(default="PUBLIC", metadata={"help": "schema created in it"})
    timezone: str = field(
        default=SNOWFLAKE_DEFAULT_TIMEZONE, metadata={"help": "default TIMEZONE session parameter"}
    )
    session_ttl: int = field(default=3600, metadata={"help": "session token lifetime in seconds"})
    master_ttl: int = field(default=14400, metadata={"help": "master token lifetime in seconds"})
    sync_wait: float = field(
        default=30.0,
        metadata={"help": "seconds a query-request waits for its statement before the client polls"},
    )
    result_ttl: int = field(default=86400, metadata={"help": "seconds results stay downloadable"})
    result_memory_mb: int = field(
        default=1024,
        metadata={"help": "memory downloadable results may hold; older ones move to disk beyond it"},
    )
    reused_results_mb: int = field(
        default=256,
        metadata={"help": "memory kept query results may hold for reuse (USE_CACHED_RESULT); 0: none"},
    )
    workers: int = field(default=8, metadata={"help": "threads that execute statements"})
    query_memory_mb: int = field(
        default=0,
        metadata={"help": "memory one query may hold before it spills to disk (0: a quarter of RAM)"},
    )
    log_level: str = field(default="info", metadata={"help": "debug, info, warning or error"})
    login_failures_before_lock: int = field(
        default=5, metadata={"help": "failed logins of a user before it is locked (then locks double)"}
    )
    login_lock_max_seconds: int = field(
        default=900, metadata={"help": "longest lock after repeated failed logins, in seconds"}
    )
    max_request_mb: int = field(
        default=256, metadata={"help": "largest request body accepted, in MiB (inflated size too)"}
    )
    max_queued_queries: int = field(
        default=1000,
        metadata={"help": "statements waiting for one of the `workers` threads before new ones are refused"},
    )
    python_functions: bool = field(
        default=False,
        metadata={
            "help": "run CREATE FUNCTION ... LANGUAGE PYTHON handlers in the server's process "
            "(their code can do whatever the server can: enable only for trusted users)"
        },
    )
    tls_cert: str = field(default="", metadata={"help": "PEM certificate file: serve https (with --tls-key)"})
    tls_key: str = field(default="", metadata={"help": "PEM private key file of --tls-cert"})

    @property
    def data_path(self) -> Path:
        return Path(self.data_dir).expanduser().resolve()

    @property
    def resolved_metastore_uri(self) -> str:
        return self.metastore_uri or f"sqlite:///{self.data_path / 'metastore.db'}"

    @property
    def resolved_warehouse(self) -> str:
        return self.warehouse or (self.data_path / "warehouse").as_uri()

    def advertised_url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "::") else self.host
        scheme = "https" if self.tls_cert else "http"
        return f"{scheme}://{host}:{self.port}"


def setting_names() -> list[str]:
    return [f.name for f in fields(Settings)]


def load_settings(overrides: dict[str, Any] | None = None, env: dict[str, str] | None = None) -> Settings:
    """Builds Settings from the environment, then applies explicit (non-None) overrides."""
    env = os.environ if env is None else env
    values: dict[str, Any] = {}
    for f in fields(Settings):
        raw = env.get(f"EMBUCKET_{f.name.upper()}")
        if raw is not None:
            values[f.name] = _coerce(f.type, raw)
    values.update({k: v for k, v in (overrides or {}).items() if v is not None})
    return Settings(**values)


def parse_bool(raw: str) -> bool:
    if raw.strip().lower() in ("1", "true", "yes", "on"):
        return True
    if raw.strip().lower() in ("0", "false", "no", "off", ""):
        return False
    raise ValueError(f"not a boolean: {raw!r}")


def _coerce(type_name: Any, raw: str) -> Any:
    if type_name in ("bool", bool):
        return parse_bool(raw)
    if type_name in ("int", int):
        return int(raw)
    if type_name in ("float", float):
        return float(raw)
    return raw

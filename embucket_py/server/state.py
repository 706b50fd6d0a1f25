"""Everything the HTTP handlers share, built once at startup."""

from __future__ import annotations

from dataclasses import dataclass

from embucket_py.catalog import storage
from embucket_py.catalog.metastore import Metastore
from embucket_py.config import Settings
from embucket_py.engine import python_functions
from embucket_py.engine.context import configure_memory
from embucket_py.engine.executor import Engine
from embucket_py.engine.reused_results import REUSED
from embucket_py.server.iceberg_rest import auth as iceberg_auth
from embucket_py.server.shared_results import SharedResults
from embucket_py.server.snowflake.running import QueryRegistry
from embucket_py.sessions.persisted import PersistedSessionStore
from embucket_py.sessions.store import SessionStore


@dataclass
class ServerState:
    settings: Settings
    metastore: Metastore
    engine: Engine
    sessions: SessionStore
    queries: QueryRegistry

    @classmethod
    def build(cls, settings: Settings) -> ServerState:
        if storage.is_s3(settings.resolved_warehouse):
            storage.register(
                storage.S3Store(
                    bucket=storage.bucket_of(settings.resolved_warehouse),
                    endpoint=settings.s3_endpoint,
                    region=settings.s3_region,
                    access_key_id=settings.s3_access_key_id,
                    secret_access_key=settings.s3_secret_access_key,
                )
            )
        configure_memory(settings.query_memory_mb, str(settings.data_path / "spill"))
        REUSED.configure(settings.reused_results_mb << 20)
        metastore = Metastore(settings.resolved_metastore_uri, settings.resolved_warehouse)
        engine = Engine(metastore, default_parameters(settings))
        python_functions.SWITCH.enabled = settings.python_functions
        engine.bootstrap(settings.default_database, settings.default_schema)
        metastore.ensure_user(settings.user, settings.password)
        metastore.grants.bootstrap(settings.user)
        sessions, queries = _stores(settings, metastore)
        engine.open_sessions = sessions.open_sessions
        return cls(settings, metastore, engine, sessions, queries)


def _stores(settings: Settings, metastore: Metastore) -> tuple[SessionStore, QueryRegistry]:
    """In memory for one process; in the metastore, under the shared secret, for several."""
    if not settings.secret:
        return (
            SessionStore(settings.session_ttl, settings.master_ttl),
            QueryRegistry(settings.workers, settings.result_ttl, **_kept(settings)),
        )
    iceberg_auth.use_secret(settings.secret)
    shared = SharedResults(metastore.engine, settings.secret)
    return (
        PersistedSessionStore(metastore.engine, settings.secret, settings.session_ttl, settings.master_ttl),
        QueryRegistry(settings.workers, settings.result_ttl, shared, **_kept(settings)),
    )


def _kept(settings: Settings) -> dict[str, object]:
    """Where downloadable results beyond their memory budget go (under the spill folder)."""
    return {"max_result_mb": settings.result_memory_mb, "spill_dir": str(settings.data_path / "spill")}


def default_parameters(settings: Settings) -> dict[str, object]:
    """Session parameters every session starts with (echoed to the client at login)."""
    return {
        "TIMEZONE": settings.timezone,
        "AUTOCOMMIT": True,
        "QUERY_TAG": "",
        "CLIENT_PREFETCH_THREADS": 4,
        "CLIENT_SESSION_KEEP_ALIVE": False,
        "CLIENT_SESSION_KEEP_ALIVE_HEARTBEAT_FREQUENCY": 3600,
        # Array binds arrive inline at any size: no stage binding needed.
        "CLIENT_STAGE_ARRAY_BINDING_THRESHOLD": 100_000_000,
        "CLIENT_RESULT_CHUNK_SIZE": 160,
        "PYTHON_CONNECTOR_QUERY_RESULT_FORMAT": "ARROW",
        "QUERY_RESULT_FORMAT": "ARROW",
        "STATEMENT_TIMEOUT_IN_SECONDS": 172800,
        "TIMESTAMP_OUTPUT_FORMAT": "YYYY-MM-DD HH24:MI:SS.FF3 TZHTZM",
        "DATE_OUTPUT_FORMAT": "YYYY-MM-DD",
        "WEEK_START": 0,
        "USE_CACHED_RESULT": True,
    }

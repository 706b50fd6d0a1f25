"""Session: the user, the current database/schema/warehouse/role, parameters and variables."""

from __future__ import annotations

import secrets
import threading
from dataclasses import dataclass, field
from typing import Any


@dataclass
class PendingTable:
    """One table's uncommitted changes: the metadata file holding them (written, not committed)
    and the committed metadata they were made on."""

    database: str
    namespace: str
    table: str
    base_location: str
    staged_location: str
    appends_only: bool = True


@dataclass
class OpenTransaction:
    """A session's open transaction: plain values, so a session can move between servers."""

    id: int
    name: str | None
    started_ms: int
    implicit: bool = False  # opened by a DML statement under AUTOCOMMIT = FALSE
    tables: dict[str, PendingTable] = field(default_factory=dict)
    # Streams read by the transaction's DML: (database, schema, name) -> the snapshot read up to.
    streams: dict[tuple[str, str, str], int | None] = field(default_factory=dict)
    # COPY's load history for the transaction's loads, written when it commits:
    # (table key, table uuid, the LoadRecords of stages/registry.py).
    loads: list[tuple[str, str, list[Any]]] = field(default_factory=list)


def _new_session_id() -> int:
    # Snowflake session ids are positive 64-bit integers the client keeps as int.
    return secrets.randbits(52) + 1


@dataclass
class Session:
    user: str
    account: str
    database: str | None = None
    schema: str | None = None
    warehouse: str | None = None
    role: str = "ACCOUNTADMIN"
    secondary_roles: bool = False  # USE SECONDARY ROLES ALL: every granted role's privileges too
    parameters: dict[str, Any] = field(default_factory=dict)
    variables: dict[str, Any] = field(default_factory=dict)
    client_app: str = ""
    client_version: str = ""
    client_ip: str | None = None  # CURRENT_IP_ADDRESS()
    id: int = field(default_factory=_new_session_id)
    transaction: OpenTransaction | None = None
    # TEMPORARY tables: "DB.SCHEMA.NAME" key -> the hidden catalog name that stores them.
    temporary: dict[str, str] = field(default_factory=dict)
    temporary_views: dict[str, str] = field(default_factory=dict)
    recent_queries: list[str] = field(default_factory=list)  # for LAST_QUERY_ID(-n)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @property
    def client_major_version(self) -> int:
        try:
            return int(self.client_version.split(".")[0])
        except ValueError:
            return 0

    def parameter(self, name: str, default: Any = None) -> Any:
        return self.parameters.get(name.upper(), default)

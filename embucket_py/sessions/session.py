"""Session: the user, the current database/schema/warehouse/role, parameters and variables."""

from __future__ import annotations

import secrets
import threading
from dataclasses import dataclass, field
from typing import Any


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
    parameters: dict[str, Any] = field(default_factory=dict)
    variables: dict[str, Any] = field(default_factory=dict)
    client_app: str = ""
    client_version: str = ""
    id: int = field(default_factory=_new_session_id)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @property
    def client_major_version(self) -> int:
        try:
            return int(self.client_version.split(".")[0])
        except ValueError:
            return 0

    def parameter(self, name: str, default: Any = None) -> Any:
        return self.parameters.get(name.upper(), default)

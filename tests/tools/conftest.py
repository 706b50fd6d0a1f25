"""Fixtures for the tool tests: the end-to-end server, and where each tool's virtualenv lives.

Each tool (dbt, Superset, Snowflake CLI) pins its own dependencies, so it runs from its own
virtualenv that the Makefile builds; the tests drive it as a subprocess, the way a user would.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import Server, server  # noqa: F401  (the session-scoped server fixture)

REPO = Path(__file__).resolve().parents[2]


def tool(venv: str, name: str, env_var: str) -> Path:
    """The executable of a tool in its virtualenv (`make` builds it); the env var overrides."""
    path = Path(os.environ.get(env_var) or REPO / venv / "bin" / name)
    if not path.exists():
        pytest.fail(f"{path} is missing: `make test-tools` (or test-superset) builds it; or set {env_var}")
    return path


@pytest.fixture
def tool_database(server: Server) -> Iterator[str]:
    """A fresh database for one tool test."""
    name = f"TOOLS_{uuid.uuid4().hex[:8].upper()}"
    with server.connect() as conn:
        conn.cursor().execute(f"CREATE DATABASE {name}")
    yield name
    with server.connect() as conn:
        conn.cursor().execute(f"DROP DATABASE IF EXISTS {name}")

"""Reuses the end-to-end server fixture (pytest allows `pytest_plugins` only in the root conftest)."""

from __future__ import annotations

from tests.e2e.conftest import Server, free_port, server  # noqa: F401

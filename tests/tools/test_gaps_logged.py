"""Statements the server cannot answer yet are logged at WARNING with their text."""

from __future__ import annotations

import pytest
import snowflake.connector

from tests.e2e.conftest import Server


def test_an_unanswered_statement_is_logged_with_its_text(server: Server) -> None:
    with server.connect() as conn, pytest.raises(snowflake.connector.errors.ProgrammingError):
        conn.cursor().execute("select no_such_function_h6(42)")
    logged = [line for line in server.log.read_text().splitlines() if "cannot answer" in line]
    assert any("WARNING" in line and "no_such_function_h6(42)" in line.lower() for line in logged), logged

"""A SELECT of literals is computed once: later runs, in any session, skip DataFusion."""

from __future__ import annotations

from pathlib import Path

import pytest

from embucket_py.config import load_settings
from embucket_py.engine import query
from embucket_py.server.snowflake import execution
from embucket_py.server.state import ServerState
from embucket_py.sessions.session import Session


def _run(state: ServerState, sql: str) -> dict[str, object]:
    session = Session(user="EMBUCKET", account="embucket", database="EMBUCKET", schema="PUBLIC")
    record = state.queries.new(session.id, sql, None)
    request = execution.Request(sql=sql, binds=[], parameters={}, describe_only=False)
    return execution.run(state, session, request, record).data


def test_literals_are_planned_once_and_other_constants_every_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = ServerState.build(load_settings({"data_dir": str(tmp_path)}))
    try:
        first = _run(state, "SELECT 7 AS seven, 'x' AS x")

        def no_engine(*args: object) -> None:
            raise AssertionError("planned on DataFusion")

        monkeypatch.setattr(query.CONTEXTS, "borrow", no_engine)
        again = _run(state, "SELECT 7 AS seven, 'x' AS x")
        assert again["rowsetBase64"] == first["rowsetBase64"] and again["rowtype"] == first["rowtype"]
        for sql in ("SELECT 7 + 0", "SELECT CURRENT_TIMESTAMP()", "SELECT 7 AS seven FROM (SELECT 1)"):
            with pytest.raises(AssertionError, match="planned on DataFusion"):
                _run(state, sql)
    finally:
        state.queries.shutdown()
        state.engine.close()

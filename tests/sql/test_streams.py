"""Stream statements as parsed (sqlglot reads them as commands)."""

from __future__ import annotations

import pytest

from embucket_py.errors import SqlCompilationError, Unsupported
from embucket_py.sql.parse import parse
from embucket_py.sql.streams import StreamStatement, stream_statement
from tests.sql.helpers import CTX


def statement(sql: str) -> StreamStatement | None:
    return stream_statement(parse(sql)[0], CTX)


def test_create_stream_with_options() -> None:
    s = statement("CREATE OR REPLACE STREAM db2.sc.s ON TABLE t APPEND_ONLY = TRUE COMMENT = 'it''s'")
    assert s is not None
    assert (s.action, s.parts, s.table) == ("CREATE", ["DB2", "SC", "S"], [CTX.database, CTX.schema, "T"])
    assert (s.append_only, s.show_initial_rows, s.comment, s.replace) == (True, False, "it's", True)
    s = statement('CREATE STREAM IF NOT EXISTS "my s" ON TABLE x.y SHOW_INITIAL_ROWS = TRUE')
    assert s is not None and (s.parts[2], s.table, s.if_exists, s.show_initial_rows) == (
        "my s",
        [CTX.database, "X", "Y"],
        True,
        True,
    )
    s = statement("CREATE STREAM s ON TABLE t AT(OFFSET => -60) APPEND_ONLY = TRUE")
    assert s is not None and s.point is not None and s.append_only
    assert (s.point.kind, s.point.before, s.point.value.sql()) == ("OFFSET", False, "-60")
    with pytest.raises(SqlCompilationError):
        statement("CREATE STREAM s ON TABLE t AT(OFFSET => -60")
    s = statement("CREATE STREAM s ON VIEW v")
    assert s is not None and s.on_view and s.table == [CTX.database, CTX.schema, "V"]
    with pytest.raises(Unsupported):
        statement("CREATE STREAM s ON EXTERNAL TABLE x")


def test_drop_and_show_streams() -> None:
    s = statement("DROP STREAM IF EXISTS s")
    assert s is not None and (s.action, s.parts, s.if_exists) == (
        "DROP",
        [CTX.database, CTX.schema, "S"],
        True,
    )
    s = statement("SHOW STREAMS LIKE 'a%' IN SCHEMA other")
    assert s is not None and (s.action, s.parts, s.like) == ("SHOW", [CTX.database, "OTHER"], "a%")
    s = statement("SHOW STREAMS IN DATABASE d")
    assert s is not None and s.parts == ["D"]
    s = statement("DESC STREAM db.sc.s")
    assert s is not None and (s.action, s.parts) == ("DESCRIBE", ["DB", "SC", "S"])
    s = statement("SHOW STREAMS IN ACCOUNT")
    assert s is not None and s.parts == []
    assert statement("SHOW TABLES") is None
    assert statement("CREATE TABLE t (a INT)") is None

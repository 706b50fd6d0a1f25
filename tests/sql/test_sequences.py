"""Sequence statements and NEXTVAL references, as parsed."""

from __future__ import annotations

import pytest

from embucket_py.errors import SqlCompilationError, Unsupported
from embucket_py.sql.context import SqlContext
from embucket_py.sql.nodes import Nodes
from embucket_py.sql.parse import parse
from embucket_py.sql.sequences import (
    SequenceStatement,
    nextval_references,
    sequence_parts,
    sequence_statement,
)

CTX = SqlContext("DB", "SC", {})


def _statement(sql: str) -> SequenceStatement | None:
    return sequence_statement(parse(sql)[0], CTX)


def test_create_takes_start_increment_and_comment() -> None:
    assert _statement("CREATE OR REPLACE SEQUENCE s START WITH 5 INCREMENT BY -2 COMMENT = 'c'") == (
        SequenceStatement("CREATE", ["DB", "SC", "S"], 5, -2, "c", replace=True)
    )
    assert _statement("CREATE SEQUENCE IF NOT EXISTS x.y.s START = 1 INCREMENT = 1") == SequenceStatement(
        "CREATE", ["X", "Y", "S"], if_exists=True
    )
    with pytest.raises(SqlCompilationError):
        _statement("CREATE SEQUENCE s INCREMENT = 0")


def test_alter_drop_and_describe() -> None:
    assert _statement("ALTER SEQUENCE IF EXISTS s SET INCREMENT BY 3") == SequenceStatement(
        "ALTER", ["DB", "SC", "S"], if_exists=True, changes={"increment": 3}
    )
    assert _statement("ALTER SEQUENCE s SET COMMENT = 'it''s'").changes == {"comment": "it's"}
    assert _statement("ALTER SEQUENCE s UNSET COMMENT").changes == {"comment": None}
    assert _statement("ALTER SEQUENCE s INCREMENT 4").changes == {"increment": 4}  # SET is optional
    assert _statement("ALTER SEQUENCE s RENAME TO x.t").changes == {"rename": ["DB", "X", "T"]}
    assert _statement("ALTER SEQUENCE a.b.s RENAME TO t").changes == {"rename": ["DB", "SC", "T"]}
    with pytest.raises(Unsupported):
        _statement("ALTER SEQUENCE s SET ORDER")
    assert _statement("DROP SEQUENCE IF EXISTS s") == SequenceStatement(
        "DROP", ["DB", "SC", "S"], if_exists=True
    )
    assert _statement("DESCRIBE SEQUENCE s").action == "DESCRIBE"
    assert _statement("CREATE TABLE s (a INT)") is None
    assert _statement("ALTER TABLE s SET COMMENT = 'x'") is None


def test_nextval_references_are_qualified_columns_named_nextval() -> None:
    tree = parse("SELECT s.nextval, x.y.s.NEXTVAL, nextval, t.other FROM t")[0]
    found = nextval_references(Nodes(tree))
    assert [sequence_parts(c, CTX) for c in found] == [["DB", "SC", "S"], ["X", "Y", "S"]]

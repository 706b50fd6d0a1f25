"""ALTER VIEW and COMMENT ON VIEW, as parsed into one action each; ALTER SCHEMA | DATABASE's
renames, swaps and retention changes."""

from __future__ import annotations

import pytest

from embucket_py.errors import Unsupported
from embucket_py.sql.alter import AlterView, RenameTable, SetComment, SetSecure, view_alter_def
from embucket_py.sql.context import SqlContext
from embucket_py.sql.ddl import ContainerMove, RetentionChange, container_move, retention_change
from embucket_py.sql.parse import parse

CTX = SqlContext("DB", "SC", {})


def _view(sql: str) -> AlterView | None:
    return view_alter_def(parse(sql)[0], CTX)


def test_each_view_action() -> None:
    assert _view("ALTER VIEW IF EXISTS v RENAME TO s2.w") == AlterView(
        ["DB", "SC", "V"], True, RenameTable(["DB", "S2", "W"])
    )
    assert _view("ALTER VIEW x.y.v SET SECURE") == AlterView(["X", "Y", "V"], False, SetSecure(True))
    assert _view("ALTER VIEW v UNSET SECURE") == AlterView(["DB", "SC", "V"], False, SetSecure(False))
    assert _view("ALTER VIEW v SET COMMENT = 'c'") == AlterView(
        ["DB", "SC", "V"], False, SetComment(None, "c")
    )
    assert _view("ALTER VIEW v UNSET COMMENT").action == SetComment(None, None)
    assert _view("COMMENT ON VIEW v IS 'c'").action == SetComment(None, "c")


def test_other_statements_are_not_view_alterations() -> None:
    assert _view("ALTER TABLE v RENAME TO w") is None
    assert _view("COMMENT ON TABLE t IS 'c'") is None
    with pytest.raises(Unsupported):
        _view("ALTER VIEW v ADD COLUMN c INT")


def test_schema_and_database_moves() -> None:
    def move(sql: str) -> ContainerMove | None:
        return container_move(parse(sql)[0], CTX)

    assert move("ALTER SCHEMA s RENAME TO t") == ContainerMove("SCHEMA", "RENAME", ["DB", "S"], ["DB", "T"])
    # A new name without a database stays in the schema's database, not the session's.
    assert move('alter schema if exists x."a b" rename to c') == ContainerMove(
        "SCHEMA", "RENAME", ["X", "a b"], ["X", "C"], True
    )
    assert move("ALTER SCHEMA x.s SWAP WITH y.t") == ContainerMove("SCHEMA", "SWAP", ["X", "S"], ["Y", "T"])
    assert move("ALTER DATABASE d RENAME TO e;") == ContainerMove("DATABASE", "RENAME", ["D"], ["E"])
    assert move("ALTER SCHEMA s SET COMMENT = 'c'") is None
    assert move("ALTER TABLE t RENAME TO u") is None


def test_schema_retention_by_qualified_name() -> None:
    change = retention_change(parse("ALTER SCHEMA x.s SET DATA_RETENTION_TIME_IN_DAYS = 2")[0], CTX)
    assert change == RetentionChange("SCHEMA", ["X", "S"], 2)

"""ALTER VIEW and COMMENT ON VIEW, as parsed into one action each."""

from __future__ import annotations

import pytest

from embucket_py.errors import Unsupported
from embucket_py.sql.alter import AlterView, RenameTable, SetComment, SetSecure, view_alter_def
from embucket_py.sql.context import SqlContext
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

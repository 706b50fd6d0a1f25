"""Tag statements -> plain descriptions (read from their text)."""

from __future__ import annotations

import pytest

from embucket_py.errors import SqlCompilationError, SyntaxError_
from embucket_py.sql.context import SqlContext
from embucket_py.sql.parse import parse
from embucket_py.sql.tags import TagStatement, declared_in_alter, declared_in_create, tag_statement

CTX = SqlContext(database="DB", schema="PUBLIC")


def statement(sql: str) -> TagStatement:
    (tree,) = parse(sql)
    found = tag_statement(tree, CTX)
    assert found is not None
    return found


def test_create_reads_allowed_values_and_comment() -> None:
    s = statement("CREATE OR REPLACE TAG s2.\"Cost\" ALLOWED_VALUES 'a, b', 'it''s' COMMENT = 'c';")
    assert (s.action, s.parts, s.replace, s.allowed_values, s.comment) == (
        "CREATE", ("DB", "S2", "Cost"), True, ("a, b", "it's"), "c",
    )  # fmt: skip
    altered = statement("CREATE OR ALTER TAG t COMMENT = 'c'")
    assert (altered.or_alter, altered.replace, altered.comment) == (True, False, "c")
    plain = statement("create tag if not exists t")
    assert (plain.parts, plain.if_exists, plain.allowed_values, plain.comment) == (
        ("DB", "PUBLIC", "T"),
        True,
        None,
        None,
    )


def test_alter_tag_clauses() -> None:
    assert statement("ALTER TAG t RENAME TO other.t2").changes == {"rename": ("DB", "OTHER", "T2")}
    assert statement("ALTER TAG t ADD ALLOWED_VALUES 'x', 'y'").changes == {"add_values": ("x", "y")}
    assert statement("ALTER TAG t DROP ALLOWED_VALUES 'x'").changes == {"drop_values": ("x",)}
    assert statement("ALTER TAG t UNSET ALLOWED_VALUES").changes == {"unset_values": True}
    assert statement("ALTER TAG t SET COMMENT = 'hi'").changes == {"comment": "hi"}
    assert statement("ALTER TAG t UNSET COMMENT").changes == {"comment": None}
    both = statement("ALTER TAG IF EXISTS t SET MASKING POLICY m1, MASKING POLICY s.m2 FORCE")
    assert both.if_exists and both.changes == {
        "set_policies": (("DB", "PUBLIC", "M1"), ("DB", "S", "M2")),
        "force": True,
    }
    assert statement("ALTER TAG t UNSET MASKING POLICY m1").changes["unset_policies"] == (
        ("DB", "PUBLIC", "M1"),
    )
    with pytest.raises(SyntaxError_):
        statement("ALTER TAG t SET ALLOWED_VALUES 'x'")


def test_set_and_unset_on_objects() -> None:
    s = statement("ALTER TABLE s.t SET TAG cc = 'a, b', db2.s.other = 'it''s'")
    assert (s.action, s.target_kind, s.target, s.column) == ("SET", "TABLE", ("DB", "S", "T"), "")
    assert s.values == ((("DB", "PUBLIC", "CC"), "a, b"), (("DB2", "S", "OTHER"), "it's"))
    column = statement("ALTER VIEW v MODIFY COLUMN \"Mixed\" SET TAG cc = 'x'")
    assert (column.target_kind, column.target, column.column) == ("COLUMN", ("DB", "PUBLIC", "V"), "Mixed")
    unset = statement("ALTER TABLE IF EXISTS t ALTER c UNSET TAG cc, s.dd")
    assert (unset.action, unset.if_exists, unset.column) == ("UNSET", True, "C")
    assert unset.values == ((("DB", "PUBLIC", "CC"), ""), (("DB", "S", "DD"), ""))
    assert statement("ALTER SCHEMA other SET TAG cc = 'x'").target == ("DB", "OTHER", "")
    assert statement("ALTER DATABASE d2 SET TAG cc = 'x'").target == ("D2", "", "")
    with pytest.raises(SqlCompilationError):
        statement("ALTER TABLE t SET TAG cc = 'x', cc = 'y'")
    with pytest.raises(SyntaxError_):
        statement("ALTER TABLE t SET TAG cc 'x'")


def test_show_scopes() -> None:
    assert (statement("SHOW TAGS").scope, statement("SHOW TAGS").like) == (["DB"], None)
    s = statement("SHOW TAGS LIKE 'c%' IN SCHEMA s")
    assert (s.like, s.scope) == ("c%", ["DB", "S"])
    assert statement("SHOW TAGS IN ACCOUNT").scope == []


def test_other_statements_are_not_tag_statements() -> None:
    for sql in ("ALTER TABLE t SET DATA_RETENTION_TIME_IN_DAYS = 1", "SELECT 'SET TAG'", "SHOW TABLES"):
        (tree,) = parse(sql)
        assert tag_statement(tree, CTX) is None


def test_create_table_with_tags() -> None:
    (tree,) = parse("CREATE TABLE t (a INT WITH TAG (cc = 'x', s.dd = 'y'), b INT) WITH TAG (cc = 'z')")
    declared = declared_in_create(tree, "TABLE", ["DB", "PUBLIC", "T"], CTX)
    assert [(d.target_kind, d.column, d.values) for d in declared] == [
        ("COLUMN", "A", ((("DB", "PUBLIC", "CC"), "x"), (("DB", "S", "DD"), "y"))),
        ("TABLE", "", ((("DB", "PUBLIC", "CC"), "z"),)),
    ]


def test_set_tag_in_a_string_is_no_tag_statement() -> None:
    (tree,) = parse("ALTER TABLE t SET COMMENT = 'SET TAG later'")
    assert tag_statement(tree, CTX) is None


def test_other_creates_and_added_columns_with_tags() -> None:
    (tree,) = parse("CREATE SCHEMA s2 WITH TAG (cc = 'x')")
    (declared,) = declared_in_create(tree, "SCHEMA", ["DB", "S2"], CTX)
    assert (declared.target_kind, declared.target, declared.values) == (
        "SCHEMA", ("DB", "S2", ""), ((("DB", "PUBLIC", "CC"), "x"),),
    )  # fmt: skip
    (tree,) = parse("CREATE VIEW v WITH TAG (cc = 'v') AS SELECT 1 AS a")
    assert [d.target_kind for d in declared_in_create(tree, "VIEW", ["DB", "PUBLIC", "V"], CTX)] == ["VIEW"]
    (tree,) = parse("ALTER TABLE t ADD COLUMN b INT WITH TAG (cc = 'x'), c INT")
    (added,) = declared_in_alter(tree, CTX)
    assert (added.target_kind, added.target, added.column) == ("COLUMN", ("DB", "PUBLIC", "T"), "B")
    (tree,) = parse("ALTER TABLE t ADD COLUMN b INT")
    assert declared_in_alter(tree, CTX) == []

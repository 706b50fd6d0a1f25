"""Masking and row access policy statements -> plain descriptions (read from their text)."""

from __future__ import annotations

import pytest

from embucket_py.errors import SqlCompilationError, SyntaxError_, Unsupported
from embucket_py.sql.context import SqlContext
from embucket_py.sql.parse import parse
from embucket_py.sql.policies import PolicyStatement, declared_in_create, policy_statement

CTX = SqlContext(database="DB", schema="PUBLIC")


def statement(sql: str) -> PolicyStatement:
    (tree,) = parse(sql)
    found = policy_statement(tree, CTX)
    assert found is not None
    return found


def test_create_reads_signature_types_body_and_options() -> None:
    s = statement(
        'CREATE OR REPLACE MASKING POLICY s2."Mask" AS (val NUMBER(10, 2), "flag" string)'
        " RETURNS number(10,2) -> CASE WHEN flag = 'y' THEN val ELSE 0 END"
        " COMMENT = 'it''s' EXEMPT_OTHER_POLICIES = FALSE;"
    )
    assert (s.action, s.kind, s.parts, s.replace) == ("CREATE", "MASKING_POLICY", ("DB", "S2", "Mask"), True)
    assert s.signature == (("VAL", "NUMBER(10,2)"), ("flag", "VARCHAR(16777216)"))
    assert (s.returns, s.comment) == ("NUMBER(10,2)", "it's")
    assert s.body == "CASE WHEN flag = 'y' THEN val ELSE 0 END"
    rap = statement("create row access policy if not exists r as (a int, b date) returns boolean -> a > 0")
    assert (rap.kind, rap.if_exists, rap.signature[1], rap.body) == (
        "ROW_ACCESS_POLICY",
        True,
        ("B", "DATE"),
        "a > 0",
    )


@pytest.mark.parametrize(
    ("sql", "error"),
    [
        ("CREATE MASKING POLICY m AS (v NUMBER) RETURNS VARCHAR -> 'x'", SqlCompilationError),
        ("CREATE ROW ACCESS POLICY r AS (v INT) RETURNS INT -> 1", SqlCompilationError),
        ("CREATE MASKING POLICY m AS (v NOSUCHTYPE) RETURNS NOSUCHTYPE -> v", SqlCompilationError),
        ("CREATE MASKING POLICY m AS (v INT RETURNS INT -> v", SyntaxError_),
        ("ALTER MASKING POLICY m SET SOMETHING", SyntaxError_),
        ("ALTER TABLE t ADD COLUMN c VARCHAR WITH MASKING POLICY m", Unsupported),
        ("ALTER TABLE t MODIFY COLUMN c SET MASKING POLICY m USING (d, c)", SqlCompilationError),
    ],
)
def test_malformed_statements_are_refused(sql: str, error: type[Exception]) -> None:
    with pytest.raises(error):
        statement(sql)


def test_alter_drop_show_describe() -> None:
    assert statement("ALTER MASKING POLICY IF EXISTS m RENAME TO other.m2").changes == {
        "rename": ("DB", "OTHER", "M2")
    }
    assert statement("alter masking policy m set body -> 'x' || val").changes == {"body": "'x' || val"}
    assert statement("ALTER ROW ACCESS POLICY r UNSET COMMENT").changes == {"comment": None}
    dropped = statement("DROP ROW ACCESS POLICY IF EXISTS db2.s.r")
    assert (dropped.action, dropped.parts, dropped.if_exists) == ("DROP", ("DB2", "S", "R"), True)
    assert statement("DESC MASKING POLICY m").parts == ("DB", "PUBLIC", "M")
    assert statement("SHOW MASKING POLICIES").scope == ["DB"]
    assert statement("SHOW ROW ACCESS POLICIES LIKE 'r%' IN ACCOUNT").scope == []
    assert statement("SHOW MASKING POLICIES IN SCHEMA s").scope == ["DB", "S"]
    assert statement("SHOW MASKING POLICIES IN DATABASE other").scope == ["OTHER"]
    assert statement("SHOW MASKING POLICIES IN DATABASE").scope == ["DB"]
    assert statement("SHOW MASKING POLICIES IN SCHEMA").scope == ["DB", "PUBLIC"]
    assert statement("SHOW MASKING POLICIES IN d2.s2").scope == ["D2", "S2"]


def test_clauses_on_tables_and_views() -> None:
    s = statement("ALTER TABLE IF EXISTS t MODIFY COLUMN email SET MASKING POLICY m USING (email, vis) FORCE")
    assert (s.action, s.target, s.column, s.columns, s.force) == (
        "SET_MASKING",
        ("DB", "PUBLIC", "T"),
        "EMAIL",
        ("EMAIL", "VIS"),
        True,
    )
    assert statement("ALTER VIEW v ALTER c UNSET MASKING POLICY").target_kind == "VIEW"
    assert statement("ALTER TABLE IF EXISTS t ADD ROW ACCESS POLICY r ON (a)").if_exists
    swap = statement("ALTER TABLE t DROP ROW ACCESS POLICY r1, ADD ROW ACCESS POLICY r2 ON (a, b)")
    assert swap.parts[2] == "R1" and swap.then_add is not None
    assert (swap.then_add.action, swap.then_add.columns) == ("ADD_ROW_ACCESS", ("A", "B"))
    assert statement("ALTER TABLE t DROP ALL ROW ACCESS POLICIES").action == "DROP_ALL_ROW_ACCESS"


def test_create_table_clauses_become_attachments() -> None:
    (tree,) = parse(
        "CREATE TABLE t (id INT, email VARCHAR WITH MASKING POLICY m USING (email, id),"
        " x INT MASKING POLICY s.n) WITH ROW ACCESS POLICY r ON (id)"
    )
    declared = declared_in_create(tree, ["DB", "PUBLIC", "T"], CTX)
    assert [(d.action, d.parts[1:], d.column, d.columns) for d in declared] == [
        ("SET_MASKING", ("PUBLIC", "M"), "EMAIL", ("EMAIL", "ID")),
        ("SET_MASKING", ("S", "N"), "X", ("X",)),
        ("ADD_ROW_ACCESS", ("PUBLIC", "R"), "", ("ID",)),
    ]


def test_other_statements_are_not_policy_statements() -> None:
    for sql in ("ALTER TABLE t ADD COLUMN c INT", "SELECT 'masking policy'", "SHOW TABLES"):
        (tree,) = parse(sql)
        assert policy_statement(tree, CTX) is None

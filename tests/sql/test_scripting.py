"""Snowflake Scripting and stored procedures: the parsed structure of blocks, CREATE PROCEDURE and
CALL, and how a request's text is cut around them (no engine)."""

from __future__ import annotations

import pytest
from sqlglot import exp

from embucket_py.errors import SyntaxError_
from embucket_py.sql import scripting as s
from embucket_py.sql import scripting_tree as nodes
from embucket_py.sql.parse import parse
from embucket_py.sql.routines import (
    anonymous_procedure_def,
    anonymous_procedure_text,
    call_def,
    create_routine_def,
    routine_text,
)


def test_a_block_with_declarations_loops_and_a_handler() -> None:
    text = (
        "DECLARE\n"
        "  total INT DEFAULT 0;\n"
        "  c1 CURSOR FOR SELECT id FROM t WHERE x = ';';\n"
        "  oops EXCEPTION (-20002, 'It''s bad.');\n"
        "BEGIN\n"
        "  FOR rec IN c1 DO total := total + rec.id; END FOR;\n"
        "  FOR i IN REVERSE 1 TO (SELECT 3) DO NULL; END FOR;\n"
        "  RETURN total;\n"
        "EXCEPTION\n"
        "  WHEN statement_error OR expression_error THEN RETURN -1;\n"
        "END;  SELECT 2"
    )
    block, start, end = s.parse_block(text)
    assert (start, end) == (0, text.index("  SELECT 2"))
    assert block.declarations == (
        nodes.Declare((2, 2), "TOTAL", "VARIABLE", type="INT", value="0"),
        nodes.Declare((3, 2), "C1", "CURSOR", value="SELECT id FROM t WHERE x = ';'"),
        nodes.Declare((4, 2), "OOPS", "EXCEPTION", code=-20002, message="It's bad."),
    )
    loop, reverse, ret = block.body
    assert loop == nodes.ForEach((6, 2), "REC", "C1", (nodes.Assign((6, 19), "TOTAL", "total + rec.id"),))
    assert isinstance(reverse, nodes.ForRange) and reverse.reverse
    assert (reverse.start, reverse.end) == ("1", "(SELECT 3)")
    assert reverse.body == (nodes.Sql((7, 38), "NULL"),)
    assert ret == nodes.Return((8, 2), value="total")
    assert block.handlers == (
        nodes.Handler(("STATEMENT_ERROR", "EXPRESSION_ERROR"), (nodes.Return((10, 48), "-1"),)),
    )


def test_branches_and_loops_of_every_kind() -> None:
    block, _, _ = s.parse_block(
        "BEGIN"
        " IF (a > 1) THEN LET b := 2; ELSEIF (a = 1) THEN b := 3; ELSE RETURN; END IF;"
        " CASE (a) WHEN 1 THEN BREAK; ELSE CONTINUE; END CASE;"
        " WHILE (a < 3) DO a := a + 1; END WHILE;"
        " REPEAT a := a - 1; UNTIL (a = 0) END REPEAT;"
        " <<outer>> LOOP BREAK outer; END LOOP outer;"
        " END"
    )
    branch, case, while_, repeat, loop = block.body
    assert isinstance(branch, nodes.If) and [c for c, _ in branch.branches] == ["(a > 1)", "(a = 1)"]
    assert branch.branches[0][1] == (nodes.Declare((1, 22), "B", "VARIABLE", value="2"),)
    assert branch.otherwise == (nodes.Return((1, 67)),)
    assert isinstance(case, nodes.Case) and case.operand == "(a)" and case.branches[0][0] == "1"
    assert isinstance(while_, nodes.While) and while_.condition == "(a < 3)"
    assert isinstance(repeat, nodes.Repeat) and repeat.condition == "(a = 0)"
    assert loop == nodes.Loop(loop.at, (nodes.Break(loop.body[0].at, "OUTER"),), "OUTER")


def test_select_into_is_cut_from_the_statement() -> None:
    block, _, _ = s.parse_block("BEGIN SELECT 1, 'Alice' INTO :v_id, :v_name FROM t WHERE a = :x; END")
    assert block.body == (nodes.Sql((1, 6), "SELECT 1, 'Alice' FROM t WHERE a = :x", ("V_ID", "V_NAME")),)
    block, _, _ = s.parse_block("BEGIN INSERT INTO t SELECT 1; END")
    assert block.body == (nodes.Sql((1, 6), "INSERT INTO t SELECT 1"),)
    block, _, _ = s.parse_block("BEGIN CALL p(1, (SELECT 2)) INTO :r; END")
    assert block.body == (nodes.Sql((1, 6), "CALL p(1, (SELECT 2))", ("R",)),)


def test_execute_immediate_cursors_and_resultsets() -> None:
    block, _, _ = s.parse_block(
        "DECLARE res RESULTSET DEFAULT (SELECT 1); BEGIN"
        " EXECUTE IMMEDIATE :q USING (a, b + 1);"
        " OPEN c USING (1); FETCH c INTO :x, y; CLOSE c;"
        " RETURN TABLE(res); END"
    )
    assert block.declarations == (nodes.Declare((1, 8), "RES", "RESULTSET", value="(SELECT 1)"),)
    immediate, open_, fetch, close, ret = block.body
    assert immediate == nodes.ExecuteImmediate(immediate.at, ":q", ("a", "b + 1"))
    assert open_.using == ("1",) and fetch.into == ("X", "Y") and close.cursor == "C"  # type: ignore[union-attr]
    assert ret == nodes.Return(ret.at, table="res")
    assert s.parse_execute("EXECUTE IMMEDIATE $$SELECT 1; $$") == nodes.ExecuteImmediate(
        (1, 0), "$$SELECT 1; $$"
    )


@pytest.mark.parametrize(
    ("text", "block"),
    [
        ("BEGIN", False),
        ("BEGIN;", False),
        ("begin transaction", False),
        ("BEGIN WORK;", False),
        ("BEGIN NAME t1", False),
        ("BEGIN RETURN 1; END", True),
        ("-- note\nDECLARE x INT; BEGIN RETURN x; END", True),
        ("SELECT 1", False),
    ],
)
def test_blocks_are_told_from_transactions(text: str, block: bool) -> None:
    assert s.is_block(text) is block


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("BEGIN IF (a) THEN RETURN 1; END", "line 1 at position 31 unexpected '<EOF>'"),
        ("BEGIN\n  FOR i IN 1 TO 3 DO\n  END WHILE;\nEND", "line 3 at position 6 unexpected 'WHILE'"),
        ("BEGIN x := ; END", "line 1 at position 11 unexpected ';'"),
    ],
)
def test_a_block_that_does_not_parse_is_a_syntax_error(text: str, message: str) -> None:
    with pytest.raises(SyntaxError_, match=message):
        s.parse_block(text)


def test_a_request_is_cut_around_blocks_and_procedures() -> None:
    statements = parse(
        "SELECT 1; DECLARE x INT := 5; BEGIN RETURN x; END; BEGIN TRANSACTION; "
        "CREATE PROCEDURE p() RETURNS INT LANGUAGE SQL AS BEGIN RETURN 1; END; COMMIT"
    )
    assert [type(t).__name__ for t in statements] == ["Select", "Command", "Transaction", "Command", "Commit"]
    assert s.script_text(statements[1]) == "DECLARE x INT := 5; BEGIN RETURN x; END;"
    assert (
        routine_text(statements[3]) == "CREATE PROCEDURE p() RETURNS INT LANGUAGE SQL AS BEGIN RETURN 1; END;"
    )
    # Without a block or a procedure, sqlglot parses the text as before.
    assert isinstance(parse("BEGIN; SELECT 1")[0], exp.Transaction)


def test_create_procedure_keeps_every_clause() -> None:
    d = create_routine_def(
        "CREATE OR REPLACE PROCEDURE db.s.area(r FLOAT, label VARCHAR DEFAULT 'area')\n"
        "RETURNS NUMBER(10, 2) NOT NULL LANGUAGE SQL COMMENT = 'circle' EXECUTE AS CALLER\n"
        "AS $$ BEGIN RETURN PI() * r * r; END $$"
    )
    assert d.parts == ("DB", "S", "AREA") and d.replace and not d.if_not_exists
    assert [(a.name, a.type, a.default) for a in d.arguments] == [
        ("R", "FLOAT", None),
        ("LABEL", "VARCHAR", "'area'"),
    ]
    assert (d.returns, d.language, d.comment) == ("NUMBER(10, 2)", "SQL", "circle")
    assert d.body == " BEGIN RETURN PI() * r * r; END "
    table = create_routine_def(
        "CREATE PROCEDURE IF NOT EXISTS t() RETURNS TABLE (a INT) AS 'BEGIN RETURN 1; END'"
    )
    assert table.returns_table and table.returns == "TABLE (a INT)" and table.if_not_exists


def test_call_arguments_positional_and_named() -> None:
    d = call_def("CALL s.p(1 + 2, 'a, b', x => (SELECT 1))")
    assert (d.parts, d.arguments, d.named) == (("S", "P"), ("1 + 2", "'a, b'"), (("X", "(SELECT 1)"),))
    assert call_def("call p()").arguments == ()


def test_create_function_keeps_its_body_and_options() -> None:
    d = create_routine_def(
        "CREATE OR REPLACE SECURE FUNCTION add1(x NUMBER) RETURNS NUMBER NOT NULL LANGUAGE SQL "
        "IMMUTABLE MEMOIZABLE COMMENT = 'adds' AS $$ x + 1 $$"
    )
    assert (d.kind, d.parts, d.returns, d.comment, d.body) == (
        "FUNCTION",
        ("ADD1",),
        "NUMBER",
        "adds",
        " x + 1 ",
    )
    # Only a procedure's body may be written without quotes.
    with pytest.raises(SyntaxError_):
        create_routine_def("CREATE FUNCTION f() RETURNS INT AS BEGIN RETURN 1; END")
    (statement,) = parse("CREATE FUNCTION f() RETURNS INT AS '1'")
    assert routine_text(statement) == "CREATE FUNCTION f() RETURNS INT AS '1'"


def test_an_anonymous_procedure_is_one_statement() -> None:
    text = "WITH p AS PROCEDURE (x INT) RETURNS INT AS 'BEGIN RETURN x; END' CALL p(x => 2); SELECT 1"
    first, second = parse(text)
    assert isinstance(second, exp.Select)
    procedure, call = anonymous_procedure_def(anonymous_procedure_text(first) or "")
    assert (procedure.parts, procedure.body, call.named) == (("P",), "BEGIN RETURN x; END", (("X", "2"),))

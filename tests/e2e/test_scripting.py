"""Snowflake Scripting through the connector: anonymous blocks, EXECUTE IMMEDIATE and stored
procedures written in SQL. The first examples are the documentation's, with its outputs."""

from __future__ import annotations

from typing import Any

import pytest
from snowflake.connector.errors import ProgrammingError


def one(cur: Any, sql: str) -> Any:
    cur.execute(sql)
    (row,) = cur.fetchall()
    (value,) = row
    return value


def test_documented_for_loop_counts_to_five(cur: Any) -> None:
    """https://docs.snowflake.com/en/developer-guide/snowflake-scripting/loops"""
    block = """DECLARE
  counter INTEGER DEFAULT 0;
  maximum_count INTEGER default 5;
BEGIN
  FOR i IN 1 TO maximum_count DO
    counter := counter + 1;
  END FOR;
  RETURN counter;
END;"""
    assert one(cur, block) == 5
    assert [(d.name, d.type_code) for d in cur.description] == [("anonymous block", 0)]
    # The form for clients that split statements themselves gives the same.
    assert one(cur, f"EXECUTE IMMEDIATE $$\n{block}\n$$") == 5


def test_documented_select_into_and_variables(cur: Any) -> None:
    assert (
        one(
            cur,
            """EXECUTE IMMEDIATE $$
DECLARE
  v_id INT;
  v_name STRING;
BEGIN
  SELECT 1, 'Alice'
  INTO :v_id, :v_name;
  RETURN v_id || ' ' || v_name;
END;
$$;""",
        )
        == "1 Alice"
    )
    area = one(
        cur,
        """DECLARE
  radius_of_circle FLOAT;
  area_of_circle FLOAT;
BEGIN
  radius_of_circle := 3;
  area_of_circle := PI() * radius_of_circle * radius_of_circle;
  RETURN area_of_circle;
END;""",
    )
    assert area == pytest.approx(28.274333882308138)
    # INTO takes the row's values by position, also under one column name twice.
    pair = one(
        cur,
        "DECLARE a INT; b INT; BEGIN "
        "SELECT n, n + 1 AS n INTO :a, :b FROM (SELECT 4 AS n); RETURN a || b; END",
    )
    assert pair == "45"


def test_sql_statements_see_variables_and_set_sqlrowcount(cur: Any) -> None:
    result = one(
        cur,
        """BEGIN
  CREATE TABLE scripted (id INT, name STRING);
  INSERT INTO scripted VALUES (1, 'a'), (2, 'b'), (3, 'c');
  LET inserted := SQLROWCOUNT;
  LET target := 'scripted';
  LET top := (SELECT MAX(id) FROM scripted);
  UPDATE IDENTIFIER(:target) SET name = 'z' WHERE id = :top;
  RETURN inserted || ' ' || SQLROWCOUNT || ' ' || SQLFOUND;
END""",
    )
    assert result == "3 1 true"
    cur.execute("SELECT id, name FROM scripted ORDER BY id")
    assert cur.fetchall() == [(1, "a"), (2, "b"), (3, "z")]


def test_cursors_resultsets_and_loops(cur: Any) -> None:
    cur.execute(
        "CREATE TABLE nums AS SELECT column1 AS n, column2 AS word "
        "FROM VALUES (1, 'one'), (2, 'two'), (3, 'three')"
    )
    assert (
        one(
            cur,
            """DECLARE
  total INT DEFAULT 0;
  words VARCHAR DEFAULT '';
  c1 CURSOR FOR SELECT n, word FROM nums ORDER BY n;
BEGIN
  FOR rec IN c1 DO
    total := total + rec.n;
    words := words || rec.word;
  END FOR;
  RETURN total || ':' || words;
END""",
        )
        == "6:onetwothree"
    )
    assert (
        one(
            cur,
            """DECLARE
  c1 CURSOR FOR SELECT word FROM nums WHERE n > ? ORDER BY n;
  w VARCHAR;
BEGIN
  OPEN c1 USING (1);
  FETCH c1 INTO w;
  CLOSE c1;
  RETURN w;
END""",
        )
        == "two"
    )
    cur.execute(
        """DECLARE
  res RESULTSET DEFAULT (SELECT n, word FROM nums WHERE n >= 2 ORDER BY n);
BEGIN
  RETURN TABLE(res);
END"""
    )
    assert [d.name for d in cur.description] == ["N", "WORD"]
    assert cur.fetchall() == [(2, "two"), (3, "three")]
    assert (
        one(
            cur,
            """DECLARE
  res RESULTSET DEFAULT (SELECT word FROM nums ORDER BY n DESC);
  c2 CURSOR FOR res;
  words VARCHAR DEFAULT '';
BEGIN
  FOR rec IN c2 DO
    words := words || rec.word || ',';
  END FOR;
  RETURN words;
END""",
        )
        == "three,two,one,"
    )
    cur.execute(
        """DECLARE
  q VARCHAR DEFAULT 'SELECT COUNT(*) AS c FROM nums';
  res RESULTSET;
BEGIN
  res := (EXECUTE IMMEDIATE :q);
  RETURN TABLE(res);
END"""
    )
    assert cur.fetchall() == [(3,)]


def test_branches_and_every_kind_of_loop(cur: Any) -> None:
    assert (
        one(
            cur,
            """DECLARE
  s VARCHAR DEFAULT '';
BEGIN
  FOR i IN REVERSE 1 TO 10 DO
    IF (i = 8) THEN CONTINUE; END IF;
    IF (i < 5) THEN BREAK; END IF;
    s := s || i;
  END FOR;
  FOR i IN 3 TO 1 DO
    s := s || 'never';
  END FOR;
  LET n := 0;
  REPEAT
    n := n + 1;
  UNTIL (n >= 3)
  END REPEAT;
  WHILE (n < 5) DO
    n := n + 1;
  END WHILE;
  LOOP
    n := n + 1;
    IF (n > 6) THEN BREAK; END IF;
  END LOOP;
  CASE (n)
    WHEN 7 THEN s := s || '-seven';
    ELSE s := s || '-other';
  END CASE;
  CASE
    WHEN n > 100 THEN s := s || '-big';
    WHEN n > 5 THEN s := s || '-medium';
  END CASE;
  RETURN s;
END""",
        )
        == "109765-seven-medium"
    )


def test_a_raised_exception_is_handled_or_reported_with_its_code(cur: Any) -> None:
    """https://docs.snowflake.com/en/developer-guide/snowflake-scripting/exceptions"""
    declared = "DECLARE\n  my_exception EXCEPTION (-20002, 'Raised MY_EXCEPTION.');\nBEGIN\n"
    with pytest.raises(ProgrammingError) as raised:
        cur.execute(declared + "  LET counter := 0;\n  RAISE my_exception;\n  RETURN counter;\nEND;")
    assert (raised.value.errno, raised.value.sqlstate) == (-20002, "P0001")
    assert "Uncaught exception of type 'MY_EXCEPTION' on line 5 at position 2 : Raised MY_EXCEPTION." in str(
        raised.value
    )
    handled = one(
        cur,
        declared
        + """  RAISE my_exception;
EXCEPTION
  WHEN statement_error THEN RETURN 'statement';
  WHEN my_exception THEN RETURN sqlcode || ' ' || sqlerrm || ' ' || sqlstate;
END;""",
    )
    assert handled == "-20002 Raised MY_EXCEPTION. P0001"
    # A handler may raise the exception again; an inner block's uncaught one reaches the outer's.
    nested = one(
        cur,
        declared
        + """  BEGIN
    RAISE my_exception;
  EXCEPTION
    WHEN other THEN
      LET seen := 'inner';
      RAISE;
  END;
EXCEPTION
  WHEN my_exception THEN RETURN 'outer caught ' || sqlcode;
END;""",
    )
    assert nested == "outer caught -20002"


def test_a_failed_statement_is_a_statement_error(cur: Any) -> None:
    caught = one(
        cur,
        """BEGIN
  SELECT * FROM no_such_table;
  RETURN 'not reached';
EXCEPTION
  WHEN expression_error THEN RETURN 'expression';
  WHEN statement_error THEN RETURN sqlcode || ' ' || sqlstate;
END""",
    )
    assert caught == "2003 42S02"
    cur.execute("CREATE TABLE kept (a INT)")
    with pytest.raises(ProgrammingError) as raised:
        cur.execute("BEGIN\n  INSERT INTO kept VALUES (1);\n  INSERT INTO kept VALUES ('x');\nEND")
    assert raised.value.errno == 100038
    assert "Uncaught exception of type 'STATEMENT_ERROR' on line 3 at position 2" in str(raised.value)
    # Each statement commits on its own (AUTOCOMMIT): the first insert stays; the session goes on.
    assert one(cur, "SELECT COUNT(*) FROM kept") == 1
    with pytest.raises(ProgrammingError) as raised:
        cur.execute("BEGIN\n  LET x := 1 / 0;\nEND")
    assert "Uncaught exception of type 'EXPRESSION_ERROR' on line 2" in str(raised.value)
    assert raised.value.errno == 100051
    with pytest.raises(ProgrammingError) as raised:
        cur.execute("BEGIN\n  RETURN undeclared_name;\nEND")
    assert raised.value.errno == 904
    assert "invalid identifier 'UNDECLARED_NAME'" in str(raised.value)
    with pytest.raises(ProgrammingError) as raised:
        cur.execute("BEGIN\n  x := 1;\nEND")
    assert "Undeclared variable 'X'" in str(raised.value)
    with pytest.raises(ProgrammingError) as raised:
        cur.execute("BEGIN IF (TRUE) THEN RETURN 1; END")
    assert raised.value.errno == 1003
    assert one(cur, "SELECT 42") == 42


def test_execute_immediate_runs_the_statement_a_string_holds(cur: Any) -> None:
    cur.execute("CREATE TABLE imm AS SELECT column1 AS n FROM VALUES (1), (2), (3)")
    cur.execute("EXECUTE IMMEDIATE 'SELECT n FROM imm WHERE n > ? ORDER BY n' USING (1)")
    assert [d.name for d in cur.description] == ["N"]
    assert cur.fetchall() == [(2,), (3,)]
    cur.execute("SET stmt = 'SELECT COUNT(*) FROM imm'")
    assert one(cur, "EXECUTE IMMEDIATE $stmt") == 3
    assert one(cur, "EXECUTE IMMEDIATE 'BEGIN RETURN 7; END;'") == 7
    with pytest.raises(ProgrammingError) as raised:
        cur.execute("EXECUTE IMMEDIATE 'SELECT * FROM no_such_table'")
    assert raised.value.errno == 2003
    assert "Uncaught" not in str(raised.value)


def test_blocks_among_other_statements_and_transactions(cur: Any) -> None:
    cur.execute("SELECT 1; DECLARE x INT := 5; BEGIN RETURN x * 2; END; SELECT 3", num_statements=3)
    assert cur.fetchall() == [(1,)]
    assert cur.nextset()
    assert cur.fetchall() == [(10,)]
    assert cur.nextset()
    assert cur.fetchall() == [(3,)]
    cur.execute("CREATE TABLE tx (a INT)")
    one(cur, "BEGIN\n  BEGIN TRANSACTION;\n  INSERT INTO tx VALUES (1);\n  ROLLBACK;\n  RETURN 0;\nEND")
    assert one(cur, "SELECT COUNT(*) FROM tx") == 0
    cur.execute("BEGIN")  # still a transaction, not a block
    cur.execute("INSERT INTO tx VALUES (2)")
    cur.execute("COMMIT")
    assert one(cur, "SELECT COUNT(*) FROM tx") == 1


def test_a_block_stops_at_the_statement_timeout(cur: Any) -> None:
    cur.execute("ALTER SESSION SET STATEMENT_TIMEOUT_IN_SECONDS = 1")
    with pytest.raises(ProgrammingError) as raised:
        cur.execute("DECLARE n INT DEFAULT 0; BEGIN LOOP n := n + 1; END LOOP; END")
    assert raised.value.errno == 630
    cur.execute("ALTER SESSION UNSET STATEMENT_TIMEOUT_IN_SECONDS")
    assert one(cur, "SELECT 1") == 1


def test_documented_stored_procedure(cur: Any) -> None:
    """https://docs.snowflake.com/en/developer-guide/stored-procedure/stored-procedures-snowflake-scripting"""
    created = one(
        cur,
        """CREATE OR REPLACE PROCEDURE output_message(message VARCHAR)
RETURNS VARCHAR NOT NULL
LANGUAGE SQL
AS
BEGIN
  RETURN message;
END;""",
    )
    assert created == "Function OUTPUT_MESSAGE successfully created."
    assert one(cur, "CALL output_message('Hello World')") == "Hello World"
    assert [d.name for d in cur.description] == ["OUTPUT_MESSAGE"]


def test_procedures_take_defaults_named_arguments_and_return_tables(cur: Any) -> None:
    cur.execute(
        """CREATE OR REPLACE PROCEDURE area(r FLOAT, label VARCHAR DEFAULT 'area')
RETURNS VARCHAR
LANGUAGE SQL
AS
$$
DECLARE
  a FLOAT;
BEGIN
  a := PI() * r * r;
  RETURN label || '=' || ROUND(a, 2);
END;
$$"""
    )
    assert one(cur, "CALL area(2)") == "area=12.57"
    assert one(cur, "CALL area(label => 'one', r => 1)") == "one=3.14"
    cur.execute(
        "CREATE TABLE people AS SELECT column1 AS id, column2 AS name FROM VALUES (1, 'ann'), (2, 'bob')"
    )
    cur.execute(
        """CREATE PROCEDURE people_from(min_id INT)
RETURNS TABLE (id INT, name VARCHAR)
LANGUAGE SQL
AS $$
DECLARE
  res RESULTSET DEFAULT (SELECT id, name FROM people WHERE id >= :min_id ORDER BY id);
BEGIN
  RETURN TABLE(res);
END;
$$"""
    )
    cur.execute("CALL people_from(2)")
    assert cur.fetchall() == [(2, "bob")]
    # A block calls a procedure with its own variables.
    assert one(cur, "DECLARE x INT DEFAULT 3; BEGIN CALL area(:x); RETURN SQLROWCOUNT; END") == 1
    # CALL ... INTO keeps the procedure's value.
    block = "DECLARE r VARCHAR; BEGIN CALL area(1, 'unit') INTO :r; RETURN 'got ' || r; END"
    assert one(cur, block) == "got unit=3.14"
    cur.execute("SHOW PROCEDURES")
    shown = {row[1]: row for row in cur.fetchall()}
    assert shown["AREA"][8] == "AREA(FLOAT, VARCHAR) RETURN VARCHAR"
    assert (shown["AREA"][6], shown["AREA"][7]) == (1, 2)
    assert shown["PEOPLE_FROM"][11] == "Y"
    cur.execute("DESCRIBE PROCEDURE area(FLOAT, VARCHAR)")
    described = dict(cur.fetchall())
    assert described["signature"] == "(R FLOAT, LABEL VARCHAR)"
    assert (described["returns"], described["language"]) == ("VARCHAR(16777216)", "SQL")
    assert "RETURN label || '=' || ROUND(a, 2);" in described["body"]


def test_procedure_errors(cur: Any) -> None:
    with pytest.raises(ProgrammingError) as raised:
        cur.execute("CALL no_such_procedure(1)")
    assert (raised.value.errno, raised.value.sqlstate) == (2141, "42601")
    cur.execute("CREATE PROCEDURE twice() RETURNS INT LANGUAGE SQL AS 'BEGIN RETURN 1; END'")
    with pytest.raises(ProgrammingError) as raised:
        cur.execute("CREATE PROCEDURE twice() RETURNS INT LANGUAGE SQL AS 'BEGIN RETURN 2; END'")
    assert raised.value.errno == 2002
    assert one(cur, "CALL twice()") == 1
    with pytest.raises(ProgrammingError) as raised:
        cur.execute("CREATE PROCEDURE jv() RETURNS INT LANGUAGE JAVA HANDLER = 'A.run' AS 'class A {}'")
    assert raised.value.sqlstate == "0A000"
    with pytest.raises(ProgrammingError) as raised:
        cur.execute("CREATE PROCEDURE broken() RETURNS INT LANGUAGE SQL AS 'BEGIN RETURN 1 END'")
    assert raised.value.errno == 1003
    cur.execute("DROP PROCEDURE twice()")
    with pytest.raises(ProgrammingError) as raised:
        cur.execute("DROP PROCEDURE twice()")
    assert raised.value.errno == 2003
    cur.execute("DROP PROCEDURE IF EXISTS twice()")


def test_documented_anonymous_procedure(cur: Any) -> None:
    """https://docs.snowflake.com/en/sql-reference/sql/call-with"""
    result = one(
        cur,
        """WITH anonymous_output_message AS PROCEDURE (message VARCHAR)
  RETURNS VARCHAR NOT NULL
  LANGUAGE SQL
  AS
  $$
  BEGIN
    RETURN message;
  END;
  $$
CALL anonymous_output_message('Hello World')""",
    )
    assert result == "Hello World"
    assert [d.name for d in cur.description] == ["ANONYMOUS_OUTPUT_MESSAGE"]
    # Nothing was kept: the procedure exists for that one call.
    with pytest.raises(ProgrammingError) as raised:
        cur.execute("CALL anonymous_output_message('again')")
    assert raised.value.errno == 2141

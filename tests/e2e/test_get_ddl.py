"""GET_DDL for tables, views, functions, procedures, schemas and databases, in Snowflake's layout.
https://docs.snowflake.com/en/sql-reference/functions/get_ddl"""

from __future__ import annotations

from typing import Any

import pytest
from snowflake.connector.errors import ProgrammingError


def _ddl(cur: Any, *args: str) -> str:
    quoted = ", ".join(a if a in ("TRUE", "FALSE") else f"'{a}'" for a in args)
    ((text,),) = cur.execute(f"SELECT GET_DDL({quoted})").fetchall()
    return str(text)


def test_table_ddl_lists_each_column_on_its_own_line(cur: Any) -> None:
    cur.execute("CREATE TABLE books_table (id INT, title VARCHAR(255), author VARCHAR(255))")
    assert _ddl(cur, "TABLE", "books_table") == (
        "create or replace TABLE BOOKS_TABLE (\n"
        "\tID NUMBER(38,0),\n"
        "\tTITLE VARCHAR(255),\n"
        "\tAUTHOR VARCHAR(255)\n"
        ");"
    )


def test_table_ddl_carries_not_null_defaults_comments_and_quoting(cur: Any) -> None:
    cur.execute(
        "CREATE TABLE t (a INT NOT NULL DEFAULT 5, c VARCHAR(10) COMMENT 'cc', \"Mixed Case\" BOOLEAN)"
    )
    text = _ddl(cur, "TABLE", "t")
    assert "\tA NUMBER(38,0) NOT NULL DEFAULT 5,\n" in text
    assert "\tC VARCHAR(10) COMMENT 'cc',\n" in text
    assert '\t"Mixed Case" BOOLEAN\n' in text


def test_the_ddl_recreates_the_same_table(cur: Any) -> None:
    cur.execute("CREATE TABLE t (a NUMBER(10,2) NOT NULL, b TIMESTAMP_NTZ DEFAULT CURRENT_TIMESTAMP())")
    before = cur.execute("DESCRIBE TABLE t").fetchall()
    cur.execute(_ddl(cur, "TABLE", "t"))
    assert cur.execute("DESCRIBE TABLE t").fetchall() == before


def test_fully_qualified_names_on_request(cur: Any, database: str) -> None:
    cur.execute("CREATE TABLE t (a INT)")
    assert _ddl(cur, "TABLE", "t", "TRUE").startswith(f"create or replace TABLE {database}.PUBLIC.T (\n")
    assert _ddl(cur, "TABLE", "t", "FALSE").startswith("create or replace TABLE T (\n")


def test_transient_table(cur: Any) -> None:
    cur.execute("CREATE TRANSIENT TABLE t (a INT)")
    assert _ddl(cur, "TABLE", "t").startswith("create or replace transient TABLE T (\n")


def test_view_ddl(cur: Any) -> None:
    cur.execute("CREATE TABLE books_table (title VARCHAR, author VARCHAR)")
    cur.execute("CREATE VIEW books_view AS SELECT title, author FROM books_table")
    assert _ddl(cur, "VIEW", "books_view") == (
        "create or replace view BOOKS_VIEW AS SELECT title, author FROM books_table;"
    )


def test_schema_ddl_is_recursive(cur: Any) -> None:
    cur.execute("CREATE SCHEMA books_schema")
    cur.execute("CREATE TABLE books_schema.books_table (id INT)")
    cur.execute("CREATE VIEW books_schema.books_view AS SELECT id FROM books_schema.books_table")
    assert _ddl(cur, "SCHEMA", "books_schema") == (
        "create or replace schema BOOKS_SCHEMA;\n\n"
        "create or replace TABLE BOOKS_TABLE (\n\tID NUMBER(38,0)\n);\n\n"
        "create or replace view BOOKS_VIEW AS SELECT id FROM books_schema.books_table;"
    )


def test_database_ddl_holds_its_schemas(cur: Any, database: str) -> None:
    cur.execute("CREATE TABLE t (a INT)")
    text = _ddl(cur, "DATABASE", database)
    assert text.startswith(f"create or replace database {database};\n\ncreate or replace schema PUBLIC;")
    assert "create or replace TABLE T (\n\tA NUMBER(38,0)\n);" in text


def test_missing_objects_and_unknown_kinds_fail(cur: Any) -> None:
    with pytest.raises(ProgrammingError) as e:
        cur.execute("SELECT GET_DDL('TABLE', 'nowhere')")
    assert e.value.errno == 2003
    with pytest.raises(ProgrammingError) as e:
        cur.execute("SELECT GET_DDL('VIEW', 'nowhere')")
    assert e.value.errno == 2003


def test_function_and_procedure_ddl_recreates_them(cur: Any) -> None:
    cur.execute("CREATE FUNCTION twice(x NUMBER(10, 2)) RETURNS NUMBER(10, 2) AS 'x * 2'")
    cur.execute(
        "CREATE PROCEDURE greet(who VARCHAR, n INT DEFAULT 1) RETURNS VARCHAR LANGUAGE SQL "
        "AS $$ BEGIN RETURN 'it''s ' || who || n; END $$"
    )
    function = _ddl(cur, "FUNCTION", "twice(NUMBER(10, 2))")
    assert function == (
        "CREATE OR REPLACE FUNCTION TWICE(X NUMBER(10, 2))\nRETURNS NUMBER(10, 2)\nLANGUAGE SQL\nAS 'x * 2';"
    )
    procedure = _ddl(cur, "PROCEDURE", "greet(VARCHAR, NUMBER)")
    assert "GREET" in _ddl(cur, "SCHEMA", "PUBLIC")
    cur.execute("DROP FUNCTION twice(NUMBER(10, 2))")
    cur.execute("DROP PROCEDURE greet(VARCHAR, NUMBER)")
    cur.execute(function)
    cur.execute(procedure)
    assert cur.execute("SELECT twice(1.5)").fetchone()[0] == 3
    assert cur.execute("CALL greet('you')").fetchone() == ("it's you1",)
    with pytest.raises(ProgrammingError) as e:
        cur.execute("SELECT GET_DDL('FUNCTION', 'twice(VARCHAR)')")
    assert e.value.errno == 2003

"""User-defined SQL functions through the connector: scalar and tabular, inlined where called.
The first examples are the Snowflake documentation's (Introduction to SQL UDFs)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from snowflake.connector.errors import ProgrammingError


@pytest.fixture
def purchases(cur: Any) -> Any:
    cur.execute(
        "CREATE TABLE purchases (number_sold INTEGER, wholesale_price NUMBER(7,2), retail_price NUMBER(7,2))"
    )
    cur.execute("INSERT INTO purchases VALUES (3, 10.00, 20.00), (5, 100.00, 200.00)")
    return cur


def test_documented_scalar_functions(purchases: Any) -> None:
    """https://docs.snowflake.com/en/developer-guide/udf/sql/udf-sql-scalar-functions"""
    created = purchases.execute(
        "CREATE FUNCTION area_of_circle(radius FLOAT) RETURNS FLOAT AS $$ pi() * radius * radius $$"
    ).fetchone()
    assert created == ("Function AREA_OF_CIRCLE successfully created.",)
    purchases.execute("SELECT area_of_circle(1.0)")
    assert purchases.fetchone()[0] == pytest.approx(3.141592654)
    assert [d.name for d in purchases.description] == ["AREA_OF_CIRCLE(1.0)"]
    purchases.execute(
        """CREATE FUNCTION profit()
  RETURNS NUMERIC(11, 2)
  AS
  $$
    SELECT SUM((retail_price - wholesale_price) * number_sold)
        FROM purchases
  $$"""
    )
    assert purchases.execute("SELECT profit()").fetchone() == (Decimal("530.00"),)
    assert (purchases.description[0].precision, purchases.description[0].scale) == (11, 2)
    # A body may be any query that gives one value, a WITH query too.
    purchases.execute(
        "CREATE FUNCTION best_sale() RETURNS NUMBER(7, 2) AS "
        "$$ WITH s AS (SELECT retail_price FROM purchases) SELECT MAX(retail_price) FROM s $$"
    )
    assert purchases.execute("SELECT best_sale()").fetchone() == (Decimal("200.00"),)


def test_arguments_are_cast_named_defaulted_and_nested(cur: Any) -> None:
    cur.execute("CREATE FUNCTION add1(x NUMBER) RETURNS NUMBER LANGUAGE SQL AS 'x + 1'")
    cur.execute(
        "CREATE FUNCTION greet(name VARCHAR, greeting VARCHAR DEFAULT 'Hello') RETURNS VARCHAR "
        "AS $$ greeting || ', ' || name $$"
    )
    cur.execute("SELECT add1(2), add1('41'), add1(2.6), add1(add1(1)) AS twice, add1(x => 9), add1(NULL)")
    assert cur.fetchone() == (3, 42, 4, 3, 10, None)
    assert [d.name for d in cur.description][:3] == ["ADD1(2)", "ADD1('41')", "ADD1(2.6)"]
    cur.execute("SELECT greet('Ann'), greet('Bob', 'Hi'), greet(greeting => 'Hey', name => 'Cy')")
    assert cur.fetchone() == ("Hello, Ann", "Hi, Bob", "Hey, Cy")
    database = cur.execute("SELECT CURRENT_DATABASE()").fetchone()[0]
    assert cur.execute(f"SELECT {database}.public.add1(1)").fetchone() == (2,)


def test_functions_in_views_dml_and_blocks(purchases: Any) -> None:
    cur = purchases
    cur.execute(
        "CREATE FUNCTION margin(retail NUMBER(7,2), wholesale NUMBER(7,2)) RETURNS NUMBER(7,2) "
        "AS 'retail - wholesale'"
    )
    cur.execute(
        "CREATE VIEW margins AS SELECT number_sold, margin(retail_price, wholesale_price) AS m FROM purchases"
    )
    assert cur.execute("SELECT m FROM margins ORDER BY number_sold").fetchall() == [
        (Decimal("10.00"),),
        (Decimal("100.00"),),
    ]
    cur.execute("INSERT INTO purchases SELECT 7, 1, margin(3, 1)")
    cur.execute("UPDATE purchases SET wholesale_price = margin(wholesale_price, 1) WHERE number_sold = 7")
    assert cur.execute(
        "SELECT wholesale_price, retail_price FROM purchases WHERE number_sold = 7"
    ).fetchone() == (
        Decimal("0.00"),
        Decimal("2.00"),
    )
    cur.execute("DECLARE a NUMBER(7,2) DEFAULT 5; BEGIN RETURN margin(a, 2); END")
    assert cur.fetchone() == (Decimal("3.00"),)


def test_a_redefined_function_is_used_at_once(cur: Any) -> None:
    cur.execute("CREATE FUNCTION f() RETURNS INT AS '1'")
    assert cur.execute("SELECT f()").fetchone() == (1,)
    cur.execute("CREATE OR REPLACE FUNCTION f() RETURNS INT AS '2'")
    assert cur.execute("SELECT f()").fetchone() == (2,)


def test_tabular_functions(purchases: Any) -> None:
    cur = purchases
    cur.execute(
        "CREATE FUNCTION sold_at_least(n INT) RETURNS TABLE (sold INT, price NUMBER(7, 2)) "
        "AS 'SELECT number_sold, retail_price FROM purchases WHERE number_sold >= n'"
    )
    cur.execute("SELECT * FROM TABLE(sold_at_least(4))")
    assert [d.name for d in cur.description] == ["SOLD", "PRICE"]
    assert cur.fetchall() == [(5, Decimal("200.00"))]
    cur.execute("SELECT s.sold FROM TABLE(sold_at_least(1)) AS s ORDER BY s.sold")
    assert cur.fetchall() == [(3,), (5,)]


def test_show_describe_drop_and_errors(cur: Any) -> None:
    cur.execute("CREATE FUNCTION add1(x NUMBER) RETURNS NUMBER AS 'x + 1'")
    cur.execute("SHOW USER FUNCTIONS LIKE 'ADD%'")
    (row,) = cur.fetchall()
    names = [d.name for d in cur.description]
    assert row[names.index("arguments")] == "ADD1(NUMBER) RETURN NUMBER"
    assert row[names.index("language")] == "SQL"
    described = dict(cur.execute("DESCRIBE FUNCTION add1(NUMBER)").fetchall())
    assert (described["signature"], described["returns"], described["body"]) == (
        "(X NUMBER)",
        "NUMBER(38,0)",
        "x + 1",
    )
    with pytest.raises(ProgrammingError) as raised:
        cur.execute("SELECT add1(1, 2)")
    assert (raised.value.errno, raised.value.sqlstate) == (1044, "42P13")
    with pytest.raises(ProgrammingError) as raised:
        cur.execute("SELECT * FROM TABLE(add1(1))")
    assert "can only be called as a scalar expression" in str(raised.value)
    cur.execute("CREATE FUNCTION forever(x INT) RETURNS INT AS 'forever(x) + 1'")
    with pytest.raises(ProgrammingError) as raised:
        cur.execute("SELECT forever(1)")
    assert "calls itself" in str(raised.value)
    with pytest.raises(ProgrammingError) as raised:
        cur.execute("CREATE FUNCTION bad(x INT) RETURNS INT AS 'x +'")
    assert raised.value.errno == 1003
    cur.execute("DROP FUNCTION add1(NUMBER)")
    with pytest.raises(ProgrammingError) as raised:
        cur.execute("SELECT add1(1)")
    assert raised.value.errno == 2140
    assert "Unknown function ADD1" in str(raised.value)
    assert cur.execute("SELECT 1").fetchone() == (1,)


def test_information_schema_lists_functions_and_procedures(cur: Any) -> None:
    cur.execute("CREATE FUNCTION add1(x NUMBER(10, 2)) RETURNS NUMBER(12, 2) AS 'x + 1'")
    cur.execute("CREATE FUNCTION label(x VARCHAR) RETURNS VARCHAR(20) COMMENT = 'labels' AS $$ 'n=' || x $$")
    cur.execute("CREATE PROCEDURE noop() RETURNS VARCHAR LANGUAGE SQL AS 'BEGIN RETURN 1; END'")
    cur.execute(
        "SELECT function_name, argument_signature, data_type, numeric_precision, numeric_scale, "
        "character_maximum_length, function_language, function_definition, comment "
        "FROM information_schema.functions ORDER BY function_name"
    )
    assert cur.fetchall() == [
        ("ADD1", "(X NUMBER)", "NUMBER", 12, 2, None, "SQL", "x + 1", None),
        ("LABEL", "(X VARCHAR)", "TEXT", None, None, 20, "SQL", " 'n=' || x ", "labels"),
    ]
    cur.execute(
        "SELECT procedure_name, argument_signature, procedure_definition FROM information_schema.procedures"
    )
    assert cur.fetchall() == [("NOOP", "()", "BEGIN RETURN 1; END")]

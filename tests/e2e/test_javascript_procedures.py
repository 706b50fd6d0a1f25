"""Stored procedures in JavaScript through the connector: the documentation's examples, the
`snowflake` object's statements and result sets, and how failures reach the caller.
https://docs.snowflake.com/en/sql-reference/stored-procedures-api"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest
from snowflake.connector.errors import ProgrammingError


def one(cur: Any, sql: str) -> Any:
    (row,) = cur.execute(sql).fetchall()
    (value,) = row
    return value


def test_documented_insert_with_try_catch(cur: Any) -> None:
    """https://docs.snowflake.com/en/developer-guide/stored-procedure/stored-procedures-javascript"""
    cur.execute("CREATE TABLE stproc_test_table1 (num_col1 NUMERIC(15, 3))")
    cur.execute(
        """CREATE OR REPLACE PROCEDURE stproc1(FLOAT_PARAM1 FLOAT)
    RETURNS STRING
    LANGUAGE JAVASCRIPT
    STRICT
    EXECUTE AS OWNER
    AS
    $$
    var sql_command =
     "INSERT INTO stproc_test_table1 (num_col1) VALUES (" + FLOAT_PARAM1 + ")";
    try {
        snowflake.execute (
            {sqlText: sql_command}
            );
        return "Succeeded.";   // Return a success/error indicator.
        }
    catch (err)  {
        return "Failed: " + err;   // Return a success/error indicator.
        }
    $$
    ;"""
    )
    assert one(cur, "CALL stproc1(5.14::FLOAT)") == "Succeeded."
    assert [d.name for d in cur.description] == ["STPROC1"]
    assert one(cur, "SELECT num_col1 FROM stproc_test_table1") == Decimal("5.140")


def test_arguments_are_upper_case_names_and_the_return_value_is_cast(cur: Any) -> None:
    cur.execute(
        "CREATE PROCEDURE scaled(x FLOAT, label VARCHAR) RETURNS VARCHAR LANGUAGE JAVASCRIPT "
        "AS $$ return LABEL + '=' + (X * 2); $$"
    )
    assert one(cur, "CALL scaled(1.25, 'x')") == "x=2.5"
    cur.execute("CREATE PROCEDURE half(n FLOAT) RETURNS FLOAT LANGUAGE JAVASCRIPT AS $$ return N / 2; $$")
    assert one(cur, "CALL half(5)") == 2.5
    cur.execute("CREATE PROCEDURE yes() RETURNS BOOLEAN LANGUAGE JAVASCRIPT AS $$ return 1 < 2; $$")
    assert one(cur, "CALL yes()") is True
    cur.execute("CREATE PROCEDURE nothing() RETURNS VARCHAR LANGUAGE JAVASCRIPT AS $$ return; $$")
    assert one(cur, "CALL nothing()") is None
    cur.execute(
        "CREATE PROCEDURE doc(n FLOAT) RETURNS VARIANT LANGUAGE JAVASCRIPT "
        "AS $$ return {n: N, list: [1, 'two', null], nested: {ok: true}}; $$"
    )
    assert json.loads(one(cur, "CALL doc(3)")) == {"n": 3, "list": [1, "two", None], "nested": {"ok": True}}


def test_dates_cross_as_their_utc_day_whatever_the_session_time_zone(cur: Any) -> None:
    cur.execute("ALTER SESSION SET TIMEZONE = 'America/Los_Angeles'")
    cur.execute(
        "CREATE PROCEDURE leap() RETURNS DATE LANGUAGE JAVASCRIPT "
        "AS $$ return new Date(Date.UTC(2024, 1, 29)); $$"
    )
    assert one(cur, "CALL leap()").isoformat() == "2024-02-29"
    cur.execute(
        "CREATE PROCEDURE shown(d DATE) RETURNS VARCHAR LANGUAGE JAVASCRIPT AS $$ return D.toISOString(); $$"
    )
    assert one(cur, "CALL shown('2024-02-28'::DATE)") == "2024-02-28T00:00:00.000Z"


def test_result_sets_give_each_type_as_javascript_sees_it(cur: Any) -> None:
    cur.execute("CREATE TABLE typed (id INT, name VARCHAR, amount NUMBER(10, 2), d DATE, v VARIANT)")
    cur.execute(
        "INSERT INTO typed SELECT 1, 'one', 1.25, '2024-01-02', PARSE_JSON('{\"a\": [1, 2]}') "
        "UNION ALL SELECT 2, NULL, NULL, NULL, NULL"
    )
    cur.execute(
        """CREATE PROCEDURE walk() RETURNS VARIANT LANGUAGE JAVASCRIPT AS $$
        var rs = snowflake.execute({sqlText: 'SELECT id, name, amount, d, v FROM typed ORDER BY id'});
        var rows = [];
        while (rs.next()) {
          var d = rs.getColumnValue('D');
          rows.push({
            id: rs.getColumnValue(1), name: rs.getColumnValue('name'), amount: rs.getColumnValue(3),
            amount_text: rs.getColumnValueAsString(3), day: d === null ? null : d.toISOString(),
            a: rs.getColumnValue(5) === null ? null : rs.getColumnValue(5).a
          });
        }
        return {rows: rows, count: rs.getRowCount(), columns: rs.getColumnCount(),
                first: rs.getColumnName(1)};
        $$"""
    )
    assert json.loads(one(cur, "CALL walk()")) == {
        "rows": [
            {"id": 1, "name": "one", "amount": 1.25, "amount_text": "1.25", "day": "2024-01-02T00:00:00.000Z",
             "a": [1, 2]},
            {"id": 2, "name": None, "amount": None, "amount_text": "", "day": None, "a": None},
        ],
        "count": 2,
        "columns": 5,
        "first": "ID",
    }  # fmt: skip


def test_statements_bind_values_and_count_the_rows_they_change(cur: Any) -> None:
    cur.execute("CREATE TABLE counted (id INT, name VARCHAR)")
    cur.execute(
        """CREATE PROCEDURE fill(n FLOAT) RETURNS VARIANT LANGUAGE JAVASCRIPT AS $$
        var counts = [];
        for (var i = 1; i <= N; i++) {
          var st = snowflake.createStatement(
            {sqlText: 'INSERT INTO counted VALUES (?, ?)', binds: [i, 'n' + i]});
          st.execute();
          counts.push(st.getNumRowsInserted());
        }
        var up = snowflake.createStatement(
          {sqlText: 'UPDATE counted SET name = ? WHERE id > ?', binds: ['big', 1]});
        up.execute();
        var del = snowflake.createStatement({sqlText: 'DELETE FROM counted WHERE id = ?', binds: [1]});
        del.execute();
        return {inserted: counts, updated: up.getNumRowsAffected(), deleted: del.getNumRowsDeleted(),
                text: del.getSqlText()};
        $$"""
    )
    assert json.loads(one(cur, "CALL fill(3)")) == {
        "inserted": [1, 1, 1],
        "updated": 2,
        "deleted": 1,
        "text": "DELETE FROM counted WHERE id = ?",
    }
    assert cur.execute("SELECT id, name FROM counted ORDER BY id").fetchall() == [(2, "big"), (3, "big")]


def test_a_caught_statement_error_carries_snowflake_code_state_and_message(cur: Any) -> None:
    cur.execute(
        """CREATE PROCEDURE careful() RETURNS VARIANT LANGUAGE JAVASCRIPT AS $$
        try {
          snowflake.execute({sqlText: 'SELECT * FROM no_such_table'});
          return 'not reached';
        } catch (err) {
          return {code: err.code, state: err.state, message: err.message};
        }
        $$"""
    )
    caught = json.loads(one(cur, "CALL careful()"))
    assert (caught["code"], caught["state"]) == (2003, "42S02")
    assert "NO_SUCH_TABLE' does not exist or not authorized" in caught["message"]


def test_uncaught_failures_fail_the_call_and_the_session_goes_on(cur: Any) -> None:
    cur.execute(
        "CREATE PROCEDURE careless() RETURNS FLOAT LANGUAGE JAVASCRIPT "
        "AS $$ snowflake.execute({sqlText: 'SELECT * FROM no_such_table'}); return 1; $$"
    )
    with pytest.raises(ProgrammingError) as e:
        cur.execute("CALL careless()")
    assert (e.value.errno, e.value.sqlstate) == (100183, "P0000")
    assert "Execution error in store procedure CARELESS" in e.value.msg
    cur.execute(
        "CREATE PROCEDURE thrower() RETURNS FLOAT LANGUAGE JAVASCRIPT AS $$ throw new Error('boom'); $$"
    )
    with pytest.raises(ProgrammingError) as e:
        cur.execute("CALL thrower()")
    assert (e.value.errno, e.value.sqlstate) == (100132, "P0000")
    assert "Uncaught Error: boom in THROWER" in e.value.msg
    cur.execute("CREATE PROCEDURE broken() RETURNS FLOAT LANGUAGE JAVASCRIPT AS $$ return ( $$")
    with pytest.raises(ProgrammingError) as e:
        cur.execute("CALL broken()")
    assert e.value.errno == 100131
    assert "JavaScript compilation error" in e.value.msg
    assert one(cur, "SELECT 1") == 1


def test_an_anonymous_javascript_procedure(cur: Any) -> None:
    value = one(
        cur,
        "WITH twice AS PROCEDURE (s VARCHAR) RETURNS VARCHAR LANGUAGE JAVASCRIPT "
        "AS $$ return S + S; $$ CALL twice('ab')",
    )
    assert value == "abab"


def test_javascript_has_no_access_to_the_server(cur: Any) -> None:
    # QuickJS runs without its std/os modules: no files, processes or network from a body.
    cur.execute(
        """CREATE PROCEDURE probe() RETURNS VARCHAR LANGUAGE JAVASCRIPT AS $$
        return [typeof require, typeof std, typeof os, typeof process, typeof fetch].join(',');
        $$"""
    )
    assert one(cur, "CALL probe()") == "undefined,undefined,undefined,undefined,undefined"


# --- functions (UDFs) ---------------------------------------------------------------------------


def test_documented_array_reverse_function(cur: Any) -> None:
    """https://docs.snowflake.com/en/developer-guide/udf/javascript/udf-javascript-introduction"""
    cur.execute(
        """CREATE OR REPLACE FUNCTION my_array_reverse(a ARRAY)
  RETURNS ARRAY
  LANGUAGE JAVASCRIPT
AS
$$
  return A.reverse();
$$
;"""
    )
    assert json.loads(one(cur, "SELECT my_array_reverse(ARRAY_CONSTRUCT(1, 'two', 3))")) == [3, "two", 1]


def test_functions_run_per_row_with_snowflake_null_rules(cur: Any) -> None:
    # A SQL NULL argument is undefined in JavaScript, a VARIANT's JSON null is null; STRICT skips
    # rows with a NULL argument; undefined or null returned is SQL NULL.
    cur.execute(
        "CREATE FUNCTION kind_of(v VARIANT) RETURNS VARCHAR LANGUAGE JAVASCRIPT "
        "AS 'return typeof V + \":\" + V;'"
    )
    cur.execute("SELECT kind_of(NULL) AS a, kind_of(PARSE_JSON('null')) AS b, kind_of(PARSE_JSON('7')) AS c")
    assert cur.fetchall() == [("undefined:undefined", "object:null", "number:7")]
    cur.execute(
        "CREATE FUNCTION gap(a FLOAT, b FLOAT) RETURNS FLOAT LANGUAGE JAVASCRIPT STRICT AS 'return A - B;'"
    )
    cur.execute("CREATE FUNCTION maybe(a FLOAT) RETURNS FLOAT LANGUAGE JAVASCRIPT AS 'if (A > 1) return A;'")
    cur.execute("SELECT gap(5, 2) AS g, gap(NULL, 2) AS n, maybe(1) AS m, maybe(3) AS k")
    assert cur.fetchall() == [(3.0, None, None, 3.0)]


def test_functions_convert_to_their_declared_types_over_a_table(cur: Any) -> None:
    cur.execute("CREATE TABLE nums AS SELECT seq4() AS n FROM TABLE(GENERATOR(ROWCOUNT => 50000))")
    cur.execute(
        "CREATE FUNCTION third(x NUMBER(10, 2)) RETURNS NUMBER(10, 2) LANGUAGE JAVASCRIPT AS 'return X / 3;'"
    )
    cur.execute("CREATE FUNCTION label(x FLOAT) RETURNS VARCHAR LANGUAGE JAVASCRIPT AS $$ return 'n' + X; $$")
    cur.execute(
        "CREATE FUNCTION day_after(d DATE) RETURNS DATE LANGUAGE JAVASCRIPT "
        "AS $$ var t = new Date(D.getTime()); t.setUTCDate(t.getUTCDate() + 1); return t; $$"
    )
    assert one(cur, "SELECT third(10)") == Decimal("3.33")
    assert [d.scale for d in cur.description] == [2]
    assert one(cur, "SELECT day_after('2024-02-28'::DATE)").isoformat() == "2024-02-29"
    # Every row through the body, in batches: the same answer as SQL's own.
    expected = cur.execute(
        "SELECT COUNT(*), SUM(ROUND(n / 3, 2)), COUNT(DISTINCT n) FROM nums WHERE n::VARCHAR LIKE '1%'"
    ).fetchall()
    cur.execute(
        "SELECT COUNT(*), SUM(third(n)), COUNT(DISTINCT label(n)) FROM nums WHERE label(n) LIKE 'n1%'"
    )
    assert cur.fetchall() == expected


def test_function_failures_are_snowflake_errors(cur: Any) -> None:
    cur.execute(
        "CREATE FUNCTION picky(x FLOAT) RETURNS FLOAT LANGUAGE JAVASCRIPT "
        "AS $$ if (X > 2) throw 'too big'; return X; $$"
    )
    with pytest.raises(ProgrammingError) as e:
        cur.execute("SELECT picky(seq4()) FROM TABLE(GENERATOR(ROWCOUNT => 5))")
    assert (e.value.errno, e.value.sqlstate) == (100132, "P0000")
    assert "Uncaught too big in PICKY" in e.value.msg
    cur.execute("CREATE FUNCTION unfinished(x FLOAT) RETURNS FLOAT LANGUAGE JAVASCRIPT AS 'return (;'")
    with pytest.raises(ProgrammingError) as e:
        cur.execute("SELECT unfinished(1)")
    assert e.value.errno == 100131
    assert one(cur, "SELECT picky(2)") == 2.0

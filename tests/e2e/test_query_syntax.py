"""Query syntax through the connector: lateral aliases, PIVOT/UNPIVOT, DUAL, row order, set operators."""

from __future__ import annotations

import datetime
from decimal import Decimal
from typing import Any

import pytest
from snowflake.connector.errors import ProgrammingError

from tests.e2e.conftest import Server


@pytest.fixture
def sales(cur: Any) -> Any:
    cur.execute("CREATE TABLE sales (empid INT, amount INT, quarter TEXT)")
    cur.execute(
        "INSERT INTO sales VALUES (1, 100, 'Q1'), (1, 50, 'Q2'), (2, 70, 'Q1'), (1, 30, 'Q1'), (3, 5, 'Q2')"
    )
    return cur


def test_lateral_aliases_in_select_and_where(sales: Any) -> None:
    sales.execute("SELECT amount * 2 AS dbl, dbl + 1 AS plus FROM sales WHERE dbl > 100 ORDER BY plus")
    assert [d.name for d in sales.description] == ["DBL", "PLUS"]
    assert sales.fetchall() == [(140, 141), (200, 201)]


def test_a_column_wins_over_an_alias_of_the_same_name(sales: Any) -> None:
    sales.execute("SELECT empid * 10 AS amount FROM sales WHERE amount = 100")
    assert sales.fetchall() == [(10,)]


def test_pivot_any_and_default_on_null(sales: Any) -> None:
    sales.execute(
        "SELECT * FROM sales PIVOT(SUM(amount) FOR quarter IN (ANY ORDER BY quarter) DEFAULT ON NULL (0)) "
        "ORDER BY empid"
    )
    assert [d.name for d in sales.description] == ["EMPID", "'Q1'", "'Q2'"]
    assert sales.fetchall() == [(1, 130, 50), (2, 70, 0), (3, 0, 5)]


def test_unpivot_keeps_each_rows_columns_in_list_order(cur: Any) -> None:
    cur.execute("CREATE TABLE m (id INT, jan INT, feb INT)")
    cur.execute("INSERT INTO m VALUES (1, 10, NULL), (2, 20, 30)")
    cur.execute("SELECT * FROM m UNPIVOT (sales FOR month IN (jan, feb))")
    assert cur.fetchall() == [(1, "JAN", 10), (2, "JAN", 20), (2, "FEB", 30)]
    cur.execute("SELECT COUNT(*) FROM m UNPIVOT INCLUDE NULLS (sales FOR month IN (jan, feb))")
    assert cur.fetchone() == (4,)


def test_rows_come_back_in_insertion_order(cur: Any) -> None:
    cur.execute("CREATE TABLE o (id INT)")
    for i in (3, 1, 4, 2):
        cur.execute(f"INSERT INTO o VALUES ({i})")
    cur.execute("SELECT id FROM o")
    assert cur.fetchall() == [(3,), (1,), (4,), (2,)]


def test_union_all_gives_its_branches_in_the_order_written(cur: Any) -> None:
    """The branches run in parallel but their rows come back branch by branch (they once came in
    whichever order the branches finished)."""
    cur.execute("CREATE TABLE o (id INT)")
    cur.execute("INSERT INTO o SELECT seq4() FROM TABLE(GENERATOR(ROWCOUNT => 200000))")
    sql = (
        "SELECT CONCAT('>', c, '<') FROM (SELECT '  lead' AS c UNION ALL SELECT 'trail  ' "
        "UNION ALL SELECT NULL UNION ALL SELECT 'last')"
    )
    for _ in range(20):
        assert cur.execute(sql).fetchall() == [(">  lead<",), (">trail  <",), (None,), (">last<",)]
    rows = cur.execute("SELECT id FROM o UNION ALL SELECT -1 UNION ALL SELECT id + 1000000 FROM o").fetchall()
    assert len(rows) == 400001
    assert rows[200000] == (-1,)
    assert all(r[0] < 200000 for r in rows[:200000]) and all(r[0] >= 1000000 for r in rows[200001:])


def test_select_from_dual(cur: Any) -> None:
    cur.execute("SELECT 5 FROM DUAL")
    assert cur.fetchall() == [(5,)]


def test_set_operator_branches_of_different_widths(cur: Any) -> None:
    with pytest.raises(ProgrammingError) as info:
        cur.execute("SELECT 1 UNION SELECT 1, 2")
    assert info.value.errno == 1789
    assert info.value.sqlstate == "42601"


@pytest.mark.parametrize(
    ("branches", "expected", "got"),
    [
        (("id", "d"), "DATE", "NUMBER(38,0)"),  # DataFusion read 1 as 1970-01-02 or failed
        (("d", "id"), "NUMBER(38,0)", "DATE"),
        (("id", "b"), "BOOLEAN", "NUMBER(38,0)"),
        (("t", "ts"), "TIMESTAMP_NTZ(9)", "TIME(9)"),
        (("s", "id", "d"), "DATE", "NUMBER(38,0)"),  # the string took the NUMBER's type first
        (("v:k", "s"), "VARCHAR(16777216)", "VARIANT"),  # mixed JSON text with plain text
    ],
)
def test_set_operator_branches_of_types_that_cannot_meet(
    cur: Any, branches: tuple[str, ...], expected: str, got: str
) -> None:
    cur.execute(
        "CREATE TABLE mixed (id INT, d DATE, b BOOLEAN, t TIME, ts TIMESTAMP_NTZ, s VARCHAR, v VARIANT)"
    )
    cur.execute(
        "INSERT INTO mixed SELECT 1, '2024-01-02', TRUE, '10:00:00', '2024-01-02 03:04:05', '7', "
        "OBJECT_CONSTRUCT('k', 'a')"
    )
    for operator in ("UNION ALL", "UNION", "INTERSECT", "EXCEPT"):
        with pytest.raises(ProgrammingError) as info:
            cur.execute(f" {operator} ".join(f"SELECT {c} FROM mixed" for c in branches))
        assert info.value.sqlstate == "42601"
        assert (
            "inconsistent data type for result columns for set operator input branches, "
            f"expected {expected}, got {got}" in info.value.msg
        )
    # Types that fold still answer: a string takes the type it meets, NULL any, DATE a TIMESTAMP.
    cur.execute("SELECT id FROM mixed UNION ALL SELECT s FROM mixed UNION ALL SELECT NULL ORDER BY 1")
    assert cur.fetchall() == [(1,), (7,), (None,)]
    cur.execute("SELECT d FROM mixed UNION ALL SELECT ts FROM mixed ORDER BY 1")
    assert cur.fetchall() == [(datetime.datetime(2024, 1, 2),), (datetime.datetime(2024, 1, 2, 3, 4, 5),)]


def test_a_null_first_branch_takes_the_type_of_the_others(cur: Any) -> None:
    # The first branch's NULL typed the result as text: `SELECT NULL UNION ALL SELECT id` gave '1'.
    cur.execute("CREATE TABLE typed (id INT, d DATE, ts TIMESTAMP_NTZ, n NUMBER(10,2))")
    cur.execute("INSERT INTO typed VALUES (1, '2024-01-02', '2024-01-02 03:04:05', 1.5)")
    cur.execute(
        "SELECT NULL, NULL, NULL UNION ALL SELECT id, n, d FROM typed UNION ALL SELECT 2, 3, ts FROM typed"
    )
    assert sorted(cur.fetchall(), key=str) == [
        (1, Decimal("1.50"), datetime.datetime(2024, 1, 2)),
        (2, Decimal("3.00"), datetime.datetime(2024, 1, 2, 3, 4, 5)),
        (None, None, None),
    ]
    assert [d.type_code for d in cur.description] == [0, 0, 8]  # NUMBER, NUMBER, TIMESTAMP_NTZ
    cur.execute("CREATE VIEW nulls_first AS SELECT NULL AS x UNION ALL SELECT n FROM typed")
    assert cur.execute("DESCRIBE VIEW nulls_first").fetchone()[:2] == ("X", "NUMBER(10,2)")


def test_create_table_with_a_column_list_as_select(cur: Any) -> None:
    cur.execute("CREATE TABLE c (k INT, v TEXT) AS SELECT * FROM VALUES (1, 'a'), (2, 'b')")
    cur.execute("SELECT k, v FROM c ORDER BY k")
    assert [d.name for d in cur.description] == ["K", "V"]
    assert cur.fetchall() == [(1, "a"), (2, "b")]


def test_create_table_with_column_names_as_select(cur: Any) -> None:
    # Names without types rename the query's columns (they were ignored: columns '1' and 'X').
    cur.execute("CREATE TABLE named (k, v) AS SELECT 1, 'x'")
    cur.execute("INSERT INTO named (k, v) VALUES (2, 'y')")
    assert cur.execute("SELECT k, v FROM named ORDER BY k").fetchall() == [(1, "x"), (2, "y")]
    with pytest.raises(ProgrammingError) as e:
        cur.execute("CREATE TABLE narrow (k) AS SELECT 1, 2")
    assert e.value.errno == 2020


def test_ctes_read_more_than_once(sales: Any) -> None:
    # Each computed once by the server (shared_ctes): names, types and answers as when inlined.
    sales.execute(
        "WITH per_emp (emp, total) AS (SELECT empid, SUM(amount) FROM sales GROUP BY empid), "
        "top AS (SELECT MAX(total) AS best FROM per_emp) "
        "SELECT p.emp, p.total, t.best, (SELECT COUNT(*) FROM per_emp) AS n "
        "FROM per_emp p JOIN top t ON p.total * 2 >= t.best ORDER BY p.emp"
    )
    assert [d.name for d in sales.description] == ["EMP", "TOTAL", "BEST", "N"]
    assert sales.fetchall() == [(1, 180, 180, 3)]
    sales.execute(
        "WITH q AS (SELECT DISTINCT quarter, amount FROM sales WHERE amount > 10) "
        "SELECT quarter, amount FROM q WHERE quarter = 'Q1' UNION ALL SELECT 'all', SUM(amount) FROM q "
        "ORDER BY 2"
    )
    assert sales.fetchall() == [("Q1", 30), ("Q1", 70), ("Q1", 100), ("all", 250)]


def test_full_and_right_joins_by_using_or_natural_coalesce_their_keys(cur: Any) -> None:
    """A USING/NATURAL join column holds either side's key: rows only the right side has keep
    theirs (they came back NULL, DataFusion reading the left side's)."""
    cur.execute("CREATE TABLE d1 (id INT, v VARCHAR)")
    cur.execute("CREATE TABLE d2 (id INT, w VARCHAR)")
    cur.execute("INSERT INTO d1 VALUES (1, 'a'), (2, 'b')")
    cur.execute("INSERT INTO d2 VALUES (2, 'x'), (5, 'y')")
    everything = [(1, "a", None), (2, "b", "x"), (5, None, "y")]
    assert cur.execute("SELECT * FROM d1 NATURAL FULL OUTER JOIN d2 ORDER BY id").fetchall() == everything
    assert [d.name for d in cur.description] == ["ID", "V", "W"]
    assert cur.execute("SELECT * FROM d1 p FULL JOIN d2 q USING (id) ORDER BY id").fetchall() == everything
    rows = cur.execute("SELECT id, w FROM d1 RIGHT JOIN d2 USING (id) WHERE id > 1 ORDER BY id").fetchall()
    assert rows == [(2, "x"), (5, "y")]
    rows = cur.execute("SELECT d1.id, d2.id, id + 1 FROM d1 FULL JOIN d2 USING (id) GROUP BY ALL ORDER BY 3")
    assert rows.fetchall() == [(1, None, 2), (2, 2, 3), (None, 5, 6)]
    assert [d.name for d in cur.description] == ["ID", "ID", "ID + 1"]
    assert cur.execute("SELECT * FROM d1 LEFT JOIN d2 USING (id) ORDER BY id").fetchall() == everything[:2]
    cur.execute("CREATE TABLE d3 (id INT, z VARCHAR)")
    cur.execute("INSERT INTO d3 VALUES (5, 'five'), (1, 'one')")
    rows = cur.execute("SELECT * FROM d1 FULL JOIN d2 USING (id) JOIN d3 ON d3.id = id ORDER BY 1").fetchall()
    assert rows == [(1, "a", None, 1, "one"), (5, None, "y", 5, "five")]
    assert [d.name for d in cur.description] == ["ID", "V", "W", "ID", "Z"]


def test_a_cte_reading_itself_is_recursive_without_the_keyword(cur: Any) -> None:
    sql = "WITH c AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM c WHERE n < 3) SELECT n FROM c ORDER BY n"
    assert cur.execute(sql).fetchall() == [(1,), (2,), (3,)]
    with pytest.raises(ProgrammingError) as info:
        cur.execute("WITH b AS (SELECT 1 UNION SELECT * FROM b) SELECT * FROM b")
    assert (info.value.errno, info.value.sqlstate) == (1102, "42601")


def test_a_recursive_cte_read_for_some_of_its_columns(cur: Any) -> None:
    """DataFusion 54 prunes a recursive CTE's unread columns but not its work table's: the query
    failed ("project index 1 out of bounds") or read shifted columns."""
    fib = (
        "WITH RECURSIVE f (cur, prev) AS (SELECT 0, 1 UNION ALL SELECT cur + prev, cur FROM f "
        "WHERE cur + prev < 30) "
    )
    assert cur.execute(fib + "SELECT cur FROM f ORDER BY cur").fetchall() == [
        (v,) for v in (0, 1, 1, 2, 3, 5, 8, 13, 21)
    ]
    assert cur.execute(fib + "SELECT COUNT(*) FROM f").fetchall() == [(9,)]
    cur.execute("CREATE TABLE staff (id INT, boss INT, name TEXT, pad TEXT)")
    cur.execute("INSERT INTO staff VALUES (1, NULL, 'ann', 'x'), (2, 1, 'bob', 'y'), (3, 2, 'cy', 'z')")
    tree = (
        "WITH RECURSIVE t (id, name, depth) AS (SELECT id, name, 1 FROM staff WHERE boss IS NULL "
        "UNION ALL SELECT s.id, s.name, t.depth + 1 FROM staff s JOIN t ON s.boss = t.id) "
    )
    assert cur.execute(tree + "SELECT name FROM t ORDER BY name").fetchall() == [("ann",), ("bob",), ("cy",)]
    assert cur.execute(tree + "SELECT depth, name FROM t ORDER BY depth").fetchall() == [
        (1, "ann"),
        (2, "bob"),
        (3, "cy"),
    ]


@pytest.fixture
def employees(cur: Any) -> Any:
    """The table of Snowflake's CONNECT BY documentation."""
    cur.execute("CREATE TABLE employees (title VARCHAR, employee_ID INTEGER, manager_ID INTEGER)")
    cur.execute(
        "INSERT INTO employees (title, employee_ID, manager_ID) VALUES ('President', 1, NULL), "
        "('Vice President Engineering', 10, 1), ('Programmer', 100, 10), ('QA Engineer', 101, 10), "
        "('Vice President HR', 20, 1), ('Health Insurance Analyst', 200, 20)"
    )
    return cur


def test_connect_by_walks_the_hierarchy_from_start_with(employees: Any) -> None:
    employees.execute(
        "SELECT employee_ID, manager_ID, title, LEVEL FROM employees START WITH title = 'Vice President HR' "
        "CONNECT BY manager_ID = PRIOR employee_id ORDER BY employee_ID"
    )
    assert [d.name for d in employees.description] == ["EMPLOYEE_ID", "MANAGER_ID", "TITLE", "LEVEL"]
    assert employees.fetchall() == [(20, 1, "Vice President HR", 1), (200, 20, "Health Insurance Analyst", 2)]
    # A root that matches nothing gives no rows (the clauses were once ignored: every row came back).
    employees.execute(
        "SELECT title FROM employees START WITH title = 'CEO' CONNECT BY manager_ID = PRIOR employee_id"
    )
    assert employees.fetchall() == []


def test_connect_by_path_root_and_where(employees: Any) -> None:
    employees.execute(
        "SELECT SYS_CONNECT_BY_PATH(title, ' -> ') AS path, CONNECT_BY_ROOT title AS root, employee_ID "
        "FROM employees START WITH title = 'President' CONNECT BY manager_ID = PRIOR employee_id "
        "ORDER BY employee_ID"
    )
    rows = employees.fetchall()
    assert rows[0] == (" -> President", "President", 1)
    assert rows[3] == (" -> President -> Vice President Engineering -> Programmer", "President", 100)
    assert len(rows) == 6
    # WHERE filters the hierarchy's rows, not the rows it is built from.
    employees.execute(
        "SELECT e.title, LEVEL FROM employees e WHERE LEVEL = 3 START WITH e.employee_id = 1 "
        "CONNECT BY PRIOR e.employee_id = e.manager_id ORDER BY 1"
    )
    assert employees.fetchall() == [("Health Insurance Analyst", 3), ("Programmer", 3), ("QA Engineer", 3)]
    # Without START WITH every row is a root: 6 roots, 5 rows one level down, 3 two levels down.
    assert employees.execute(
        "SELECT COUNT(*) FROM employees CONNECT BY PRIOR employee_id = manager_id"
    ).fetchall() == [(14,)]
    employees.execute(
        "SELECT * FROM employees START WITH employee_id = 10 CONNECT BY PRIOR employee_id = manager_id"
    )
    assert [d.name for d in employees.description] == ["TITLE", "EMPLOYEE_ID", "MANAGER_ID"]
    assert sorted(employees.fetchall()) == [
        ("Programmer", 100, 10),
        ("QA Engineer", 101, 10),
        ("Vice President Engineering", 10, 1),
    ]


def test_connect_by_level_generates_rows(cur: Any) -> None:
    assert cur.execute("SELECT LEVEL FROM (SELECT 1 AS x) CONNECT BY LEVEL <= 4 ORDER BY 1").fetchall() == [
        (1,),
        (2,),
        (3,),
        (4,),
    ]


def test_connect_by_over_a_join_is_refused(employees: Any) -> None:
    with pytest.raises(ProgrammingError) as info:
        employees.execute(
            "SELECT t.title FROM employees t JOIN employees u ON t.manager_id = u.employee_id "
            "CONNECT BY t.manager_ID = PRIOR t.employee_id"
        )
    assert (info.value.errno, info.value.sqlstate) == (2, "0A000")
    assert employees.execute("SELECT COUNT(*) FROM employees").fetchall() == [(6,)]


def test_subquery_predicates_in_the_select_list(sales: Any) -> None:
    """EXISTS over a subquery as a value: uncorrelated anywhere a boolean goes, as Snowflake
    documents; correlated by equality and [NOT] IN too (Snowflake documents them for WHERE only),
    with IN's NULL semantics, named after their text.
    https://docs.snowflake.com/en/sql-reference/operators-subquery"""
    sales.execute("CREATE TABLE bonus (empid INT)")
    sales.execute("INSERT INTO bonus VALUES (1), (NULL)")
    sales.execute(
        "SELECT empid, EXISTS(SELECT 1 FROM bonus b WHERE b.empid = s.empid) AS has_bonus, "
        "empid IN (SELECT empid FROM bonus), empid NOT IN (SELECT empid FROM bonus WHERE empid IS NOT NULL) "
        "FROM (SELECT DISTINCT empid FROM sales) s ORDER BY empid"
    )
    assert [d.name for d in sales.description] == [
        "EMPID",
        "HAS_BONUS",
        "EMPID IN (SELECT EMPID FROM BONUS)",
        "EMPID NOT IN (SELECT EMPID FROM BONUS WHERE EMPID IS NOT NULL)",
    ]
    assert sales.fetchall() == [(1, True, True, False), (2, False, None, True), (3, False, None, True)]
    sales.execute("SELECT CASE WHEN EXISTS(SELECT 1 FROM bonus) THEN 'yes' ELSE 'no' END AS any_bonus")
    assert sales.fetchall() == [("yes",)]


def test_identifier_with_a_literal_name_reads_the_table(sales: Any, database: str) -> None:
    # https://docs.snowflake.com/en/sql-reference/identifier-literal: a string literal names the object.
    sales.execute("SELECT COUNT(*) FROM IDENTIFIER('sales') WHERE empid = 1")
    assert sales.fetchall() == [(3,)]
    sales.execute(
        "SELECT s.quarter, SUM(o.amount) FROM IDENTIFIER('sales') s "
        f"JOIN IDENTIFIER('{database}.public.sales') o ON s.empid = o.empid AND s.amount = o.amount "
        "GROUP BY 1 ORDER BY 1"
    )
    assert sales.fetchall() == [("Q1", 200), ("Q2", 55)]
    # A column named by IDENTIFIER is that column (and is named after it).
    sales.execute(
        "SELECT IDENTIFIER('empid'), IDENTIFIER('sales.amount') + 1 FROM sales WHERE IDENTIFIER('empid') = 2"
    )
    assert [d.name for d in sales.description] == ["EMPID", "IDENTIFIER('SALES.AMOUNT') + 1"]
    assert sales.fetchall() == [(2, 71)]


def test_table_with_a_name_reads_the_table(server: Server, sales: Any, database: str) -> None:
    # TABLE('name'), TABLE($var) and TABLE(?) name a table as IDENTIFIER does; TABLE(f(...)) stays
    # a table function.
    assert sales.execute("SELECT COUNT(*) FROM TABLE('sales') WHERE empid = 1").fetchall() == [(3,)]
    sales.execute(f"SET sales_table = '{database}.public.sales'")
    rows = sales.execute(
        "SELECT COUNT(*) FROM TABLE($sales_table) s "
        "JOIN TABLE('sales') o ON s.empid = o.empid AND s.amount = o.amount"
    ).fetchall()
    assert rows == sales.execute("SELECT COUNT(*) FROM sales").fetchall()
    assert sales.execute("SELECT COUNT(*) FROM TABLE(GENERATOR(ROWCOUNT => 3))").fetchall() == [(3,)]
    with server.connect(database=database, schema="PUBLIC", paramstyle="qmark") as conn:
        bound = conn.cursor().execute("SELECT COUNT(*) FROM TABLE(?) WHERE empid = 1", ["sales"]).fetchall()
    assert bound == [(3,)]


def test_keywords_and_operators_open_the_column_name(sales: Any) -> None:
    sales.execute(
        "SELECT -amount, -(amount + 1), NOT (amount > 50), CASE WHEN amount > 50 THEN 'big' END "
        "FROM sales WHERE empid = 2"
    )
    names = ["-AMOUNT", "-(AMOUNT + 1)", "NOT (AMOUNT > 50)", "CASE WHEN AMOUNT > 50 THEN 'BIG' END"]
    assert [d.name for d in sales.description] == names
    assert sales.fetchall() == [(-70, -71, False, "big")]


def test_asof_join_takes_the_latest_quote_at_or_before_each_trade(cur: Any) -> None:
    # https://docs.snowflake.com/en/sql-reference/constructs/asof-join
    cur.execute("CREATE TABLE trades (sym VARCHAR, t TIMESTAMP_NTZ, qty INT)")
    cur.execute("CREATE TABLE quotes (sym VARCHAR, t TIMESTAMP_NTZ, px NUMBER(10, 2))")
    cur.execute(
        "INSERT INTO trades VALUES ('A', '2024-01-01 10:00:05', 1), ('A', '2024-01-01 10:00:00', 2), "
        "('B', '2024-01-01 10:00:09', 3)"
    )
    cur.execute(
        "INSERT INTO quotes VALUES ('A', '2024-01-01 10:00:01', 10.5), ('A', '2024-01-01 10:00:04', 11), "
        "('A', '2024-01-01 10:00:06', 12), ('B', '2024-01-01 10:00:10', 20)"
    )
    cur.execute(
        "SELECT * FROM trades tr ASOF JOIN quotes q MATCH_CONDITION(tr.t >= q.t) ON tr.sym = q.sym "
        "ORDER BY tr.sym, tr.t"
    )
    assert [d.name for d in cur.description] == ["SYM", "T", "QTY", "SYM", "T", "PX"]
    assert [(r[0], r[2], r[5]) for r in cur.fetchall()] == [
        ("A", 2, None),
        ("A", 1, Decimal("11")),
        ("B", 3, None),
    ]


def test_star_ilike_rename_and_replace_over_a_table(cur: Any) -> None:
    """https://docs.snowflake.com/en/sql-reference/sql/select#examples"""
    cur.execute("CREATE TABLE emp (employee_id INT, last_name TEXT, first_name TEXT, dept_id INT)")
    cur.execute("INSERT INTO emp VALUES (101, 'Montgomery', 'Pat', 1)")
    cur.execute("SELECT * ILIKE '%id%' FROM emp")
    assert [d.name for d in cur.description] == ["EMPLOYEE_ID", "DEPT_ID"]
    assert cur.fetchall() == [(101, 1)]
    cur.execute("SELECT * RENAME (first_name AS fn, dept_id AS department) FROM emp")
    assert [d.name for d in cur.description] == ["EMPLOYEE_ID", "LAST_NAME", "FN", "DEPARTMENT"]
    assert cur.fetchall() == [(101, "Montgomery", "Pat", 1)]
    cur.execute("SELECT * EXCLUDE first_name REPLACE ('x' AS last_name) RENAME (dept_id AS d) FROM emp")
    assert [d.name for d in cur.description] == ["EMPLOYEE_ID", "LAST_NAME", "D"]
    assert cur.fetchall() == [(101, "x", 1)]
    cur.execute(
        "SELECT * ILIKE '%name' FROM emp e JOIN (SELECT 1 AS dept_id, 'Sales' AS dept_name) d USING (dept_id)"
    )
    assert cur.fetchall() == [("Montgomery", "Pat", "Sales")]


def test_positional_column_references(cur: Any) -> None:
    cur.execute("SELECT $1, $2 FROM VALUES (1, 'a'), (2, 'b') ORDER BY $1 DESC")
    assert [d.name for d in cur.description] == ["$1", "$2"]
    assert cur.fetchall() == [(2, "b"), (1, "a")]
    cur.execute("CREATE TABLE pos (a INT, b TEXT)")
    cur.execute("INSERT INTO pos VALUES (1, 'x'), (2, 'y')")
    assert cur.execute("SELECT p.$2 FROM pos p WHERE $1 > 1").fetchall() == [("y",)]
    assert cur.execute("SELECT SUM($1) FROM pos").fetchone() == (3,)
    with pytest.raises(ProgrammingError) as info:
        cur.execute("SELECT $3 FROM pos")
    assert (info.value.errno, info.value.sqlstate) == (904, "42000")


def test_a_union_has_its_branches_common_type(cur: Any) -> None:
    """The rows of a UNION come in the branches' common type (DataFusion's DataFrame reported the
    first branch's: an INT column holding 2.5 failed to convert)."""
    cur.execute("CREATE TABLE ut (id INT)")
    cur.execute("INSERT INTO ut VALUES (1)")
    cur.execute("SELECT id FROM ut UNION ALL SELECT 2.5::FLOAT")
    assert cur.description[0].type_code == 1  # REAL
    assert cur.fetchall() == [(1.0,), (2.5,)]
    cur.execute("SELECT id FROM ut UNION ALL SELECT id + 9223372036854775807 FROM ut ORDER BY 1")
    assert cur.fetchall() == [(1,), (9223372036854775808,)]


def test_order_by_all_orders_by_every_column_left_to_right(sales: Any) -> None:
    rows = sales.execute("SELECT quarter, empid FROM sales GROUP BY ALL ORDER BY ALL DESC").fetchall()
    assert rows == [("Q2", 3), ("Q2", 1), ("Q1", 2), ("Q1", 1)]
    assert sales.execute("SELECT * FROM sales ORDER BY ALL LIMIT 2").fetchall() == [
        (1, 30, "Q1"),
        (1, 50, "Q2"),
    ]
    # A column named ALL is still that column.
    assert sales.execute('SELECT amount AS "ALL", empid FROM sales ORDER BY ALL LIMIT 1').fetchall() == [
        (5, 3)
    ]


def test_a_column_tuple_in_a_subquery(sales: Any) -> None:
    top = "SELECT empid, MAX(amount) FROM sales GROUP BY empid"
    assert sales.execute(
        f"SELECT empid, quarter FROM sales WHERE (empid, amount) IN ({top}) ORDER BY 1"
    ).fetchall() == [
        (1, "Q1"),
        (2, "Q1"),
        (3, "Q2"),
    ]
    kept = sales.execute(
        f"SELECT amount FROM sales WHERE (empid, amount) NOT IN ({top}) ORDER BY 1"
    ).fetchall()
    assert kept == [(30,), (50,)]
    # NOT IN against a row that might match (a NULL column) keeps nothing of that key.
    nulls = "SELECT 1, NULL UNION ALL SELECT 9, 9"
    assert sales.execute(
        f"SELECT amount FROM sales WHERE (empid, amount) NOT IN ({nulls}) ORDER BY 1"
    ).fetchall() == [
        (5,),
        (70,),
    ]
    marked = sales.execute(f"SELECT amount, (empid, amount) IN ({top}) FROM sales ORDER BY 1").fetchall()
    assert marked == [(5, True), (30, False), (50, False), (70, True), (100, True)]


def test_a_date_meeting_a_timestamp_keeps_the_time_of_day(cur: Any) -> None:
    # DataFusion's plan schema said DATE (the first branch's) while the rows were TIMESTAMPs: the
    # time of day was cut off in results and in tables made from them.
    cur.execute("CREATE TABLE moments (d DATE, ts TIMESTAMP_NTZ, b BOOLEAN)")
    cur.execute("INSERT INTO moments VALUES ('2024-01-01', '2024-01-01 10:00', FALSE)")
    rows = cur.execute("SELECT d FROM moments UNION ALL SELECT ts FROM moments ORDER BY 1").fetchall()
    assert rows == [(datetime.datetime(2024, 1, 1),), (datetime.datetime(2024, 1, 1, 10),)]
    assert cur.execute("SELECT CASE WHEN b THEN d ELSE ts END FROM moments").fetchone() == (
        datetime.datetime(2024, 1, 1, 10),
    )
    cur.execute("CREATE TABLE unioned AS SELECT d AS x FROM moments UNION ALL SELECT ts FROM moments")
    assert cur.execute("SELECT MAX(x) FROM unioned").fetchone() == (datetime.datetime(2024, 1, 1, 10),)


def test_qualify_under_a_star_returns_the_querys_own_columns(cur: Any) -> None:
    # https://docs.snowflake.com/en/sql-reference/constructs/qualify: the window QUALIFY filters on
    # was returned as an extra column (_W) under `SELECT *` (dbt's deduplicate writes this).
    cur.execute("CREATE TABLE events (id INT, name VARCHAR, amt NUMBER(10, 2))")
    cur.execute("INSERT INTO events VALUES (1, 'x', 1.5), (1, 'y', 2.5), (2, 'z', 3)")
    cur.execute(
        "SELECT * FROM events QUALIFY ROW_NUMBER() OVER (PARTITION BY id ORDER BY amt DESC) = 1 ORDER BY id"
    )
    assert [d.name for d in cur.description] == ["ID", "NAME", "AMT"]
    assert cur.fetchall() == [(1, "y", Decimal("2.50")), (2, "z", Decimal("3.00"))]
    cur.execute("SELECT e.*, amt * 2 AS dbl FROM events e QUALIFY RANK() OVER (ORDER BY amt) <= 1")
    assert [d.name for d in cur.description] == ["ID", "NAME", "AMT", "DBL"]
    assert cur.fetchall() == [(1, "x", Decimal("1.50"), Decimal("3.00"))]


def test_queries_find_unqualified_names_along_the_search_path(cur: Any, database: str) -> None:
    # https://docs.snowflake.com/en/sql-reference/name-resolution#unqualified-objects
    cur.execute("CREATE TABLE shared (n INT)")
    cur.execute("INSERT INTO shared VALUES (1), (2)")
    cur.execute("CREATE VIEW shared_view AS SELECT n * 10 AS n FROM shared")
    cur.execute("CREATE SCHEMA billing")  # the session's schema from here on
    assert cur.execute("SELECT CURRENT_SCHEMAS()").fetchone() == (
        f'["{database}.BILLING", "{database}.PUBLIC"]',
    )
    # $current, then $public: a query reads PUBLIC's table and view.
    assert cur.execute("SELECT SUM(s.n) + (SELECT MAX(n) FROM shared_view) FROM shared s").fetchone() == (23,)
    assert [d.name for d in cur.execute("SELECT * FROM shared").description] == ["N"]
    # The current schema comes first.
    cur.execute("CREATE TABLE shared (n INT)")
    assert cur.execute("SELECT COUNT(*) FROM shared").fetchone() == (0,)
    cur.execute("DROP TABLE shared")
    # DML names the current schema only.
    with pytest.raises(ProgrammingError) as dml:
        cur.execute("INSERT INTO shared VALUES (3)")
    assert dml.value.errno == 2003 and f"{database}.BILLING.SHARED" in str(dml.value)
    # A path without $public: the name is not found.
    cur.execute("ALTER SESSION SET SEARCH_PATH = '$current'")
    with pytest.raises(ProgrammingError) as missing:
        cur.execute("SELECT * FROM shared")
    assert missing.value.errno == 2003
    assert cur.execute("SELECT CURRENT_SCHEMAS()").fetchone() == (f'["{database}.BILLING"]',)
    cur.execute(f"ALTER SESSION SET SEARCH_PATH = '$current, {database}.public'")
    assert cur.execute("SELECT COUNT(*) FROM shared").fetchone() == (2,)

"""Dynamic tables through the connector: made from their query, refreshed every TARGET_LAG by the
server's scheduler or at once by ALTER DYNAMIC TABLE ... REFRESH, listed by SHOW DYNAMIC TABLES.
https://docs.snowflake.com/en/user-guide/dynamic-tables-about
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from snowflake.connector.errors import ProgrammingError


def rows(cur: Any, sql: str) -> list[tuple[Any, ...]]:
    return cur.execute(sql).fetchall()


@pytest.fixture
def orders(cur: Any) -> Any:
    cur.execute("CREATE TABLE orders (id INT, customer TEXT, amount NUMBER(10, 2))")
    cur.execute("INSERT INTO orders VALUES (1, 'a', 10), (2, 'b', 5), (3, 'a', 2.5)")
    return cur


def test_a_dynamic_table_is_its_querys_result_after_a_refresh(orders: Any) -> None:
    orders.execute(
        "CREATE DYNAMIC TABLE totals TARGET_LAG = DOWNSTREAM WAREHOUSE = wh "
        "AS SELECT customer, SUM(amount) AS total FROM orders GROUP BY customer"
    )
    assert rows(orders, "SELECT * FROM totals ORDER BY customer") == [("a", 12.5), ("b", 5)]
    orders.execute("INSERT INTO orders VALUES (4, 'c', 1)")
    assert len(rows(orders, "SELECT * FROM totals")) == 2  # DOWNSTREAM: no scheduled refresh
    assert rows(orders, "ALTER DYNAMIC TABLE totals REFRESH") == [("Statement executed successfully.",)]
    assert rows(orders, "SELECT * FROM totals ORDER BY customer") == [("a", 12.5), ("b", 5), ("c", 1)]
    orders.execute("SHOW DYNAMIC TABLES LIKE 'TOT%'")
    names = [d.name for d in orders.description]
    shown = dict(zip(names, orders.fetchone(), strict=True))
    assert (shown["name"], shown["target_lag"], shown["warehouse"], shown["rows"]) == (
        "TOTALS",
        "DOWNSTREAM",
        "WH",
        3,
    )
    assert shown["scheduling_state"] == "RUNNING" and shown["refresh_mode"] == "AUTO"
    assert "SUM(amount)" in shown["text"]
    is_dynamic = {r[1]: r[names_index(orders, "is_dynamic")] for r in rows(orders, "SHOW TABLES")}
    assert is_dynamic == {"ORDERS": "N", "TOTALS": "Y"}
    described = rows(orders, "DESCRIBE DYNAMIC TABLE totals")
    assert [r[0] for r in described] == ["CUSTOMER", "TOTAL"]
    assert rows(orders, "DROP DYNAMIC TABLE totals") == [("TOTALS successfully dropped.",)]
    assert rows(orders, "SHOW DYNAMIC TABLES") == []


def names_index(cur: Any, name: str) -> int:
    return [d.name for d in cur.description].index(name)


def test_the_scheduler_refreshes_within_the_target_lag(orders: Any) -> None:
    orders.execute(
        "CREATE DYNAMIC TABLE big_orders TARGET_LAG = '1 second' AS SELECT id FROM orders WHERE amount > 3"
    )
    assert rows(orders, "SELECT COUNT(*) FROM big_orders") == [(2,)]
    orders.execute("INSERT INTO orders VALUES (5, 'd', 100)")
    deadline = time.time() + 30
    while rows(orders, "SELECT COUNT(*) FROM big_orders") != [(3,)] and time.time() < deadline:
        time.sleep(0.3)
    assert rows(orders, "SELECT id FROM big_orders ORDER BY id") == [(1,), (2,), (5,)]
    # Nothing changed since: no refresh rewrites the table (Snowflake's NO_DATA).
    refreshed = rows(orders, "SHOW DYNAMIC TABLES")[0]
    stamp = names_index(orders, "data_timestamp")
    time.sleep(3)
    assert rows(orders, "SHOW DYNAMIC TABLES")[0][stamp] == refreshed[stamp]
    orders.execute("ALTER DYNAMIC TABLE big_orders SUSPEND")
    assert rows(orders, "SHOW DYNAMIC TABLES")[0][names_index(orders, "scheduling_state")] == "SUSPENDED"
    time.sleep(1.5)  # a refresh claimed before SUSPEND may still finish
    orders.execute("INSERT INTO orders VALUES (6, 'e', 50)")
    time.sleep(2.5)
    assert rows(orders, "SELECT COUNT(*) FROM big_orders") == [(3,)]
    orders.execute("ALTER DYNAMIC TABLE big_orders SET TARGET_LAG = '5 minutes'")
    orders.execute("ALTER DYNAMIC TABLE big_orders RESUME")
    assert rows(orders, "SHOW DYNAMIC TABLES")[0][names_index(orders, "target_lag")] == "5 minutes"


def test_downstream_dynamic_tables_refresh_before_the_ones_reading_them(orders: Any) -> None:
    """A TARGET_LAG = DOWNSTREAM table refreshes when a dynamic table reading it does (scheduled
    or asked for): the pipeline's last table sees the base table's new rows through the middle
    one; an upstream failure fails the downstream refresh and leaves both as they were."""
    orders.execute(
        "CREATE DYNAMIC TABLE paid TARGET_LAG = DOWNSTREAM AS SELECT * FROM orders WHERE amount > 3"
    )
    orders.execute(
        "CREATE DYNAMIC TABLE per_customer TARGET_LAG = DOWNSTREAM "
        "AS SELECT customer, COUNT(*) AS n FROM paid GROUP BY customer"
    )
    orders.execute(
        "CREATE DYNAMIC TABLE report TARGET_LAG = '1 second' AS SELECT SUM(n) AS n FROM per_customer"
    )
    assert rows(orders, "SELECT n FROM report") == [(2,)]
    orders.execute("INSERT INTO orders VALUES (7, 'c', 40), (8, 'c', 1)")
    deadline = time.time() + 30
    while rows(orders, "SELECT n FROM report") != [(3,)] and time.time() < deadline:
        time.sleep(0.3)
    assert rows(orders, "SELECT n FROM report") == [(3,)]
    assert rows(orders, "SELECT * FROM per_customer ORDER BY customer") == [("a", 1), ("b", 1), ("c", 1)]
    orders.execute("ALTER DYNAMIC TABLE report SUSPEND")
    time.sleep(1.5)  # a refresh claimed before SUSPEND may still finish
    orders.execute("INSERT INTO orders VALUES (9, 'd', 90)")
    orders.execute("ALTER DYNAMIC TABLE per_customer REFRESH")  # refreshes PAID first
    assert rows(orders, "SELECT COUNT(*) FROM paid") == [(4,)]
    assert rows(orders, "SELECT n FROM report") == [(3,)]  # suspended, and not upstream of it
    orders.execute("ALTER TABLE orders RENAME COLUMN amount TO total")
    orders.execute("INSERT INTO orders VALUES (10, 'e', 70)")
    with pytest.raises(ProgrammingError) as info:
        orders.execute("ALTER DYNAMIC TABLE report REFRESH")  # PAID's query no longer compiles
    assert info.value.errno == 904
    assert rows(orders, "SELECT n FROM report") == [(3,)]
    assert rows(orders, "SELECT COUNT(*) FROM paid") == [(4,)]


def test_dynamic_table_errors_leave_it_as_it_was(orders: Any) -> None:
    with pytest.raises(ProgrammingError) as info:
        orders.execute("CREATE DYNAMIC TABLE d TARGET_LAG = 'soon' AS SELECT 1 AS x")
    assert info.value.errno == 1008
    assert rows(orders, "SHOW TABLES LIKE 'D'") == []  # nothing made
    orders.execute("CREATE DYNAMIC TABLE d TARGET_LAG = DOWNSTREAM AS SELECT id FROM orders")
    orders.execute("ALTER TABLE orders RENAME COLUMN id TO order_id")
    with pytest.raises(ProgrammingError) as info:
        orders.execute("ALTER DYNAMIC TABLE d REFRESH")  # its query no longer compiles
    assert info.value.errno == 904
    assert rows(orders, "SELECT COUNT(*) FROM d") == [(3,)]
    with pytest.raises(ProgrammingError) as info:
        orders.execute("ALTER DYNAMIC TABLE nope REFRESH")
    assert info.value.errno == 2003
    # Replaced by a plain table: no longer dynamic, nothing refreshes it.
    orders.execute("CREATE OR REPLACE TABLE d (x INT)")
    assert rows(orders, "SHOW DYNAMIC TABLES") == []
    with pytest.raises(ProgrammingError):
        orders.execute("ALTER DYNAMIC TABLE d REFRESH")

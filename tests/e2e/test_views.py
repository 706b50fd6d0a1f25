"""Views: created, queried (inlined into the query), replaced and dropped; names as Snowflake's."""

from __future__ import annotations

from typing import Any

import pytest
from snowflake.connector.errors import ProgrammingError


@pytest.fixture
def orders(cur: Any) -> Any:
    cur.execute("CREATE TABLE orders (id INT, region VARCHAR, amount NUMBER(10,2))")
    cur.execute("INSERT INTO orders VALUES (1, 'eu', 10), (2, 'eu', 20), (3, 'us', 5)")
    return cur


def test_view_is_queryable_and_follows_its_table(orders: Any) -> None:
    assert orders.execute(
        "CREATE VIEW totals AS SELECT region, SUM(amount) AS total, COUNT(*) FROM orders GROUP BY region"
    ).fetchone() == ("View TOTALS successfully created.",)
    orders.execute("SELECT * FROM totals ORDER BY region")
    assert [d.name for d in orders.description] == ["REGION", "TOTAL", "COUNT(*)"]
    assert [(r[0], float(r[1]), r[2]) for r in orders.fetchall()] == [("eu", 30.0, 2), ("us", 5.0, 1)]
    orders.execute("INSERT INTO orders VALUES (4, 'us', 7)")
    assert orders.execute("SELECT t.total FROM totals t WHERE t.region = 'us'").fetchone()[0] == 12


def test_views_over_views_and_column_lists(orders: Any, database: str) -> None:
    orders.execute("CREATE VIEW eu (order_id, amt) AS SELECT id, amount FROM orders WHERE region = 'eu'")
    orders.execute("CREATE SCHEMA other")
    orders.execute(f"CREATE VIEW other.big AS SELECT order_id FROM {database}.public.eu WHERE amt > 15")
    orders.execute("USE SCHEMA other")
    # The inner view's unqualified names resolve in its own schema, not the caller's.
    assert orders.execute("SELECT * FROM big").fetchall() == [(2,)]


def test_replace_and_drop_view(orders: Any) -> None:
    orders.execute("CREATE VIEW v AS SELECT id FROM orders")
    with pytest.raises(ProgrammingError) as err:
        orders.execute("CREATE VIEW v AS SELECT 1")
    assert err.value.errno == 2002
    orders.execute("CREATE OR REPLACE VIEW v AS SELECT id * 10 AS x FROM orders WHERE id = 1")
    assert orders.execute("SELECT x FROM v").fetchall() == [(10,)]
    assert orders.execute("DROP VIEW v").fetchone() == ("V successfully dropped.",)
    with pytest.raises(ProgrammingError) as err:
        orders.execute("SELECT * FROM v")
    assert err.value.errno == 2003


def test_view_over_missing_table_is_refused(cur: Any) -> None:
    with pytest.raises(ProgrammingError) as err:
        cur.execute("CREATE VIEW broken AS SELECT * FROM nowhere")
    assert err.value.errno == 2003


def test_rename_moves_a_view_and_its_resolution_stays_its_own(orders: Any, database: str) -> None:
    """https://docs.snowflake.com/en/sql-reference/sql/alter-view"""
    orders.execute("CREATE VIEW eu AS SELECT id FROM orders WHERE region = 'eu'")
    orders.execute("ALTER VIEW eu RENAME TO europe")
    assert orders.execute("SELECT * FROM europe ORDER BY id").fetchall() == [(1,), (2,)]
    with pytest.raises(ProgrammingError) as err:
        orders.execute("SELECT * FROM eu")
    assert err.value.errno == 2003
    # Into another schema: the view now resolves its unqualified names there, as on Snowflake.
    orders.execute("CREATE SCHEMA other")  # which becomes the current schema, as on Snowflake
    orders.execute("USE SCHEMA public")
    orders.execute("CREATE TABLE other.orders (id INT, region VARCHAR)")
    orders.execute("INSERT INTO other.orders VALUES (9, 'eu')")
    orders.execute(f"ALTER VIEW europe RENAME TO {database}.other.europe")
    assert orders.execute("SELECT * FROM other.europe").fetchall() == [(9,)]
    assert orders.execute("SHOW VIEWS IN SCHEMA public").fetchall() == []
    # A name already taken (by a table or a view) is refused; a missing view only with IF EXISTS.
    with pytest.raises(ProgrammingError) as err:
        orders.execute("ALTER VIEW other.europe RENAME TO other.orders")
    assert (err.value.errno, err.value.sqlstate) == (2002, "42710")
    with pytest.raises(ProgrammingError) as err:
        orders.execute("ALTER VIEW nowhere RENAME TO somewhere")
    assert (err.value.errno, err.value.sqlstate) == (2003, "42S02")
    assert orders.execute("ALTER VIEW IF EXISTS nowhere RENAME TO somewhere").fetchone() == (
        "Statement executed successfully.",
    )


def test_set_and_unset_secure(orders: Any) -> None:
    orders.execute("CREATE VIEW v AS SELECT id FROM orders")
    query = "SELECT is_secure FROM information_schema.views WHERE table_name = 'V'"
    orders.execute("ALTER VIEW v SET SECURE")
    assert orders.execute(query).fetchone() == ("YES",)
    assert (
        orders.execute("SELECT GET_DDL('VIEW', 'v')")
        .fetchone()[0]
        .startswith("create or replace secure view V")
    )
    orders.execute("ALTER VIEW v UNSET SECURE")
    assert orders.execute(query).fetchone() == ("NO",)

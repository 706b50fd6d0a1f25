"""dbt-snowflake, unmodified, against the server: seed, run, test, snapshot, docs, build, then a
second build after new seed rows must update the incremental models, the dynamic table and the
snapshots."""

from __future__ import annotations

import datetime
import os
import shutil
import subprocess
from decimal import Decimal
from pathlib import Path

import pytest

from tests.e2e.conftest import Server
from tests.tools.conftest import tool

PROJECT = Path(__file__).parent / "dbt_project"

# Round two: customer 2 moves to gold, customer 6 arrives; order 3 completes, orders 9 and 10 arrive.
NEW_CUSTOMERS = (
    "6,Donald,Knuth,donald@example.com,bronze,2024-03-01 08:00:00\n",
    ("2,Alan,Turing,alan@example.com,silver,2024-01-01 08:00:00",
     "2,Alan,Turing,alan@example.com,gold,2024-03-01 08:00:00"),
)  # fmt: skip
NEW_ORDERS = (
    "9,6,2024-02-05,completed,1500,2024-03-01 12:00:00\n10,1,2024-02-04,completed,200,2024-03-01 12:00:00\n",
    ("3,2,2024-02-02,placed,4300,2024-02-02 12:00:00", "3,2,2024-02-02,completed,4300,2024-03-01 12:00:00"),
)
NEW_PAYMENTS = "10,9,card,1500\n11,10,card,200\n"


def dbt(project: Path, server: Server, database: str, *args: str) -> str:
    env = {
        **os.environ,
        "EMBUCKET_PORT": str(server.port),
        "EMBUCKET_DBT_DATABASE": database,
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        "DBT_USE_COLORS": "false",
    }
    command = [str(tool(".venv-dbt", "dbt", "EMBUCKET_DBT")), *args, "--profiles-dir", str(project)]
    done = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True, timeout=600)
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"dbt {' '.join(args)} failed:\n{output[-6000:]}"
    return output


def grow_seeds(project: Path) -> None:
    seeds = project / "seeds"
    for name, (added, (old, new)) in (("raw_customers", NEW_CUSTOMERS), ("raw_orders", NEW_ORDERS)):
        path = seeds / f"{name}.csv"
        text = path.read_text()
        assert old in text
        path.write_text(text.replace(old, new) + added)
    payments = seeds / "raw_payments.csv"
    payments.write_text(payments.read_text() + NEW_PAYMENTS)


def rows(server: Server, database: str, sql: str) -> list[tuple[object, ...]]:
    with server.connect(database=database, schema="ANALYTICS") as conn:
        return list(conn.cursor().execute(sql).fetchall())


@pytest.mark.slow
@pytest.mark.timeout(1500)  # about a dozen dbt invocations, each a few seconds of start-up
def test_dbt_project_builds_and_rebuilds_incrementally(
    server: Server, tool_database: str, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    shutil.copytree(PROJECT, project)
    run = lambda *args: dbt(project, server, tool_database, *args)  # noqa: E731

    assert "PASS=3" in run("seed")
    assert "PASS=8" in run("run")
    assert "ERROR=0" in run("test")
    run("snapshot")
    run("source", "freshness")
    run("build")

    assert rows(server, tool_database, "select count(*) from fct_orders_merge") == [(8,)]
    assert rows(server, tool_database, "select count(*) from analytics_snapshots.customers_by_check") == [
        (5,)
    ]
    assert rows(server, tool_database, "select lifetime_value from customers where customer_id = 1") == [
        (Decimal("20.50"),)
    ]

    grow_seeds(project)
    run("build")

    assert rows(server, tool_database, "select order_id, status from fct_orders_merge order by order_id") == [
        (1, "completed"), (2, "completed"), (3, "completed"), (4, "shipped"), (5, "returned"),
        (6, "completed"), (7, "placed"), (8, "completed"), (9, "completed"), (10, "completed"),
    ]  # fmt: skip
    assert rows(
        server, tool_database, "select order_date, order_count, revenue from fct_daily_revenue order by 1"
    ) == [
        (datetime.date(2024, 2, 1), 2, Decimal("20.50")),
        (datetime.date(2024, 2, 2), 2, Decimal("52.99")),
        (datetime.date(2024, 2, 3), 2, Decimal("18.00")),
        (datetime.date(2024, 2, 4), 3, Decimal("40.00")),
        (datetime.date(2024, 2, 5), 1, Decimal("15.00")),
    ]
    for snapshot in ("customers_by_timestamp", "customers_by_check"):
        history = rows(
            server,
            tool_database,
            f"select customer_id, tier, dbt_valid_to is null from analytics_snapshots.{snapshot} "
            "order by customer_id, dbt_valid_from",
        )
        assert history == [
            (1, "gold", True), (2, "silver", False), (2, "gold", True), (3, "bronze", True),
            (4, "silver", True), (5, "gold", True), (6, "bronze", True),
        ], snapshot  # fmt: skip
    # The timestamp strategy closes the old version when the new one became valid.
    closed = rows(
        server,
        tool_database,
        "select dbt_valid_to from analytics_snapshots.customers_by_timestamp where dbt_valid_to is not null",
    )
    assert closed == [(datetime.datetime(2024, 3, 1, 8, 0),)]
    assert rows(server, tool_database, "select count(*) from customers") == [(6,)]
    # The dynamic table model: dbt found it unchanged; a refresh (due within its target lag) brings
    # in customer 6's first order.
    rows(server, tool_database, "alter dynamic table dt_customer_totals refresh")
    totals = "select customer_id, order_count from dt_customer_totals order by 1"
    direct = "select customer_id, count(*) from stg_orders group by 1 order by 1"
    assert rows(server, tool_database, totals) == rows(server, tool_database, direct)
    assert (6, 1) in rows(server, tool_database, totals)


def test_dbt_docs_generate_writes_the_catalog(server: Server, tool_database: str, tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(PROJECT, project)
    dbt(project, server, tool_database, "seed")
    dbt(project, server, tool_database, "run")
    dbt(project, server, tool_database, "docs", "generate")
    catalog = (project / "target" / "catalog.json").read_text().upper()
    assert '"FCT_ORDERS_MERGE"' in catalog and '"LIFETIME_VALUE"' in catalog

"""Apache Superset, unmodified, with this server registered as a Snowflake database through its
REST API: test connection, schemas and tables, a SQL Lab query, a dataset and a chart's data.

Runs in its own CI step (`make test-superset`): Superset lives in .venv-superset.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.e2e.conftest import Server
from tests.tools.superset_app import Client, Superset

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def superset(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Superset]:
    app = Superset(tmp_path_factory.mktemp("superset"))
    try:
        app.start()
        yield app
    finally:
        app.stop()


def connection(server: Server, database: str) -> dict[str, str]:
    """What a user types into Superset's "SQLAlchemy URI" form, plus the engine parameters that
    point the connector at this server (snowflake-sqlalchemy refuses host/port in the URI)."""
    connect_args = {"host": "127.0.0.1", "port": server.port, "protocol": "http"}
    return {
        "database_name": f"embucket {database}",
        "sqlalchemy_uri": f"snowflake://embucket:embucket@embucket/{database}/PUBLIC?warehouse=COMPUTE_WH",
        "extra": json.dumps({"engine_params": {"connect_args": connect_args}}),
        "configuration_method": "sqlalchemy_form",
    }


def test_superset_explores_the_server(superset: Superset, server: Server, tool_database: str) -> None:
    with server.connect(database=tool_database, schema="PUBLIC") as conn:
        cur = conn.cursor()
        cur.execute("create table sales (region varchar(10), amount number(10, 2), sold_on date)")
        cur.execute(
            "insert into sales values ('north', 10.50, '2024-01-01'), ('south', 4.25, '2024-01-02'), "
            "('north', 2.00, '2024-01-03'), ('east', 7.75, '2024-01-03')"
        )
    api = Client(superset.base)
    form = connection(server, tool_database)

    assert api.call("POST", "/api/v1/database/test_connection/", form)["message"] == "OK"
    database_id = api.call("POST", "/api/v1/database/", {**form, "expose_in_sqllab": True}, expect=201)["id"]

    schemas = api.call("GET", f"/api/v1/database/{database_id}/schemas/")["result"]
    assert "public" in schemas
    tables = api.call("GET", f"/api/v1/database/{database_id}/tables/?q=(schema_name:public)")["result"]
    assert {"type": "table", "value": "sales"} in [{k: t[k] for k in ("type", "value")} for t in tables]

    lab = api.call(
        "POST",
        "/api/v1/sqllab/execute/",
        {
            "database_id": database_id,
            "schema": "public",
            "sql": "select region, sum(amount) as total from sales group by region order by total desc",
            "runAsync": False,
        },
    )
    assert lab["status"] == "success"
    assert [(r["REGION"], r["TOTAL"]) for r in lab["data"]] == [
        ("north", 12.5),
        ("east", 7.75),
        ("south", 4.25),
    ]

    dataset_id = api.call(
        "POST",
        "/api/v1/dataset/",
        {"database": database_id, "schema": "public", "table_name": "sales"},
        expect=201,
    )["id"]
    columns = api.call("GET", f"/api/v1/dataset/{dataset_id}")["result"]["columns"]
    # As on Snowflake, Superset takes the dataset's columns from a query's result: upper case.
    assert {c["column_name"] for c in columns} == {"REGION", "AMOUNT", "SOLD_ON"}

    total = {
        "expressionType": "SIMPLE",
        "column": {"column_name": "AMOUNT"},
        "aggregate": "SUM",
        "label": "total",
    }
    query_context = {
        "datasource": {"id": dataset_id, "type": "table"},
        "queries": [
            {"columns": ["REGION"], "metrics": [total], "orderby": [[total, False]], "row_limit": 10}
        ],
        "result_format": "json",
        "result_type": "full",
    }
    chart_id = api.call(
        "POST",
        "/api/v1/chart/",
        {
            "slice_name": "Sales by region",
            "viz_type": "table",
            "datasource_id": dataset_id,
            "datasource_type": "table",
            "params": json.dumps({"groupby": ["REGION"], "metrics": [total], "viz_type": "table"}),
            "query_context": json.dumps(query_context),
        },
        expect=201,
    )["id"]
    data = api.call("GET", f"/api/v1/chart/{chart_id}/data/")["result"][0]["data"]
    assert [(r["REGION"], r["total"]) for r in data] == [("north", 12.5), ("east", 7.75), ("south", 4.25)]

    # The chart data API also answers an ad-hoc query on the dataset (what Explore sends).
    adhoc = api.call("POST", "/api/v1/chart/data", query_context)["result"][0]
    assert adhoc["rowcount"] == 3

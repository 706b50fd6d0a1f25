"""Wire invariants of the v1 protocol, checked on the raw JSON (Starlette's TestClient).

Each invariant here is a field whose absence or wrong type makes a real connector crash or
silently misbehave (shared/design/snowflake-rest-protocol.md §15); the e2e tests cover behaviour.
"""

from __future__ import annotations

import base64
import gzip
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from starlette.testclient import TestClient

from embucket_py.config import load_settings
from embucket_py.server.app import build_app

ROWTYPE_KEYS = {
    *("name", "type", "nullable", "precision", "scale", "length", "byteLength"),
    *("database", "schema", "table", "collation"),
}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    data_dir: Path = tmp_path_factory.mktemp("shapes")
    settings = load_settings({"data_dir": str(data_dir)}, env={})
    with TestClient(build_app(settings)) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def token(client: TestClient) -> str:
    body = {"data": {"LOGIN_NAME": "embucket", "PASSWORD": "embucket", "ACCOUNT_NAME": "embucket",
                     "CLIENT_APP_ID": "PythonConnector", "CLIENT_APP_VERSION": "5.2.0"}}  # fmt: skip
    answer = client.post(
        "/session/v1/login-request?databaseName=embucket&schemaName=public", json=body
    ).json()
    assert answer["success"] is True
    data = answer["data"]
    assert isinstance(data["token"], str) and isinstance(data["masterToken"], str)
    assert isinstance(data["sessionId"], int)
    assert {"name": "TIMEZONE", "value": "America/Los_Angeles"} in data["parameters"]
    assert data["sessionInfo"]["databaseName"] == "EMBUCKET"
    return str(data["token"])


def query(client: TestClient, token: str, sql: str, **extra: Any) -> dict[str, Any]:
    response = client.post(
        "/queries/v1/query-request",
        headers={"Authorization": f'Snowflake Token="{token}"'},
        json={"sqlText": sql, "asyncExec": False, "sequenceId": 1, **extra},
    )
    assert response.status_code == 200
    answer: dict[str, Any] = response.json()
    assert answer["code"] is None or isinstance(answer["code"], str)  # a number breaks 5.2's parser
    return answer


def test_failed_login_has_a_string_code(client: TestClient) -> None:
    body = {"data": {"LOGIN_NAME": "embucket", "PASSWORD": "wrong"}}
    answer = client.post("/session/v1/login-request", json=body).json()
    assert answer["success"] is False
    assert answer["code"] == "390100"


def test_select_answer_is_arrow_with_complete_metadata(client: TestClient, token: str) -> None:
    answer = query(
        client,
        token,
        "SELECT 1 AS n, 1.5::NUMBER(10,2) AS p, 'x' AS s, 1.5::FLOAT AS f, TRUE AS b, "
        "'2024-01-01'::DATE AS d, '10:00:00'::TIME AS t, '2024-01-01 10:00:00'::TIMESTAMP_NTZ AS ntz, "
        "'2024-01-01 10:00:00 +00:00'::TIMESTAMP_LTZ AS ltz, "
        "'2024-01-01 10:00:00 +00:00'::TIMESTAMP_TZ AS tz, X'01' AS bin",
    )
    data = answer["data"]
    assert answer["success"] is True
    assert uuid.UUID(data["queryId"])
    assert data["queryResultFormat"] == "arrow"  # without it the client silently shows no rows
    assert "getResultUrl" not in data  # a final answer with it makes the client poll forever
    for column in data["rowtype"]:
        assert set(column) >= ROWTYPE_KEYS, column  # 4.x indexes every key
        assert isinstance(column["nullable"], bool)
    schema = pa.ipc.open_stream(base64.b64decode(data["rowsetBase64"])).schema
    for field in schema:
        meta = {k.decode(): v.decode() for k, v in (field.metadata or {}).items()}
        logical = meta["logicalType"]  # missing metadata aborts the client process
        if logical == "FIXED":
            assert "precision" in meta and "scale" in meta
            assert pa.types.is_integer(field.type) or pa.types.is_decimal128(field.type)
        if logical in ("TIME", "TIMESTAMP_NTZ", "TIMESTAMP_LTZ", "TIMESTAMP_TZ"):
            assert "scale" in meta
        if logical == "TIMESTAMP_TZ":
            assert meta["byteLength"] == "16" and pa.types.is_struct(field.type)
        if logical == "DATE":
            assert pa.types.is_date32(field.type)
        # Native Arrow timestamps, times and string views crash or fail the client.
        assert not pa.types.is_timestamp(field.type) and not pa.types.is_time(field.type)
        assert not pa.types.is_string_view(field.type)


def test_dml_answer_is_json_with_string_cells(client: TestClient, token: str) -> None:
    query(client, token, "CREATE OR REPLACE TABLE shapes (a INT)")
    data = query(client, token, "INSERT INTO shapes VALUES (1), (2)")["data"]
    assert data["statementTypeId"] == 0x3100
    assert data["queryResultFormat"] == "json"
    assert data["rowset"] == [["2"]]
    assert data["rowtype"][0]["name"] == "number of rows inserted"


def test_error_answer_has_code_sqlstate_and_query_id(client: TestClient, token: str) -> None:
    answer = query(client, token, "SELECT * FROM missing_table")
    assert answer["success"] is False
    assert answer["code"] == "002003"
    assert answer["data"]["sqlState"] == "42S02"
    assert uuid.UUID(answer["data"]["queryId"])
    assert "Traceback" not in answer["message"]


def test_gzip_bodies_are_accepted(client: TestClient, token: str) -> None:
    body = gzip.compress(json.dumps({"sqlText": "SELECT 7 AS x"}).encode())
    response = client.post(
        "/queries/v1/query-request",
        content=body,
        headers={"Authorization": f'Snowflake Token="{token}"', "Content-Encoding": "gzip",
                 "Content-Type": "application/json"},
    )  # fmt: skip
    assert response.json()["success"] is True


def test_monitoring_answers_a_list_even_for_unknown_ids(client: TestClient, token: str) -> None:
    headers = {"Authorization": f'Snowflake Token="{token}"'}
    for path in (f"/monitoring/queries/{uuid.uuid4()}", f"/monitoring/queries//{uuid.uuid4()}"):
        answer = client.get(path, headers=headers).json()
        assert answer["data"]["queries"] == []


def test_calls_without_a_valid_token_are_refused(client: TestClient) -> None:
    for headers in ({}, {"Authorization": 'Snowflake Token="bogus"'}):
        answer = client.post(
            "/queries/v1/query-request", json={"sqlText": "SELECT 1"}, headers=headers
        ).json()
        assert answer["success"] is False
        assert answer["code"].startswith("39")


def test_chunks_need_their_token(client: TestClient, token: str) -> None:
    data = query(client, token, "SELECT seq4() AS n FROM TABLE(GENERATOR(ROWCOUNT => 300000))")["data"]
    assert data["chunks"], "a large result is split into chunks"
    url = data["chunks"][0]["url"]
    assert client.get(url).status_code == 200
    assert client.get(url.split("?")[0]).status_code == 404
    rows = sum(c["rowCount"] for c in data["chunks"])
    assert data["total"] == 300000 and rows < 300000

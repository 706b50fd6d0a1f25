"""A minimal Snowflake v1 REST client (what the connector sends), to aim each request at any server."""

from __future__ import annotations

import base64
import gzip
import io
import json
import time
import urllib.request
import uuid
from typing import Any

import pyarrow as pa


def post(base: str, path: str, body: dict[str, Any], token: str | None = None) -> dict[str, Any]:
    headers = {"Content-Type": "application/json", "Accept": "application/snowflake"}
    if token:
        headers["Authorization"] = f'Snowflake Token="{token}"'
    request = urllib.request.Request(base + path, json.dumps(body).encode(), headers, method="POST")
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


def get(base: str, path: str, token: str | None = None) -> dict[str, Any]:
    headers = {"Accept": "application/snowflake"}
    if token:
        headers["Authorization"] = f'Snowflake Token="{token}"'
    with urllib.request.urlopen(urllib.request.Request(base + path, headers=headers), timeout=60) as r:
        return json.loads(r.read())


def login(base: str, database: str = "EMBUCKET", schema: str = "PUBLIC") -> str:
    body = {"data": {"LOGIN_NAME": "embucket", "PASSWORD": "embucket", "CLIENT_APP_ID": "PythonConnector"}}
    answer = post(base, f"/session/v1/login-request?databaseName={database}&schemaName={schema}", body)
    assert answer["success"], answer
    return str(answer["data"]["token"])


def query(base: str, token: str, sql: str, *, async_exec: bool = False) -> dict[str, Any]:
    body = {"sqlText": sql, "asyncExec": async_exec, "sequenceId": 1, "querySubmissionTime": 0}
    answer = post(base, f"/queries/v1/query-request?requestId={uuid.uuid4()}", body, token)
    # A statement slower than the server's sync wait (a loaded machine) answers "in progress"
    # with no rows: poll its result URL, as the connector does.
    while not async_exec and answer.get("code") == "333333":
        time.sleep(0.2)
        answer = get(base, answer["data"]["getResultUrl"], token)
    return answer


def rows(data: dict[str, Any]) -> list[tuple[Any, ...]]:
    """Rows of an answer's first part (JSON rowset or inline Arrow)."""
    if data.get("rowset") is not None and data.get("queryResultFormat") == "json":
        return [tuple(r) for r in data["rowset"]]
    encoded = data.get("rowsetBase64") or ""
    if not encoded:
        return []
    return arrow_rows(base64.b64decode(encoded))


def arrow_rows(body: bytes) -> list[tuple[Any, ...]]:
    table = pa.ipc.open_stream(io.BytesIO(body)).read_all()
    return list(zip(*(c.to_pylist() for c in table.columns), strict=True))


def download(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=60) as response:
        body = response.read()
    return gzip.decompress(body) if body[:2] == b"\x1f\x8b" else body

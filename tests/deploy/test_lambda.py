"""The Lambda handler, driven with Function URL / HTTP API (payload 2.0) events of the real shape.

Two LambdaApp instances stand for two execution environments: each request may land on either,
so everything a later request needs must be in the shared metastore (PostgreSQL) and the S3
warehouse (SeaweedFS).
"""

from __future__ import annotations

import base64
import gzip
import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from embucket_py.config import load_settings
from embucket_py.server.lambda_handler import LambdaApp
from tests.deploy import wire
from tests.deploy.services import ACCESS_KEY, SECRET_KEY, SeaweedFS

DOMAIN = "abcdefghij.lambda-url.us-east-1.on.aws"


def event(method: str, target: str, body: dict[str, Any] | None = None, token: str = "") -> dict[str, Any]:
    """A Lambda Function URL event: gzip + base64 request bodies, as API Gateway passes binary ones."""
    path, _, query = target.partition("?")
    headers = {
        "host": DOMAIN,
        "x-forwarded-proto": "https",
        "x-forwarded-port": "443",
        "x-forwarded-for": "203.0.113.7",
        "user-agent": "PythonConnector/5.2.0 (Linux) CPython/3.11",
        "accept": "application/snowflake",
    }
    if token:
        headers["authorization"] = f'Snowflake Token="{token}"'
    raw = ""
    if body is not None:
        headers |= {"content-type": "application/json", "content-encoding": "gzip"}
        raw = base64.b64encode(gzip.compress(json.dumps(body).encode())).decode()
    now = time.time()
    return {
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": path,
        "rawQueryString": query,
        "headers": headers,
        "requestContext": {
            "accountId": "anonymous",
            "apiId": DOMAIN.split(".")[0],
            "domainName": DOMAIN,
            "domainPrefix": DOMAIN.split(".")[0],
            "http": {
                "method": method,
                "path": path,
                "protocol": "HTTP/1.1",
                "sourceIp": "203.0.113.7",
                "userAgent": headers["user-agent"],
            },
            "requestId": str(uuid.uuid4()),
            "routeKey": "$default",
            "stage": "$default",
            "time": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(now)),
            "timeEpoch": int(now * 1000),
        },
        "body": raw,
        "isBase64Encoded": body is not None,
    }


def json_of(response: dict[str, Any]) -> dict[str, Any]:
    assert response["statusCode"] == 200, response
    body = response["body"]
    raw = base64.b64decode(body) if response["isBase64Encoded"] else body.encode()
    return json.loads(raw)


@pytest.fixture
def lambdas(tmp_path: Path, pg_uri: str, seaweedfs: SeaweedFS, bucket: str) -> Iterator[list[LambdaApp]]:
    env = {
        "EMBUCKET_DATA_DIR": str(tmp_path / "tmp"),
        "EMBUCKET_METASTORE_URI": pg_uri,
        "EMBUCKET_WAREHOUSE": f"s3://{bucket}/lakehouse",
        "EMBUCKET_S3_ENDPOINT": seaweedfs.endpoint,
        "EMBUCKET_S3_ACCESS_KEY_ID": ACCESS_KEY,
        "EMBUCKET_S3_SECRET_ACCESS_KEY": SECRET_KEY,
        "EMBUCKET_SECRET": "lambda-shared-secret",
    }
    apps = [LambdaApp(load_settings(env=env)) for _ in range(2)]
    yield apps
    for app in apps:
        app.close()


def test_login_query_and_chunks_across_instances(lambdas: list[LambdaApp]) -> None:
    one, two = lambdas
    print(f"cold start: {one.cold_start_seconds:.2f} s, {two.cold_start_seconds:.2f} s")
    assert one.cold_start_seconds > 0

    login = json_of(
        one(
            event(
                "POST",
                f"/session/v1/login-request?databaseName=EMBUCKET&schemaName=PUBLIC&requestId={uuid.uuid4()}",
                {
                    "data": {
                        "LOGIN_NAME": "embucket",
                        "PASSWORD": "embucket",
                        "CLIENT_APP_ID": "PythonConnector",
                    }
                },
            )
        )
    )
    assert login["success"], login
    token = login["data"]["token"]

    def run(app: LambdaApp, sql: str, **extra: Any) -> dict[str, Any]:
        body = {"sqlText": sql, "sequenceId": 1, **extra}
        return json_of(app(event("POST", f"/queries/v1/query-request?requestId={uuid.uuid4()}", body, token)))

    assert run(two, "CREATE TABLE events (id INT, kind VARCHAR)")["success"]
    inserted = run(one, "INSERT INTO events SELECT seq4(), 'k' FROM TABLE(GENERATOR(ROWCOUNT => 200000))")
    assert inserted["success"], inserted

    answer = run(two, "SELECT id FROM events")
    assert answer["success"], answer
    data = answer["data"]
    assert data["chunks"]
    rows = list(wire.rows(data))
    for chunk in data["chunks"]:
        url = urlsplit(chunk["url"])
        assert url.scheme == "https" and url.netloc == DOMAIN
        response = one(event("GET", f"{url.path}?{url.query}"))
        assert response["statusCode"] == 200
        assert response["isBase64Encoded"] is True
        rows.extend(wire.arrow_rows(base64.b64decode(response["body"])))
    assert sorted(r[0] for r in rows) == list(range(200000))

    submitted = run(one, "SELECT COUNT(*) FROM events", asyncExec=True)
    query_id = submitted["data"]["queryId"]
    deadline = time.monotonic() + 30
    while True:
        polled = json_of(two(event("GET", f"/queries/{query_id}/result", token=token)))
        if polled["code"] not in ("333333", "333334"):
            break
        assert time.monotonic() < deadline
        time.sleep(0.2)
    assert wire.rows(polled["data"]) == [(200000,)]

    logout = json_of(two(event("POST", "/session?delete=true", {}, token)))
    assert logout["success"]
    gone = run(one, "SELECT 1")
    assert gone["code"] == "390111"


def test_health_and_missing_secret(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="EMBUCKET_SECRET"):
        LambdaApp(load_settings(env={"EMBUCKET_DATA_DIR": str(tmp_path)}))
    app = LambdaApp(load_settings(env={"EMBUCKET_DATA_DIR": str(tmp_path), "EMBUCKET_SECRET": "s"}))
    try:
        response = app(event("GET", "/health"))
        assert response["statusCode"] == 200
        assert response["isBase64Encoded"] is False
        assert json.loads(response["body"]) == {"status": "ok"}
    finally:
        app.close()

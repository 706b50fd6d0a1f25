"""Responses of the main endpoints validated against the official OpenAPI document's schemas
(shared/specs/iceberg-rest-catalog-open-api.yaml, apache-iceberg-1.10.2), status codes included."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import httpx
import pytest

jsonschema = pytest.importorskip("jsonschema")
yaml = pytest.importorskip("yaml")

from referencing import Registry, Resource  # noqa: E402 (after the importorskip guards)
from referencing.jsonschema import DRAFT202012  # noqa: E402

from tests.e2e.conftest import Server  # noqa: E402
from tests.iceberg_rest.conftest import rest_url  # noqa: E402

SPEC_URI = "urn:iceberg-rest-openapi"
SPEC_PATH = Path(__file__).resolve().parents[3] / "shared" / "specs" / "iceberg-rest-catalog-open-api.yaml"


@functools.cache
def spec() -> dict[str, Any]:
    if not SPEC_PATH.exists():
        pytest.skip(f"spec not found at {SPEC_PATH}")
    return yaml.safe_load(SPEC_PATH.read_text())


def check(response: httpx.Response, status: int, schema: str) -> Any:
    """Asserts the status and that the body matches `#/components/schemas/<schema>`."""
    assert response.status_code == status, response.text
    document = spec()
    registry = Registry().with_resource(SPEC_URI, Resource(contents=document, specification=DRAFT202012))
    validator = jsonschema.Draft202012Validator(
        {"$ref": f"{SPEC_URI}#/components/schemas/{schema}"}, registry=registry
    )
    body = response.json()
    errors = sorted(validator.iter_errors(body), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:5])
    return body


TABLE_BODY = {
    "name": "orders",
    "schema": {
        "type": "struct",
        "schema-id": 0,
        "fields": [
            {"id": 1, "name": "id", "type": "long", "required": True},
            {"id": 2, "name": "ts", "type": "timestamptz", "required": False},
            {"id": 3, "name": "amount", "type": "decimal(10, 2)", "required": False},
        ],
    },
    "partition-spec": {"spec-id": 0, "fields": [{"source-id": 2, "field-id": 1000, "name": "ts_day",
                                                 "transform": "day"}]},
    "properties": {"owner": "contract"},
}  # fmt: skip


def test_contract(server: Server, database: str, http: httpx.Client) -> None:
    url = rest_url(server)
    token = check(
        httpx.post(
            f"{url}/v1/oauth/tokens",
            data={"grant_type": "client_credentials", "client_id": "embucket", "client_secret": "embucket"},
        ),
        200,
        "OAuthTokenResponse",
    )
    auth = {"Authorization": f"Bearer {token['access_token']}"}
    config = check(
        httpx.get(f"{url}/v1/config", params={"warehouse": database}, headers=auth), 200, "CatalogConfig"
    )
    assert config["overrides"]["prefix"] == database.lower()
    check(
        httpx.get(f"{url}/v1/config", params={"warehouse": "nope"}, headers=auth), 400, "IcebergErrorResponse"
    )
    check(httpx.get(f"{url}/v1/config"), 401, "IcebergErrorResponse")

    check(http.get("namespaces"), 200, "ListNamespacesResponse")
    check(http.post("namespaces", json={"namespace": ["sales"], "properties": {"a": "1"}}), 200,
          "CreateNamespaceResponse")  # fmt: skip
    check(http.post("namespaces", json={"namespace": ["sales"]}), 409, "IcebergErrorResponse")
    check(http.post("namespaces", json={"namespace": ["a", "b"]}), 400, "IcebergErrorResponse")
    check(http.get("namespaces/sales"), 200, "GetNamespaceResponse")
    check(http.get("namespaces/nope"), 404, "IcebergErrorResponse")
    assert http.head("namespaces/sales").status_code == 204
    assert http.head("namespaces/nope").status_code == 404
    check(http.post("namespaces/sales/properties", json={"removals": ["x"], "updates": {"b": "2"}}), 200,
          "UpdateNamespacePropertiesResponse")  # fmt: skip

    created = check(http.post("namespaces/sales/tables", json=TABLE_BODY), 200, "LoadTableResult")
    assert created["metadata"]["partition-specs"][0]["fields"][0]["transform"] == "day"
    check(http.post("namespaces/sales/tables", json=TABLE_BODY), 409, "IcebergErrorResponse")
    staged_body = {**TABLE_BODY, "name": "staged", "stage-create": True}
    staged = check(http.post("namespaces/sales/tables", json=staged_body),
                   200, "LoadTableResult")  # fmt: skip
    assert "metadata-location" not in staged
    assert http.head("namespaces/sales/tables/staged").status_code == 404  # staging persists nothing
    check(http.get("namespaces/sales/tables"), 200, "ListTablesResponse")
    loaded = check(http.get("namespaces/sales/tables/orders"), 200, "LoadTableResult")
    check(http.get("namespaces/sales/tables/nope"), 404, "IcebergErrorResponse")
    assert http.head("namespaces/sales/tables/orders").status_code == 204

    commit = {
        "requirements": [{"type": "assert-table-uuid", "uuid": loaded["metadata"]["table-uuid"]}],
        "updates": [{"action": "set-properties", "updates": {"k": "v"}}],
    }
    check(http.post("namespaces/sales/tables/orders", json=commit), 200, "CommitTableResponse")
    stale = {**commit, "requirements": [{"type": "assert-current-schema-id", "current-schema-id": 7}]}
    check(http.post("namespaces/sales/tables/orders", json=stale), 409, "IcebergErrorResponse")
    assert (
        http.post("namespaces/sales/tables/orders/metrics", json={"report-type": "scan-report"}).status_code
        == 204
    )
    check(http.get("namespaces/sales/tables/orders/credentials"), 200, "LoadCredentialsResponse")

    rename = {"source": {"namespace": ["sales"], "name": "orders"}, "destination": {"namespace": ["sales"],
              "name": "orders2"}}  # fmt: skip
    assert http.post("tables/rename", json=rename).status_code == 204
    check(http.post("tables/rename", json=rename), 404, "IcebergErrorResponse")
    check(http.get("namespaces/sales/views"), 200, "ListTablesResponse")
    check(http.get("namespaces/sales/views/nope"), 404, "IcebergErrorResponse")
    check(http.delete("namespaces/sales"), 409, "IcebergErrorResponse")
    assert (
        http.delete("namespaces/sales/tables/orders2", params={"purgeRequested": "true"}).status_code == 204
    )
    assert http.delete("namespaces/sales").status_code == 204
    check(http.get("nowhere/at/all"), 404, "IcebergErrorResponse")

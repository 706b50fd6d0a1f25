"""Hypothesis over the Iceberg REST catalog, driven by the official OpenAPI document
(/work/shared/specs): every operation of the spec with generated path parameters, bodies and
tokens. No 5xx answers; every answer the spec documents for that operation and status matches
its schema; no request without a valid token succeeds."""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from embucket_py.config import load_settings
from embucket_py.server.app import build_app

jsonschema = pytest.importorskip("jsonschema")
yaml = pytest.importorskip("yaml")
from referencing import Registry, Resource  # noqa: E402
from referencing.jsonschema import DRAFT202012  # noqa: E402

SPEC_PATH = Path("/work/shared/specs/iceberg-rest-catalog-open-api.yaml")
SPEC_URI = "urn:iceberg-rest-openapi"
# Fresh inputs on every local run; the same ones in CI (CI=true), so a red build is reproducible.
FUZZ = settings(
    max_examples=80,
    deadline=None,
    derandomize=bool(os.environ.get("CI")),
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


@functools.cache
def spec() -> dict[str, Any]:
    if not SPEC_PATH.exists():
        pytest.skip(f"spec not found at {SPEC_PATH}")
    return dict(yaml.safe_load(SPEC_PATH.read_text()))


def operations() -> list[tuple[str, str]]:
    methods = ("get", "post", "delete", "head", "put")
    return sorted((path, m) for path, ops in spec()["paths"].items() for m in ops if m in methods)


def response_schema(path: str, method: str, status: int) -> dict[str, Any] | None:
    """The JSON schema the spec gives this operation's `status` answer (None: not documented)."""
    document = spec()
    answers = document["paths"][path][method].get("responses", {})
    # YAML reads the status keys as integers (except patterns like 5XX).
    answer = answers.get(status) or answers.get(str(status)) or answers.get(f"{str(status)[0]}XX")
    if answer is None:
        return None
    if "$ref" in answer:
        answer = document["components"]["responses"][answer["$ref"].rsplit("/", 1)[1]]
    schema = answer.get("content", {}).get("application/json", {}).get("schema")
    if schema is None:
        return None
    if schema.get("$ref") == "#/components/schemas/ErrorModel":
        # Some view answers name the bare ErrorModel while their own examples (and every client)
        # use the {"error": ...} envelope: accept the envelope the examples show.
        schema = {"$ref": "#/components/schemas/IcebergErrorResponse"}
    return {"$ref": f"{SPEC_URI}#{schema['$ref'][1:]}"} if "$ref" in schema else schema


def conforms(body: Any, schema: dict[str, Any]) -> list[str]:
    registry = Registry().with_resource(SPEC_URI, Resource(contents=spec(), specification=DRAFT202012))
    validator = jsonschema.Draft202012Validator(schema, registry=registry)
    return [f"{list(e.path)}: {e.message}" for e in validator.iter_errors(body)][:3]


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    data_dir: Path = tmp_path_factory.mktemp("fuzz-iceberg")
    with TestClient(
        build_app(load_settings({"data_dir": str(data_dir)}, env={})), raise_server_exceptions=False
    ) as c:
        yield c


@pytest.fixture(scope="module")
def token(client: TestClient) -> str:
    answer = client.post(
        "/iceberg/v1/oauth/tokens",
        data={"grant_type": "client_credentials", "client_id": "embucket", "client_secret": "embucket"},
    )
    assert answer.status_code == 200
    return str(answer.json()["access_token"])


names = st.one_of(
    st.sampled_from(["public", "embucket", "t", "x1", "PUBLIC", "a%1Fb", ".."]),
    st.text(st.characters(min_codepoint=48, max_codepoint=122), min_size=1, max_size=12),
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=15),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=10,
)
# Bodies close to valid ones reach deeper than random JSON.
near_valid = st.fixed_dictionaries(
    {},
    optional={
        "namespace": st.lists(names, max_size=2),
        "name": names,
        "schema": st.fixed_dictionaries(
            {"type": st.just("struct"), "fields": st.lists(json_values, max_size=2)},
            optional={"schema-id": st.integers(-1, 3)},
        ),
        "properties": st.dictionaries(st.text(max_size=8), json_values, max_size=2),
        "requirements": st.lists(json_values, max_size=2),
        "updates": st.lists(json_values, max_size=2),
        "source": json_values,
        "destination": json_values,
        "metadata-location": st.text(max_size=30),
    },
)


@FUZZ
@given(data=st.data(), body=st.one_of(near_valid, json_values), authorized=st.booleans())
def test_every_operation(
    client: TestClient, token: str, data: st.DataObject, body: Any, authorized: bool
) -> None:
    path, method = data.draw(st.sampled_from(operations()))
    if path == "/v1/oauth/tokens":
        return  # form-encoded, covered by the token test below
    url = path
    for parameter in ("prefix", "namespace", "table", "view", "plan-id"):
        value = "embucket" if parameter == "prefix" and data.draw(st.booleans()) else data.draw(names)
        url = url.replace("{" + parameter + "}", value)
    headers = {"Authorization": f"Bearer {token}"} if authorized else {}
    response = client.request(
        method.upper(), "/iceberg" + url, json=body if method in ("post", "put") else None, headers=headers
    )
    assert response.status_code < 500, (method, url, response.status_code, response.text[:300])
    if not authorized:
        # Unauthenticated: nothing succeeds (unimplemented endpoints may answer 404 first).
        assert response.status_code >= 400, (method, url, response.status_code)
    if method == "head" or not response.content:
        return
    schema = response_schema(path, method, response.status_code)
    if schema is not None:
        problems = conforms(response.json(), schema)
        assert not problems, (method, url, response.status_code, problems)


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/embucket/tables/rename", {"source": 1, "destination": None}),
        ("/v1/embucket/views/rename", {"source": {"namespace": ["public"], "name": "v"}, "destination": "x"}),
        ("/v1/embucket/transactions/commit", {"table-changes": [1]}),
        ("/v1/embucket/namespaces/public/tables/t", {"requirements": ["assert-create"]}),
        ("/v1/embucket/namespaces/public/properties", {"updates": [None]}),
        ("/v1/embucket/namespaces/public/properties", {"removals": {"a": 1}}),
    ],
)
def test_a_body_of_the_wrong_shape_is_a_bad_request(
    client: TestClient, token: str, path: str, body: dict[str, Any]
) -> None:
    # Found by the fuzzer: the access check and handlers read these parts as objects (500).
    response = client.post("/iceberg" + path, json=body, headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 400, response.text
    assert response.json()["error"]["type"] == "BadRequestException"


@FUZZ
@given(
    form=st.dictionaries(
        st.sampled_from(["grant_type", "client_id", "client_secret", "scope"]), st.text(max_size=20)
    )
)
def test_token_endpoint(client: TestClient, form: dict[str, str]) -> None:
    response = client.post("/iceberg/v1/oauth/tokens", data=form)
    assert response.status_code < 500
    real = form.get("client_id") == "embucket" and form.get("client_secret") == "embucket"
    if response.status_code == 200:
        assert real  # only the real credentials get a token
        assert not conforms(response.json(), {"$ref": f"{SPEC_URI}#/components/schemas/OAuthTokenResponse"})
    else:
        assert not conforms(response.json(), {"$ref": f"{SPEC_URI}#/components/schemas/OAuthError"})


@FUZZ
@given(bearer=st.text(st.characters(min_codepoint=33, max_codepoint=126), max_size=60))
def test_forged_bearer_tokens(client: TestClient, bearer: str) -> None:
    response = client.get("/iceberg/v1/embucket/namespaces", headers={"Authorization": f"Bearer {bearer}"})
    assert response.status_code in (400, 401, 403)

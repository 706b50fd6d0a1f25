"""Fixtures: a real server process, pyiceberg's RestCatalog and raw HTTP against its /iceberg mount."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from pyiceberg.catalog.rest import RestCatalog

# The e2e fixtures: a real server process, and a fresh database per test.
from tests.e2e.conftest import Server, database, server  # noqa: F401


def rest_url(server: Server) -> str:
    return f"http://127.0.0.1:{server.port}/iceberg"


@pytest.fixture
def catalog(server: Server, database: str) -> RestCatalog:
    return RestCatalog(
        database.lower(),
        uri=rest_url(server),
        warehouse=database.lower(),
        credential="embucket:embucket",
        **{"oauth2-server-uri": f"{rest_url(server)}/v1/oauth/tokens"},
    )


@pytest.fixture(scope="session")
def token(server: Server) -> str:
    response = httpx.post(
        f"{rest_url(server)}/v1/oauth/tokens",
        data={"grant_type": "client_credentials", "client_id": "embucket", "client_secret": "embucket"},
    )
    response.raise_for_status()
    return str(response.json()["access_token"])


@pytest.fixture
def http(server: Server, database: str, token: str) -> Iterator[httpx.Client]:
    """Raw HTTP under the database's prefix: `http.get("namespaces")`."""
    with httpx.Client(
        base_url=f"{rest_url(server)}/v1/{database.lower()}/",
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    ) as client:
        yield client

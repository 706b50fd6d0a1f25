"""Fixtures for deployment tests: SeaweedFS and PostgreSQL per test session, fresh names per test."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from tests.deploy.services import PostgreSQL, SeaweedFS


@pytest.fixture(scope="session")
def seaweedfs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SeaweedFS]:
    weed = SeaweedFS(tmp_path_factory.mktemp("seaweedfs"))
    weed.start()
    yield weed
    weed.stop()


@pytest.fixture
def bucket(seaweedfs: SeaweedFS) -> str:
    """A fresh bucket (bucket names must be DNS names: lower case, digits, dashes)."""
    return seaweedfs.create_bucket(f"embucket-{uuid.uuid4().hex[:12]}")


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgreSQL]:
    pg = PostgreSQL()
    pg.start()
    yield pg
    pg.stop()


@pytest.fixture
def pg_uri(postgres: PostgreSQL) -> str:
    """A fresh PostgreSQL database as a SQLAlchemy URI."""
    return postgres.create_database(f"embucket_{uuid.uuid4().hex[:12]}")

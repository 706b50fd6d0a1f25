"""The parser of external volume / catalog integration statements (sql/catalogs.py)."""

from __future__ import annotations

import pytest

from embucket_py.errors import SyntaxError_, Unsupported
from embucket_py.sql.catalogs import (
    INTEGRATION,
    VOLUME,
    CreateBoundDatabase,
    CreateObject,
    DescribeObject,
    DropObject,
    ShowObjects,
    parse_statement,
    redact,
    statement_of,
)
from embucket_py.sql.parse import parse


def test_create_volume_properties() -> None:
    statement = parse_statement(
        "CREATE OR REPLACE EXTERNAL VOLUME v STORAGE_LOCATIONS = ("
        "(NAME = 'a' STORAGE_PROVIDER = 'S3' STORAGE_BASE_URL = 's3://b/p' "
        "CREDENTIALS = (AWS_KEY_ID = 'k' AWS_SECRET_KEY = 'it''s')),"
        "(NAME = 'b' STORAGE_PROVIDER = 'S3COMPAT' STORAGE_BASE_URL = 's3compat://c/'))"
        " ALLOW_WRITES = TRUE COMMENT = 'x';"
    )
    assert isinstance(statement, CreateObject)
    assert (statement.kind, statement.name, statement.replace) == (VOLUME, "V", True)
    locations = statement.properties["STORAGE_LOCATIONS"]
    assert isinstance(locations, list) and len(locations) == 2
    assert locations[0]["CREDENTIALS"] == {"AWS_KEY_ID": "k", "AWS_SECRET_KEY": "it's"}  # type: ignore[index]
    assert statement.properties["ALLOW_WRITES"] == "TRUE"


def test_create_integration_lists_and_words() -> None:
    statement = parse_statement(
        'create catalog integration if not exists "My Cat" catalog_source = iceberg_rest '
        "rest_config = (catalog_uri = 'http://h/iceberg') "
        "rest_authentication = (type = oauth oauth_allowed_scopes = ('PRINCIPAL_ROLE:ALL', 'x'))"
    )
    assert isinstance(statement, CreateObject)
    assert (statement.kind, statement.name, statement.if_not_exists) == (INTEGRATION, "My Cat", True)
    assert statement.properties["CATALOG_SOURCE"] == "ICEBERG_REST"
    auth = statement.properties["REST_AUTHENTICATION"]
    assert auth == {"TYPE": "OAUTH", "OAUTH_ALLOWED_SCOPES": ["PRINCIPAL_ROLE:ALL", "x"]}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("SHOW EXTERNAL VOLUMES", ShowObjects(VOLUME)),
        ("show catalog integrations like '%c%'", ShowObjects(INTEGRATION, "%c%")),
        ("DESC EXTERNAL VOLUME v", DescribeObject(VOLUME, "V")),
        ('DESCRIBE CATALOG INTEGRATION "c"', DescribeObject(INTEGRATION, "c")),
        ("DROP EXTERNAL VOLUME IF EXISTS v", DropObject(VOLUME, "V", True)),
        (
            "CREATE DATABASE d LINKED_CATALOG = (CATALOG = 'c') COMMENT = 'x'",
            CreateBoundDatabase("D", None, "C", "x"),
        ),
        (
            "CREATE DATABASE IF NOT EXISTS d CATALOG = 'c'",
            CreateBoundDatabase("D", None, "C", None, False, True),
        ),
        (
            "CREATE OR REPLACE DATABASE d EXTERNAL_VOLUME = 'v'",
            CreateBoundDatabase("D", "V", None, None, True),
        ),
        ("CREATE DATABASE d", None),
        ("CREATE DATABASE d CLONE e AT(TIMESTAMP => '2024-01-01'::TIMESTAMP)", None),
        ("SHOW DATABASES", None),
        ("DROP TABLE t", None),
    ],
)
def test_statements(text: str, expected: object) -> None:
    assert parse_statement(text) == expected


def test_statement_of_parsed_trees() -> None:
    (tree,) = parse("CREATE DATABASE d EXTERNAL_VOLUME = 'v'")
    assert statement_of(tree) == CreateBoundDatabase("D", "V", None, None)
    (tree,) = parse("SHOW EXTERNAL VOLUMES")
    assert statement_of(tree) == ShowObjects(VOLUME)
    (tree,) = parse("CREATE DATABASE d COMMENT = 'x'")
    assert statement_of(tree) is None


def test_errors() -> None:
    with pytest.raises(SyntaxError_):
        parse_statement("CREATE EXTERNAL VOLUME v STORAGE_LOCATIONS = ((NAME = ")
    with pytest.raises(SyntaxError_):
        parse_statement("DROP EXTERNAL VOLUME v extra")
    with pytest.raises(Unsupported):
        parse_statement("CREATE DATABASE d EXTERNAL_VOLUME = 'v' DATA_RETENTION_TIME_IN_DAYS = 3")
    with pytest.raises(Unsupported):
        parse_statement("CREATE DATABASE d EXTERNAL_VOLUME = 'v' CATALOG = 'c'")


def test_redact_masks_only_secrets() -> None:
    text = "CREDENTIALS = (AWS_KEY_ID = 'k' aws_secret_key='a''b') BEARER_TOKEN = 't' OAUTH_CLIENT_ID = 'id'"
    assert redact(text) == (
        "CREDENTIALS = (AWS_KEY_ID = 'k' aws_secret_key='****') BEARER_TOKEN = '****' OAUTH_CLIENT_ID = 'id'"
    )

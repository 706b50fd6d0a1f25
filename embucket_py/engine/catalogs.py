"""Running external volume and catalog integration statements, and databases bound to them.

Output columns follow Snowflake's pages:
https://docs.snowflake.com/en/sql-reference/sql/show-external-volumes
https://docs.snowflake.com/en/sql-reference/sql/desc-external-volume
https://docs.snowflake.com/en/sql-reference/sql/show-integrations
https://docs.snowflake.com/en/sql-reference/sql/desc-integration
Secrets (AWS_SECRET_KEY, OAUTH_CLIENT_SECRET, BEARER_TOKEN) are never part of any output.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

from embucket_py import naming
from embucket_py.catalog import external, storage, volumes
from embucket_py.catalog.metastore import Metastore
from embucket_py.engine.metadata_columns import EMPTY_KINDS, TEXT, Columns
from embucket_py.engine.result import QueryResult, StatementType, constant, status
from embucket_py.errors import SqlCompilationError, already_exists, object_not_found
from embucket_py.sql.catalogs import (
    VOLUME,
    CatalogStatement,
    CreateBoundDatabase,
    CreateObject,
    DescribeObject,
    DropObject,
    ShowObjects,
)
from embucket_py.sql.names import like_matches

SHOW_VOLUMES: Columns = [("name", TEXT), ("allow_writes", TEXT), ("comment", TEXT)]
SHOW_INTEGRATIONS = EMPTY_KINDS["INTEGRATIONS"]
DESCRIBE_VOLUME: Columns = [
    ("parent_property", TEXT),
    ("property", TEXT),
    ("property_type", TEXT),
    ("property_value", TEXT),
    ("property_default", TEXT),
]
DESCRIBE_INTEGRATION: Columns = [
    ("property", TEXT),
    ("property_type", TEXT),
    ("property_value", TEXT),
    ("property_default", TEXT),
]


def run(metastore: Metastore, statement: CatalogStatement, *, describe_only: bool = False) -> QueryResult:
    """Executes one statement (or, for a prepare, only shapes its result).

    Raises:
        SnowflakeError: any failure, in Snowflake's terms.
    """
    if describe_only and not isinstance(statement, ShowObjects | DescribeObject):
        result = status("", StatementType.DDL)
        result.batches = []
        return result
    if isinstance(statement, ShowObjects):
        result = _show(metastore, statement)
    elif isinstance(statement, DescribeObject):
        result = _describe(metastore, statement)
    elif isinstance(statement, CreateObject):
        return _create(metastore, statement)
    elif isinstance(statement, DropObject):
        return _drop(metastore, statement)
    else:
        return create_database(metastore, statement)
    if describe_only:
        result.batches = []
    return result


def _create(metastore: Metastore, d: CreateObject) -> QueryResult:
    if d.kind == VOLUME:
        volume = volumes.new_volume(d.name, d.properties)
        for location in volume.locations:
            storage.register(location.store())
            storage.ensure_location(location.base_url)  # the bucket must be reachable now
        created = metastore.volumes.create(volume, replace=d.replace, if_not_exists=d.if_not_exists)
        label = "External volume"
    else:
        integration = external.new_integration(d.name, d.properties)
        created = metastore.integrations.create(integration, replace=d.replace, if_not_exists=d.if_not_exists)
        label = "Integration"
    shown = naming.quote(d.name)
    if not created:
        return status(f"{shown} already exists, statement succeeded.")
    return status(f"{label} {shown} successfully created.")


def _drop(metastore: Metastore, d: DropObject) -> QueryResult:
    if d.kind == VOLUME:
        users = metastore.integrations.users_of(volume=d.name)
    else:
        users = metastore.integrations.users_of(integration=d.name)
    if users:
        raise SqlCompilationError(
            f"Cannot drop {d.kind.lower()} '{d.name}': database '{naming.display(users[0])}' uses it."
        )
    if d.kind == VOLUME:
        dropped = metastore.volumes.drop(d.name, if_exists=d.if_exists)
    else:
        dropped = metastore.integrations.drop(d.name, if_exists=d.if_exists)
    shown = naming.quote(d.name)
    if not dropped:
        return status(f"Drop statement executed successfully ({shown} already dropped).")
    return status(f"{shown} successfully dropped.")


def create_database(metastore: Metastore, d: CreateBoundDatabase) -> QueryResult:
    """CREATE DATABASE on an external volume, or linked to a catalog integration."""
    shown = naming.quote(d.name)
    if metastore.database_exists(d.name):
        if d.if_not_exists:
            return status(f"{shown} already exists, statement succeeded.")
        if not d.replace:
            raise already_exists("Database", d.name)
    if d.volume is not None:
        metastore.volumes.require(d.volume)
    else:
        assert d.integration is not None
        # Reach the remote catalog before recording anything: a wrong URI or credential fails here.
        external.rest_catalog(naming.stored(d.name), metastore.integrations.require(d.integration))
    if metastore.database_exists(d.name):
        metastore.drop_database(d.name)
    binding = external.Binding(d.volume, d.integration)
    try:
        metastore.create_database(d.name, comment=d.comment, binding=binding)
    except Exception:
        if metastore.database_exists(d.name):  # the remote refused the PUBLIC namespace: undo
            metastore.drop_database(d.name)
        raise
    return status(f"Database {shown} successfully created.")


def _show(metastore: Metastore, d: ShowObjects) -> QueryResult:
    if d.kind == VOLUME:
        rows = [
            (v.name, str(v.allow_writes).lower(), v.comment or "")
            for v in metastore.volumes.all()
            if d.like is None or like_matches(d.like, v.name)
        ]
        return constant(SHOW_VOLUMES, rows, StatementType.SHOW)
    return show_integrations(metastore, d.like)


def show_integrations(metastore: Metastore, like: str | None) -> QueryResult:
    """SHOW [CATALOG] INTEGRATIONS: the catalog integrations, the only integrations here."""
    rows = [
        (i.name, "ICEBERG_REST", "CATALOG", str(i.enabled).lower(), i.comment or "", _utc(i.created_on))
        for i in metastore.integrations.all()
        if like is None or like_matches(like, i.name)
    ]
    return constant(SHOW_INTEGRATIONS, rows, StatementType.SHOW)


def _describe(metastore: Metastore, d: DescribeObject) -> QueryResult:
    if d.kind == VOLUME:
        volume = metastore.volumes.get(d.name)
        if volume is None:
            raise object_not_found("External volume", d.name)
        rows: list[tuple[object, ...]] = [
            ("", "ALLOW_WRITES", "Boolean", str(volume.allow_writes).lower(), "true")
        ]
        for n, location in enumerate(volume.locations, start=1):
            rows.append(
                ("STORAGE_LOCATIONS", f"STORAGE_LOCATION_{n}", "String", json.dumps(location.public()), "")
            )
        rows.append(("STORAGE_LOCATIONS", "ACTIVE", "String", volume.active.name, ""))
        rows.append(("", "COMMENT", "String", volume.comment or "", ""))
        return constant(DESCRIBE_VOLUME, rows, StatementType.DESCRIBE)
    integration = metastore.integrations.get(d.name)
    if integration is None:
        raise object_not_found("Integration", d.name)
    rows = [(prop, kind, value, "") for prop, kind, value in integration.public()]
    return constant(DESCRIBE_INTEGRATION, rows, StatementType.DESCRIBE)


def _utc(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=UTC)

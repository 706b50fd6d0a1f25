"""Catalog integrations (external Iceberg REST catalogs) and what each database is bound to.

https://docs.snowflake.com/en/sql-reference/sql/create-catalog-integration-rest
An integration records a REST catalog's URI, warehouse (CATALOG_NAME) and credentials; a
database linked to it (CREATE DATABASE d LINKED_CATALOG = (CATALOG = 'c')) is that catalog: its
schemas are the remote namespaces and the metastore hands out a pyiceberg RestCatalog for it.
Credentials stay in the metastore and in the RestCatalog; `public()` and reprs never show them.

`embucket_database_bindings` says which databases are linked to an integration or kept on an
external volume (databases without a row use the server's own warehouse).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa

from embucket_py.errors import (
    SnowflakeError,
    SqlCompilationError,
    Unsupported,
    already_exists,
    object_not_found,
)

_meta = sa.MetaData()
integrations_table = sa.Table(
    "embucket_catalog_integrations",
    _meta,
    sa.Column("name", sa.String(255), primary_key=True),
    sa.Column("created_on", sa.DateTime, nullable=False),
    sa.Column("enabled", sa.Boolean, nullable=False),
    sa.Column("comment", sa.Text),
    sa.Column("settings", sa.Text, nullable=False),  # JSON, with credentials
)
bindings_table = sa.Table(
    "embucket_database_bindings",
    _meta,
    sa.Column("database", sa.String(255), primary_key=True),  # stored (Iceberg) name
    sa.Column("volume", sa.String(255)),
    sa.Column("integration", sa.String(255)),
)

_TOP_KEYS = {
    "CATALOG_SOURCE",
    "TABLE_FORMAT",
    "CATALOG_NAMESPACE",
    "REST_CONFIG",
    "REST_AUTHENTICATION",
    "ENABLED",
    "COMMENT",
}
_CONFIG_KEYS = {"CATALOG_URI", "CATALOG_NAME", "PREFIX"}
_AUTH_KEYS = {
    "TYPE",
    "OAUTH_TOKEN_URI",
    "OAUTH_CLIENT_ID",
    "OAUTH_CLIENT_SECRET",
    "OAUTH_ALLOWED_SCOPES",
    "BEARER_TOKEN",
}


class RemoteCatalogError(SnowflakeError):
    """The remote catalog could not be reached or refused the credentials."""

    code = 3001
    sqlstate = "42501"


@dataclass(frozen=True)
class Integration:
    name: str
    created_on: datetime
    enabled: bool
    comment: str | None
    uri: str
    warehouse: str = ""
    namespace: str = ""
    prefix: str = ""
    auth_type: str = "OAUTH"  # OAUTH | BEARER
    token_uri: str = ""
    client_id: str = ""
    client_secret: str = field(default="", repr=False)
    scopes: tuple[str, ...] = ()
    bearer_token: str = field(default="", repr=False)

    def public(self) -> list[tuple[str, str, str]]:
        """(property, type, value) rows DESCRIBE shows: never a secret or a token."""
        rows = [
            ("ENABLED", "Boolean", str(self.enabled).lower()),
            ("CATALOG_SOURCE", "String", "ICEBERG_REST"),
            ("TABLE_FORMAT", "String", "ICEBERG"),
            ("CATALOG_NAMESPACE", "String", self.namespace),
            (
                "REST_CONFIG",
                "Object",
                json.dumps({"CATALOG_URI": self.uri, "CATALOG_NAME": self.warehouse, "PREFIX": self.prefix}),
            ),
        ]
        auth: dict[str, object] = {"TYPE": self.auth_type}
        if self.auth_type == "OAUTH":
            auth.update(
                OAUTH_TOKEN_URI=self.token_uri,
                OAUTH_CLIENT_ID=self.client_id,
                OAUTH_ALLOWED_SCOPES=list(self.scopes),
            )
        rows.append(("REST_AUTHENTICATION", "Object", json.dumps(auth)))
        rows.append(("COMMENT", "String", self.comment or ""))
        return rows

    def settings(self) -> dict[str, object]:
        return {
            "uri": self.uri,
            "warehouse": self.warehouse,
            "namespace": self.namespace,
            "prefix": self.prefix,
            "auth_type": self.auth_type,
            "token_uri": self.token_uri,
            "client_id": self.client_id,
            "client_secret": self.client_secret,
            "scopes": list(self.scopes),
            "bearer_token": self.bearer_token,
        }

    def catalog_properties(self) -> dict[str, str]:
        """pyiceberg RestCatalog properties."""
        props = {"uri": self.uri}
        if self.warehouse:
            props["warehouse"] = self.warehouse
        if self.prefix:
            props["prefix"] = self.prefix
        if self.auth_type == "BEARER":
            props["token"] = self.bearer_token
        elif self.client_id:
            props["credential"] = f"{self.client_id}:{self.client_secret}"
            if self.token_uri:
                props["oauth2-server-uri"] = self.token_uri
            if self.scopes:
                props["scope"] = " ".join(self.scopes)
        return props


def _text(options: dict[str, Any], key: str, default: str = "") -> str:
    value = options.get(key, default)
    if not isinstance(value, str):
        raise SqlCompilationError(f"{key} expects a string value.")
    return value


def _check(options: object, allowed: set[str], what: str) -> dict[str, Any]:
    if not isinstance(options, dict):
        raise SqlCompilationError(f"{what} expects a list of options: {what} = (...).")
    unknown = set(options) - allowed
    if unknown:
        raise Unsupported(f"{what} option {sorted(unknown)[0]} is not supported.")
    return options


def new_integration(name: str, properties: dict[str, object]) -> Integration:
    """An integration from CREATE CATALOG INTEGRATION's properties.

    Raises:
        Unsupported: a catalog source other than ICEBERG_REST, SigV4, an option not implemented.
        SqlCompilationError: a required option is missing.
    """
    top = _check(properties, _TOP_KEYS, "CATALOG INTEGRATION")
    source = top.get("CATALOG_SOURCE")
    if source is None:
        raise SqlCompilationError("Missing option(s): [CATALOG_SOURCE]")
    if source != "ICEBERG_REST":
        raise Unsupported(f"CATALOG_SOURCE = {source} is not supported; use ICEBERG_REST.")
    if top.get("TABLE_FORMAT", "ICEBERG") != "ICEBERG":
        raise Unsupported(f"TABLE_FORMAT = {top['TABLE_FORMAT']} is not supported; use ICEBERG.")
    config = _check(top.get("REST_CONFIG"), _CONFIG_KEYS, "REST_CONFIG")
    if "CATALOG_URI" not in config:
        raise SqlCompilationError("Missing option(s): [CATALOG_URI]")
    auth = _check(top.get("REST_AUTHENTICATION", {"TYPE": "OAUTH"}), _AUTH_KEYS, "REST_AUTHENTICATION")
    auth_type = str(auth.get("TYPE", "OAUTH")).upper()
    if auth_type not in ("OAUTH", "BEARER"):
        raise Unsupported(f"REST_AUTHENTICATION TYPE = {auth_type} is not supported; use OAUTH or BEARER.")
    if auth_type == "BEARER" and "BEARER_TOKEN" not in auth:
        raise SqlCompilationError("Missing option(s): [BEARER_TOKEN]")
    scopes = auth.get("OAUTH_ALLOWED_SCOPES", [])
    scopes = [scopes] if isinstance(scopes, str) else scopes
    if not isinstance(scopes, list) or not all(isinstance(s, str) for s in scopes):
        raise SqlCompilationError("OAUTH_ALLOWED_SCOPES expects a list of strings.")
    enabled = str(top.get("ENABLED", "TRUE")).upper()
    if enabled not in ("TRUE", "FALSE"):
        raise SqlCompilationError("ENABLED expects TRUE or FALSE.")
    return Integration(
        name=name,
        created_on=datetime.now(UTC),
        enabled=enabled == "TRUE",
        comment=_text(top, "COMMENT") or None,
        uri=_text(config, "CATALOG_URI").rstrip("/"),
        warehouse=_text(config, "CATALOG_NAME"),
        namespace=_text(top, "CATALOG_NAMESPACE"),
        prefix=_text(config, "PREFIX"),
        auth_type=auth_type,
        token_uri=_text(auth, "OAUTH_TOKEN_URI"),
        client_id=_text(auth, "OAUTH_CLIENT_ID"),
        client_secret=_text(auth, "OAUTH_CLIENT_SECRET"),
        scopes=tuple(scopes),
        bearer_token=_text(auth, "BEARER_TOKEN"),
    )


def _from_row(row: sa.Row) -> Integration:
    created = row.created_on if row.created_on.tzinfo else row.created_on.replace(tzinfo=UTC)
    s = json.loads(row.settings)
    return Integration(
        row.name,
        created,
        row.enabled,
        row.comment,
        uri=s["uri"],
        warehouse=s["warehouse"],
        namespace=s["namespace"],
        prefix=s["prefix"],
        auth_type=s["auth_type"],
        token_uri=s["token_uri"],
        client_id=s["client_id"],
        client_secret=s["client_secret"],
        scopes=tuple(s["scopes"]),
        bearer_token=s["bearer_token"],
    )


@dataclass(frozen=True)
class Binding:
    volume: str | None
    integration: str | None


class Integrations:
    """The catalog integrations of one metastore, and the databases' bindings."""

    def __init__(self, engine: sa.Engine) -> None:
        self.engine = engine
        _meta.create_all(engine)

    def get(self, name: str) -> Integration | None:
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(integrations_table).where(integrations_table.c.name == name)).first()
        return _from_row(row) if row is not None else None

    def require(self, name: str) -> Integration:
        found = self.get(name)
        if found is None:
            raise object_not_found("Integration", name)
        return found

    def all(self) -> list[Integration]:
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(integrations_table).order_by(integrations_table.c.name)).all()
        return [_from_row(r) for r in rows]

    def create(self, integration: Integration, *, replace: bool = False, if_not_exists: bool = False) -> bool:
        with self.engine.begin() as conn:
            query = sa.select(integrations_table.c.name).where(integrations_table.c.name == integration.name)
            if conn.execute(query).first() is not None:
                if if_not_exists:
                    return False
                if not replace:
                    raise already_exists("Integration", integration.name)
                conn.execute(integrations_table.delete().where(integrations_table.c.name == integration.name))
            conn.execute(
                integrations_table.insert().values(
                    name=integration.name,
                    created_on=integration.created_on,
                    enabled=integration.enabled,
                    comment=integration.comment,
                    settings=json.dumps(integration.settings()),
                )
            )
        return True

    def drop(self, name: str, *, if_exists: bool = False) -> bool:
        with self.engine.begin() as conn:
            deleted = conn.execute(integrations_table.delete().where(integrations_table.c.name == name))
        if deleted.rowcount < 1:  # type: ignore[attr-defined]
            if if_exists:
                return False
            raise object_not_found("Integration", name)
        return True

    # --- bindings -------------------------------------------------------------------------------

    def binding(self, database_key: str) -> Binding | None:
        with self.engine.connect() as conn:
            row = conn.execute(
                sa.select(bindings_table).where(bindings_table.c.database == database_key)
            ).first()
        return Binding(row.volume, row.integration) if row is not None else None

    def users_of(self, *, volume: str | None = None, integration: str | None = None) -> list[str]:
        """Stored names of the databases bound to a volume or an integration."""
        column = bindings_table.c.volume if volume is not None else bindings_table.c.integration
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(bindings_table.c.database).where(column == (volume or integration)))
            return [r[0] for r in rows]


def bind(conn: sa.Connection, database_key: str, binding: Binding) -> None:
    """Records a new database's binding inside the transaction that creates it."""
    conn.execute(
        bindings_table.insert().values(
            database=database_key, volume=binding.volume, integration=binding.integration
        )
    )


def unbind(conn: sa.Connection, database_key: str) -> None:
    conn.execute(bindings_table.delete().where(bindings_table.c.database == database_key))


def rest_catalog(database_key: str, integration: Integration) -> Any:
    """A pyiceberg RestCatalog for a linked database.

    Raises:
        Unsupported: the integration is disabled.
        RemoteCatalogError: the remote catalog is unreachable or refuses the credentials.
    """
    from pyiceberg.catalog.rest import RestCatalog

    if not integration.enabled:
        raise Unsupported(f"Integration '{integration.name}' is disabled.")
    try:
        return RestCatalog(database_key, **integration.catalog_properties())
    except Exception as e:  # connection errors, 401s: the message never carries the secret
        raise RemoteCatalogError(
            f"Cannot reach the catalog of integration '{integration.name}' at {integration.uri}: "
            f"{type(e).__name__}"
        ) from None

"""Config, namespace and table operations over a database's SqlCatalog (the SQL side's catalog).

Each handler is synchronous (pyiceberg and SQLAlchemy block; the router runs it in the thread
pool), takes the catalog plus parsed path/query/body, and returns a JSON-ready value or None (204).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from pyiceberg.catalog.rest import CreateTableRequest, RegisterTableRequest, TableResponse
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.partitioning import UNPARTITIONED_PARTITION_SPEC
from pyiceberg.table import Table
from pyiceberg.table.metadata import new_table_metadata
from pyiceberg.table.sorting import UNSORTED_SORT_ORDER
from pyiceberg.typedef import Identifier

from embucket_py.catalog import storage
from embucket_py.catalog.metastore import Metastore
from embucket_py.server.iceberg_rest import names, views
from embucket_py.server.iceberg_rest.errors import (
    RestError,
    already_exists,
    bad_request,
    no_such_table,
    unsupported,
)

# SqlCatalog stores this for a namespace created without properties; it is not a user property.
_HIDDEN_NAMESPACE_PROPERTIES = {"exists"}


@dataclass(frozen=True)
class Json:
    """A response body already serialized by a pyiceberg model (keeps its aliases and omissions)."""

    text: str


# --- config ---------------------------------------------------------------------------------------

ENDPOINTS = [
    "GET /v1/{prefix}/namespaces",
    "POST /v1/{prefix}/namespaces",
    "GET /v1/{prefix}/namespaces/{namespace}",
    "HEAD /v1/{prefix}/namespaces/{namespace}",
    "DELETE /v1/{prefix}/namespaces/{namespace}",
    "POST /v1/{prefix}/namespaces/{namespace}/properties",
    "GET /v1/{prefix}/namespaces/{namespace}/tables",
    "POST /v1/{prefix}/namespaces/{namespace}/tables",
    "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials",
    "POST /v1/{prefix}/namespaces/{namespace}/register",
    "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics",
    "POST /v1/{prefix}/tables/rename",
    "POST /v1/{prefix}/transactions/commit",
    "GET /v1/{prefix}/namespaces/{namespace}/views",
    "POST /v1/{prefix}/namespaces/{namespace}/views",
    "GET /v1/{prefix}/namespaces/{namespace}/views/{view}",
    "HEAD /v1/{prefix}/namespaces/{namespace}/views/{view}",
    "POST /v1/{prefix}/namespaces/{namespace}/views/{view}",
    "DELETE /v1/{prefix}/namespaces/{namespace}/views/{view}",
    "POST /v1/{prefix}/views/rename",
]


def get_config(metastore: Metastore, default_database: str, query: dict[str, str]) -> dict[str, Any]:
    warehouse = query.get("warehouse") or default_database
    key = names.database_key(metastore, warehouse)
    # Never override `uri`: clients would switch to it, which breaks behind proxies.
    return {"defaults": {}, "overrides": {"prefix": names.prefix_of(key)}, "endpoints": ENDPOINTS}


# --- namespaces -----------------------------------------------------------------------------------


def _visible(properties: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in properties.items() if k not in _HIDDEN_NAMESPACE_PROPERTIES}


def list_namespaces(cat: SqlCatalog, query: dict[str, str]) -> dict[str, Any]:
    parent = query.get("parent")
    if parent:
        # Single-level namespaces: an existing parent has no children.
        names.existing_namespace(cat, tuple(parent.split("\x1f")))
        return {"namespaces": []}
    return {"namespaces": [[ns[0]] for ns in sorted(cat.list_namespaces())]}


def create_namespace(cat: SqlCatalog, body: dict[str, Any]) -> dict[str, Any]:
    requested = names.single_level(tuple(body.get("namespace") or ()))
    properties = {str(k): str(v) for k, v in (body.get("properties") or {}).items()}
    name = names.new_name(requested)
    existing = names.clash(name, [ns[0] for ns in cat.list_namespaces()])
    if existing is not None:
        raise already_exists("Namespace", existing)
    cat.create_namespace((name,), properties)
    return {"namespace": [name], "properties": properties}


def load_namespace(cat: SqlCatalog, namespace: names.Namespace) -> dict[str, Any]:
    name = names.existing_namespace(cat, namespace)
    return {"namespace": [name], "properties": _visible(cat.load_namespace_properties((name,)))}


def namespace_exists(cat: SqlCatalog, namespace: names.Namespace) -> None:
    names.existing_namespace(cat, namespace)


def drop_namespace(cat: SqlCatalog, namespace: names.Namespace) -> None:
    name = names.existing_namespace(cat, namespace)
    if views.list_views(cat, name):
        raise RestError(409, "NamespaceNotEmptyException", f"Namespace {name} still has views")
    cat.drop_namespace((name,))


def update_namespace_properties(
    cat: SqlCatalog, namespace: names.Namespace, body: dict[str, Any]
) -> dict[str, Any]:
    raw_removals, raw_updates = body.get("removals") or [], body.get("updates") or {}
    if not isinstance(raw_removals, list) or not isinstance(raw_updates, dict):
        raise bad_request("removals must be a list of keys and updates an object of key-value pairs")
    name = names.existing_namespace(cat, namespace)
    removals = {str(k) for k in raw_removals}
    updates = {str(k): str(v) for k, v in raw_updates.items()}
    if removals & updates.keys():
        raise RestError(
            422,
            "UnprocessableEntityException",
            f"Keys both removed and updated: {sorted(removals & updates.keys())}",
        )
    summary = cat.update_namespace_properties((name,), removals, updates)
    return {"removed": summary.removed, "updated": summary.updated, "missing": summary.missing or []}


# --- tables ---------------------------------------------------------------------------------------


def existing_table(cat: SqlCatalog, namespace: names.Namespace, table: str) -> Identifier:
    """The stored identifier of an existing table. A missing namespace is NoSuchTable too (Spark's
    `db.t.snapshots` resolution depends on it)."""
    try:
        ns = names.existing_namespace(cat, namespace)
    except RestError:
        raise no_such_table(".".join((*namespace, table))) from None
    found = names.resolve(table, [t[-1] for t in cat.list_tables((ns,))])
    if found is None:
        raise no_such_table(f"{ns}.{table}")
    return (ns, found)


# Storage settings clients need to read and write the files themselves (vended in LoadTableResult).
_VENDED_PREFIXES = ("s3.", "client.", "gcs.", "adls.")


def table_response(
    cat: SqlCatalog, table: Table | None, metadata: Any = None, location: str | None = None
) -> Json:
    if table is not None:
        metadata, location = table.metadata, table.metadata_location
    config = {k: v for k, v in cat.properties.items() if k.startswith(_VENDED_PREFIXES)}
    return Json(TableResponse(metadata=metadata, metadata_location=location, config=config).model_dump_json())


def default_location(cat: SqlCatalog, namespace: str, table: str) -> str:
    """A fresh directory per table generation, so a dropped table's files never mix with a new one's."""
    return storage.join(cat.properties["warehouse"], namespace, f"{table}-{uuid.uuid4().hex[:8]}")


def list_tables(cat: SqlCatalog, namespace: names.Namespace) -> dict[str, Any]:
    ns = names.existing_namespace(cat, namespace)
    tables = sorted(cat.list_tables((ns,)))
    return {"identifiers": [{"namespace": [ns], "name": t[-1]} for t in tables]}


def _check_format_version(properties: dict[str, str]) -> None:
    # The SQL side's DataFusion reader is verified on v2 tables only.
    if properties.get("format-version", "2") not in ("1", "2"):
        raise bad_request("Only Iceberg format versions 1 and 2 are supported")


def create_table(cat: SqlCatalog, namespace: names.Namespace, body: dict[str, Any]) -> Json:
    for key in ("location", "partition-spec", "write-order"):
        body.setdefault(key, None)
    request = CreateTableRequest.model_validate(body)
    _check_format_version(request.properties)
    ns = names.existing_namespace(cat, namespace)
    name = names.new_name(request.name)
    existing = names.clash(name, [t[-1] for t in cat.list_tables((ns,))] + views.list_views(cat, ns))
    if existing is not None:
        raise already_exists("Table", f"{ns}.{existing}")
    location = (request.location or default_location(cat, ns, name)).rstrip("/")
    spec = request.partition_spec or UNPARTITIONED_PARTITION_SPEC
    order = request.write_order or UNSORTED_SORT_ORDER
    if request.stage_create:
        # Persist nothing: the client's assert-create commit carries the whole table.
        metadata = new_table_metadata(request.table_schema, spec, order, location, dict(request.properties))
        return table_response(cat, None, metadata, None)
    table = cat.create_table((ns, name), request.table_schema, location, spec, order, request.properties)
    return table_response(cat, table)


def load_table(cat: SqlCatalog, namespace: names.Namespace, table: str) -> Json:
    return table_response(cat, cat.load_table(existing_table(cat, namespace, table)))


def table_exists(cat: SqlCatalog, namespace: names.Namespace, table: str) -> None:
    existing_table(cat, namespace, table)


def drop_table(cat: SqlCatalog, namespace: names.Namespace, table: str, query: dict[str, str]) -> None:
    identifier = existing_table(cat, namespace, table)
    # Java sends true/false, pyiceberg True/False.
    if query.get("purgeRequested", "false").lower() == "true":
        cat.purge_table(identifier)
    else:
        cat.drop_table(identifier)


def load_credentials(cat: SqlCatalog, namespace: names.Namespace, table: str) -> dict[str, Any]:
    existing_table(cat, namespace, table)
    return {"storage-credentials": []}


def rename_table(cat: SqlCatalog, body: dict[str, Any]) -> None:
    source, destination = body.get("source") or {}, body.get("destination") or {}
    src = existing_table(cat, tuple(source.get("namespace") or ()), str(source.get("name", "")))
    dst_ns = names.existing_namespace(cat, tuple(destination.get("namespace") or ()))
    dst_name = names.new_name(str(destination.get("name", "")))
    taken = names.clash(dst_name, [t[-1] for t in cat.list_tables((dst_ns,))] + views.list_views(cat, dst_ns))
    if taken is not None and (dst_ns, taken) != src:
        raise already_exists("Table", f"{dst_ns}.{taken}")
    cat.rename_table(src, (dst_ns, dst_name))


def register_table(cat: SqlCatalog, namespace: names.Namespace, body: dict[str, Any]) -> Json:
    body.setdefault("overwrite", False)
    request = RegisterTableRequest.model_validate(body)
    if request.overwrite:
        raise unsupported("register with overwrite=true is not supported")
    root = cat.properties["warehouse"].rstrip("/") + "/"
    if not request.metadata_location.startswith(root):
        raise bad_request(f"metadata-location must be under the database's storage root {root}")
    ns = names.existing_namespace(cat, namespace)
    name = names.new_name(request.name)
    existing = names.clash(name, [t[-1] for t in cat.list_tables((ns,))])
    if existing is not None:
        raise already_exists("Table", f"{ns}.{existing}")
    return table_response(cat, cat.register_table((ns, name), request.metadata_location))


def report_metrics(body: dict[str, Any]) -> None:
    # Metrics may arrive for a table a CTAS has not committed yet: accept and drop them.
    return None

"""Iceberg views in the same catalog rows as tables (`iceberg_type = 'VIEW'`, as iceberg-java's
JDBC catalog stores them), so SqlCatalog's table lookups skip them. pyiceberg's SqlCatalog has no
view support, so metadata files and updates are handled here, with the same pointer swap as
table commits for optimistic concurrency.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

import sqlalchemy as sa
from pyiceberg.catalog import Catalog
from pyiceberg.catalog.rest import CreateViewRequest
from pyiceberg.catalog.sql import IcebergTables, SqlCatalog
from pyiceberg.io import load_file_io
from pyiceberg.typedef import Identifier
from pyiceberg.view.metadata import ViewMetadata
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from embucket_py.catalog import storage
from embucket_py.server.iceberg_rest import names
from embucket_py.server.iceberg_rest.errors import (
    RestError,
    already_exists,
    bad_request,
    commit_failed,
    no_such_view,
)

VIEW_TYPE = "VIEW"


def _rows(cat: SqlCatalog, namespace: str, name: str | None = None) -> sa.Select[Any]:
    query = sa.select(IcebergTables.table_name, IcebergTables.metadata_location).where(
        IcebergTables.catalog_name == cat.name,
        IcebergTables.table_namespace == namespace,
        IcebergTables.iceberg_type == VIEW_TYPE,
    )
    return query if name is None else query.where(IcebergTables.table_name == name)


def list_views(cat: SqlCatalog, namespace: str) -> list[str]:
    with Session(cat.engine) as session:
        return sorted(r[0] for r in session.execute(_rows(cat, namespace)))


def existing_view(cat: SqlCatalog, namespace: names.Namespace, view: str) -> tuple[Identifier, str]:
    """The stored identifier and metadata location of a view. Raises 404 NoSuchView."""
    try:
        ns = names.existing_namespace(cat, namespace)
    except RestError:
        raise no_such_view(".".join((*namespace, view))) from None
    with Session(cat.engine) as session:
        rows = {r[0]: r[1] for r in session.execute(_rows(cat, ns))}
    found = names.resolve(view, rows)
    if found is None:
        raise no_such_view(f"{ns}.{view}")
    return (ns, found), rows[found]


def _read(cat: SqlCatalog, location: str) -> dict[str, Any]:
    with load_file_io(cat.properties, location).new_input(location).open() as f:
        return json.loads(f.read())


def _write(cat: SqlCatalog, metadata: dict[str, Any], version: int) -> str:
    ViewMetadata.model_validate(metadata)  # never write a file clients cannot read back
    path = f"{metadata['location'].rstrip('/')}/metadata/{version:05d}-{uuid.uuid4()}.metadata.json"
    with load_file_io(cat.properties, path).new_output(path).create(overwrite=False) as f:
        f.write(json.dumps(metadata).encode())
    return path


def _response(location: str, metadata: dict[str, Any]) -> dict[str, Any]:
    return {"metadata-location": location, "metadata": metadata, "config": {}}


def create_view(cat: SqlCatalog, namespace: names.Namespace, body: dict[str, Any]) -> dict[str, Any]:
    body.setdefault("location", None)
    request = CreateViewRequest.model_validate(body)
    ns = names.existing_namespace(cat, namespace)
    name = names.new_name(request.name)
    existing = names.clash(name, [t[-1] for t in cat.list_tables((ns,))] + list_views(cat, ns))
    if existing is not None:
        raise already_exists("View", f"{ns}.{existing}")
    location = request.location or storage.join(
        cat.properties["warehouse"], ns, f"{name}-{uuid.uuid4().hex[:8]}"
    )
    schema = json.loads(request.view_schema.model_dump_json())
    version = json.loads(request.view_version.model_dump_json())
    version["schema-id"] = schema["schema-id"]
    metadata = {
        "view-uuid": str(uuid.uuid4()),
        "format-version": 1,
        "location": location,
        "schemas": [schema],
        "current-version-id": version["version-id"],
        "versions": [version],
        "version-log": [{"timestamp-ms": version["timestamp-ms"], "version-id": version["version-id"]}],
        "properties": dict(request.properties),
    }
    path = _write(cat, metadata, 0)
    try:
        with Session(cat.engine) as session:
            session.execute(
                sa.insert(IcebergTables).values(
                    catalog_name=cat.name,
                    table_namespace=ns,
                    table_name=name,
                    metadata_location=path,
                    previous_metadata_location=None,
                    iceberg_type=VIEW_TYPE,
                )
            )
            session.commit()
    except IntegrityError:
        raise already_exists("View", f"{ns}.{name}") from None
    return _response(path, metadata)


def load_view(cat: SqlCatalog, namespace: names.Namespace, view: str) -> dict[str, Any]:
    _, location = existing_view(cat, namespace, view)
    return _response(location, _read(cat, location))


def view_exists(cat: SqlCatalog, namespace: names.Namespace, view: str) -> None:
    existing_view(cat, namespace, view)


def drop_view(cat: SqlCatalog, namespace: names.Namespace, view: str) -> None:
    (ns, name), _ = existing_view(cat, namespace, view)
    with Session(cat.engine) as session:
        session.execute(sa.delete(IcebergTables).where(*_row_key(cat, (ns, name))))
        session.commit()


def rename_view(cat: SqlCatalog, body: dict[str, Any]) -> None:
    source, destination = body.get("source") or {}, body.get("destination") or {}
    src, _ = existing_view(cat, tuple(source.get("namespace") or ()), str(source.get("name", "")))
    dst_ns = names.existing_namespace(cat, tuple(destination.get("namespace") or ()))
    dst_name = names.new_name(str(destination.get("name", "")))
    taken = names.clash(dst_name, [t[-1] for t in cat.list_tables((dst_ns,))] + list_views(cat, dst_ns))
    if taken is not None and (dst_ns, taken) != src:
        raise already_exists("View", f"{dst_ns}.{taken}")
    with Session(cat.engine) as session:
        session.execute(
            sa.update(IcebergTables)
            .where(*_row_key(cat, src))
            .values(table_namespace=dst_ns, table_name=dst_name)
        )
        session.commit()


def _row_key(cat: SqlCatalog, identifier: Identifier) -> list[Any]:
    return [
        IcebergTables.catalog_name == cat.name,
        IcebergTables.table_namespace == Catalog.namespace_to_string(identifier[:-1]),
        IcebergTables.table_name == identifier[-1],
        IcebergTables.iceberg_type == VIEW_TYPE,
    ]


def replace_view(
    cat: SqlCatalog, namespace: names.Namespace, view: str, body: dict[str, Any]
) -> dict[str, Any]:
    identifier, base = existing_view(cat, namespace, view)
    metadata = _read(cat, base)
    for requirement in body.get("requirements") or []:
        if requirement.get("type") != "assert-view-uuid":
            raise bad_request(f"Unknown view requirement {requirement.get('type')!r}")
        if requirement.get("uuid") != metadata["view-uuid"]:
            raise commit_failed("Requirement failed: view UUID does not match")
    apply_view_updates(metadata, body.get("updates") or [])
    version = int(base.rsplit("/", 1)[-1].split("-", 1)[0]) + 1
    path = _write(cat, metadata, version)
    with Session(cat.engine) as session:
        result = session.execute(
            sa.update(IcebergTables)
            .where(*_row_key(cat, identifier), IcebergTables.metadata_location == base)
            .values(metadata_location=path, previous_metadata_location=base)
        )
        if result.rowcount < 1:  # type: ignore[attr-defined]
            session.rollback()
            raise commit_failed(f"View has been updated by another process: {'.'.join(identifier)}")
        session.commit()
    return _response(path, metadata)


def apply_view_updates(metadata: dict[str, Any], updates: list[dict[str, Any]]) -> None:
    """Applies the spec's view updates in order (ViewUpdate in the OpenAPI document)."""
    last_schema: int | None = None
    last_version: int | None = None
    for update in updates:
        action = update.get("action")
        if action == "assign-uuid":
            metadata["view-uuid"] = update["uuid"]
        elif action == "upgrade-format-version":
            if int(update["format-version"]) != 1:
                raise bad_request("Only view format version 1 is supported")
        elif action == "set-location":
            metadata["location"] = update["location"]
        elif action == "set-properties":
            metadata["properties"].update(update["updates"])
        elif action == "remove-properties":
            for key in update["removals"]:
                metadata["properties"].pop(key, None)
        elif action == "add-schema":
            schema = dict(update["schema"])
            same = [s for s in metadata["schemas"] if _fields(s) == _fields(schema)]
            if same:
                last_schema = same[0]["schema-id"]
                continue
            schema["schema-id"] = max(s["schema-id"] for s in metadata["schemas"]) + 1
            metadata["schemas"].append(schema)
            last_schema = schema["schema-id"]
        elif action == "add-view-version":
            version = dict(update["view-version"])
            if version.get("schema-id") == -1:
                if last_schema is None:
                    raise bad_request("add-view-version refers to the last added schema, but none was added")
                version["schema-id"] = last_schema
            version["version-id"] = max(v["version-id"] for v in metadata["versions"]) + 1
            metadata["versions"].append(version)
            last_version = version["version-id"]
        elif action == "set-current-view-version":
            version_id = int(update["view-version-id"])
            if version_id == -1:
                if last_version is None:
                    raise bad_request("set-current-view-version -1 without an added version")
                version_id = last_version
            if version_id not in {v["version-id"] for v in metadata["versions"]}:
                raise bad_request(f"Unknown view version {version_id}")
            metadata["current-version-id"] = version_id
            metadata["version-log"].append(
                {"timestamp-ms": int(time.time() * 1000), "version-id": version_id}
            )
        else:
            raise bad_request(f"Unknown view update action {action!r}")


def _fields(schema: dict[str, Any]) -> Any:
    return json.dumps(schema.get("fields"), sort_keys=True)

"""Table commits: requirements checked and updates applied atomically, with optimistic concurrency.

Single-table commits delegate to `SqlCatalog.commit_table` (the same path the SQL side's writes
take): it reloads the table, validates the requirements against the current metadata, writes a
new metadata file and swaps the pointer with `UPDATE ... WHERE metadata_location = <old>`. A failed
requirement or a lost swap is 409, which Spark and pyiceberg retry from fresh metadata. The
multi-table transaction does the same for every table and swaps all pointers in one SQL
transaction. Classification never answers 5xx for a commit known not to have landed, nor 4xx for
one that may have.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from pydantic import TypeAdapter
from pydantic import ValidationError as PydanticValidationError
from pyiceberg.catalog import Catalog
from pyiceberg.catalog.sql import IcebergTables, SqlCatalog
from pyiceberg.exceptions import CommitFailedException, NoSuchTableError, TableAlreadyExistsError
from pyiceberg.exceptions import ValidationError as IcebergValidationError
from pyiceberg.table.update import AssertCreate, TableRequirement, TableUpdate, UpgradeFormatVersionUpdate
from pyiceberg.typedef import Identifier
from sqlalchemy.orm import Session

from embucket_py.catalog.loading import pointer
from embucket_py.server.iceberg_rest import names
from embucket_py.server.iceberg_rest.errors import (
    RestError,
    already_exists,
    bad_request,
    commit_failed,
    no_such_namespace,
)
from embucket_py.server.iceberg_rest.handlers import Json, existing_table

log = logging.getLogger(__name__)

_REQUIREMENTS = TypeAdapter(tuple[TableRequirement, ...])
_UPDATES = TypeAdapter(tuple[TableUpdate, ...])


@dataclass(frozen=True)
class _TableRef:
    """What `SqlCatalog.commit_table` reads from its `table` argument: only `name()` (pyiceberg 0.12),
    so the commit does not load the metadata twice. Pinned by tests/iceberg_rest."""

    identifier: Identifier

    def name(self) -> Identifier:
        return self.identifier


def parse_changes(body: dict[str, Any]) -> tuple[tuple[TableRequirement, ...], tuple[TableUpdate, ...]]:
    try:
        requirements = _REQUIREMENTS.validate_python(body.get("requirements") or [])
        updates = _UPDATES.validate_python(body.get("updates") or [])
    except PydanticValidationError as e:
        raise bad_request(f"Invalid commit request: {e}") from None
    for update in updates:
        if isinstance(update, UpgradeFormatVersionUpdate) and update.format_version > 2:
            raise bad_request("Only Iceberg format versions 1 and 2 are supported")
    return requirements, updates


def commit_table(cat: SqlCatalog, namespace: names.Namespace, table: str, body: dict[str, Any]) -> Json:
    requirements, updates = parse_changes(body)
    if any(isinstance(r, AssertCreate) for r in requirements):
        # Create transaction (CTAS, pyiceberg create_table_transaction): the table must not exist.
        try:
            ns = names.existing_namespace(cat, namespace)
        except RestError:
            raise no_such_namespace(".".join(namespace)) from None
        name = names.new_name(table)
        taken = names.clash(name, [t[-1] for t in cat.list_tables((ns,))])
        if taken is not None:
            raise already_exists("Table", f"{ns}.{taken}")
        identifier: Identifier = (ns, name)
    else:
        identifier = existing_table(cat, namespace, table)
    base = pointer(cat, identifier)
    try:
        response = cat.commit_table(_TableRef(identifier), requirements, updates)  # type: ignore[arg-type]
    except (CommitFailedException, TableAlreadyExistsError) as e:
        raise commit_failed(str(e)) from None
    except NoSuchTableError as e:
        raise RestError(404, "NoSuchTableException", str(e)) from None
    except (IcebergValidationError, ValueError, PydanticValidationError) as e:
        raise bad_request(f"Invalid commit: {e}") from None
    except OSError as e:
        # The metadata file could not be written: nothing landed, the client may retry.
        raise commit_failed(f"Storage error before commit: {e}") from None
    except sa.exc.SQLAlchemyError as e:
        if pointer(cat, identifier) == base:
            raise commit_failed(f"Catalog error, commit not applied: {e}") from None
        raise RestError(
            500, "CommitStateUnknownException", f"Catalog error, commit state unknown: {e}"
        ) from None
    except Exception as e:
        log.exception("commit to %s failed", identifier)
        raise RestError(500, "CommitStateUnknownException", f"{type(e).__name__}: {e}") from None
    return Json(response.model_dump_json())


def commit_transaction(cat: SqlCatalog, body: dict[str, Any]) -> None:
    """All-or-nothing commit of several tables of one database (POST transactions/commit)."""
    changes = body.get("table-changes")
    if not isinstance(changes, list) or not changes:
        raise bad_request("table-changes must be a non-empty list")
    staged = []
    seen: set[Identifier] = set()
    for change in changes:
        ident = change.get("identifier") or {}
        identifier = existing_table(cat, tuple(ident.get("namespace") or ()), str(ident.get("name", "")))
        if identifier in seen:
            raise bad_request(f"Table {'.'.join(identifier)} appears twice in one transaction")
        seen.add(identifier)
        requirements, updates = parse_changes(change)
        if any(isinstance(r, AssertCreate) for r in requirements):
            raise bad_request("assert-create is not supported in a multi-table transaction")
        current = cat.load_table(identifier)
        try:
            new = cat._update_and_stage_table(current, identifier, requirements, updates)
        except CommitFailedException as e:
            raise commit_failed(str(e)) from None
        except (IcebergValidationError, ValueError) as e:
            raise bad_request(f"Invalid commit: {e}") from None
        staged.append((identifier, current, new))
    try:
        for _, current, new in staged:
            if new.metadata != current.metadata:
                cat._write_metadata(new.metadata, new.io, new.metadata_location)
    except OSError as e:
        raise commit_failed(f"Storage error before commit: {e}") from None
    with Session(cat.engine) as session:
        for identifier, current, new in staged:
            if new.metadata == current.metadata:
                continue
            result = session.execute(
                sa.update(IcebergTables)
                .where(
                    IcebergTables.catalog_name == cat.name,
                    IcebergTables.table_namespace == Catalog.namespace_to_string(identifier[:-1]),
                    IcebergTables.table_name == identifier[-1],
                    IcebergTables.metadata_location == current.metadata_location,
                )
                .values(
                    metadata_location=new.metadata_location,
                    previous_metadata_location=current.metadata_location,
                )
            )
            if result.rowcount < 1:  # type: ignore[attr-defined]
                session.rollback()
                raise commit_failed(f"Table has been updated by another process: {'.'.join(identifier)}")
        session.commit()

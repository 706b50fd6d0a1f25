"""ALTER SCHEMA | DATABASE ... RENAME TO | SWAP WITH: a container and everything in it take the
new name at once (catalog/renames.py), internal stages' files move with their names, and a session
working in a renamed container stays in it under its new name.
https://docs.snowflake.com/en/sql-reference/sql/alter-schema"""

from __future__ import annotations

from collections.abc import Callable

from pyiceberg.catalog.sql import SqlCatalog

from embucket_py.catalog import renames
from embucket_py.catalog.grants import Securable
from embucket_py.catalog.tables import Tables
from embucket_py.engine import access
from embucket_py.engine.ddl import container_exists
from embucket_py.engine.result import OK, QueryResult, status
from embucket_py.engine.stages import stage_folder
from embucket_py.errors import Unsupported, already_exists
from embucket_py.sessions.session import Session
from embucket_py.sql.ddl import ContainerMove
from embucket_py.stages.fileio import StageStore, internal_root

_ASIDE = ".swapping"  # a stage folder no stored name can have (one side's files while the other moves)


def move(tables: Tables, session: Session, change: ContainerMove, others: list[Session]) -> QueryResult:
    """The sessions (this one and `others`) whose current database or schema moved follow it.

    Raises:
    ObjectNotFound: a container named is missing (without IF EXISTS for the first).
    ObjectAlreadyExists: the new name is taken.
    AccessDenied: the roles do not own both containers.
    Unsupported: a schema moved to another database, or a database linked to another catalog."""
    metastore = tables.metastore
    if not container_exists(tables, change.kind, change.parts, change.if_exists):
        return status(OK)
    if change.other == change.parts:
        return status(OK)
    swap = change.verb == "SWAP"
    if change.kind == "SCHEMA" and change.other[0] != change.parts[0]:
        raise Unsupported(f"{'Swapping' if swap else 'Moving'} schemas across databases is not supported.")
    if swap:
        container_exists(tables, change.kind, change.other, if_exists=False)
    elif container_exists(tables, change.kind, change.other, if_exists=True):
        raise already_exists(change.kind.capitalize(), change.other[-1])
    roles = access.active_roles(metastore.grants, session)
    for parts in [change.parts, change.other] if swap else [change.parts]:
        access.require(metastore.grants, roles, access.Need("OWNERSHIP", Securable(change.kind, *parts)))
    for database in {change.parts[0], change.other[0]} & set(metastore.database_names()):
        if not isinstance(metastore.catalog(database), SqlCatalog):
            raise Unsupported(f"Database {database} is linked to an external catalog: it cannot move.")
    _move_stage_files(metastore.warehouse, change, lambda: _move_rows(tables, change))
    for follower in {id(s): s for s in [session, *others]}.values():
        _follow(follower, change)
    return status(OK)


def _move_rows(tables: Tables, change: ContainerMove) -> None:
    metastore = tables.metastore
    if change.verb == "SWAP":
        renames.swap(metastore.engine, change.parts, change.other)
    else:
        renames.rename(metastore.engine, change.parts, change.other)
    metastore.grants.invalidate()
    if change.kind == "DATABASE":
        for database in (change.parts[0], change.other[0]):
            metastore.forget_catalog(database)


def _move_stage_files(warehouse: str, change: ContainerMove, move_rows: Callable[[], None]) -> None:
    """Moves the internal stages' folders (named stages and tables' stages live under
    `<database>/<schema>/`), then the rows; the folders move back if the rows cannot."""
    store = StageStore(internal_root(warehouse))
    first, second = stage_folder(change.parts), stage_folder(change.other)
    steps = [(first, second)]
    if change.verb == "SWAP":
        steps = [(first, first + _ASIDE), (second, first), (first + _ASIDE, second)]
    done = []
    try:
        for source, target in steps:
            if store.move(source, target):
                done.append((source, target))
        move_rows()
    except Exception:
        for source, target in reversed(done):
            store.move(target, source)
        raise


def _follow(session: Session, change: ContainerMove) -> None:
    """The session's current database or schema keeps pointing at the same container, as
    Snowflake's sessions follow objects, not names."""
    names = {tuple(change.parts): change.other}
    if change.verb == "SWAP":
        names[tuple(change.other)] = change.parts
    if change.kind == "DATABASE":
        if session.database is not None and (session.database,) in names:
            session.database = names[(session.database,)][0]
    elif (session.database, session.schema) in names:
        session.schema = names[(session.database, session.schema)][1]  # type: ignore[index]

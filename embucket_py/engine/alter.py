"""ALTER TABLE: rename, swap, and column changes as Iceberg schema evolution (no data rewrite,
except to give existing rows the DEFAULT of a column added with one)."""

from __future__ import annotations

import threading

from embucket_py import naming
from embucket_py.catalog.tables import Column, SchemaChange, TableName, Tables
from embucket_py.engine import changes, keys
from embucket_py.engine.query import collect, plan
from embucket_py.engine.result import OK, QueryResult, status
from embucket_py.errors import (
    NullInNotNullColumn,
    SqlCompilationError,
    Unsupported,
    already_exists,
    object_not_found,
)
from embucket_py.sql import alter as a
from embucket_py.sql.context import SqlContext


def alter_table(
    tables: Tables, d: a.AlterTable, ctx: SqlContext, cancel: threading.Event | None = None
) -> QueryResult:
    ref = TableName(*d.parts)
    if d.if_exists and not tables.exists(ref):
        return status(OK)
    change = SchemaChange()
    added = [action.key for action in d.actions if isinstance(action, a.AddKey)]
    dropped = [action for action in d.actions if isinstance(action, a.DropKey)]
    for action in d.actions:
        if isinstance(action, a.RenameTable):
            tables.rename(ref, TableName(*action.to))
        elif isinstance(action, a.SwapWith):
            tables.swap(ref, TableName(*action.other))
        elif isinstance(action, a.AddColumn):
            c = action.column
            if action.if_not_exists and c.name in _columns_of(tables, ref):
                continue
            if not c.nullable:
                # Iceberg cannot add a required column to existing rows without a default.
                raise Unsupported(f"Adding NOT NULL column {naming.quote(c.name)} is not supported yet.")
            change.add.append(Column(c.name, c.type, c.nullable, c.comment, c.default))
        elif isinstance(action, a.DropColumn):
            if not (action.if_exists and action.name not in _columns_of(tables, ref)):
                change.drop.append(action.name)
        elif isinstance(action, a.RenameColumn):
            change.rename.append((action.old, action.new))
        elif isinstance(action, a.SetColumnType):
            _check_type_change(_columns_of(tables, ref), action)
            change.retype.append((action.name, action.type))
        elif isinstance(action, a.SetNullable):
            if not action.nullable:
                _check_no_nulls(tables, ref, action.name, ctx, cancel)
            change.nullable[action.name] = action.nullable
        elif isinstance(action, a.DropDefault):
            change.drop_defaults.append(action.name)
        elif isinstance(action, a.SetComment) and action.column is not None:
            change.column_comments[action.column] = action.comment
        elif isinstance(action, a.SetComment):
            change.table_comment = (action.comment,)
        elif isinstance(action, a.SetChangeTracking):
            change.change_tracking = action.on
    if change != SchemaChange():
        tables.evolve(ref, change)
    if added or dropped:
        keys.alter_keys(tables, ref, added, dropped)
    _fill_defaults(tables, ref, [c for c in change.add if c.default is not None], ctx, cancel)
    return status(OK)


def _columns_of(tables: Tables, ref: TableName) -> dict[str, Column]:
    return {c.name: c for c in Tables.columns(tables.load(ref))}


def _check_type_change(columns: dict[str, Column], action: a.SetColumnType) -> None:
    """Snowflake changes a column's type only within its kind: a longer VARCHAR, a NUMBER of more
    digits at the same scale. https://docs.snowflake.com/en/sql-reference/sql/alter-table-column"""
    column = columns.get(action.name)
    if column is None:
        return  # the schema change reports the missing column
    old, new = column.type, action.type
    refused = f"cannot change column {naming.quote(action.name)} from type {old.sql} to {new.sql}"
    if old.kind != new.kind:
        raise SqlCompilationError(refused, code=2108, sqlstate="22000")
    if old.kind in ("TEXT", "BINARY") and (new.length or 0) < (old.length or 0):
        reason = "reducing the byte-length of a varchar is not supported"
        raise SqlCompilationError(f"{refused} because {reason}.", code=40050, sqlstate="22000")
    if old.kind == "FIXED" and new.scale != old.scale:
        reason = "changing the scale of a number is not supported"
        raise SqlCompilationError(f"{refused} because {reason}.", code=2108, sqlstate="22000")
    if old.kind == "FIXED" and (new.precision or 38) < (old.precision or 38):
        raise Unsupported(f"{refused}: decreasing the precision of a NUMBER column is not supported yet.")


def _check_no_nulls(
    tables: Tables, ref: TableName, name: str, ctx: SqlContext, cancel: threading.Event | None
) -> None:
    counted = collect(plan(tables, a.null_count(str(ref), name), ctx, None)[0], cancel)
    if counted.column(0)[0].as_py():
        raise NullInNotNullColumn(f"NULL result in a non-nullable column '{name}'")


def _fill_defaults(
    tables: Tables, ref: TableName, added: list[Column], ctx: SqlContext, cancel: threading.Event | None
) -> None:
    """Rows that exist when a column with a DEFAULT is added take the default, as on Snowflake
    (one UPDATE; Iceberg v2 has no initial default for older data files). If it fails (a default
    that does not convert to the column's type), the columns go again: the table is as it was."""
    if not added:
        return
    try:
        fill = a.default_fill(str(ref), {c.name: c.default for c in added if c.default is not None})
        changes.run_change(tables, fill, ctx, cancel)
    except BaseException:
        tables.evolve(ref, SchemaChange(drop=[c.name for c in added]))
        raise


def alter_view(tables: Tables, d: a.AlterView) -> QueryResult:
    """Raises: ObjectNotFound (no such view, without IF EXISTS) / ObjectAlreadyExists (RENAME TO
    the name of a table or view)."""
    database, schema, name = d.parts
    action = d.action
    if isinstance(action, a.RenameTable):
        to = TableName(*action.to)
        if tables.exists(to):
            raise already_exists("Object", to.name)
        done = tables.views.rename(database, schema, name, (to.database, to.schema, to.name))
        tables.policies.move_attachments((database, schema, name), (to.database, to.schema, to.name))
        tables.tags.move_object((database, schema, name), (to.database, to.schema, to.name))
    elif isinstance(action, a.SetSecure):
        done = tables.views.update(database, schema, name, secure=action.secure)
    else:
        done = tables.views.update(database, schema, name, comment=action.comment)
    if not done and not d.if_exists:
        raise object_not_found("View", ".".join(d.parts))
    return status(OK)

"""ALTER TABLE: rename, swap, and column changes as Iceberg schema evolution (no data rewrite,
except to give existing rows the DEFAULT of a column added with one)."""

from __future__ import annotations

import threading

from embucket_py import naming
from embucket_py.catalog.tables import Column, SchemaChange, TableName, Tables
from embucket_py.engine import changes
from embucket_py.engine.result import OK, QueryResult, status
from embucket_py.errors import Unsupported, already_exists, object_not_found
from embucket_py.sql import alter as a
from embucket_py.sql.context import SqlContext


def alter_table(
    tables: Tables, d: a.AlterTable, ctx: SqlContext, cancel: threading.Event | None = None
) -> QueryResult:
    ref = TableName(*d.parts)
    if d.if_exists and not tables.exists(ref):
        return status(OK)
    change = SchemaChange()
    for action in d.actions:
        if isinstance(action, a.RenameTable):
            tables.rename(ref, TableName(*action.to))
        elif isinstance(action, a.SwapWith):
            tables.swap(ref, TableName(*action.other))
        elif isinstance(action, a.AddColumn):
            c = action.column
            if not c.nullable:
                # Iceberg cannot add a required column to existing rows without a default.
                raise Unsupported(f"Adding NOT NULL column {naming.quote(c.name)} is not supported yet.")
            change.add.append(Column(c.name, c.type, c.nullable, c.comment, c.default))
        elif isinstance(action, a.DropColumn):
            change.drop.append(action.name)
        elif isinstance(action, a.RenameColumn):
            change.rename.append((action.old, action.new))
        elif isinstance(action, a.SetColumnType):
            change.retype.append((action.name, action.type))
        elif isinstance(action, a.SetComment) and action.column is not None:
            change.column_comments[action.column] = action.comment
        elif isinstance(action, a.SetComment):
            change.table_comment = (action.comment,)
    if change != SchemaChange():
        tables.evolve(ref, change)
    _fill_defaults(tables, ref, [c for c in change.add if c.default is not None], ctx, cancel)
    return status(OK)


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
    elif isinstance(action, a.SetSecure):
        done = tables.views.update(database, schema, name, secure=action.secure)
    else:
        done = tables.views.update(database, schema, name, comment=action.comment)
    if not done and not d.if_exists:
        raise object_not_found("View", ".".join(d.parts))
    return status(OK)

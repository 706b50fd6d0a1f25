"""CREATE SCHEMA | DATABASE ... CLONE [AT | BEFORE (...)]: the new container gets a zero-copy
clone of every table (as it was at the time point, if one is given; tables made after it are
left out), and copies of the views, sequences (at their current value), functions and
procedures. Stages, file formats, streams and tasks are not cloned. The clones belong to the
creating role; objects its roles cannot see are left out.
https://docs.snowflake.com/en/sql-reference/sql/create-clone"""

from __future__ import annotations

import dataclasses

from embucket_py.catalog.grants import Securable
from embucket_py.catalog.policies import MASKING, ROW_ACCESS
from embucket_py.catalog.routines import FUNCTION, PROCEDURE
from embucket_py.catalog.tables import TableName, Tables, TimeTravelUnavailable
from embucket_py.engine import access
from embucket_py.engine.time_travel import resolve
from embucket_py.sql.context import SqlContext
from embucket_py.sql.ddl import ObjectDef


def fill(tables: Tables, d: ObjectDef, ctx: SqlContext) -> None:
    """Clones the contents of `d.clone_of` into the container `d` has just created."""
    assert d.clone_of is not None
    metastore = tables.metastore
    role = str(ctx.values.get("CURRENT_ROLE") or "PUBLIC")
    cloner = _Cloner(tables, d, ctx, role)
    if d.kind == "SCHEMA":
        cloner.schema(d.clone_of, d.parts)
        return
    for schema in metastore.schema_names(d.clone_of[0]):
        if not cloner.sees(Securable("SCHEMA", d.clone_of[0], schema)):
            continue
        if metastore.create_schema(d.parts[0], schema, if_not_exists=True):
            metastore.grants.set_owner(Securable("SCHEMA", d.parts[0], schema), role, role)
        cloner.schema([d.clone_of[0], schema], [d.parts[0], schema])


class _Cloner:
    def __init__(self, tables: Tables, d: ObjectDef, ctx: SqlContext, role: str) -> None:
        self.tables, self.d, self.ctx, self.role = tables, d, ctx, role
        self.grants = tables.metastore.grants
        self.roles = access.context_roles(self.grants, ctx)

    def sees(self, on: Securable) -> bool:
        return access.visible(self.grants, self.roles, on)

    def own(self, kind: str, parts: list[str], name: str) -> None:
        self.grants.set_owner(Securable(kind, *parts, name), self.role, self.role)

    def schema(self, source: list[str], target: list[str]) -> None:
        tables = self.tables
        self._tables(source, target)
        for name in tables.views.names(*source):
            view = tables.views.get(*source, name)
            if view is not None and self.sees(Securable("VIEW", *source, name)):
                tables.views.create(
                    *target, name, view.query, view.text, comment=view.comment, secure=view.secure
                )
                schemas = ((source[0], source[1]), (target[0], target[1]))
                tables.policies.copy_attachments((*schemas[0], name), (*schemas[1], name), schemas)
                tables.tags.copy_object((*schemas[0], name), (*schemas[1], name), schemas)
                self.own("VIEW", target, name)
        for sequence in tables.sequences.list(*source):
            copy = dataclasses.replace(sequence, database=target[0], schema=target[1], created_on=None)
            tables.sequences.create(copy, replace=False, if_not_exists=False)
        tables.tags.copy_schema((source[0], source[1]), (target[0], target[1]))
        for kind in (MASKING, ROW_ACCESS):
            for policy in tables.policies.list(kind, [(source[0], source[1])]):
                copy = dataclasses.replace(policy, database=target[0], schema=target[1], created_on=None)
                tables.policies.create(copy, replace=False, if_not_exists=False)
        for kind in (FUNCTION, PROCEDURE):
            for routine in tables.routines.list(kind, *source):
                copy = dataclasses.replace(routine, database=target[0], schema=target[1], created_on=None)
                tables.routines.create(copy, replace=False, if_not_exists=False)

    def _tables(self, source: list[str], target: list[str]) -> None:
        """Each table at the time point (the first version then current): those made later are
        left out, but a point before every table of a schema that has some is an error."""
        point = self.d.clone_point
        names = [n for n in self.tables.names(*source) if self.sees(Securable("TABLE", *source, n))]
        missed: TimeTravelUnavailable | None = None
        cloned = 0
        for name in names:
            ref = TableName(*source, name)
            table = self.tables.load(ref)
            current = table.current_snapshot()
            snapshot_id = current.snapshot_id if current else None
            if point is not None:
                try:
                    snapshot_id = resolve(table, str(ref), point, self.ctx).snapshot_id
                except TimeTravelUnavailable as e:
                    missed = e
                    continue
            self.tables.clone(
                TableName(*target, name), table, snapshot_id, replace=False, if_not_exists=False
            )
            schemas = ((source[0], source[1]), (target[0], target[1]))
            self.tables.policies.copy_attachments((*schemas[0], name), (*schemas[1], name), schemas)
            self.tables.tags.copy_object((*schemas[0], name), (*schemas[1], name), schemas)
            self.own("TABLE", target, name)
            cloned += 1
        if missed is not None and not cloned:
            raise missed

"""Warehouses, kept in the metastore: a name, a state (STARTED / SUSPENDED), a comment and the
properties a CREATE or ALTER WAREHOUSE set (size, auto-suspend, ...).

Every statement runs in this server process whatever warehouse a session uses, so a warehouse is
bookkeeping: setup scripts that create, resize, suspend and grant warehouses run unchanged, and
SHOW WAREHOUSES lists what they made. https://docs.snowflake.com/en/user-guide/warehouses
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime

import sqlalchemy as sa

from embucket_py.catalog.metastore import Metastore
from embucket_py.errors import already_exists

_meta = sa.MetaData()
warehouses_table = sa.Table(
    "embucket_warehouses",
    _meta,
    sa.Column("name", sa.String(255), primary_key=True),
    sa.Column("state", sa.String(16), nullable=False),
    sa.Column("comment", sa.Text),
    sa.Column("options", sa.Text, nullable=False),  # JSON: property name -> value
    sa.Column("created_on", sa.DateTime, nullable=False),
    sa.Column("updated_on", sa.DateTime, nullable=False),
    sa.Column("resumed_on", sa.DateTime),
)


@dataclass(frozen=True)
class Warehouse:
    name: str  # as Snowflake shows it (upper case unless quoted)
    state: str  # STARTED or SUSPENDED
    comment: str | None = None
    options: dict[str, object] = field(default_factory=dict)
    created_on: datetime | None = None
    updated_on: datetime | None = None
    resumed_on: datetime | None = None


class Warehouses:
    def __init__(self, metastore: Metastore) -> None:
        self.metastore = metastore
        _meta.create_all(metastore.engine)

    def get(self, name: str) -> Warehouse | None:
        found = self.list(name)
        return found[0] if found else None

    def list(self, name: str | None = None) -> list[Warehouse]:
        query = sa.select(warehouses_table).order_by(warehouses_table.c.name)
        if name is not None:
            query = query.where(warehouses_table.c.name == name)
        with self.metastore.engine.connect() as conn:
            return [_warehouse(r) for r in conn.execute(query)]

    def create(self, warehouse: Warehouse, *, replace: bool, if_not_exists: bool) -> bool:
        """Returns False if it existed and IF NOT EXISTS was given.

        Raises:
            ObjectAlreadyExists: it exists and neither OR REPLACE nor IF NOT EXISTS was given.
        """
        now = datetime.now(UTC)
        key = warehouses_table.c.name == warehouse.name
        with self.metastore.engine.begin() as conn:
            if conn.execute(sa.select(warehouses_table.c.name).where(key)).first() is not None:
                if if_not_exists:
                    return False
                if not replace:
                    raise already_exists("Warehouse", warehouse.name)
                conn.execute(warehouses_table.delete().where(key))
            conn.execute(
                warehouses_table.insert().values(
                    name=warehouse.name,
                    state=warehouse.state,
                    comment=warehouse.comment,
                    options=json.dumps(warehouse.options),
                    created_on=now,
                    updated_on=now,
                    resumed_on=now if warehouse.state == "STARTED" else None,
                )
            )
        return True

    def update(self, current: str, /, **values: object) -> bool:
        """Sets `state`, `comment`, `options` (a dict) or `name`; False when there is no such
        warehouse.

        Raises:
            ObjectAlreadyExists: a new `name` that another warehouse has.
        """
        now = datetime.now(UTC)
        changes = {**values, "updated_on": now}
        if "options" in changes:
            changes["options"] = json.dumps(changes["options"])
        if changes.get("state") == "STARTED":
            changes["resumed_on"] = now
        with self.metastore.engine.begin() as conn:
            new_name = values.get("name")
            if new_name is not None and new_name != current:
                taken = sa.select(warehouses_table.c.name).where(warehouses_table.c.name == new_name)
                if conn.execute(taken).first() is not None:
                    raise already_exists("Warehouse", str(new_name))
            update = warehouses_table.update().where(warehouses_table.c.name == current).values(**changes)
            return bool(conn.execute(update).rowcount)

    def drop(self, name: str) -> bool:
        with self.metastore.engine.begin() as conn:
            return bool(
                conn.execute(warehouses_table.delete().where(warehouses_table.c.name == name)).rowcount
            )


def _warehouse(row: sa.Row) -> Warehouse:
    return Warehouse(
        row.name,
        row.state,
        row.comment,
        json.loads(row.options),
        row.created_on,
        row.updated_on,
        row.resumed_on,
    )

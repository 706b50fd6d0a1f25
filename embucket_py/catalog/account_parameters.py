"""Account-level parameters (ALTER ACCOUNT SET), kept in the metastore so that every server of it
starts its sessions with them.
https://docs.snowflake.com/en/sql-reference/parameters
"""

from __future__ import annotations

import json

import sqlalchemy as sa

from embucket_py.catalog.metastore import Metastore

_meta = sa.MetaData()
account_parameters_table = sa.Table(
    "embucket_account_parameters",
    _meta,
    sa.Column("name", sa.String(255), primary_key=True),
    sa.Column("value", sa.Text, nullable=False),  # JSON: a string, number or boolean
)


class AccountParameters:
    def __init__(self, metastore: Metastore) -> None:
        self.metastore = metastore
        _meta.create_all(metastore.engine)

    def values(self) -> dict[str, object]:
        with self.metastore.engine.connect() as conn:
            return {r.name: json.loads(r.value) for r in conn.execute(sa.select(account_parameters_table))}

    def change(self, values: dict[str, object], unset: list[str]) -> None:
        """Sets `values` and removes `unset`, in one metastore transaction."""
        t = account_parameters_table
        with self.metastore.engine.begin() as conn:
            names = [*values, *unset]
            if names:
                conn.execute(t.delete().where(t.c.name.in_(names)))
            if values:
                conn.execute(t.insert(), [{"name": n, "value": json.dumps(v)} for n, v in values.items()])

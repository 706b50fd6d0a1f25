"""The system roles' privileges, also in a metastore made before a privilege existed."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa

from embucket_py.catalog.grants import ACCOUNT, SYSADMIN, privileges_table
from embucket_py.catalog.metastore import Metastore


def test_sysadmin_gets_create_warehouse_where_no_role_holds_it(tmp_path: Path) -> None:
    metastore = Metastore(f"sqlite:///{tmp_path}/metastore.db", (tmp_path / "warehouse").as_uri())
    grants = metastore.grants
    grants.bootstrap("ADMIN")
    assert grants.allows({SYSADMIN}, "CREATE WAREHOUSE", ACCOUNT)
    with metastore.engine.begin() as conn:  # as in a metastore of the first release
        conn.execute(privileges_table.delete().where(privileges_table.c.privilege == "CREATE WAREHOUSE"))
    grants.bootstrap("ADMIN")
    assert grants.allows({SYSADMIN}, "CREATE WAREHOUSE", ACCOUNT)
    with metastore.engine.connect() as conn:
        rows = conn.execute(
            sa.select(privileges_table).where(privileges_table.c.privilege == "CREATE WAREHOUSE")
        )
        assert [r.role for r in rows] == [SYSADMIN]

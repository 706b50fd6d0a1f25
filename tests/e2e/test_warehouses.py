"""Warehouses through the connector: the setup statements of a Snowflake account (dbt's guide:
create a warehouse, grant its usage to a role) run unchanged; SHOW WAREHOUSES lists them.
https://docs.snowflake.com/en/sql-reference/sql/create-warehouse"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from snowflake.connector.errors import ProgrammingError

from tests.e2e.conftest import Server


def _error(cur: Any, sql: str) -> ProgrammingError:
    with pytest.raises(ProgrammingError) as info:
        cur.execute(sql)
    return info.value


def test_create_show_alter_and_drop(cur: Any) -> None:
    name = f"WH_{uuid.uuid4().hex[:6].upper()}"
    assert cur.execute(
        f"CREATE WAREHOUSE IF NOT EXISTS {name} WITH WAREHOUSE_SIZE = XSMALL AUTO_SUSPEND = 60 "
        "INITIALLY_SUSPENDED = TRUE COMMENT = 'dbt'"
    ).fetchone() == (f"Warehouse {name} successfully created.",)
    # A new warehouse becomes the session's, as on Snowflake.
    assert cur.execute("SELECT CURRENT_WAREHOUSE()").fetchone() == (name,)
    cur.execute(f"SHOW WAREHOUSES LIKE '{name.lower()}'")
    columns = [d.name for d in cur.description]
    assert columns[:4] == ["name", "state", "type", "size"]
    row = dict(zip(columns, cur.fetchone(), strict=True))
    assert (row["state"], row["size"], row["auto_suspend"], row["is_current"], row["comment"]) == (
        "SUSPENDED",
        "X-Small",
        60,
        "Y",
        "dbt",
    )
    cur.execute(f"ALTER WAREHOUSE {name} RESUME")
    assert _error(cur, f"ALTER WAREHOUSE {name} RESUME").errno == 90064  # already started
    cur.execute(f"ALTER WAREHOUSE {name} RESUME IF SUSPENDED")
    cur.execute(f"ALTER WAREHOUSE {name} SET WAREHOUSE_SIZE = 'LARGE' AUTO_RESUME = FALSE")
    cur.execute(f"ALTER WAREHOUSE {name} UNSET COMMENT")
    cur.execute(f"SHOW WAREHOUSES LIKE '{name}'")
    row = dict(zip(columns, cur.fetchone(), strict=True))
    assert (row["state"], row["size"], row["auto_resume"], row["comment"]) == (
        "STARTED",
        "Large",
        "false",
        "",
    )
    assert _error(cur, f"ALTER WAREHOUSE {name} SET WAREHOUSE_SIZE = HUGE").errno == 2
    assert _error(cur, f"CREATE WAREHOUSE {name}").errno == 2002
    cur.execute(f"ALTER WAREHOUSE {name} RENAME TO {name}_2")
    assert cur.execute(f"DESC WAREHOUSE {name}_2").fetchone()[1:] == (f"{name}_2", "WAREHOUSE")
    assert cur.execute(f"DROP WAREHOUSE {name}_2").fetchone() == (f"{name}_2 successfully dropped.",)
    assert _error(cur, f"DROP WAREHOUSE {name}_2").errno == 2003
    cur.execute(f"DROP WAREHOUSE IF EXISTS {name}_2")
    # A describe-only request gives the columns and runs nothing.
    assert [d.name for d in cur.describe(f"DESC WAREHOUSE {name}_3")] == ["created_on", "name", "kind"]
    assert [d.name for d in cur.describe(f"CREATE WAREHOUSE {name}_3")] == ["status"]
    assert cur.execute(f"SHOW WAREHOUSES LIKE '{name}_3'").fetchall() == []
    # Statements run whatever warehouse the session names, an unknown one too.
    cur.execute("USE WAREHOUSE not_made_here")
    assert cur.execute("SELECT 1").fetchone() == (1,)


def test_privileges_on_warehouses(server: Server) -> None:
    """CREATE WAREHOUSE on the account, USAGE to see it, OPERATE to suspend, OWNERSHIP to drop."""
    tag = uuid.uuid4().hex[:6].upper()
    wh, role, user = f"WH_{tag}", f"TRANSFORMER_{tag}", f"DBT_{tag}"
    with server.connect() as admin:
        adm = admin.cursor()
        adm.execute(f"CREATE WAREHOUSE {wh}")
        adm.execute(f"CREATE ROLE {role}")
        adm.execute(f"CREATE USER {user} PASSWORD = 'pw-5' DEFAULT_ROLE = {role}")
        adm.execute(f"GRANT ROLE {role} TO USER {user}")
        with server.connect(user=user, password="pw-5") as conn:
            cur = conn.cursor()
            assert cur.execute(f"SHOW WAREHOUSES LIKE '{wh}'").fetchall() == []
            assert _error(cur, f"ALTER WAREHOUSE {wh} SUSPEND").errno == 2003
            assert _error(cur, f"CREATE WAREHOUSE {wh}_mine").errno == 3001
            adm.execute(f"GRANT USAGE ON WAREHOUSE {wh} TO ROLE {role}")
            assert [r[0] for r in cur.execute(f"SHOW WAREHOUSES LIKE '{wh}'").fetchall()] == [wh]
            assert _error(cur, f"ALTER WAREHOUSE {wh} SUSPEND").errno == 3001
            adm.execute(f"GRANT OPERATE ON WAREHOUSE {wh} TO ROLE {role}")
            cur.execute(f"ALTER WAREHOUSE {wh} SUSPEND")
            assert _error(cur, f"DROP WAREHOUSE {wh}").errno == 3001
            cur.execute(f"SHOW GRANTS ON WAREHOUSE {wh}")
            assert sorted((r[1], r[5]) for r in cur.fetchall()) == [
                ("OPERATE", role),
                ("OWNERSHIP", "ACCOUNTADMIN"),
                ("USAGE", role),
            ]
            adm.execute(f"GRANT CREATE WAREHOUSE ON ACCOUNT TO ROLE {role}")
            cur.execute(f"CREATE WAREHOUSE {wh}_mine")
            cur.execute(f"DROP WAREHOUSE {wh}_mine")
        adm.execute(f"DROP WAREHOUSE {wh}")
        # The dropped warehouse took its grants along; the account privilege stays.
        held = [(r[1], r[2]) for r in adm.execute(f"SHOW GRANTS TO ROLE {role}").fetchall()]
        assert held == [("CREATE WAREHOUSE", "ACCOUNT")]

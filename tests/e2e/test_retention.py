"""DATA_RETENTION_TIME_IN_DAYS on tables, schemas and databases: inheritance, time travel bounded
by it, UNDROP and SHOW ... HISTORY, and CREATE OR REPLACE keeping the replaced table.
https://docs.snowflake.com/en/user-guide/data-time-travel
https://docs.snowflake.com/en/sql-reference/sql/show-tables (HISTORY)"""

from __future__ import annotations

import time
from typing import Any

import pytest
from snowflake.connector.errors import ProgrammingError


def _versioned(cur: Any, name: str, ddl_suffix: str = "") -> None:
    cur.execute(f"CREATE TABLE {name} (a INT){ddl_suffix}")
    cur.execute(f"INSERT INTO {name} VALUES (1)")
    time.sleep(1.2)  # OFFSET => -1 lands after the first version
    cur.execute(f"INSERT INTO {name} VALUES (2)")


def test_zero_retention_disables_time_travel(cur: Any) -> None:
    _versioned(cur, "t", " DATA_RETENTION_TIME_IN_DAYS = 0")
    with pytest.raises(ProgrammingError) as e:
        cur.execute("SELECT * FROM t AT(OFFSET => -1)")
    assert e.value.errno == 707
    assert cur.execute("SELECT COUNT(*) FROM t").fetchall() == [(2,)]


def test_alter_table_set_and_unset_retention(cur: Any) -> None:
    _versioned(cur, "t")
    assert cur.execute("SELECT COUNT(*) FROM t AT(OFFSET => -1)").fetchall() == [(1,)]
    cur.execute("ALTER TABLE t SET DATA_RETENTION_TIME_IN_DAYS = 0")
    with pytest.raises(ProgrammingError) as e:
        cur.execute("SELECT COUNT(*) FROM t AT(OFFSET => -1)")
    assert e.value.errno == 707
    cur.execute("ALTER TABLE t UNSET DATA_RETENTION_TIME_IN_DAYS")  # back to the default of 1 day
    assert cur.execute("SELECT COUNT(*) FROM t AT(OFFSET => -1)").fetchall() == [(1,)]


def test_tables_inherit_the_schema_then_database_value(cur: Any, database: str) -> None:
    cur.execute("CREATE SCHEMA s DATA_RETENTION_TIME_IN_DAYS = 0")
    _versioned(cur, "s.t")
    with pytest.raises(ProgrammingError):
        cur.execute("SELECT * FROM s.t AT(OFFSET => -1)")
    cur.execute("ALTER TABLE s.t SET DATA_RETENTION_TIME_IN_DAYS = 1")  # the table's own wins
    assert cur.execute("SELECT COUNT(*) FROM s.t AT(OFFSET => -1)").fetchall() == [(1,)]
    cur.execute("ALTER SCHEMA s UNSET DATA_RETENTION_TIME_IN_DAYS")
    cur.execute(f"ALTER DATABASE {database} SET DATA_RETENTION_TIME_IN_DAYS = 0")
    _versioned(cur, "s.u")
    with pytest.raises(ProgrammingError):
        cur.execute("SELECT * FROM s.u AT(OFFSET => -1)")


def test_dropped_table_without_retention_cannot_be_undropped(cur: Any) -> None:
    cur.execute("CREATE TABLE t (a INT) DATA_RETENTION_TIME_IN_DAYS = 0")
    cur.execute("DROP TABLE t")
    with pytest.raises(ProgrammingError) as e:
        cur.execute("UNDROP TABLE t")
    assert e.value.errno == 2003


def test_retention_out_of_range_is_refused(cur: Any) -> None:
    cur.execute("CREATE TABLE t (a INT)")
    with pytest.raises(ProgrammingError) as e:
        cur.execute("ALTER TABLE t SET DATA_RETENTION_TIME_IN_DAYS = 91")
    assert e.value.errno == 1008


def _history(cur: Any, sql: str) -> list[dict[str, Any]]:
    cur.execute(sql)
    names = [d.name for d in cur.description]
    assert names[-1] == "dropped_on"
    return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]


def test_show_tables_history_lists_dropped_tables(cur: Any) -> None:
    cur.execute("CREATE TABLE kept (a INT)")
    cur.execute("CREATE TABLE gone (a INT)")
    cur.execute("DROP TABLE gone")
    rows = _history(cur, "SHOW TABLES HISTORY")
    by_name = {r["name"]: r for r in rows}
    assert by_name["KEPT"]["dropped_on"] is None
    assert by_name["GONE"]["dropped_on"] is not None
    assert [r["name"] for r in _history(cur, "SHOW TABLES HISTORY LIKE 'GO%'")] == ["GONE"]
    names = [r[1] for r in cur.execute("SHOW TABLES").fetchall()]
    assert names == ["KEPT"]


def test_show_schemas_and_databases_history(cur: Any) -> None:
    cur.execute("CREATE SCHEMA old_schema")
    cur.execute("DROP SCHEMA old_schema")
    rows = _history(cur, "SHOW SCHEMAS HISTORY LIKE 'OLD_SCHEMA'")
    assert [(r["name"], r["dropped_on"] is not None) for r in rows] == [("OLD_SCHEMA", True)]
    cur.execute("CREATE DATABASE old_db_for_history")
    cur.execute("DROP DATABASE old_db_for_history")
    rows = _history(cur, "SHOW DATABASES HISTORY LIKE 'OLD_DB_FOR_HISTORY'")
    assert [(r["name"], r["dropped_on"] is not None) for r in rows] == [("OLD_DB_FOR_HISTORY", True)]
    cur.execute("UNDROP DATABASE old_db_for_history")
    rows = _history(cur, "SHOW DATABASES HISTORY LIKE 'OLD_DB_FOR_HISTORY'")
    assert [r["dropped_on"] for r in rows] == [None]
    cur.execute("DROP DATABASE old_db_for_history")


def test_create_or_replace_keeps_the_replaced_table_for_undrop(cur: Any) -> None:
    cur.execute("CREATE TABLE t (a INT)")
    cur.execute("INSERT INTO t VALUES (1)")
    cur.execute("CREATE OR REPLACE TABLE t (b VARCHAR)")
    with pytest.raises(ProgrammingError) as e:
        cur.execute("UNDROP TABLE t")  # the name is taken by the new table
    assert e.value.errno == 2002
    cur.execute("ALTER TABLE t RENAME TO t_new")
    cur.execute("UNDROP TABLE t")
    assert cur.execute("SELECT a FROM t").fetchall() == [(1,)]
    assert [d.name for d in cur.execute("SELECT * FROM t_new").description] == ["B"]


def test_show_reports_the_retention_each_object_gets(cur: Any, database: str) -> None:
    cur.execute("CREATE SCHEMA s DATA_RETENTION_TIME_IN_DAYS = 3")
    cur.execute("CREATE TABLE s.inherits (a INT)")
    cur.execute("CREATE TABLE s.own (a INT) DATA_RETENTION_TIME_IN_DAYS = 5")
    cur.execute("SHOW TABLES IN SCHEMA s")
    names = [d.name for d in cur.description]
    shown = {r[names.index("name")]: r[names.index("retention_time")] for r in cur.fetchall()}
    assert shown == {"INHERITS": "3", "OWN": "5"}
    cur.execute(f"SHOW SCHEMAS LIKE 'S' IN DATABASE {database}")
    names = [d.name for d in cur.description]
    assert [r[names.index("retention_time")] for r in cur.fetchall()] == ["3"]

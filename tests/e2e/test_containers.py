"""ALTER SCHEMA | DATABASE ... RENAME TO | SWAP WITH: everything in the container moves with it
(tables with their history, views, sequences, stages with their files, grants), the session follows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from snowflake.connector.errors import ProgrammingError


def _fill_schema(cur: Any, schema: str, tmp_path: Path) -> str:
    """Returns the id of the statement that wrote the table's second version."""
    cur.execute(f"CREATE SCHEMA {schema}")
    cur.execute(f"CREATE TABLE {schema}.t (a INT, b VARCHAR)")
    cur.execute(f"INSERT INTO {schema}.t VALUES (1, 'x')")
    second = cur.execute(f"INSERT INTO {schema}.t VALUES (2, 'y')").sfqid
    cur.execute(f"CREATE VIEW {schema}.v AS SELECT a FROM t WHERE a > 1")  # resolved in its schema
    cur.execute(f"CREATE SEQUENCE {schema}.seq START = 10")
    cur.execute(f"CREATE STAGE {schema}.st")
    data = tmp_path / f"{schema.lower()}.csv"
    data.write_text("7,seven\n")
    cur.execute(f"PUT file://{data} @{schema}.st AUTO_COMPRESS = FALSE")
    cur.execute(f"PUT file://{data} @{schema}.%t AUTO_COMPRESS = FALSE")
    return str(second)


def test_rename_schema_moves_everything_in_it(cur: Any, tmp_path: Path) -> None:
    second = _fill_schema(cur, "s1", tmp_path)
    cur.execute("USE SCHEMA s1")
    granted = [(r[1], r[5]) for r in cur.execute("SHOW GRANTS ON SCHEMA s1").fetchall()]
    assert [p for p, _ in granted] == ["OWNERSHIP"]
    assert cur.execute("ALTER SCHEMA s1 RENAME TO s2").fetchall() == [("Statement executed successfully.",)]
    assert cur.execute("SELECT CURRENT_SCHEMA()").fetchone() == ("S2",)
    assert cur.execute("SELECT a, b FROM s2.t ORDER BY a").fetchall() == [(1, "x"), (2, "y")]
    # The table's history came along: time travel reads the first insert's version.
    assert cur.execute(f"SELECT a FROM s2.t BEFORE(STATEMENT => '{second}')").fetchall() == [(1,)]
    assert cur.execute("SELECT * FROM s2.v").fetchall() == [(2,)]
    assert cur.execute("SELECT s2.seq.NEXTVAL").fetchone() == (10,)
    assert [r[0] for r in cur.execute("LIST @s2.st").fetchall()] == ["st/s1.csv"]
    cur.execute("COPY INTO s2.t FROM @s2.%t FILE_FORMAT = (TYPE = CSV)")
    assert cur.execute("SELECT b FROM t WHERE a = 7").fetchall() == [("seven",)]
    assert [(r[1], r[5]) for r in cur.execute("SHOW GRANTS ON SCHEMA s2").fetchall()] == granted
    with pytest.raises(ProgrammingError) as gone:
        cur.execute("SELECT * FROM s1.t")
    assert gone.value.errno == 2003
    # The old name is free again.
    cur.execute("CREATE SCHEMA s1")
    assert cur.execute("SHOW TABLES IN SCHEMA s1").fetchall() == []


def test_swap_schemas_exchanges_contents_and_stage_files(cur: Any, tmp_path: Path) -> None:
    _fill_schema(cur, "left_s", tmp_path)
    cur.execute("CREATE SCHEMA right_s")
    cur.execute("CREATE TABLE right_s.t (c INT)")
    cur.execute("INSERT INTO right_s.t VALUES (33)")
    cur.execute("USE SCHEMA left_s")
    cur.execute("ALTER SCHEMA left_s SWAP WITH right_s")
    assert cur.execute("SELECT CURRENT_SCHEMA()").fetchone() == ("RIGHT_S",)
    assert cur.execute("SELECT a FROM right_s.t ORDER BY a").fetchall() == [(1,), (2,)]
    assert cur.execute("SELECT c FROM left_s.t").fetchall() == [(33,)]
    assert [r[0] for r in cur.execute("LIST @right_s.st").fetchall()] == ["st/left_s.csv"]
    with pytest.raises(ProgrammingError) as missing:
        cur.execute("LIST @left_s.st")
    assert missing.value.errno == 2003


def test_rename_schema_errors(cur: Any, database: str) -> None:
    cur.execute("CREATE SCHEMA a")
    cur.execute("CREATE SCHEMA b")
    with pytest.raises(ProgrammingError) as taken:
        cur.execute("ALTER SCHEMA a RENAME TO b")
    assert (taken.value.errno, taken.value.sqlstate) == (2002, "42710")
    with pytest.raises(ProgrammingError) as missing:
        cur.execute("ALTER SCHEMA nope RENAME TO c")
    assert (missing.value.errno, missing.value.sqlstate) == (2003, "42S02")
    with pytest.raises(ProgrammingError) as swap_missing:
        cur.execute("ALTER SCHEMA a SWAP WITH nope")
    assert swap_missing.value.errno == 2003
    assert cur.execute("ALTER SCHEMA IF EXISTS nope RENAME TO c").fetchone() == (
        "Statement executed successfully.",
    )
    with pytest.raises(ProgrammingError) as across:
        cur.execute(f"ALTER SCHEMA {database}.a RENAME TO embucket.a")
    assert across.value.errno == 2
    # Nothing moved: both schemas are where they were, the session works on.
    names = {r[1] for r in cur.execute("SHOW SCHEMAS").fetchall()}
    assert {"A", "B"} <= names and "C" not in names


def test_rename_database_and_session_follows(server: Any, database: str) -> None:
    with server.connect(database=database, schema="PUBLIC") as conn:
        cur = conn.cursor()
        cur.execute("CREATE TABLE t (a INT)")
        cur.execute("INSERT INTO t VALUES (5)")
        cur.execute(f"ALTER DATABASE {database} RENAME TO {database}_NEW")
        try:
            assert cur.execute("SELECT CURRENT_DATABASE(), CURRENT_SCHEMA()").fetchone() == (
                f"{database}_NEW",
                "PUBLIC",
            )
            assert cur.execute(f"SELECT a FROM {database}_NEW.public.t").fetchall() == [(5,)]
            cur.execute("INSERT INTO t VALUES (6)")
            assert cur.execute("SELECT COUNT(*) FROM t").fetchone() == (2,)
            assert cur.execute(f"SHOW DATABASES LIKE '{database}%'").fetchall()[0][1] == f"{database}_NEW"
            with pytest.raises(ProgrammingError) as gone:
                cur.execute(f"SELECT * FROM {database}.public.t")
            assert gone.value.errno == 2003
        finally:
            cur.execute(f"DROP DATABASE IF EXISTS {database}_NEW")


def test_other_sessions_in_a_renamed_schema_follow_it(server: Any, database: str) -> None:
    """Snowflake's sessions hold their schema, not its name: a rename by another session moves
    them along (as it does the session that renames)."""
    with server.connect(database=database, schema="PUBLIC") as admin, server.connect() as other:
        adm, cur = admin.cursor(), other.cursor()
        adm.execute("CREATE SCHEMA raw")
        adm.execute("CREATE TABLE raw.events (n INT)")
        adm.execute("INSERT INTO raw.events VALUES (1)")
        cur.execute(f"USE SCHEMA {database}.raw")
        adm.execute("ALTER SCHEMA raw RENAME TO bronze")
        assert cur.execute("SELECT CURRENT_SCHEMA(), COUNT(*) FROM events").fetchone() == ("BRONZE", 1)
        adm.execute(f"ALTER DATABASE {database} RENAME TO {database}_MOVED")
        try:
            assert cur.execute("SELECT CURRENT_DATABASE(), COUNT(*) FROM events").fetchone() == (
                f"{database}_MOVED",
                1,
            )
        finally:
            adm.execute(f"DROP DATABASE IF EXISTS {database}_MOVED")


def test_alter_schema_retention_by_qualified_name(cur: Any, database: str) -> None:
    cur.execute("CREATE SCHEMA kept")
    cur.execute(f"ALTER SCHEMA {database}.kept SET DATA_RETENTION_TIME_IN_DAYS = 3")
    cur.execute("SHOW SCHEMAS LIKE 'KEPT'")
    row = cur.fetchone()
    assert row[[d.name for d in cur.description].index("retention_time")] == "3"


def test_clone_schema_copies_its_objects_zero_copy(cur: Any, tmp_path: Path) -> None:
    second = _fill_schema(cur, "origin", tmp_path)
    cur.execute("CREATE FUNCTION origin.times_ten(x INT) RETURNS INT AS 'x * 10'")
    cur.execute("CREATE SCHEMA copy_now CLONE origin")
    assert cur.execute("SELECT CURRENT_SCHEMA()").fetchone() == ("COPY_NOW",)
    assert cur.execute("SELECT a, b FROM t ORDER BY a").fetchall() == [(1, "x"), (2, "y")]
    assert cur.execute("SELECT * FROM v").fetchall() == [(2,)]
    assert cur.execute("SELECT copy_now.seq.NEXTVAL, copy_now.times_ten(4)").fetchone() == (10, 40)
    # The clone and its source change apart.
    cur.execute("INSERT INTO copy_now.t VALUES (3, 'z')")
    cur.execute("DELETE FROM origin.t WHERE a = 1")
    assert cur.execute("SELECT COUNT(*) FROM copy_now.t").fetchone() == (3,)
    assert cur.execute("SELECT COUNT(*) FROM origin.t").fetchone() == (1,)
    # At a time point: each table as it was then.
    cur.execute(f"CREATE SCHEMA copy_then CLONE origin BEFORE(STATEMENT => '{second}')")
    assert cur.execute("SELECT a FROM copy_then.t").fetchall() == [(1,)]


def test_clone_database_and_clone_errors(cur: Any, database: str) -> None:
    cur.execute("CREATE SCHEMA extra")
    cur.execute("CREATE TABLE extra.t (a INT)")
    cur.execute("INSERT INTO extra.t VALUES (7)")
    cur.execute("CREATE TABLE public.p (b VARCHAR)")
    cur.execute(f"CREATE DATABASE {database}_COPY CLONE {database}")
    try:
        assert cur.execute(f"SELECT a FROM {database}_COPY.extra.t").fetchall() == [(7,)]
        assert cur.execute(f"SELECT COUNT(*) FROM {database}_COPY.public.p").fetchone() == (0,)
    finally:
        cur.execute(f"DROP DATABASE {database}_COPY")
    cur.execute(f"USE SCHEMA {database}.public")  # a new database became the current one
    with pytest.raises(ProgrammingError) as missing:
        cur.execute(f"CREATE SCHEMA {database}.copied CLONE {database}.nope")
    assert missing.value.errno == 2003
    with pytest.raises(ProgrammingError) as itself:
        cur.execute("CREATE OR REPLACE SCHEMA extra CLONE extra")
    assert itself.value.errno == 2
    # A point before every table: nothing is created.
    with pytest.raises(ProgrammingError) as too_early:
        cur.execute("CREATE SCHEMA early CLONE extra AT(OFFSET => -100000)")
    assert too_early.value.errno == 707
    names = {r[1] for r in cur.execute("SHOW SCHEMAS").fetchall()}
    assert "EARLY" not in names and "COPIED" not in names
    assert cur.execute("SELECT a FROM extra.t").fetchall() == [(7,)]

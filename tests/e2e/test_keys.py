"""Declared PRIMARY KEY, UNIQUE and FOREIGN KEY constraints: recorded, never enforced, listed by
SHOW PRIMARY | UNIQUE | IMPORTED KEYS, DESCRIBE TABLE and INFORMATION_SCHEMA."""

from __future__ import annotations

import pytest
from snowflake.connector.cursor import SnowflakeCursor
from snowflake.connector.errors import ProgrammingError


def make_tables(cur: SnowflakeCursor) -> None:
    cur.execute("create table parent (id int primary key, code varchar(5) unique, name varchar)")
    cur.execute(
        "create table child (id int, a int, b varchar(5), "
        "constraint child_pk primary key (id), "
        "constraint child_parent foreign key (a) references parent (id), "
        "foreign key (b) references parent)"
    )


def test_show_primary_keys_lists_each_key_column(cur: SnowflakeCursor, database: str) -> None:
    make_tables(cur)
    cur.execute("show primary keys in schema public")
    assert [d.name for d in cur.description] == [
        "created_on", "database_name", "schema_name", "table_name", "column_name", "key_sequence",
        "constraint_name", "rely", "comment",
    ]  # fmt: skip
    rows = sorted((r[3], r[4], r[5], r[6]) for r in cur.fetchall())
    assert rows[0] == ("CHILD", "ID", 1, "CHILD_PK")
    assert rows[1][:3] == ("PARENT", "ID", 1)
    assert rows[1][3].startswith("SYS_CONSTRAINT_")


def test_show_unique_keys_in_a_table(cur: SnowflakeCursor) -> None:
    make_tables(cur)
    cur.execute("show unique keys in table parent")
    assert [(r[3], r[4], r[5]) for r in cur.fetchall()] == [("PARENT", "CODE", 1)]


def test_show_imported_keys_names_both_sides(cur: SnowflakeCursor, database: str) -> None:
    make_tables(cur)
    cur.execute("show imported keys in table child")
    names = [d.name for d in cur.description]
    rows = sorted(dict(zip(names, r, strict=True))["fk_column_name"] for r in cur.fetchall())
    assert rows == ["A", "B"]
    cur.execute("show imported keys in schema public")
    found = {
        (r["fk_column_name"], r["pk_table_name"], r["pk_column_name"], r["pk_database_name"])
        for r in (dict(zip(names, row, strict=True)) for row in cur.fetchall())
    }
    assert ("A", "PARENT", "ID", database) in found
    # B names no column: it refers to PARENT's primary key.
    assert ("B", "PARENT", "ID", database) in found


def test_describe_table_marks_key_columns(cur: SnowflakeCursor) -> None:
    make_tables(cur)
    cur.execute("describe table parent")
    assert [(r[0], r[5], r[6]) for r in cur.fetchall()] == [
        ("ID", "Y", "N"),
        ("CODE", "N", "Y"),
        ("NAME", "N", "N"),
    ]


def test_keys_are_not_enforced(cur: SnowflakeCursor) -> None:
    make_tables(cur)
    cur.execute("insert into parent values (1, 'a', 'x'), (1, 'a', 'y')")
    assert cur.execute("select count(*) from parent").fetchall() == [(2,)]


def test_information_schema_table_constraints(cur: SnowflakeCursor) -> None:
    make_tables(cur)
    cur.execute(
        "select table_name, constraint_type, enforced from information_schema.table_constraints "
        "where constraint_name = 'CHILD_PARENT' or table_name = 'PARENT' order by 1, 2"
    )
    assert cur.fetchall() == [
        ("CHILD", "FOREIGN KEY", "NO"),
        ("PARENT", "PRIMARY KEY", "NO"),
        ("PARENT", "UNIQUE", "NO"),
    ]


def test_alter_table_adds_and_drops_constraints(cur: SnowflakeCursor) -> None:
    cur.execute("CREATE TABLE parent (id INT, name VARCHAR)")
    cur.execute("CREATE TABLE child (id INT, pid INT)")
    cur.execute("ALTER TABLE parent ADD CONSTRAINT parent_pk PRIMARY KEY (id)")
    cur.execute("ALTER TABLE parent ADD UNIQUE (name)")
    cur.execute("ALTER TABLE child ADD CONSTRAINT child_fk FOREIGN KEY (pid) REFERENCES parent (id)")
    primary = cur.execute("SHOW PRIMARY KEYS IN TABLE parent").fetchall()
    assert [(r[4], r[6]) for r in primary] == [("ID", "PARENT_PK")]
    assert [r[4] for r in cur.execute("SHOW UNIQUE KEYS IN TABLE parent").fetchall()] == ["NAME"]
    imported = cur.execute("SHOW IMPORTED KEYS IN TABLE child").fetchall()
    assert [(r[3], r[4], r[8], r[12]) for r in imported] == [("PARENT", "ID", "PID", "CHILD_FK")]
    with pytest.raises(ProgrammingError) as e:
        cur.execute("ALTER TABLE parent ADD PRIMARY KEY (name)")
    assert "already has a primary key" in e.value.msg
    cur.execute("ALTER TABLE parent DROP PRIMARY KEY")
    cur.execute("ALTER TABLE parent DROP UNIQUE (name)")
    cur.execute("ALTER TABLE child DROP CONSTRAINT child_fk")
    assert cur.execute("SHOW PRIMARY KEYS IN TABLE parent").fetchall() == []
    assert cur.execute("SHOW IMPORTED KEYS IN TABLE child").fetchall() == []
    with pytest.raises(ProgrammingError) as e:
        cur.execute("ALTER TABLE child DROP CONSTRAINT child_fk")
    assert e.value.errno == 2003

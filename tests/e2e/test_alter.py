"""ALTER TABLE: rename, swap, column changes as schema evolution; old rows stay readable."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from snowflake.connector.errors import IntegrityError, ProgrammingError


@pytest.fixture
def t(cur: Any) -> Any:
    cur.execute("CREATE TABLE t (a INT, b VARCHAR(10), p NUMBER(10,2))")
    cur.execute("INSERT INTO t VALUES (1, 'x', 1.5)")
    return cur


def test_rename_and_swap_tables(t: Any) -> None:
    t.execute("ALTER TABLE t RENAME TO t1")
    with pytest.raises(ProgrammingError):
        t.execute("SELECT * FROM t")
    t.execute("CREATE TABLE t2 (a INT)")
    t.execute("INSERT INTO t2 VALUES (42)")
    t.execute("ALTER TABLE t1 SWAP WITH t2")
    assert t.execute("SELECT a FROM t1").fetchall() == [(42,)]
    assert t.execute("SELECT a, b FROM t2").fetchall() == [(1, "x")]
    # An unqualified new name is in the current schema; the grants go where the table goes.
    t.execute("CREATE SCHEMA elsewhere")
    t.execute("USE SCHEMA elsewhere")
    t.execute("ALTER TABLE public.t2 RENAME TO moved")
    assert t.execute("SELECT a FROM elsewhere.moved").fetchall() == [(1,)]
    t.execute("SHOW GRANTS ON TABLE elsewhere.moved")
    assert [(r[1], r[5]) for r in t.fetchall()] == [("OWNERSHIP", "ACCOUNTADMIN")]


def test_add_drop_rename_columns_keep_old_rows(t: Any) -> None:
    t.execute("ALTER TABLE t ADD COLUMN c VARCHAR COMMENT 'new'")
    t.execute("INSERT INTO t VALUES (2, 'y', 2.5, 'cc')")
    assert t.execute("SELECT a, c FROM t ORDER BY a").fetchall() == [(1, None), (2, "cc")]
    t.execute("ALTER TABLE t RENAME COLUMN b TO bee")
    assert t.execute("SELECT a, bee FROM t ORDER BY a").fetchall() == [(1, "x"), (2, "y")]
    t.execute("ALTER TABLE t DROP COLUMN c")
    t.execute("SELECT * FROM t ORDER BY a")
    assert [d.name for d in t.description] == ["A", "BEE", "P"]
    with pytest.raises(ProgrammingError) as err:
        t.execute("ALTER TABLE t DROP COLUMN nope")
    assert err.value.errno == 904


def test_changes_after_a_rename_keep_the_renamed_columns_values(t: Any) -> None:
    # Older files carry the old name: UPDATE and DELETE read them by field id, as SELECT does
    # (read by name, the column came back NULL and the UPDATE wrote the NULLs back).
    t.execute("ALTER TABLE t RENAME COLUMN b TO bee")
    t.execute("UPDATE t SET a = 2")
    assert t.execute("SELECT a, bee, p FROM t").fetchall() == [(2, "x", Decimal("1.50"))]
    t.execute("MERGE INTO t USING (SELECT 2 AS a) s ON t.a = s.a WHEN MATCHED THEN UPDATE SET p = 9")
    assert t.execute("SELECT a, bee, p FROM t").fetchall() == [(2, "x", Decimal("9.00"))]
    t.execute("DELETE FROM t WHERE bee = 'x'")
    assert t.execute("SELECT COUNT(*) FROM t").fetchall() == [(0,)]


def test_a_dropped_columns_name_taken_again_starts_empty(t: Any) -> None:
    t.execute("ALTER TABLE t DROP COLUMN b")
    t.execute("ALTER TABLE t ADD COLUMN b VARCHAR")
    t.execute("INSERT INTO t (a, b) VALUES (2, 'new')")
    assert t.execute("SELECT a, b FROM t ORDER BY a").fetchall() == [(1, None), (2, "new")]


def test_a_column_added_with_a_default_fills_existing_and_later_rows(t: Any) -> None:
    t.execute("INSERT INTO t VALUES (2, 'y', 2.5)")
    t.execute("ALTER TABLE t ADD COLUMN c VARCHAR DEFAULT 'none', d NUMBER(10,2) DEFAULT 0.5")
    t.execute("INSERT INTO t (a) VALUES (3)")
    rows = t.execute("SELECT a, c, d FROM t ORDER BY a").fetchall()
    assert rows == [(1, "none", Decimal("0.50")), (2, "none", Decimal("0.50")), (3, "none", Decimal("0.50"))]
    t.execute("DESCRIBE TABLE t")
    assert {r[0]: r[4] for r in t.fetchall()}["C"] == "'none'"


def test_a_default_that_does_not_convert_leaves_the_table_as_it_was(t: Any) -> None:
    with pytest.raises(ProgrammingError) as err:
        t.execute("ALTER TABLE t ADD COLUMN n INT DEFAULT 'abc'")
    assert (err.value.errno, err.value.sqlstate) == (100038, "22018")
    t.execute("SELECT * FROM t")
    assert [d.name for d in t.description] == ["A", "B", "P"]
    assert t.fetchall() == [(1, "x", Decimal("1.50"))]


def test_widen_column_types(t: Any) -> None:
    t.execute("ALTER TABLE t ALTER COLUMN p SET DATA TYPE NUMBER(20,2)")
    t.execute("ALTER TABLE t ALTER COLUMN b SET DATA TYPE VARCHAR(100)")
    t.execute("INSERT INTO t VALUES (2, 'y', 123456789012345.25)")
    rows = t.execute("SELECT p FROM t ORDER BY a").fetchall()
    assert rows == [(Decimal("1.50"),), (Decimal("123456789012345.25"),)]
    by_name = {d.name: d for d in t.execute("SELECT * FROM t").description}
    assert (by_name["P"].precision, by_name["P"].scale) == (20, 2)
    assert by_name["B"].internal_size == 100


@pytest.mark.parametrize(
    ("change", "errno", "message"),
    [
        ("b SET DATA TYPE VARCHAR(5)", 40050, "reducing the byte-length of a varchar is not supported"),
        ("p SET DATA TYPE NUMBER(10,3)", 2108, "changing the scale of a number is not supported"),
        ("b SET DATA TYPE NUMBER", 2108, "cannot change column B from type VARCHAR(10) to NUMBER(38,0)"),
        ("a SET DATA TYPE VARCHAR", 2108, "cannot change column A from type NUMBER(38,0) to VARCHAR"),
    ],
)
def test_type_changes_snowflake_refuses(t: Any, change: str, errno: int, message: str) -> None:
    """https://docs.snowflake.com/en/sql-reference/sql/alter-table-column: a shorter VARCHAR, another
    scale or another kind is refused (a shorter VARCHAR was accepted, other kinds were internal
    errors); the column keeps its type and values."""
    with pytest.raises(ProgrammingError) as err:
        t.execute(f"ALTER TABLE t ALTER COLUMN {change}")
    assert (err.value.errno, err.value.sqlstate) == (errno, "22000")
    assert message in err.value.msg
    assert [d.internal_size for d in t.execute("SELECT b FROM t").description] == [10]
    assert t.execute("SELECT * FROM t").fetchall() == [(1, "x", Decimal("1.50"))]


def test_set_and_drop_not_null_and_drop_default(t: Any) -> None:
    t.execute("ALTER TABLE t ALTER COLUMN a SET NOT NULL")
    with pytest.raises(IntegrityError) as err:
        t.execute("INSERT INTO t (b) VALUES ('y')")
    assert err.value.errno == 100072
    t.execute("ALTER TABLE t MODIFY COLUMN a DROP NOT NULL")
    t.execute("INSERT INTO t (b) VALUES ('y')")
    with pytest.raises(IntegrityError) as err:  # a NULL is there now
        t.execute("ALTER TABLE t ALTER COLUMN a SET NOT NULL")
    assert err.value.errno == 100072
    assert [r[3] for r in t.execute("DESC TABLE t").fetchall()] == ["Y", "Y", "Y"]  # null?
    t.execute("CREATE TABLE d (a INT, c INT DEFAULT 5)")
    t.execute("ALTER TABLE d ALTER c DROP DEFAULT")
    t.execute("INSERT INTO d (a) VALUES (1)")
    assert t.execute("SELECT c FROM d").fetchall() == [(None,)]


def test_drop_several_columns_and_if_exists(t: Any) -> None:
    t.execute("ALTER TABLE t ADD COLUMN c INT, d TEXT")
    t.execute("ALTER TABLE t DROP COLUMN c, d")  # both go (only the first did)
    assert [d.name for d in t.execute("SELECT * FROM t").description] == ["A", "B", "P"]
    t.execute("ALTER TABLE t DROP COLUMN IF EXISTS nope")
    t.execute("ALTER TABLE t ADD COLUMN IF NOT EXISTS b INT")
    assert [d.name for d in t.execute("SELECT * FROM t").description] == ["A", "B", "P"]
    with pytest.raises(ProgrammingError):
        t.execute("ALTER TABLE t DROP COLUMN nope")


def test_table_comment(t: Any) -> None:
    t.execute("ALTER TABLE t SET COMMENT = 'hello'")
    t.execute("ALTER TABLE t UNSET COMMENT")
    t.execute("ALTER TABLE IF EXISTS nope SET COMMENT = 'x'")
    assert t.execute("SELECT COUNT(*) FROM t").fetchone() == (1,)


def test_comment_on_tables_columns_and_views(t: Any) -> None:
    """COMMENT ON, as dbt's persist_docs writes it: https://docs.snowflake.com/en/sql-reference/sql/comment"""
    assert t.execute("COMMENT ON TABLE t IS 'the table'").fetchone() == ("Statement executed successfully.",)
    t.execute("COMMENT ON COLUMN t.b IS $$b's meaning$$")
    assert t.execute("SELECT comment FROM information_schema.tables WHERE table_name = 'T'").fetchone() == (
        "the table",
    )
    described = {row[0]: row[9] for row in t.execute("DESCRIBE TABLE t").fetchall()}
    assert described["B"] == "b's meaning"
    t.execute("CREATE VIEW v AS SELECT a FROM t")
    t.execute("COMMENT ON VIEW v IS 'the view'")
    query = "SELECT comment FROM information_schema.views WHERE table_name = 'V'"
    assert t.execute(query).fetchone() == ("the view",)
    t.execute("ALTER VIEW v UNSET COMMENT")
    assert t.execute(query).fetchone() == (None,)
    t.execute("ALTER VIEW v SET COMMENT = 'again'")
    assert t.execute(query).fetchone() == ("again",)
    with pytest.raises(ProgrammingError) as info:
        t.execute("COMMENT ON VIEW nope IS 'x'")
    assert (info.value.errno, info.value.sqlstate) == (2003, "42S02")
    with pytest.raises(ProgrammingError) as info:
        t.execute("COMMENT ON TABLE nope IS 'x'")
    assert info.value.errno == 2003
    t.execute("COMMENT IF EXISTS ON TABLE nope IS 'x'")


def test_comments_on_schemas_and_databases(cur: Any) -> None:
    """CREATE SCHEMA ... COMMENT, COMMENT ON SCHEMA | DATABASE and ALTER SCHEMA | DATABASE ... SET /
    UNSET COMMENT: https://docs.snowflake.com/en/sql-reference/sql/alter-schema"""
    database = cur.execute("SELECT CURRENT_DATABASE()").fetchone()[0]
    schema_comment = "SELECT comment FROM information_schema.schemata WHERE schema_name = 'NOTES'"
    database_comment = f"SELECT comment FROM information_schema.databases WHERE database_name = '{database}'"
    cur.execute("CREATE SCHEMA notes COMMENT = 'kept'")
    assert cur.execute(schema_comment).fetchall() == [("kept",)]
    shown = {row[1]: row[6] for row in cur.execute("SHOW SCHEMAS").fetchall()}
    assert (shown["NOTES"], shown["PUBLIC"]) == ("kept", "")
    assert cur.execute("COMMENT ON SCHEMA notes IS 'it''s set'").fetchone() == (
        "Statement executed successfully.",
    )
    assert cur.execute(schema_comment).fetchall() == [("it's set",)]
    cur.execute(f"ALTER SCHEMA {database}.notes SET COMMENT = 'altered'")
    assert cur.execute(schema_comment).fetchall() == [("altered",)]
    cur.execute("CREATE TABLE notes.t (a INT)")
    # The schema outlives the loss of its only property, and keeps its tables.
    cur.execute("ALTER SCHEMA notes UNSET COMMENT")
    assert cur.execute(schema_comment).fetchall() == [(None,)]
    assert cur.execute("SELECT COUNT(*) FROM notes.t").fetchone() == (0,)
    cur.execute(f"COMMENT ON DATABASE {database} IS 'the database'")
    assert cur.execute(database_comment).fetchall() == [("the database",)]
    cur.execute(f"ALTER DATABASE {database} UNSET COMMENT")
    assert cur.execute(database_comment).fetchall() == [(None,)]
    cur.execute(f"ALTER DATABASE {database} SET COMMENT = 'again'")
    assert [row[6] for row in cur.execute(f"SHOW DATABASES LIKE '{database}'").fetchall()] == ["again"]
    for sql in ("COMMENT ON SCHEMA nope IS 'x'", "ALTER DATABASE nope_db SET COMMENT = 'x'"):
        with pytest.raises(ProgrammingError) as info:
            cur.execute(sql)
        assert (info.value.errno, info.value.sqlstate) == (2003, "42S02")
    cur.execute("ALTER SCHEMA IF EXISTS nope SET COMMENT = 'x'")
    cur.execute("COMMENT IF EXISTS ON DATABASE nope_db IS 'x'")


def test_column_comments_set_and_unset(t: Any) -> None:
    """https://docs.snowflake.com/en/sql-reference/sql/alter-table-column: `COMMENT '...'` and
    `UNSET COMMENT`; a column the table lacks is an invalid identifier."""
    query = "SELECT column_name, comment FROM information_schema.columns WHERE table_name = 'T' ORDER BY 1"
    t.execute("ALTER TABLE t ALTER COLUMN a COMMENT 'the a'")
    t.execute("ALTER TABLE t MODIFY b COMMENT 'the b'")
    assert t.execute(query).fetchall() == [("A", "the a"), ("B", "the b"), ("P", None)]
    t.execute("ALTER TABLE t ALTER COLUMN a UNSET COMMENT")
    t.execute("ALTER TABLE IF EXISTS t MODIFY COLUMN b UNSET COMMENT")
    assert t.execute(query).fetchall() == [("A", None), ("B", None), ("P", None)]
    for sql in ("ALTER TABLE t ALTER COLUMN nope COMMENT 'x'", "ALTER TABLE t ALTER nope UNSET COMMENT"):
        with pytest.raises(ProgrammingError) as info:
            t.execute(sql)
        assert (info.value.errno, info.value.sqlstate) == (904, "42000")
    assert t.execute("SELECT a, b FROM t").fetchall() == [(1, "x")]


def test_change_tracking_is_recorded_and_shown(cur: Any) -> None:
    def shown(name: str) -> str:
        cur.execute(f"SHOW TABLES LIKE '{name}'")
        names = [d.name for d in cur.description]
        return str(cur.fetchone()[names.index("change_tracking")])

    cur.execute("CREATE TABLE tracked (a INT) CHANGE_TRACKING = TRUE")
    cur.execute("CREATE TABLE plain (a INT)")
    assert (shown("TRACKED"), shown("PLAIN")) == ("ON", "OFF")
    cur.execute("ALTER TABLE plain SET CHANGE_TRACKING = TRUE")
    cur.execute("ALTER TABLE tracked SET CHANGE_TRACKING = FALSE")
    assert (shown("TRACKED"), shown("PLAIN")) == ("OFF", "ON")

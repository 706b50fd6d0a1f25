"""Streams through the connector: a stream reads its table's changes since its offset; DML that
reads it moves the offset when it commits.
https://docs.snowflake.com/en/user-guide/streams-intro
"""

from __future__ import annotations

from typing import Any

import pytest
from snowflake.connector.errors import ProgrammingError


@pytest.fixture
def src(cur: Any) -> Any:
    cur.execute("CREATE TABLE src (id INT, v TEXT)")
    cur.execute("INSERT INTO src VALUES (1, 'a')")
    cur.execute("CREATE TABLE dst (id INT, v TEXT, action TEXT)")
    return cur


def rows(cur: Any, sql: str) -> list[tuple[Any, ...]]:
    return cur.execute(sql).fetchall()


def test_a_stream_shows_the_net_changes_since_its_offset(src: Any) -> None:
    src.execute("CREATE STREAM s ON TABLE src")
    assert rows(src, "SELECT * FROM s") == []
    assert rows(src, "SELECT SYSTEM$STREAM_HAS_DATA('s')") == [(False,)]
    src.execute("INSERT INTO src VALUES (2, 'b'), (3, 'c')")
    src.execute("UPDATE src SET v = 'A' WHERE id = 1")
    src.execute("DELETE FROM src WHERE id = 3")
    assert rows(src, "SELECT SYSTEM$STREAM_HAS_DATA('s')") == [(True,)]
    src.execute("SELECT * FROM s ORDER BY id, METADATA$ACTION")
    assert [d.name for d in src.description] == ["ID", "V", "METADATA$ACTION", "METADATA$ISUPDATE"]
    expected = [(1, "a", "DELETE", False), (1, "A", "INSERT", False), (2, "b", "INSERT", False)]
    assert src.fetchall() == expected
    # A query does not move the offset (and its result is not reused once the offset moves).
    assert rows(src, "SELECT * FROM s ORDER BY id, METADATA$ACTION") == expected


def test_dml_reading_a_stream_moves_its_offset_when_it_commits(src: Any) -> None:
    src.execute("CREATE STREAM s ON TABLE src")
    src.execute("INSERT INTO src VALUES (2, 'b')")
    src.execute("INSERT INTO dst SELECT id, v, METADATA$ACTION FROM s")
    assert rows(src, "SELECT * FROM dst") == [(2, "b", "INSERT")]
    assert rows(src, "SELECT COUNT(*) FROM s") == [(0,)]
    src.execute("INSERT INTO src VALUES (3, 'c')")
    src.execute("BEGIN")
    src.execute("INSERT INTO dst SELECT id, v, METADATA$ACTION FROM s")
    assert rows(src, "SELECT COUNT(*) FROM s") == [(1,)]  # moves at COMMIT, not before
    src.execute("ROLLBACK")
    assert rows(src, "SELECT id FROM s") == [(3,)]
    src.execute("BEGIN")
    src.execute(
        "MERGE INTO dst USING s ON dst.id = s.id WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v, 'merged')"
    )
    src.execute("COMMIT")
    assert rows(src, "SELECT COUNT(*) FROM s") == [(0,)]
    assert rows(src, "SELECT id, action FROM dst ORDER BY id") == [(2, "INSERT"), (3, "merged")]


def test_append_only_stream_with_initial_rows(src: Any) -> None:
    src.execute("CREATE STREAM ao ON TABLE src APPEND_ONLY = TRUE SHOW_INITIAL_ROWS = TRUE COMMENT = 'all'")
    src.execute("INSERT INTO src VALUES (2, 'b')")
    src.execute("DELETE FROM src WHERE id = 1")  # not recorded by an append-only stream
    assert rows(src, "SELECT id, METADATA$ACTION FROM ao ORDER BY id") == [(1, "INSERT"), (2, "INSERT")]
    shown = src.execute("SHOW STREAMS LIKE 'AO'").fetchall()
    names = [d.name for d in src.description]
    (row,) = [dict(zip(names, r, strict=True)) for r in shown]
    assert (row["name"], row["mode"], row["comment"], row["stale"]) == ("AO", "APPEND_ONLY", "all", "false")
    assert row["table_name"].endswith(".PUBLIC.SRC")
    (described,) = src.execute("DESCRIBE STREAM ao").fetchall()
    assert described == shown[0]


def test_stream_errors(src: Any) -> None:
    src.execute("CREATE STREAM s ON TABLE src")
    with pytest.raises(ProgrammingError) as err:
        src.execute("CREATE STREAM s ON TABLE src")
    assert err.value.errno == 2002
    with pytest.raises(ProgrammingError) as err:
        src.execute("CREATE STREAM bad ON TABLE nope")
    assert err.value.errno == 2003
    src.execute("CREATE OR REPLACE TABLE src (id INT)")
    with pytest.raises(ProgrammingError) as err:
        src.execute("SELECT * FROM s")
    assert "dropped or replaced" in err.value.msg
    src.execute("DROP STREAM s")
    with pytest.raises(ProgrammingError) as err:
        src.execute("SELECT * FROM s")
    assert err.value.errno == 2003
    src.execute("DROP STREAM IF EXISTS s")


def test_an_update_is_paired_by_the_primary_key(cur: Any) -> None:
    """Snowflake marks both halves of an UPDATE METADATA$ISUPDATE; without row ids in Iceberg v2
    data they are paired by the table's primary key (without one they stay FALSE)."""
    cur.execute("CREATE TABLE pk (id INT PRIMARY KEY, v TEXT)")
    cur.execute("INSERT INTO pk VALUES (1, 'a'), (2, 'b')")
    cur.execute("CREATE STREAM ps ON TABLE pk")
    cur.execute("UPDATE pk SET v = 'A' WHERE id = 1")
    cur.execute("INSERT INTO pk VALUES (3, 'c')")
    cur.execute("DELETE FROM pk WHERE id = 2")
    assert rows(cur, "SELECT id, v, METADATA$ACTION, METADATA$ISUPDATE FROM ps ORDER BY id, 3") == [
        (1, "a", "DELETE", True),
        (1, "A", "INSERT", True),
        (2, "b", "DELETE", False),
        (3, "c", "INSERT", False),
    ]


def test_a_stream_can_start_at_or_before_a_point(src: Any) -> None:
    """https://docs.snowflake.com/en/sql-reference/sql/create-stream: AT | BEFORE (TIMESTAMP |
    OFFSET | STATEMENT) sets the offset to that version of the table."""
    src.execute("INSERT INTO src VALUES (2, 'b')")
    inserted = src.sfqid
    src.execute("INSERT INTO src VALUES (3, 'c')")
    src.execute(f"CREATE STREAM since_2 ON TABLE src BEFORE (STATEMENT => '{inserted}')")
    src.execute(f"CREATE STREAM after_2 ON TABLE src AT (STATEMENT => '{inserted}') COMMENT = 'x'")
    src.execute("CREATE STREAM now ON TABLE src AT (TIMESTAMP => CURRENT_TIMESTAMP()) APPEND_ONLY = TRUE")
    src.execute("INSERT INTO src VALUES (4, 'd')")
    assert rows(src, "SELECT id FROM since_2 ORDER BY id") == [(2,), (3,), (4,)]
    assert rows(src, "SELECT id FROM after_2 ORDER BY id") == [(3,), (4,)]
    assert rows(src, "SELECT id FROM now") == [(4,)]
    with pytest.raises(ProgrammingError) as err:
        src.execute("CREATE STREAM bad ON TABLE src AT (TIMESTAMP => '2001-01-01'::TIMESTAMP_LTZ)")
    assert err.value.errno == 707  # before the table existed


def test_a_stream_on_a_view_reads_the_views_rows_of_its_tables_changes(src: Any) -> None:
    """https://docs.snowflake.com/en/user-guide/streams-intro: a stream on a view of one table
    gives the view's columns of the changed rows the view lets through."""
    src.execute("CREATE VIEW big AS SELECT id, UPPER(v) AS v_up FROM src WHERE id > 1")
    src.execute("CREATE STREAM big_changes ON VIEW big")
    src.execute("INSERT INTO src VALUES (2, 'b'), (0, 'z')")
    src.execute("DELETE FROM src WHERE id = 1")  # not a row of the view
    src.execute("SELECT * FROM big_changes ORDER BY id")
    assert [d.name for d in src.description] == ["ID", "V_UP", "METADATA$ACTION", "METADATA$ISUPDATE"]
    assert src.fetchall() == [(2, "B", "INSERT", False)]
    shown = src.execute("SHOW STREAMS LIKE 'BIG_CHANGES'").fetchone()
    assert (shown[6].endswith(".BIG"), shown[7], shown[8].endswith(".SRC")) == (True, "View", True)
    src.execute("INSERT INTO dst SELECT id, v_up, METADATA$ACTION FROM big_changes")
    assert rows(src, "SELECT COUNT(*) FROM big_changes") == [(0,)]
    # A view of more than one table's rows is refused; a view replaced since makes the stream stale.
    src.execute("CREATE VIEW counted AS SELECT COUNT(*) AS n FROM src")
    with pytest.raises(ProgrammingError) as err:
        src.execute("CREATE STREAM c ON VIEW counted")
    assert err.value.errno == 2
    src.execute("CREATE OR REPLACE VIEW big AS SELECT id FROM src")
    with pytest.raises(ProgrammingError) as err:
        src.execute("SELECT * FROM big_changes")
    assert "dropped or replaced" in err.value.msg

"""Time travel (AT | BEFORE) and zero-copy CLONE through the connector."""

from __future__ import annotations

import time
from typing import Any

import pytest
from snowflake.connector.errors import ProgrammingError


@pytest.fixture
def history(cur: Any) -> dict[str, str]:
    """A table with three versions; returns the query ids of the statements that made them."""
    cur.execute("CREATE TABLE h (a INT)")
    cur.execute("INSERT INTO h VALUES (1)")
    ids = {"first": cur.sfqid}
    time.sleep(1.2)  # so OFFSET => -1 lands between the first and the later versions
    cur.execute("INSERT INTO h VALUES (2)")
    ids["second"] = cur.sfqid
    cur.execute("DELETE FROM h WHERE a = 1")
    ids["delete"] = cur.sfqid
    return ids


def values(cur: Any, sql: str) -> list[int]:
    return [r[0] for r in cur.execute(sql).fetchall()]


def test_at_and_before_statement(cur: Any, history: dict[str, str]) -> None:
    assert values(cur, "SELECT a FROM h ORDER BY a") == [2]
    assert values(cur, f"SELECT a FROM h BEFORE(STATEMENT => '{history['delete']}') ORDER BY a") == [1, 2]
    assert values(cur, f"SELECT a FROM h AT(STATEMENT => '{history['second']}') ORDER BY a") == [1, 2]
    assert values(cur, f"SELECT a FROM h BEFORE(STATEMENT => '{history['second']}') ORDER BY a") == [1]
    assert values(cur, f"SELECT a FROM h AT(STATEMENT => '{history['first']}') ORDER BY a") == [1]


def test_at_offset_and_timestamp(cur: Any, history: dict[str, str]) -> None:
    assert values(cur, "SELECT a FROM h AT(OFFSET => -1) ORDER BY a") == [1]
    now = "CURRENT_TIMESTAMP()::TIMESTAMP_LTZ"
    assert values(cur, f"SELECT a FROM h AT(TIMESTAMP => {now}) ORDER BY a") == [2]
    # Time travel inside a join, next to the current version of the same table.
    rows = cur.execute(
        f"SELECT old.a, new.a FROM h BEFORE(STATEMENT => '{history['delete']}') old "
        "LEFT JOIN h new ON old.a = new.a ORDER BY old.a"
    ).fetchall()
    assert rows == [(1, None), (2, 2)]


def test_time_travel_before_creation_is_an_error(cur: Any, history: dict[str, str]) -> None:
    with pytest.raises(ProgrammingError) as err:
        cur.execute("SELECT * FROM h AT(TIMESTAMP => '2001-01-01 00:00:00'::TIMESTAMP_LTZ)")
    assert err.value.errno == 707
    with pytest.raises(ProgrammingError):
        cur.execute("SELECT * FROM h AT(STATEMENT => '00000000-0000-0000-0000-000000000000')")


def test_clone_shares_data_then_diverges(cur: Any, history: dict[str, str]) -> None:
    cur.execute("CREATE TABLE h2 CLONE h")
    cur.execute(f"CREATE TABLE h_old CLONE h BEFORE(STATEMENT => '{history['delete']}')")
    assert values(cur, "SELECT a FROM h2 ORDER BY a") == [2]
    assert values(cur, "SELECT a FROM h_old ORDER BY a") == [1, 2]
    cur.execute("INSERT INTO h2 VALUES (20)")
    cur.execute("DELETE FROM h WHERE a = 2")
    assert values(cur, "SELECT a FROM h ORDER BY a") == []
    assert values(cur, "SELECT a FROM h2 ORDER BY a") == [2, 20]
    cur.execute("DROP TABLE h2")
    assert values(cur, "SELECT a FROM h_old ORDER BY a") == [1, 2]


def test_changes_clause_reports_net_inserts_and_deletes(cur: Any) -> None:
    """https://docs.snowflake.com/en/sql-reference/constructs/changes (it was ignored: the
    current rows came back). DEFAULT gives the net change since AT/BEFORE (an UPDATE is a DELETE
    of the old row and an INSERT of the new one; rows a rewritten file carried over unchanged do
    not show); APPEND_ONLY gives the rows INSERTs added."""
    cur.execute("CREATE TABLE ch (id INT, v TEXT)")
    cur.execute("INSERT INTO ch VALUES (1, 'a'), (2, 'b'), (2, 'b')")
    start = cur.sfqid
    cur.execute("INSERT INTO ch VALUES (3, 'c'), (4, 'd')")
    cur.execute("UPDATE ch SET v = 'B' WHERE id = 2")
    cur.execute("DELETE FROM ch WHERE id IN (1, 4)")
    cur.execute(
        f"SELECT * FROM ch CHANGES(INFORMATION => DEFAULT) AT(STATEMENT => '{start}') ORDER BY 1, 3, 2"
    )
    assert [d.name for d in cur.description] == ["ID", "V", "METADATA$ACTION", "METADATA$ISUPDATE"]
    assert cur.fetchall() == [
        (1, "a", "DELETE", False),
        (2, "b", "DELETE", False),
        (2, "b", "DELETE", False),
        (2, "B", "INSERT", False),
        (2, "B", "INSERT", False),
        (3, "c", "INSERT", False),
    ]
    cur.execute(
        f"SELECT id, METADATA$ACTION FROM ch CHANGES(INFORMATION => APPEND_ONLY) AT(STATEMENT => '{start}') "
        "ORDER BY id"
    )
    assert cur.fetchall() == [(3, "INSERT"), (4, "INSERT")]  # 4 was appended, then deleted
    cur.execute(
        f"SELECT COUNT(*) FROM ch CHANGES(INFORMATION => DEFAULT) BEFORE(STATEMENT => '{start}') "
        f"END(STATEMENT => '{start}')"
    )
    assert cur.fetchone() == (3,)  # the first INSERT's rows
    with pytest.raises(ProgrammingError) as err:
        cur.execute("SELECT * FROM ch CHANGES(INFORMATION => DEFAULT)")
    assert "AT or BEFORE" in err.value.msg

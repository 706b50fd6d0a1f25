"""UPDATE, DELETE, MERGE and TRUNCATE through the connector, with Snowflake's result rows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from snowflake.connector.errors import ProgrammingError

from tests.e2e.conftest import Server


@pytest.fixture
def people(cur: Any) -> Any:
    cur.execute("CREATE TABLE people (id INT, name VARCHAR, score INT)")
    cur.execute("INSERT INTO people VALUES (1, 'ann', 10), (2, 'bob', 20)")
    cur.execute("INSERT INTO people VALUES (3, 'cy', 30), (4, 'di', 40)")
    return cur


def test_update_reports_rows_updated(people: Any) -> None:
    people.execute("UPDATE people SET score = score + 1 WHERE id >= 3")
    assert [d.name for d in people.description] == [
        "number of rows updated",
        "number of multi-joined rows updated",
    ]
    assert people.fetchone() == (2, 0)
    assert people.rowcount == 2
    rows = people.execute("SELECT id, score FROM people ORDER BY id").fetchall()
    assert rows == [(1, 10), (2, 20), (3, 31), (4, 41)]


def test_setting_a_column_the_table_lacks_is_an_invalid_identifier(people: Any) -> None:
    for sql in (
        "UPDATE people SET nope = 1",
        "MERGE INTO people USING (SELECT 1 AS id) s ON people.id = s.id "
        "WHEN MATCHED THEN UPDATE SET nope = 2",
        "INSERT INTO people (id, nope) VALUES (5, 1)",
    ):
        with pytest.raises(ProgrammingError) as err:
            people.execute(sql)
        assert (err.value.errno, err.value.sqlstate) == (904, "42000")
        assert "invalid identifier 'NOPE'" in err.value.msg
    # A quoted lower-case name is its unquoted twin here (embucket_py/naming.py).
    people.execute('UPDATE people SET "score" = 0 WHERE id = 1')
    people.execute("INSERT INTO people (id, \"name\") VALUES (5, 'ed')")
    assert people.execute("SELECT id, name, score FROM people WHERE id IN (1, 5) ORDER BY id").fetchall() == [
        (1, "ann", 0),
        (5, "ed", None),
    ]


def test_update_from_and_delete_using(people: Any) -> None:
    people.execute("CREATE TABLE bonus (id INT, extra INT)")
    people.execute("INSERT INTO bonus VALUES (2, 5), (4, 7), (9, 1)")
    people.execute("UPDATE people SET score = score + b.extra FROM bonus b WHERE people.id = b.id")
    assert people.rowcount == 2
    people.execute("DELETE FROM people USING bonus WHERE people.id = bonus.id AND bonus.extra > 6")
    assert people.fetchone() == (1,)
    rows = people.execute("SELECT id, score FROM people ORDER BY id").fetchall()
    assert rows == [(1, 10), (2, 25), (3, 30)]


def test_delete_reports_rows_deleted(people: Any) -> None:
    people.execute("DELETE FROM people WHERE name LIKE '%n%'")
    assert [d.name for d in people.description] == ["number of rows deleted"]
    assert people.rowcount == 1
    assert people.execute("SELECT COUNT(*) FROM people").fetchone() == (3,)


def test_merge_with_every_clause_kind(people: Any) -> None:
    people.execute("CREATE TABLE changes (id INT, name VARCHAR, gone BOOLEAN)")
    people.execute(
        "INSERT INTO changes VALUES (1, 'ANN', FALSE), (2, NULL, TRUE), (7, 'gil', FALSE), (8, 'x', TRUE)"
    )
    people.execute(
        "MERGE INTO people p USING changes c ON p.id = c.id "
        "WHEN MATCHED AND c.gone THEN DELETE "
        "WHEN MATCHED THEN UPDATE SET name = c.name "
        "WHEN NOT MATCHED AND NOT c.gone THEN INSERT (id, name, score) VALUES (c.id, c.name, 0)"
    )
    assert [d.name for d in people.description] == [
        "number of rows inserted",
        "number of rows updated",
        "number of rows deleted",
    ]
    assert people.fetchone() == (1, 1, 1)
    assert people.rowcount == 3
    rows = people.execute("SELECT id, name, score FROM people ORDER BY id").fetchall()
    assert rows == [(1, "ANN", 10), (3, "cy", 30), (4, "di", 40), (7, "gil", 0)]


def test_merge_all_by_name_matches_columns_by_name(people: Any) -> None:
    """UPDATE | INSERT ALL BY NAME: the source's columns by name, in any order (the docs' example)."""
    people.execute("CREATE TABLE incoming (score INT, id INT, name VARCHAR)")
    people.execute("INSERT INTO incoming VALUES (21, 2, 'BOB'), (50, 5, 'eve')")
    people.execute(
        "MERGE INTO people USING incoming ON people.id = incoming.id "
        "WHEN MATCHED THEN UPDATE ALL BY NAME WHEN NOT MATCHED THEN INSERT ALL BY NAME"
    )
    assert people.fetchone() == (1, 1)
    rows = people.execute("SELECT id, name, score FROM people ORDER BY id").fetchall()
    assert rows == [(1, "ann", 10), (2, "BOB", 21), (3, "cy", 30), (4, "di", 40), (5, "eve", 50)]
    # A source of other columns is refused, and nothing is written.
    with pytest.raises(ProgrammingError) as narrower:
        people.execute(
            "MERGE INTO people p USING (SELECT 6 AS id, 'x' AS name) s ON p.id = s.id "
            "WHEN NOT MATCHED THEN INSERT ALL BY NAME"
        )
    assert narrower.value.errno == 2020
    with pytest.raises(ProgrammingError) as renamed:
        people.execute(
            "MERGE INTO people p USING (SELECT 6 AS id, 'x' AS name, 1 AS points) s ON p.id = s.id "
            "WHEN NOT MATCHED THEN INSERT ALL BY NAME"
        )
    assert renamed.value.errno == 904
    assert people.execute("SELECT COUNT(*) FROM people").fetchone() == (5,)


def test_merge_refuses_a_row_matched_twice(people: Any) -> None:
    people.execute("CREATE TABLE dup (id INT, name VARCHAR)")
    people.execute("INSERT INTO dup VALUES (1, 'a'), (1, 'b')")
    with pytest.raises(ProgrammingError) as err:
        people.execute(
            "MERGE INTO people USING dup ON people.id = dup.id WHEN MATCHED THEN UPDATE SET name = dup.name"
        )
    assert (err.value.errno, err.value.sqlstate) == (100090, "42P18")
    assert 'Duplicate row detected during DML action\nRow Values: [1, "ann", 10]' in err.value.msg
    assert people.execute("SELECT name FROM people WHERE id = 1").fetchone() == ("ann",)


def test_nondeterministic_merge_and_update_follow_the_session_parameters(people: Any) -> None:
    people.execute("CREATE TABLE dup (id INT, name VARCHAR)")
    people.execute("INSERT INTO dup VALUES (1, 'a'), (1, 'b'), (2, 'c')")
    merge = "MERGE INTO people USING dup ON people.id = dup.id WHEN MATCHED THEN UPDATE SET name = dup.name"
    people.execute("ALTER SESSION SET ERROR_ON_NONDETERMINISTIC_MERGE = FALSE")
    people.execute(merge)
    assert people.fetchone() == (2,)
    assert people.execute("SELECT name FROM people WHERE id <= 2 ORDER BY id").fetchall() in (
        [("a",), ("c",)],
        [("b",), ("c",)],
    )
    # UPDATE ... FROM takes one of the rows by default and counts the row as multi-joined.
    people.execute("UPDATE people SET score = LENGTH(dup.name) FROM dup WHERE people.id = dup.id")
    assert people.fetchone() == (2, 1)
    people.execute("ALTER SESSION SET ERROR_ON_NONDETERMINISTIC_UPDATE = TRUE")
    with pytest.raises(ProgrammingError) as err:
        people.execute("UPDATE people SET score = 0 FROM dup WHERE people.id = dup.id")
    assert (err.value.errno, err.value.sqlstate) == (100090, "42P18")
    assert people.execute("SELECT score FROM people WHERE id = 1").fetchone() == (1,)
    people.execute("ALTER SESSION UNSET ERROR_ON_NONDETERMINISTIC_MERGE")
    with pytest.raises(ProgrammingError) as err:
        people.execute(merge)
    assert err.value.errno == 100090


def test_merge_lets_several_source_rows_delete_one_target_row(people: Any) -> None:
    # "Multiple deletes do not conflict with each other" (Snowflake's MERGE documentation).
    people.execute("CREATE TABLE gone (id INT, reason VARCHAR)")
    people.execute("INSERT INTO gone VALUES (2, 'a'), (2, 'b'), (3, 'c')")
    people.execute("MERGE INTO people p USING gone g ON p.id = g.id WHEN MATCHED THEN DELETE")
    assert people.fetchone() == (2,)
    assert people.execute("SELECT id FROM people ORDER BY id").fetchall() == [(1,), (4,)]
    people.execute("INSERT INTO gone VALUES (1, 'x'), (1, 'y')")
    with pytest.raises(ProgrammingError) as err:  # a DELETE and an UPDATE on one row do conflict
        people.execute(
            "MERGE INTO people p USING gone g ON p.id = g.id "
            "WHEN MATCHED AND g.reason = 'x' THEN DELETE WHEN MATCHED THEN UPDATE SET score = 0"
        )
    assert err.value.errno == 100090


def test_truncate_keeps_the_table(people: Any) -> None:
    people.execute("TRUNCATE TABLE people")
    assert people.execute("SELECT COUNT(*) FROM people").fetchone() == (0,)
    people.execute("INSERT INTO people VALUES (5, 'eve', 1)")
    assert people.execute("SELECT COUNT(*) FROM people").fetchone() == (1,)


def test_one_row_update_rewrites_only_its_file(server: Server, cur: Any, database: str) -> None:
    cur.execute("CREATE TABLE big (id INT, pad VARCHAR)")
    for chunk in range(5):
        cur.execute(
            f"INSERT INTO big SELECT seq4() + {chunk * 1000}, 'x' FROM TABLE(GENERATOR(ROWCOUNT => 1000))"
        )
    table_dir = Path(server.data_dir) / "warehouse" / database.lower() / "public" / "big" / "data"
    before = set(table_dir.glob("*.parquet"))
    cur.execute("UPDATE big SET pad = 'y' WHERE id = 2500")
    assert cur.rowcount == 1
    new_files = set(table_dir.glob("*.parquet")) - before
    assert len(new_files) == 1
    # The new file holds the rows of the one file that had id 2500, not the whole table.
    assert pq.read_metadata(next(iter(new_files))).num_rows == 1000
    assert cur.execute("SELECT COUNT(*), COUNT_IF(pad = 'y') FROM big").fetchone() == (5000, 1)


def test_update_from_with_several_matches_updates_once(people: Any) -> None:
    # Snowflake picks one of the matching source rows (ERROR_ON_NONDETERMINISTIC_UPDATE = FALSE).
    people.execute("CREATE TABLE many (id INT, name VARCHAR)")
    people.execute("INSERT INTO many VALUES (1, 'x'), (1, 'y')")
    people.execute("UPDATE people SET name = many.name FROM many WHERE people.id = many.id")
    assert people.fetchone() == (1, 1)  # one row updated, and it was multi-joined
    assert people.execute("SELECT name FROM people WHERE id = 1").fetchone()[0] in ("x", "y")
    assert people.execute("SELECT COUNT(*) FROM people").fetchone() == (4,)


def test_merge_with_every_clause_rewrites_only_the_files_it_touches(
    server: Server, cur: Any, database: str
) -> None:
    cur.execute("CREATE TABLE stock (id INT, qty INT)")
    for chunk in range(5):  # five data files of 1,000 rows each
        cur.execute(
            f"INSERT INTO stock SELECT seq4() + {chunk * 1000}, 1 FROM TABLE(GENERATOR(ROWCOUNT => 1000))"
        )
    cur.execute("CREATE TABLE moves (id INT, qty INT, gone BOOLEAN)")
    cur.execute("INSERT INTO moves VALUES (500, 7, FALSE), (2500, 0, TRUE), (9999, 3, FALSE)")
    table_dir = Path(server.data_dir) / "warehouse" / database.lower() / "public" / "stock" / "data"
    before = set(table_dir.glob("*.parquet"))
    cur.execute(
        "MERGE INTO stock s USING moves m ON s.id = m.id "
        "WHEN MATCHED AND m.gone THEN DELETE "
        "WHEN MATCHED THEN UPDATE SET qty = m.qty "
        "WHEN NOT MATCHED THEN INSERT (id, qty) VALUES (m.id, m.qty)"
    )
    assert cur.fetchone() == (1, 1, 1)  # inserted, updated, deleted
    new_rows = sum(pq.read_metadata(f).num_rows for f in set(table_dir.glob("*.parquet")) - before)
    # Only the files holding ids 500 and 2500 were rewritten (999 + 1000 rows kept) plus the new row.
    assert new_rows == 2000
    assert cur.execute("SELECT COUNT(*), SUM(qty) FROM stock").fetchone() == (5000, 4999 - 1 + 7 + 3)

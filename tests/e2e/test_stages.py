"""Stage and file-format objects: CREATE / SHOW / DESCRIBE / DROP."""

from __future__ import annotations

import pytest
import snowflake.connector


def test_create_show_and_drop_stage(cur) -> None:
    assert cur.execute("CREATE STAGE st COMMENT='landing'").fetchall() == [
        ("Stage area ST successfully created.",)
    ]
    rows = cur.execute("SHOW STAGES LIKE 'S%'").fetchall()
    names = [c.name for c in cur.description]
    assert names[:5] == ["created_on", "name", "database_name", "schema_name", "url"]
    assert [(r[1], r[8], r[10]) for r in rows] == [("ST", "landing", "INTERNAL")]
    assert cur.execute("DROP STAGE st").fetchall() == [("ST successfully dropped.",)]
    assert cur.execute("SHOW STAGES").fetchall() == []


def test_create_stage_twice_fails_unless_replaced(cur) -> None:
    cur.execute("CREATE STAGE st")
    with pytest.raises(snowflake.connector.errors.ProgrammingError) as e:
        cur.execute("CREATE STAGE st")
    assert e.value.errno == 2002
    cur.execute("CREATE OR REPLACE STAGE st")
    cur.execute("CREATE STAGE IF NOT EXISTS st")
    assert len(cur.execute("SHOW STAGES").fetchall()) == 1


def test_missing_stage_is_an_error(cur) -> None:
    with pytest.raises(snowflake.connector.errors.ProgrammingError) as e:
        cur.execute("LIST @nope")
    assert e.value.errno == 2003


def test_external_file_stage(cur, tmp_path) -> None:
    (tmp_path / "ext.csv").write_text("7,seven\n")
    cur.execute(f"CREATE STAGE ext URL='file://{tmp_path}/' FILE_FORMAT=(TYPE=CSV)")
    rows = cur.execute("SHOW STAGES").fetchall()
    assert rows[0][10] == "EXTERNAL"
    assert [r[0] for r in cur.execute("LIST @ext").fetchall()] == [f"file://{tmp_path}/ext.csv"]
    cur.execute("CREATE TABLE t (id INT, name VARCHAR)")
    cur.execute("COPY INTO t FROM @ext")
    assert cur.execute("SELECT * FROM t").fetchall() == [(7, "seven")]


def test_file_format_lifecycle(cur) -> None:
    created = cur.execute("CREATE FILE FORMAT ff TYPE=CSV FIELD_DELIMITER='|' SKIP_HEADER=1").fetchall()
    assert created == [("File format FF successfully created.",)]
    rows = cur.execute("SHOW FILE FORMATS").fetchall()
    assert [(r[1], r[4]) for r in rows] == [("FF", "CSV")]
    cur.execute("ALTER FILE FORMAT ff SET SKIP_HEADER=2")
    props = {r[0]: r[2] for r in cur.execute("DESCRIBE FILE FORMAT ff").fetchall()}
    assert props["FIELD_DELIMITER"] == "|"
    assert props["SKIP_HEADER"] == "2"
    cur.execute("DROP FILE FORMAT ff")
    assert cur.execute("SHOW FILE FORMATS").fetchall() == []

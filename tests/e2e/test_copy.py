"""COPY INTO <table>: ON_ERROR, load history, FORCE, PURGE, transformations, JSON and Parquet."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import snowflake.connector
import sqlalchemy as sa

from embucket_py import naming
from tests.e2e.conftest import Server

RESULT_COLUMNS = [
    "file", "status", "rows_parsed", "rows_loaded", "error_limit", "errors_seen", "first_error",
    "first_error_line", "first_error_character", "first_error_column_name",
]  # fmt: skip
BAD_CSV = "id,name,amount\n1,apple,1.5\n2,pear,x\n3,plum,2.25\n"


@pytest.fixture
def staged(cur, tmp_path: Path):
    (tmp_path / "bad.csv").write_text(BAD_CSV)
    (tmp_path / "good.csv").write_text("id,name,amount\n10,fig,3\n")
    cur.execute("CREATE STAGE st FILE_FORMAT=(TYPE=CSV SKIP_HEADER=1)")
    cur.execute(f"PUT file://{tmp_path}/*.csv @st AUTO_COMPRESS=FALSE")
    cur.execute("CREATE TABLE t (id INT, name VARCHAR, amount NUMBER(10, 2))")
    cur.execute("INSERT INTO t VALUES (0, 'before', 0)")
    return cur


def test_on_error_continue_loads_good_rows_and_reports_bad_ones(staged) -> None:
    rows = staged.execute("COPY INTO t FROM @st FILES=('bad.csv') ON_ERROR=CONTINUE").fetchall()
    assert [c.name for c in staged.description] == RESULT_COLUMNS
    assert rows == [
        ("st/bad.csv", "PARTIALLY_LOADED", 3, 2, 3, 1, "Numeric value 'x' is not recognized", 3, 8,
         '"T"["AMOUNT":3]'),
    ]  # fmt: skip
    got = staged.execute("SELECT id, name, amount FROM t ORDER BY id").fetchall()
    assert [(r[0], r[1]) for r in got] == [(0, "before"), (1, "apple"), (3, "plum")]


def test_on_error_abort_statement_loads_nothing(staged) -> None:
    with pytest.raises(snowflake.connector.errors.ProgrammingError) as e:
        staged.execute("COPY INTO t FROM @st ON_ERROR=ABORT_STATEMENT")
    assert e.value.errno == 100038
    assert "Numeric value 'x' is not recognized" in e.value.msg
    assert staged.execute("SELECT COUNT(*) FROM t").fetchall() == [(1,)]


def test_skip_file_skips_the_bad_file_only(staged) -> None:
    rows = staged.execute("COPY INTO t FROM @st ON_ERROR=SKIP_FILE").fetchall()
    assert sorted((r[0], r[1], r[3]) for r in rows) == [
        ("st/bad.csv", "LOAD_FAILED", 0), ("st/good.csv", "LOADED", 1)
    ]  # fmt: skip
    assert staged.execute("SELECT COUNT(*) FROM t").fetchall() == [(2,)]


def test_rerun_skips_loaded_files_unless_force(staged) -> None:
    first = staged.execute("COPY INTO t FROM @st FILES=('good.csv')").fetchall()
    assert first[0][:4] == ("st/good.csv", "LOADED", 1, 1)
    again = staged.execute("COPY INTO t FROM @st FILES=('good.csv')").fetchall()
    assert again == [("Copy executed with 0 files processed.",)]
    staged.execute("COPY INTO t FROM @st FILES=('good.csv') FORCE=TRUE")
    assert staged.execute("SELECT COUNT(*) FROM t WHERE id = 10").fetchall() == [(2,)]


def test_load_history_view_keeps_what_copy_answered(staged, server: Server, database: str) -> None:
    staged.execute("COPY INTO t FROM @st ON_ERROR=SKIP_FILE")
    history = """
        SELECT schema_name, table_name, file_name, status, row_count, row_parsed, error_count, error_limit,
               first_error_message, first_error_line_number, first_error_character_position,
               first_error_col_name, last_load_time IS NOT NULL
        FROM information_schema.load_history ORDER BY file_name"""
    assert staged.execute(history).fetchall() == [
        ("PUBLIC", "T", "st/bad.csv", "LOAD_FAILED", 0, 3, 1, 1, "Numeric value 'x' is not recognized", 3, 8,
         '"T"["AMOUNT":3]', True),
        ("PUBLIC", "T", "st/good.csv", "LOADED", 1, 1, 0, 1, None, None, None, None, True),
    ]  # fmt: skip
    # A failed file is loaded again by the next COPY, and its record replaced.
    again = staged.execute("COPY INTO t FROM @st ON_ERROR=CONTINUE").fetchall()
    assert [(r[0], r[1]) for r in again] == [("st/bad.csv", "PARTIALLY_LOADED")]
    assert [r[2:5] for r in staged.execute(history).fetchall()] == [
        ("st/bad.csv", "PARTIALLY_LOADED", 2), ("st/good.csv", "LOADED", 1)
    ]  # fmt: skip
    # The view shows the last 14 days, as on Snowflake.
    metastore = sa.create_engine(f"sqlite:///{server.data_dir / 'metastore.db'}")
    key = ".".join(naming.stored(p) for p in (database, "PUBLIC", "T"))
    aged = "UPDATE embucket_load_history SET loaded_on = :at WHERE table_key = :key AND file_name = :file"
    at = datetime.now(UTC).replace(tzinfo=None) - timedelta(days=15)  # stored naive, in UTC
    with metastore.begin() as conn:
        conn.execute(sa.text(aged), {"at": at, "key": key, "file": "st/good.csv"})
    metastore.dispose()
    assert [r[2] for r in staged.execute(history).fetchall()] == ["st/bad.csv"]
    # A dropped table's history goes with it.
    staged.execute("DROP TABLE t")
    assert staged.execute(history).fetchall() == []


def test_a_table_made_anew_loads_the_files_again(staged) -> None:
    staged.execute("COPY INTO t FROM @st FILES=('good.csv')")
    staged.execute("CREATE OR REPLACE TABLE t (id INT, name VARCHAR, amount NUMBER(10, 2))")
    again = staged.execute("COPY INTO t FROM @st FILES=('good.csv')").fetchall()
    assert again[0][:2] == ("st/good.csv", "LOADED")
    history = "SELECT file_name, row_count FROM information_schema.load_history"
    assert staged.execute(history).fetchall() == [("st/good.csv", 1)]  # the new table's load only
    staged.execute("DROP TABLE t")
    staged.execute("CREATE TABLE t (id INT, name VARCHAR, amount NUMBER(10, 2))")
    assert staged.execute(history).fetchall() == []
    staged.execute("COPY INTO t FROM @st FILES=('good.csv')")
    assert staged.execute("SELECT id FROM t").fetchall() == [(10,)]
    # The same table keeps its history: a second COPY skips the file.
    skipped = staged.execute("COPY INTO t FROM @st FILES=('good.csv')").fetchall()
    assert skipped == [("Copy executed with 0 files processed.",)]


def test_purge_removes_loaded_files(staged) -> None:
    staged.execute("COPY INTO t FROM @st FILES=('good.csv') PURGE=TRUE")
    assert [r[0] for r in staged.execute("LIST @st").fetchall()] == ["st/bad.csv"]


def test_transformation_selects_and_reorders_fields(staged) -> None:
    staged.execute("CREATE TABLE n (name VARCHAR, id INT)")
    staged.execute("COPY INTO n FROM (SELECT $2, $1 FROM @st) FILES=('good.csv')")
    assert staged.execute("SELECT * FROM n").fetchall() == [("fig", 10)]


def test_pattern_and_inline_format(cur, tmp_path: Path) -> None:
    (tmp_path / "p1.txt").write_text("1|x\n")
    (tmp_path / "p2.txt").write_text("2|y\n")
    (tmp_path / "other.dat").write_text("3|z\n")
    cur.execute(f"PUT file://{tmp_path}/* @~/pat/")
    cur.execute("CREATE TABLE p (id INT, v VARCHAR)")
    cur.execute(
        "COPY INTO p FROM @~/pat/ PATTERN='.*p[0-9][.]txt.*' FILE_FORMAT=(TYPE=CSV FIELD_DELIMITER='|')"
    )
    assert cur.execute("SELECT * FROM p ORDER BY id").fetchall() == [(1, "x"), (2, "y")]
    cur.execute("REMOVE @~/pat/")


def test_json_into_variant_and_by_column_name(cur, tmp_path: Path) -> None:
    (tmp_path / "rows.json").write_text(json.dumps([{"ID": 1, "NAME": "a"}, {"ID": 2, "NAME": "b"}]))
    cur.execute(f"PUT file://{tmp_path}/rows.json @~/js/")
    cur.execute("CREATE TABLE v (doc VARIANT)")
    cur.execute("COPY INTO v FROM @~/js/ FILE_FORMAT=(TYPE=JSON STRIP_OUTER_ARRAY=TRUE)")
    assert cur.execute("SELECT COUNT(*) FROM v").fetchall() == [(2,)]
    cur.execute("CREATE TABLE c (name VARCHAR, id INT)")
    cur.execute(
        "COPY INTO c FROM @~/js/ FILE_FORMAT=(TYPE=JSON STRIP_OUTER_ARRAY=TRUE) "
        "MATCH_BY_COLUMN_NAME=CASE_INSENSITIVE"
    )
    assert cur.execute("SELECT * FROM c ORDER BY id").fetchall() == [("a", 1), ("b", 2)]
    cur.execute("REMOVE @~/js/")


def test_query_staged_files_with_metadata(cur, tmp_path: Path) -> None:
    (tmp_path / "q.csv").write_text("1,one\n2,two\n")
    cur.execute(f"PUT file://{tmp_path}/q.csv @~/q/ AUTO_COMPRESS=FALSE")
    rows = cur.execute(
        "SELECT $2, $1, METADATA$FILENAME, METADATA$FILE_ROW_NUMBER FROM @~/q/ ORDER BY 4"
    ).fetchall()
    assert rows == [("one", "1", "q/q.csv", 1), ("two", "2", "q/q.csv", 2)]
    # Columns are named after the text written; `*` is the file's columns only.
    assert [d.name for d in cur.description] == ["$2", "$1", "METADATA$FILENAME", "METADATA$FILE_ROW_NUMBER"]
    cur.execute("SELECT UPPER(t.$2), $1::INT + 1 FROM @~/q/ t ORDER BY 2")
    assert [d.name for d in cur.description] == ["UPPER(T.$2)", "$1::INT + 1"]
    assert cur.fetchall() == [("ONE", 2), ("TWO", 3)]
    cur.execute("SELECT * FROM @~/q/")
    assert len(cur.description) == 2
    cur.execute("REMOVE @~/q/")


def test_query_staged_files_by_alias_with_named_format(cur, tmp_path: Path) -> None:
    """The documented form `SELECT t.$1, t.$2 FROM @stage (FILE_FORMAT => 'f') t`."""
    (tmp_path / "h.csv").write_text("id,name\n1,one\n2,two\n")
    cur.execute(f"PUT file://{tmp_path}/h.csv @~/h/ AUTO_COMPRESS=FALSE")
    cur.execute("CREATE FILE FORMAT skip_one TYPE=CSV SKIP_HEADER=1")
    rows = cur.execute("SELECT t.$1, t.$2 FROM @~/h/ (FILE_FORMAT => 'skip_one') t ORDER BY 1").fetchall()
    assert rows == [("1", "one"), ("2", "two")]
    assert [d.name for d in cur.description] == ["$1", "$2"]
    rows = cur.execute("SELECT s.$2 AS name FROM @~/h/ (FILE_FORMAT => 'skip_one') AS s WHERE s.$1 = '2'")
    assert rows.fetchall() == [("two",)] and cur.description[0].name == "NAME"
    cur.execute("CREATE TABLE h (id INT, name VARCHAR)")
    copy = "COPY INTO h FROM (SELECT t.$1, UPPER(t.$2) FROM @~/h/ t) FILE_FORMAT=(FORMAT_NAME='skip_one')"
    cur.execute(copy)
    assert cur.execute("SELECT * FROM h ORDER BY id").fetchall() == [(1, "ONE"), (2, "TWO")]
    cur.execute("REMOVE @~/h/")


def test_stage_file_format_applies_to_queries(staged) -> None:
    assert staged.execute("SELECT $1, $2 FROM @st/good.csv").fetchall() == [("10", "fig")]


def test_validation_mode_returns_errors_and_loads_nothing(staged) -> None:
    rows = staged.execute("COPY INTO t FROM @st FILES=('bad.csv') VALIDATION_MODE=RETURN_ERRORS").fetchall()
    assert [c.name for c in staged.description][:3] == ["ERROR", "FILE", "LINE"]
    assert [(r[0], r[1], r[2]) for r in rows] == [("Numeric value 'x' is not recognized", "st/bad.csv", 3)]
    assert staged.execute("SELECT COUNT(*) FROM t").fetchall() == [(1,)]


def test_validation_mode_returns_rows(staged) -> None:
    rows = staged.execute("COPY INTO t FROM @st FILES=('good.csv') VALIDATION_MODE=RETURN_1_ROWS").fetchall()
    assert [c.name for c in staged.description] == ["ID", "NAME", "AMOUNT"]
    assert [(r[0], r[1]) for r in rows] == [(10, "fig")]
    assert staged.execute("SELECT COUNT(*) FROM t").fetchall() == [(1,)]


def test_cli_load_runs_the_same_copy(server, database, cur, tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text("1,x\n2,y\n")
    (tmp_path / "b.csv").write_text("3,z\n")
    cur.execute("CREATE TABLE cli (id INT, v VARCHAR)")
    python = os.environ.get("EMBUCKET_SERVER_PYTHON", sys.executable)
    command = [python, "-m", "embucket_py", "load", f"{tmp_path}/*.csv", "cli", "--quiet"]
    command += [
        "--data-dir",
        str(server.data_dir),
        "--default-database",
        database,
        "--default-schema",
        "PUBLIC",
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert [line.split("\t")[1:4] for line in done.stdout.splitlines()] == [
        ["LOADED", "2", "2"], ["LOADED", "1", "1"]
    ]  # fmt: skip
    assert cur.execute("SELECT * FROM cli ORDER BY id").fetchall() == [(1, "x"), (2, "y"), (3, "z")]
    again = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert again.stdout.strip() == "Copy executed with 0 files processed."


def test_copy_inside_a_rolled_back_transaction_loads_nothing(staged) -> None:
    staged.execute("BEGIN")
    staged.execute("COPY INTO t FROM @st FILES=('good.csv')")
    assert staged.execute("SELECT COUNT(*) FROM t").fetchall() == [(2,)]
    staged.execute("ROLLBACK")
    assert staged.execute("SELECT COUNT(*) FROM t").fetchall() == [(1,)]
    rerun = staged.execute("COPY INTO t FROM @st FILES=('good.csv')").fetchall()
    assert rerun[0][:2] == ("st/good.csv", "LOADED")


SKIPPED = [("Copy executed with 0 files processed.",)]


def test_copy_inside_a_committed_transaction_is_remembered(staged) -> None:
    # Within the transaction a file it loaded is skipped; once committed, its load history stays.
    history = "SELECT file_name, status FROM information_schema.load_history"
    staged.execute("BEGIN")
    staged.execute("COPY INTO t FROM @st FILES=('good.csv')")
    assert staged.execute("COPY INTO t FROM @st FILES=('good.csv')").fetchall() == SKIPPED
    assert staged.execute(history).fetchall() == []  # not before it commits
    staged.execute("COMMIT")
    assert staged.execute(history).fetchall() == [("st/good.csv", "LOADED")]
    assert staged.execute("COPY INTO t FROM @st FILES=('good.csv')").fetchall() == SKIPPED
    assert staged.execute("SELECT COUNT(*) FROM t WHERE id = 10").fetchall() == [(1,)]


def test_copy_under_autocommit_off_is_remembered_once_committed(staged) -> None:
    staged.execute("ALTER SESSION SET AUTOCOMMIT = FALSE")
    staged.execute("COPY INTO t FROM @st FILES=('good.csv')")
    staged.execute("ROLLBACK")
    loaded = staged.execute("COPY INTO t FROM @st FILES=('good.csv')").fetchall()
    assert loaded[0][:2] == ("st/good.csv", "LOADED")
    staged.execute("COMMIT")
    assert staged.execute("COPY INTO t FROM @st FILES=('good.csv')").fetchall() == SKIPPED
    assert staged.execute("SELECT COUNT(*) FROM t WHERE id = 10").fetchall() == [(1,)]


def test_unimplemented_options_are_refused_not_ignored(staged) -> None:
    with pytest.raises(snowflake.connector.errors.ProgrammingError) as e:
        staged.execute("COPY INTO t FROM @st LOAD_UNCERTAIN_FILES=TRUE")
    assert "LOAD_UNCERTAIN_FILES" in e.value.msg
    with pytest.raises(snowflake.connector.errors.ProgrammingError) as e:
        staged.execute("COPY INTO t FROM @st FILE_FORMAT=(TYPE=CSV ENCODING='KLINGON-8')")
    assert "KLINGON-8" in e.value.msg


@pytest.mark.parametrize("option", ["TRUNCATECOLUMNS = TRUE", "ENFORCE_LENGTH = FALSE"])
def test_truncatecolumns_cuts_text_to_the_column_length(cur, tmp_path: Path, option: str) -> None:
    """https://docs.snowflake.com/en/sql-reference/sql/copy-into-table#copy-options-copyoptions:
    without it a longer string fails its row (100074 under ABORT_STATEMENT)."""
    (tmp_path / "names.csv").write_text("1,abcdefgh\n2,héllo wörld\n3,ok\n")
    cur.execute("CREATE TABLE short (id INT, name VARCHAR(5))")
    cur.execute(f"PUT file://{tmp_path}/names.csv @%short AUTO_COMPRESS=FALSE")
    with pytest.raises(snowflake.connector.errors.ProgrammingError) as e:
        cur.execute("COPY INTO short FROM @%short")
    assert "User character length limit (5) exceeded by string 'abcdefgh'" in e.value.msg
    rows = cur.execute(f"COPY INTO short FROM @%short {option}").fetchall()
    assert rows[0][1:4] == ("LOADED", 3, 3)
    assert cur.execute("SELECT * FROM short ORDER BY id").fetchall() == [
        (1, "abcde"),
        (2, "héllo"),
        (3, "ok"),
    ]


@pytest.mark.parametrize(
    ("encoding", "codec"), [("ISO-8859-1", "latin-1"), ("WINDOWS-1252", "cp1252"), ("UTF-16", "utf-16")]
)
def test_csv_in_another_encoding_loads_as_text(cur, tmp_path: Path, encoding: str, codec: str) -> None:
    """ENCODING: the file's bytes are read in that character set, its header too (PARSE_HEADER
    with MATCH_BY_COLUMN_NAME), also when staged files are queried."""
    (tmp_path / "cities.csv").write_bytes("City,Price\nZürich,5\nSão Paulo,7\nCittà,9\n".encode(codec))
    cur.execute("CREATE TABLE cities (city VARCHAR, price INT)")
    cur.execute(f"PUT file://{tmp_path}/cities.csv @%cities AUTO_COMPRESS=FALSE")
    fmt = f"TYPE = CSV ENCODING = '{encoding}'"
    cur.execute(f"COPY INTO cities FROM @%cities FILE_FORMAT = ({fmt} SKIP_HEADER = 1)")
    expected = [("Città", 9), ("São Paulo", 7), ("Zürich", 5)]
    assert cur.execute("SELECT * FROM cities ORDER BY city").fetchall() == expected
    cur.execute("TRUNCATE TABLE cities")
    by_name = "MATCH_BY_COLUMN_NAME = CASE_INSENSITIVE FORCE = TRUE"
    cur.execute(f"COPY INTO cities FROM @%cities FILE_FORMAT = ({fmt} PARSE_HEADER = TRUE) {by_name}")
    assert cur.execute("SELECT * FROM cities ORDER BY city").fetchall() == expected
    cur.execute(f"CREATE FILE FORMAT other_text {fmt} SKIP_HEADER = 1")
    query = "SELECT $1 FROM @%cities (FILE_FORMAT => 'other_text') ORDER BY 1"
    assert cur.execute(query).fetchall() == [("Città",), ("São Paulo",), ("Zürich",)]

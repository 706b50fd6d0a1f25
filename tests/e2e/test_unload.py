"""COPY INTO <location>: unload to Parquet and CSV, then load back the same rows."""

from __future__ import annotations

import pytest


@pytest.fixture
def source(cur):
    cur.execute("CREATE TABLE src (id INT, name VARCHAR, amount NUMBER(10, 2), day DATE)")
    cur.execute(
        "INSERT INTO src VALUES (1, 'a', 1.50, '2024-01-02'), (2, NULL, 2.25, NULL), "
        "(3, 'c', NULL, '2024-03-04')"
    )
    cur.execute("CREATE STAGE st")
    return cur


def test_unload_parquet_and_reload_gives_identical_rows(source) -> None:
    result = source.execute("COPY INTO @st/out/ FROM src FILE_FORMAT=(TYPE=PARQUET)").fetchall()
    assert [c.name for c in source.description] == ["rows_unloaded", "input_bytes", "output_bytes"]
    assert result[0][0] == 3
    assert [r[0] for r in source.execute("LIST @st/out/").fetchall()] == ["st/out/data_0_0_0.snappy.parquet"]
    source.execute("CREATE TABLE dst (id INT, name VARCHAR, amount NUMBER(10, 2), day DATE)")
    source.execute(
        "COPY INTO dst FROM @st/out/ FILE_FORMAT=(TYPE=PARQUET) MATCH_BY_COLUMN_NAME=CASE_INSENSITIVE"
    )
    original = source.execute("SELECT * FROM src ORDER BY id").fetchall()
    assert source.execute("SELECT * FROM dst ORDER BY id").fetchall() == original


def test_unload_csv_single_file_with_header_and_reload(source) -> None:
    source.execute(
        "COPY INTO @st/one.csv FROM (SELECT * FROM src ORDER BY id) "
        "FILE_FORMAT=(TYPE=CSV COMPRESSION=NONE) SINGLE=TRUE HEADER=TRUE"
    )
    assert [r[0] for r in source.execute("LIST @st").fetchall()] == ["st/one.csv"]
    assert source.execute("SELECT $1 FROM @st/one.csv").fetchall()[0] == ("ID",)
    source.execute("CREATE TABLE dst (id INT, name VARCHAR, amount NUMBER(10, 2), day DATE)")
    source.execute("COPY INTO dst FROM @st/one.csv FILE_FORMAT=(TYPE=CSV SKIP_HEADER=1)")
    original = source.execute("SELECT * FROM src ORDER BY id").fetchall()
    assert source.execute("SELECT * FROM dst ORDER BY id").fetchall() == original


def test_unload_overwrite_and_partition_by(source) -> None:
    source.execute("COPY INTO @st/p/ FROM src FILE_FORMAT=(TYPE=CSV) PARTITION BY (id)")
    names = sorted(r[0] for r in source.execute("LIST @st/p/").fetchall())
    assert [n.split("/")[2] for n in names] == ["1", "2", "3"]
    source.execute("COPY INTO @st/p/ FROM (SELECT 1 AS x) FILE_FORMAT=(TYPE=CSV) OVERWRITE=TRUE")
    assert len(source.execute("LIST @st/p/").fetchall()) == 1


def test_max_file_size_splits_the_output(cur) -> None:
    cur.execute(
        "CREATE TABLE big AS SELECT SEQ4() AS id, 'row-' || SEQ4() AS name "
        "FROM TABLE(GENERATOR(ROWCOUNT => 20000))"
    )
    cur.execute("CREATE STAGE st")
    cur.execute("COPY INTO @st/split/ FROM big FILE_FORMAT=(TYPE=CSV COMPRESSION=NONE) MAX_FILE_SIZE=50000")
    files = cur.execute("LIST @st/split/").fetchall()
    assert len(files) > 1
    # Each file stops near the limit, however many rows the engine's batches hold.
    assert all(size <= 50000 * 1.25 for _, size, *_ in files)
    cur.execute("CREATE TABLE back (id INT, name VARCHAR)")
    cur.execute("COPY INTO back FROM @st/split/")
    assert cur.execute("SELECT COUNT(*), COUNT(DISTINCT id) FROM back").fetchall() == [(20000, 20000)]


def test_json_unload_of_a_variant_column_reloads(cur, tmp_path) -> None:
    (tmp_path / "docs.json").write_text('{"a": 1}\n{"a": 2, "b": [1, 2]}\n')
    cur.execute("CREATE STAGE st")
    cur.execute(f"PUT file://{tmp_path}/docs.json @st/in/")
    cur.execute("CREATE TABLE v (doc VARIANT)")
    cur.execute("COPY INTO v FROM @st/in/ FILE_FORMAT=(TYPE=JSON)")
    cur.execute("COPY INTO @st/out/ FROM v FILE_FORMAT=(TYPE=JSON)")
    cur.execute("CREATE TABLE w (doc VARIANT)")
    cur.execute("COPY INTO w FROM @st/out/ FILE_FORMAT=(TYPE=JSON)")
    assert cur.execute("SELECT COUNT(*) FROM w").fetchall() == [(2,)]
    assert cur.execute("SELECT doc:a::INT FROM w ORDER BY 1").fetchall() == [(1,), (2,)]

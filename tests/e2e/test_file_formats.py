"""CSV / JSON / Parquet / ORC format options as COPY applies them (named and inline formats)."""

from __future__ import annotations

import datetime
import gzip
import json
from decimal import Decimal
from pathlib import Path

import pytest
import snowflake.connector


@pytest.fixture
def put(cur, tmp_path: Path):
    cur.execute("CREATE STAGE st")

    def upload(name: str, data: bytes) -> None:
        (tmp_path / name).write_bytes(data)
        cur.execute(f"PUT file://{tmp_path}/{name} @st AUTO_COMPRESS=FALSE")

    return upload


def test_enclosed_fields_null_if_and_empty_fields(cur, put) -> None:
    put("q.csv", b'1,"a, quoted",NULL\n2,"",\n3,  x  ,\\N\n')
    cur.execute(
        "CREATE FILE FORMAT f TYPE=CSV FIELD_OPTIONALLY_ENCLOSED_BY='\"' "
        "NULL_IF=('NULL', '\\\\N') TRIM_SPACE=TRUE"
    )
    cur.execute("CREATE TABLE t (id INT, a VARCHAR, b VARCHAR)")
    cur.execute("COPY INTO t FROM @st FILES=('q.csv') FILE_FORMAT=(FORMAT_NAME='f')")
    assert cur.execute("SELECT * FROM t ORDER BY id").fetchall() == [
        (1, "a, quoted", None), (2, "", None), (3, "x", None)
    ]  # fmt: skip


def test_delimiter_skip_header_and_date_format(cur, put) -> None:
    put("d.psv", b"id|day\n1|03/02/2024\n2|31/12/2023\n")
    cur.execute("CREATE TABLE t (id INT, day DATE)")
    cur.execute(
        "COPY INTO t FROM @st FILES=('d.psv') "
        "FILE_FORMAT=(TYPE=CSV FIELD_DELIMITER='|' SKIP_HEADER=1 DATE_FORMAT='DD/MM/YYYY')"
    )
    got = cur.execute("SELECT id, TO_VARCHAR(day) FROM t ORDER BY id").fetchall()
    assert got == [(1, "2024-02-03"), (2, "2023-12-31")]


def test_gzip_compressed_file_is_read_by_extension(cur, put) -> None:
    put("z.csv.gz", gzip.compress(b"5,five\n6,six\n"))
    cur.execute("CREATE TABLE t (id INT, name VARCHAR)")
    rows = cur.execute("COPY INTO t FROM @st FILE_FORMAT=(TYPE=CSV COMPRESSION=AUTO)").fetchall()
    assert rows[0][:4] == ("st/z.csv.gz", "LOADED", 2, 2)


def test_parse_header_matches_columns_by_name(cur, put) -> None:
    put("h.csv", b"NAME,ID\nann,1\nbob,2\n")
    cur.execute("CREATE TABLE t (id INT, name VARCHAR)")
    cur.execute(
        "COPY INTO t FROM @st FILES=('h.csv') FILE_FORMAT=(TYPE=CSV PARSE_HEADER=TRUE) "
        "MATCH_BY_COLUMN_NAME=CASE_INSENSITIVE"
    )
    assert cur.execute("SELECT * FROM t ORDER BY id").fetchall() == [(1, "ann"), (2, "bob")]


def test_objects_and_arrays_matched_by_name_load_into_semi_structured_columns(cur, put) -> None:
    put(
        "n.json",
        b'{"id": 1, "tags": ["x", "y"], "nested": {"k": 1}}\n{"id": 2, "tags": [], "nested": null}\n',
    )
    cur.execute("CREATE TABLE t (id INT, tags ARRAY, nested OBJECT)")
    cur.execute(
        "COPY INTO t FROM @st FILES=('n.json') FILE_FORMAT=(TYPE=JSON) MATCH_BY_COLUMN_NAME=CASE_INSENSITIVE"
    )
    rows = cur.execute(
        "SELECT id, tags[1]::VARCHAR, ARRAY_SIZE(tags), nested:k::INT FROM t ORDER BY id"
    ).fetchall()
    assert rows == [(1, "y", 2, 1), (2, None, 0, None)]


def test_column_count_mismatch_is_an_error(cur, put) -> None:
    put("m.csv", b"1,a\n2\n")
    cur.execute("CREATE TABLE t (id INT, name VARCHAR)")
    rows = cur.execute("COPY INTO t FROM @st FILES=('m.csv') ON_ERROR=CONTINUE").fetchall()
    assert rows[0][1:6] == ("PARTIALLY_LOADED", 2, 1, 2, 1)
    assert rows[0][6].startswith(
        "Number of columns in file (1) does not match that of the corresponding table (2)"
    )
    assert rows[0][7] == 2


def test_ndjson_into_variant_and_path_transformation(cur, put) -> None:
    put("r.json", b'{"id": 1, "tags": {"k": "x"}}\n{"id": 2, "tags": {"k": "y"}}\n')
    cur.execute("CREATE TABLE t (id INT, k VARCHAR)")
    cur.execute(
        "COPY INTO t FROM (SELECT $1:id, $1:tags.k FROM @st) FILES=('r.json') FILE_FORMAT=(TYPE=JSON)"
    )
    assert cur.execute("SELECT * FROM t ORDER BY id").fetchall() == [(1, "x"), (2, "y")]


def test_json_strip_outer_array_into_variant(cur, put) -> None:
    put("a.json", json.dumps([{"v": 1}, {"v": 2}, {"v": 3}]).encode())
    cur.execute("CREATE TABLE t (doc VARIANT)")
    rows = cur.execute("COPY INTO t FROM @st FILES=('a.json') FILE_FORMAT=(TYPE=JSON STRIP_OUTER_ARRAY=TRUE)")
    assert rows.fetchall()[0][3] == 3


def test_infer_schema_of_staged_parquet(cur) -> None:
    cur.execute("CREATE TABLE src (id INT, name VARCHAR, amount FLOAT)")
    cur.execute("INSERT INTO src VALUES (1, 'a', 1.5)")
    cur.execute("CREATE STAGE st")
    cur.execute("COPY INTO @st/p/ FROM src FILE_FORMAT=(TYPE=PARQUET)")
    cur.execute("CREATE FILE FORMAT pq TYPE=PARQUET")
    rows = cur.execute(
        "SELECT COLUMN_NAME, TYPE FROM TABLE(INFER_SCHEMA(LOCATION => '@st/p/', FILE_FORMAT => 'pq'))"
    ).fetchall()
    assert rows == [("ID", "NUMBER(38, 0)"), ("NAME", "TEXT"), ("AMOUNT", "FLOAT")]


def test_infer_schema_of_csv_types_columns_by_their_values(cur, put) -> None:
    put(
        "h.csv",
        b"id,name,amount,day,ok,at\n1,a,1.5,2024-01-01,true,2024-01-01 10:00:00\n"
        b"22,,-12.25,2024-02-29,FALSE,\n",
    )
    cur.execute("CREATE FILE FORMAT hdr TYPE=CSV PARSE_HEADER=TRUE")
    rows = cur.execute(
        "SELECT COLUMN_NAME, TYPE, EXPRESSION "
        "FROM TABLE(INFER_SCHEMA(LOCATION => '@st/h.csv', FILE_FORMAT => 'hdr'))"
    ).fetchall()
    assert rows == [
        ("id", "NUMBER(2, 0)", "$1::NUMBER(2, 0)"),
        ("name", "TEXT", "$2::TEXT"),
        ("amount", "NUMBER(4, 2)", "$3::NUMBER(4, 2)"),
        ("day", "DATE", "$4::DATE"),
        ("ok", "BOOLEAN", "$5::BOOLEAN"),
        ("at", "TIMESTAMP_NTZ(9)", "$6::TIMESTAMP_NTZ(9)"),
    ]
    cur.execute(
        "CREATE TABLE typed USING TEMPLATE (SELECT ARRAY_AGG(OBJECT_CONSTRUCT(*)) "
        "FROM TABLE(INFER_SCHEMA(LOCATION => '@st/h.csv', FILE_FORMAT => 'hdr')))"
    )
    cur.execute(
        "COPY INTO typed FROM @st/h.csv FILE_FORMAT=(FORMAT_NAME='hdr') MATCH_BY_COLUMN_NAME=CASE_INSENSITIVE"
    )
    assert cur.execute('SELECT "id", "amount", "day", "ok" FROM typed ORDER BY 1').fetchall() == [
        (1, Decimal("1.50"), datetime.date(2024, 1, 1), True),
        (22, Decimal("-12.25"), datetime.date(2024, 2, 29), False),
    ]


def test_column_count_mismatch_can_be_allowed(cur, put) -> None:
    put("n.csv", b"1,a\n2\n3,c,extra\n")
    cur.execute("CREATE TABLE t (id INT, name VARCHAR)")
    rows = cur.execute(
        "COPY INTO t FROM @st FILES=('n.csv') FILE_FORMAT=(TYPE=CSV ERROR_ON_COLUMN_COUNT_MISMATCH=FALSE)"
    ).fetchall()
    assert rows[0][1:4] == ("LOADED", 3, 3)
    assert cur.execute("SELECT * FROM t ORDER BY id").fetchall() == [(1, "a"), (2, None), (3, "c")]


def test_default_null_if_reads_backslash_n_as_null(cur, put) -> None:
    put("b.csv", b"1,\\N\n2,x\n")
    cur.execute("CREATE TABLE t (id INT, name VARCHAR)")
    cur.execute("COPY INTO t FROM @st FILES=('b.csv')")
    assert cur.execute("SELECT * FROM t ORDER BY id").fetchall() == [(1, None), (2, "x")]


def test_create_table_using_template_then_load(cur) -> None:
    cur.execute("CREATE TABLE src (id INT, name VARCHAR)")
    cur.execute("INSERT INTO src VALUES (1, 'a'), (2, 'b')")
    cur.execute("CREATE STAGE st")
    cur.execute("COPY INTO @st/p/ FROM src FILE_FORMAT=(TYPE=PARQUET)")
    cur.execute("CREATE FILE FORMAT pq TYPE=PARQUET")
    cur.execute(
        "CREATE TABLE copied USING TEMPLATE (SELECT ARRAY_AGG(OBJECT_CONSTRUCT(*)) "
        "FROM TABLE(INFER_SCHEMA(LOCATION => '@st/p/', FILE_FORMAT => 'pq')))"
    )
    columns = [(r[0], r[1]) for r in cur.execute("DESCRIBE TABLE copied").fetchall()]
    assert columns == [("ID", "NUMBER(38,0)"), ("NAME", "VARCHAR(16777216)")]
    cur.execute(
        "COPY INTO copied FROM @st/p/ FILE_FORMAT=(FORMAT_NAME='pq') MATCH_BY_COLUMN_NAME=CASE_SENSITIVE"
    )
    assert cur.execute("SELECT * FROM copied ORDER BY id").fetchall() == [(1, "a"), (2, "b")]


def test_named_format_in_a_staged_query_reads_json_records(cur, put) -> None:
    put("r.json", b'{"x": 1}\n{"x": 2}\n')
    cur.execute("CREATE FILE FORMAT jf TYPE=JSON")
    rows = cur.execute("SELECT $1:x::INT FROM @st/r.json (FILE_FORMAT => 'jf') ORDER BY 1").fetchall()
    assert rows == [(1,), (2,)]
    with pytest.raises(snowflake.connector.errors.ProgrammingError) as e:
        cur.execute("SELECT $1 FROM @st/r.json (FILE_FORMAT => 'missing')")
    assert e.value.errno == 2003


def test_a_record_that_is_not_json_is_a_load_error(cur, put) -> None:
    put("bad.json", b'{"a": 1}\n{oops}\n{"a": 3}\n')
    cur.execute("CREATE TABLE t (doc VARIANT)")
    rows = cur.execute("COPY INTO t FROM @st FILE_FORMAT=(TYPE=JSON) ON_ERROR=CONTINUE").fetchall()
    assert rows[0][1:6] == ("PARTIALLY_LOADED", 3, 2, 3, 1)
    assert rows[0][6].startswith("Error parsing JSON")
    assert rows[0][7] == 2
    assert cur.execute("SELECT COUNT(*) FROM t").fetchall() == [(2,)]


def test_csv_text_loads_into_boolean_binary_and_exponent_numbers(cur, put) -> None:
    # BOOLEAN columns were an internal error, BINARY kept the hex digits' own bytes, '1.5e2' was
    # no number; Snowflake reads them as TRUE/FALSE, BINARY_FORMAT = HEX and 150.
    put("v.csv", b"1,yes,48656c6c6f,1.5e2\n2,off,,-2E-1\n")
    cur.execute("CREATE TABLE v (id INT, b BOOLEAN, bin BINARY, n NUMBER(10, 1))")
    cur.execute("COPY INTO v FROM @st FILES=('v.csv')")
    assert cur.execute("SELECT id, b, bin, n FROM v ORDER BY id").fetchall() == [
        (1, True, b"Hello", Decimal("150.0")),
        (2, False, None, Decimal("-0.2")),
    ]
    put("bad.csv", b"3,true,zz,1\n")
    with pytest.raises(snowflake.connector.errors.ProgrammingError, match="BIN"):
        cur.execute("COPY INTO v FROM @st FILES=('bad.csv')")


def _orc(rows: int) -> bytes:
    """An ORC file as Hive or Spark write them: typed, named columns (every tenth name NULL)."""
    import io

    import pyarrow as pa
    import pyarrow.orc as orc

    table = pa.table(
        {
            "id": pa.array(range(1, rows + 1), pa.int32()),
            "name": pa.array([f"n{i}" if i % 10 else None for i in range(1, rows + 1)]),
            "price": pa.array([Decimal(i) / 4 for i in range(1, rows + 1)], pa.decimal128(12, 2)),
            "day": pa.array(
                [datetime.date(2024, 1, 1) + datetime.timedelta(days=i % 60) for i in range(rows)]
            ),
        }
    )
    sink = io.BytesIO()
    orc.write_table(table, sink, stripe_size=64 << 10)  # several stripes
    return sink.getvalue()


def test_orc_files_load_query_and_infer_their_schema(cur, put) -> None:
    put("items.orc", _orc(5000))
    cur.execute("CREATE FILE FORMAT orcf TYPE=ORC")
    rows = cur.execute(
        "SELECT COLUMN_NAME, TYPE "
        "FROM TABLE(INFER_SCHEMA(LOCATION => '@st/items.orc', FILE_FORMAT => 'orcf'))"
    ).fetchall()
    assert rows == [("id", "NUMBER(38, 0)"), ("name", "TEXT"), ("price", "NUMBER(12, 2)"), ("day", "DATE")]
    # Staged rows are one OBJECT each ($1), as for Parquet.
    cur.execute(
        "SELECT $1:id::INT, $1:name::VARCHAR FROM @st/items.orc (FILE_FORMAT => 'orcf') WHERE $1:id::INT <= 2"
    )
    assert sorted(cur.fetchall()) == [(1, "n1"), (2, "n2")]
    cur.execute("CREATE TABLE items (id INT, name VARCHAR, price NUMBER(12, 2), day DATE)")
    copied = cur.execute(
        "COPY INTO items FROM @st FILES=('items.orc') FILE_FORMAT=(TYPE=ORC) "
        "MATCH_BY_COLUMN_NAME=CASE_INSENSITIVE"
    ).fetchall()
    assert copied[0][:4] == ("st/items.orc", "LOADED", 5000, 5000)
    cur.execute("SELECT COUNT(*), COUNT(name), SUM(price), MIN(day), MAX(day) FROM items")
    assert cur.fetchall() == [
        (5000, 4500, Decimal(5000 * 5001 / 2) / 4, datetime.date(2024, 1, 1), datetime.date(2024, 2, 29))
    ]
    # A transformation picks fields by name.
    cur.execute("CREATE TABLE names (n VARCHAR, i INT)")
    cur.execute("COPY INTO names FROM (SELECT $1:name, $1:id FROM @st/items.orc) FILE_FORMAT=(TYPE=ORC)")
    assert cur.execute("SELECT n FROM names WHERE i = 7").fetchall() == [("n7",)]


def test_orc_is_read_but_not_written(cur) -> None:
    cur.execute("CREATE STAGE out_st")
    with pytest.raises(snowflake.connector.errors.ProgrammingError) as e:
        cur.execute("COPY INTO @out_st FROM (SELECT 1 AS x) FILE_FORMAT=(TYPE=ORC)")
    assert e.value.sqlstate == "0A000"


def _avro(rows: int) -> bytes:
    """An Avro data file as Kafka connectors write them: a record per row, nested fields."""
    import io

    import fastavro

    schema = {
        "type": "record",
        "name": "Order",
        "fields": [
            {"name": "id", "type": "long"},
            {"name": "name", "type": ["null", "string"]},
            {
                "name": "price",
                "type": {"type": "bytes", "logicalType": "decimal", "precision": 12, "scale": 2},
            },
            {"name": "day", "type": {"type": "int", "logicalType": "date"}},
            {"name": "tags", "type": {"type": "array", "items": "string"}},
            {
                "name": "inner",
                "type": {"type": "record", "name": "Inner", "fields": [{"name": "a", "type": "int"}]},
            },
        ],
    }
    records = [
        {
            "id": i,
            "name": f"n{i}" if i % 10 else None,
            "price": Decimal(i) / 4,
            "day": datetime.date(2024, 1, 1) + datetime.timedelta(days=i % 60),
            "tags": ["t", str(i % 3)],
            "inner": {"a": i * 2},
        }
        for i in range(1, rows + 1)
    ]
    sink = io.BytesIO()
    fastavro.writer(sink, fastavro.parse_schema(schema), records, codec="deflate")
    return sink.getvalue()


def test_avro_files_load_query_and_infer_their_schema(cur, put) -> None:
    put("orders.avro", _avro(3000))
    put("more.avro.gz", gzip.compress(_avro(10)))
    cur.execute("CREATE FILE FORMAT av TYPE=AVRO")
    rows = cur.execute(
        "SELECT COLUMN_NAME, TYPE "
        "FROM TABLE(INFER_SCHEMA(LOCATION => '@st/orders.avro', FILE_FORMAT => 'av'))"
    ).fetchall()
    assert [r[0] for r in rows] == ["id", "name", "price", "day", "tags", "inner"]
    assert rows[2:4] == [("price", "NUMBER(12, 2)"), ("day", "DATE")]
    cur.execute(
        "SELECT $1:id::INT, $1:name::VARCHAR, $1:inner.a::INT FROM @st/orders.avro (FILE_FORMAT => 'av') "
        "WHERE $1:id::INT IN (1, 10)"
    )
    assert sorted(cur.fetchall()) == [(1, "n1", 2), (10, None, 20)]
    row = json.loads(
        one_value(cur, "SELECT $1 FROM @st/orders.avro (FILE_FORMAT => 'av') WHERE $1:id::INT = 2")
    )
    assert row == {
        "id": 2,
        "name": "n2",
        "price": 0.5,
        "day": "2024-01-03",
        "tags": ["t", "2"],
        "inner": {"a": 4},
    }
    cur.execute("CREATE TABLE orders (id INT, name VARCHAR, price NUMBER(12, 2), day DATE, tags ARRAY)")
    copied = cur.execute(
        "COPY INTO orders FROM @st FILE_FORMAT=(FORMAT_NAME='av') MATCH_BY_COLUMN_NAME=CASE_INSENSITIVE"
    ).fetchall()
    assert sorted((r[0], r[1], r[3]) for r in copied) == [
        ("st/more.avro.gz", "LOADED", 10),
        ("st/orders.avro", "LOADED", 3000),
    ]
    cur.execute("SELECT COUNT(*), COUNT(name), SUM(price), MAX(day) FROM orders")
    assert cur.fetchall() == [(3010, 2709, Decimal(3000 * 3001 / 2 + 55) / 4, datetime.date(2024, 2, 29))]
    assert json.loads(one_value(cur, "SELECT tags FROM orders WHERE id = 4 LIMIT 1")) == ["t", "1"]


def one_value(cur, sql: str):
    (row,) = cur.execute(sql).fetchall()
    return row[0]

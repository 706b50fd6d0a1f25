"""VARIANT / OBJECT / ARRAY end to end: stored in tables, typed in rowtypes, pretty on the wire."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest
from snowflake.connector.errors import ProgrammingError


def test_variant_column_round_trips_and_reads_back_typed(cur: Any) -> None:
    cur.execute("CREATE TABLE docs (id INT, v VARIANT)")
    cur.execute('INSERT INTO docs SELECT 1, PARSE_JSON(\'{"name": "Alice", "tags": ["a", "b"], "age": 31}\')')
    cur.execute("SELECT v, v:name, v:name::string, v:tags[1], v:age FROM docs")
    row = cur.fetchone()
    assert [d.type_code for d in cur.description][:2] == [5, 5]  # VARIANT
    assert json.loads(row[0]) == {"age": 31, "name": "Alice", "tags": ["a", "b"]}
    assert "\n  " in row[0]  # objects are pretty-printed, as Snowflake sends them
    assert row[1:] == ('"Alice"', "Alice", '"b"', "31")
    assert cur.execute("SELECT id FROM docs WHERE v:age > 30 AND v:name = 'Alice'").fetchall() == [(1,)]


def test_variant_values_in_arithmetic_and_sums_are_numbers(cur: Any) -> None:
    cur.execute("CREATE TABLE m (id INT, v VARIANT)")
    cur.execute('INSERT INTO m SELECT 1, PARSE_JSON(\'{"a": 1, "f": 1.5, "s": "2"}\')')
    cur.execute('INSERT INTO m SELECT 2, PARSE_JSON(\'{"a": 10, "f": 2}\')')
    cur.execute("SELECT v:a + 1, v:f * 2, -v['a'], v:s + 1, v:missing + 1 FROM m ORDER BY id")
    assert cur.fetchall() == [(2.0, 3.0, -1.0, 3.0, None), (11.0, 4.0, -10.0, None, None)]
    assert cur.description[0].type_code == 1  # FLOAT: the VARIANT is cast to a number
    assert cur.execute("SELECT SUM(v:a), AVG(v:f) FROM m").fetchall() == [(11.0, 1.75)]


def test_object_construct_drops_nulls_and_sorts_keys(cur: Any) -> None:
    cur.execute("SELECT OBJECT_CONSTRUCT('b', 1, 'a', 'x', 'c', NULL), OBJECT_CONSTRUCT_KEEP_NULL('c', NULL)")
    obj, kept = cur.fetchone()
    assert list(json.loads(obj)) == ["a", "b"]
    assert json.loads(kept) == {"c": None}


def test_array_functions_follow_the_documentation(cur: Any) -> None:
    cur.execute(
        "SELECT ARRAY_SLICE([0,1,2,3,4,5,6], 0, -2), ARRAY_EXCEPT(['A','B','B','C'], ['B']), "
        "ARRAY_INSERT(ARRAY_CONSTRUCT(0,1,2,3), 5, 'hello'), ARRAY_SIZE(ARRAY_CONSTRUCT(1,2,3)), "
        "ARRAY_CONTAINS('hello'::VARIANT, ARRAY_CONSTRUCT('hello', 'hi'))"
    )
    sliced, excepted, inserted, size, contains = cur.fetchone()
    assert json.loads(sliced) == [0, 1, 2, 3, 4]
    assert json.loads(excepted) == ["A", "B", "C"]
    assert json.loads(inserted) == [0, 1, 2, 3, None, "hello"]
    assert (size, contains) == (3, True)


def test_lateral_flatten_joins_each_element_to_its_row(cur: Any) -> None:
    cur.execute("CREATE TABLE orders (id INT, items ARRAY)")
    cur.execute(
        "INSERT INTO orders SELECT 1, ARRAY_CONSTRUCT('x', 'y') UNION ALL SELECT 2, ARRAY_CONSTRUCT('z')"
    )
    cur.execute(
        "SELECT o.id, f.index, f.value::string FROM orders o, LATERAL FLATTEN(input => o.items) f "
        "ORDER BY o.id, f.index"
    )
    assert cur.fetchall() == [(1, 0, "x"), (1, 1, "y"), (2, 0, "z")]


def test_table_flatten_names_its_columns_like_snowflake(cur: Any) -> None:
    cur.execute("SELECT * FROM TABLE(FLATTEN(input => PARSE_JSON('{\"a\": 1}'))) f")
    assert [d.name for d in cur.description] == ["SEQ", "KEY", "PATH", "INDEX", "VALUE", "THIS"]
    assert cur.fetchall()[0][1:5] == ("a", "a", None, "1")


def test_flatten_values_take_part_in_arithmetic_and_aggregates(cur: Any) -> None:
    """FLATTEN's VALUE is a VARIANT: arithmetic, SUM and AVG read it as a number, as they read a
    VARIANT column or path (they failed: DataFusion saw a text column). SPLIT_TO_TABLE alike."""
    cur.execute("CREATE TABLE baskets (id INT, prices VARIANT)")
    cur.execute("INSERT INTO baskets SELECT 1, PARSE_JSON('[1.5, 2]') UNION ALL SELECT 2, PARSE_JSON('[10]')")
    sql = (
        "SELECT b.id, f.value * 2, f.value + b.id, -f.value "
        "FROM baskets b, LATERAL FLATTEN(input => b.prices) f ORDER BY b.id, f.index"
    )
    assert cur.execute(sql).fetchall() == [(1, 3.0, 2.5, -1.5), (1, 4.0, 3.0, -2.0), (2, 20.0, 12.0, -10.0)]
    sql = (
        "SELECT b.id, SUM(f.value), AVG(f.value) "
        "FROM baskets b, LATERAL FLATTEN(b.prices) f GROUP BY b.id ORDER BY 1"
    )
    assert cur.execute(sql).fetchall() == [(1, 3.5, 1.75), (2, 10.0, 10.0)]
    sql = "SELECT value * 10 FROM TABLE(FLATTEN(input => PARSE_JSON('[1, 2]'))) ORDER BY 1"
    assert cur.execute(sql).fetchall() == [(10.0,), (20.0,)]
    sql = "SELECT s.value * 3 FROM TABLE(SPLIT_TO_TABLE('1,2', ',')) s ORDER BY 1"
    assert cur.execute(sql).fetchall() == [(3.0,), (6.0,)]


def test_array_agg_and_object_agg(cur: Any) -> None:
    cur.execute(
        "SELECT ARRAY_AGG(x) WITHIN GROUP (ORDER BY x DESC), OBJECT_AGG(k, x::VARIANT) "
        "FROM (SELECT column1 AS k, column2 AS x FROM VALUES ('a', 1), ('b', 3), ('c', 2))"
    )
    arr, obj = cur.fetchone()
    assert json.loads(arr) == [3, 2, 1]
    assert json.loads(obj) == {"a": 1, "b": 3, "c": 2}


def test_object_construct_star_takes_the_columns_star_stands_for(cur: Any) -> None:
    """OBJECT_CONSTRUCT(*), with EXCLUDE and `t.*`, and OBJECT_CONSTRUCT_KEEP_NULL(*): the
    documented examples' shapes, over a stored table and over VALUES."""
    cur.execute('CREATE TABLE prov (province VARCHAR, created DATE, "Mixed" INT)')
    cur.execute("INSERT INTO prov VALUES ('Manitoba', '2024-01-18', 1), ('Alberta', NULL, 2)")
    cur.execute("SELECT OBJECT_CONSTRUCT(*) AS oc FROM prov ORDER BY oc['PROVINCE']")
    assert [json.loads(r[0]) for r in cur.fetchall()] == [
        {"Mixed": 2, "PROVINCE": "Alberta"},
        {"CREATED": "2024-01-18", "Mixed": 1, "PROVINCE": "Manitoba"},
    ]
    cur.execute("SELECT OBJECT_CONSTRUCT_KEEP_NULL(p.* EXCLUDE province) FROM prov p ORDER BY 1")
    assert cur.description[0].name == "OBJECT_CONSTRUCT_KEEP_NULL(P.* EXCLUDE PROVINCE)"
    assert [json.loads(r[0]) for r in cur.fetchall()] == [
        {"CREATED": "2024-01-18", "Mixed": 1},
        {"CREATED": None, "Mixed": 2},
    ]
    rows = cur.execute(
        "SELECT OBJECT_CONSTRUCT(*) FROM (VALUES (1, 'x'), (2, 'y')) AS t ORDER BY 1"
    ).fetchall()
    assert [json.loads(r[0]) for r in rows] == [
        {"COLUMN1": 1, "COLUMN2": "x"},
        {"COLUMN1": 2, "COLUMN2": "y"},
    ]
    # A subquery's columns are keyed by their Snowflake names (were lower case).
    (obj,) = cur.execute("""SELECT OBJECT_CONSTRUCT(*) FROM (SELECT 1 AS a, 'x' AS "Mixed")""").fetchone()
    assert json.loads(obj) == {"A": 1, "Mixed": "x"}


def test_a_double_stays_a_double_inside_a_variant(cur: Any) -> None:
    """Snowflake writes a DOUBLE in a VARIANT as `3.000000000000000e+00` (ARRAY_CONSTRUCT's
    documentation) and TYPEOF tells it from an exact DECIMAL."""
    cur.execute(
        "SELECT ARRAY_CONSTRUCT('hello', 3::DOUBLE, 4, 1.50), TYPEOF(TO_VARIANT(3.21::DOUBLE)), "
        "TYPEOF(TO_VARIANT(1.23::DECIMAL(6, 3))), TYPEOF(PARSE_JSON('1e2')), PARSE_JSON('1e2'), "
        "TO_VARIANT(3.21::DOUBLE)::VARCHAR, TO_VARIANT(3.21::DOUBLE)::FLOAT"
    )
    array, double, decimal, parsed_type, parsed, text, number = cur.fetchone()
    assert array == '[\n  "hello",\n  3.000000000000000e+00,\n  4,\n  1.5\n]'
    assert (double, decimal, parsed_type, parsed) == ("DOUBLE", "DECIMAL", "DOUBLE", "1.000000000000000e+02")
    assert (text, number) == ("3.21", 3.21)
    cur.execute("CREATE TABLE readings (v VARIANT)")
    cur.execute("INSERT INTO readings SELECT OBJECT_CONSTRUCT('t', 21.5::FLOAT, 'n', 2)")
    cur.execute("SELECT v, TYPEOF(v:t), TYPEOF(v:n), v:t::FLOAT + 1 FROM readings")
    assert cur.fetchone() == ('{\n  "n": 2,\n  "t": 2.150000000000000e+01\n}', "DOUBLE", "INTEGER", 22.5)
    # Equal numbers are one element whatever their type.
    cur.execute(
        "SELECT ARRAY_CONTAINS(1.5::FLOAT::VARIANT, ARRAY_CONSTRUCT(1.5, 2)), ARRAY_DISTINCT([1.0::FLOAT, 1])"
    )
    contains, distinct = cur.fetchone()
    assert contains is True
    assert len(json.loads(distinct)) == 1


def test_binary_inside_a_variant_is_its_hex_digits(cur: Any) -> None:
    """AS_BINARY's documented example; bytes that are not UTF-8 once failed in the coercion."""
    cur.execute(
        "WITH as_binary_example AS (SELECT TO_VARIANT(TO_BINARY('F0A5')) AS binary1) "
        "SELECT AS_BINARY(binary1), binary1 FROM as_binary_example"
    )
    assert cur.fetchone() == (b"\xf0\xa5", '"F0A5"')
    cur.execute("CREATE TABLE raw_bytes (v BINARY)")
    cur.execute("INSERT INTO raw_bytes SELECT X'FFFE'")
    cur.execute("SELECT ARRAY_CONSTRUCT(v, 1), OBJECT_CONSTRUCT('b', v) FROM raw_bytes")
    array, obj = cur.fetchone()
    assert (json.loads(array), json.loads(obj)) == (["FFFE", 1], {"b": "FFFE"})


def test_a_json_number_becomes_a_timestamp_as_an_epoch_instant(cur: Any) -> None:
    """The documented example (TO_TIMESTAMP, usage notes): a VARIANT holding 0 is the instant
    1970-01-01 00:00:00 UTC, shown as a wall clock in the session's zone, while the number 0
    itself is the UTC wall clock. https://docs.snowflake.com/en/sql-reference/functions/to_timestamp"""
    cur.execute("ALTER SESSION SET TIMEZONE = 'America/Los_Angeles'")
    cur.execute("SELECT 0::TIMESTAMP_NTZ, PARSE_JSON(0)::TIMESTAMP_NTZ, PARSE_JSON(0)::INT::TIMESTAMP_NTZ")
    assert cur.fetchone() == (dt.datetime(1970, 1, 1), dt.datetime(1969, 12, 31, 16), dt.datetime(1970, 1, 1))
    cur.execute(
        "SELECT TO_TIMESTAMP_NTZ(0), TO_TIMESTAMP_NTZ(PARSE_JSON(0)), TO_TIMESTAMP_NTZ(PARSE_JSON(0)::INT)"
    )
    assert cur.fetchone() == (dt.datetime(1970, 1, 1), dt.datetime(1969, 12, 31, 16), dt.datetime(1970, 1, 1))
    # Epoch fields of ingested JSON, strings inside a VARIANT, LTZ and TRY_ forms.
    cur.execute("CREATE TABLE events (v VARIANT)")
    cur.execute(
        """INSERT INTO events SELECT PARSE_JSON('{"ms": 1700000000000, "s": "2024-01-02 03:04:05"}')"""
    )
    cur.execute("SELECT v:ms::TIMESTAMP_NTZ, v:s::TIMESTAMP_NTZ, TO_TIMESTAMP_LTZ(v:ms) FROM events")
    ntz, text, ltz = cur.fetchone()
    assert (ntz, text) == (dt.datetime(2023, 11, 14, 14, 13, 20), dt.datetime(2024, 1, 2, 3, 4, 5))
    assert ltz == dt.datetime(2023, 11, 14, 22, 13, 20, tzinfo=dt.UTC)
    assert cur.execute("SELECT TRY_CAST(PARSE_JSON('true') AS TIMESTAMP_NTZ)").fetchone() == (None,)
    with pytest.raises(ProgrammingError) as info:
        cur.execute("SELECT PARSE_JSON('[1]')::TIMESTAMP_NTZ")
    assert (info.value.errno, info.value.sqlstate) == (100035, "22007")


def test_generate_column_description_formats_infer_schema_rows(cur: Any) -> None:
    """https://docs.snowflake.com/en/sql-reference/functions/generate_column_description"""
    rows = json.dumps(
        [
            {"COLUMN_NAME": "country", "TYPE": "VARIANT", "EXPRESSION": "$1:country::VARIANT"},
            {"COLUMN_NAME": "continent", "TYPE": "TEXT", "EXPRESSION": "$1:continent::TEXT"},
        ]
    )
    cur.execute(
        f"SELECT GENERATE_COLUMN_DESCRIPTION(PARSE_JSON('{rows}'), 'table'), "
        f"GENERATE_COLUMN_DESCRIPTION(PARSE_JSON('{rows}'), 'external_table'), "
        f"GENERATE_COLUMN_DESCRIPTION(PARSE_JSON('{rows}'), 'view'), "
        'GENERATE_COLUMN_DESCRIPTION(PARSE_JSON(\'[{"COLUMN_NAME": "a", "TYPE": "TEXT"}]\'), '
        "'external_table')"
    )
    assert cur.fetchone() == (
        '"country" VARIANT,\n"continent" TEXT',
        '"country" VARIANT AS ($1:country::VARIANT),\n"continent" TEXT AS ($1:continent::TEXT)',
        '"country" ,\n"continent" ',
        '"a" TEXT AS (null)',
    )
    # The output is a column list a CREATE TABLE takes as it is.
    columns = cur.execute(f"SELECT GENERATE_COLUMN_DESCRIPTION(PARSE_JSON('{rows}'), 'table')").fetchone()[0]
    cur.execute(f"CREATE TABLE inferred ({columns})")
    # A quoted all-lower-case name shows as upper case here (embucket_py/naming.py says why).
    assert [r[:2] for r in cur.execute("DESCRIBE TABLE inferred").fetchall()] == [
        ("COUNTRY", "VARIANT"),
        ("CONTINENT", "VARCHAR(16777216)"),
    ]
    with pytest.raises(ProgrammingError) as info:
        cur.execute("SELECT GENERATE_COLUMN_DESCRIPTION(PARSE_JSON('[]'), 'schema')")
    assert "Invalid object type 'schema'" in info.value.msg


def test_arrays_zip(cur: Any) -> None:
    """https://docs.snowflake.com/en/sql-reference/functions/arrays_zip"""
    cur.execute(
        "SELECT ARRAYS_ZIP([1, 2, 3], ['first', 'second', 'third'], ['i', 'ii', 'iii']) AS zipped_arrays"
    )
    assert json.loads(cur.fetchone()[0]) == [
        {"$1": 1, "$2": "first", "$3": "i"},
        {"$1": 2, "$2": "second", "$3": "ii"},
        {"$1": 3, "$2": "third", "$3": "iii"},
    ]
    assert cur.description[0].type_code == 10  # ARRAY
    # Shorter arrays and NULL elements give JSON null; a NULL array gives NULL.
    cur.execute(
        'SELECT ARRAYS_ZIP([1, 2], [NULL]), ARRAYS_ZIP([1], NULL), ARRAYS_ZIP([1, 2], [3, 4])[1]:"$2"'
    )
    zipped, nothing, element = cur.fetchone()
    assert json.loads(zipped) == [{"$1": 1, "$2": None}, {"$1": 2, "$2": None}]
    assert (nothing, element) == (None, "4")


def test_split_to_table_and_strtok_split_to_table(cur: Any) -> None:
    """The documented examples: https://docs.snowflake.com/en/sql-reference/functions/split_to_table"""
    cur.execute("SELECT table1.value FROM TABLE(SPLIT_TO_TABLE('a.b', '.')) AS table1 ORDER BY table1.value")
    assert cur.fetchall() == [("a",), ("b",)]
    cur.execute("CREATE TABLE splittable (v VARCHAR)")
    cur.execute("INSERT INTO splittable (v) VALUES ('a.b.c'), ('d'), (''), (NULL)")
    cur.execute("SELECT * FROM splittable, LATERAL SPLIT_TO_TABLE(splittable.v, '.') ORDER BY SEQ, INDEX")
    assert [d.name for d in cur.description] == ["V", "SEQ", "INDEX", "VALUE"]
    assert cur.fetchall() == [
        ("a.b.c", 1, 1, "a"),
        ("a.b.c", 1, 2, "b"),
        ("a.b.c", 1, 3, "c"),
        ("d", 2, 1, "d"),
        ("", 3, 1, ""),
    ]
    # STRTOK_SPLIT_TO_TABLE: any of the delimiter characters, empty tokens dropped.
    cur.execute("SELECT index, value FROM TABLE(STRTOK_SPLIT_TO_TABLE('a.b,,c', '.,')) ORDER BY index")
    assert cur.fetchall() == [(1, "a"), (2, "b"), (3, "c")]
    cur.execute("SELECT value FROM TABLE(STRTOK_SPLIT_TO_TABLE('  hello   world '))")
    assert sorted(cur.fetchall()) == [("hello",), ("world",)]


def test_a_variant_column_compares_and_passes_to_text_functions_as_its_text(cur: Any) -> None:
    cur.execute("CREATE TABLE docs (id INT, v VARIANT)")
    cur.execute("INSERT INTO docs SELECT 1, 'plain text'::VARIANT")
    cur.execute('INSERT INTO docs SELECT 2, PARSE_JSON(\'{"a": "x", "n": 5}\')')
    cur.execute("INSERT INTO docs SELECT 3, 42::VARIANT")
    # A stored VARIANT column compared with a literal (a path already was); a string is no number.
    assert cur.execute("SELECT id FROM docs WHERE v = 'plain text'").fetchall() == [(1,)]
    assert cur.execute("SELECT id FROM docs WHERE v = 42").fetchall() == [(3,)]
    assert cur.execute("SELECT id FROM docs WHERE v IN ('plain text')").fetchall() == [(1,)]
    # Text functions read a VARIANT string without its quotes ('"x"!' before).
    row = cur.execute(
        "SELECT v:a || '!', UPPER(v:a), LENGTH(v:a), CONCAT(v:a, 'y'), v:a LIKE 'x%' FROM docs WHERE id = 2"
    ).fetchone()
    assert row == ("x!", "X", 1, "xy", True)
    assert cur.execute("SELECT UPPER(v) FROM docs WHERE id = 1").fetchone() == ("PLAIN TEXT",)


def test_a_variant_cast_to_array_or_object_keeps_its_value(cur: Any) -> None:
    # CAST(PARSE_JSON(..) AS OBJECT) failed ("got VARCHAR") and AS ARRAY wrapped the text in an
    # array, so `[1]` was NULL; array elements in arithmetic are numbers.
    row = cur.execute(
        "SELECT CAST(PARSE_JSON('[1,2,3]') AS ARRAY)[1], CAST(PARSE_JSON('{\"k\":5}') AS OBJECT):k, "
        "ARRAY_CONSTRUCT(1, 2)[1] * 2"
    ).fetchone()
    assert row == ("2", "5", 4.0)


def test_array_and_object_variables_of_a_block(cur: Any) -> None:
    sql = (
        "EXECUTE IMMEDIATE $$ DECLARE arr ARRAY DEFAULT ARRAY_CONSTRUCT(1, 2, 3); "
        "o OBJECT DEFAULT OBJECT_CONSTRUCT('k', 5); s INT DEFAULT 0; BEGIN "
        "FOR i IN 0 TO ARRAY_SIZE(arr) - 1 DO s := s + arr[i]; END FOR; RETURN s + o:k; END $$"
    )
    assert cur.execute(sql).fetchone() == (11,)


def test_a_variant_condition_reads_as_its_boolean_and_a_variant_key_as_its_string(cur: Any) -> None:
    # `WHERE v:active` was refused ("non-boolean predicate"); OBJECT_AGG(v:k, ...) keyed by '"a"'.
    cur.execute("CREATE TABLE flags (id INT, v VARIANT)")
    cur.execute(
        'INSERT INTO flags SELECT 1, PARSE_JSON(\'{"k": "a", "active": true}\') '
        'UNION ALL SELECT 2, PARSE_JSON(\'{"k": "b", "active": false}\')'
    )
    assert cur.execute("SELECT id FROM flags WHERE v:active").fetchall() == [(1,)]
    assert cur.execute("SELECT id FROM flags WHERE NOT (v:active) OR id > 5").fetchall() == [(2,)]
    assert cur.execute("SELECT a.id FROM flags a JOIN flags b ON a.v:active AND a.id = b.id").fetchall() == [
        (1,)
    ]
    assert cur.execute("SELECT id FROM flags GROUP BY id, v:active HAVING v:active").fetchall() == [(1,)]
    (agg,) = cur.execute("SELECT OBJECT_AGG(v:k, id) FROM flags").fetchone()
    assert json.loads(agg) == {"a": 1, "b": 2}


def test_transform_filter_and_reduce_run_their_lambdas_as_the_docs_show(cur: Any) -> None:
    # https://docs.snowflake.com/en/sql-reference/functions/transform (and filter, reduce)
    cur.execute("SELECT TRANSFORM([1, 2, 3], a INT -> a * 2), FILTER([1, 2, 3], a INT -> a > 1)")
    doubled, kept = cur.fetchone()
    assert (json.loads(doubled), json.loads(kept)) == ([2, 4, 6], [2, 3])
    assert [d.type_code for d in cur.description] == [10, 10]  # ARRAY
    people = "[{'name': 'Pat', 'value': 50}, {'name': 'Terry', 'value': 75}]"
    cur.execute(f"SELECT FILTER({people}, a -> a:value >= 60), TRANSFORM({people}, a -> a:name::STRING)")
    over, names = cur.fetchone()
    assert (json.loads(over), json.loads(names)) == ([{"name": "Terry", "value": 75}], ["Pat", "Terry"])
    cur.execute(
        "SELECT REDUCE([1, 2, 3], 0, (acc, val) -> acc + val), "
        "REDUCE([1, 2, 3], 10, (acc, val) -> acc + val), "
        "REDUCE([1, 2, 3], 0, (acc, val) -> acc + val * val), "
        "REDUCE([1, NULL, 3], 0, (acc, val) -> acc + ZEROIFNULL(val)), "
        "REDUCE(['a', 'b', 'c'], '', (acc, val) -> acc || ' ' || val), "
        "REDUCE([5, 10, 15], 0, (acc, val) -> IFF(val > 7, acc + val, acc))"
    )
    assert cur.fetchone() == (6, 16, 14, 4, " a b c", 25)
    assert [d.type_code for d in cur.description] == [0, 0, 0, 0, 2, 0]  # the initial value's type
    cur.execute("SELECT REDUCE([1, 2, 3], [], (acc, val) -> ARRAY_PREPEND(acc, val))")
    assert json.loads(cur.fetchone()[0]) == [3, 2, 1]


def test_lambdas_read_outer_columns_nest_and_keep_nulls_apart(cur: Any) -> None:
    cur.execute("CREATE TABLE orders_arr (id INT, factor NUMBER(4, 1), items ARRAY)")
    cur.execute(
        "INSERT INTO orders_arr SELECT 1, 1.5, [1, 2, 3] "
        "UNION ALL SELECT 2, 2, [10] UNION ALL SELECT 3, 3, NULL"
    )
    cur.execute(
        "SELECT id, TRANSFORM(items, x INT -> x * factor), FILTER(items, x INT -> x > id), "
        "REDUCE(items, 0, (s, x INT) -> s + x * id) FROM orders_arr ORDER BY id"
    )
    rows = [(i, json.loads(t) if t else t, json.loads(f) if f else f, r) for i, t, f, r in cur.fetchall()]
    assert rows == [(1, [1.5, 3, 4.5], [2, 3], 6), (2, [20], [10], 20), (3, None, None, None)]
    # Nested lambdas, an aggregate read by the body, empty arrays and NULL initial values.
    cur.execute("SELECT TRANSFORM([[1, 2], [3]], x -> TRANSFORM(x, y INT -> y * 10))")
    assert json.loads(cur.fetchone()[0]) == [[10, 20], [30]]
    cur.execute(
        "SELECT TRANSFORM(ARRAY_AGG(id) WITHIN GROUP (ORDER BY id), x INT -> x + MAX(id)) FROM orders_arr"
    )
    assert json.loads(cur.fetchone()[0]) == [4, 5, 6]
    cur.execute("SELECT TRANSFORM([], x -> x), REDUCE([], 5, (a, x) -> a), REDUCE([1], NULL, (a, x) -> a)")
    empty, initial, no_initial = cur.fetchone()
    assert (json.loads(empty), initial, no_initial) == ([], 5, None)
    # A lambda that fails fails its statement with Snowflake's error; the session goes on.
    with pytest.raises(ProgrammingError) as failed:
        cur.execute("SELECT TRANSFORM(items, x INT -> x / 0) FROM orders_arr")
    assert failed.value.errno == 100051
    with pytest.raises(ProgrammingError) as refused:
        cur.execute("SELECT TRANSFORM(items, (a, b) -> a) FROM orders_arr")
    assert "must take 1 argument" in str(refused.value)
    assert cur.execute("SELECT COUNT(*) FROM orders_arr").fetchone() == (3,)


def test_a_conditional_with_a_variant_among_its_values_is_a_variant(cur: Any) -> None:
    cur.execute(
        "SELECT IFF(f.value > 1, f.value, 'small'), ZEROIFNULL(f.value) FROM TABLE(FLATTEN([1, 3])) f"
    )
    assert cur.fetchall() == [('"small"', "1"), ("3", "3")]
    assert [d.type_code for d in cur.description] == [5, 5]  # VARIANT, not text
    assert cur.execute("SELECT IFF(TRUE, PARSE_JSON('2'), 0) + 1").fetchone() == (3.0,)

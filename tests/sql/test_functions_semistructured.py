"""Semi-structured rewrites: paths, casts from VARIANT, constructors and FLATTEN in FROM."""

from __future__ import annotations

import pyarrow as pa
import pytest

from embucket_py.errors import SqlCompilationError, Unsupported
from tests.sql.helpers import translate, validate

VARIANT_TABLE = {"T": pa.schema([("id", pa.int64()), ("v", pa.string())])}


def test_path_access_and_string_cast() -> None:
    validate(
        "SELECT v:a.b[0]::string FROM t",
        'SELECT sf_variant_text(sf_get_path("v", \'a.b[0]\')) AS "v:a.b[0]::string" FROM "__t0" AS "t"',
        schemas=VARIANT_TABLE,
    )


def test_a_variant_becomes_a_timestamp_by_reading_its_json() -> None:
    # A cast and TO_TIMESTAMP_* alike: a JSON number is an epoch instant, so the UDF sees the JSON.
    validate(
        "SELECT v:a::TIMESTAMP_NTZ, TO_TIMESTAMP_NTZ(v:a), TRY_TO_TIMESTAMP_LTZ(PARSE_JSON('0')) FROM t",
        "SELECT sf_variant_to_timestamp(sf_get_path(\"v\", 'a'), 'America/Los_Angeles') "
        'AS "v:a::timestamp_ntz", '
        "sf_variant_to_timestamp(sf_get_path(\"v\", 'a'), 'America/Los_Angeles') "
        'AS "to_timestamp_ntz(v:a)", '
        "sf_try_variant_to_instant(sf_parse_json('0'), 'America/Los_Angeles') "
        'AS "try_to_timestamp_ltz(parse_json(\'0\'))" FROM "__t0" AS "t"',
        schemas=VARIANT_TABLE,
    )


def test_quoted_key_keeps_its_quotes_in_the_path() -> None:
    sql = translate('SELECT v:"Quoted Key" FROM t').sql
    assert 'sf_get_path("v", \'"Quoted Key"\')' in sql


def test_bracket_access_becomes_get() -> None:
    sql = translate("SELECT v['k'], v[0] FROM t").sql
    assert sql.count("sf_get(") == 2


def test_comparison_with_a_string_literal_compares_text() -> None:
    sql = translate("SELECT id FROM t WHERE v:name = 'Alice'").sql
    assert "sf_variant_text(sf_get_path(\"v\", 'name')) = 'Alice'" in sql


def test_comparison_with_a_number_compares_numbers() -> None:
    sql = translate("SELECT id FROM t WHERE v:age > 30").sql
    assert "CAST(sf_variant_text(sf_get_path(\"v\", 'age')) AS DOUBLE) > 30" in sql


def test_flatten_becomes_an_unnest_next_to_the_table() -> None:
    validate(
        "SELECT f.value FROM t, LATERAL FLATTEN(input => t.v) f",
        'SELECT "t"."value" AS "value" FROM (SELECT * EXCEPT ("__flat"), '
        'get_field("__flat", \'seq\') AS "seq", get_field("__flat", \'key\') AS "key", '
        'get_field("__flat", \'path\') AS "path", get_field("__flat", \'index\') AS "index", '
        'sf_variant_tag(get_field("__flat", \'value\')) AS "value", '
        'sf_variant_tag(get_field("__flat", \'this\')) AS "this" '
        'FROM (SELECT "t".*, unnest(sf_flatten("t"."v", \'\', FALSE, FALSE, \'BOTH\')) AS "__flat" '
        'FROM "__t0" AS "t") AS "__flat_rows") AS "t"',
        schemas=VARIANT_TABLE,
    )


def test_constructors_take_values_of_any_type() -> None:
    sql = translate("SELECT ARRAY_CONSTRUCT(1, 'a'), OBJECT_CONSTRUCT('k', id) FROM t").sql
    assert "sf_array_construct(make_array(sf_to_variant(1," in sql
    assert "sf_object_construct(make_array(CAST('k' AS VARCHAR)), make_array(sf_to_variant(\"id\"" in sql


def test_array_agg_orders_inside_the_aggregate() -> None:
    sql = translate("SELECT ARRAY_AGG(id) WITHIN GROUP (ORDER BY id DESC) FROM t").sql
    assert sql.startswith('SELECT sf_array_from_list(array_agg(sf_to_variant("id"')
    assert 'ORDER BY "id" DESC' in sql


def test_object_construct_star_needs_known_columns() -> None:
    with pytest.raises(Unsupported, match=r"OBJECT_CONSTRUCT\(\*\) over a source of unknown columns"):
        translate("SELECT OBJECT_CONSTRUCT(*) FROM t")
    sql = translate("SELECT OBJECT_CONSTRUCT(* EXCLUDE b) FROM (VALUES (1, 2, 3)) AS v(a, b, c)").sql
    assert "make_array(CAST('A' AS VARCHAR), CAST('C' AS VARCHAR))" in sql


def test_a_lambda_becomes_a_query_over_its_input_and_captures_the_outer_columns_it_reads() -> None:
    sql = translate("SELECT TRANSFORM(v, x -> x:a) FROM t").sql
    assert sql.startswith('SELECT sf_transform(\'SELECT (sf_get_path("__p0", \'\'a\'\')) AS "r" FROM "__t0"')
    assert "_captured" not in sql
    sql = translate("SELECT FILTER(v, x -> x > id + 1) FROM t").sql
    assert "sf_filter_captured(" in sql
    assert "make_array(arrow_cast(\"id\", 'Utf8'))" in sql and 'make_array(arrow_typeof("id"))' in sql
    # REDUCE returns its initial value's type: a literal 0 makes it a NUMBER.
    assert translate("SELECT REDUCE([1, 2], 0, (acc, x) -> acc + x)").sql.startswith(
        "SELECT CAST(sf_variant_text(sf_reduce("
    )


@pytest.mark.parametrize(
    ("sql", "error", "message"),
    [
        ("SELECT TRANSFORM(v, (a, b) -> a) FROM t", SqlCompilationError, "must take 1 argument"),
        ("SELECT REDUCE(v, 0, a -> a) FROM t", SqlCompilationError, "must take 2 argument"),
        ("SELECT TRANSFORM(v, a -> (SELECT 1)) FROM t", Unsupported, "subquery in its lambda"),
    ],
)
def test_lambdas_the_rewrite_cannot_run_are_refused(sql: str, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        translate(sql)

"""Every Snowflake type round-trips through a table and back, in Arrow and in JSON results."""

from __future__ import annotations

import datetime as dt
import json
import math
from decimal import Decimal
from typing import Any

import pyarrow as pa
import pytest
from snowflake.connector.errors import NotSupportedError, ProgrammingError

from tests.e2e.conftest import CONNECTOR_MAJOR, Server

UTC = dt.UTC

COLUMNS = [
    ("N", "NUMBER(38,0)", "42", 42),
    ("P", "NUMBER(10,2)", "-1234.5", Decimal("-1234.50")),
    ("F", "FLOAT", "2.5", 2.5),
    ("S", "VARCHAR(20)", "'héllo'", "héllo"),
    ("B", "BINARY", "X'01FF'", b"\x01\xff"),
    ("L", "BOOLEAN", "TRUE", True),
    ("D", "DATE", "'2024-01-31'", dt.date(2024, 1, 31)),
    ("T", "TIME", "'10:11:12.5'", dt.time(10, 11, 12, 500000)),
    ("NTZ", "TIMESTAMP_NTZ", "'2024-01-31 10:00:00.123456'", dt.datetime(2024, 1, 31, 10, 0, 0, 123456)),
    ("LTZ", "TIMESTAMP_LTZ", "'2024-01-31 10:00:00 +00:00'", dt.datetime(2024, 1, 31, 10, tzinfo=UTC)),
    ("TZ", "TIMESTAMP_TZ", "'2024-01-31 10:00:00 +00:00'", dt.datetime(2024, 1, 31, 10, tzinfo=UTC)),
    ("V", "VARIANT", """PARSE_JSON('{"a": [1, 2]}')""", {"a": [1, 2]}),
    ("O", "OBJECT", """PARSE_JSON('{"k": "v"}')""", {"k": "v"}),
    ("A", "ARRAY", "PARSE_JSON('[1, 2, 3]')", [1, 2, 3]),
]
TYPE_CODES = {
    "N": 0, "P": 0, "F": 1, "S": 2, "B": 11, "L": 13, "D": 3, "T": 12,
    "NTZ": 8, "LTZ": 6, "TZ": 7, "V": 5, "O": 9, "A": 10,
}  # fmt: skip


def _same(name: str, got: Any, expected: Any) -> bool:
    if name in ("V", "O", "A"):
        return json.loads(got) == expected
    if name == "B":
        return bytes(got) == expected
    return bool(got == expected)


@pytest.fixture(params=["arrow", "json"])
def typed(request: pytest.FixtureRequest, server: Server, database: str) -> Any:
    params = {"PYTHON_CONNECTOR_QUERY_RESULT_FORMAT": request.param.upper()}
    conn = server.connect(database=database, session_parameters=params)
    cur = conn.cursor()
    _create_types_table(cur)
    yield request.param, cur
    conn.close()


def _create_types_table(cur: Any) -> None:
    cur.execute(f"CREATE TABLE types ({', '.join(f'{n} {t}' for n, t, _, _ in COLUMNS)})")
    # Snowflake takes PARSE_JSON in INSERT ... SELECT, not in a VALUES list.
    cur.execute(f"INSERT INTO types SELECT {', '.join(v for _, _, v, _ in COLUMNS)}")
    cur.execute(f"INSERT INTO types VALUES ({', '.join('NULL' for _ in COLUMNS)})")


def test_fetchall_returns_python_values_of_each_type(typed: Any) -> None:
    _, cur = typed
    rows = cur.execute("SELECT * FROM types ORDER BY n NULLS LAST").fetchall()
    assert len(rows) == 2
    for (name, _, _, expected), got in zip(COLUMNS, rows[0], strict=True):
        assert _same(name, got, expected), (name, got, expected)
    assert rows[1] == tuple(None for _ in COLUMNS)


def test_description_carries_snowflake_types(typed: Any) -> None:
    _, cur = typed
    cur.execute("SELECT * FROM types")
    assert [d.name for d in cur.description] == [c[0] for c in COLUMNS]
    assert {d.name: d.type_code for d in cur.description} == TYPE_CODES
    by_name = {d.name: d for d in cur.description}
    assert (by_name["P"].precision, by_name["P"].scale) == (10, 2)
    assert by_name["S"].internal_size == 20


def test_fetch_pandas_all_gives_pandas_values(typed: Any) -> None:
    fmt, cur = typed
    if fmt == "json" and CONNECTOR_MAJOR < 5:
        # The 4.x connector converts only Arrow results to pandas, as against Snowflake.
        with pytest.raises(NotSupportedError):
            cur.execute("SELECT * FROM types").fetch_pandas_all()
        return
    frame = cur.execute("SELECT * FROM types ORDER BY n NULLS LAST").fetch_pandas_all()
    assert list(frame.columns) == [c[0] for c in COLUMNS]
    first = frame.iloc[0]
    assert first["N"] == 42
    assert float(first["P"]) == -1234.5
    assert first["S"] == "héllo"
    assert bytes(first["B"]) == b"\x01\xff"
    assert bool(first["L"]) is True
    assert first["D"] == dt.date(2024, 1, 31)
    assert first["NTZ"].to_pydatetime() == dt.datetime(2024, 1, 31, 10, 0, 0, 123456)
    assert first["LTZ"].to_pydatetime() == dt.datetime(2024, 1, 31, 10, tzinfo=UTC)
    assert first["TZ"].to_pydatetime() == dt.datetime(2024, 1, 31, 10, tzinfo=UTC)
    assert json.loads(first["V"]) == {"a": [1, 2]}
    assert frame.iloc[1].isna().all()


def test_fetch_arrow_all_gives_arrow_columns(cur: Any) -> None:
    _create_types_table(cur)
    table = cur.execute("SELECT n, p, s, d FROM types ORDER BY n NULLS LAST").fetch_arrow_all()
    assert table.column_names == ["N", "P", "S", "D"]
    assert table.column("N").to_pylist() == [42, None]
    # As from Snowflake: NUMBER(p,s) with s > 0 arrives as float64 unless the connection asks for
    # decimals (arrow_number_to_decimal); NUMBER(p,0) as the integer type its values need.
    assert table.schema.field("P").type == pa.float64()
    assert table.column("P").to_pylist() == [-1234.5, None]
    assert pa.types.is_integer(table.schema.field("N").type)
    assert table.column("S").to_pylist() == ["héllo", None]
    assert table.column("D").to_pylist() == [dt.date(2024, 1, 31), None]


def test_arrow_number_to_decimal_gives_exact_decimals(server: Server, database: str) -> None:
    with server.connect(database=database, schema="PUBLIC", arrow_number_to_decimal=True) as conn:
        cur = conn.cursor()
        cur.execute("CREATE TABLE prices (p NUMBER(15,2))")
        cur.execute("INSERT INTO prices VALUES (-1234.56), (0.01)")
        sql = "SELECT p, 12345678901234567890123::NUMBER(38,0) AS big FROM prices ORDER BY p"
        table = cur.execute(sql).fetch_arrow_all()
        assert pa.types.is_decimal(table.schema.field("P").type)
        assert table.schema.field("P").type.scale == 2
        assert table.column("P").to_pylist() == [Decimal("-1234.56"), Decimal("0.01")]
        assert table.column("BIG").to_pylist() == [Decimal("12345678901234567890123")] * 2
        assert cur.execute("SELECT p FROM prices ORDER BY p").fetchall() == [
            (Decimal("-1234.56"),),
            (Decimal("0.01"),),
        ]


def test_expressions_have_snowflake_types(typed: Any) -> None:
    _, cur = typed
    row = cur.execute(
        "SELECT 1::NUMBER(38,0) AS i, 12345678901234567890::NUMBER(38,0) AS big, 1.5::NUMBER(5,1) AS d, "
        "'x'::VARCHAR AS v, 2.0::FLOAT AS f, TRUE AS b, '2024-02-29'::DATE AS dt"
    ).fetchone()
    assert row == (1, 12345678901234567890, Decimal("1.5"), "x", 2.0, True, dt.date(2024, 2, 29))
    assert [d.type_code for d in cur.description] == [0, 0, 0, 2, 1, 13, 3]


def test_timestamp_ltz_renders_in_session_timezone(typed: Any) -> None:
    _, cur = typed
    cur.execute("ALTER SESSION SET TIMEZONE = 'Asia/Tokyo'")
    (value,) = cur.execute("SELECT ltz FROM types WHERE ltz IS NOT NULL").fetchone()
    assert value == dt.datetime(2024, 1, 31, 10, tzinfo=UTC)
    assert value.utcoffset() == dt.timedelta(hours=9)


def test_exponent_literals_are_numbers_or_floats(cur: Any) -> None:
    """1.5e3 is the NUMBER it equals; a value NUMBER cannot hold is a FLOAT. Both used to reach
    the client as a decimal of negative scale, which the connector rejects."""
    cur.execute("SELECT 1.5e3 AS a, 15e-03 AS b, 1.7976931348623157e+308 AS c, 2.5E-40 AS d")
    assert cur.fetchall() == [(1500, Decimal("0.015"), 1.7976931348623157e308, 2.5e-40)]
    assert [(d.type_code, d.scale) for d in cur.description] == [(0, 0), (0, 3), (1, None), (1, None)]


def test_insert_values_coerces_each_value_to_its_column(cur: Any) -> None:
    """Rows mixing a string and a DATE (or numbers and FLOAT specials) are coerced per column,
    as Snowflake does; they used to fail as a VALUES list of inconsistent types."""
    cur.execute("CREATE TABLE mixed (id INT, d DATE, t TIME, f FLOAT)")
    cur.execute(
        "INSERT INTO mixed VALUES (1, '2023-01-01', '12:34:56', 1.7976931348623157e+308), "
        "(2, DATE('2023-06-15'), TIME('15:30:45'), 'NaN'::FLOAT), (3, NULL, NULL, 1)"
    )
    rows = cur.execute("SELECT id, d, t, f FROM mixed ORDER BY id").fetchall()
    assert [r[:3] for r in rows] == [
        (1, dt.date(2023, 1, 1), dt.time(12, 34, 56)),
        (2, dt.date(2023, 6, 15), dt.time(15, 30, 45)),
        (3, None, None),
    ]
    assert rows[0][3] == 1.7976931348623157e308 and math.isnan(rows[1][3]) and rows[2][3] == 1.0
    with pytest.raises(ProgrammingError) as short:
        cur.execute("INSERT INTO mixed VALUES (4, '2023-01-01', NULL, 1), (5)")
    assert short.value.errno == 2020
    assert cur.execute("SELECT COUNT(*) FROM mixed").fetchone() == (3,)

"""Warehouse statements, as parsed: properties checked and spelled as SHOW WAREHOUSES prints them."""

from __future__ import annotations

import pytest

from embucket_py.errors import SqlCompilationError, SyntaxError_
from embucket_py.sql.parse import parse
from embucket_py.sql.warehouses import WarehouseStatement, warehouse_statement


def _statement(sql: str) -> WarehouseStatement | None:
    return warehouse_statement(parse(sql)[0])


def test_create_with_properties() -> None:
    found = _statement(
        "CREATE OR REPLACE WAREHOUSE IF NOT EXISTS wh WITH WAREHOUSE_SIZE = 'x-small' AUTO_SUSPEND = 60 "
        "AUTO_RESUME = FALSE INITIALLY_SUSPENDED = TRUE COMMENT = 'for dbt'"
    )
    assert found == WarehouseStatement(
        "CREATE",
        "WH",
        {
            "WAREHOUSE_SIZE": "X-Small",
            "AUTO_SUSPEND": 60,
            "AUTO_RESUME": "false",
            "INITIALLY_SUSPENDED": "true",
            "COMMENT": "for dbt",
        },
        replace=True,
        if_exists=True,
    )
    assert _statement('CREATE WAREHOUSE "my wh" WAREHOUSE_SIZE = XXLARGE').properties == {
        "WAREHOUSE_SIZE": "2X-Large"
    }
    for bad in ("WAREHOUSE_SIZE = HUGE", "AUTO_SUSPEND = 'soon'", "COLOR = 'red'"):
        with pytest.raises(SqlCompilationError):
            _statement(f"CREATE WAREHOUSE wh {bad}")


def test_alter_drop_and_describe() -> None:
    assert _statement("ALTER WAREHOUSE IF EXISTS wh RESUME IF SUSPENDED") == WarehouseStatement(
        "ALTER", "WH", operation="RESUME", if_suspended=True, if_exists=True
    )
    assert _statement("ALTER WAREHOUSE SUSPEND") == WarehouseStatement("ALTER", None, operation="SUSPEND")
    assert _statement("ALTER WAREHOUSE wh RENAME TO wh2").rename == "WH2"
    assert _statement("ALTER WAREHOUSE wh SET WAREHOUSE_SIZE = MEDIUM COMMENT = 'c'").properties == {
        "WAREHOUSE_SIZE": "Medium",
        "COMMENT": "c",
    }
    assert _statement("ALTER WAREHOUSE wh UNSET COMMENT, AUTO_SUSPEND").unset == ("COMMENT", "AUTO_SUSPEND")
    assert _statement("ALTER WAREHOUSE wh ABORT ALL QUERIES").operation == "ABORT"
    with pytest.raises(SyntaxError_):
        _statement("ALTER WAREHOUSE wh EXPLODE")
    with pytest.raises(SqlCompilationError):
        _statement("ALTER WAREHOUSE wh SET INITIALLY_SUSPENDED = TRUE")  # only at CREATE
    assert _statement("DROP WAREHOUSE IF EXISTS wh") == WarehouseStatement("DROP", "WH", if_exists=True)
    assert _statement("DESC WAREHOUSE wh") == WarehouseStatement("DESCRIBE", "WH")
    assert _statement("DROP TABLE wh") is None
    assert _statement("ALTER TABLE t SET COMMENT = 'x'") is None
    assert _statement("SELECT 1") is None

"""Errors come back as Snowflake errors (code, SQLSTATE) and the session keeps working."""

from __future__ import annotations

from typing import Any

import pytest
from snowflake.connector.errors import ProgrammingError


@pytest.mark.parametrize(
    ("sql", "errno", "sqlstate"),
    [
        ("SELEC 1", 1003, "42000"),
        ("SELECT * FROM no_such_table", 2003, "42S02"),
        ("SELECT no_such_column FROM t", 904, "42000"),
        ("CREATE TABLE t (a INT)", 2002, "42710"),
        ("USE DATABASE no_such_database", 2003, "42S02"),
        ("INSERT INTO t VALUES (1, 2)", 2020, "42601"),
    ],
)
def test_error_codes(cur: Any, sql: str, errno: int, sqlstate: str) -> None:
    cur.execute("CREATE TABLE t (a INT)")
    with pytest.raises(ProgrammingError) as err:
        cur.execute(sql)
    assert (err.value.errno, err.value.sqlstate) == (errno, sqlstate)
    assert "Traceback" not in str(err.value)
    assert err.value.sfqid
    assert cur.execute("SELECT 1").fetchone() == (1,)


def test_syntax_error_message_names_the_position(cur: Any) -> None:
    with pytest.raises(ProgrammingError) as err:
        cur.execute("SELECT FROM WHERE")
    assert "syntax error line 1" in err.value.msg

"""ALTER ACCOUNT SET | UNSET, read as the ALTER SESSION of the same settings."""

from __future__ import annotations

import sqlglot
from sqlglot import exp

from embucket_py.sql.account import account_alter


def _tree(sql: str) -> exp.Expression:
    return sqlglot.parse_one(sql, read="snowflake")


def test_alter_account_reads_as_alter_session() -> None:
    alter = account_alter(_tree("ALTER ACCOUNT SET TIMEZONE = 'UTC', WEEK_START = 1"))
    assert alter is not None
    assert alter.sql("snowflake") == _tree("ALTER SESSION SET TIMEZONE = 'UTC', WEEK_START = 1").sql(
        "snowflake"
    )
    unset = account_alter(_tree("alter account unset timezone"))
    assert unset is not None and unset.args["actions"][0].args.get("unset")


def test_other_alters_are_not_account_changes() -> None:
    assert account_alter(_tree("ALTER SESSION SET TIMEZONE = 'UTC'")) is None
    assert account_alter(_tree("ALTER ACCOUNT RENAME TO other")) is None
    assert account_alter(_tree("SELECT 1")) is None

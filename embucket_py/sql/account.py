"""ALTER ACCOUNT SET | UNSET parameters, which sqlglot keeps as a raw command: read as the ALTER
SESSION statement of the same settings (one grammar for both).
https://docs.snowflake.com/en/sql-reference/sql/alter-account"""

from __future__ import annotations

import sqlglot
from sqlglot import exp

from embucket_py.sql.stages import command_text


def account_alter(tree: exp.Expression) -> exp.Alter | None:
    """The ALTER SESSION tree of an `ALTER ACCOUNT SET | UNSET ...` command; None for others."""
    if not isinstance(tree, exp.Command) or tree.name.upper() != "ALTER":
        return None
    words = command_text(tree).split(None, 2)
    if len(words) < 3 or words[0].upper() != "ACCOUNT" or words[1].upper() not in ("SET", "UNSET"):
        return None
    alter = sqlglot.parse_one(f"ALTER SESSION {words[1]} {words[2]}", read="snowflake")
    return alter if isinstance(alter, exp.Alter) else None

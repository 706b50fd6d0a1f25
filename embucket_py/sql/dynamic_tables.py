"""Dynamic tables: CREATE DYNAMIC TABLE (a CTAS sqlglot reads, with its TARGET_LAG and WAREHOUSE)
and ALTER / DROP / DESCRIBE DYNAMIC TABLE and SHOW DYNAMIC TABLES (commands to sqlglot).

https://docs.snowflake.com/en/sql-reference/sql/create-dynamic-table
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlglot import exp

from embucket_py import naming
from embucket_py.errors import SqlCompilationError, Unsupported
from embucket_py.sql.context import SqlContext
from embucket_py.sql.names import OBJECT_NAME, name_parts, qualify, show_pattern, show_scope, table_parts
from embucket_py.sql.scripting import command_parts

_SETTINGS = ("TARGET_LAG", "WAREHOUSE", "REFRESH_MODE", "INITIALIZE")
_ALTER = re.compile(
    rf"^DYNAMIC\s+TABLE\s+(?P<exists>IF\s+EXISTS\s+)?(?P<name>{OBJECT_NAME})\s+(?P<change>REFRESH|SUSPEND|RESUME|SET)"
    r"(?P<rest>.*)$",
    re.IGNORECASE | re.DOTALL,
)
_NAMED = re.compile(
    rf"^DYNAMIC\s+TABLE\s+(?P<exists>IF\s+EXISTS\s+)?(?P<name>{OBJECT_NAME})\s*$", re.IGNORECASE | re.DOTALL
)
_SET = re.compile(r"\s*,?\s*(TARGET_LAG|WAREHOUSE)\s*=\s*('(?:[^']|'')*'|\w+)", re.IGNORECASE)
_SHOW = show_pattern(r"DYNAMIC\s+TABLES")


@dataclass(frozen=True)
class DynamicTable:
    """A CREATE DYNAMIC TABLE: the plain CTAS that makes the table, and how it is kept fresh."""

    parts: list[str]
    create: exp.Create  # the CTAS without the dynamic table's settings
    query: str  # the query a refresh runs, as Snowflake SQL
    target_lag: str  # '<n> <unit>' or DOWNSTREAM
    warehouse: str | None
    refresh_mode: str


@dataclass(frozen=True)
class DynamicStatement:
    action: str  # ALTER DROP DESCRIBE SHOW
    parts: list[str]  # the table (SHOW: the database and schema shown, or fewer)
    change: str | None = None  # REFRESH SUSPEND RESUME SET
    settings: dict[str, str] | None = None  # SET's TARGET_LAG / WAREHOUSE
    if_exists: bool = False
    like: str | None = None

    def as_table_statement(self) -> exp.Expression:
        """DROP / DESCRIBE DYNAMIC TABLE as the DROP / DESCRIBE TABLE it is for the table."""
        table = exp.Table(
            **dict(
                zip(
                    ("catalog", "db", "this"),
                    (exp.to_identifier(p, quoted=True) for p in self.parts),
                    strict=True,
                )
            )
        )
        if self.action == "DROP":
            return exp.Drop(this=table, kind="TABLE", exists=self.if_exists)
        return exp.Describe(this=table, kind="TABLE")


def dynamic_table(tree: exp.Expression, ctx: SqlContext) -> DynamicTable | None:
    """The dynamic table a CREATE makes, or None for any other statement.

    Raises:
        SqlCompilationError: no TARGET_LAG, or no query.
    """
    properties = tree.args.get("properties") if isinstance(tree, exp.Create) else None
    if properties is None or not any(isinstance(p, exp.DynamicProperty) for p in properties.expressions):
        return None
    assert isinstance(tree, exp.Create)
    settings: dict[str, str] = {}
    kept = []
    for prop in properties.expressions:
        name = prop.name.upper() if isinstance(prop, exp.Property) else ""
        if name in _SETTINGS:
            settings[name] = prop.args["value"].name
        elif not isinstance(prop, exp.DynamicProperty):
            kept.append(prop)
    query = tree.expression
    if "TARGET_LAG" not in settings or not isinstance(query, exp.Query):
        raise SqlCompilationError("CREATE DYNAMIC TABLE needs TARGET_LAG and AS <query>.", code=1003)
    create = tree.copy()
    create.set("properties", exp.Properties(expressions=[p.copy() for p in kept]) if kept else None)
    parts = qualify(table_parts(tree.this if isinstance(tree.this, exp.Table) else tree.this.this), ctx)
    return DynamicTable(
        parts,
        create,
        query.unnest().sql(dialect="snowflake"),
        settings["TARGET_LAG"],
        settings.get("WAREHOUSE", "").upper() or None,
        settings.get("REFRESH_MODE", "AUTO").upper(),
    )


def refresh_sql(parts: tuple[str, str, str], query: str) -> str:
    """The statement a refresh runs: the query's rows in place of the table's."""
    target = ".".join(naming.quote(p) for p in parts)
    return f"INSERT OVERWRITE INTO {target} {query}"


def definition_text(name: str, target_lag: str, warehouse: str | None, refresh_mode: str, query: str) -> str:
    """SHOW DYNAMIC TABLES' `text`: the CREATE DYNAMIC TABLE that makes it."""
    on = f" warehouse = {warehouse}" if warehouse else ""
    settings = f"target_lag = '{target_lag}'{on} refresh_mode = {refresh_mode}"
    return f"create dynamic table {name} {settings} as {query}"


def dynamic_statement(tree: exp.Expression, ctx: SqlContext) -> DynamicStatement | None:
    """The ALTER / DROP / DESCRIBE DYNAMIC TABLE or SHOW DYNAMIC TABLES `tree` is, or None."""
    head, rest = command_parts(tree) or ("", "")
    rest = rest.strip().rstrip(";").strip()
    if head == "ALTER" and (alter := _ALTER.match(rest)):
        change, settings = alter["change"].upper(), {}
        text = alter["rest"].strip()
        while change == "SET" and text:
            found = _SET.match(text)
            if found is None:
                raise Unsupported(f"ALTER DYNAMIC TABLE ... SET {text.split()[0]} is not supported yet.")
            settings[found[1].upper()] = found[2].strip("'")
            text = text[found.end() :].strip()
        if change != "SET" and text:
            raise SqlCompilationError(f"syntax error: unexpected '{text.split()[0]}'.", code=1003)
        return DynamicStatement(
            "ALTER", name_parts(alter["name"], ctx), change, settings, bool(alter["exists"])
        )
    if head in ("DROP", "DESCRIBE") and (named := _NAMED.match(rest)):
        return DynamicStatement(head, name_parts(named["name"], ctx), if_exists=bool(named["exists"]))
    if head == "SHOW" and (show := _SHOW.match(rest)):
        parts, like = show_scope(show, ctx)
        return DynamicStatement("SHOW", parts, like=like)
    return None

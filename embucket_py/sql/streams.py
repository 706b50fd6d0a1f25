"""Stream statements (CREATE / DROP / DESCRIBE STREAM, SHOW STREAMS), which sqlglot reads as commands, and
stream references as the CHANGES they read.

https://docs.snowflake.com/en/sql-reference/sql/create-stream
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import sqlglot
import sqlglot.errors
from sqlglot import exp

from embucket_py.errors import SqlCompilationError, Unsupported
from embucket_py.sql.context import SqlContext
from embucket_py.sql.names import OBJECT_NAME, name_parts, qualify, show_pattern, show_scope, table_parts
from embucket_py.sql.parse import parse
from embucket_py.sql.scripting import command_parts
from embucket_py.sql.transforms.tables import TimePoint, time_point

_CREATE = re.compile(
    rf"^(?P<replace>OR\s+REPLACE\s+)?STREAM\s+(?P<exists>IF\s+NOT\s+EXISTS\s+)?(?P<name>{OBJECT_NAME})"
    rf"\s+ON\s+(?P<on>TABLE|VIEW)\s+(?P<table>{OBJECT_NAME})(?P<options>.*)$",
    re.IGNORECASE | re.DOTALL,
)
# DROP's and DESCRIBE's
_NAMED = re.compile(
    rf"^STREAM\s+(?P<exists>IF\s+EXISTS\s+)?(?P<name>{OBJECT_NAME})\s*$", re.IGNORECASE | re.DOTALL
)
_SHOW = show_pattern("STREAMS")
_OPTION = re.compile(r"\s*(APPEND_ONLY|SHOW_INITIAL_ROWS|COMMENT)\s*=\s*('(?:[^']|'')*'|\w+)", re.IGNORECASE)


@dataclass(frozen=True)
class StreamStatement:
    action: str  # CREATE | DROP | DESCRIBE | SHOW
    parts: list[str]  # the stream (SHOW: the database and schema shown, or fewer)
    table: list[str] | None = None
    append_only: bool = False
    show_initial_rows: bool = False
    comment: str | None = None
    replace: bool = False
    if_exists: bool = False  # IF NOT EXISTS for CREATE
    like: str | None = None
    point: TimePoint | None = None  # AT | BEFORE: the version the stream's changes start after
    on_view: bool = False  # `table` names a view


def stream_statement(tree: exp.Expression, ctx: SqlContext) -> StreamStatement | None:
    """The stream statement `tree` is, or None.

    Raises:
        Unsupported: a stream on something other than a table or a view.
        SqlCompilationError: an option that is not a stream's.
    """
    head, rest = command_parts(tree) or ("", "")
    rest = rest.strip().rstrip(";").strip()
    if head == "CREATE" and (create := _CREATE.match(rest)):
        return _create(create, ctx)
    if head == "CREATE" and re.match(r"^(OR\s+REPLACE\s+)?STREAM\b", rest, re.IGNORECASE):
        raise Unsupported("CREATE STREAM supports streams ON TABLE and ON VIEW.")
    if head in ("DROP", "DESCRIBE") and (named := _NAMED.match(rest)):
        return StreamStatement(
            head, name_parts(named["name"], ctx, "STREAM"), if_exists=bool(named["exists"])
        )
    if head == "SHOW" and (show := _SHOW.match(rest)):
        parts, like = show_scope(show, ctx)
        return StreamStatement("SHOW", parts, like=like)
    return None


def _create(match: re.Match[str], ctx: SqlContext) -> StreamStatement:
    options: dict[str, str] = {}
    point: TimePoint | None = None
    text = match["options"].strip()
    while text:
        option = _OPTION.match(text)
        if option is None:
            if point is None and re.match(r"(AT|BEFORE)\s*\(", text, re.IGNORECASE):
                point, text = _time_point(text)
                continue
            raise SqlCompilationError(
                f"syntax error: unexpected '{text.split()[0]}' in CREATE STREAM.", code=1003
            )
        options[option[1].upper()] = option[2]
        text = text[option.end() :].strip()
    comment = options.get("COMMENT")
    return StreamStatement(
        "CREATE",
        name_parts(match["name"], ctx, "STREAM"),
        name_parts(match["table"], ctx, "STREAM"),
        append_only=options.get("APPEND_ONLY", "FALSE").upper() == "TRUE",
        show_initial_rows=options.get("SHOW_INITIAL_ROWS", "FALSE").upper() == "TRUE",
        comment=comment[1:-1].replace("''", "'") if comment else None,
        replace=bool(match["replace"]),
        if_exists=bool(match["exists"]),
        point=point,
        on_view=match["on"].upper() == "VIEW",
    )


def _time_point(text: str) -> tuple[TimePoint, str]:
    """The AT | BEFORE (...) clause at the start of `text`, and the text after it.

    Raises:
        SqlCompilationError: the clause does not close or is not a time-travel clause.
    """
    for end in (i + 1 for i, c in enumerate(text) if c == ")"):
        try:
            tree = sqlglot.parse_one(f"SELECT * FROM t {text[:end]}", read="snowflake")
        except sqlglot.errors.ParseError:
            continue
        table = tree.find(exp.Table)
        point = time_point(table) if table is not None else None
        if point is not None:
            return point, text[end:].strip()
    raise SqlCompilationError(f"syntax error: unexpected '{text.split('(')[0]}' in CREATE STREAM.", code=1003)


def view_table(query: str, ctx: SqlContext) -> list[str]:
    """The one table a view reads, for a stream on the view (qualified in the view's schema).

    Raises:
        Unsupported: the view joins, aggregates, or reads more than rows of one table.
    """
    (tree,) = parse(query)
    source = tree.args["from_"].this if isinstance(tree, exp.Select) and tree.args.get("from_") else None
    shaped = not any(tree.args.get(k) for k in ("joins", "group", "having", "distinct", "limit", "with_"))
    if (
        not isinstance(source, exp.Table)
        or not isinstance(source.this, exp.Identifier)
        or not shaped
        or tree.find(exp.Window, exp.AggFunc, exp.Subquery, exp.SetOperation)
    ):
        raise Unsupported(
            "A stream on a view reads a view of one table's rows: no joins, aggregates, DISTINCT, "
            "window functions, LIMIT or subqueries."
        )
    return qualify(table_parts(source), ctx)


def view_changes(query: str, changes: exp.Table) -> exp.Select:
    """A view's query over its table's changes (`changes_of`), with METADATA$ACTION and
    METADATA$ISUPDATE: what a stream on the view reads."""
    (tree,) = parse(query)
    assert isinstance(tree, exp.Select)
    source = tree.args["from_"].this
    changes = changes.copy()
    changes.set(
        "alias", (source.args.get("alias") or exp.TableAlias(this=exp.to_identifier(source.name))).copy()
    )
    source.replace(changes)
    if not any(isinstance(p, exp.Star) or isinstance(p.this, exp.Star) for p in tree.expressions):
        tree.select(exp.column("METADATA$ACTION"), exp.column("METADATA$ISUPDATE"), copy=False)
    return tree


def changes_of(table: list[str], append_only: bool, start: int | None, end: int | None) -> exp.Table:
    """A reference to `table` reading the CHANGES from snapshot `start` to snapshot `end` (None:
    the table's beginning; an empty table): what a stream reference reads."""

    def at(which: str, snapshot: int | None) -> exp.HistoricalData:
        value = exp.Null() if snapshot is None else exp.Literal.number(snapshot)
        return exp.HistoricalData(this=which, kind="SNAPSHOT", expression=value)

    changes = exp.Changes(
        information=exp.Var(this="APPEND_ONLY" if append_only else "DEFAULT"),
        at_before=at("AT", start),
        end=at("END", end),
    )
    database, schema, name = (exp.to_identifier(p, quoted=True) for p in table)
    return exp.Table(this=name, db=schema, catalog=database, changes=changes)

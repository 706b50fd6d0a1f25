"""Sequence statements (CREATE / ALTER / DROP / DESCRIBE SEQUENCE) and `seq.NEXTVAL` references.

https://docs.snowflake.com/en/sql-reference/sql/create-sequence
https://docs.snowflake.com/en/user-guide/querying-sequences
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sqlglot import exp

from embucket_py.errors import SqlCompilationError, Unsupported
from embucket_py.sql.context import SqlContext
from embucket_py.sql.names import normalize, qualify, table_parts
from embucket_py.sql.nodes import Nodes
from embucket_py.sql.parse import parse
from embucket_py.sql.scripting import command_parts

NEXTVAL = "NEXTVAL"


@dataclass(frozen=True)
class SequenceStatement:
    action: str  # CREATE | ALTER | DROP | DESCRIBE
    parts: list[str]
    start: int = 1
    increment: int = 1
    comment: str | None = None
    replace: bool = False
    if_exists: bool = False  # IF NOT EXISTS for CREATE
    # ALTER: increment or comment, or rename (the new qualified name)
    changes: dict[str, object] = field(default_factory=dict)


def sequence_statement(tree: exp.Expression, ctx: SqlContext) -> SequenceStatement | None:
    """The sequence statement `tree` is, or None.

    Raises:
        SqlCompilationError: an INCREMENT of 0.
        Unsupported: an ALTER SEQUENCE other than RENAME or SET / UNSET of INCREMENT and COMMENT.
    """
    command = command_parts(tree)
    if command is not None:
        return _alter(command[1].strip(), ctx) if command[0] == "ALTER" else None
    if str(tree.args.get("kind") or "").upper() != "SEQUENCE":
        return None
    if isinstance(tree, exp.Create):
        return _create(tree, ctx)
    if isinstance(tree, exp.Drop):
        (table,) = tree.args.get("tables") or [tree.this]
        return SequenceStatement("DROP", _parts(table, ctx), if_exists=bool(tree.args.get("exists")))
    if isinstance(tree, exp.Describe):
        return SequenceStatement("DESCRIBE", _parts(tree.this, ctx))
    return None


def _parts(table: exp.Expression, ctx: SqlContext) -> list[str]:
    return qualify(table_parts(table), ctx, "SEQUENCE")


def _create(tree: exp.Create, ctx: SqlContext) -> SequenceStatement:
    start, increment, comment = 1, 1, None
    for prop in tree.find_all(exp.SequenceProperties, exp.SchemaCommentProperty):
        if isinstance(prop, exp.SchemaCommentProperty):
            comment = prop.this.name
            continue
        if prop.args.get("start") is not None:
            start = _integer(prop.args["start"])
        if prop.args.get("increment") is not None:
            increment = _integer(prop.args["increment"])
    if increment == 0:
        raise SqlCompilationError("Sequence increment must not be 0.")
    return SequenceStatement(
        "CREATE",
        _parts(tree.this, ctx),
        start,
        increment,
        comment,
        replace=bool(tree.args.get("replace")),
        if_exists=bool(tree.args.get("exists")),
    )


def _integer(node: exp.Expression) -> int:
    negative = isinstance(node, exp.Neg)
    value = int((node.this if negative else node).name)
    return -value if negative else value


_ALTER = re.compile(
    r"SEQUENCE\s+(?P<exists>IF\s+EXISTS\s+)?(?P<name>\S+)\s+"
    r"(?:RENAME\s+TO\s+(?P<rename>\S+)"
    r"|(?:SET\s+)?INCREMENT\s*(?:BY\s*)?=?\s*(?P<increment>[+-]?\d+)"
    r"|SET\s+COMMENT\s*=\s*(?P<comment>'(?:[^']|'')*')"
    r"|(?P<unset>UNSET\s+COMMENT))\s*;?\s*$",
    re.IGNORECASE | re.DOTALL,
)


def _alter(text: str, ctx: SqlContext) -> SequenceStatement | None:
    if not text.upper().startswith("SEQUENCE"):
        return None
    found = _ALTER.match(text.strip())
    if found is None:
        raise Unsupported("ALTER SEQUENCE supports RENAME TO, SET INCREMENT, SET COMMENT and UNSET COMMENT.")
    changes: dict[str, object] = {}
    if found["rename"] is not None:
        changes["rename"] = _parts(_table(found["rename"]), ctx)
    elif found["increment"] is not None:
        changes["increment"] = int(found["increment"])
        if changes["increment"] == 0:
            raise SqlCompilationError("Sequence increment must not be 0.")
    elif found["comment"] is not None:
        changes["comment"] = found["comment"][1:-1].replace("''", "'")
    else:
        changes["comment"] = None
    parts = _parts(_table(found["name"]), ctx)
    return SequenceStatement("ALTER", parts, if_exists=bool(found["exists"]), changes=changes)


def _table(name: str) -> exp.Table:
    (table,) = parse(f"SELECT * FROM {name}")[0].find_all(exp.Table)
    return table


def nextval_references(nodes: Nodes) -> list[exp.Column]:
    """`seq.NEXTVAL` (also `db.schema.seq.NEXTVAL`): columns named NEXTVAL with a qualifier."""
    return [
        c
        for c in nodes.of(exp.Column)
        if isinstance(c.this, exp.Identifier)
        and normalize(c.this) == NEXTVAL
        and c.args.get("table") is not None
    ]


def sequence_parts(column: exp.Column, ctx: SqlContext) -> list[str]:
    """The qualified name of the sequence a NEXTVAL reference names."""
    table = exp.Table(this=column.args["table"], db=column.args.get("db"), catalog=column.args.get("catalog"))
    return qualify(table_parts(table), ctx, "NEXTVAL")

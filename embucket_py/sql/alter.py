"""ALTER TABLE trees -> plain actions (rename, swap, column changes, comments).

https://docs.snowflake.com/en/sql-reference/sql/alter-table
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import sqlglot
from sqlglot import exp

from embucket_py.errors import Unsupported
from embucket_py.sql.constraints import KeyDef, added_keys
from embucket_py.sql.context import SqlContext
from embucket_py.sql.ddl import ColumnDef, change_tracking, column_def
from embucket_py.sql.dialect import snowflake_type
from embucket_py.sql.dml import default_value
from embucket_py.sql.names import normalize, qualify, table_parts
from embucket_py.types import SfType


@dataclass(frozen=True)
class RenameTable:
    to: list[str]


@dataclass(frozen=True)
class SwapWith:
    other: list[str]


@dataclass(frozen=True)
class AddColumn:
    column: ColumnDef
    if_not_exists: bool = False


@dataclass(frozen=True)
class DropColumn:
    name: str
    if_exists: bool = False


@dataclass(frozen=True)
class RenameColumn:
    old: str
    new: str


@dataclass(frozen=True)
class SetColumnType:
    name: str
    type: SfType


@dataclass(frozen=True)
class SetNullable:
    name: str
    nullable: bool  # DROP NOT NULL: True; SET NOT NULL: False


@dataclass(frozen=True)
class DropDefault:
    name: str


@dataclass(frozen=True)
class SetComment:
    column: str | None  # None: the table's own comment
    comment: str | None  # None: UNSET


@dataclass(frozen=True)
class SetChangeTracking:
    """CHANGE_TRACKING = TRUE | FALSE: recorded and shown (every Iceberg snapshot tracks changes)."""

    on: bool


@dataclass(frozen=True)
class AddKey:
    key: KeyDef


@dataclass(frozen=True)
class DropKey:
    """DROP CONSTRAINT name | DROP PRIMARY KEY | DROP UNIQUE (cols) | DROP FOREIGN KEY (cols)."""

    name: str | None = None
    type: str | None = None
    columns: list[str] | None = None


Action = (
    RenameTable
    | SwapWith
    | AddColumn
    | DropColumn
    | RenameColumn
    | SetColumnType
    | SetNullable
    | DropDefault
    | SetComment
    | SetChangeTracking
    | AddKey
    | DropKey
)


@dataclass(frozen=True)
class AlterTable:
    parts: list[str]
    if_exists: bool
    actions: list[Action]


def _action(node: exp.Expression, ctx: SqlContext) -> Action:
    if isinstance(node, exp.AlterRename):
        return RenameTable(qualify(table_parts(node.this), ctx, "rename"))
    if isinstance(node, exp.SwapTable):
        return SwapWith(qualify(table_parts(node.this), ctx, "swap"))
    if isinstance(node, exp.ColumnDef):
        return AddColumn(column_def(node), bool(node.args.get("exists")))
    if isinstance(node, exp.RenameColumn):
        return RenameColumn(normalize(node.this.this), normalize(node.args["to"].this))
    if isinstance(node, exp.AlterColumn):
        name = normalize(node.this)
        comment = node.args.get("comment")
        if comment is not None:
            return SetComment(name, None if isinstance(comment, exp.Null) else comment.name)
        dtype = node.args.get("dtype")
        sf_type = snowflake_type(dtype) if dtype is not None else None
        if sf_type is not None:
            return SetColumnType(name, sf_type)
        if node.args.get("allow_null") is not None:
            return SetNullable(name, bool(node.args["allow_null"]))
        if node.args.get("drop"):
            return DropDefault(name)
    if isinstance(node, exp.AlterSet):
        for props in node.expressions:
            for prop in props.expressions if isinstance(props, exp.Properties) else [props]:
                if isinstance(prop, exp.SchemaCommentProperty):
                    return SetComment(None, prop.this.name)
                if (tracking := change_tracking(prop)) is not None:
                    return SetChangeTracking(tracking)
    unset = isinstance(node, exp.Set) and node.args.get("unset")
    if unset and [normalize(e) for e in node.expressions] == ["COMMENT"]:
        return SetComment(None, None)
    raise Unsupported(f"ALTER TABLE ... {node.sql(dialect='snowflake')[:60]} is not supported yet.")


def _actions(node: exp.Expression, ctx: SqlContext) -> list[Action]:
    """One clause's actions: DROP COLUMN a, b drops each column."""
    if isinstance(node, exp.AddConstraint):
        return [AddKey(k) for k in added_keys(node, ctx)]
    if isinstance(node, exp.Drop) and str(node.args.get("kind")).upper() == "CONSTRAINT":
        return [DropKey(name=normalize(t.this)) for t in node.args.get("tables") or []]
    if (
        isinstance(node, exp.Command)
        and node.name.upper() == "DROP"
        and (key := _dropped_key(node)) is not None
    ):
        return [key]
    if isinstance(node, exp.Drop) and str(node.args.get("kind")).upper() == "COLUMN":
        exists = bool(node.args.get("exists"))
        return [DropColumn(normalize(c.this), exists) for c in node.args.get("tables") or node.expressions]
    return [_action(node, ctx)]


_DROPPED_KEY = re.compile(r"^\s*(PRIMARY\s+KEY|UNIQUE|FOREIGN\s+KEY)\s*(?:\((.*)\))?\s*$", re.I | re.S)


def _dropped_key(node: exp.Command) -> DropKey | None:
    """DROP PRIMARY KEY | UNIQUE (cols) | FOREIGN KEY (cols), which sqlglot keeps as text."""
    rest = node.expression.name if isinstance(node.expression, exp.Expression) else str(node.expression or "")
    match = _DROPPED_KEY.match(rest)
    if match is None:
        return None
    kind = " ".join(match[1].upper().split())
    columns = (
        [
            normalize(exp.to_identifier(c.strip().strip('"'), quoted=c.strip().startswith('"')))
            for c in match[2].split(",")
        ]
        if match[2]
        else None
    )
    return DropKey(type=kind, columns=columns)


def alter_def(tree: exp.Alter, ctx: SqlContext) -> AlterTable:
    parts = qualify(table_parts(tree.this), ctx, "ALTER TABLE")
    actions = [action for a in tree.args.get("actions") or [] for action in _actions(a, ctx)]
    return AlterTable(parts, bool(tree.args.get("exists")), actions)


@dataclass(frozen=True)
class SetSecure:
    secure: bool


@dataclass(frozen=True)
class AlterView:
    parts: list[str]
    if_exists: bool
    action: SetComment | RenameTable | SetSecure


def view_alter_def(tree: exp.Expression, ctx: SqlContext) -> AlterView | None:
    """COMMENT ON VIEW v IS '...' and ALTER VIEW v RENAME TO | SET / UNSET COMMENT | SECURE; None
    for other statements. https://docs.snowflake.com/en/sql-reference/sql/alter-view"""
    kind = str(tree.args.get("kind") or "").upper()
    if not isinstance(tree, exp.Comment | exp.Alter) or kind not in ("VIEW", "MATERIALIZED VIEW"):
        return None
    parts = qualify(table_parts(tree.this), ctx, f"ALTER {kind}")
    exists = bool(tree.args.get("exists"))
    if isinstance(tree, exp.Comment):
        return AlterView(parts, exists, SetComment(None, tree.expression.name))
    actions = tree.args.get("actions") or []
    if len(actions) == 1 and _secure(actions[0]) is not None:
        return AlterView(parts, exists, SetSecure(bool(_secure(actions[0]))))
    found = [_action(action, ctx) for action in actions]
    if len(found) == 1 and isinstance(found[0], RenameTable | SetComment) and not _column_comment(found[0]):
        return AlterView(parts, exists, found[0])
    raise Unsupported(f"ALTER {kind} supports RENAME TO and SET / UNSET COMMENT | SECURE.")


def _secure(node: exp.Expression) -> bool | None:
    """SET SECURE -> True, UNSET SECURE -> False, else None."""
    if isinstance(node, exp.AlterSet) and list(node.find_all(exp.SecureProperty)):
        return True
    unset = isinstance(node, exp.Set) and node.args.get("unset")
    return False if unset and [normalize(e) for e in node.expressions] == ["SECURE"] else None


def _column_comment(action: Action) -> bool:
    return isinstance(action, SetComment) and action.column is not None


# ALTER TABLE t { ALTER | MODIFY } [COLUMN] c UNSET COMMENT, which sqlglot keeps as a command.
_UNSET_COLUMN_COMMENT = re.compile(
    r"^\s*TABLE\s+(IF\s+EXISTS\s+)?(.+?)\s+(?:ALTER|MODIFY)\s+(?:COLUMN\s+)?(.+?)\s+UNSET\s+COMMENT\s*;?\s*$",
    re.I | re.S,
)


def _unset_column_comment(tree: exp.Command) -> exp.Expression:
    rest = tree.expression.name if isinstance(tree.expression, exp.Expression) else str(tree.expression or "")
    match = _UNSET_COLUMN_COMMENT.match(rest) if tree.name.upper() == "ALTER" else None
    if match is None:
        return tree
    try:
        table = exp.to_table(match[2], dialect="snowflake")
        column = exp.to_identifier(match[3].strip('"'), quoted=match[3].startswith('"'))
    except Exception:  # not names after all: the command stays as written
        return tree
    action = exp.AlterColumn(this=column, comment=exp.Null())
    return exp.Alter(this=table, kind="TABLE", exists=bool(match[1]), actions=[action])


# ALTER SCHEMA | DATABASE [IF EXISTS] n SET COMMENT = '...' | UNSET COMMENT, which sqlglot keeps
# as a command.
_CONTAINER_COMMENT = re.compile(
    r"^\s*(SCHEMA|DATABASE)\s+(IF\s+EXISTS\s+)?(.+?)\s+"
    r"(?:SET\s+COMMENT\s*=\s*('(?:[^'\\]|\\.|'')*')|UNSET\s+COMMENT)\s*;?\s*$",
    re.I | re.S,
)
_EMPTY = "''"


def _container_comment(tree: exp.Command) -> exp.Expression:
    """ALTER SCHEMA | DATABASE ... SET | UNSET COMMENT as the COMMENT ON that sets the same comment
    (UNSET: a NULL one)."""
    rest = tree.expression.name if isinstance(tree.expression, exp.Expression) else str(tree.expression or "")
    match = _CONTAINER_COMMENT.match(rest) if tree.name.upper() == "ALTER" else None
    if match is None:
        return tree
    kind, exists, name, text = match.groups()
    try:
        comment = sqlglot.parse_one(
            f"COMMENT {exists or ''}ON {kind} {name} IS {text or _EMPTY}", read="snowflake"
        )
    except sqlglot.errors.SqlglotError:  # not a name after all: the command stays as written
        return tree
    if text is None:
        comment.set("expression", exp.Null())
    return comment


def comment_as_alter(tree: exp.Expression) -> exp.Expression:
    """COMMENT [IF EXISTS] ON TABLE t | COLUMN t.c IS '...' as the ALTER TABLE that sets the same
    comment (dbt's persist_docs writes the first), so one code path and one privilege check apply;
    ALTER TABLE's `ALTER COLUMN c UNSET COMMENT` as an ALTER TABLE too, and ALTER SCHEMA |
    DATABASE's SET / UNSET COMMENT as a COMMENT ON the schema or database.
    https://docs.snowflake.com/en/sql-reference/sql/comment"""
    if isinstance(tree, exp.Command):
        tree = _unset_column_comment(tree)
        return _container_comment(tree) if isinstance(tree, exp.Command) else tree
    if not isinstance(tree, exp.Comment) or tree.args.get("kind", "").upper() not in ("TABLE", "COLUMN"):
        return tree
    text = exp.Literal.string(tree.expression.name)
    target = tree.this
    if isinstance(target, exp.Column):
        table = exp.Table(
            this=target.args["table"], db=target.args.get("db"), catalog=target.args.get("catalog")
        )
        action: exp.Expression = exp.AlterColumn(this=target.this, comment=text)
    else:
        table = target
        comment = exp.Properties(expressions=[exp.SchemaCommentProperty(this=text)])
        action = exp.AlterSet(expressions=[comment])
    return exp.Alter(this=table, kind="TABLE", exists=bool(tree.args.get("exists")), actions=[action])


def null_count(table: str, column: str) -> exp.Select:
    """SELECT COUNT(*) FROM <table> WHERE "<column>" IS NULL: SET NOT NULL's check."""
    present = exp.column(exp.to_identifier(column, quoted=True))
    return (
        exp.select(exp.Count(this=exp.Star()))
        .from_(exp.to_table(table, dialect="snowflake"))
        .where(exp.Is(this=present, expression=exp.Null()))
    )


def default_fill(table: str, defaults: dict[str, str]) -> exp.Update:
    """UPDATE <table> SET "<column>" = <its DEFAULT>, ...: rows that exist when columns with a
    DEFAULT are added take it, as on Snowflake (`table` as Snowflake spells it)."""
    assignments = [
        exp.EQ(this=exp.column(exp.to_identifier(name, quoted=True)), expression=default_value(text))
        for name, text in defaults.items()
    ]
    return exp.Update(this=exp.to_table(table, dialect="snowflake"), expressions=assignments)

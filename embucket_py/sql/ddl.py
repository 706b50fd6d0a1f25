"""DDL trees -> plain descriptions (what to create or drop), so the engine never walks sqlglot DDL."""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlglot import exp

from embucket_py.errors import Unsupported
from embucket_py.sql.clustering import create_cluster_by
from embucket_py.sql.context import SqlContext
from embucket_py.sql.dialect import snowflake_type
from embucket_py.sql.names import normalize, qualify, table_parts
from embucket_py.sql.transforms.tables import TimePoint, time_point
from embucket_py.types import SfType


@dataclass(frozen=True)
class ColumnDef:
    name: str
    type: SfType
    nullable: bool
    comment: str | None
    default: str | None = None  # DEFAULT <expr>, as Snowflake SQL
    identity: tuple[int, int] | None = None  # AUTOINCREMENT | IDENTITY (start, increment)


@dataclass(frozen=True)
class ObjectDef:
    """CREATE or DROP of a DATABASE, SCHEMA or TABLE."""

    kind: str  # DATABASE SCHEMA TABLE
    parts: list[str]  # [database], [database, schema] or [database, schema, table]
    replace: bool = False
    if_exists: bool = False  # IF NOT EXISTS for CREATE, IF EXISTS for DROP
    columns: list[ColumnDef] | None = None
    query: exp.Expression | None = None  # CREATE TABLE ... AS SELECT
    comment: str | None = None
    transient: bool = False
    temporary: bool = False
    clone_of: list[str] | None = None  # CREATE ... CLONE source
    clone_point: TimePoint | None = None  # ... AT | BEFORE (...)
    secure: bool = False
    column_names: list[str] | None = None  # CREATE VIEW v (a, b) AS ..., CREATE TABLE t (a, b) AS ...
    change_tracking: bool = False  # CREATE TABLE ... CHANGE_TRACKING = TRUE
    cluster_by: list[str] | None = None  # CREATE TABLE ... CLUSTER BY (a, b)
    like: list[str] | None = None  # CREATE TABLE ... LIKE source
    retention_days: int | None = None  # DATA_RETENTION_TIME_IN_DAYS = n


def change_tracking(prop: exp.Expression) -> bool | None:
    """The value of a CHANGE_TRACKING = TRUE | FALSE property; None for other properties."""
    if not (isinstance(prop, exp.Property) and prop.name.upper() == "CHANGE_TRACKING"):
        return None
    value = prop.args.get("value")
    if isinstance(value, exp.Boolean):
        return bool(value.this)
    return str(value.name if isinstance(value, exp.Expression) else value).upper() in ("TRUE", "1", "ON")


def _comment(props: exp.Expression | None) -> str | None:
    if props is None:
        return None
    for prop in props.expressions:
        if isinstance(prop, exp.SchemaCommentProperty):
            return prop.this.name
    return None


def column_def(col: exp.ColumnDef) -> ColumnDef:
    kind = col.args.get("kind")
    sf_type = snowflake_type(kind) if kind is not None else None
    if sf_type is None:
        raise Unsupported(f"Unsupported data type '{kind.sql(dialect='snowflake') if kind else ''}'.")
    nullable, comment = True, None
    default: str | None = None
    identity: tuple[int, int] | None = None
    for constraint in col.constraints:
        if isinstance(constraint.kind, exp.DefaultColumnConstraint):
            default = constraint.kind.this.sql(dialect="snowflake")
        elif isinstance(constraint.kind, exp.GeneratedAsIdentityColumnConstraint):
            identity = _identity(constraint.kind)
        elif isinstance(constraint.kind, exp.AutoIncrementColumnConstraint):
            identity = (1, 1)
        elif isinstance(constraint.kind, exp.NotNullColumnConstraint):
            nullable = bool(constraint.kind.args.get("allow_null"))
        elif isinstance(constraint.kind, exp.PrimaryKeyColumnConstraint):
            nullable = False
        elif isinstance(constraint.kind, exp.CommentColumnConstraint):
            comment = constraint.kind.name
    if identity is not None and sf_type.kind != "FIXED":
        raise Unsupported(f"AUTOINCREMENT on a column of type {sf_type.sql} is not supported.")
    return ColumnDef(normalize(col.this), sf_type, nullable, comment, default, identity)


def _identity(kind: exp.GeneratedAsIdentityColumnConstraint) -> tuple[int, int]:
    """AUTOINCREMENT | IDENTITY [(start, step) | START s INCREMENT i]: both default to 1."""
    numbers = []
    for arg in ("start", "increment"):
        value = kind.args.get(arg)
        if value is None:
            numbers.append(1)
        elif isinstance(value, exp.Literal) and not value.is_string:
            numbers.append(int(value.name))
        elif isinstance(value, exp.Neg) and isinstance(value.this, exp.Literal):
            numbers.append(-int(value.this.name))
        else:
            raise Unsupported(f"AUTOINCREMENT {arg} '{value.sql(dialect='snowflake')}' is not supported.")
    return numbers[0], numbers[1]


def _object_parts(kind: str, target: exp.Expression | None, ctx: SqlContext) -> list[str]:
    table = target.this if isinstance(target, exp.Schema) else target
    if not isinstance(table, exp.Table):
        raise Unsupported(f"Unsupported {kind} name.")
    if kind == "DATABASE":
        return [normalize(table.this)]
    if kind == "SCHEMA":
        # sqlglot puts a schema's name in `db` and its database in `catalog`.
        db = table.args.get("catalog")
        database = normalize(db) if db is not None else ctx.database
        if database is None:
            qualify([None, None, None], ctx, f"{kind.lower()} operation")
        return [str(database), normalize(table.args.get("db") or table.this)]
    return qualify(table_parts(table), ctx, f"{kind.lower()} operation")


def create_def(tree: exp.Create, ctx: SqlContext) -> ObjectDef:
    kind = str(tree.args.get("kind") or "").upper()
    if kind not in ("DATABASE", "SCHEMA", "TABLE", "VIEW"):
        raise Unsupported(f"CREATE {kind} is not supported yet.")
    props = tree.args.get("properties")
    prop_names = {type(p).__name__ for p in props.expressions} if props else set()
    target = tree.this
    clone = tree.args.get("clone")
    clone_of = clone_point = None
    if clone is not None:
        if kind == "VIEW":
            raise Unsupported("CREATE VIEW ... CLONE is not supported.")
        if kind == "TABLE":
            clone_of = qualify(table_parts(clone.this), ctx, "clone")
        else:
            clone_of = _container_parts(kind, clone.this, ctx)
        clone_point = time_point(clone.this)
    columns = column_names = None
    if isinstance(target, exp.Schema) and kind == "VIEW":
        column_names = [normalize(c.this if isinstance(c, exp.ColumnDef) else c) for c in target.expressions]
    elif isinstance(target, exp.Schema) and all(isinstance(c, exp.Identifier) for c in target.expressions):
        column_names = [normalize(c) for c in target.expressions]  # names without types: CTAS
    elif isinstance(target, exp.Schema):
        columns = [column_def(c) for c in target.expressions if isinstance(c, exp.ColumnDef)]
    return ObjectDef(
        kind,
        _object_parts(kind, target, ctx),
        replace=bool(tree.args.get("replace")),
        if_exists=bool(tree.args.get("exists")),
        columns=columns,
        query=tree.args.get("expression"),
        comment=_comment(props),
        transient="TransientProperty" in prop_names,
        temporary="TemporaryProperty" in prop_names,
        clone_of=clone_of,
        clone_point=clone_point,
        secure="SecureProperty" in prop_names,
        column_names=column_names,
        change_tracking=any(change_tracking(p) for p in props.expressions) if props else False,
        cluster_by=create_cluster_by(props),
        like=_like(props, ctx),
        retention_days=_retention(props),
    )


RETENTION = "DATA_RETENTION_TIME_IN_DAYS"


def _retention(props: exp.Expression | None) -> int | None:
    for prop in props.expressions if props is not None else []:
        if isinstance(prop, exp.Property) and prop.name.upper() == RETENTION:
            return _days(prop.args.get("value"))
    return None


def _days(value: exp.Expression | None) -> int:
    if not (isinstance(value, exp.Literal) and not value.is_string and value.name.isdigit()):
        raise Unsupported(f"{RETENTION} takes a whole number of days.")
    return int(value.name)


@dataclass(frozen=True)
class RetentionChange:
    """ALTER TABLE | SCHEMA | DATABASE ... SET | UNSET DATA_RETENTION_TIME_IN_DAYS."""

    kind: str
    parts: list[str]
    days: int | None  # None: UNSET
    if_exists: bool = False


@dataclass(frozen=True)
class CommentChange:
    """COMMENT ON SCHEMA | DATABASE, and ALTER SCHEMA | DATABASE ... SET | UNSET COMMENT (parsed as
    the same COMMENT ON)."""

    kind: str
    parts: list[str]
    comment: str | None  # None: UNSET
    if_exists: bool = False


def comment_change(tree: exp.Expression, ctx: SqlContext) -> CommentChange | None:
    """The comment a COMMENT ON SCHEMA | DATABASE sets; None for any other statement."""
    kind = str(tree.args.get("kind") or "").upper()
    if not isinstance(tree, exp.Comment) or kind not in ("SCHEMA", "DATABASE"):
        return None
    table = tree.this
    if not isinstance(table, exp.Table):
        raise Unsupported(f"Unsupported {kind} name.")
    if kind == "DATABASE":
        parts = [normalize(table.this)]
    else:  # COMMENT ON puts a schema's name in `this` and its database in `db`
        db = table.args.get("db")
        database = normalize(db) if db is not None else ctx.database
        if database is None:
            qualify([None, None, None], ctx, "schema operation")
        parts = [str(database), normalize(table.this)]
    text = tree.expression
    comment = None if isinstance(text, exp.Null) else text.name
    return CommentChange(kind, parts, comment, bool(tree.args.get("exists")))


_ALTER_CONTAINER = re.compile(
    r"^\s*(SCHEMA|DATABASE)\s+(IF\s+EXISTS\s+)?(.+?)\s+(SET|UNSET)\s+DATA_RETENTION_TIME_IN_DAYS"
    r"(?:\s*=\s*(\S+))?\s*;?\s*$",
    re.IGNORECASE | re.DOTALL,
)


def retention_change(tree: exp.Expression, ctx: SqlContext) -> RetentionChange | None:
    """The retention an ALTER sets or unsets; None for any other statement."""
    if isinstance(tree, exp.Alter) and str(tree.args.get("kind") or "").upper() == "TABLE":
        actions = tree.args.get("actions") or []
        if len(actions) != 1:
            return None
        action = actions[0]
        parts = qualify(table_parts(tree.this), ctx, "ALTER TABLE")
        if isinstance(action, exp.AlterSet):
            props = [p for ps in action.expressions for p in getattr(ps, "expressions", [ps])]
            if len(props) == 1 and isinstance(props[0], exp.Property) and props[0].name.upper() == RETENTION:
                return RetentionChange(
                    "TABLE", parts, _days(props[0].args.get("value")), bool(tree.args.get("exists"))
                )
        unset = isinstance(action, exp.Set) and action.args.get("unset")
        if unset and [normalize(e) for e in action.expressions] == [RETENTION]:
            return RetentionChange("TABLE", parts, None, bool(tree.args.get("exists")))
        return None
    found = _alter_command(tree, _ALTER_CONTAINER)
    if found is None:
        return None
    kind, exists, name, verb, value = found.groups()
    kind = kind.upper()
    if verb.upper() == "SET":
        if value is None:
            raise Unsupported(f"ALTER {kind} ... SET {RETENTION} needs a value.")
        days = _days(exp.Literal.number(value) if value.isdigit() else exp.Literal.string(value))
    else:
        days = None
    return RetentionChange(kind, _container_parts(kind, name, ctx), days, exists is not None)


def _alter_command(tree: exp.Expression, pattern: re.Pattern[str]) -> re.Match[str] | None:
    """`pattern` matched against the rest of an ALTER that sqlglot keeps as a command."""
    if not (isinstance(tree, exp.Command) and str(tree.this).upper() == "ALTER"):
        return None
    text = tree.expression.name if isinstance(tree.expression, exp.Literal) else str(tree.expression or "")
    return pattern.match(text)


def _container_parts(kind: str, name: str | exp.Table, ctx: SqlContext) -> list[str]:
    """[database] or [database, schema] of a name written in an ALTER SCHEMA | DATABASE command,
    or of a CLONE's source (read as a table name: a schema's database, when given, is its `db`)."""
    name_only = name if isinstance(name, exp.Table) else exp.to_table(name.strip(), dialect="snowflake")
    if kind == "DATABASE":
        return [normalize(name_only.this)]
    database = name_only.args.get("db")
    if database is None and ctx.database is None:
        qualify([None, None, None], ctx, "schema operation")
    return [normalize(database) if database is not None else str(ctx.database), normalize(name_only.this)]


@dataclass(frozen=True)
class ContainerMove:
    """ALTER SCHEMA | DATABASE [IF EXISTS] n RENAME TO m | SWAP WITH m."""

    kind: str  # SCHEMA DATABASE
    verb: str  # RENAME SWAP
    parts: list[str]  # [database, schema] or [database]
    other: list[str]  # the new name, or the one swapped with (as `parts`)
    if_exists: bool = False


_MOVE_CONTAINER = re.compile(
    r"^\s*(SCHEMA|DATABASE)\s+(IF\s+EXISTS\s+)?(.+?)\s+(RENAME\s+TO|SWAP\s+WITH)\s+(.+?)\s*;?\s*$",
    re.IGNORECASE | re.DOTALL,
)


def container_move(tree: exp.Expression, ctx: SqlContext) -> ContainerMove | None:
    """The rename or swap an ALTER SCHEMA | DATABASE makes (sqlglot keeps it as a command); None
    for any other statement. A schema's new name without a database stays in its database.
    https://docs.snowflake.com/en/sql-reference/sql/alter-schema"""
    found = _alter_command(tree, _MOVE_CONTAINER)
    if found is None:
        return None
    kind, exists, name, verb, other = found.groups()
    kind = kind.upper()
    parts = _container_parts(kind, name, ctx)
    other_parts = _container_parts(kind, other, SqlContext(parts[0], None, ctx.values))
    return ContainerMove(kind, verb.split()[0].upper(), parts, other_parts, exists is not None)


def _like(props: exp.Expression | None, ctx: SqlContext) -> list[str] | None:
    for prop in props.expressions if props is not None else []:
        if isinstance(prop, exp.LikeProperty) and isinstance(prop.this, exp.Table):
            return qualify(table_parts(prop.this), ctx, "create table like")
    return None


def drop_def(tree: exp.Drop, ctx: SqlContext) -> ObjectDef:
    kind = str(tree.args.get("kind") or "").upper()
    if kind not in ("DATABASE", "SCHEMA", "TABLE", "VIEW"):
        raise Unsupported(f"DROP {kind} is not supported yet.")
    target = tree.this if tree.this is not None else (tree.args.get("tables") or [None])[0]
    return ObjectDef(kind, _object_parts(kind, target, ctx), if_exists=bool(tree.args.get("exists")))

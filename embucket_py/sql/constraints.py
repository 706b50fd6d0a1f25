"""PRIMARY KEY, UNIQUE and FOREIGN KEY constraints declared in CREATE TABLE, as plain descriptions.

Snowflake records these constraints but enforces none of them (only NOT NULL is enforced); tools
such as snowflake-sqlalchemy read them back with SHOW PRIMARY | UNIQUE | IMPORTED KEYS.
https://docs.snowflake.com/en/sql-reference/constraints-overview
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlglot import exp

from embucket_py.errors import Unsupported
from embucket_py.sql.context import SqlContext
from embucket_py.sql.names import normalize, qualify, table_parts

PRIMARY_KEY = "PRIMARY KEY"
UNIQUE = "UNIQUE"
FOREIGN_KEY = "FOREIGN KEY"


@dataclass(frozen=True)
class KeyDef:
    """One declared constraint; `references` ([database, schema, table]) for a FOREIGN KEY, whose
    `referenced_columns` may be empty (it then refers to the other table's primary key)."""

    type: str
    columns: list[str]
    name: str | None = None
    references: list[str] | None = None
    referenced_columns: list[str] = field(default_factory=list)


def declared_keys(tree: exp.Create, ctx: SqlContext) -> list[KeyDef]:
    """The constraints of a CREATE TABLE (t (...)), column-level and out-of-line, in order."""
    target = tree.this
    if not isinstance(target, exp.Schema):
        return []
    keys: list[KeyDef] = []
    for item in target.expressions:
        if isinstance(item, exp.ColumnDef):
            keys.extend(_column_keys(item, ctx))
        elif isinstance(item, exp.Constraint):
            name = normalize(item.this) if isinstance(item.this, exp.Identifier) else None
            keys.extend(k for e in item.expressions if (k := table_key(e, name, ctx)) is not None)
        elif (key := table_key(item, None, ctx)) is not None:
            keys.append(key)
    return keys


def _names(nodes: list[exp.Expression]) -> list[str]:
    return [normalize(n) if isinstance(n, exp.Identifier) else normalize(n.name) for n in nodes]


def _column_keys(column: exp.ColumnDef, ctx: SqlContext) -> list[KeyDef]:
    name = [normalize(column.this)]
    keys = []
    for constraint in column.constraints:
        label = normalize(constraint.this) if isinstance(constraint.this, exp.Identifier) else None
        kind = constraint.kind
        if isinstance(kind, exp.PrimaryKeyColumnConstraint):
            keys.append(KeyDef(PRIMARY_KEY, name, label))
        elif isinstance(kind, exp.UniqueColumnConstraint):
            keys.append(KeyDef(UNIQUE, name, label))
        elif isinstance(kind, exp.Reference):
            keys.append(_reference(name, kind, label, ctx))
    return keys


def table_key(node: exp.Expression, name: str | None, ctx: SqlContext) -> KeyDef | None:
    """An out-of-line constraint (PRIMARY KEY (...), UNIQUE (...), FOREIGN KEY (...) REFERENCES);
    None for anything else."""
    if isinstance(node, exp.PrimaryKey):
        return KeyDef(PRIMARY_KEY, _names(node.expressions), name)
    if isinstance(node, exp.UniqueColumnConstraint) and isinstance(node.this, exp.Schema):
        return KeyDef(UNIQUE, _names(node.this.expressions), name)
    if isinstance(node, exp.ForeignKey) and isinstance(node.args.get("reference"), exp.Reference):
        return _reference(_names(node.expressions), node.args["reference"], name, ctx)
    return None


def _reference(columns: list[str], ref: exp.Reference, name: str | None, ctx: SqlContext) -> KeyDef:
    target = ref.this
    referenced: list[str] = []
    if isinstance(target, exp.Schema):
        referenced = _names(target.expressions)
        target = target.this
    assert isinstance(target, exp.Table)
    return KeyDef(FOREIGN_KEY, columns, name, qualify(table_parts(target), ctx), referenced)


def added_keys(node: exp.AddConstraint, ctx: SqlContext) -> list[KeyDef]:
    """ALTER TABLE ... ADD [CONSTRAINT name] PRIMARY KEY | UNIQUE | FOREIGN KEY ...."""
    keys = []
    for item in node.expressions:
        name = (
            normalize(item.this)
            if isinstance(item, exp.Constraint) and isinstance(item.this, exp.Identifier)
            else None
        )
        for key_node in item.expressions if isinstance(item, exp.Constraint) else [item]:
            if (key := table_key(key_node, name, ctx)) is None:
                raise Unsupported(
                    f"ALTER TABLE ... ADD {key_node.sql(dialect='snowflake')[:60]} is not supported."
                )
            keys.append(key)
    return keys

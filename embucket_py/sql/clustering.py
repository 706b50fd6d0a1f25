"""Clustering statements: CLUSTER BY on CREATE TABLE, and ALTER TABLE ... CLUSTER BY (...) /
DROP CLUSTERING KEY / RECLUSTER / SUSPEND | RESUME RECLUSTER."""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlglot import exp, parse_one

from embucket_py.errors import SqlCompilationError
from embucket_py.sql.context import SqlContext
from embucket_py.sql.names import normalize, qualify, table_parts


@dataclass(frozen=True)
class ClusteringDef:
    parts: list[str]  # database, schema, table
    action: str  # CLUSTER, DROP, RECLUSTER, SUSPEND, RESUME
    columns: list[str] | None = None  # Snowflake names of the key's columns, for CLUSTER


def key_columns(keys: list[exp.Expression]) -> list[str]:
    """The columns a clustering key orders by. An expression key (`TO_DATE(ts)`) clusters by the
    column it reads: ordering by the column orders every monotonic expression of it as well."""
    names: list[str] = []
    for key in keys:
        column = key if isinstance(key, exp.Column) else key.find(exp.Column)
        if column is None:
            raise SqlCompilationError(f"Clustering key '{key.sql('snowflake')}' must reference a column.")
        name = normalize(column.this)
        if name not in names:
            names.append(name)
    return names


def create_cluster_by(props: exp.Expression | None) -> list[str] | None:
    """CREATE TABLE ... CLUSTER BY (...)."""
    for prop in props.expressions if props is not None else []:
        if isinstance(prop, exp.ClusterProperty):
            return key_columns(prop.expressions)
    return None


_COMMAND = re.compile(
    r"^\s*ALTER\s+TABLE\s+(?:IF\s+EXISTS\s+)?(?P<name>.+?)\s+"
    r"(?P<action>RECLUSTER|SUSPEND\s+RECLUSTER|RESUME\s+RECLUSTER|DROP\s+CLUSTERING\s+KEY)\b.*$",
    re.IGNORECASE | re.DOTALL,
)


def clustering_def(tree: exp.Expression, ctx: SqlContext) -> ClusteringDef | None:
    """The clustering statement `tree` is, or None when it is something else."""
    if isinstance(tree, exp.Alter) and str(tree.args.get("kind") or "").upper() == "TABLE":
        actions = tree.args.get("actions") or []
        if len(actions) == 1 and isinstance(actions[0], exp.ClusterProperty):
            parts = qualify(table_parts(tree.this), ctx)
            return ClusteringDef(parts, "CLUSTER", key_columns(actions[0].expressions))
        if len(actions) == 1 and isinstance(actions[0], exp.Command):
            text = f"{actions[0].name} {actions[0].expression}".upper()
            if re.fullmatch(r"DROP\s+CLUSTERING\s+KEY", text.strip()):
                return ClusteringDef(qualify(table_parts(tree.this), ctx), "DROP")
        return None
    if not isinstance(tree, exp.Command):
        return None
    match = _COMMAND.match(f"{tree.name} {tree.expression}")
    if match is None:
        return None
    table = parse_one(match["name"], read="snowflake", into=exp.Table)
    action = match["action"].split()[0].upper()
    return ClusteringDef(qualify(table_parts(table), ctx), "DROP" if action == "DROP" else action)

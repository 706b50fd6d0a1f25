"""EXPLAIN [USING TABULAR | TEXT | JSON] <query>: the query's plan, from DataFusion's optimized
logical plan, in Snowflake's three shapes. Partition figures count the Iceberg data files each
table scan is planned to read (files pruned by Parquet statistics show up only when it runs).
https://docs.snowflake.com/en/sql-reference/sql/explain"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from sqlglot import exp

from embucket_py.catalog.tables import TableName, Tables
from embucket_py.engine.context import for_recursion, new_context, register_tables
from embucket_py.engine.failures import from_datafusion
from embucket_py.engine.history import SOURCE_SCHEMA
from embucket_py.engine.query import attach_functions, translate
from embucket_py.engine.result import QueryResult, StatementType, constant
from embucket_py.engine.time_travel import resolve
from embucket_py.errors import Unsupported
from embucket_py.sql.context import SqlContext
from embucket_py.sql.names import SourceText
from embucket_py.sql.parse import parse
from embucket_py.sql.transforms.tables import TableUse
from embucket_py.types import MAX_VARCHAR, NUMBER_38_0, SfType

TEXT = SfType("TEXT", length=MAX_VARCHAR)

# https://docs.snowflake.com/en/sql-reference/sql/explain#output
TABULAR = [
    ("step", NUMBER_38_0),
    ("id", NUMBER_38_0),
    ("parent", NUMBER_38_0),
    ("operation", TEXT),
    ("objects", TEXT),
    ("alias", TEXT),
    ("expressions", TEXT),
    ("partitionsTotal", NUMBER_38_0),
    ("partitionsAssigned", NUMBER_38_0),
    ("bytesAssigned", NUMBER_38_0),
]

# DataFusion operator -> the name Snowflake gives the same step.
_OPERATIONS = {
    "Projection": "Result",
    "Filter": "Filter",
    "TableScan": "TableScan",
    "Aggregate": "Aggregate",
    "Sort": "Sort",
    "Limit": "Limit",
    "Union": "UnionAll",
    "Window": "WindowFunction",
    "Values": "ValuesClause",
    "EmptyRelation": "Generator",
    "Distinct": "Aggregate",
    "CrossJoin": "CartesianJoin",
}

_JOINS = {
    "Inner Join": "InnerJoin",
    "Left Join": "LeftOuterJoin",
    "Right Join": "RightOuterJoin",
    "Full Join": "FullOuterJoin",
    "LeftSemi Join": "SemiJoin",
    "LeftAnti Join": "AntiJoin",
}

_FORMAT = re.compile(r"^\s*USING\s+(TABULAR|TEXT|JSON)\b", re.IGNORECASE)


def is_explain(tree: exp.Expression) -> bool:
    return isinstance(tree, exp.Command) and str(tree.this).upper() == "EXPLAIN"


@dataclass
class Step:
    id: int
    parent: int | None
    operation: str
    expressions: str | None
    objects: str | None = None
    alias: str | None = None
    partitions: tuple[int, int, int] | None = None  # total, assigned, bytes
    children: list[Step] = field(default_factory=list)


def run(tables: Tables, tree: exp.Command, ctx: SqlContext) -> QueryResult:
    """Raises: Unsupported (EXPLAIN of something other than a query), SyntaxError_."""
    text = tree.expression.name if isinstance(tree.expression, exp.Literal) else str(tree.expression or "")
    match = _FORMAT.match(text)
    form = match.group(1).upper() if match else "TABULAR"
    body = text[match.end() :] if match else text
    statements = parse(body)
    query = statements[0]
    if len(statements) != 1 or not isinstance(
        query, exp.Select | exp.SetOperation | exp.Values | exp.Subquery
    ):
        raise Unsupported("EXPLAIN of a statement other than a query is not supported yet.")
    steps = _steps(tables, query, ctx, SourceText(body))
    totals = _totals(steps)
    if form == "TEXT":
        return constant([("content", TEXT)], [(_text(steps, totals),)], StatementType.EXPLAIN)
    if form == "JSON":
        return constant([("content", TEXT)], [(_json(steps, totals),)], StatementType.EXPLAIN)
    rows: list[tuple[object, ...]] = [(None, None, None, "GlobalStats", None, None, None, *totals)]
    for step in steps:
        total, assigned, nbytes = step.partitions or (None, None, None)
        rows.append(
            (
                1,
                step.id,
                step.parent,
                step.operation,
                step.objects,
                step.alias,
                step.expressions,
                total,
                assigned,
                nbytes,
            )
        )
    return constant(TABULAR, rows, StatementType.EXPLAIN)


def _steps(tables: Tables, query: exp.Expression, ctx: SqlContext, source: SourceText) -> list[Step]:
    """One step per operator of the optimized plan, parents before children. Subquery aliases are
    not steps of their own: a user's alias shows on the scan under it."""
    translation = translate(tables, query, ctx, source)
    df_ctx = new_context()
    if translation.recursive:
        for_recursion(df_ctx)
    register_tables(df_ctx, tables, translation.tables, ctx)
    attach_functions(df_ctx, tables, translation.sql)
    try:
        logical = df_ctx.sql(translation.sql).optimized_logical_plan()
    except Exception as e:
        raise from_datafusion(e) from None
    uses = {use.registered_as: use for use in translation.tables}
    steps: list[Step] = []
    internal: dict[str, str] = {}  # the scans' engine names -> the names the query gave them
    # Ancestors: (depth, step, user's alias, table use). Each table is registered as a view named
    # `__t<n>` over a scan of its files; that view and the user's alias are subquery aliases above
    # the scan, which are not steps of their own.
    stack: list[tuple[int, Step | None, str | None, TableUse | None]] = []
    for line in logical.display_indent().splitlines():
        if not line.strip():
            continue
        depth = (len(line) - len(line.lstrip(" "))) // 2
        head, _, rest = line.strip().partition(":")
        rest = rest.strip()
        while stack and stack[-1][0] >= depth:
            stack.pop()
        parent, alias, use = stack[-1][1:] if stack else (None, None, None)
        if head == "SubqueryAlias":
            if rest in uses:
                stack.append((depth, parent, alias, uses[rest]))
            else:
                stack.append((depth, parent, None if rest.startswith("__") else rest, use))
            continue
        name = "Join" if head.endswith("Join") else head
        operation = _JOINS.get(head, head.replace(" ", "")) if name == "Join" else _OPERATIONS.get(name, name)
        if name == "Sort" and "fetch=" in rest:
            operation = "SortWithLimit"
        step = Step(len(steps), parent.id if parent else None, operation, rest or None)
        if name == "TableScan" and use is not None and use.schema != SOURCE_SCHEMA:  # not rows built here
            step.objects = f"{use.database}.{use.schema}.{use.name}"
            step.alias = _alias(alias, use)
            step.partitions = _partitions(tables, TableName(use.database, use.schema, use.name), use, ctx)
            step.expressions = _columns(rest)
            internal[line.strip().split(" ")[1]] = alias or use.name
        steps.append(step)
        stack.append((depth, step, alias, use))  # a scan below still belongs to the same table
    return _named(steps, internal)


def _alias(alias: str | None, use: TableUse) -> str | None:
    """The alias as Snowflake shows it (case-normalized); none for a table used by its own name."""
    if alias is None:
        return None
    shown = alias.upper() if alias == alias.lower() else alias
    return None if shown == use.name else shown


def _named(steps: list[Step], internal: dict[str, str]) -> list[Step]:
    """Expressions name each scan by its table (or alias), not by the engine's name for it."""
    for step in steps:
        for name, shown in internal.items():
            if step.expressions:
                step.expressions = step.expressions.replace(name + ".", shown + ".")
    return steps


def _columns(rest: str) -> str | None:
    """A scan's projected columns, as `A, B`."""
    found = re.search(r"projection=\[(.*?)\]", rest)
    return found.group(1).upper() if found else None


def _partitions(tables: Tables, ref: TableName, use: TableUse, ctx: SqlContext) -> tuple[int, int, int]:
    """(files, files, bytes) of the snapshot the scan reads: EXPLAIN plans, it does not prune."""
    table = tables.load(ref)
    point = use.point
    snapshot = resolve(table, str(ref), point, ctx).snapshot_id if point is not None else None
    if point is not None and snapshot is None:
        return 0, 0, 0
    files = Tables.scan_files(table, snapshot).files
    return len(files), len(files), sum(f.file_size_in_bytes for f in files)


def _totals(steps: list[Step]) -> tuple[int, int, int]:
    parts = [s.partitions for s in steps if s.partitions is not None]
    return (sum(p[0] for p in parts), sum(p[1] for p in parts), sum(p[2] for p in parts))


def _text(steps: list[Step], totals: tuple[int, int, int]) -> str:
    lines = [
        "GlobalStats:",
        f"    partitionsTotal={totals[0]}",
        f"    partitionsAssigned={totals[1]}",
        f"    bytesAssigned={totals[2]}",
        "Operations:",
    ]
    depth: dict[int, int] = {}
    for step in steps:
        level = depth[step.parent] + 1 if step.parent is not None else 0
        depth[step.id] = level
        parts = [f"1:{step.id}", "    " * (level + 1) + f"->{step.operation}"]
        if step.objects:
            parts.append(step.objects + (f" AS {step.alias}" if step.alias else ""))
        if step.expressions:
            parts.append(step.expressions)
        if step.partitions is not None:
            total, assigned, nbytes = step.partitions
            parts.append(
                f"{{partitionsTotal={total}, partitionsAssigned={assigned}, bytesAssigned={nbytes}}}"
            )
        lines.append("  ".join(parts))
    return "\n".join(lines) + "\n"


def _json(steps: list[Step], totals: tuple[int, int, int]) -> str:
    operations = []
    for step in steps:
        entry: dict[str, object] = {"id": step.id, "operation": step.operation}
        if step.parent is not None:
            entry["parent"] = step.parent
        if step.objects:
            entry["objects"] = [step.objects]
        if step.alias:
            entry["alias"] = step.alias
        if step.expressions:
            entry["expressions"] = [step.expressions]
        if step.partitions is not None:
            entry.update(
                partitionsTotal=step.partitions[0],
                partitionsAssigned=step.partitions[1],
                bytesAssigned=step.partitions[2],
            )
        operations.append(entry)
    stats = {"partitionsTotal": totals[0], "partitionsAssigned": totals[1], "bytesAssigned": totals[2]}
    return json.dumps({"GlobalStats": stats, "Operations": [operations]})

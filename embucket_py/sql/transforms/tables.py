"""Table references -> names the engine registers (one per reference, at the right snapshot)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from embucket_py.errors import SqlCompilationError
from embucket_py.sql.context import SqlContext
from embucket_py.sql.names import normalize, qualify, table_parts
from embucket_py.sql.nodes import Nodes
from embucket_py.sql.transforms.sampling import BlockSample, block_sample


@dataclass(frozen=True)
class TimePoint:
    """AT | BEFORE (TIMESTAMP => t | OFFSET => -n | STATEMENT => id): which version to read.
    https://docs.snowflake.com/en/sql-reference/constructs/at-before"""

    before: bool
    kind: str  # TIMESTAMP OFFSET STATEMENT
    value: exp.Expression  # evaluated by the engine: a timestamp, seconds, or a query id


@dataclass(frozen=True)
class ChangeSpan:
    """CHANGES (INFORMATION => DEFAULT | APPEND_ONLY) AT | BEFORE (...) [END (...)]: the rows a
    table gained and lost from one version to another (the current one without END).
    https://docs.snowflake.com/en/sql-reference/constructs/changes"""

    append_only: bool
    start: TimePoint
    end: TimePoint | None


@dataclass(frozen=True)
class TableUse:
    """One table reference in a query: its qualified Snowflake name and the engine-side name."""

    database: str
    schema: str
    name: str
    registered_as: str
    point: TimePoint | None = None
    sample: BlockSample | None = None  # SAMPLE SYSTEM (p): read about p% of the row groups
    changes: ChangeSpan | None = None


def _point(when: exp.HistoricalData) -> TimePoint:
    return TimePoint(when.name.upper() == "BEFORE", str(when.args["kind"]).upper(), when.expression)


def time_point(table: exp.Table) -> TimePoint | None:
    when = table.args.get("when")
    return _point(when) if isinstance(when, exp.HistoricalData) else None


def change_span(table: exp.Table) -> ChangeSpan | None:
    """Raises: SqlCompilationError: CHANGES without the AT | BEFORE it starts from."""
    changes = table.args.get("changes")
    if not isinstance(changes, exp.Changes):
        return None
    start, end = changes.args.get("at_before"), changes.args.get("end")
    if not isinstance(start, exp.HistoricalData):
        raise SqlCompilationError("CHANGES needs AT or BEFORE: the version its changes start from.")
    information = changes.args.get("information")
    append_only = information is not None and information.name.upper() == "APPEND_ONLY"
    return ChangeSpan(
        append_only, _point(start), _point(end) if isinstance(end, exp.HistoricalData) else None
    )


def cte_names(nodes: Nodes) -> set[str]:
    return {normalize(cte.args["alias"].this) for cte in nodes.of(exp.CTE)}


def stored_references(nodes: Nodes) -> list[exp.Table]:
    """The table references that name catalog objects (not CTEs, table functions or the
    engine's own registered names)."""
    ctes = cte_names(nodes)
    found = []
    for table in nodes.of(exp.Table):
        assert isinstance(table, exp.Table)
        if not isinstance(table.this, exp.Identifier):
            continue  # a table function such as range(n)
        if table.this.quoted and table.name.startswith("__") and table.args.get("db") is None:
            continue  # a table the engine registered itself (__scan, __target, ...)
        if table.args.get("db") is None and normalize(table.this) in ctes:
            continue
        found.append(table)
    return found


def table_references(tree: exp.Expression, ctx: SqlContext) -> list[TableUse]:
    """Replaces every reference to a stored table by `__t<n>` (keeping the name usable as an
    alias) and returns what each one refers to."""
    uses: list[TableUse] = []
    for table in stored_references(Nodes(tree)):
        database, schema, name = qualify(table_parts(table), ctx, "query")
        registered = f"__t{len(uses)}"
        point, sample, span = time_point(table), block_sample(table), change_span(table)
        uses.append(TableUse(database, schema, name, registered, point, sample, span))
        alias = table.args.get("alias") or exp.TableAlias(this=table.this.copy())
        table.replace(exp.Table(this=exp.to_identifier(registered, quoted=True), alias=alias))
    return uses

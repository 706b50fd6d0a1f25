"""Set operations whose branches' column types Snowflake cannot bring together are refused at
compile time, as Snowflake refuses them: `SELECT id ... UNION ALL SELECT d ...` (NUMBER with DATE)
is "inconsistent data type for result columns for set operator input branches, expected DATE,
got NUMBER(38,0)". DataFusion would cast one to the other (an integer read as days since 1970) or
fail inside the engine.

Branches fold left to right: a string takes the type it meets (NUMBER with VARCHAR compares as
NUMBER), NULL takes any, numbers fold with numbers, DATE with TIMESTAMP; "expected" names the
branch the fold fails on and "got" the fold of the branches before it. Semi-structured values meet
anything but strings (their conversions are checked per value).
"""

from __future__ import annotations

import pyarrow as pa
from datafusion import LogicalPlan, SessionContext
from datafusion.expr import Distinct, Join, Union

from embucket_py.errors import SqlCompilationError
from embucket_py.types import SfType, from_arrow_field

# Pairs of type families no branch can be brought to (in either order).
_APART = {
    frozenset(pair)
    for pair in (
        ("NUMBER", "DATE"),
        ("NUMBER", "TIMESTAMP"),
        ("NUMBER", "TIME"),
        ("NUMBER", "BOOLEAN"),
        ("NUMBER", "BINARY"),
        ("BOOLEAN", "DATE"),
        ("BOOLEAN", "TIMESTAMP"),
        ("BOOLEAN", "TIME"),
        ("BOOLEAN", "BINARY"),
        ("DATE", "TIME"),
        ("DATE", "BINARY"),
        ("TIMESTAMP", "TIME"),
        ("TIMESTAMP", "BINARY"),
        ("TIME", "BINARY"),
        ("TEXT", "BINARY"),
        # A string is no VARIANT, OBJECT or ARRAY: `v:name UNION ALL SELECT 'x'` needs v:name::STRING.
        ("TEXT", "VARIANT"),
        ("TEXT", "SEMI"),
    )
}


def _family(t: SfType | None) -> str:
    if t is None:
        return "NULL"
    if t.kind in ("FIXED", "REAL"):
        return "NUMBER"
    if t.kind.startswith("TIMESTAMP"):
        return "TIMESTAMP"
    return "SEMI" if t.kind in ("OBJECT", "ARRAY") else t.kind


def _type(field: pa.Field) -> SfType | None:
    return None if pa.types.is_null(field.type) else from_arrow_field(field)


def _folded(running: SfType | None, branch: SfType | None) -> SfType | None:
    """The type of the branches so far after meeting `branch` (checked to be compatible)."""
    ours, theirs = _family(running), _family(branch)
    if ours in ("NULL", "TEXT") and theirs not in ("NULL", "TEXT"):
        return branch
    if ours == "DATE" and theirs == "TIMESTAMP":
        return branch
    return running


def check_branches(branches: list[pa.Schema]) -> None:
    """Raises SqlCompilationError when a column's types across `branches` cannot fold."""
    if len(branches) < 2 or any(len(b) != len(branches[0]) for b in branches):
        return  # column counts are the engine's to refuse
    for column in range(len(branches[0])):
        running = _type(branches[0].field(column))
        for schema in branches[1:]:
            branch = _type(schema.field(column))
            if frozenset((_family(running), _family(branch))) in _APART:
                assert running is not None and branch is not None  # NULL meets any type
                raise SqlCompilationError(
                    "inconsistent data type for result columns for set operator input branches, "
                    f"expected {branch.sql}, got {running.sql}"
                )
            running = _folded(running, branch)


def _set_operation(plan: LogicalPlan) -> bool:
    """UNION's plan node, or the join INTERSECT and EXCEPT plan as (rows matched NULL to NULL,
    which a join written in SQL never does)."""
    variant = plan.to_variant()
    return isinstance(variant, Union) or (isinstance(variant, Join) and bool(variant.null_equals_null()))


def _branches(plan: LogicalPlan) -> list[LogicalPlan]:
    """A set operation's branches in order, those of set operations nested in it (`a UNION b UNION
    c` plans as a union of a union) taken in their place, so the fold runs over all of them."""
    found = []
    for child in plan.inputs():
        node = child
        while isinstance(node.to_variant(), Distinct):  # UNION without ALL
            node = node.inputs()[0]
        found += _branches(node) if _set_operation(node) else [child]
    return found


def check_set_operations(df_ctx: SessionContext, plan: LogicalPlan) -> None:
    """Checks every set operation of a planned (not yet optimized) query, whose branches still
    carry their own types."""
    inputs = plan.inputs()
    if len(inputs) > 1 and _set_operation(plan):
        check_branches([df_ctx.create_dataframe_from_logical_plan(b).schema() for b in _branches(plan)])
    for child in inputs:
        check_set_operations(df_ctx, child)

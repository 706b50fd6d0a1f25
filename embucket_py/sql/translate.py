"""Snowflake query tree -> DataFusion SQL, applying the rewrites in order."""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from embucket_py.sql.context import SqlContext
from embucket_py.sql.dialect import DataFusion
from embucket_py.sql.names import SourceText
from embucket_py.sql.transforms.context_functions import context_functions
from embucket_py.sql.transforms.current_time import current_time
from embucket_py.sql.transforms.dual import dual
from embucket_py.sql.transforms.functions import functions
from embucket_py.sql.transforms.generator import generator
from embucket_py.sql.transforms.identifiers import identifiers
from embucket_py.sql.transforms.lateral_aliases import ColumnLookup, lateral_aliases
from embucket_py.sql.transforms.pivot import pivot
from embucket_py.sql.transforms.projections import projections
from embucket_py.sql.transforms.recursive_ctes import recursive_ctes
from embucket_py.sql.transforms.sampling import sampling
from embucket_py.sql.transforms.tables import TableUse, table_references
from embucket_py.sql.transforms.variables import variables


@dataclass(frozen=True)
class QueryTranslation:
    sql: str
    tables: list[TableUse]
    # Per projection of the first SELECT: (engine field name, Snowflake name), None for `*`.
    projected: list[tuple[str, str] | None]


def translate_query(
    tree: exp.Expression,
    ctx: SqlContext,
    source: SourceText | None,
    columns: ColumnLookup | None = None,
) -> QueryTranslation:
    """Translates a query (SELECT, set operation, VALUES) into DataFusion SQL. `columns` tells
    the column names of stored tables (a name that is a column is not a lateral alias)."""
    tree = tree.copy()
    if isinstance(tree, exp.Values):
        tree = exp.select("*").from_(tree)
    tree = dual(tree)
    # PIVOT/UNPIVOT first: they decide the columns later steps see.
    tree = pivot(tree, ctx, columns)
    # Lateral aliases before naming: they keep the name of what the user wrote.
    tree = lateral_aliases(tree, source, ctx, columns)
    tree = recursive_ctes(tree)
    # Projection names first: they are spelled after the user's text. Table references next (they
    # need Snowflake names); identifiers last (every remaining name becomes its stored form).
    projected = projections(tree, source)
    tree = variables(tree, ctx.variables)
    tree = context_functions(tree, ctx.values)
    tree = current_time(tree)
    tree = generator(tree)
    tree = functions(tree, ctx)
    tree = sampling(tree, ctx, columns)
    tables = table_references(tree, ctx)
    tree = identifiers(tree)
    return QueryTranslation(tree.sql(dialect=DataFusion), tables, projected)

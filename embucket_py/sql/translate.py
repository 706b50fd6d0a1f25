"""Snowflake query tree -> DataFusion SQL, applying the rewrites in order."""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from embucket_py.sql.context import SqlContext
from embucket_py.sql.dialect import DataFusion
from embucket_py.sql.names import SourceText
from embucket_py.sql.transforms.context_functions import context_functions
from embucket_py.sql.transforms.functions import functions
from embucket_py.sql.transforms.generator import generator
from embucket_py.sql.transforms.identifiers import identifiers
from embucket_py.sql.transforms.projections import projections
from embucket_py.sql.transforms.tables import TableUse, table_references
from embucket_py.sql.transforms.variables import variables


@dataclass(frozen=True)
class QueryTranslation:
    sql: str
    tables: list[TableUse]
    # Per projection of the first SELECT: (engine field name, Snowflake name), None for `*`.
    projected: list[tuple[str, str] | None]


def translate_query(tree: exp.Expression, ctx: SqlContext, source: SourceText | None) -> QueryTranslation:
    """Translates a query (SELECT, set operation, VALUES) into DataFusion SQL."""
    tree = tree.copy()
    if isinstance(tree, exp.Values):
        tree = exp.select("*").from_(tree)
    # Projection names first: they are spelled after the user's text. Table references next (they
    # need Snowflake names); identifiers last (every remaining name becomes its stored form).
    projected = projections(tree, source)
    tree = variables(tree, ctx.variables)
    tree = context_functions(tree, ctx.values)
    tree = generator(tree)
    tree = functions(tree)
    tables = table_references(tree, ctx)
    tree = identifiers(tree)
    return QueryTranslation(tree.sql(dialect=DataFusion), tables, projected)

"""Dispatch of the stage family: stages, file formats, PUT/GET/LIST/REMOVE, COPY (load and unload)."""

from __future__ import annotations

from sqlglot import exp

from embucket_py.catalog.tables import Tables
from embucket_py.engine import copy, staged_query, stages, unload
from embucket_py.engine.result import QueryResult
from embucket_py.errors import Unsupported
from embucket_py.sessions.session import Session
from embucket_py.sql import stages as sql
from embucket_py.sql.context import SqlContext


def run(
    resolver: stages.StageResolver, tables: Tables, session: Session, tree: exp.Expression, ctx: SqlContext
) -> QueryResult:
    """Runs one statement for which `sql.is_stage_statement(tree)` holds."""
    kind = str(tree.args.get("kind") or "").upper()
    if isinstance(tree, exp.Create) and (call := sql.using_template(tree)) is not None:
        return staged_query.create_from_template(resolver, tables, session, tree, call, ctx)
    if isinstance(tree, exp.Create) and kind == "STAGE":
        return stages.create_stage(resolver, session, sql.stage_def(tree, ctx))
    if isinstance(tree, exp.Create):
        return stages.create_file_format(resolver, session, sql.file_format_def(tree, ctx))
    if isinstance(tree, exp.Drop):
        return stages.drop(resolver, session, sql.object_ref(tree, ctx))
    if isinstance(tree, exp.Describe):
        return stages.describe(resolver, session, sql.object_ref(tree, ctx))
    if isinstance(tree, exp.Show):
        return stages.show(resolver, session, tree, ctx)
    if isinstance(tree, exp.Put):
        return stages.put(resolver, session, sql.put_def(tree, ctx))
    if isinstance(tree, exp.Get):
        return stages.get(resolver, session, sql.get_tree_def(tree, ctx))
    if isinstance(tree, exp.ListStage):
        return stages.list_files(resolver, session, sql.list_def(tree, ctx))
    if isinstance(tree, exp.Copy):
        d = sql.copy_def(tree, ctx)
        if isinstance(d, sql.CopyLoadDef):
            return copy.copy_into_table(tables, resolver, session, d, ctx)
        return unload.copy_into_location(tables, resolver, session, d, ctx)
    if isinstance(tree, exp.Command):
        head = tree.name.upper()
        text = sql.command_text(tree)
        if head == "GET":
            return stages.get(resolver, session, sql.get_def(text, ctx))
        if head in ("REMOVE", "RM"):
            return stages.list_files(resolver, session, sql.remove_def(text, ctx))
        if head == "ALTER":
            return stages.alter_file_format(resolver, session, sql.alter_file_format_def(text, ctx))
    raise Unsupported(f"Statement '{tree.sql(dialect='snowflake')[:60]}' is not supported yet.")

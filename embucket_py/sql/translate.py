"""Snowflake query tree -> DataFusion SQL, applying the rewrites in order."""

from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from dataclasses import dataclass, replace

from sqlglot import exp

from embucket_py.sql.context import SqlContext
from embucket_py.sql.dialect import DataFusion
from embucket_py.sql.names import SourceText
from embucket_py.sql.transforms.asof_joins import asof_joins
from embucket_py.sql.transforms.connect_by import connect_by
from embucket_py.sql.transforms.context_functions import context_functions
from embucket_py.sql.transforms.current_time import current_time
from embucket_py.sql.transforms.dual import dual
from embucket_py.sql.transforms.fetch import fetch
from embucket_py.sql.transforms.functions import functions
from embucket_py.sql.transforms.generator import generator
from embucket_py.sql.transforms.grouping_sets import grouping_sets
from embucket_py.sql.transforms.identifiers import identifiers
from embucket_py.sql.transforms.lambdas import lambdas
from embucket_py.sql.transforms.lateral_aliases import ColumnLookup, lateral_aliases
from embucket_py.sql.transforms.order_by_all import order_by_all
from embucket_py.sql.transforms.pivot import pivot
from embucket_py.sql.transforms.positional_columns import positional_columns
from embucket_py.sql.transforms.projections import projections
from embucket_py.sql.transforms.qualify import qualify_has_windows
from embucket_py.sql.transforms.recursive_ctes import recursive_ctes
from embucket_py.sql.transforms.sampling import sampling
from embucket_py.sql.transforms.shared_ctes import shared_ctes
from embucket_py.sql.transforms.star_columns import star_columns
from embucket_py.sql.transforms.star_objects import star_objects
from embucket_py.sql.transforms.subquery_predicates import subquery_predicates
from embucket_py.sql.transforms.tables import TableUse, table_references
from embucket_py.sql.transforms.using_joins import using_joins
from embucket_py.sql.transforms.variables import variables


@dataclass(frozen=True)
class QueryTranslation:
    sql: str
    tables: list[TableUse]
    # Per projection of the first SELECT: (engine field name, Snowflake name), None for `*`.
    projected: list[tuple[str, str] | None]
    # CTEs read more than once, computed first: (registered name, SQL), and the query over them.
    shared: tuple[tuple[str, str], ...] = ()
    sql_over_shared: str | None = None
    # The query holds a recursive CTE (see engine/context.py `for_recursion`).
    recursive: bool = False


def translate_query(
    tree: exp.Expression,
    ctx: SqlContext,
    source: SourceText | None,
    columns: ColumnLookup | None = None,
) -> QueryTranslation:
    """Translates a query (SELECT, set operation, VALUES) into DataFusion SQL. `columns` tells
    the column names of stored tables (a name that is a column is not a lateral alias).

    Translations are cached (see `TranslationCache`): a repeated statement skips the rewrites."""
    return CACHE.translate(tree, ctx, source, columns)


def _translate(
    tree: exp.Expression,
    ctx: SqlContext,
    source: SourceText | None,
    columns: ColumnLookup | None,
) -> QueryTranslation:
    tree = tree.copy()
    if isinstance(tree, exp.Values):
        tree = exp.select("*").from_(tree)
    tree = qualify_has_windows(dual(fetch(asof_joins(tree))))
    # PIVOT/UNPIVOT first: they decide the columns later steps see.
    tree = pivot(tree, ctx, columns)
    tree = star_columns(tree, ctx, columns)
    tree = order_by_all(tree, ctx, columns)
    # Lateral aliases before naming: they keep the name of what the user wrote.
    tree = lateral_aliases(tree, source, ctx, columns)
    tree = recursive_ctes(tree)
    # Projection names first: they are spelled after the user's text. Table references next (they
    # need Snowflake names); identifiers last (every remaining name becomes its stored form).
    projected = projections(tree, source)
    # Lambdas once named: each body becomes a query of its own, translated as any (see lambdas.py).
    tree = lambdas(tree, ctx, lambda query, inner: _translate(query, inner, None, None))
    tree = connect_by(tree)
    tree = star_objects(tree, ctx, columns)
    tree = using_joins(tree, ctx, columns)
    tree = positional_columns(tree, ctx, columns)
    tree = variables(tree, ctx.variables)
    tree = context_functions(tree, ctx.values)
    tree = current_time(tree)
    tree = generator(tree)
    tree = functions(tree, ctx)
    tree = subquery_predicates(tree)
    tree = sampling(tree, ctx, columns)
    tree = grouping_sets(tree)
    tables = table_references(tree, ctx)
    split = shared_ctes(tree)
    tree = identifiers(tree)
    recursive = any(w.args.get("recursive") for w in tree.find_all(exp.With))
    translation = QueryTranslation(tree.sql(dialect=DataFusion), tables, projected, recursive=recursive)
    if split is None:
        return translation
    main, ctes = split
    shared = tuple((name, identifiers(query).sql(dialect=DataFusion)) for name, query in ctes)
    return replace(translation, shared=shared, sql_over_shared=identifiers(main).sql(dialect=DataFusion))


# Translations remembered (least recently used dropped first).
CACHE_SIZE = 512


@dataclass(frozen=True)
class _Entry:
    translation: QueryTranslation
    # The catalog answers the translation depended on: (lookup, arguments, answer). A hit asks
    # again and is used only when every answer is the same (a table changed its columns: miss).
    lookups: tuple[tuple[str, tuple[str, ...], object], ...]


class TranslationCache:
    """Translations of repeated statements. The key is everything a translation reads: the tree
    (structure and spelling), the user's text (result names follow it), the context's database,
    schema, context values, variables and session parameters. The catalog lookups it made are
    checked again on every hit. The statement's query id is not read by the rewrites, not keyed."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self._entries: OrderedDict[tuple[object, ...], _Entry] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def translate(
        self, tree: exp.Expression, ctx: SqlContext, source: SourceText | None, columns: ColumnLookup | None
    ) -> QueryTranslation:
        key = _key(tree, ctx, source, columns is not None)
        if key is None:
            return _translate(tree, ctx, source, columns)
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
        if entry is not None and _still_valid(entry, ctx, columns):
            self.hits += 1
            return _fresh(entry.translation)
        self.misses += 1
        lookups: list[tuple[str, tuple[str, ...], object]] = []
        translation = _translate(
            tree, _recording_context(ctx, lookups), source, _recording_columns(columns, lookups)
        )
        with self._lock:
            self._entries[key] = _Entry(_fresh(translation), tuple(lookups))
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)
        return translation

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


def _key(
    tree: exp.Expression, ctx: SqlContext, source: SourceText | None, with_columns: bool
) -> tuple[object, ...] | None:
    try:
        state = (
            ctx.database,
            ctx.schema,
            tuple(sorted(ctx.values.items())),
            repr(sorted(ctx.variables.items())),
            repr(sorted(ctx.parameters.items())),
        )
    except TypeError:  # values that do not sort or hash: translate without the cache
        return None
    # sqlglot's structural hash (kept on the nodes, redone for changed ones): bind values and
    # rewrites done before translation make trees differ under the same user text.
    return (
        type(tree),
        hash(tree),
        source.text if source else None,
        with_columns,
        ctx.column_kinds is None,
        state,
    )


def _recording_columns(
    columns: ColumnLookup | None, lookups: list[tuple[str, tuple[str, ...], object]]
) -> ColumnLookup | None:
    if columns is None:
        return None

    def lookup(parts: list[str]) -> list[str] | None:
        answer = columns(parts)
        lookups.append(("columns", tuple(parts), answer))
        return answer

    return lookup


def _recording_context(ctx: SqlContext, lookups: list[tuple[str, tuple[str, ...], object]]) -> SqlContext:
    kinds = ctx.column_kinds
    if kinds is None:
        return ctx

    def lookup(parts: list[str]) -> dict[str, str] | None:
        answer = kinds(parts)
        lookups.append(("kinds", tuple(parts), answer))
        return answer

    return replace(ctx, column_kinds=lookup)


def _still_valid(entry: _Entry, ctx: SqlContext, columns: ColumnLookup | None) -> bool:
    for kind, parts, answer in entry.lookups:
        lookup = columns if kind == "columns" else ctx.column_kinds
        if lookup is None or lookup(list(parts)) != answer:
            return False
    return True


def _fresh(translation: QueryTranslation) -> QueryTranslation:
    """A copy callers may change (time points hold expression trees)."""
    tables = [replace(t, point=copy.deepcopy(t.point)) if t.point else t for t in translation.tables]
    return replace(translation, tables=tables, projected=list(translation.projected))


CACHE = TranslationCache()

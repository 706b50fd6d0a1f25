"""The translation cache: a repeated statement skips the rewrites, but never answers with the
translation of a different context, tree or catalog state."""

from __future__ import annotations

import dataclasses

from sqlglot import exp

from embucket_py.sql.binds import Bind, substitute
from embucket_py.sql.context import SqlContext
from embucket_py.sql.names import SourceText
from embucket_py.sql.parse import parse
from embucket_py.sql.transforms.lateral_aliases import ColumnLookup
from embucket_py.sql.translate import TranslationCache, _translate
from tests.sql.helpers import CTX


def _run(
    cache: TranslationCache,
    text: str,
    ctx: SqlContext = CTX,
    columns: ColumnLookup | None = None,
    tree: exp.Expression | None = None,
) -> str:
    return cache.translate(tree or parse(text)[0], ctx, SourceText(text), columns).sql


def test_a_repeated_statement_is_a_hit_with_the_same_sql() -> None:
    cache = TranslationCache()
    text = "SELECT a, UPPER(b) AS u FROM t WHERE c > 1"
    first = _run(cache, text)
    second = _run(cache, text)
    assert (cache.misses, cache.hits) == (1, 1)
    assert second == first == _translate(parse(text)[0], CTX, SourceText(text), None).sql


def test_session_parameters_and_variables_are_part_of_the_key() -> None:
    cache = TranslationCache()
    text = "SELECT DAYOFWEEK(ts) FROM t"
    monday = _run(cache, text, dataclasses.replace(CTX, parameters={"WEEK_START": 1}))
    sunday = _run(cache, text, dataclasses.replace(CTX, parameters={"WEEK_START": 0}))
    assert "isodow" in monday and "isodow" not in sunday
    one = _run(cache, "SELECT $x", dataclasses.replace(CTX, variables={"X": 1}))
    two = _run(cache, "SELECT $x", dataclasses.replace(CTX, variables={"X": 2}))
    assert "SELECT 1 " in one and "SELECT 2 " in two
    assert cache.hits == 0


def test_context_values_are_part_of_the_key() -> None:
    cache = TranslationCache()
    here = _run(cache, "SELECT CURRENT_DATABASE()")
    there = _run(
        cache,
        "SELECT CURRENT_DATABASE()",
        dataclasses.replace(CTX, values={**CTX.values, "CURRENT_DATABASE": "OTHER"}),
    )
    assert "'DB'" in here and "'OTHER'" in there


def test_bound_values_make_different_trees_under_the_same_text() -> None:
    cache = TranslationCache()
    text = "SELECT ? + 1"
    tree = parse(text)[0]
    three = _run(cache, text, tree=substitute(tree, [Bind("FIXED", "2")]))
    four = _run(cache, text, tree=substitute(tree, [Bind("FIXED", "3")]))
    assert "2 + 1" in three and "3 + 1" in four


def test_a_changed_table_is_a_miss() -> None:
    # Whether `a` is a lateral alias depends on the table's columns: asked again on every hit.
    cache = TranslationCache()
    text = "SELECT 1 AS a, a + 1 AS b FROM t"
    columns = ["A"]
    with_column = _run(cache, text, columns=lambda parts: columns)
    columns = ["X"]
    without = _run(cache, text, columns=lambda parts: columns)
    assert '"a" + 1' in with_column and "1 + 1" in without
    assert (cache.misses, cache.hits) == (2, 0)
    assert _run(cache, text, columns=lambda parts: columns) == without
    assert cache.hits == 1


def test_a_parsed_text_is_remembered_but_every_caller_gets_its_own_trees() -> None:
    text = "SELECT a FROM t WHERE b = 1"
    first = parse(text)[0]
    first.find(exp.Column).replace(exp.column("changed"))  # a caller rewriting its tree in place
    second = parse(text)[0]
    assert second is not first
    assert second.sql(dialect="snowflake") == text

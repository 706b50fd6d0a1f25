"""QUALIFY filters the rows of window functions: Snowflake refuses it in a SELECT without one.

https://docs.snowflake.com/en/sql-reference/constructs/qualify
"""

from __future__ import annotations

from sqlglot import exp

from embucket_py.errors import SqlCompilationError


def qualify_has_windows(tree: exp.Expression) -> exp.Expression:
    """Checks every SELECT with QUALIFY has a window function in its list or its predicate.

    Raises:
        SqlCompilationError: a QUALIFY without any window function.
    """
    for select in tree.find_all(exp.Select):
        qualify = select.args.get("qualify")
        if qualify is not None and not any(_has_window(e) for e in (*select.expressions, qualify)):
            raise SqlCompilationError(
                "QUALIFY clause requires at least one window function in the SELECT list or the "
                "QUALIFY predicate"
            )
    return tree


def _has_window(node: exp.Expression) -> bool:
    """A window function of this SELECT's own (those of subqueries are theirs)."""
    return any(isinstance(n, exp.Window) for n in node.walk(prune=lambda n: isinstance(n, exp.Query)))

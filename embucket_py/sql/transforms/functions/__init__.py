"""Snowflake function calls -> DataFusion built-ins or the project's UDFs, one module per family.

Each family module exposes `rewrite(tree) -> tree`; they run in the order listed here.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from embucket_py.errors import Unsupported
from embucket_py.sql.context import SqlContext, activated

_FAMILIES: list[Callable[[exp.Expression], exp.Expression]] = []

# Part A (date/time, conversion, numeric, aggregates, windows, data generation): date/time first, so
# the other families see its typed results.
from embucket_py.sql.transforms.functions import aggregates as _aggregates  # noqa: E402
from embucket_py.sql.transforms.functions import conversion as _conversion  # noqa: E402
from embucket_py.sql.transforms.functions import datetime as _datetime  # noqa: E402
from embucket_py.sql.transforms.functions import generation as _generation  # noqa: E402
from embucket_py.sql.transforms.functions import implicit_casts as _implicit_casts  # noqa: E402
from embucket_py.sql.transforms.functions import numeric as _numeric  # noqa: E402

# Snowflake's implicit conversions first (the casts they add are rewritten as any other).
_FAMILIES += [_implicit_casts.rewrite, _datetime.rewrite, _conversion.rewrite, _numeric.rewrite]
_FAMILIES += [_aggregates.rewrite, _generation.rewrite]

# Part B (strings, regex, hashing, conditional): before semi-structured, whose paths and casts
# must see the ARRAY/OBJECT results of SPLIT, PARSE_URL, REGEXP_SUBSTR_ALL, ...
from embucket_py.sql.transforms.functions import conditional as _conditional  # noqa: E402
from embucket_py.sql.transforms.functions import hashing as _hashing  # noqa: E402
from embucket_py.sql.transforms.functions import regex as _regex  # noqa: E402
from embucket_py.sql.transforms.functions import strings as _strings  # noqa: E402

_FAMILIES += [_strings.rewrite, _regex.rewrite, _hashing.rewrite, _conditional.rewrite]

# Semi-structured: function calls, paths and casts first, then FLATTEN in FROM (its arguments are
# rewritten by then).
from embucket_py.sql.transforms.functions import flatten as _flatten  # noqa: E402
from embucket_py.sql.transforms.functions import semistructured as _semistructured  # noqa: E402

_FAMILIES.append(_semistructured.rewrite)
_FAMILIES.append(_flatten.rewrite)


# Snowflake's higher-order functions, whose lambdas DataFusion cannot run.
_HIGHER_ORDER = {exp.Transform: "TRANSFORM", exp.ArrayFilter: "FILTER", exp.Reduce: "REDUCE"}


def functions(tree: exp.Expression, ctx: SqlContext | None = None) -> exp.Expression:
    """Applies every family; `ctx` (session parameters, column types) is active meanwhile.

    Raises:
        Unsupported: a lambda (TRANSFORM, FILTER, REDUCE), refused by its name (DataFusion's
            error named another function).
    """
    for lam in tree.find_all(exp.Lambda):  # (TRANSFORM, FILTER and REDUCE are rewritten by then)
        name = _HIGHER_ORDER.get(type(lam.parent), type(lam.parent).__name__.upper())
        raise Unsupported(f"{name} with a lambda expression is not supported yet.")
    with activated(ctx):
        for rewrite in _FAMILIES:
            tree = rewrite(tree)
    return tree

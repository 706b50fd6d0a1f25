"""Parsing Snowflake SQL with sqlglot; parse failures become Snowflake syntax errors."""

from __future__ import annotations

import threading
from collections import OrderedDict

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from embucket_py.errors import SyntaxError_
from embucket_py.sql.stages import put_placeholder, quote_local_paths

# Parsed texts remembered (each caller gets its own copy of the trees); longer texts (bulk
# INSERT ... VALUES) rarely repeat and copy about as slowly as they parse.
CACHE_SIZE = 256
MAX_CACHED_TEXT = 20_000
_parsed: OrderedDict[str, tuple[exp.Expression, ...]] = OrderedDict()
_lock = threading.Lock()


def parse(text: str) -> list[exp.Expression]:
    """Parses one or more `;`-separated statements.

    Raises:
        SyntaxError_: the text is not valid Snowflake SQL (code 1003, SQLSTATE 42000).
    """
    with _lock:
        cached = _parsed.get(text)
        if cached is not None:
            _parsed.move_to_end(text)
    if cached is not None:
        return [t.copy() for t in cached]
    statements = _parse(text)
    if len(text) <= MAX_CACHED_TEXT:
        kept = tuple(t.copy() for t in statements)
        with _lock:
            _parsed[text] = kept
            while len(_parsed) > CACHE_SIZE:
                _parsed.popitem(last=False)
    return statements


def _parse(text: str) -> list[exp.Expression]:
    text = quote_local_paths(text)
    try:
        trees = sqlglot.parse(text, read="snowflake")
    except ParseError as e:
        first = e.errors[0] if e.errors else {}
        line = first.get("line") or 1
        col = max((first.get("col") or 1) - 1, 0)
        token = (first.get("highlight") or "").strip() or "<EOF>"
        raise SyntaxError_(f"syntax error line {line} at position {col} unexpected '{token}'.") from None
    except TokenError as e:
        raise SyntaxError_(f"syntax error line 1 at position 0 unexpected '{e}'.") from None
    # A trailing comment after the last `;` parses as an empty statement: not a statement.
    statements = [put_placeholder(t) for t in trees if t is not None and not isinstance(t, exp.Semicolon)]
    if not statements:
        raise SyntaxError_("Empty SQL statement.", code=900, sqlstate="42000")
    return statements

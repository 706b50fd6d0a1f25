"""Parsing Snowflake SQL with sqlglot; parse failures become Snowflake syntax errors."""

from __future__ import annotations

import re
import threading
from collections import OrderedDict

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import TokenType

from embucket_py.errors import SyntaxError_
from embucket_py.sql.alter import comment_as_alter
from embucket_py.sql.policies import HEAD as POLICY_HEAD
from embucket_py.sql.policies import is_policy_statement
from embucket_py.sql.routines import (
    anonymous_procedure_end,
    routine_end,
    starts_anonymous_procedure,
    starts_routine,
)
from embucket_py.sql.scripting import Parser
from embucket_py.sql.stages import put_placeholder, quote_local_paths
from embucket_py.sql.tags import HEAD as TAG_HEAD
from embucket_py.sql.tags import is_tag_statement
from embucket_py.sql.tasks import starts_task_block, task_block_end

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
    if is_policy_statement(text):  # read from its text (sqlglot reads few of them), see policies.py
        return [exp.Command(this=POLICY_HEAD, expression=exp.Literal.string(text.strip()))]
    if is_tag_statement(text):  # likewise, see tags.py
        return [exp.Command(this=TAG_HEAD, expression=exp.Literal.string(text.strip()))]
    if _SCRIPTING.search(text) and (pieces := _scripting_pieces(text)) is not None:
        statements = []
        for kind, piece in pieces:
            if kind is None:
                statements += _parse_sql(piece)
            else:  # kept as written: run from its text (sqlglot has no grammar for it)
                head = kind if piece.upper().startswith(kind) else "BEGIN"
                rest = exp.Literal.string(piece[len(head) :])
                statements.append(exp.Command(this=head, expression=rest))
        return statements
    return _parse_sql(text)


# Anonymous blocks and CREATE PROCEDURE hold `;`s of their own, and sqlglot reads only some of
# CREATE PROCEDURE's and CREATE FUNCTION's clauses: found first, the rest is sqlglot's.
_SCRIPTING = re.compile(r"\b(?:DECLARE|BEGIN|PROCEDURE|FUNCTION)\b", re.IGNORECASE)


def _scripting_pieces(text: str) -> list[tuple[str | None, str]] | None:
    """The text cut into runs of SQL statements (kind None), blocks (DECLARE), procedures or
    functions (CREATE), tasks that run a block (CREATE | ALTER) and anonymous procedures (WITH);
    None when it holds none of the latter."""
    try:
        parser = Parser(text)
    except SyntaxError_:
        return None
    pieces: list[tuple[str | None, str]] = []
    done, at_start, found = 0, True, False
    while (token := parser.peek()) is not None:
        if at_start and parser.at_block():
            kind = "DECLARE"
            parser.block()
        elif at_start and starts_routine(parser):
            kind = "CREATE"
            routine_end(parser)
        elif at_start and starts_task_block(parser):
            kind = parser.word()  # CREATE | ALTER
            task_block_end(parser)
        elif at_start and starts_anonymous_procedure(parser):
            kind = "WITH"
            anonymous_procedure_end(parser)
        else:
            at_start = token.token_type == TokenType.SEMICOLON
            parser.i += 1
            continue
        found = True
        if _has_statement(text[done : token.start]):
            pieces.append((None, text[done : token.start]))
        done = parser.tokens[parser.i - 1].end + 1
        pieces.append((kind, text[token.start : done]))
    if not found:
        return None
    if _has_statement(text[done:]):
        pieces.append((None, text[done:]))
    return pieces


def _has_statement(text: str) -> bool:
    try:
        return any(t.token_type != TokenType.SEMICOLON for t in Parser(text).tokens)
    except SyntaxError_:
        return True


_DESCRIBE_OBJECT = re.compile(
    r"^\s*DESC(?:RIBE)?\s+((?:STREAM|TASK|DYNAMIC\s+TABLE|RESULT)\s+[^;]+?)\s*;?\s*$",
    re.IGNORECASE | re.DOTALL,
)


def _parse_sql(text: str) -> list[exp.Expression]:
    text = quote_local_paths(text)
    try:
        trees = sqlglot.parse(text, read="snowflake")
    except ParseError as e:
        if described := _DESCRIBE_OBJECT.match(text):  # a kind sqlglot's DESCRIBE does not know
            return [exp.Command(this="DESCRIBE", expression=exp.Literal.string(described[1]))]
        first = e.errors[0] if e.errors else {}
        line = first.get("line") or 1
        col = max((first.get("col") or 1) - 1, 0)
        token = (first.get("highlight") or "").strip() or "<EOF>"
        raise SyntaxError_(f"syntax error line {line} at position {col} unexpected '{token}'.") from None
    except TokenError as e:
        raise SyntaxError_(f"syntax error line 1 at position 0 unexpected '{e}'.") from None
    # A trailing comment after the last `;` parses as an empty statement: not a statement.
    statements = [
        comment_as_alter(put_placeholder(_named_tables(t)))
        for t in trees
        if t is not None and not isinstance(t, exp.Semicolon)
    ]
    if not statements:
        raise SyntaxError_("Empty SQL statement.", code=900, sqlstate="42000")
    for tree in statements:
        _reject_beyond_snowflake(tree, text)
    return statements


# Forms sqlglot reads (from other dialects) that Snowflake's grammar has not: a negative LIMIT or
# OFFSET count, TOP/LIMIT ... PERCENT.
_NEGATIVE_COUNT = re.compile(r"\b(?:LIMIT|OFFSET|TOP)\s+(-)", re.IGNORECASE)
_PERCENT = re.compile(r"\bPERCENT\b", re.IGNORECASE)


def _reject_beyond_snowflake(tree: exp.Expression, text: str) -> None:
    for node in tree.find_all(exp.Limit, exp.Offset):
        if isinstance(node.expression, exp.Neg) and (found := _NEGATIVE_COUNT.search(text)):
            _unexpected(text, found.start(1), "-")
        options = node.args.get("limit_options")
        if options is not None and options.args.get("percent") and (found := _PERCENT.search(text)):
            _unexpected(text, found.start(), found.group())


def _unexpected(text: str, at: int, token: str) -> None:
    line = text.count("\n", 0, at) + 1
    column = at - (text.rfind("\n", 0, at) + 1)
    raise SyntaxError_(f"syntax error line {line} at position {column} unexpected '{token}'.")


def _named_tables(tree: exp.Expression) -> exp.Expression:
    """`TABLE($var)`, `TABLE('name')` and `TABLE(?)` name a table, as IDENTIFIER(...) does
    (https://docs.snowflake.com/en/sql-reference/identifier-literal); sqlglot reads them as a
    table function's rows."""
    for rows in list(tree.find_all(exp.TableFromRows)):
        name = rows.this
        if (
            isinstance(name, exp.Placeholder)
            or (isinstance(name, exp.Parameter) and isinstance(name.this, exp.Var))
            or (isinstance(name, exp.Literal) and name.is_string)
        ):
            table = exp.Table(this=exp.DynamicIdentifier(this=name.copy()))
            if rows.args.get("alias") is not None:
                table.set("alias", rows.args["alias"].copy())
            rows.replace(table)
    return tree

"""Identifier case rules, table-name qualification and Snowflake result column names.

https://docs.snowflake.com/en/sql-reference/identifiers-syntax
"""

from __future__ import annotations

from functools import cached_property

from sqlglot import exp
from sqlglot.dialects.snowflake import Snowflake
from sqlglot.tokens import Token, TokenType

from embucket_py.errors import SqlCompilationError
from embucket_py.sql.context import SqlContext


def normalize(ident: exp.Identifier | str) -> str:
    """Snowflake's name for an identifier: unquoted names fold to upper case."""
    if isinstance(ident, str):
        return ident.upper()
    return ident.name if ident.quoted else ident.name.upper()


def qualify(parts: list[exp.Identifier | None], ctx: SqlContext, what: str = "table") -> list[str]:
    """Fills in database and schema for a 1-, 2- or 3-part name (given as [catalog, db, name]).

    Raises:
        SqlCompilationError: the session has no current database or schema to fill in.
    """
    catalog, db, name = parts
    database = normalize(catalog) if catalog is not None else ctx.database
    schema = normalize(db) if db is not None else ctx.schema
    if database is None:
        raise SqlCompilationError(
            f"Cannot perform {what}. This session does not have a current database. "
            "Call 'USE DATABASE', or use a qualified name.",
            code=90105,
            sqlstate="22000",
        )
    if schema is None:
        raise SqlCompilationError(
            f"Cannot perform {what}. This session does not have a current schema. "
            "Call 'USE SCHEMA', or use a qualified name.",
            code=90106,
            sqlstate="22000",
        )
    return [database, schema, normalize(name) if name is not None else ""]


def table_parts(table: exp.Table) -> list[exp.Identifier | None]:
    return [table.args.get("catalog"), table.args.get("db"), table.args.get("this")]


# --- result column names -------------------------------------------------------------------------

# Tokens that end a projection's text at nesting depth 0.
_END_OF_PROJECTION = {
    TokenType.COMMA,
    TokenType.FROM,
    TokenType.INTO,
    TokenType.WHERE,
    TokenType.GROUP_BY,
    TokenType.HAVING,
    TokenType.QUALIFY,
    TokenType.ORDER_BY,
    TokenType.LIMIT,
    TokenType.FETCH,
    TokenType.OFFSET,
    TokenType.UNION,
    TokenType.EXCEPT,
    TokenType.INTERSECT,
    TokenType.WINDOW,
    TokenType.SEMICOLON,
    TokenType.ALIAS,
}
_OPEN = {TokenType.L_PAREN, TokenType.L_BRACKET, TokenType.L_BRACE}
_CLOSE = {TokenType.R_PAREN, TokenType.R_BRACKET, TokenType.R_BRACE}


class SourceText:
    """The statement text and its tokens, to name result columns as Snowflake does: after the
    expression's own text, upper-cased outside double quotes (`select a+1` -> `A+1`)."""

    def __init__(self, text: str) -> None:
        self.text = text

    # Tokenized on the first unaliased expression only (aliases and plain columns name
    # themselves): tokenizing a TPC-H query again took 0.4-0.7 ms of every statement (2 cores).
    @cached_property
    def tokens(self) -> list[Token]:
        try:
            # Snowflake's own tokenizer, as the parser used: `$1` is two tokens there, `$` and `1`.
            return Snowflake().tokenize(self.text)
        except Exception:
            return []

    @cached_property
    def _starts(self) -> dict[int, int]:
        return {t.start: i for i, t in enumerate(self.tokens)}

    def span(self, node: exp.Expression) -> str | None:
        if any(not p.this.meta.get("start") for p in node.find_all(exp.Parameter)):
            return None  # sqlglot keeps no position for `$var` (`$1` has one): the text would start too late
        start = first_start(node)
        if start is None or start not in self._starts:
            return None
        first = self._starts[start]
        # A projection opening with a subquery: its keywords (EXISTS, SELECT, ...) carry no position.
        subquery = any(first_start(q) == start for q in node.find_all(exp.Subquery, exp.Exists))
        if subquery:
            first = self._subquery_start(first)
        first = self._lead(first)
        if subquery and first > 0 and self.tokens[first - 1].token_type == TokenType.EXISTS:
            first = self._lead(first - 1)
        if first > 0 and self.tokens[first].token_type == TokenType.L_PAREN:
            # A call sqlglot keeps without a node for its name (OBJECT_CONSTRUCT_KEEP_NULL(...)).
            first -= self.tokens[first - 1].token_type == TokenType.VAR
        depth = 0
        last = first
        for i in range(first, len(self.tokens)):
            tt = self.tokens[i].token_type
            if tt in _CLOSE and depth == 0:
                break
            if depth == 0 and tt in _END_OF_PROJECTION and i > first:
                break
            depth += (tt in _OPEN) - (tt in _CLOSE)
            last = i
        return self.text[self.tokens[first].start : self.tokens[last].end + 1]

    def _lead(self, first: int) -> int:
        """Back over the tokens before a projection's first one with a position that are still
        its own (none carries a position): opening parentheses, unary minus and NOT."""
        while first > 0 and self.tokens[first - 1].token_type in _LEADING:
            first -= 1
        return first

    def _subquery_start(self, first: int) -> int:
        """The SELECT (or WITH) opening a subquery whose first token with a position is `first`
        (its keywords carry none): `(SELECT MAX(a) FROM t)` is named after all of it."""
        for i in range(first, max(first - _SUBQUERY_LEAD, -1), -1):
            if self.tokens[i].token_type in (TokenType.SELECT, TokenType.WITH):
                return i
        return first


_LEADING = (
    TokenType.L_PAREN,
    TokenType.L_BRACKET,
    TokenType.L_BRACE,
    TokenType.DASH,
    TokenType.NOT,
    TokenType.PARAMETER,
)

# Tokens a subquery may hold before its first one with a position (SELECT DISTINCT TOP 10 ...).
_SUBQUERY_LEAD = 8


def first_start(node: exp.Expression) -> int | None:
    """Where the node's text begins: the earliest position sqlglot kept in it (None: none kept)."""
    return min((n.meta["start"] for n in node.walk() if n.meta and "start" in n.meta), default=None)


def upper_outside_quotes(text: str) -> str:
    parts = text.split('"')
    return '"'.join(p.upper() if i % 2 == 0 else p for i, p in enumerate(parts))


def projection_name(node: exp.Expression, source: SourceText | None) -> str | None:
    """Snowflake's result column name for one projection; None for `*` (named by the table)."""
    if isinstance(node, exp.Alias):
        return normalize(node.args["alias"])
    if isinstance(node, exp.Star) or (isinstance(node, exp.Column) and isinstance(node.this, exp.Star)):
        return None
    if isinstance(node, exp.Column) and "start" not in node.meta:
        return normalize(node.this)
    # (A column with a position of its own stands for other text: `$1` read from a stage.)
    text = source.span(node) if source is not None else None
    if text is None:
        text = node.sql(dialect="snowflake")
    return upper_outside_quotes(" ".join(text.split()))

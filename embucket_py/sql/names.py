"""Identifier case rules, table-name qualification and Snowflake result column names.

https://docs.snowflake.com/en/sql-reference/identifiers-syntax
"""

from __future__ import annotations

import re
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
        """The text of a projection. sqlglot keeps positions on names and literals only, so the
        text is found from the earliest of them: back over what opens the projection (keywords,
        brackets, operators, calls whose first argument has no position: CASE WHEN, -(,
        DATE_PART(dow, ...) up to the token before it (SELECT, a comma, DISTINCT), then forward
        to where it ends."""
        if any(not p.this.meta.get("start") for p in node.find_all(exp.Parameter)):
            return None  # sqlglot keeps no position for `$var` (`$1` has one): the text would start too late
        start = first_start(node)
        if start is None or start not in self._starts:
            return None
        first = self._starts[start]
        # A projection opening with a subquery: its keywords (EXISTS, SELECT, ...) carry no position.
        if any(first_start(q) == start for q in node.find_all(exp.Subquery, exp.Exists)):
            first = self._subquery_start(first)
        _, unclosed = self._forward(first)
        first = self._back(first, unclosed)
        last, _ = self._forward(first)
        return self.text[self.tokens[first].start : self.tokens[last].end + 1]

    def _forward(self, first: int) -> tuple[int, int]:
        """The last token of the text that starts at `first`, and how many brackets it closes
        that it did not open (then `first` is inside a call or bracket of the projection)."""
        depth = unclosed = 0
        last = first
        for i in range(first, len(self.tokens)):
            tt = self.tokens[i].token_type
            if tt in _CLOSE and depth == 0:
                if self._opens_before(first, unclosed + 1):
                    unclosed += 1
                    last = i
                    continue
                break
            if depth == 0 and tt in _END_OF_PROJECTION and i > first and not self._inside_operator(i):
                break
            depth += (tt in _OPEN) - (tt in _CLOSE)
            last = i
        return last, unclosed

    def _opens_before(self, first: int, count: int) -> bool:
        """Whether `count` brackets open before `first` without closing, after the SELECT."""
        depth = 0
        for i in range(first - 1, -1, -1):
            tt = self.tokens[i].token_type
            if tt in (TokenType.SELECT, TokenType.WITH):
                return False
            if tt in _CLOSE:
                depth += 1
            elif tt in _OPEN:
                if depth == 0:
                    count -= 1
                    if count == 0:
                        return True
                else:
                    depth -= 1
        return False

    def _back(self, first: int, unclosed: int) -> int:
        """The projection's first token: back from `first` past `unclosed` open brackets, to
        the token before the projection (SELECT [DISTINCT | ALL] [TOP n], or a comma)."""
        depth = 0
        i = first - 1
        while i >= 0:
            tt = self.tokens[i].token_type
            previous = self.tokens[i - 1].token_type if i > 0 else None
            if tt in (TokenType.SELECT, TokenType.WITH) or (
                tt in (TokenType.DISTINCT, TokenType.ALL) and previous == TokenType.SELECT
            ):
                break
            if previous == TokenType.TOP:  # SELECT TOP n
                break
            if tt in _CLOSE:
                depth += 1
            elif tt in _OPEN:
                if depth:
                    depth -= 1
                else:
                    unclosed -= 1
            elif tt == TokenType.COMMA and depth == 0 and unclosed <= 0:
                break
            i -= 1
        return i + 1

    def _inside_operator(self, i: int) -> bool:
        """A FROM that belongs to IS [NOT] DISTINCT FROM, not to the query."""
        return (
            self.tokens[i].token_type == TokenType.FROM
            and self.tokens[i - 1].token_type == TokenType.DISTINCT
        )

    def _subquery_start(self, first: int) -> int:
        """The SELECT (or WITH) opening a subquery whose first token with a position is `first`
        (its keywords carry none): `(SELECT MAX(a) FROM t)` is named after all of it."""
        for i in range(first, max(first - _SUBQUERY_LEAD, -1), -1):
            if self.tokens[i].token_type in (TokenType.SELECT, TokenType.WITH):
                return i
        return first


# Tokens a subquery may hold before its first one with a position (SELECT DISTINCT TOP 10 ...).
_SUBQUERY_LEAD = 8


def first_start(node: exp.Expression) -> int | None:
    """Where the node's text begins: the earliest position sqlglot kept in it (None: none kept).
    Types are left out: they never open an expression, and the precision sqlglot adds to a bare
    NUMBER carries the position of whatever token came before."""
    nodes = node.walk(prune=lambda n: isinstance(n, exp.DataType))
    return min((n.meta["start"] for n in nodes if n.meta and "start" in n.meta), default=None)


def upper_outside_quotes(text: str) -> str:
    parts = text.split('"')
    return '"'.join(p.upper() if i % 2 == 0 else p for i, p in enumerate(parts))


def projection_name(node: exp.Expression, source: SourceText | None) -> str | None:
    """Snowflake's result column name for one projection; None for `*` (named by the table)."""
    if isinstance(node, exp.Alias):
        return normalize(node.args["alias"])
    if isinstance(node, exp.Star) or (isinstance(node, exp.Column) and isinstance(node.this, exp.Star)):
        return None
    if isinstance(node, exp.Column) and isinstance(node.this, exp.Parameter):
        return node.this.sql(dialect="snowflake")  # `t.$1` is named `$1`
    if isinstance(node, exp.Column) and "start" not in node.meta:
        return normalize(node.this)
    # (A column with a position of its own stands for other text: `$1` read from a stage.)
    text = source.span(node) if source is not None else None
    if text is None:
        text = node.sql(dialect="snowflake")
    return upper_outside_quotes(" ".join(text.split()))


def like_matches(pattern: str, name: str) -> bool:
    """SHOW ... LIKE and `* ILIKE`: case-insensitive, with `%` and `_` wildcards and `\\` escapes.
    https://docs.snowflake.com/en/sql-reference/sql/show-tables#parameters"""
    regex = []
    chars = iter(pattern)
    for ch in chars:
        if ch == "\\":
            regex.append(re.escape(next(chars, "\\")))
        elif ch == "%":
            regex.append(".*")
        elif ch == "_":
            regex.append(".")
        else:
            regex.append(re.escape(ch))
    return re.fullmatch("".join(regex), name, re.IGNORECASE | re.DOTALL) is not None


def name_parts(name: str, ctx: SqlContext, what: str = "table") -> list[str]:
    """A name of up to three parts written in a command's text or a string, qualified."""
    return qualify(table_parts(exp.to_table(name, dialect="snowflake")), ctx, what)


def split_top_level(text: str) -> list[str]:
    """`NUMBER(10, 2), VARCHAR` -> its pieces (commas inside parentheses stay), stripped."""
    parts, depth, current = [], 0, ""
    for char in text:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    return [*parts, current.strip()] if current.strip() else parts


# A name of up to three parts as written in a command's text (quoted parts kept whole).
OBJECT_NAME = r'(?:"(?:[^"]|"")*"|[A-Za-z_$0-9]+)(?:\.(?:"(?:[^"]|"")*"|[A-Za-z_$0-9]+)){0,2}'


def show_pattern(plural: str) -> re.Pattern[str]:
    """`SHOW [TERSE] <plural> [LIKE '...'] [IN ACCOUNT | DATABASE [d] | [SCHEMA] [s]]` after SHOW."""
    return re.compile(
        rf"^(?:TERSE\s+)?{plural}(?:\s+LIKE\s+'(?P<like>(?:[^']|'')*)')?"
        rf"(?:\s+IN\s+(?:(?P<kind>ACCOUNT|DATABASE|SCHEMA)\s*)?(?P<scope>{OBJECT_NAME})?)?\s*$",
        re.IGNORECASE | re.DOTALL,
    )


def show_scope(match: re.Match[str], ctx: SqlContext) -> tuple[list[str], str | None]:
    """A `show_pattern` match: the database and schema shown (fewer: all schemas of a database,
    none: the account) and the LIKE pattern."""
    like = match["like"].replace("''", "'") if match["like"] is not None else None
    kind, scope = (match["kind"] or "").upper(), match["scope"]
    if kind == "ACCOUNT":
        return [], like
    if scope is None:  # the current schema
        return [p for p in (ctx.database, ctx.schema) if p], like
    named = exp.to_table(scope, dialect="snowflake")
    if kind == "DATABASE":
        return [normalize(named.this)], like
    schema = [named.args.get("db"), named.this, exp.to_identifier("_")]
    return qualify(schema, ctx, "SHOW")[:2], like

"""Snowflake Scripting: the text of a block (or of one scripting statement) -> a tree of statements.

Only the structure is parsed here. Expressions and SQL statements stay text: the engine's
interpreter (engine/scripting.py) evaluates an expression as `SELECT <expr>` and runs a SQL
statement as written, with the block's variables bound into the parsed tree.
"""

from __future__ import annotations

from typing import NoReturn

import sqlglot
from sqlglot import exp
from sqlglot.dialects.snowflake import Snowflake
from sqlglot.tokens import Token, TokenType

from embucket_py.errors import SyntaxError_
from embucket_py.sql.scripting_tree import (
    Assign,
    Block,
    Break,
    Case,
    Close,
    Continue,
    Declare,
    ExecuteImmediate,
    Fetch,
    ForEach,
    ForRange,
    Handler,
    If,
    Loop,
    Open,
    Position,
    Raise,
    Repeat,
    Return,
    Sql,
    Statement,
    While,
)


class _Tokenizer(Snowflake.Tokenizer):
    # Snowflake's tokenizer reads the rest of an EXECUTE or FETCH statement as one string; a
    # block's `EXECUTE IMMEDIATE ... USING (...)` and `FETCH c INTO ...` are parsed here.
    COMMANDS: set[TokenType] = set()


def _tokenize(text: str) -> list[Token]:
    return _Tokenizer().tokenize(text)


# Tokens that are values or quoted names, never keywords.
_QUOTED = {
    TokenType.STRING,
    TokenType.RAW_STRING,
    TokenType.HEREDOC_STRING,
    TokenType.NATIONAL_STRING,
    TokenType.HEX_STRING,
    TokenType.BIT_STRING,
    TokenType.BYTE_STRING,
    TokenType.NUMBER,
    TokenType.IDENTIFIER,
}


def _tokens(text: str) -> list[Token]:
    try:
        return _tokenize(text)
    except sqlglot.errors.TokenError as e:
        raise SyntaxError_(f"syntax error line 1 at position 0 unexpected '{e}'.") from None


def is_block(text: str) -> bool:
    """Whether `text` starts with an anonymous block (see `Parser.at_block`)."""
    head = text.lstrip()[:16].upper()
    if not head.startswith(("DECLARE", "BEGIN", "--", "/*", "//")):
        return False
    try:
        return Parser(text).at_block()
    except SyntaxError_:
        return False


def parse_block(text: str) -> tuple[Block, int, int]:
    """The block at the start of `text`, and the offsets where its text starts (its first word,
    after any comment) and ends (after END and `;`).

    Raises:
        SyntaxError_: the block is not valid Snowflake Scripting.
    """
    parser = Parser(text)
    block = parser.block()
    return block, parser.tokens[0].start, parser.tokens[parser.i - 1].end + 1


def parse_statement(text: str) -> Statement:
    """One scripting statement (what EXECUTE IMMEDIATE runs): a block, a control-flow statement or
    a SQL statement."""
    parser = Parser(text)
    if parser.at_block():
        statement: Statement = parser.block()
    else:
        statement = parser.statement()
    if parser.peek() is not None:
        parser.fail()
    return statement


def parse_execute(text: str) -> ExecuteImmediate:
    """`EXECUTE IMMEDIATE <source> [USING (...)]` as a statement of its own."""
    parser = Parser(text)
    statement = parser.statement()
    if not isinstance(statement, ExecuteImmediate) or parser.peek() is not None:
        parser.fail()
    return statement


class Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokens(text)
        self.i = 0

    # --- tokens ------------------------------------------------------------------------------

    def peek(self, k: int = 0) -> Token | None:
        return self.tokens[self.i + k] if self.i + k < len(self.tokens) else None

    def word(self, k: int = 0) -> str:
        token = self.peek(k)
        return "" if token is None or token.token_type in _QUOTED else token.text.upper()

    def is_type(self, token_type: TokenType, k: int = 0) -> bool:
        token = self.peek(k)
        return token is not None and token.token_type == token_type

    def fail(self) -> NoReturn:
        token = self.peek()
        if token is None:
            line = self.text.count("\n") + 1
            position = len(self.text) - (self.text.rfind("\n") + 1)
            raise SyntaxError_(f"syntax error line {line} at position {position} unexpected '<EOF>'.")
        line, position = self.position(token)
        raise SyntaxError_(f"syntax error line {line} at position {position} unexpected '{token.text}'.")

    def expect(self, *words: str) -> Token:
        token = self.peek()
        if token is None or self.word() not in words:
            self.fail()
        self.i += 1
        return token

    def accept(self, *words: str) -> bool:
        if self.peek() is not None and self.word() in words:
            self.i += 1
            return True
        return False

    def accept_type(self, token_type: TokenType) -> bool:
        if self.is_type(token_type):
            self.i += 1
            return True
        return False

    def semicolon(self) -> None:
        if self.peek() is not None and not self.accept_type(TokenType.SEMICOLON):
            self.fail()

    def position(self, token: Token) -> Position:
        return token.line, token.start - (self.text.rfind("\n", 0, token.start) + 1)

    def here(self) -> Position:
        token = self.peek()
        if token is None:
            self.fail()
        return self.position(token)

    def name(self) -> str:
        """An identifier: unquoted names are upper-cased, as Snowflake resolves them."""
        token = self.peek()
        if token is None:
            self.fail()
        if token.token_type == TokenType.IDENTIFIER:
            self.i += 1
            return token.text
        if token.token_type in _QUOTED or not token.text.replace("_", "").replace("$", "").isalnum():
            self.fail()
        self.i += 1
        return token.text.upper()

    def until(self, *words: str, stop_at: tuple[TokenType, ...] = (TokenType.SEMICOLON,)) -> str:
        """The text up to (not including) one of `words` or `stop_at` outside parentheses."""
        start, depth = self.i, 0
        while (token := self.peek()) is not None:
            if depth == 0 and (token.token_type in stop_at or self.word() in words):
                break
            if token.token_type == TokenType.L_PAREN:
                depth += 1
            elif token.token_type == TokenType.R_PAREN:
                depth -= 1
            self.i += 1
        if self.i == start:
            self.fail()
        return self.text[self.tokens[start].start : self.tokens[self.i - 1].end + 1]

    def paren_list(self) -> tuple[str, ...]:
        """`( a, b + 1, ... )`: each item's text."""
        if not self.accept_type(TokenType.L_PAREN):
            self.fail()
        items = []
        while True:
            items.append(self.until(stop_at=(TokenType.COMMA, TokenType.R_PAREN, TokenType.SEMICOLON)))
            if self.accept_type(TokenType.R_PAREN):
                return tuple(items)
            if not self.accept_type(TokenType.COMMA):
                self.fail()

    def qualified(self) -> tuple[str, ...]:
        """`db.schema.name`, `schema.name` or `name`."""
        parts = [self.name()]
        while self.accept_type(TokenType.DOT):
            parts.append(self.name())
        return tuple(parts)

    def names(self) -> tuple[str, ...]:
        """`:a, :b` or `a, b` (INTO and FETCH targets)."""
        names = []
        while True:
            self.accept_type(TokenType.COLON)
            names.append(self.name())
            if not self.accept_type(TokenType.COMMA):
                return tuple(names)

    # --- blocks and statements ---------------------------------------------------------------

    def block(self) -> Block:
        at = self.here()
        declarations = []
        if self.accept("DECLARE"):
            while self.word() != "BEGIN":
                declarations.append(self.declaration())
        self.expect("BEGIN")
        body = self.statements("END", "EXCEPTION")
        handlers = []
        if self.accept("EXCEPTION"):
            while self.accept("WHEN"):
                names = [self.name()]
                while self.accept("OR"):
                    names.append(self.name())
                self.expect("THEN")
                handlers.append(Handler(tuple(names), self.statements("WHEN", "END")))
        self.expect("END")
        self.semicolon()
        return Block(at, tuple(declarations), body, tuple(handlers))

    def statements(self, *stops: str) -> tuple[Statement, ...]:
        body: list[Statement] = []
        while self.word() not in stops or self.peek() is None:
            if self.peek() is None:
                self.fail()
            if self.accept_type(TokenType.SEMICOLON):
                continue
            body.append(self.statement())
        return tuple(body)

    def declaration(self, at: Position | None = None) -> Declare:
        at = at or self.here()
        name = self.name()
        if self.accept("CURSOR"):
            self.expect("FOR")
            query = self.until()
            self.semicolon()
            return Declare(at, name, "CURSOR", value=query)
        if self.accept("RESULTSET"):
            value = self.until() if self.accept("DEFAULT") or self.accept_type(TokenType.COLON_EQ) else None
            self.semicolon()
            return Declare(at, name, "RESULTSET", value=value)
        if self.accept("EXCEPTION"):
            code = message = None
            if self.is_type(TokenType.L_PAREN):
                number, text = self.paren_list()
                try:
                    code = int(number.replace(" ", ""))
                except ValueError:
                    self.fail()
                message = text.strip()[1:-1].replace("''", "'")
            self.semicolon()
            return Declare(at, name, "EXCEPTION", code=code, message=message)
        type_text = None
        if not (
            self.word() == "DEFAULT" or self.is_type(TokenType.COLON_EQ) or self.is_type(TokenType.SEMICOLON)
        ):
            type_text = self.until("DEFAULT", stop_at=(TokenType.SEMICOLON, TokenType.COLON_EQ))
        value = self.until() if self.accept("DEFAULT") or self.accept_type(TokenType.COLON_EQ) else None
        self.semicolon()
        return Declare(at, name, "VARIABLE", type=type_text, value=value)

    def statement(self) -> Statement:
        word = self.word()
        label = self.label()
        if label is not None:
            word = self.word()
        if self.at_block():
            return self.block()
        at = self.here()
        if word == "LET":
            self.i += 1
            return self.declaration(at)
        if self.is_type(TokenType.COLON_EQ, 1):
            name = self.name()
            self.i += 1
            value = self.until()
            self.semicolon()
            return Assign(at, name, value)
        parse = {
            "IF": self.if_,
            "CASE": self.case,
            "FOR": self.for_,
            "WHILE": self.while_,
            "REPEAT": self.repeat,
            "LOOP": self.loop,
        }.get(word)
        if parse is not None:
            self.i += 1
            return parse(at, label)
        if word in ("BREAK", "EXIT", "CONTINUE", "ITERATE"):
            self.i += 1
            target = None if self.is_type(TokenType.SEMICOLON) or self.peek() is None else self.name()
            self.semicolon()
            return Break(at, target) if word in ("BREAK", "EXIT") else Continue(at, target)
        simple = {
            "RETURN": self.return_,
            "RAISE": self.raise_,
            "OPEN": self.open,
            "FETCH": self.fetch,
            "CLOSE": self.close,
        }.get(word)
        if simple is not None:
            self.i += 1
            statement = simple(at)
            self.semicolon()
            return statement
        if word == "EXECUTE" and self.word(1) == "IMMEDIATE":
            self.i += 2
            source = self.until("USING")
            using = self.paren_list() if self.accept("USING") else ()
            self.semicolon()
            return ExecuteImmediate(at, source, using)
        return self.sql(at)

    def at_block(self) -> bool:
        """DECLARE, or BEGIN followed by more than a transaction's words (`BEGIN`,
        `BEGIN TRANSACTION`, `BEGIN WORK`, `BEGIN NAME t` start a transaction)."""
        word = self.word()
        if word == "DECLARE":
            return True
        return (
            word == "BEGIN"
            and self.peek(1) is not None
            and not self.is_type(TokenType.SEMICOLON, 1)
            and self.word(1) not in ("TRANSACTION", "WORK", "NAME")
        )

    def label(self) -> str | None:
        """`<<name>>` before a loop."""
        if not (self.is_type(TokenType.LT) and self.is_type(TokenType.LT, 1)):
            return None
        self.i += 2
        name = self.name()
        if not (self.accept_type(TokenType.GT) and self.accept_type(TokenType.GT)):
            self.fail()
        if self.word() not in ("FOR", "WHILE", "REPEAT", "LOOP"):
            self.fail()
        return name

    def end(self, *closers: str) -> None:
        """`END <closer> [label];`"""
        self.expect("END")
        self.expect(*closers)
        if not self.is_type(TokenType.SEMICOLON) and self.peek() is not None:
            self.name()
        self.semicolon()

    def if_(self, at: Position, label: str | None) -> If:
        branches = []
        while True:
            condition = self.until("THEN", stop_at=())
            self.expect("THEN")
            branches.append((condition, self.statements("ELSEIF", "ELSE", "END")))
            if not self.accept("ELSEIF"):
                break
        otherwise = self.statements("END") if self.accept("ELSE") else None
        self.end("IF")
        return If(at, tuple(branches), otherwise)

    def case(self, at: Position, label: str | None) -> Case:
        operand = None if self.word() == "WHEN" else self.until("WHEN", stop_at=())
        branches = []
        while self.accept("WHEN"):
            value = self.until("THEN", stop_at=())
            self.expect("THEN")
            branches.append((value, self.statements("WHEN", "ELSE", "END")))
        if not branches:
            self.fail()
        otherwise = self.statements("END") if self.accept("ELSE") else None
        self.end("CASE")
        return Case(at, operand, tuple(branches), otherwise)

    def for_(self, at: Position, label: str | None) -> ForRange | ForEach:
        variable = self.name()
        self.expect("IN")
        reverse = self.accept("REVERSE")
        if self._range_ahead():
            start = self.until("TO", stop_at=())
            self.expect("TO")
            end = self.until("DO", "LOOP", stop_at=())
            opener = self.expect("DO", "LOOP").text.upper()
            body = self.statements("END")
            self.end("FOR" if opener == "DO" else "LOOP")
            return ForRange(at, variable, start, end, reverse, body, label)
        source = self.name()
        opener = self.expect("DO", "LOOP").text.upper()
        body = self.statements("END")
        self.end("FOR" if opener == "DO" else "LOOP")
        return ForEach(at, variable, source, body, label)

    def _range_ahead(self) -> bool:
        depth = 0
        for token in self.tokens[self.i :]:
            word = "" if token.token_type in _QUOTED else token.text.upper()
            if token.token_type == TokenType.L_PAREN:
                depth += 1
            elif token.token_type == TokenType.R_PAREN:
                depth -= 1
            elif depth == 0 and word == "TO":
                return True
            elif depth == 0 and (word in ("DO", "LOOP") or token.token_type == TokenType.SEMICOLON):
                return False
        return False

    def while_(self, at: Position, label: str | None) -> While:
        condition = self.until("DO", "LOOP", stop_at=())
        opener = self.expect("DO", "LOOP").text.upper()
        body = self.statements("END")
        self.end("WHILE" if opener == "DO" else "LOOP")
        return While(at, condition, body, label)

    def repeat(self, at: Position, label: str | None) -> Repeat:
        body = self.statements("UNTIL")
        self.expect("UNTIL")
        condition = self.until("END", stop_at=())
        self.end("REPEAT")
        return Repeat(at, body, condition, label)

    def loop(self, at: Position, label: str | None) -> Loop:
        body = self.statements("END")
        self.end("LOOP")
        return Loop(at, body, label)

    def return_(self, at: Position) -> Return:
        if self.is_type(TokenType.SEMICOLON) or self.peek() is None:
            return Return(at)
        if self.word() == "TABLE" and self.is_type(TokenType.L_PAREN, 1):
            self.i += 1
            (inner,) = self.paren_list()
            return Return(at, table=inner)
        return Return(at, value=self.until())

    def raise_(self, at: Position) -> Raise:
        if self.is_type(TokenType.SEMICOLON) or self.peek() is None:
            return Raise(at)
        return Raise(at, self.name())

    def open(self, at: Position) -> Open:
        cursor = self.name()
        using = self.paren_list() if self.accept("USING") else ()
        return Open(at, cursor, using)

    def fetch(self, at: Position) -> Fetch:
        cursor = self.name()
        self.expect("INTO")
        return Fetch(at, cursor, self.names())

    def close(self, at: Position) -> Close:
        return Close(at, self.name())

    def sql(self, at: Position) -> Sql:
        start, first = self.i, self.word()
        text = self.until()
        end = self.i
        self.semicolon()
        if first not in ("SELECT", "WITH", "CALL"):
            return Sql(at, text)
        # SELECT ... INTO :a, :b [FROM ...] and CALL p(...) INTO :r: the clause is cut, its names kept.
        depth = 0
        for j in range(start, end):
            token = self.tokens[j]
            depth += {TokenType.L_PAREN: 1, TokenType.R_PAREN: -1}.get(token.token_type, 0)
            if depth == 0 and token.token_type == TokenType.INTO:
                saved, self.i = self.i, j + 1
                into = self.names()
                after, self.i = self.i, saved
                base = self.tokens[start].start
                tail = (
                    self.text[self.tokens[after].start : self.tokens[end - 1].end + 1] if after < end else ""
                )
                return Sql(at, f"{self.text[base : token.start].rstrip()} {tail}".strip(), into)
        return Sql(at, text)


def command_parts(tree: object) -> tuple[str, str] | None:
    """A command's head word (upper case) and the text after it."""
    if not isinstance(tree, exp.Command):
        return None
    rest = tree.args.get("expression")
    return str(tree.this).upper(), rest.name if isinstance(rest, exp.Expression) else str(rest or "")


def script_text(tree: object) -> str | None:
    """The text of an anonymous block or of EXECUTE IMMEDIATE, if `tree` is one (both parse as
    commands: sqlglot has no grammar for them)."""
    head, rest = command_parts(tree) or ("", "")
    if head in ("DECLARE", "BEGIN"):
        return f"{head}{rest}"
    if head == "EXECUTE" and rest.upper().startswith("IMMEDIATE"):
        return f"EXECUTE {rest}"
    return None

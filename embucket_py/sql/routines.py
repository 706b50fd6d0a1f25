"""CREATE PROCEDURE, CREATE FUNCTION and CALL, parsed with the scripting parser (sqlglot keeps
only some of their clauses, and none of a procedure body written without quotes).

https://docs.snowflake.com/en/sql-reference/sql/create-procedure
https://docs.snowflake.com/en/sql-reference/sql/create-function
https://docs.snowflake.com/en/sql-reference/sql/call
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlglot.tokens import TokenType

from embucket_py.sql.scripting import Parser, command_parts

_STRINGS = (TokenType.STRING, TokenType.RAW_STRING, TokenType.HEREDOC_STRING)
# Clauses between RETURNS and AS that change nothing here.
_FLAGS = {"STRICT", "VOLATILE", "IMMUTABLE", "MEMOIZABLE", "NULL", "NOT"}


@dataclass(frozen=True)
class Argument:
    name: str
    type: str
    default: str | None = None


@dataclass(frozen=True)
class RoutineDef:
    kind: str  # PROCEDURE | FUNCTION
    parts: tuple[str, ...]
    arguments: tuple[Argument, ...]
    returns: str  # a data type, or TABLE (...)
    language: str
    body: str
    comment: str | None
    replace: bool
    if_not_exists: bool
    handler: str | None = None  # HANDLER = '...' of a Python routine
    strict: bool = False  # STRICT | RETURNS NULL ON NULL INPUT
    imports: tuple[str, ...] = ()  # IMPORTS = ('@stage/file.py', ...)

    @property
    def returns_table(self) -> bool:
        return self.returns.upper().startswith("TABLE")


@dataclass(frozen=True)
class CallDef:
    parts: tuple[str, ...]
    arguments: tuple[str, ...]  # expressions, positional
    named: tuple[tuple[str, str], ...]  # (name, expression) for `name => expression`


def starts_routine(parser: Parser) -> bool:
    """Whether the parser stands at CREATE [OR REPLACE] [SECURE] [TEMP[ORARY]] PROCEDURE | FUNCTION."""
    k = 0
    if parser.word(k) != "CREATE":
        return False
    k += 1
    if parser.word(k) == "OR" and parser.word(k + 1) == "REPLACE":
        k += 2
    while parser.word(k) in ("SECURE", "TEMP", "TEMPORARY"):
        k += 1
    return parser.word(k) in ("PROCEDURE", "FUNCTION")


def create_routine_def(text: str) -> RoutineDef:
    """Raises SyntaxError_ when the statement is not a valid CREATE PROCEDURE | FUNCTION."""
    parser = Parser(text)
    statement = _create(parser)
    parser.accept_type(TokenType.SEMICOLON)
    if parser.peek() is not None:
        parser.fail()
    return statement


def routine_end(parser: Parser) -> int:
    """Parses the CREATE PROCEDURE | FUNCTION at the parser's position; the offset where its text
    ends."""
    _create(parser)
    return parser.tokens[parser.i - 1].end + 1


def _create(parser: Parser) -> RoutineDef:
    parser.expect("CREATE")
    replace = parser.accept("OR")
    if replace:
        parser.expect("REPLACE")
    while parser.accept("SECURE", "TEMP", "TEMPORARY"):
        pass
    kind = parser.expect("PROCEDURE", "FUNCTION").text.upper()
    if_not_exists = parser.accept("IF")
    if if_not_exists:
        parser.expect("NOT")
        parser.expect("EXISTS")
    return _definition(parser, kind, parser.qualified(), replace, if_not_exists)


def _definition(
    parser: Parser, kind: str, parts: tuple[str, ...], replace: bool, if_not_exists: bool
) -> RoutineDef:
    """What follows a routine's name: `(arguments) RETURNS ... AS body`."""
    arguments = []
    if not parser.accept_type(TokenType.L_PAREN):
        parser.fail()
    while not parser.accept_type(TokenType.R_PAREN):
        name = parser.name()
        type_text = parser.until("DEFAULT", stop_at=(TokenType.COMMA, TokenType.R_PAREN))
        default = None
        if parser.accept("DEFAULT"):
            default = parser.until(stop_at=(TokenType.COMMA, TokenType.R_PAREN))
        arguments.append(Argument(name, type_text, default))
        parser.accept_type(TokenType.COMMA)
    parser.expect("RETURNS")
    if parser.accept("TABLE"):
        columns = parser.paren_list() if parser.is_type(TokenType.L_PAREN) else ()
        returns = f"TABLE ({', '.join(c.strip() for c in columns)})"
    else:
        clauses = ("LANGUAGE", "COMMENT", "EXECUTE", "AS", "CALLED", "RETURNS", *_FLAGS)
        returns = parser.until(*clauses, stop_at=(TokenType.SEMICOLON,))
    language, comment, handler, strict, imports = "SQL", None, None, False, ()
    while not parser.accept("AS"):
        word = parser.word()
        if parser.peek() is None:
            parser.fail()
        parser.i += 1
        if word == "LANGUAGE":
            language = parser.name()
        elif word in ("COMMENT", "HANDLER"):
            parser.accept_type(TokenType.EQ)
            if word == "COMMENT":
                comment = _string(parser)
            else:
                handler = _string(parser)
        elif word == "EXECUTE":
            parser.expect("AS")
            parser.accept("RESTRICTED")
            parser.expect("CALLER", "OWNER")
        elif word in ("CALLED", "RETURNS"):  # CALLED ON NULL INPUT, RETURNS NULL ON NULL INPUT
            strict = word == "RETURNS"
            parser.until("INPUT", stop_at=())
            parser.expect("INPUT")
        elif word == "STRICT":
            strict = True
        elif word not in _FLAGS:  # RUNTIME_VERSION = '3.11', PACKAGES = (...), IMPORTS = (...)
            parser.accept_type(TokenType.EQ)
            if parser.is_type(TokenType.L_PAREN):
                items = parser.paren_list()
                imports = tuple(i.strip().strip("'") for i in items) if word == "IMPORTS" else imports
            else:
                parser.i += 1
    token = parser.peek()
    if token is not None and token.token_type in _STRINGS:
        parser.i += 1
        body = token.text
    elif token is not None and kind == "PROCEDURE" and parser.at_block():
        parser.block()
        body = parser.text[token.start : parser.tokens[parser.i - 1].end + 1]
    else:
        parser.fail()
    language = language.upper()
    return RoutineDef(
        kind,
        parts,
        tuple(arguments),
        returns.strip(),
        language,
        body,
        comment,
        replace,
        if_not_exists,
        handler,
        strict,
        tuple(i for i in imports if i),
    )


def starts_anonymous_procedure(parser: Parser) -> bool:
    """Whether the parser stands at WITH name AS PROCEDURE."""
    return parser.word() == "WITH" and parser.word(2) == "AS" and parser.word(3) == "PROCEDURE"


def anonymous_procedure_end(parser: Parser) -> int:
    """Parses the WITH ... AS PROCEDURE ... CALL at the parser's position; where its text ends."""
    _anonymous(parser)
    return parser.tokens[parser.i - 1].end + 1


def anonymous_procedure_def(text: str) -> tuple[RoutineDef, CallDef]:
    """`WITH name AS PROCEDURE (...) RETURNS ... AS body CALL name(...)`: the procedure and its call.
    https://docs.snowflake.com/en/sql-reference/sql/call-with"""
    parser = Parser(text)
    procedure, call = _anonymous(parser)
    parser.accept_type(TokenType.SEMICOLON)
    if parser.peek() is not None:
        parser.fail()
    return procedure, call


def _anonymous(parser: Parser) -> tuple[RoutineDef, CallDef]:
    parser.expect("WITH")
    name = parser.name()
    parser.expect("AS")
    parser.expect("PROCEDURE")
    procedure = _definition(parser, "PROCEDURE", (name,), False, False)
    start = parser.peek()
    if start is None or parser.word() != "CALL":
        parser.fail()
    parser.until()
    return procedure, call_def(parser.text[start.start : parser.tokens[parser.i - 1].end + 1])


def _string(parser: Parser) -> str:
    token = parser.peek()
    if token is None or token.token_type not in _STRINGS:
        parser.fail()
    parser.i += 1
    return token.text


_NAMED = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_$]*)\s*=>\s*(.*)", re.DOTALL)


def call_def(text: str) -> CallDef:
    """`CALL name(arg, ...)`; arguments may be named (`name => value`)."""
    parser = Parser(text)
    parser.expect("CALL")
    parts = parser.qualified()
    items: tuple[str, ...] = ()
    if parser.is_type(TokenType.L_PAREN, 0) and parser.is_type(TokenType.R_PAREN, 1):
        parser.i += 2
    else:
        items = parser.paren_list()
    parser.accept_type(TokenType.SEMICOLON)
    if parser.peek() is not None:
        parser.fail()
    positional, named = [], []
    for item in items:
        match = _NAMED.fullmatch(item)
        if match:
            named.append((match.group(1).upper(), match.group(2)))
        else:
            positional.append(item)
    return CallDef(parts, tuple(positional), tuple(named))


def anonymous_procedure_text(tree: object) -> str | None:
    """The text of WITH ... AS PROCEDURE ... CALL (parsed as a command, see sql/parse.py)."""
    head, rest = command_parts(tree) or ("", "")
    return f"WITH{rest}" if head == "WITH" else None


def routine_text(tree: object) -> str | None:
    """The text of a CREATE PROCEDURE | FUNCTION (parsed as a command, see sql/parse.py)."""
    head, rest = command_parts(tree) or ("", "")
    text = f"CREATE{rest}"
    return text if head == "CREATE" and _CREATE_ROUTINE.match(text) else None


def call_text(tree: object) -> str | None:
    head, rest = command_parts(tree) or ("", "")
    return f"CALL {rest}" if head == "CALL" else None


_CREATE_ROUTINE = re.compile(
    r"CREATE\s+(?:OR\s+REPLACE\s+)?(?:(?:SECURE|TEMP|TEMPORARY)\s+)*(?:PROCEDURE|FUNCTION)\b", re.I
)

"""Snowflake Scripting's statements, as sql/scripting.py parses them and engine/scripting.py runs
them. Expressions and SQL statements are kept as text."""

from __future__ import annotations

from dataclasses import dataclass

Position = tuple[int, int]  # line (1-based) and position in that line (0-based), as errors say


@dataclass(frozen=True)
class Declare:
    """A variable, cursor, RESULTSET or exception (DECLARE section or LET)."""

    at: Position
    name: str
    kind: str  # VARIABLE | CURSOR | RESULTSET | EXCEPTION
    type: str | None = None  # declared data type text (variables)
    value: str | None = None  # default expression (variables), query text (cursors, resultsets)
    code: int | None = None  # exceptions: code and message
    message: str | None = None


@dataclass(frozen=True)
class Assign:
    at: Position
    name: str
    value: str


@dataclass(frozen=True)
class Sql:
    """A SQL statement; `into` names the variables of `SELECT ... INTO :a, :b` (the clause is cut)."""

    at: Position
    text: str
    into: tuple[str, ...] = ()


@dataclass(frozen=True)
class ExecuteImmediate:
    at: Position
    source: str  # an expression giving the statement text
    using: tuple[str, ...] = ()


@dataclass(frozen=True)
class Handler:
    names: tuple[str, ...]  # exception names; OTHER catches any
    body: tuple[Statement, ...]


@dataclass(frozen=True)
class Block:
    at: Position
    declarations: tuple[Declare, ...]
    body: tuple[Statement, ...]
    handlers: tuple[Handler, ...] = ()


@dataclass(frozen=True)
class If:
    at: Position
    branches: tuple[tuple[str, tuple[Statement, ...]], ...]  # (condition, body)
    otherwise: tuple[Statement, ...] | None


@dataclass(frozen=True)
class Case:
    at: Position
    operand: str | None  # simple CASE compares it with each WHEN; searched CASE has none
    branches: tuple[tuple[str, tuple[Statement, ...]], ...]
    otherwise: tuple[Statement, ...] | None


@dataclass(frozen=True)
class ForRange:
    at: Position
    variable: str
    start: str
    end: str
    reverse: bool
    body: tuple[Statement, ...]
    label: str | None = None


@dataclass(frozen=True)
class ForEach:
    """FOR row IN cursor / resultset: `row.column` reads the current row."""

    at: Position
    variable: str
    source: str
    body: tuple[Statement, ...]
    label: str | None = None


@dataclass(frozen=True)
class While:
    at: Position
    condition: str
    body: tuple[Statement, ...]
    label: str | None = None


@dataclass(frozen=True)
class Repeat:
    at: Position
    body: tuple[Statement, ...]
    condition: str
    label: str | None = None


@dataclass(frozen=True)
class Loop:
    at: Position
    body: tuple[Statement, ...]
    label: str | None = None


@dataclass(frozen=True)
class Break:
    at: Position
    label: str | None = None


@dataclass(frozen=True)
class Continue:
    at: Position
    label: str | None = None


@dataclass(frozen=True)
class Return:
    at: Position
    value: str | None = None
    table: str | None = None  # RETURN TABLE(resultset)


@dataclass(frozen=True)
class Raise:
    at: Position
    name: str | None = None  # None: re-raise the exception being handled


@dataclass(frozen=True)
class Open:
    at: Position
    cursor: str
    using: tuple[str, ...] = ()


@dataclass(frozen=True)
class Fetch:
    at: Position
    cursor: str
    into: tuple[str, ...]


@dataclass(frozen=True)
class Close:
    at: Position
    cursor: str


Statement = (
    Declare
    | Assign
    | Sql
    | ExecuteImmediate
    | Block
    | If
    | Case
    | ForRange
    | ForEach
    | While
    | Repeat
    | Loop
    | Break
    | Continue
    | Return
    | Raise
    | Open
    | Fetch
    | Close
)

"""Task statements (CREATE / ALTER / DROP / DESCRIBE / EXECUTE TASK, SHOW TASKS), which sqlglot
reads as commands, and task schedules.

https://docs.snowflake.com/en/sql-reference/sql/create-task
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sqlglot import exp
from sqlglot.dialects.snowflake import Snowflake
from sqlglot.tokens import Token, TokenType

from embucket_py.errors import SqlCompilationError, SyntaxError_, Unsupported
from embucket_py.sql.context import SqlContext
from embucket_py.sql.names import OBJECT_NAME, name_parts, show_pattern, show_scope
from embucket_py.sql.scripting import Parser, command_parts

_CREATE = re.compile(
    rf"^(?P<replace>OR\s+REPLACE\s+)?TASK\s+(?P<exists>IF\s+NOT\s+EXISTS\s+)?(?P<name>{OBJECT_NAME})(?P<rest>.*)$",
    re.IGNORECASE | re.DOTALL,
)
_ALTER = re.compile(
    rf"^TASK\s+(?P<exists>IF\s+EXISTS\s+)?(?P<name>{OBJECT_NAME})\s+(?P<rest>.*)$", re.IGNORECASE | re.DOTALL
)
_NAMED = re.compile(
    rf"^TASK\s+(?P<exists>IF\s+EXISTS\s+)?(?P<name>{OBJECT_NAME})\s*$", re.IGNORECASE | re.DOTALL
)
_EXECUTE = re.compile(rf"^TASK\s+(?P<name>{OBJECT_NAME})(?P<wait>\s+AWAIT)?\s*$", re.IGNORECASE | re.DOTALL)
_SHOW = show_pattern("TASKS")
_STRINGS = (TokenType.STRING, TokenType.RAW_STRING)
# Options a task keeps; the other `NAME = value`s (session parameters, timeouts) are accepted.
_KEPT = {"WAREHOUSE", "SCHEDULE", "ALLOW_OVERLAPPING_EXECUTION", "COMMENT", "SUSPEND_TASK_AFTER_NUM_FAILURES"}


@dataclass(frozen=True)
class TaskStatement:
    action: str  # CREATE ALTER DROP DESCRIBE EXECUTE SHOW
    parts: list[str]  # the task (SHOW: the database and schema shown, or fewer)
    options: dict[str, str | None] = field(default_factory=dict)  # WAREHOUSE SCHEDULE ... (None: UNSET)
    after: list[list[str]] | None = None  # CREATE: AFTER; ALTER: the names ADD | REMOVE AFTER
    condition: str | None = None  # WHEN's text
    definition: str | None = None  # AS's text
    # ALTER: RESUME SUSPEND SET UNSET MODIFY_AS MODIFY_WHEN REMOVE_WHEN ADD_AFTER REMOVE_AFTER
    change: str | None = None
    replace: bool = False
    if_exists: bool = False  # IF NOT EXISTS for CREATE
    wait: bool = False  # EXECUTE TASK ... AWAIT
    like: str | None = None


def task_statement(tree: exp.Expression, ctx: SqlContext) -> TaskStatement | None:
    """The task statement `tree` is, or None.

    Raises:
        SyntaxError_: a malformed CREATE or ALTER TASK.
    """
    head, rest = command_parts(tree) or ("", "")
    rest = rest.strip().rstrip(";").strip()
    if head == "CREATE" and (create := _CREATE.match(rest)):
        return _create(create, ctx)
    if head == "ALTER" and (alter := _ALTER.match(rest)):
        return _alter(alter, ctx)
    if head in ("DROP", "DESCRIBE") and (named := _NAMED.match(rest)):
        return TaskStatement(head, name_parts(named["name"], ctx, "TASK"), if_exists=bool(named["exists"]))
    if head == "EXECUTE" and (run := _EXECUTE.match(rest)):
        return TaskStatement("EXECUTE", name_parts(run["name"], ctx, "TASK"), wait=bool(run["wait"]))
    if head == "SHOW" and (show := _SHOW.match(rest)):
        parts, like = show_scope(show, ctx)
        return TaskStatement("SHOW", parts, like=like)
    return None


def _create(match: re.Match[str], ctx: SqlContext) -> TaskStatement:
    clauses = _Clauses(match["rest"])
    options: dict[str, str | None] = {}
    after: list[list[str]] = []
    condition = None
    while not clauses.at("AS"):
        if clauses.at("AFTER"):
            after = [name_parts(n, ctx, "TASK") for n in clauses.names()]
        elif clauses.at("WHEN"):
            condition = clauses.until_as()
        else:
            options.update([clauses.option()])
    return TaskStatement(
        "CREATE",
        name_parts(match["name"], ctx, "TASK"),
        {k: v for k, v in options.items() if k in _KEPT},
        after,
        condition,
        clauses.rest(),
        replace=bool(match["replace"]),
        if_exists=bool(match["exists"]),
    )


def _alter(match: re.Match[str], ctx: SqlContext) -> TaskStatement:
    parts, if_exists = name_parts(match["name"], ctx, "TASK"), bool(match["exists"])
    clauses = _Clauses(match["rest"])

    def altered(change: str, **values: object) -> TaskStatement:
        return TaskStatement("ALTER", parts, change=change, if_exists=if_exists, **values)  # type: ignore[arg-type]

    for word in ("RESUME", "SUSPEND"):
        if clauses.at(word):
            return altered(word, options=clauses.done({}))
    if clauses.at("SET"):
        options: dict[str, str | None] = {}
        while not clauses.ended():
            options.update([clauses.option()])
            clauses.at(",")
        return altered("SET", options={k: v for k, v in options.items() if k in _KEPT})
    if clauses.at("UNSET"):
        unset = {name.upper(): None for name in clauses.names()}
        return altered("UNSET", options={k: v for k, v in unset.items() if k in _KEPT})
    if clauses.at("MODIFY", "AS"):
        return altered("MODIFY_AS", definition=clauses.rest())
    if clauses.at("MODIFY", "WHEN"):
        return altered("MODIFY_WHEN", condition=clauses.rest())
    if clauses.at("REMOVE", "WHEN"):
        return altered("REMOVE_WHEN", options=clauses.done({}))
    for word in ("ADD", "REMOVE"):
        if clauses.at(word, "AFTER"):
            return altered(f"{word}_AFTER", after=[name_parts(n, ctx, "TASK") for n in clauses.names()])
    raise Unsupported(f"ALTER TASK ... {match['rest'].split()[0].upper()} is not supported yet.")


class _Tokenizer(Snowflake.Tokenizer):
    COMMANDS: set[TokenType] = set()  # REMOVE, SHOW, ... are words here, not commands


class _Clauses:
    """The text after a task's name, read token by token (quotes and parentheses kept whole)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[Token] = _Tokenizer().tokenize(text)
        self.i = 0

    def _word(self, k: int = 0) -> str:
        at = self.i + k
        return self.tokens[at].text.upper() if at < len(self.tokens) else ""

    def ended(self) -> bool:
        return self.i >= len(self.tokens)

    def at(self, *words: str) -> bool:
        if all(self._word(k) == w for k, w in enumerate(words)):
            self.i += len(words)
            return True
        if self.ended() and words == ("AS",):
            raise SyntaxError_("syntax error: CREATE TASK needs AS and the statement to run.", code=1003)
        return False

    def done(self, value: dict[str, str | None]) -> dict[str, str | None]:
        if not self.ended():
            raise SyntaxError_(f"syntax error: unexpected '{self.tokens[self.i].text}'.", code=1003)
        return value

    def option(self) -> tuple[str, str]:
        """`NAME = value`: the name upper-cased, a string's value unquoted."""
        if self._word(1) != "=" or self.i + 2 >= len(self.tokens):
            found = self.tokens[self.i].text if not self.ended() else "<EOF>"
            raise SyntaxError_(f"syntax error: unexpected '{found}'.", code=1003)
        name, value = self._word(), self.tokens[self.i + 2]
        self.i += 3
        return name, value.text if value.token_type in _STRINGS else value.text.upper()

    def names(self) -> list[str]:
        """A list of names separated by commas, as written."""
        found = [self._part()]
        while self.at(".") or self.at(","):
            if self.tokens[self.i - 1].text == ".":
                found[-1] += "." + self._part()
            else:
                found.append(self._part())
        return found

    def _part(self) -> str:
        if self.ended():
            raise SyntaxError_("syntax error: a name was expected.", code=1003)
        token = self.tokens[self.i]
        self.i += 1
        return f'"{token.text}"' if token.token_type == TokenType.IDENTIFIER else token.text

    def until_as(self) -> str:
        """The text up to the AS outside parentheses (a WHEN condition)."""
        start, depth = self.i, 0
        while not self.ended() and not (depth == 0 and self._word() == "AS"):
            depth += _nesting(self.tokens[self.i])
            self.i += 1
        end = self.tokens[self.i - 1].end + 1
        return self.text[self.tokens[start].start : end].strip()

    def rest(self) -> str:
        if self.ended():
            raise SyntaxError_("syntax error: the statement to run is missing.", code=1003)
        return self.text[self.tokens[self.i].start :].strip()


def _nesting(token: Token) -> int:
    return {TokenType.L_PAREN: 1, TokenType.R_PAREN: -1}.get(token.token_type, 0)


def starts_task_block(parser: Parser) -> bool:
    """Whether the parser stands at CREATE ... TASK | ALTER TASK ... AS followed by a scripting
    block (whose `;`s are the block's, not statement ends)."""
    if parser.word() not in ("CREATE", "ALTER") or "TASK" not in (parser.word(1), parser.word(3)):
        return False
    k, depth = 1, 0
    while (token := parser.peek(k)) is not None and token.token_type != TokenType.SEMICOLON:
        depth += _nesting(token)
        if depth == 0 and parser.word(k) == "AS":
            saved = parser.i
            parser.i += k + 1
            block = parser.at_block()
            parser.i = saved
            return block
        k += 1
    return False


def task_block_end(parser: Parser) -> None:
    """Moves the parser past the CREATE | ALTER TASK ... AS <block> at its position."""
    while parser.word() != "AS":
        parser.i += 1
    parser.i += 1
    parser.block()


def dependents_enable_call(tree: exp.Expression) -> exp.Expression | None:
    """`SELECT SYSTEM$TASK_DEPENDENTS_ENABLE('name')`: its projection (a statement of its own, as
    it resumes tasks; never part of a larger query)."""
    if not isinstance(tree, exp.Select) or tree.args.get("from_") or len(tree.expressions) != 1:
        return None
    projection = tree.expressions[0]
    call = projection.unalias()
    is_call = isinstance(call, exp.Anonymous) and call.name.upper() == "SYSTEM$TASK_DEPENDENTS_ENABLE"
    return projection if is_call else None


def condition_query(condition: str) -> str:
    """The query a task's WHEN condition is evaluated by (its run goes on when it is TRUE)."""
    return f"SELECT ({condition})"


# --- schedules ------------------------------------------------------------------------------------

_INTERVAL = re.compile(r"^\s*(\d+)\s*(SECOND|SECONDS|MINUTE|MINUTES|HOUR|HOURS)\s*$", re.IGNORECASE)
_CRON = re.compile(r"^\s*USING\s+CRON\s+(?P<fields>(?:\S+\s+){5})(?P<zone>\S+)\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Schedule:
    seconds: int | None = None  # an interval
    cron: tuple[str, ...] | None = None  # minute hour day-of-month month day-of-week
    zone: str = "UTC"


def parse_schedule(text: str) -> Schedule:
    """'<n> SECONDS | MINUTES | HOURS' or 'USING CRON <5 fields> <time zone>'.

    Raises:
        SqlCompilationError: neither form.
    """
    if interval := _INTERVAL.match(text):
        unit = interval[2].upper().rstrip("S")
        seconds = int(interval[1]) * {"SECOND": 1, "MINUTE": 60, "HOUR": 3600}[unit]
        if seconds < 1 or seconds > 11520 * 60:
            raise SqlCompilationError(f"Invalid schedule '{text}': out of range.", code=3051)
        return Schedule(seconds=seconds)
    if cron := _CRON.match(text):
        return Schedule(cron=tuple(cron["fields"].split()), zone=cron["zone"])
    raise SqlCompilationError(
        f"Invalid value ['{text}'] for parameter 'SCHEDULE': expected '<num> MINUTE' or "
        "'USING CRON <expr> <time_zone>'.",
        code=1008,
        sqlstate="22023",
    )

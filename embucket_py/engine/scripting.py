"""Snowflake Scripting: runs a block (anonymous, EXECUTE IMMEDIATE, a stored procedure's body)
statement by statement in the caller's session.

Each SQL statement runs through the engine as the client would send it, with `:name` replaced by
the variable's value as a typed literal on the parsed tree (never pasted into text). Each
expression (an assignment, a condition, RETURN) runs as `SELECT <expr>`, where a bare variable name
is its value too: Snowflake's own semantics (types, NULLs, functions). Only integer arithmetic,
comparisons and `||` over known values are folded in place (scripting_folding.py).
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

import pyarrow as pa
from sqlglot import exp

from embucket_py import naming
from embucket_py.engine import scripting_folding as folding
from embucket_py.engine.result import QueryResult, ResultColumn, StatementType, constant
from embucket_py.errors import BindError, QueryCanceled, SnowflakeError, SqlCompilationError
from embucket_py.sessions.session import Session
from embucket_py.sql import binds as binding
from embucket_py.sql import scripting as script
from embucket_py.sql import scripting_tree as nodes
from embucket_py.sql.literals import literal
from embucket_py.sql.names import normalize
from embucket_py.sql.routines import call_def
from embucket_py.types import NUMBER_38_0, SfType, arrow_field, parse_sql_type

T = TypeVar("T")
BOOLEAN = SfType("BOOLEAN")
TEXT = SfType("TEXT", length=16777216)
ANONYMOUS_BLOCK = "anonymous block"
# A raised exception declared without a code gets Snowflake's default one.
DEFAULT_EXCEPTION_CODE = -20000
USER_EXCEPTION_STATE = "P0001"


class _Statement(Protocol):
    tree: exp.Expression


class Engine(Protocol):
    def prepare(self, text: str) -> list[_Statement]: ...

    def execute(
        self, session: Session, statement: _Statement, binds: None = None, *, cancel: threading.Event | None
    ) -> QueryResult: ...


@dataclass
class Value:
    value: object
    type: SfType

    def literal(self) -> exp.Expression:
        """The value as a typed Snowflake literal, to bind into a parsed statement."""
        return literal(self.value, self.type)


@dataclass
class Variable:
    value: Value
    declared: str | None  # the declared type: every assigned value is cast to it


@dataclass
class Rows:
    """A materialized result: a RESULTSET, an open cursor, or a FOR loop's current row's source."""

    columns: list[tuple[str, SfType]]
    table: pa.Table

    def values(self) -> Iterator[list[Value]]:
        """Each row's values, by position (two columns may share a name); Python values are made
        one batch at a time, as a loop reaches them."""
        for batch in self.table.to_batches():
            columns = [column.to_pylist() for column in batch.columns]
            for i in range(batch.num_rows):
                yield [Value(values[i], t) for (_, t), values in zip(self.columns, columns, strict=True)]

    def records(self) -> Iterator[dict[str, Value]]:
        for row in self.values():
            yield {name.upper(): value for (name, _), value in zip(self.columns, row, strict=True)}


@dataclass
class Cursor:
    query: str
    rows: Iterator[list[Value]] | None = None


@dataclass
class Declared:
    """A declared exception."""

    code: int
    message: str


@dataclass
class Record:
    """FOR row IN cursor: the row being visited (`row.column` in expressions)."""

    values: dict[str, Value] = field(default_factory=dict)


Slot = Variable | Rows | Cursor | Declared | Record


class _Raised(Exception):
    def __init__(self, name: str, error: SnowflakeError, at: nodes.Position) -> None:
        super().__init__(error.message)
        self.name, self.error, self.at = name, error, at


class _Returned(Exception):
    def __init__(self, value: Value | Rows | None) -> None:
        self.value = value


class _Break(Exception):
    def __init__(self, label: str | None) -> None:
        self.label = label


class _Continue(_Break):
    pass


def run_text(engine: Engine, session: Session, text: str, cancel: threading.Event | None) -> QueryResult:
    """A request's anonymous block or EXECUTE IMMEDIATE statement."""
    interpreter = Interpreter(engine, session, cancel)
    if script.is_block(text):
        block, _, _ = script.parse_block(text)
        return interpreter.run_top(block, ANONYMOUS_BLOCK, None)
    try:
        return interpreter.execute_immediate(script.parse_execute(text))
    except _Raised as raised:  # the statement's own error, as if it had been sent alone
        raise raised.error from None


def described() -> QueryResult:
    """What describeOnly answers for a block: its one column, no rows (nothing runs)."""
    result = constant([(ANONYMOUS_BLOCK, TEXT)], [], StatementType.SELECT)
    result.batches = []
    return result


class Interpreter:
    def __init__(self, engine: Engine, session: Session, cancel: threading.Event | None) -> None:
        self.engine, self.session, self.cancel = engine, session, cancel
        self.scopes: list[dict[str, Slot]] = [
            {
                "SQLROWCOUNT": Variable(Value(None, NUMBER_38_0), None),
                "SQLFOUND": Variable(Value(False, BOOLEAN), None),
                "SQLNOTFOUND": Variable(Value(False, BOOLEAN), None),
            }
        ]
        self.handling: list[_Raised] = []
        self.at: nodes.Position = (1, 0)

    # --- entry points ------------------------------------------------------------------------

    def run_top(self, block: nodes.Block, column: str, returns: SfType | None) -> QueryResult:
        """Runs a block to its end or RETURN: a table (RETURN TABLE) or one value named `column`."""

        def run() -> QueryResult:
            try:
                self.block(block)
                value: Value | Rows | None = None
            except _Returned as returned:
                value = returned.value
            except _Break:
                raise SqlCompilationError("BREAK or CONTINUE outside a loop.") from None
            if isinstance(value, Rows):
                return _table_result(value)
            if value is None:
                value = Value(None, returns or TEXT)
            elif returns is not None and returns != value.type:
                value = self.cast(value, returns.sql)
            return constant([(column, value.type)], [(value.value,)], StatementType.SELECT)

        return self.uncaught(run)

    def uncaught(self, run: Callable[[], T]) -> T:
        """An exception no handler caught, as Snowflake reports it (its code, where it was raised)."""
        try:
            return run()
        except _Raised as raised:
            line, position = raised.at
            error = raised.error
            raise SnowflakeError(
                f"Uncaught exception of type '{raised.name}' on line {line} at position {position} : "
                f"{error.message}",
                code=error.code,
                sqlstate=error.sqlstate,
            ) from None

    # --- statements --------------------------------------------------------------------------

    def block(self, block: nodes.Block) -> None:
        self.scopes.append({})
        try:
            try:
                for declaration in block.declarations:
                    self.statement(declaration)
                self.body(block.body)
            except _Raised as raised:
                handler = next(
                    (h for h in block.handlers if raised.name in h.names or "OTHER" in h.names), None
                )
                if handler is None:
                    raise
                self.scopes.append(
                    {
                        "SQLCODE": Variable(Value(raised.error.code, NUMBER_38_0), None),
                        "SQLERRM": Variable(Value(raised.error.message, TEXT), None),
                        "SQLSTATE": Variable(Value(raised.error.sqlstate, TEXT), None),
                    }
                )
                self.handling.append(raised)
                try:
                    self.body(handler.body)
                finally:
                    self.handling.pop()
                    self.scopes.pop()
        finally:
            self.scopes.pop()

    def body(self, statements: tuple[nodes.Statement, ...]) -> None:
        for statement in statements:
            self.statement(statement)

    def statement(self, node: nodes.Statement) -> None:
        if self.cancel is not None and self.cancel.is_set():
            raise QueryCanceled("SQL execution canceled")
        self.at = node.at
        if isinstance(node, nodes.Block):
            self.block(node)
        elif isinstance(node, nodes.Declare):
            self.declare(node)
        elif isinstance(node, nodes.Assign):
            slot = self.lookup(node.name, Variable | Rows)
            if isinstance(slot, Rows):  # a RESULTSET takes a query's rows
                assigned = self.rows_of(node.value)
                slot.columns, slot.table = assigned.columns, assigned.table
            else:
                slot.value = self.evaluate(node.value, slot.declared)
        elif isinstance(node, nodes.Sql):
            self.sql(node)
        elif isinstance(node, nodes.ExecuteImmediate):
            self.execute_immediate(node)
        elif isinstance(node, nodes.If):
            self.if_(node.branches, node.otherwise)
        elif isinstance(node, nodes.Case):
            if node.operand is None:
                self.if_(node.branches, node.otherwise)
            else:
                compared = tuple((f"({node.operand}) = ({value})", body) for value, body in node.branches)
                self.if_(compared, node.otherwise)
        elif isinstance(node, nodes.ForRange | nodes.ForEach | nodes.While | nodes.Repeat | nodes.Loop):
            self.loop(node)
        elif isinstance(node, nodes.Break):
            raise _Break(node.label)
        elif isinstance(node, nodes.Continue):
            raise _Continue(node.label)
        elif isinstance(node, nodes.Return):
            self.return_(node)
        elif isinstance(node, nodes.Raise):
            self.raise_(node)
        elif isinstance(node, nodes.Open):
            cursor = self.lookup(node.cursor, Cursor)
            cursor.rows = self.cursor_rows(cursor, tuple(self.evaluate(u) for u in node.using)).values()
        elif isinstance(node, nodes.Fetch):
            cursor = self.lookup(node.cursor, Cursor)
            if cursor.rows is None:
                raise _Raised(
                    "STATEMENT_ERROR", SnowflakeError(f"Cursor '{node.cursor}' is not open."), node.at
                )
            row = next(cursor.rows, None)
            self.assign_all(node.into, row if row is not None else [Value(None, TEXT)] * len(node.into))
        elif isinstance(node, nodes.Close):
            self.lookup(node.cursor, Cursor).rows = None

    def declare(self, node: nodes.Declare) -> None:
        slot: Slot
        if node.kind == "CURSOR":
            slot = Cursor(node.value or "")
        elif node.kind == "RESULTSET":
            slot = self.rows_of(node.value) if node.value else Rows([], pa.table({}))
        elif node.kind == "EXCEPTION":
            slot = Declared(node.code or DEFAULT_EXCEPTION_CODE, node.message or "")
        elif node.value is not None:
            slot = Variable(self.evaluate(node.value, node.type), node.type)
        else:
            slot = Variable(Value(None, declared_type(node.type)), node.type)
        self.scopes[-1][node.name] = slot

    def sql(self, node: nodes.Sql) -> None:
        if not node.into:
            self.run_sql(node.text)
            return
        rows = self.rows_of(node.text)
        if len(rows.columns) != len(node.into):
            error = SqlCompilationError(
                f"The number of INTO variables ({len(node.into)}) does not match the number of "
                f"columns ({len(rows.columns)})."
            )
            raise _Raised("STATEMENT_ERROR", error, node.at)
        row = next(rows.values(), None)
        self.assign_all(node.into, row if row is not None else [Value(None, t) for _, t in rows.columns])

    def assign_all(self, names: tuple[str, ...], values: list[Value]) -> None:
        for name, value in zip(names, values, strict=False):
            variable = self.lookup(name, Variable)
            variable.value = self.cast(value, variable.declared) if variable.declared else value

    def if_(
        self, branches: tuple[tuple[str, tuple[nodes.Statement, ...]], ...], otherwise: tuple | None
    ) -> None:
        for condition, body in branches:
            if self.evaluate(condition).value is True:
                self.body(body)
                return
        if otherwise is not None:
            self.body(otherwise)

    def loop(self, node: nodes.ForRange | nodes.ForEach | nodes.While | nodes.Repeat | nodes.Loop) -> None:
        self.scopes.append({})
        try:
            for _ in self.iterations(node):
                try:
                    self.body(node.body)
                except _Continue as step:
                    if step.label not in (None, node.label):
                        raise
                except _Break as stop:
                    if stop.label not in (None, node.label):
                        raise
                    return
                if isinstance(node, nodes.Repeat) and self.evaluate(node.condition).value is True:
                    return
        finally:
            self.scopes.pop()

    def iterations(
        self, node: nodes.ForRange | nodes.ForEach | nodes.While | nodes.Repeat | nodes.Loop
    ) -> Iterator[None]:
        """Yields once per turn of the loop, with its variable set in the loop's scope."""
        scope = self.scopes[-1]
        if isinstance(node, nodes.ForRange):
            first, last = (self.integer(self.evaluate(e)) for e in (node.start, node.end))
            steps = range(last, first - 1, -1) if node.reverse else range(first, last + 1)
            for i in steps:
                scope[node.variable] = Variable(Value(i, NUMBER_38_0), None)
                yield
        elif isinstance(node, nodes.ForEach):
            source = self.lookup(node.source, Rows | Cursor)
            rows = source if isinstance(source, Rows) else self.cursor_rows(source, ())
            for values in rows.records():
                scope[node.variable] = Record(values)
                yield
        elif isinstance(node, nodes.While):
            while self.evaluate(node.condition).value is True:
                yield
        else:
            while True:
                yield

    def return_(self, node: nodes.Return) -> None:
        if node.table is not None:
            name = node.table.strip()
            slot = self.find(name.upper()) or self.find(name.strip('"'))
            if isinstance(slot, Rows):
                raise _Returned(slot)
            raise _Returned(self.rows_of(name))
        raise _Returned(None if node.value is None else self.evaluate(node.value))

    def raise_(self, node: nodes.Raise) -> None:
        if node.name is None:
            if not self.handling:
                raise SqlCompilationError("RAISE without an exception outside an exception handler.")
            raise self.handling[-1]
        declared = self.lookup(node.name, Declared)
        error = SnowflakeError(declared.message, code=declared.code, sqlstate=USER_EXCEPTION_STATE)
        raise _Raised(node.name, error, node.at)

    def execute_immediate(self, node: nodes.ExecuteImmediate) -> QueryResult:
        """The statement a string holds: SQL (its own result), a control-flow statement or a block."""
        text = self.evaluate(node.source).value
        if not isinstance(text, str):
            raise _Raised(
                "STATEMENT_ERROR", SqlCompilationError("EXECUTE IMMEDIATE needs a string."), node.at
            )
        using = tuple(self.evaluate(u) for u in node.using)
        if script.is_block(text):
            block, _, _ = script.parse_block(text)
            return Interpreter(self.engine, self.session, self.cancel).run_top(block, ANONYMOUS_BLOCK, None)
        statement = script.parse_statement(text)
        if isinstance(statement, nodes.Sql) and not statement.into:
            return self.run_sql(statement.text, using, node.at)
        nested = Interpreter(self.engine, self.session, self.cancel)
        return nested.run_top(nodes.Block(node.at, (), (statement,)), ANONYMOUS_BLOCK, None)

    # --- SQL and expressions -----------------------------------------------------------------

    def run_sql(
        self, text: str, using: tuple[Value, ...] = (), at: nodes.Position | None = None
    ) -> QueryResult:
        """One SQL statement with the block's variables bound; its failure is a STATEMENT_ERROR."""
        try:
            if text.lstrip()[:4].upper() == "CALL":
                text = self.bound_call(text)
            statements = self.engine.prepare(text)
            if len(statements) != 1:
                raise SqlCompilationError("A Snowflake Scripting statement holds one SQL statement.")
            (statement,) = statements
            tree = self.bind(statement.tree, using, bare=False)
            result = self.engine.execute(
                self.session, dataclasses.replace(statement, tree=tree), cancel=self.cancel
            )
            result = _materialized(result)
        except QueryCanceled:
            raise
        except SnowflakeError as e:
            raise _Raised("STATEMENT_ERROR", e, at or self.at) from None
        self.counted(result)
        return result

    def run_statement(self, text: str, using: tuple[Value, ...] = ()) -> QueryResult:
        """`run_sql` for callers outside a block (JavaScript procedures): a failure is the
        statement's own error."""
        try:
            return self.run_sql(text, using)
        except _Raised as raised:
            raise raised.error from None

    def cursor_rows(self, cursor: Cursor, using: tuple[Value, ...]) -> Rows:
        """A cursor's rows: its query's, or those of the RESULTSET it was declared over."""
        slot = self.find(cursor.query.strip().upper())
        return slot if isinstance(slot, Rows) else self.rows_of(cursor.query, using)

    def bound_call(self, text: str) -> str:
        """A CALL with its arguments evaluated here (they may read this block's variables)."""
        d = call_def(text)
        arguments = [self.evaluate(a).literal().sql(dialect="snowflake") for a in d.arguments]
        arguments += [f"{n} => {self.evaluate(a).literal().sql(dialect='snowflake')}" for n, a in d.named]
        return f"CALL {'.'.join(naming.quote(p) for p in d.parts)}({', '.join(arguments)})"

    def rows_of(self, text: str, using: tuple[Value, ...] = ()) -> Rows:
        """A query's rows (a cursor, a RESULTSET, SELECT INTO); `(query)` and
        `(EXECUTE IMMEDIATE ...)` as a RESULTSET's default are read too."""
        text = text.strip()
        while text.startswith("(") and text.endswith(")") and _balanced(text[1:-1]):
            text = text[1:-1].strip()
        if text.upper().startswith("EXECUTE"):
            result = self.execute_immediate(script.parse_execute(text))
        else:
            result = self.run_sql(text, using)
        batches = list(result.batches)
        schema = (
            batches[0].schema if batches else pa.schema([arrow_field(c.name, c.type) for c in result.columns])
        )
        return Rows([(c.name, c.type) for c in result.columns], pa.Table.from_batches(batches, schema))

    def counted(self, result: QueryResult) -> None:
        """SQLROWCOUNT / SQLFOUND / SQLNOTFOUND after a DML statement or a query."""
        if result.is_dml:
            batch = next(iter(result.batches), None)
            counts = [] if batch is None else batch.to_pylist()[:1]
            rows = sum(
                int(v or 0) for k, v in (counts[0] if counts else {}).items() if "multi-joined" not in k
            )
        elif result.statement_type == StatementType.SELECT:
            rows = sum(b.num_rows for b in result.batches)
        else:
            return
        scope = self.scopes[0]
        scope["SQLROWCOUNT"] = Variable(Value(rows, NUMBER_38_0), None)
        scope["SQLFOUND"] = Variable(Value(rows > 0, BOOLEAN), None)
        scope["SQLNOTFOUND"] = Variable(Value(rows == 0, BOOLEAN), None)

    def evaluate(self, text: str, declared: str | None = None) -> Value:
        """An expression's value (cast to `declared` when given); its failure is an EXPRESSION_ERROR."""
        try:
            (statement,) = self.engine.prepare(f"SELECT {text}")
            tree = self.bind(statement.tree, (), bare=True)
            if not isinstance(tree, exp.Select) or len(tree.expressions) != 1:
                raise SqlCompilationError(f"Invalid expression [{text}].")
            if (folded := folding.fold(tree, declared)) is not None:
                return Value(folded[0], folded[1])
            if declared:
                tree.set("expressions", [exp.cast(tree.expressions[0], _type(declared))])
            result = self.engine.execute(
                self.session, dataclasses.replace(statement, tree=tree), cancel=self.cancel
            )
            column = pa.Table.from_batches(list(result.batches)).column(0)
        except QueryCanceled:
            raise
        except _Raised:
            raise
        except SnowflakeError as e:
            raise _Raised("EXPRESSION_ERROR", e, self.at) from None
        return Value(column[0].as_py() if len(column) else None, result.columns[0].type)

    def cast(self, value: Value, declared: str | None) -> Value:
        if not declared:
            return value
        return self.evaluate(value.literal().sql(dialect="snowflake"), declared)

    def integer(self, value: Value) -> int:
        if value.value is None:
            raise _Raised("EXPRESSION_ERROR", SnowflakeError("A FOR loop's bound is NULL."), self.at)
        return int(value.value)  # type: ignore[call-overload]

    def bind(self, tree: exp.Expression, using: tuple[Value, ...], bare: bool) -> exp.Expression:
        """`:name` (and `?` / `:n` from USING) as literals; with `bare`, also a variable written
        as a plain name, and `row.column` of a FOR loop's row, outside subqueries."""
        position = 0

        def replace(node: exp.Expression) -> exp.Expression:
            nonlocal position
            if isinstance(node, exp.Placeholder):
                name = str(node.this or "")
                if not name or name.isdigit():
                    index = int(name) - 1 if name else position
                    position += 0 if name else 1
                    if not 0 <= index < len(using):
                        raise BindError(f"Bind variable {name or '?'} not set.")
                    return using[index].literal()
                return self.lookup(name.upper(), Variable).value.literal()
            if bare and isinstance(node, exp.Column) and node.find_ancestor(exp.Select) is tree:
                if not node.table:
                    slot = self.find(normalize(node.this))
                    if isinstance(slot, Variable):
                        return slot.value.literal()
                elif not node.args.get("db"):
                    slot = self.find(normalize(node.args["table"]))
                    if isinstance(slot, Record) and normalize(node.this) in slot.values:
                        return slot.values[normalize(node.this)].literal()
            return node

        tree = tree.copy()
        return binding.named_identifiers(tree.transform(replace, copy=False))

    # --- scopes ------------------------------------------------------------------------------

    def find(self, name: str) -> Slot | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def lookup(self, name: str, kind: type | object) -> Slot:  # type: ignore[return]
        slot = self.find(name)
        if slot is None or not isinstance(slot, kind):  # type: ignore[arg-type]
            what = "cursor" if kind is Cursor else "exception" if kind is Declared else "variable"
            raise _Raised(
                "STATEMENT_ERROR", SqlCompilationError(f"Undeclared {what} '{name}'.", code=904), self.at
            )
        return slot  # type: ignore[return-value]


def _type(declared: str) -> exp.DataType:
    return exp.DataType.build(declared, dialect="snowflake")


def declared_type(declared: str | None) -> SfType:
    if not declared:
        return TEXT
    try:
        return parse_sql_type(declared)
    except ValueError:
        return TEXT


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def _materialized(result: QueryResult) -> QueryResult:
    """Runs a statement's stream to its end (a block reads its rows more than once)."""
    if not isinstance(result.batches, list):
        result.batches = list(result.batches)
    return result


def _table_result(rows: Rows) -> QueryResult:
    return QueryResult([ResultColumn(n, t) for n, t in rows.columns], rows.table.to_batches())

"""Procedures and functions in JavaScript (LANGUAGE JAVASCRIPT), run by QuickJS.

QuickJS is an embedded engine with no file, network or process access: a body reaches only the
`snowflake` object (engine/javascript_api.py). The body is a function body whose parameters are
the arguments' names as stored (upper case unless quoted), so `X` reads argument `x`. A function
runs per row (`FunctionBody`, given a batch of rows at a time by its UDF: python_functions.py).
A procedure runs once (`run`); its SQL runs
in the caller's session through the scripting interpreter, `?` bound to `binds`, and comes back
whole as a ResultSet. A statement's error is thrown as an Error carrying Snowflake's `code`,
`state` and `message`; one the body does not catch fails the CALL with 100183, any other uncaught
exception with 100132, a body that does not compile with 100131.
https://docs.snowflake.com/en/sql-reference/stored-procedures-api
https://docs.snowflake.com/en/developer-guide/udf-stored-procedure-data-type-mapping
"""

from __future__ import annotations

import json
import math
import threading
import uuid
from datetime import UTC, date, datetime, time
from decimal import Decimal
from typing import Any

import pyarrow as pa
import quickjs

from embucket_py.catalog.routines import Routine
from embucket_py.engine.javascript_api import PRELUDE
from embucket_py.engine.result import QueryResult, StatementType, constant
from embucket_py.engine.scripting import BOOLEAN, TEXT, Interpreter, Value, declared_type
from embucket_py.errors import (
    JavaScriptCompilationError,
    JavaScriptExecutionError,
    QueryCanceled,
    SnowflakeError,
    StoredProcedureExecutionError,
)
from embucket_py.types import NUMBER_38_0, SEMI_STRUCTURED, SfType

REAL = SfType("REAL")
TIMESTAMP_LTZ = SfType("TIMESTAMP_LTZ", scale=9)
TIMESTAMP_NTZ = SfType("TIMESTAMP_NTZ", scale=9)
# A body may not take the server's memory: QuickJS fails its allocations past this.
MEMORY_LIMIT = 512 << 20
_TEMPORAL = ("DATE", "TIMESTAMP_NTZ", "TIMESTAMP_LTZ", "TIMESTAMP_TZ")
# DML results' count columns, by what they count.
_COUNTS = {
    "number of rows inserted": "inserted",
    "number of rows updated": "updated",
    "number of rows deleted": "deleted",
}


def run(interpreter: Interpreter, procedure: Routine, arguments: list[Value]) -> QueryResult:
    """Runs the procedure's body with `arguments` (already cast to their declared types).

    Raises:
        SnowflakeError: the body failed (100131, 100132, 100183) or its statement was canceled.
    """
    bridge = _Bridge(interpreter)
    context = _context(procedure)
    context.add_callable("__sf_py_sql", bridge.sql)
    kinds = [_kind(v.type) for v in arguments]
    values = [_wire(v.value, v.type) for v in arguments]
    try:
        answer = json.loads(context.eval(f"__sf_main({json.dumps(kinds)}, {json.dumps(values)})"))
    except quickjs.JSException as e:  # the engine's own failure: out of memory, a stack overflow
        bridge.reraise()
        raise _execution_error(str(e).splitlines()[0], procedure.name) from None
    bridge.reraise()
    if "error" in answer:
        error = answer["error"]
        if error["code"] is not None:
            message = f"Execution error in store procedure {procedure.name}:\n{error['message']}"
            raise StoredProcedureExecutionError(f"{message}\nAt Statement.execute")
        raise _execution_error(error["text"], procedure.name)
    value = _returned(interpreter, answer["ok"], procedure.returns)
    return constant([(procedure.name, value.type)], [(value.value,)], StatementType.SELECT)


def _context(routine: Routine) -> quickjs.Context:
    """A QuickJS context holding the API and the routine's body as `__sf_procedure`.

    Raises:
        JavaScriptCompilationError: the body does not compile.
    """
    context = quickjs.Context()
    context.set_memory_limit(MEMORY_LIMIT)
    context.eval(PRELUDE)
    names = ", ".join(name for name, _, _ in routine.arguments)
    try:
        context.eval(f"function __sf_procedure({names}) {{\n{routine.body}\n}}")
    except quickjs.JSException as e:
        first = str(e).splitlines()[0]
        raise JavaScriptCompilationError(f"JavaScript compilation error: Uncaught {first}") from None
    return context


def _execution_error(text: str, name: str) -> JavaScriptExecutionError:
    return JavaScriptExecutionError(f"JavaScript execution error: Uncaught {text} in {name}")


class FunctionBody:
    """A JavaScript UDF's body, called for a batch of rows at once. QuickJS contexts serve one
    thread each and DataFusion runs a UDF on several, so each thread compiles its own."""

    def __init__(self, routine: Routine) -> None:
        self.routine = routine
        self.local = threading.local()
        _context(routine)  # a body that does not compile fails when the call is planned

    def __call__(self, kinds: list[SfType], rows: list[tuple[Any, ...]]) -> list[dict[str, Any] | None]:
        """Each row's return value, as `__sf_out` describes it (see `returned_value`).

        Raises:
            JavaScriptExecutionError: the body threw for a row.
        """
        call = getattr(self.local, "call", None)
        if call is None:
            self.local.context = _context(self.routine)
            call = self.local.call = self.local.context.get("__sf_rows")
        wired = [[_wire(v, k) for v, k in zip(row, kinds, strict=True)] for row in rows]
        try:
            answer = json.loads(
                call(
                    json.dumps([_kind(k) for k in kinds]), json.dumps(wired, default=str), self.routine.strict
                )
            )
        except quickjs.JSException as e:  # the engine's own failure: out of memory, a stack overflow
            raise _execution_error(str(e).splitlines()[0], self.routine.name) from None
        if "error" in answer:
            raise _execution_error(answer["error"], self.routine.name)
        return answer["values"]  # type: ignore[no-any-return]


def returned_value(out: dict[str, Any] | None, returns: SfType) -> Any:
    """A function's return value for its declared type (JavaScript's String(value) for text)."""
    if out is None or out["kind"] == "null":
        return None
    kind, value = out["kind"], out["value"]
    if returns.kind == "TEXT":
        return out["text"]
    if kind == "json":
        return json.loads(value)
    if kind == "date":
        moment = datetime.fromtimestamp(value / 1000, UTC)
        return moment.date() if returns.kind == "DATE" else moment
    if kind == "real":
        return float(value)
    return value


class _Bridge:
    """Runs the body's statements. A cancel, or a failure of the server's own, is kept and raised
    once the body returns (the body cannot catch it) and fails every later statement at once."""

    def __init__(self, interpreter: Interpreter) -> None:
        self.interpreter = interpreter
        self.failure: BaseException | None = None

    def reraise(self) -> None:
        if self.failure is not None:
            raise self.failure

    def sql(self, request_text: str) -> str:
        if self.failure is not None:
            return _error(QueryCanceled("SQL execution canceled"))
        request = json.loads(request_text)
        try:
            binds = tuple(_bound(b) for b in request["binds"])
            result = self.interpreter.run_statement(request["sqlText"], binds)
            return json.dumps(_answer(result), default=str)
        except QueryCanceled as e:
            self.failure = e
            return _error(e)
        except SnowflakeError as e:
            return _error(e)
        except Exception as e:  # a bug of ours: the CALL fails with it, not the body's catch
            self.failure = e
            return _error(JavaScriptExecutionError("Internal error"))


def _error(e: SnowflakeError) -> str:
    """A statement's failure as the body's `snowflake` object throws it."""
    return json.dumps({"error": {"code": e.code, "state": e.sqlstate, "message": e.message}})


def _bound(bind: dict[str, Any]) -> Value:
    """A JavaScript bind value as a typed SQL value."""
    kind, value = bind["kind"], bind["value"]
    if kind == "null":
        return Value(None, TEXT)
    if kind == "integer":
        return Value(int(value), NUMBER_38_0) if abs(value) < 2**63 else Value(float(value), REAL)
    if kind == "real":
        return Value(float(value), REAL)
    if kind == "boolean":
        return Value(bool(value), BOOLEAN)
    if kind == "date":
        return Value(datetime.fromtimestamp(value / 1000, UTC), TIMESTAMP_LTZ)
    return Value(str(value), TEXT)


def _answer(result: QueryResult) -> dict[str, Any]:
    """A statement's result for a ResultSet: columns, cells as JSON, their texts, DML counts."""
    batches = list(result.batches)
    table = pa.Table.from_batches(batches) if batches else None
    columns = [c.type for c in result.columns]
    rows: list[list[Any]] = []
    texts: list[list[str | None]] = []
    if table is not None:
        for row in zip(*(column.to_pylist() for column in table.columns), strict=True):
            rows.append([_wire(v, t) for v, t in zip(row, columns, strict=True)])
            texts.append([_text(v, t) for v, t in zip(row, columns, strict=True)])
    affected = {"total": 0, "inserted": 0, "updated": 0, "deleted": 0}
    if result.is_dml and rows:
        for column, count in zip(result.columns, rows[0], strict=True):
            what = _COUNTS.get(column.name.lower())
            if what is not None:
                affected[what] += int(count or 0)
        affected["total"] = affected["inserted"] + affected["updated"] + affected["deleted"]
    return {
        "columns": [
            {"name": c.name, "kind": _kind(c.type), "sql": c.type.sql, "scale": c.type.scale or 0}
            for c in result.columns
        ],
        "rows": rows,
        "texts": texts,
        "affected": affected,
        "queryId": str(uuid.uuid4()),
    }


def _kind(t: SfType) -> str:
    """How a cell of type `t` becomes a JavaScript value (see javascript_api.py)."""
    if t.kind in _TEMPORAL:
        return "date"
    if t.kind in SEMI_STRUCTURED:
        return "variant"  # sent as JSON text: a VARIANT's JSON null is not a SQL NULL
    return {"BINARY": "binary", "REAL": "real", "TEXT": "text"}.get(t.kind, "plain")


def _wire(value: Any, t: SfType) -> Any:
    """A SQL value as JSON for JavaScript: NUMBER and FLOAT as numbers, VARIANT as its JSON text,
    DATE and TIMESTAMP as epoch milliseconds, BINARY as bytes, TIME as its text."""
    if value is None:
        return None
    if t.kind in SEMI_STRUCTURED:
        return value if isinstance(value, str) else json.dumps(value)
    if isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return value if abs(value) < 2**53 else float(value)
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() and abs(value) < 2**53 else float(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value).replace("inf", "Infinity").replace("nan", "NaN")
    if isinstance(value, datetime):
        aware = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
        return round(aware.timestamp() * 1000)
    if isinstance(value, date):
        return round(datetime(value.year, value.month, value.day, tzinfo=UTC).timestamp() * 1000)
    if isinstance(value, bytes):
        return list(value)
    return str(value)


def _text(value: Any, t: SfType) -> str | None:
    """A cell as getColumnValueAsString gives it."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, bytes):
        return value.hex().upper()
    if isinstance(value, datetime | date | time):
        return value.isoformat(sep=" ") if isinstance(value, datetime) else value.isoformat()
    return str(value)


def _returned(interpreter: Interpreter, out: dict[str, Any], returns: str) -> Value:
    """The body's return value as the procedure's declared type (a string return for VARCHAR is
    JavaScript's String(value))."""
    declared = declared_type(returns)
    kind, value = out["kind"], out["value"]
    if kind == "null":
        return Value(None, declared)
    if declared.kind == "TEXT":
        return Value(out["text"], declared)
    if declared.kind in SEMI_STRUCTURED:
        text = value if kind == "json" else json.dumps(value if kind != "date" else out["text"])
        return interpreter.cast(Value(text, SfType("VARIANT")), returns)
    if kind == "date":
        moment = datetime.fromtimestamp(value / 1000, UTC)
        if declared.kind in ("DATE", "TIMESTAMP_NTZ"):  # the UTC calendar day and clock, as a function's
            return interpreter.cast(Value(moment.replace(tzinfo=None), TIMESTAMP_NTZ), returns)
        return interpreter.cast(Value(moment, TIMESTAMP_LTZ), returns)
    if kind == "real" and not isinstance(value, str):
        typed = Value(float(value), REAL)
    elif kind == "boolean":
        typed = Value(bool(value), BOOLEAN)
    else:
        typed = Value(out["text"], TEXT)
    return typed if typed.type == declared else interpreter.cast(typed, returns)
